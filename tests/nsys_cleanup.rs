//! `prof breakdown --tool nsys` shuts down its own named nsys session after every capture,
//! successful or not: the `nsys --start-agent` daemon that `nsys profile` starts is outside
//! the capture's process group, so only `nsys shutdown --session=<name>` stops it. The fake
//! `nsys` (tests/fakes/nvidia/nsys) appends the arguments of each call to FAKE_NSYS_ARGV_LOG and
//! answers `shutdown` as the H200's nsys did once the session had ended (exit status 1).

use std::path::{Path, PathBuf};

#[path = "support/mod.rs"]
mod support;

/// Runs `prof breakdown --tool nsys` on `command` with the NVIDIA fakes; returns how it
/// ended and the fake nsys's calls, one argument line per call.
fn breakdown(name: &str, command: &[&str]) -> (std::process::Output, Vec<String>) {
    let scratch: PathBuf = support::scratch_dir(&format!("nsys-cleanup-{name}"));
    let out = scratch.join("out");
    let calls = scratch.join("nsys-calls.txt");
    let mut args = vec!["breakdown", "--tool", "nsys", "--warmup", "0", "--out", out.to_str().unwrap(), "--"];
    args.extend_from_slice(command);
    let o = support::prof_with_fakes("nvidia", &[("FAKE_NSYS_ARGV_LOG", calls.to_str().unwrap())], &args);
    (o, read_lines(&calls))
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap_or_default().lines().map(str::to_owned).collect()
}

/// The session name `nsys profile` was given (`--session-new=NAME`).
fn session_of(profile_call: &str) -> String {
    let flag = profile_call.split(' ').find_map(|a| a.strip_prefix("--session-new=")).expect("--session-new given");
    flag.to_owned()
}

#[test]
fn a_successful_capture_ends_with_the_shutdown_of_its_session() {
    let (o, calls) = breakdown("ok", &["true"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let verbs: Vec<&str> = calls.iter().map(|c| c.split(' ').next().unwrap_or("")).collect();
    assert_eq!(verbs, ["profile", "export", "shutdown"], "{calls:?}");
    let session = session_of(&calls[0]);
    assert!(session.starts_with("prof-"), "{session}");
    assert_eq!(calls[2], format!("shutdown --session={session}"), "exactly our session, nothing broader");
    let plan = String::from_utf8_lossy(&o.stderr);
    let shown = plan.lines().find(|l| l.contains("always at the end, nsys shutdown: ")).expect("the plan shows it");
    assert!(shown.ends_with(&format!(" shutdown --session={session}")), "{plan}");
}

#[test]
fn a_command_stopped_at_the_end_of_the_window_is_a_finished_capture() {
    // nsys stops a command that outlives --duration with SIGTERM and exits with its 143 (the
    // H100 run of 2026-12-05); the fake passes the command's status on the same way.
    let (o, calls) = breakdown("sigterm", &["sh", "-c", "kill -TERM $$"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let verbs: Vec<&str> = calls.iter().map(|c| c.split(' ').next().unwrap_or("")).collect();
    assert_eq!(verbs, ["profile", "export", "shutdown"], "{calls:?}");
    assert!(err.contains("nsys stops the command with SIGTERM when the 10 s window ends"), "{err}");
    // Any other failure still fails the capture.
    let (o, calls) = breakdown("exit3", &["sh", "-c", "exit 3"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("exited with status 3"));
    assert_eq!(calls.len(), 2, "profile and shutdown, no export: {calls:?}");
}

#[test]
fn an_export_without_gpu_work_says_how_to_move_the_window() {
    let scratch: PathBuf = support::scratch_dir("nsys-no-gpu");
    let export = scratch.join("not-an-export.sqlite");
    std::fs::write(&export, vec![b'x'; 70_000]).unwrap();
    let out = scratch.join("out");
    let args = ["breakdown", "--tool", "nsys", "--warmup", "0", "--out", out.to_str().unwrap(), "--", "true"];
    let o = support::prof_with_fakes("nvidia", &[("FAKE_NSYS_EXPORT", export.to_str().unwrap())], &args);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("the window was 10 s from 0 s after the command started") && err.contains("--skip"), "{err}");
}

/// The capture left an artifact too small to hold a record (an empty export here; on the H100
/// the CUPTI tracer's 49-byte header, the client's GPU work all outside its window): the error
/// says how long the command ran against where the window was.
#[test]
fn an_empty_capture_of_a_command_that_ended_before_the_window_says_so() {
    let scratch: PathBuf = support::scratch_dir("nsys-before-window");
    let export = scratch.join("empty.sqlite");
    std::fs::write(&export, b"").unwrap();
    let out = scratch.join("out");
    let args =
        ["breakdown", "--tool", "nsys", "--warmup", "0", "--skip", "30s", "--out", out.to_str().unwrap(), "--", "true"];
    let o = support::prof_with_fakes("nvidia", &[("FAKE_NSYS_EXPORT", export.to_str().unwrap())], &args);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is empty (0 bytes)"), "{err}");
    assert!(err.contains("before the window opened (30 s in)") && err.contains("smaller --skip"), "{err}");
}

#[test]
fn a_failed_capture_still_shuts_its_session_down() {
    let (o, calls) = breakdown("fail", &["false"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("step `capture`"), "the capture's own error is reported: {err}");
    // The fake replays the H200's `nsys shutdown` of an ended session: shown as a clean-up note.
    assert!(
        err.contains("clean-up after the failed capture") && err.contains("There are no active sessions."),
        "{err}"
    );
    let verbs: Vec<&str> = calls.iter().map(|c| c.split(' ').next().unwrap_or("")).collect();
    assert_eq!(verbs, ["profile", "shutdown"], "no export after the failed capture, then the shutdown: {calls:?}");
    assert_eq!(calls[1], format!("shutdown --session={}", session_of(&calls[0])));
}

#[test]
fn a_capture_past_its_time_limit_still_shuts_its_session_down() {
    let scratch: PathBuf = support::scratch_dir("nsys-cleanup-timeout");
    let calls = scratch.join("nsys-calls.txt");
    let out = scratch.join("out");
    let args = [
        "breakdown",
        "--tool",
        "nsys",
        "--warmup",
        "0",
        "--timeout",
        "1s",
        "--out",
        out.to_str().unwrap(),
        "--",
        "sleep",
        "30",
    ];
    let started = std::time::Instant::now();
    let o = support::prof_with_fakes("nvidia", &[("FAKE_NSYS_ARGV_LOG", calls.to_str().unwrap())], &args);
    assert!(!o.status.success());
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "stopped at the limit, not after the sleep");
    let calls = read_lines(&calls);
    let verbs: Vec<&str> = calls.iter().map(|c| c.split(' ').next().unwrap_or("")).collect();
    assert_eq!(verbs, ["profile", "shutdown"], "{calls:?}");
    assert_eq!(calls[1], format!("shutdown --session={}", session_of(&calls[0])));
}

#[test]
fn ctrl_c_during_the_capture_still_shuts_its_session_down() {
    let scratch: PathBuf = support::scratch_dir("nsys-cleanup-interrupt");
    let calls = scratch.join("nsys-calls.txt");
    let out = scratch.join("out");
    let args = ["breakdown", "--tool", "nsys", "--warmup", "0", "--out", out.to_str().unwrap(), "--", "sleep", "30"];
    let mut child = support::hermetic(support::path_with(&support::fakes("nvidia")))
        .args(args)
        .env("FAKE_NSYS_ARGV_LOG", &calls)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start prof");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while read_lines(&calls).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let sent = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(sent.success());
    let status = child.wait().expect("prof exits");
    assert!(!status.success());
    let calls = read_lines(&calls);
    let verbs: Vec<&str> = calls.iter().map(|c| c.split(' ').next().unwrap_or("")).collect();
    assert_eq!(verbs, ["profile", "shutdown"], "{calls:?}");
    assert_eq!(calls[1], format!("shutdown --session={}", session_of(&calls[0])));
}

/// Two runs into one `--out` would overwrite each other's artifacts: while a live process holds
/// the directory's lock (this test, standing in for a running breakdown), `prof breakdown` and
/// `prof profile` into it are refused before anything runs, naming the holder.
#[test]
fn a_second_run_into_a_busy_out_directory_is_refused() {
    let dir = support::scratch_dir("out-lock");
    std::fs::write(dir.join(".prof.lock"), format!("{}\n", std::process::id())).unwrap();
    let out = dir.to_str().unwrap();
    for verb in ["breakdown", "profile"] {
        let o = support::prof_with_fakes(
            "nvidia",
            &[("FAKE_NVIDIA_SMI", "busy")],
            &[verb, "--tool", "nsys", "--out", out, "--", "true"],
        );
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{verb}: {stderr}");
        assert!(
            stderr.contains(&format!("another prof run (pid {}) is using this output directory", std::process::id())),
            "{stderr}"
        );
    }
    // The holder gone (a pid past pid_max), the lock is taken over and the run goes ahead.
    std::fs::write(dir.join(".prof.lock"), "2147483646\n").unwrap();
    let o =
        support::prof_with_fakes("nvidia", &[], &["breakdown", "--tool", "nsys", "--json", "--out", out, "--", "true"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!dir.join(".prof.lock").exists(), "the lock goes with its run");
}
