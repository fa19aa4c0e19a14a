//! Failures a script can tell apart: the exit status per class, the `prof.error.v1` document
//! on stdout with `--json`, the workload's own status passed through, and a closed stdout
//! (`prof … | head -1`) that ends prof quietly instead of a panic.

mod support;

use serde_json::Value;
use std::io::Read;
use std::process::{Command, Stdio};
use support::{fixture_arg, prof, prof_with_fakes};

fn error_doc(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn a_missing_or_unknown_artifact_is_bad_input() {
    let missing = prof(&["analyze", "--json", "/nonexistent/trace.json"]);
    assert_eq!(missing.status.code(), Some(3));
    let doc = error_doc(&missing);
    assert_eq!(doc["schema"], "prof.error.v1");
    assert_eq!(doc["kind"], "bad_input");
    assert_eq!(doc["exit_code"], 3);
    assert_eq!(doc["path"], "/nonexistent/trace.json");
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no such file"));
    let dir = support::scratch_dir("exit-codes");
    let garbage = dir.join("notes.txt");
    std::fs::write(&garbage, "not a profile\n").unwrap();
    let unknown = prof(&["analyze", garbage.to_str().unwrap()]);
    assert_eq!(unknown.status.code(), Some(3));
    assert!(unknown.stdout.is_empty(), "without --json nothing goes to stdout");
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("not a format prof reads"));
}

#[test]
fn a_malformed_artifact_names_its_line() {
    // A real Ascend kernel_details.csv with its fifth line cut to two fields.
    let dir = support::scratch_dir("exit-codes-malformed");
    let csv = dir.join("kernel_details.csv");
    let good = std::fs::read_to_string(fixture_arg("ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv"))
        .unwrap();
    let mut lines: Vec<&str> = good.lines().take(4).collect();
    lines.push("1,2");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let out = prof(&["analyze", "--json", csv.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = error_doc(&out);
    assert_eq!(doc["kind"], "bad_input");
    assert_eq!(doc["line"], 5, "{doc}");
    assert_eq!(doc["path"], csv.to_str().unwrap());
}

#[test]
fn usage_missing_tools_and_failed_workloads_have_their_own_statuses() {
    let unknown_tool = prof(&["breakdown", "--tool", "nope", "--json", "--", "true"]);
    assert_eq!(unknown_tool.status.code(), Some(2));
    assert_eq!(error_doc(&unknown_tool)["kind"], "usage");
    let missing = prof_with_fakes("nvidia", &[], &["breakdown", "--tool", "cupti", "--json", "--", "true"]);
    assert_eq!(missing.status.code(), Some(4));
    let doc = error_doc(&missing);
    assert_eq!(doc["kind"], "tool_missing");
    assert!(doc["hint"].as_str().is_some_and(|h| h.contains("cupti")), "{doc}");
    let out = support::scratch_dir("exit-codes-workload").join("out");
    let failed = prof_with_fakes(
        "nvidia",
        &[],
        &[
            "breakdown",
            "--tool",
            "nsys",
            "--warmup",
            "0",
            "--json",
            "--out",
            out.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            "exit 7",
        ],
    );
    assert_eq!(failed.status.code(), Some(7), "the workload's own status");
    assert_eq!(error_doc(&failed)["kind"], "workload_failed");
    let refused = prof_with_fakes("nvidia", &[], &["breakdown", "--tool", "nsys", "--skip", "auto", "--", "true"]);
    assert_eq!(refused.status.code(), Some(2), "a plan the tool cannot make is a usage error");
    let bad_flag = prof(&["analyze", "--top", "many"]);
    assert_eq!(bad_flag.status.code(), Some(2));
}

/// Runs `prof args` with stdout read for `keep` bytes and then closed.
fn closed_after(keep: usize, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_prof"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut head = vec![0u8; keep];
    stdout.read_exact(&mut head).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_reader_that_goes_away_ends_prof_quietly() {
    // The whole-run HF decode trace: its JSON (12 MB, layers included) is written in one go,
    // far past a pipe's buffer, so the write meets the closed pipe for sure; the text (14 kB)
    // is written in pieces after the first line, so it usually does.
    let trace = fixture_arg("nvidia/h200-phases/hf-decode-cache.pcupti.gz");
    for args in [
        vec!["analyze", "--json", "--phase", "all", "--top", "1000", trace.as_str()],
        vec!["analyze", "--phase", "all", "--top", "1000", trace.as_str()],
    ] {
        let (code, stderr) = closed_after(16, &args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(matches!(code, Some(0) | Some(141)), "{args:?}: exit {code:?}, {stderr}");
    }
}

/// Pids of live `sleep MARKER` processes (not the shells or prof, whose command lines also
/// hold the marker).
fn running(marker: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let alive = stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z'));
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            alive && cmdline == format!("sleep\0{marker}\0").as_bytes()
        })
        .collect()
}

fn wait_for(what: &str, done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn sigkill_to_prof_leaves_nothing_of_the_workload_running() {
    // A grandchild in the workload's group and one that left it with setsid(); unique sleep
    // lengths mark them in /proc.
    let (inside, escaped) = (format!("300.{}1", std::process::id()), format!("300.{}2", std::process::id()));
    let script = format!("sleep {inside} & setsid sleep {escaped} & wait");
    let dir = support::scratch_dir("guard-sigkill");
    let mut child = support::hermetic(support::path_with(&support::fakes("nvidia")))
        .args(["util", "--interval", "200ms", "--", "sh", "-c", &script])
        .env("FAKE_NVIDIA_SMI", "busy")
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the workload", || !running(&inside).is_empty() && !running(&escaped).is_empty());
    child.kill().unwrap();
    child.wait().unwrap();
    wait_for("the guard to stop the workload", || running(&inside).is_empty() && running(&escaped).is_empty());
}

#[test]
fn a_descendant_that_left_the_group_is_stopped_when_the_workload_ends() {
    let escaped = format!("301.{}3", std::process::id());
    let script = format!("setsid sleep {escaped} & sleep 0.5");
    let out = support::hermetic(support::path_with(&support::fakes("nvidia")))
        .args(["util", "--interval", "100ms", "--", "sh", "-c", &script])
        .env("FAKE_NVIDIA_SMI", "busy")
        .current_dir(support::own_cwd())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(running(&escaped).is_empty(), "the setsid() grandchild outlived the workload");
}

#[test]
fn what_cannot_be_an_artifact_is_refused_before_it_is_read() {
    let dir = support::scratch_dir("exit-codes-special");
    let fifo = dir.join("trace.json");
    let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    let zero = dir.join("zero.csv");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    let dangling = dir.join("gone.json");
    std::os::unix::fs::symlink(dir.join("never-written.json"), &dangling).unwrap();
    for (path, says) in [
        (&fifo, "is a FIFO (named pipe)"),
        (&zero, "is a device"),
        (&a, "a loop of symbolic links"),
        (&dangling, "a symbolic link to nothing"),
    ] {
        let started = std::time::Instant::now();
        let out = prof(&["analyze", "--json", path.to_str().unwrap()]);
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{says}: took {:?}", started.elapsed());
        assert_eq!(out.status.code(), Some(3), "{says}");
        let doc = error_doc(&out);
        assert!(doc["message"].as_str().unwrap().contains(says), "{doc}");
    }
}

#[test]
fn control_characters_from_a_file_name_do_not_reach_the_terminal() {
    let dir = support::scratch_dir("exit-codes-escape");
    let evil = dir.join("x\u{1b}]0;owned\u{7}\u{1b}[2J.json");
    std::fs::write(&evil, "{}").unwrap();
    let out = prof(&["analyze", evil.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(err.contains("x\\x1b]0;owned\\x07\\x1b[2J.json"), "{err}");
}

#[test]
fn a_csv_with_bare_cr_line_endings_is_refused_not_read_as_empty() {
    // Before: the Ascend table read as "no device ops" and the util CSV as "no data", exit 0.
    let dir = support::scratch_dir("exit-codes-cr");
    for fixture in
        ["ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv", "nvidia/h200-phases/util-hf-decode.csv"]
    {
        let text = std::fs::read(fixture_arg(fixture)).unwrap();
        let name = std::path::Path::new(fixture).file_name().unwrap();
        let cr: Vec<u8> = text.iter().map(|&b| if b == b'\n' { b'\r' } else { b }).collect();
        std::fs::write(dir.join(name), cr).unwrap();
        let out = prof(&["analyze", dir.join(name).to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3), "{fixture}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("lines end in a bare CR"), "{fixture}");
        // The same file with CRLF endings still loads.
        let crlf: Vec<u8> = text.iter().flat_map(|&b| if b == b'\n' { vec![b'\r', b'\n'] } else { vec![b] }).collect();
        let windows = dir.join(format!("crlf-{}", name.to_string_lossy()));
        std::fs::write(&windows, crlf).unwrap();
        let out = prof(&["analyze", "--phase", "all", windows.to_str().unwrap()]);
        assert!(out.status.success(), "{fixture} with CRLF: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// `--strict`: an answer that rests on partial input (here the sdk1.0 kernel trace, whose copy
/// and HIP siblings come from other runs and are left out) still prints, then exits 6; without
/// it the same report exits 0, and a whole input exits 0 either way. `prof --help` lists the
/// statuses.
#[test]
fn strict_exits_6_on_partial_input_and_help_lists_the_statuses() {
    let partial = fixture_arg("amd/rocprofv3/sdk1.0_kernel_trace.csv");
    let strict = prof(&["analyze", "--strict", &partial]);
    assert_eq!(strict.status.code(), Some(6), "{}", String::from_utf8_lossy(&strict.stderr));
    assert!(String::from_utf8_lossy(&strict.stdout).contains("PARTIAL: "), "the report is printed first");
    assert!(String::from_utf8_lossy(&strict.stderr).contains("--strict exits 6"));
    let json = prof(&["analyze", "--strict", "--json", &partial]);
    assert_eq!(json.status.code(), Some(6));
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(doc["partial"].as_str().is_some_and(|p| p.contains("left out")), "{doc}");
    assert_eq!(prof(&["analyze", &partial]).status.code(), Some(0));
    assert_eq!(prof(&["analyze", "--strict"]).status.code(), Some(0), "the embedded trace is whole");
    let help = String::from_utf8(prof(&["--help"]).stdout).unwrap();
    assert!(help.contains("Exit statuses:") && help.contains("6 partial input (with --strict)"), "{help}");
    assert!(help.contains("Global options:") && help.contains("--strict"), "{help}");
}
