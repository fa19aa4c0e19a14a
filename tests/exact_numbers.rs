//! Exact arithmetic and bounded loads, end to end: a table cut inside its last row leaves that
//! row out and says so (the totals checked against the complete rows, summed here from the
//! same file); sums past 2^64 and an end before its start are errors naming the row; the memory
//! budget stops a load with a partial result.

use serde_json::Value;
use std::path::{Path, PathBuf};

#[path = "support/mod.rs"]
mod support;

use support::{fixtures, Scratch};

/// Splits one CSV line into unquoted fields (quoted fields may hold commas).
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// The data rows of `text` (header dropped, blank lines skipped), as fields.
fn rows(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = text.lines().map(|l| l.trim_end_matches('\r')).filter(|l| !l.trim().is_empty());
    let header = fields(lines.next().unwrap());
    (header, lines.map(fields).collect())
}

/// The sum of column `name` over every row but the last.
fn sum_but_last(text: &str, name: &str) -> u64 {
    let (header, rows) = rows(text);
    let at = header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
    rows[..rows.len() - 1].iter().map(|r| r[at].trim().parse::<u64>().unwrap()).sum()
}

/// `text` cut three bytes before the end of its last row, as a writer killed mid-row leaves it.
fn cut_inside_last_row(text: &str) -> String {
    let whole = text.trim_end_matches(['\n', '\r']);
    whole[..whole.len() - 3].to_owned()
}

/// The 1-based line of the last row of `text`.
fn last_row_line(text: &str) -> usize {
    text.trim_end_matches(['\n', '\r']).lines().count()
}

fn write(scratch: &Scratch, name: &str, text: &str) -> PathBuf {
    let path = scratch.path().join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn analyze_json(path: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["analyze", "--json"];
    args.extend_from_slice(extra);
    args.push(path.to_str().unwrap());
    support::success_json(&support::prof(&args))
}

/// A failed `prof analyze`: its status and its one-line message.
fn analyze_error(path: &Path) -> (Option<i32>, String) {
    let out = support::prof(&["analyze", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
    assert!(!out.status.success(), "{} was read: {}", path.display(), String::from_utf8_lossy(&out.stdout));
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code(), stderr)
}

#[test]
fn a_table_cut_inside_its_last_row_leaves_that_row_out_and_says_so() {
    let scratch = Scratch::new("exact-cut");
    let ascend_stats = "ascend/vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254/PROF_PipeUtilization/\
                        PROF_000001_20260823165326062_00625538CIGQAHCJ/mindstudio_profiler_output/\
                        op_statistic_20260823165335.csv";
    // (fixture, the name it is written under, the column that counts ops)
    let cases = [
        ("nvidia/nsys/gpuperf_sm103_cuda_gpu_kern_sum.csv", "nsys/x_cuda_gpu_kern_sum.csv", Some("Instances")),
        ("amd/rocprofv3/hpctrain-jacobi_kernel_stats.csv", "rocprof/x_kernel_stats.csv", Some("Calls")),
        (ascend_stats, "ascend-stats/op_statistic_1.csv", Some("Count")),
        ("ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv", "ascend-ops/kernel_details.csv", None),
    ];
    for (fixture, name, count_column) in cases {
        let text = std::fs::read_to_string(fixtures().join(fixture)).unwrap();
        let path = write(&scratch, name, &cut_inside_last_row(&text));
        let expected_ops = match count_column {
            Some(column) => sum_but_last(&text, column),
            None => rows(&text).1.len() as u64 - 1,
        };
        let note = format!("{}:{}: the last row has no line break", path.display(), last_row_line(&text));
        let mut runs = vec![analyze_json(&path, &[])];
        if count_column.is_none() {
            runs.push(analyze_json(&path, &["--summary-only"]));
        }
        for doc in runs {
            assert_eq!(doc["summary"]["ops"], expected_ops, "{fixture}: ops of the complete rows");
            let partial = doc["partial"].as_str().unwrap_or_else(|| panic!("{fixture}: not marked partial"));
            assert!(partial.contains(&note), "{fixture}: {partial}");
        }
        // The same file whole reads complete, with the last row counted.
        let whole = write(&scratch, &format!("whole-{name}"), &text);
        assert!(analyze_json(&whole, &[])["partial"].is_null(), "{fixture}");
    }
}

#[test]
fn a_deep_dive_table_cut_inside_its_last_row_is_refused_naming_the_line() {
    let scratch = Scratch::new("exact-cut-deep");
    for (fixture, name) in [
        ("amd/rocprofv3/sdk1.0_counter_collection.csv", "x_counter_collection.csv"),
        ("nvidia/h200-ncu/nvjet-raw.csv", "nvjet-raw.csv"),
        ("nvidia/h200-ncu/nvjet-details.csv", "nvjet-details.csv"),
    ] {
        let text = std::fs::read_to_string(fixtures().join(fixture)).unwrap();
        assert!(!support::prof(&["analyze", &support::fixture_arg(fixture)]).stdout.is_empty(), "{fixture} reads");
        let path = write(&scratch, name, &cut_inside_last_row(&text));
        let (code, message) = analyze_error(&path);
        assert_eq!(code, Some(3), "{fixture}: bad input: {message}");
        let line = last_row_line(&text);
        assert!(message.contains(&format!("line {line}")) || message.contains(&format!(":{line}:")), "{message}");
        assert!(message.contains("no line break"), "{message}");
    }
}

#[test]
fn sums_past_64_bits_are_errors_naming_the_row() {
    let scratch = Scratch::new("exact-overflow");
    // nsys stats: two rows whose totals together pass 2^64 ns; the second is named.
    let text = std::fs::read_to_string(fixtures().join("nvidia/nsys/gpuperf_sm103_cuda_gpu_kern_sum.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for line in &mut lines[1..3] {
        let mut f: Vec<String> = line.split(',').map(str::to_owned).collect();
        f[1] = (u64::MAX / 2 + 1).to_string();
        *line = f.join(",");
    }
    let path = write(&scratch, "big_cuda_gpu_kern_sum.csv", &(lines.join("\n") + "\n"));
    let (code, message) = analyze_error(&path);
    assert_eq!(code, Some(3));
    assert!(message.contains(&format!("{}:3:", path.display())) && message.contains("2^64"), "{message}");

    // A trace whose kernel durations sum past 2^64 ns: the op that passed it is named.
    let trace = r#"{"schemaVersion": 1, "traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 1, "dur": 10000000000000000,
         "args": {"device": 0, "stream": 7, "correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 2, "dur": 10000000000000000,
         "args": {"device": 0, "stream": 7, "correlation": 2}}]}"#;
    let path = write(&scratch, "huge.pt.trace.json", trace);
    let (code, message) = analyze_error(&path);
    assert_eq!(code, Some(3), "{message}");
    assert!(message.contains("device op 2 (`b`") && message.contains("2^64"), "{message}");
}

#[test]
fn an_end_before_its_start_is_an_error_naming_the_row() {
    let scratch = Scratch::new("exact-end-before-start");
    let text = std::fs::read_to_string(fixtures().join("amd/rocprofv3/sdk1.0_counter_collection.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut f = fields(&lines[2]);
    let n = f.len();
    f.swap(n - 2, n - 1);
    lines[2] = f.iter().map(|x| format!("\"{x}\"")).collect::<Vec<_>>().join(",");
    let path = write(&scratch, "x_counter_collection.csv", &(lines.join("\n") + "\n"));
    let (code, message) = analyze_error(&path);
    assert_eq!(code, Some(3));
    assert!(message.contains(&format!("{}:3:", path.display())), "{message}");
    assert!(message.contains("is before `Start_Timestamp`"), "{message}");
}

#[test]
fn the_memory_budget_stops_a_load_with_a_partial_result() {
    // The embedded profile (100 kernels and their host spans, ~19 KiB held) within 12 KiB: a
    // prefix, marked partial.
    let whole = support::prof_json(&["analyze", "--json"]);
    let cut = support::prof_json(&["analyze", "--json", "--memory-budget", "12K", "--phase", "all"]);
    let ops = cut["summary"]["ops"].as_u64().unwrap();
    assert!(ops > 0 && ops <= 12 * 1024 / 28, "{ops} ops in 12 KiB");
    assert!(ops < whole["summary"]["ops"].as_u64().unwrap());
    let partial = cut["partial"].as_str().unwrap();
    assert!(partial.starts_with("stopped at the memory budget (12 KiB)"), "{partial}");
    // The environment sets it too; a budget too small for one op is an error, not an empty answer.
    let out = support::hermetic(support::NOWHERE).env("PROF_MEMORY_BUDGET", "1K").args(["analyze"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("the memory budget (1 KiB) was spent before the first device op"), "{message}");
}
