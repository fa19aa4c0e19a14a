//! `prof exporter` and `prof top` (issue #54) end to end on the recorded SMI outputs replayed by
//! the fake tools (no AMD or Ascend hardware here): the exposition is well-formed OpenMetrics
//! (checked line by line here; `scripts/check_exposition.py` runs the Prometheus project's own
//! parser on the same output), its values are the recording's, a value the vendor does not
//! report is no series at all, `/metrics` is served over HTTP and SIGTERM ends the exporter; a
//! `prof top` frame fits 80×24 and 200×60.

mod support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Output, Stdio};
use support::{fakes, hermetic, path_with, Scratch};

fn amd(args: &[&str], sysfs: &std::path::Path) -> Command {
    let mut command = hermetic(path_with(&fakes("amd")));
    command.args(args).env("PROF_AMD_SYSFS_ROOT", sysfs).env("FAKE_ROCM_SMI_MODE", "replay");
    command
}

fn run(mut command: Command) -> Output {
    let out = command.output().expect("run prof");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Samples by metric name and sorted labels.
type Samples = HashMap<(String, Vec<(String, String)>), f64>;

/// Samples of a strict reading of the OpenMetrics text: `# HELP`/`# TYPE`/`# UNIT` before their
/// family's samples, `name{k="v",…} value` lines, `# EOF` last. Keyed by name and sorted labels.
fn parse(text: &str) -> Samples {
    let mut samples = HashMap::new();
    let mut typed: HashMap<String, String> = HashMap::new();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"# EOF"), "the exposition ends in # EOF");
    for line in &lines[..lines.len() - 1] {
        if let Some(meta) = line.strip_prefix("# ") {
            let mut parts = meta.splitn(3, ' ');
            let (kind, name) = (parts.next().unwrap(), parts.next().unwrap());
            assert!(["HELP", "TYPE", "UNIT"].contains(&kind), "{line}");
            if kind == "TYPE" {
                typed.insert(name.to_owned(), parts.next().unwrap().to_owned());
            }
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("no value: {line}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("bad value: {line}"));
        let (name, labels) = match series.split_once('{') {
            Some((name, rest)) => {
                let body = rest.strip_suffix('}').unwrap_or_else(|| panic!("unclosed labels: {line}"));
                let mut labels: Vec<(String, String)> = Vec::new();
                let mut rest = body;
                while !rest.is_empty() {
                    let (key, after) = rest.split_once("=\"").unwrap_or_else(|| panic!("bad label: {line}"));
                    let end = after.find('"').unwrap_or_else(|| panic!("unterminated label: {line}"));
                    labels.push((key.to_owned(), after[..end].to_owned()));
                    rest = after[end + 1..].trim_start_matches(',');
                }
                labels.sort();
                (name.to_owned(), labels)
            }
            None => (series.to_owned(), Vec::new()),
        };
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{name}");
        let family = name.strip_suffix("_total").unwrap_or(&name);
        assert!(typed.contains_key(family) || typed.contains_key(&name), "{name} sampled before its TYPE");
        samples.insert((name, labels), value);
    }
    samples
}

fn device(samples: &Samples, name: &str, index: &str) -> Option<f64> {
    samples
        .iter()
        .find(|((n, labels), _)| n == name && labels.iter().any(|(k, v)| k == "device" && v == index))
        .map(|(_, v)| *v)
}

#[test]
fn the_exporter_exposes_the_recorded_amd_values() {
    let sysfs = Scratch::new("live-amd-empty-sysfs");
    let out = run(amd(&["exporter", "--once", "--vendor", "amd", "--interval", "200ms"], sysfs.path()));
    let samples = parse(&String::from_utf8_lossy(&out.stdout));
    // The recording (tests/fixtures/amd/smi/telegraf_mi100_rocm571.json, card0): 39 W of 290,
    // 6,782,976 of 34,342,961,152 bytes of VRAM, 0 % busy.
    assert_eq!(device(&samples, "prof_device_power_watts", "0"), Some(39.0));
    assert_eq!(device(&samples, "prof_device_power_limit_watts", "0"), Some(290.0));
    assert_eq!(device(&samples, "prof_device_memory_used_bytes", "0"), Some(6_782_976.0));
    assert_eq!(device(&samples, "prof_device_memory_total_bytes", "0"), Some(34_342_961_152.0));
    assert_eq!(device(&samples, "prof_device_utilization_ratio", "0"), Some(0.0));
    // Six MI100s, each idle over its three samples; no SM activity from rocm-smi: no series.
    for index in 0..6 {
        let idle = samples.iter().find(|((n, l), _)| {
            n == "prof_device_verdict"
                && l.contains(&("device".into(), index.to_string()))
                && l.contains(&("verdict".into(), "idle".into()))
        });
        assert_eq!(idle.map(|(_, v)| *v), Some(1.0), "device {index}");
    }
    assert!(!samples.keys().any(|(n, _)| n == "prof_device_sm_activity_ratio"));
    let ticks = samples.iter().find(|((n, _), _)| n == "prof_sampler_samples_total").map(|(_, v)| *v);
    assert!(ticks.is_some_and(|t| t >= 3.0), "{ticks:?}");
}

#[test]
fn the_exporter_serves_metrics_over_http_until_sigterm() {
    let sysfs = Scratch::new("live-amd-http-sysfs");
    let mut child =
        amd(&["exporter", "--listen", "127.0.0.1:0", "--vendor", "amd", "--interval", "200ms"], sysfs.path())
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let address = line.split("http://").nth(1).and_then(|r| r.split('/').next()).expect(&line).to_owned();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    write!(stream, "GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.to_ascii_lowercase().contains("content-type: application/openmetrics-text"), "{reply}");
    let body = reply.split("\r\n\r\n").nth(1).unwrap();
    let samples = parse(body);
    assert_eq!(device(&samples, "prof_device_power_limit_watts", "5"), Some(290.0));
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn a_top_frame_fits_80x24_and_200x60() {
    for (columns, lines) in [("80", "24"), ("200", "60")] {
        let mut command = hermetic(path_with(&fakes("ascend")));
        command.args(["top", "--once", "--vendor", "ascend", "--interval", "200ms"]);
        command.env("COLUMNS", columns).env("LINES", lines);
        let out = run(command);
        let text = String::from_utf8_lossy(&out.stdout);
        let width: usize = columns.parse().unwrap();
        assert!(text.lines().count() <= lines.parse().unwrap(), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= width), "{text}");
        assert!(text.starts_with("prof top · ascend npu-smi"), "{text}");
        // The recorded 910B2s (npu-smi info): four devices, idle over their three samples.
        assert_eq!(text.lines().filter(|l| l.contains("910B2")).count(), 4, "{text}");
        assert!(text.contains("ascend device 4: idle"), "{text}");
        assert!(text.lines().last().unwrap().starts_with("q quit"), "{text}");
    }
}

/// What `prof exporter` served on the lent H100 (scripts/device/exporter_check.sh, kept in
/// tests/fixtures/nvidia/h100-live): idle, then under a bf16 GEMM loop at the 700 W cap. Both
/// parse strictly; the verdict gauge moved from idle to clock-limited (sw_power_cap), SM activity
/// (NVML GPM) is there, and the busy process is listed with its memory.
#[test]
fn the_h100_scrapes_parse_and_the_verdict_moves_with_the_workload() {
    let read =
        |name: &str| std::fs::read_to_string(support::fixtures().join(format!("nvidia/h100-live/{name}"))).unwrap();
    let verdict = |samples: &Samples| {
        samples
            .iter()
            .filter(|((n, _), v)| n == "prof_device_verdict" && **v == 1.0)
            .flat_map(|((_, l), _)| l.iter().filter(|(k, _)| k == "verdict").map(|(_, v)| v.clone()))
            .collect::<Vec<_>>()
    };
    let idle = parse(&read("idle.prom"));
    assert_eq!(verdict(&idle), ["idle"]);
    assert_eq!(device(&idle, "prof_device_utilization_ratio", "0"), Some(0.0));
    let busy = parse(&read("busy.prom"));
    assert_eq!(verdict(&busy), ["clock_limited"]);
    assert!(device(&busy, "prof_device_sm_activity_ratio", "0").is_some_and(|v| v > 0.9));
    assert!(busy
        .keys()
        .any(|(n, l)| n == "prof_device_clock_throttle" && l.contains(&("reason".into(), "sw_power_cap".into()))));
    assert!(busy
        .keys()
        .any(|(n, l)| n == "prof_process_memory_used_bytes" && l.contains(&("process".into(), "python3".into()))));
    // The check beside it read nvidia-smi at the same moment: every value within its tolerance.
    let log = read("exporter_check.log");
    assert_eq!(log.matches(" ok\n").count(), 16, "{log}");
    assert!(!log.contains("MISMATCH"));
}

/// The Prometheus project's own parser (`prometheus_client.openmetrics.parser`, strict
/// OpenMetrics) on a fresh AMD exposition and on the H100's recorded scrapes, through
/// scripts/check_exposition.py (CI installs `prometheus_client` and sets
/// PROF_REQUIRE_PYTHON_PROMETHEUS=1; elsewhere the test says it was skipped).
#[test]
fn the_prometheus_python_parser_reads_every_exposition() {
    let python_path = std::env::var("PROF_PYTHON_PROMETHEUS_PATH").unwrap_or_default();
    let has_parser = Command::new("python3")
        .args(["-c", "import prometheus_client.openmetrics.parser"])
        .env("PYTHONPATH", &python_path)
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_parser {
        assert!(std::env::var_os("PROF_REQUIRE_PYTHON_PROMETHEUS").is_none(), "prometheus_client is required here");
        eprintln!("skipped: the Prometheus Python client is not installed (pip install prometheus_client)");
        return;
    }
    let sysfs = Scratch::new("live-amd-python-sysfs");
    let fresh = run(amd(&["exporter", "--once", "--vendor", "amd", "--interval", "200ms"], sysfs.path())).stdout;
    let recorded = |name: &str| std::fs::read(support::fixtures().join(format!("nvidia/h100-live/{name}"))).unwrap();
    let script = support::fixtures().join("../../scripts/check_exposition.py");
    for (name, text) in [("amd", fresh), ("h100 idle", recorded("idle.prom")), ("h100 busy", recorded("busy.prom"))] {
        let mut child = Command::new("python3")
            .arg(&script)
            .env("PYTHONPATH", &python_path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&text).unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{name}: {}{}", stdout, String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains("prof_device_verdict (gauge)"), "{name}: {stdout}");
    }
}
