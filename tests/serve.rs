//! `prof serve` end to end with real HTTP servers the tests start on 127.0.0.1 (python3
//! `http.server` scripts in tests/fakes/servers): one that becomes healthy and serves the
//! load (prof's request count is checked against the server's own log), one that dies at
//! start, one that dies later while health is polled, one that logs an error while it stays
//! up, one that never becomes healthy, one whose port is taken, Ctrl-C and SIGTERM in the
//! window and during start-up, a benchmark command, and the capture tools without a GPU:
//! `util` degrading to "no device" or sampling a fake rocm-smi that replays a recording, and
//! `cupti` with a server that keeps the tracer's SIGUSR1 contract and writes a recorded H200
//! trace. Every test checks afterwards, through /proc and kill(2), that nothing of the
//! server's process group is left running.

#[path = "support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A fresh directory for one test, unique to this process: another `cargo test` of the
/// workspace may run these same tests at the same time.
fn scratch(name: &str) -> PathBuf {
    support::scratch_dir(&format!("{name}-{}", std::process::id()))
}

fn servers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fakes/servers")
}

fn script(name: &str) -> String {
    servers().join(name).display().to_string()
}

/// A port nothing listens on (bound to 127.0.0.1:0, then released).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local address").port()
}

fn prof_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_prof"));
    command
        .arg("serve")
        .args(args)
        .env("PROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn serve(args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let out = prof_command(args).output().expect("run prof serve");
    (out, started.elapsed())
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The server's process group id, from the `pid=… pgid=…` line every test server logs first.
fn logged_pgid(log: &Path) -> i32 {
    let text = std::fs::read_to_string(log).expect("server log");
    let first = text.lines().next().expect("a first log line");
    let field = |name: &str| {
        first.split(' ').find_map(|kv| kv.strip_prefix(name)).and_then(|v| v.parse::<i32>().ok()).expect("pid field")
    };
    let (pid, pgid) = (field("pid="), field("pgid="));
    assert_eq!(pid, pgid, "the server leads its own process group");
    pgid
}

/// Processes of group `pgid` that are alive (not zombies), read from /proc independently of prof.
fn alive_in_group(pgid: i32) -> Vec<String> {
    let mut alive = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some((_, rest)) = stat.rsplit_once(") ") else { continue };
        let fields: Vec<&str> = rest.split(' ').collect();
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" && fields[0] != "X" {
            alive.push(stat);
        }
    }
    alive
}

/// Asserts nothing of group `pgid` runs: kill(-pgid, 0) finds no process, or only zombies
/// waiting for a reaper are left.
fn assert_group_gone(pgid: i32) {
    // SAFETY: signal 0 only checks for existence.
    let status = unsafe { libc::kill(-pgid, 0) };
    let errno = std::io::Error::last_os_error().raw_os_error();
    let alive = alive_in_group(pgid);
    let parents: Vec<String> = alive
        .iter()
        .filter_map(|stat| stat.rsplit_once(") ")?.1.split(' ').nth(1).map(str::to_owned))
        .map(|ppid| std::fs::read_to_string(format!("/proc/{ppid}/cmdline")).unwrap_or_default().replace('\0', " "))
        .collect();
    assert!(
        (status == -1 && errno == Some(libc::ESRCH)) || alive.is_empty(),
        "group {pgid} still has live processes: {alive:?} (parents: {parents:?})"
    );
}

fn served_lines(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).expect("server log");
    text.lines().filter(|l| l.starts_with("served /generate")).map(str::to_owned).collect()
}

#[test]
fn a_healthy_server_serves_the_load_and_the_counts_match_its_own_log() {
    let dir = scratch("serve-healthy");
    let payload = dir.join("payload.json");
    let body = br#"{"prompt": "The capital of France is", "max_tokens": 8}"#;
    std::fs::write(&payload, body).unwrap();
    let port = free_port();
    let server = format!("python3 '{}' --port {port} --delay 0.3 --latency 0.01", script("healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let endpoint = format!("http://127.0.0.1:{port}/generate");
    let out_dir = dir.join("out");
    let (out, _) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--endpoint",
        &endpoint,
        "--payload",
        payload.to_str().unwrap(),
        "--requests",
        "24",
        "--concurrency",
        "3",
        "--window",
        "30s",
        "--warmup-requests",
        "4",
        "--tool",
        "util",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("prof.serve.v1 JSON");
    assert_eq!(report["schema"], "prof.serve.v1");
    assert_eq!(report["tool"], "util");
    let log = out_dir.join("server.log");
    assert_eq!(report["server"]["log"], log.display().to_string());
    // The server's own count: one `served /generate` line per answered request, warm-up included.
    let served = served_lines(&log);
    assert_eq!(served.len(), 24 + 4, "{served:?}");
    assert!(served.iter().all(|l| l.ends_with(&format!("POST body={}", body.len()))), "{served:?}");
    let stats = &report["load"]["stats"];
    assert_eq!(stats["requests"], 24);
    assert_eq!(stats["ok"], 24);
    assert_eq!(stats["errors"], 0);
    assert_eq!(stats["unfinished"], 0);
    assert_eq!(report["warmup"]["ok"], 4);
    assert_eq!(report["load"]["method"], "POST");
    assert_eq!(report["load"]["concurrency"], 3);
    let ms = |key: &str| stats[key].as_f64().unwrap_or_else(|| panic!("{key} in {stats}"));
    // The server sleeps 10 ms per request, so no successful latency can be shorter.
    assert!(ms("latency_p50_ms") >= 10.0, "{stats}");
    assert!(ms("latency_p50_ms") <= ms("latency_p90_ms") && ms("latency_p90_ms") <= ms("latency_p99_ms"));
    assert!(ms("latency_p99_ms") <= ms("latency_max_ms"));
    let elapsed_s = stats["elapsed_ns"].as_f64().unwrap() / 1e9;
    assert!((ms("throughput_rps") - 24.0 / elapsed_s).abs() < 1e-6, "{stats}");
    let notes = report["notes"].to_string();
    assert!(notes.contains("no device"), "{notes}");
    assert_eq!(report["utilization"], serde_json::Value::Null);
    assert_eq!(report["artifacts"], serde_json::json!([]));
    let pgid = logged_pgid(&log);
    assert_eq!(report["server"]["pgid"], pgid);
    assert_eq!(report["server"]["left_running"], serde_json::json!([]));
    assert!(std::fs::read_to_string(&log).unwrap().contains("stopping on SIGINT"), "stopped with SIGINT first");
    assert_group_gone(pgid);
}

#[test]
fn the_load_only_tool_reports_get_requests_as_text() {
    let dir = scratch("serve-none");
    let port = free_port();
    let server = format!("python3 {} --port {port}", script("healthy.py"));
    let url = format!("http://127.0.0.1:{port}/generate");
    let health = format!("http://127.0.0.1:{port}/health");
    let out_dir = dir.join("out");
    let (out, _) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--endpoint",
        &url,
        "--requests",
        "5",
        "--warmup-requests",
        "0",
        "--tool",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("window: 5 requests, 5 ok, 0 errors"), "{text}");
    assert!(text.contains("nothing of it is left running"), "{text}");
    let served = served_lines(&out_dir.join("server.log"));
    assert_eq!(served, vec!["served /generate GET body=0"; 5]);
    assert!(stderr(&out).contains("prof serve with --tool none"), "the plan is shown");
}

/// An endpoint that takes each request and never answers (the test server holds /generate
/// for 1000 s): the warm-up's request gives up after --request-timeout, the run stops with
/// that cause in seconds (it once waited in the warm-up for ever), and the server's group is
/// stopped.
#[test]
fn an_endpoint_that_never_answers_stops_the_warm_up_in_seconds() {
    let dir = scratch("serve-hang");
    let port = free_port();
    let server = format!("python3 {} --port {port} --latency 1000", script("healthy.py"));
    let url = format!("http://127.0.0.1:{port}/generate");
    let health = format!("http://127.0.0.1:{port}/health");
    let out_dir = dir.join("out");
    let (out, took) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--endpoint",
        &url,
        "--requests",
        "5",
        "--warmup-requests",
        "2",
        "--request-timeout",
        "1s",
        "--tool",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
    ]);
    assert!(!out.status.success());
    let text = stderr(&out);
    assert!(text.contains("the warm-up got no good answer from the endpoint (no response within 1.0 s"), "{text}");
    assert!(took < Duration::from_secs(30), "stopped in seconds: {took:?}");
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));
}

#[test]
fn a_server_that_dies_at_start_is_reported_in_seconds_with_its_log() {
    let dir = scratch("serve-dies");
    let out_dir = dir.join("out");
    let server = format!("python3 {}", script("dies.py"));
    let (out, elapsed) = serve(&[
        "--server",
        &server,
        "--health",
        "http://127.0.0.1:9/health",
        "--ready-timeout",
        "60s",
        "--tool",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
    ]);
    assert!(!out.status.success());
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}: must not wait for the 60 s limit");
    let err = stderr(&out);
    assert!(err.contains("exited with status 1"), "{err}");
    assert!(err.contains("FileNotFoundError") && err.contains("/nonexistent/model.safetensors"), "{err}");
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));
}

#[test]
fn a_port_already_in_use_is_an_early_error() {
    let dir = scratch("serve-port-taken");
    let out_dir = dir.join("out");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let server = format!("python3 {} --port {port}", script("healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let (out, elapsed) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--tool",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
    ]);
    assert!(!out.status.success());
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(stderr(&out).contains("Address already in use"), "{}", stderr(&out));
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));
    drop(taken);
}

#[test]
fn an_error_in_the_log_of_a_live_server_stops_it_early() {
    let dir = scratch("serve-log-error");
    let out_dir = dir.join("out");
    let port = free_port();
    let say = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB";
    let server = format!("python3 {} --port {port} --say '{say}'", script("never_healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let (out, elapsed) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--ready-timeout",
        "60s",
        "--tool",
        "util",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
    ]);
    assert!(!out.status.success());
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    let err = stderr(&out);
    assert!(err.contains("line 2") && err.contains(say), "{err}");
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));
}

#[test]
fn a_harmless_not_found_warning_at_start_does_not_stop_a_healthy_server() {
    let dir = scratch("serve-warning");
    let out_dir = dir.join("out");
    let port = free_port();
    let say = "Warning: flash_attn not found, using the SDPA fallback";
    let server = format!("python3 {} --port {port} --delay 0.5 --say '{say}'", script("healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let endpoint = format!("http://127.0.0.1:{port}/generate");
    let (out, _) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--endpoint",
        &endpoint,
        "--requests",
        "3",
        "--window",
        "20s",
        "--warmup-requests",
        "1",
        "--tool",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));

    // The same line on a server that never becomes healthy is quoted in the time-out.
    let port = free_port();
    let server = format!("python3 {} --port {port} --say '{say}'", script("never_healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let out_dir = dir.join("out-never");
    let (out, _) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--ready-timeout",
        "3s",
        "--tool",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
    ]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("did not become healthy within 3 s"), "{err}");
    assert!(err.contains("at start-up, matched `not found`") && err.contains(say), "{err}");
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));
}

#[test]
fn a_server_that_never_becomes_healthy_times_out_and_its_group_is_stopped() {
    let dir = scratch("serve-never-healthy");
    let out_dir = dir.join("out");
    let port = free_port();
    let server = format!("python3 {} --port {port}", script("never_healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let (out, elapsed) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--ready-timeout",
        "3s",
        "--tool",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
    ]);
    assert!(!out.status.success());
    assert!(elapsed >= Duration::from_secs(3) && elapsed < Duration::from_secs(15), "took {elapsed:?}");
    let err = stderr(&out);
    assert!(err.contains("did not become healthy within 3 s") && err.contains("status 503"), "{err}");
    // The group includes the server's `sleep 300` worker: it must be gone too.
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));
}

/// Starts `prof serve` on `script_args`, waits until the server's log has `lines_wanted`
/// lines containing `marker`, sends `signal` to prof (only to prof: the server is in its own
/// group), and returns prof's output, how long it took to stop, and the server's log path.
fn signal_prof_when(
    name: &str,
    args: &[&str],
    marker: &str,
    lines_wanted: usize,
    signal: i32,
) -> (Output, Duration, PathBuf) {
    let out_dir = scratch(name).join("out");
    let log = out_dir.join("server.log");
    let mut all = args.to_vec();
    all.extend(["--tool", "none", "--out", out_dir.to_str().unwrap(), "--yes"]);
    let started = Instant::now();
    let child = prof_command(&all).spawn().expect("start prof serve");
    while std::fs::read_to_string(&log).map_or(0, |t| t.matches(marker).count()) < lines_wanted {
        assert!(started.elapsed() < Duration::from_secs(30), "the server never logged {marker}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: plain signal to the prof process this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let signalled = Instant::now();
    let out = child.wait_with_output().expect("prof exits");
    (out, signalled.elapsed(), log)
}

fn stop_in_the_window(name: &str, signal: i32) {
    let port = free_port();
    let server = format!("python3 {} --port {port} --latency 0.05", script("healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let url = format!("http://127.0.0.1:{port}/generate");
    let args = [
        "--server",
        &server,
        "--health",
        &health,
        "--endpoint",
        &url,
        "--requests",
        "100000",
        "--window",
        "60s",
        "--warmup-requests",
        "1",
    ];
    // One warm-up request, then at least three of the window's.
    let (out, took, log) = signal_prof_when(name, &args, "served /generate", 4, signal);
    assert!(took < Duration::from_secs(8), "took {took:?} to stop");
    // 128 + the signal, as a shell reports it: 130 for Ctrl-C, 143 for SIGTERM.
    assert_eq!(out.status.code(), Some(128 + signal), "{}", stderr(&out));
    let what = if signal == libc::SIGTERM { "SIGTERM" } else { "interrupted" };
    assert!(stderr(&out).contains(&format!("{what} during the capture window")), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&log).unwrap().contains("stopping on SIGINT"), "SIGINT was forwarded");
    assert_group_gone(logged_pgid(&log));
}

#[test]
fn ctrl_c_in_the_window_stops_the_server_and_leaves_nothing() {
    stop_in_the_window("serve-ctrl-c", libc::SIGINT);
}

#[test]
fn sigterm_to_prof_in_the_window_stops_the_server_too() {
    stop_in_the_window("serve-sigterm", libc::SIGTERM);
}

#[test]
fn ctrl_c_while_waiting_for_health_stops_the_server_and_its_worker() {
    let port = free_port();
    let server = format!("python3 {} --port {port}", script("never_healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let args = ["--server", &server, "--health", &health, "--ready-timeout", "60s"];
    let (out, took, log) = signal_prof_when("serve-ctrl-c-start", &args, "worker=", 1, libc::SIGINT);
    assert!(took < Duration::from_secs(8), "took {took:?} to stop");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted during the"), "{}", stderr(&out));
    assert_group_gone(logged_pgid(&log));
}

#[test]
fn without_yes_and_a_terminal_nothing_is_started() {
    let dir = scratch("serve-no-yes");
    let out_dir = dir.join("out");
    let server = format!("python3 {} --port 1", script("healthy.py"));
    let (out, _) =
        serve(&["--server", &server, "--health", "http://127.0.0.1:1/health", "--out", out_dir.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("prof serve with --tool util") && err.contains("rerun with --yes"), "{err}");
    assert!(!out_dir.join("server.log").exists(), "the server was not started");
}

#[test]
fn bad_command_strings_and_urls_are_refused_before_anything_starts() {
    let (out, _) = serve(&["--server", "python3 'app.py", "--health", "http://127.0.0.1:1/", "--yes"]);
    assert!(stderr(&out).contains("--server: missing closing quote"), "{}", stderr(&out));
    let (out, _) = serve(&["--server", "python3 app.py", "--health", "https://127.0.0.1:1/", "--yes"]);
    assert!(stderr(&out).contains("https is not supported"), "{}", stderr(&out));
    let (out, _) = serve(&["--server", "x", "--health", "http://h/", "--tool", "perf", "--yes"]);
    assert!(stderr(&out).contains("no capture tool `perf`"), "{}", stderr(&out));
}

#[test]
fn a_bench_command_runs_in_the_window_in_its_own_group() {
    let dir = scratch("serve-bench");
    let out_dir = dir.join("out");
    let port = free_port();
    let server = format!("python3 {} --port {port}", script("healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let bench = format!(
        "python3 -c 'import urllib.request as u\nfor _ in range(7): u.urlopen(\"http://127.0.0.1:{port}/generate\").read()'"
    );
    let (out, _) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--bench",
        &bench,
        "--warmup-requests",
        "0",
        "--tool",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["bench"]["exit_code"], 0);
    assert_eq!(report["load"], serde_json::Value::Null);
    assert_eq!(served_lines(&out_dir.join("server.log")).len(), 7);
}

#[test]
fn util_samples_the_devices_during_the_window_and_writes_them_as_csv() {
    // The fake rocm-smi of tests/fakes/amd replays the recorded 6 × MI100 `rocm-smi --json`
    // output (tests/fixtures/amd/SOURCES.md), as tests/util_amd.rs does; NVML, the ROCm SMI
    // library and the amdgpu sysfs tree are forced absent.
    let dir = scratch("serve-util-amd");
    let sysfs = dir.join("empty-sysfs");
    std::fs::create_dir_all(&sysfs).unwrap();
    let out_dir = dir.join("out");
    let port = free_port();
    let server = format!("python3 {} --port {port} --latency 0.02", script("healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let url = format!("http://127.0.0.1:{port}/generate");
    let fakes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fakes/amd");
    let path = format!("{}:{}", fakes.display(), std::env::var("PATH").unwrap_or_default());
    let out = prof_command(&[
        "--server",
        &server,
        "--health",
        &health,
        "--endpoint",
        &url,
        "--requests",
        "15",
        "--tool",
        "util",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
        "--json",
    ])
    .env("PATH", path)
    .env("PROF_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so")
    .env("PROF_AMD_SYSFS_ROOT", &sysfs)
    .env("FAKE_ROCM_SMI_MODE", "replay")
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let util = &report["utilization"];
    assert!(util["source"].as_str().unwrap().starts_with("rocm-smi --json"), "{util}");
    assert!(util["samples"].as_u64().unwrap() >= 1, "{util}");
    let devices = util["devices"].as_array().unwrap();
    // telegraf_mi100_rocm571.json read with python's json module: 6 cards, "GPU use (%)" 0,
    // "Average Graphics Package Power (W)" 39.0/37.0/35.0/39.0/39.0/40.0.
    assert_eq!(devices.len(), 6);
    assert_eq!(devices[0]["gpu_util_peak_pct"], 0.0);
    let powers: Vec<f64> = devices.iter().map(|d| d["power_max_w"].as_f64().unwrap()).collect();
    assert_eq!(powers, [39.0, 37.0, 35.0, 39.0, 39.0, 40.0]);
    let csv = out_dir.join("serve-util.csv");
    assert_eq!(report["artifacts"][0]["path"], csv.display().to_string());
    let rows = std::fs::read_to_string(&csv).unwrap().lines().count();
    // One header line, then one row per device and sample.
    assert_eq!(rows as u64, 1 + 6 * util["samples"].as_u64().unwrap());
    assert_eq!(report["artifacts"][0]["bytes"], std::fs::metadata(&csv).unwrap().len());
    assert_eq!(report["load"]["stats"]["ok"], 15);
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));
}

#[test]
fn cupti_opens_the_window_with_sigusr1_around_the_load_and_reports_the_kernels() {
    // No GPU here: the server plays the traced process (tests/fakes/servers/cupti_server.py)
    // and at exit writes a real recorded trace of prof's tracer on the H200.
    let dir = scratch("serve-cupti");
    let out_dir = dir.join("out");
    let stand_in = dir.join("libstand-in.so");
    std::fs::write(&stand_in, b"\x7fELF").unwrap();
    let trace = support::fixtures().join("nvidia/h200-cupti/prof-cupti-682-launch.pcupti");
    let port = free_port();
    let server = format!("python3 {} --port {port}", script("cupti_server.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let url = format!("http://127.0.0.1:{port}/generate");
    let out = prof_command(&[
        "--server",
        &server,
        "--health",
        &health,
        "--endpoint",
        &url,
        "--requests",
        "6",
        "--warmup-requests",
        "2",
        "--tool",
        "cupti",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
        "--json",
    ])
    .env("PROF_CUPTI_LIBRARY", &stand_in)
    .env("PROF_CUPTI_TRACER", &stand_in)
    .env("FAKE_CUPTI_TRACE", &trace)
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let log = std::fs::read_to_string(out_dir.join("server.log")).unwrap();
    assert!(log.contains("env PROF_CUPTI_SIGNAL=paused"), "{log}");
    assert!(log.contains(&format!("env PROF_CUPTI_OUT={}/", out_dir.join("cupti").display())), "{log}");
    // Warm-up outside the window, the load inside it, nothing after it closed.
    let events: Vec<&str> = log.lines().filter(|l| l.starts_with("served") || l.starts_with("SIGUSR1")).collect();
    let mut expected = vec!["served /generate"; 2];
    expected.push("SIGUSR1: capture window opened");
    expected.extend(["served /generate"; 6]);
    expected.push("SIGUSR1: capture window closed");
    assert_eq!(events, expected);
    assert!(log.ends_with("trace written at exit\n"), "stopped by SIGINT, so its exit handlers ran");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["tool"], "cupti");
    let artifact = &report["artifacts"][0];
    assert_eq!(artifact["path"], out_dir.join("cupti").display().to_string());
    assert_eq!(artifact["bytes"], std::fs::metadata(&trace).unwrap().len());
    let breakdown = &report["breakdown"];
    assert_eq!(breakdown["schema"], "prof.breakdown.v1");
    // 93 kernels + 5 memsets in this recording (counted with a separate Python reader, SOURCES.md).
    let ops: u64 =
        breakdown["summary"]["kernels"].as_array().unwrap().iter().map(|k| k["calls"].as_u64().unwrap()).sum();
    assert_eq!(ops, 98);
    assert_eq!(report["load"]["stats"]["ok"], 6);
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));
}

#[test]
fn a_server_that_dies_while_health_is_polled_ends_the_wait_at_once() {
    let dir = scratch("serve-dies-late");
    let out_dir = dir.join("out");
    let port = free_port();
    // Dies 3 s in, after the fail-fast check, while prof polls /health (503); its worker stays.
    let server = format!("python3 {} --port {port} --die-after 3", script("never_healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let (out, elapsed) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--ready-timeout",
        "60s",
        "--tool",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
    ]);
    assert!(!out.status.success());
    assert!(elapsed < Duration::from_secs(7), "took {elapsed:?}: must not wait for the 60 s limit");
    let err = stderr(&out);
    assert!(err.contains("exited with status 3") && err.contains("model load failed late"), "{err}");
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));
}

#[test]
fn a_health_url_answering_500_ends_the_wait_early() {
    let dir = scratch("serve-health-500");
    let out_dir = dir.join("out");
    let port = free_port();
    let server = format!("python3 {} --port {port} --status 500", script("never_healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let args = ["--server", &server, "--health", &health, "--ready-timeout", "60s", "--tool", "none"];
    let (out, elapsed) = serve(&[&args[..], &["--out", out_dir.to_str().unwrap(), "--yes"]].concat());
    assert!(!out.status.success());
    assert!(elapsed < Duration::from_secs(20), "polled 500s for {elapsed:?} instead of stopping");
    let err = stderr(&out);
    assert!(err.contains("with status 500 5 times in a row"), "{err}");
    assert_group_gone(logged_pgid(&out_dir.join("server.log")));
}

#[test]
fn a_window_where_no_request_succeeds_is_a_failure() {
    let dir = scratch("serve-nothing-served");
    let out_dir = dir.join("out");
    let port = free_port();
    let server = format!("python3 {} --port {port}", script("healthy.py"));
    let health = format!("http://127.0.0.1:{port}/health");
    let endpoint = format!("http://127.0.0.1:{port}/missing");
    let (out, _) = serve(&[
        "--server",
        &server,
        "--health",
        &health,
        "--endpoint",
        &endpoint,
        "--requests",
        "3",
        "--warmup-requests",
        "0",
        "--tool",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
        "--yes",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("no request of the window succeeded"), "{}", stderr(&out));
}
