//! `prof analyze` on bad input generated in a temp dir from the real fixtures: truncations,
//! a `;` delimiter, a missing column, a UTF-8 BOM, Latin-1/GBK name bytes, NaN/negative/
//! overflowing numbers, empty and 0-byte files, a directory in place of a file, and
//! unsorted/overlapping events. Each case must fail with one line naming the file, or
//! succeed marked partial, or succeed with the right totals; never panic.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/mod.rs"]
mod support;

use support::{fixtures, Scratch};

/// What a case may end as.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// A non-zero exit with a one-line error naming the file.
    Error,
    /// An error as above, or success with `"partial"` set.
    ErrorOrPartial,
    /// An error, partial, or a success whose numbers the caller checks.
    Any,
}

/// The bad files of one format, each case in its own sub-directory of a scratch directory.
struct Cases(Scratch);

impl Cases {
    fn new(name: &str) -> Self {
        Self(Scratch::new(&format!("bad-input-{name}")))
    }

    /// Writes `bytes` as `<case>/<file_name>` and returns its path.
    fn write(&self, case: &str, file_name: &str, bytes: &[u8]) -> PathBuf {
        let dir = self.0.path().join(case);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(file_name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Makes a directory named `<case>/<file_name>`.
    fn dir(&self, case: &str, file_name: &str) -> PathBuf {
        let path = self.0.path().join(case).join(file_name);
        std::fs::create_dir_all(&path).unwrap();
        path
    }
}

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(rel)).unwrap()
}

/// `prof analyze --json path`.
fn analyze_json(path: &Path) -> Output {
    support::prof(&["analyze", "--json", path.to_str().expect("scratch paths are UTF-8")])
}

/// Runs `prof analyze --json path`, checks the outcome against `expect`, and returns the JSON
/// document when it succeeded.
fn check(case: &str, path: &Path, expect: Expect) -> Option<Value> {
    let out = analyze_json(path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{case}: panicked: {stderr}");
    if !out.status.success() {
        let line = stderr.trim();
        // One message: a first line, then only indented continuation lines (the formats prof
        // reads, per backend).
        assert!(line.lines().skip(1).all(|l| l.starts_with("  ")), "{case}: not one message: {stderr}");
        assert!(line.contains(&path.display().to_string()), "{case}: does not name {}: {line}", path.display());
        return None;
    }
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{case}: bad JSON: {e}"));
    match expect {
        Expect::Error => panic!("{case}: expected an error, got {}", summary_line(&doc)),
        Expect::ErrorOrPartial => {
            assert!(!doc["partial"].is_null(), "{case}: success not marked partial: {}", summary_line(&doc))
        }
        Expect::Any => {}
    }
    Some(doc)
}

fn summary_line(doc: &Value) -> String {
    format!("partial={} ops={} device_ns={}", doc["partial"], doc["summary"]["ops"], doc["summary"]["device_ns"])
}

/// A failure must also say where: a line (`file:N:`) or a byte offset.
fn check_located(case: &str, path: &Path) {
    let out = analyze_json(path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        return;
    }
    let named = format!("{}:", path.display());
    let after = stderr.split_once(&named).map_or("", |(_, rest)| rest);
    if stderr.contains("not a format prof reads") {
        return;
    }
    let has_line = after.chars().next().is_some_and(|c| c.is_ascii_digit());
    assert!(has_line || stderr.contains("offset") || stderr.contains("line "), "{case}: no line or offset: {stderr}");
}

/// Splits one CSV line into fields, keeping quotes (kernel names hold commas).
fn split_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                fields.last_mut().unwrap().push(c);
            }
            ',' if !quoted => fields.push(String::new()),
            _ => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// The index of the header field `name` (quoted or not).
fn column(header: &str, name: &str) -> usize {
    split_fields(header).iter().position(|f| f.trim_matches('"') == name).unwrap()
}

/// `text` without column `name`.
fn drop_column(text: &str, name: &str) -> String {
    let index = column(text.lines().next().unwrap(), name);
    let mut out = String::new();
    for line in text.lines() {
        let mut fields = split_fields(line);
        if index < fields.len() {
            fields.remove(index);
        }
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// `text` with column `name` of data row `row` (1-based, after the header) set to `value`.
fn set_cell(text: &str, row: usize, name: &str, value: &str) -> String {
    let index = column(text.lines().next().unwrap(), name);
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut fields = split_fields(line);
        if i == row {
            fields[index] = value.to_owned();
        }
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// Replaces the first occurrence of `from` in `bytes` with `to`.
fn replace_first(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let at = bytes.windows(from.len()).position(|w| w == from).unwrap();
    [&bytes[..at], to, &bytes[at + from.len()..]].concat()
}

/// The cases every format gets: truncations, a BOM, empty, 0 bytes, a directory. A
/// truncated file may also load fully when the cut leaves whole records: `truncated` says.
fn common_cases(s: &Cases, file_name: &str, base: &[u8], base_doc: &Value, truncated: Expect) {
    for (i, cut) in
        [base.len() / 7, base.len() / 3, base.len() / 2, base.len() * 9 / 10, base.len() - 1].into_iter().enumerate()
    {
        let case = format!("truncated{i}");
        let path = s.write(&case, file_name, &base[..cut]);
        if let Some(doc) = check(&case, &path, truncated) {
            if doc["partial"].is_null() {
                let (ops, _, kernels) = fingerprint(&doc);
                let (base_ops, _, base_kernels) = fingerprint(base_doc);
                assert!(ops.as_u64() <= base_ops.as_u64() && kernels.len() <= base_kernels.len(), "{case}: more");
            }
        }
        check_located(&case, &path);
    }
    let bom_path = s.write("bom", file_name, &[b"\xEF\xBB\xBF".as_slice(), base].concat());
    same_or_error("bom", &bom_path, base_doc);
    check("zero-byte", &s.write("zero", file_name, b""), Expect::Error);
    check("blank", &s.write("blank", file_name, b"\n\n"), Expect::Error);
    check("directory", &s.dir("directory", file_name), Expect::Error);
}

/// The numbers a report stands on: ops, device time, and each deep-dive kernel's duration.
fn fingerprint(doc: &Value) -> (Value, Value, Vec<Value>) {
    let kernels =
        doc["kernels"].as_array().map_or(Vec::new(), |k| k.iter().map(|k| k["duration_ns"].clone()).collect());
    (doc["summary"]["ops"].clone(), doc["summary"]["device_ns"].clone(), kernels)
}

/// `check` with [`Expect::Any`]; a full success must equal the unmodified fixture's totals.
fn same_or_error(case: &str, path: &Path, base: &Value) {
    if let Some(doc) = check(case, path, Expect::Any) {
        if doc["partial"].is_null() {
            assert_eq!(fingerprint(&doc), fingerprint(base), "{case}: numbers differ from the unmodified file");
        }
    }
}

/// Ops, summed durations and per-device union of `(device, start, end)` intervals.
fn totals(mut ops: Vec<(u64, u64, u64)>) -> (u64, u64, Vec<(u64, u64)>) {
    ops.sort_unstable();
    let sum = ops.iter().map(|&(_, s, e)| e - s).sum();
    let mut busy: Vec<(u64, u64)> = Vec::new();
    let mut open: Option<(u64, u64, u64)> = None;
    for &(device, start, end) in &ops {
        match open {
            Some((d, _, e)) if d == device && start <= e => open = open.map(|(d, s, e)| (d, s, e.max(end))),
            _ => {
                if let Some((d, s, e)) = open {
                    add_busy(&mut busy, d, e - s);
                }
                open = Some((device, start, end));
            }
        }
    }
    if let Some((d, s, e)) = open {
        add_busy(&mut busy, d, e - s);
    }
    (ops.len() as u64, sum, busy)
}

fn add_busy(busy: &mut Vec<(u64, u64)>, device: u64, ns: u64) {
    match busy.iter_mut().find(|(d, _)| *d == device) {
        Some((_, total)) => *total += ns,
        None => busy.push((device, ns)),
    }
}

/// Asserts the document's ops, device time and per-device busy time equal `expected`.
fn assert_totals(case: &str, doc: &Value, expected: &(u64, u64, Vec<(u64, u64)>)) {
    assert!(doc["partial"].is_null(), "{case}: partial {}", doc["partial"]);
    assert_eq!(doc["summary"]["ops"].as_u64(), Some(expected.0), "{case}: ops");
    assert_eq!(doc["summary"]["device_ns"].as_u64(), Some(expected.1), "{case}: device_ns");
    let busy: Vec<(u64, u64)> = doc["summary"]["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["device"].as_u64().unwrap(), d["busy_ns"].as_u64().unwrap()))
        .collect();
    let mut want = expected.2.clone();
    want.sort_unstable();
    let mut got = busy;
    got.sort_unstable();
    assert_eq!(got, want, "{case}: busy_ns per device");
}

/// The device ops of a Kineto trace: `(device, start_ns, end_ns)` with µs → ns rounded.
fn torch_ops(doc: &Value) -> Vec<(u64, u64, u64)> {
    let ns = |v: &Value| (v.as_f64().unwrap() * 1000.0).round() as u64;
    doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && matches!(e["cat"].as_str(), Some("kernel" | "gpu_memcpy" | "gpu_memset")))
        .map(|e| (e["args"]["device"].as_u64().unwrap(), ns(&e["ts"]), ns(&e["ts"]) + ns(&e["dur"])))
        .collect()
}

#[test]
fn torch_trace_json() {
    let s = Cases::new("torch");
    let name = "trace.json";
    let base = fixture("nvidia/h200-probe/torch-trace.json");
    let trace: Value = serde_json::from_slice(&base).unwrap();
    let base_doc = check("base", &s.write("base", name, &base), Expect::Any).unwrap();
    assert_totals("base", &base_doc, &totals(torch_ops(&trace)));
    common_cases(&s, name, &base, &base_doc, Expect::ErrorOrPartial);

    let text = String::from_utf8(base.clone()).unwrap();
    check("semicolons", &s.write("semicolons", name, text.replace(',', ";").as_bytes()), Expect::Error);
    let kernel = br#""cat": "kernel""#;
    let at = base.windows(kernel.len()).position(|w| w == kernel).unwrap();
    let dur = at + base[at..].windows(6).position(|w| w == b"\"dur\":").unwrap();
    let missing = [&base[..dur], b"\"xdur\":".as_slice(), &base[dur + 6..]].concat();
    check("missing-dur", &s.write("missing-dur", name, &missing), Expect::ErrorOrPartial);
    for (case, bytes) in [("latin1", b"\xE9".as_slice()), ("gbk", b"\xC4\xE3".as_slice())] {
        let bad = replace_first(&base, b"\"name\": \"nvjet", &[b"\"name\": \"".as_slice(), bytes, b"nvjet"].concat());
        same_or_error(case, &s.write(case, name, &bad), &base_doc);
    }
    let end = dur + base[dur..].iter().position(|&c| c == b',' || c == b'}').unwrap();
    for (case, value) in
        [("nan", "NaN"), ("negative", "-5"), ("overflow", "99999999999999999999999"), ("huge", "1e300")]
    {
        let bad = [&base[..dur], format!("\"dur\": {value}").as_bytes(), &base[end..]].concat();
        check(case, &s.write(case, name, &bad), Expect::ErrorOrPartial);
    }

    let mut reversed = trace.clone();
    reversed["traceEvents"].as_array_mut().unwrap().reverse();
    let doc = check("unsorted", &s.write("unsorted", name, &serde_json::to_vec(&reversed).unwrap()), Expect::Any);
    assert_totals("unsorted", &doc.unwrap(), &totals(torch_ops(&reversed)));

    let mut overlapping = trace;
    let first_ts = torch_ops(&overlapping).iter().map(|o| o.1).min().unwrap() as f64 / 1000.0;
    for e in overlapping["traceEvents"].as_array_mut().unwrap() {
        if e["ph"] == "X" && matches!(e["cat"].as_str(), Some("kernel" | "gpu_memcpy" | "gpu_memset")) {
            e["ts"] = first_ts.into();
        }
    }
    let path = s.write("overlapping", name, &serde_json::to_vec(&overlapping).unwrap());
    let doc = check("overlapping", &path, Expect::Any);
    assert_totals("overlapping", &doc.unwrap(), &totals(torch_ops(&overlapping)));
}

/// The CSV cases: `;` for `,`, a missing column, a Latin-1 and a GBK name, bad numbers.
fn csv_cases(s: &Cases, name: &str, text: &str, base_doc: &Value, number_column: &str, row: usize) {
    check("semicolons", &s.write("semicolons", name, text.replace(',', ";").as_bytes()), Expect::Error);
    let missing = s.write("missing", name, drop_column(text, number_column).as_bytes());
    check("missing-column", &missing, Expect::Error);
    check_located("missing-column", &missing);
    let name_at = text.lines().take(row).map(|l| l.len() + 1).sum::<usize>();
    for (case, bytes) in [("latin1", b"\xE9".as_slice()), ("gbk", b"\xC4\xE3".as_slice())] {
        let line_end = name_at + text[name_at..].find('\n').unwrap();
        let last_quote = name_at + text[name_at..line_end].rfind('"').unwrap_or(line_end - name_at);
        let bad = [&text.as_bytes()[..last_quote], bytes, &text.as_bytes()[last_quote..]].concat();
        let path = s.write(case, name, &bad);
        same_or_error(case, &path, base_doc);
        check_located(case, &path);
    }
    for (case, value) in [("nan", "NaN"), ("negative", "-5"), ("overflow", "99999999999999999999999")] {
        let path = s.write(case, name, set_cell(text, row, number_column, value).as_bytes());
        // A deep dive may instead show the value as unknown (ncu prints `n/a` for those).
        if let Some(doc) = check(case, &path, Expect::Any) {
            let unknown = doc["kernels"][0]["duration_ns"].is_null() && !doc["kernels"][0].is_null();
            assert!(!doc["partial"].is_null() || unknown, "{case}: a bad number loaded: {}", summary_line(&doc));
        }
        check_located(case, &path);
    }
}

#[test]
fn nsys_stats_csv() {
    let s = Cases::new("nsys");
    let name = "gpuperf_sm103_cuda_gpu_kern_sum.csv";
    let base = fixture(&format!("nvidia/nsys/{name}"));
    let text = String::from_utf8(base.clone()).unwrap();
    let base_doc = check("base", &s.write("base", name, &base), Expect::Any).unwrap();
    let total = column(text.lines().next().unwrap(), "Total Time (ns)");
    let sum: u64 =
        text.lines().skip(1).filter(|l| !l.is_empty()).map(|l| split_fields(l)[total].parse::<u64>().unwrap()).sum();
    assert_eq!(base_doc["summary"]["device_ns"].as_u64(), Some(sum));
    common_cases(&s, name, &base, &base_doc, Expect::Any);
    csv_cases(&s, name, &text, &base_doc, "Total Time (ns)", 1);
}

#[test]
fn ncu_details_csv() {
    let s = Cases::new("ncu");
    let name = "deep-dive-ncu-details.csv";
    let base = fixture(&format!("nvidia/h200-verify/{name}"));
    let text = String::from_utf8(base.clone()).unwrap();
    let base_doc = check("base", &s.write("base", name, &base), Expect::Any).unwrap();
    // The CSV's "Duration","us","173.34" row.
    assert!((base_doc["kernels"][0]["duration_ns"].as_f64().unwrap() - 173_340.0).abs() < 1.0);
    common_cases(&s, name, &base, &base_doc, Expect::Any);
    let duration_row = text.lines().position(|l| l.contains(r#""Duration","us""#)).unwrap();
    csv_cases(&s, name, &text, &base_doc, "Metric Value", duration_row);
}

/// `(device, start, end)` of each row of a rocprofv3 kernel trace, by header name.
fn rocprof_ops(text: &str) -> Vec<(u64, u64, u64)> {
    let header = text.lines().next().unwrap();
    let [agent, start, end] = ["Agent_Id", "Start_Timestamp", "End_Timestamp"].map(|c| column(header, c));
    let num = |f: &[String], i: usize| f[i].trim_matches('"').parse::<u64>().unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(split_fields)
        .map(|f| (num(&f, agent), num(&f, start), num(&f, end)))
        .collect()
}

#[test]
fn rocprofv3_kernel_trace_csv() {
    let s = Cases::new("rocprofv3");
    let name = "sdk0.5_kernel_trace.csv";
    let base = fixture(&format!("amd/rocprofv3/{name}"));
    let text = String::from_utf8(base.clone()).unwrap();
    let base_doc = check("base", &s.write("base", name, &base), Expect::Any).unwrap();
    assert_totals("base", &base_doc, &totals(rocprof_ops(&text)));
    common_cases(&s, name, &base, &base_doc, Expect::Any);
    csv_cases(&s, name, &text, &base_doc, "End_Timestamp", 1);

    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].reverse();
    let unsorted = lines.join("\n") + "\n";
    let doc = check("unsorted", &s.write("unsorted", name, unsorted.as_bytes()), Expect::Any).unwrap();
    assert_totals("unsorted", &doc, &totals(rocprof_ops(&unsorted)));

    let first = rocprof_ops(&text).iter().map(|o| o.1).min().unwrap();
    let mut overlapping = text.clone();
    for (row, (_, start, end)) in rocprof_ops(&text).into_iter().enumerate() {
        overlapping = set_cell(&overlapping, row + 1, "Start_Timestamp", &first.to_string());
        overlapping = set_cell(&overlapping, row + 1, "End_Timestamp", &(first + end - start).to_string());
    }
    let doc = check("overlapping", &s.write("overlapping", name, overlapping.as_bytes()), Expect::Any).unwrap();
    assert_totals("overlapping", &doc, &totals(rocprof_ops(&overlapping)));
    assert!(doc["summary"]["devices"][0]["busy_ns"].as_u64() < base_doc["summary"]["devices"][0]["busy_ns"].as_u64());
}

#[test]
fn cupti_trace_pcupti() {
    let s = Cases::new("cupti");
    let name = "prof-cupti-682-launch.pcupti";
    let base = fixture(&format!("nvidia/h200-cupti/{name}"));
    let base_doc = check("base", &s.write("base", name, &base), Expect::Any).unwrap();
    // 93 kernels + 5 memsets (SOURCES.md: counted with a separate Python reader).
    assert_eq!(base_doc["summary"]["ops"], 98);
    common_cases(&s, name, &base, &base_doc, Expect::ErrorOrPartial);
    // Header bytes 12 and 24 (pid, local rank) do not touch the totals; byte 40 is inside the
    // first record's timestamps, which then end before they start.
    for at in [12, 24, 40] {
        let mut flipped = base.clone();
        flipped[at] ^= 0xFF;
        let case = format!("flipped{at}");
        let path = s.write(&case, name, &flipped);
        same_or_error(&case, &path, &base_doc);
        check_located(&case, &path);
    }
}
