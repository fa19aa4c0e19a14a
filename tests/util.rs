//! `prof util` end to end on the nvidia-smi fallback: NVML is forced absent and a fake
//! `nvidia-smi` replays the `-q -x` reports recorded on the H200 (idle, and under load with
//! the SW power cap active at ~653 W; tests/fixtures/nvidia/SOURCES.md).

use std::process::Output;

#[path = "support/mod.rs"]
mod support;

use support::{fakes, hermetic, path_with, prof_on_path, scratch_dir, success_json, NOWHERE};

/// `prof util args` hermetically with the NVIDIA fakes on `PATH` and the fake nvidia-smi in `mode`.
fn prof_util(mode: &str, args: &[&str]) -> Output {
    hermetic(path_with(&fakes("nvidia")))
        .arg("util")
        .args(args)
        .env("FAKE_NVIDIA_SMI", mode)
        .current_dir(support::own_cwd())
        .output()
        .unwrap()
}

#[test]
fn busy_workload_is_busy_and_clock_limited_by_the_power_cap() {
    // Each sample spawns the fake nvidia-smi, which takes hundreds of ms on a loaded machine:
    // two seconds of workload leave room for at least two samples however busy the host is.
    let doc = success_json(&prof_util("busy", &["--interval", "50ms", "--json", "--", "sleep", "2"]));
    assert_eq!(doc["schema"], "prof.util.v1");
    assert_eq!(doc["mode"], "command");
    assert!(doc["source"].as_str().unwrap().starts_with("nvidia-smi -q -x"), "{}", doc["source"]);
    assert_eq!(doc["exit_code"], 0);
    assert!(doc["samples"].as_u64().unwrap() >= 2, "{doc}");
    let device = &doc["devices"][0];
    // nvidia-smi-q-busy.xml: <gpu_util>100 %</gpu_util>, <power_draw>653.20 W</power_draw>,
    // <current_power_limit>700.00 W</current_power_limit>, clocks_event_reason_sw_power_cap Active.
    assert_eq!(device["gpu_util_peak_pct"], 100.0);
    assert_eq!(device["power_max_w"], 653.2);
    assert_eq!(device["power_limit_w"], 700.0);
    let reasons = device["throttle_reasons"].as_array().unwrap();
    let cap = reasons.iter().find(|r| r["reason"] == "sw_power_cap").expect("sw_power_cap seen");
    assert_eq!(cap["share_pct"], 100.0);
    let verdict = &doc["verdict"];
    assert_eq!(verdict["kind"], "busy");
    assert_eq!(verdict["next_step"], "prof breakdown -- sleep 2");
    assert_eq!(verdict["findings"][0]["kind"], "clock_limited");
}

#[test]
fn idle_device_while_a_command_runs_is_idle_not_host_bound() {
    let doc = success_json(&prof_util("", &["--interval", "50ms", "--json", "--", "sleep", "1"]));
    assert_eq!(doc["devices"][0]["gpu_util_peak_pct"], 0.0);
    assert_eq!(doc["verdict"]["kind"], "idle", "a device that never worked is idle, not host-bound");
    assert!(
        doc["verdict"]["next_step"].is_null() || !doc["verdict"]["next_step"].as_str().unwrap().contains("breakdown")
    );
}

#[test]
fn snapshot_without_a_command_and_the_table_output() {
    let out = prof_util("busy", &[]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("source: nvidia-smi -q -x"), "{text}");
    assert!(text.contains("sw_power_cap"), "{text}");
    assert!(text.contains("653-653 W of 700 W"), "{text}");
    assert!(text.contains("verdict:"), "{text}");
}

#[test]
fn csv_has_a_row_per_sample() {
    let csv = scratch_dir("util-csv").join("samples.csv");
    let out = prof_util("busy", &["--interval", "50ms", "--csv", csv.to_str().unwrap(), "--duration", "2s"]);
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("t_ms,device,gpu_util_pct"));
    let rows: Vec<&str> = lines.collect();
    assert!(rows.len() >= 2, "{text}");
    assert!(rows.iter().all(|r| r.contains("sw_power_cap")), "{text}");
}

#[test]
fn failing_workload_is_reported_and_its_status_returned() {
    let out = prof_util("", &["--interval", "50ms", "--", "sh", "-c", "exit 3"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("the command exited with status 3"));
}

#[test]
fn no_probe_at_all_names_the_install_line() {
    let out = prof_on_path(NOWHERE, &[], &["util", "--vendor", "nvidia"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no utilization probe could be opened"), "{err}");
    assert!(err.contains("nvidia-driver"), "{err}");
}

/// Starts `prof util args` in the background (fake nvidia-smi in `mode`).
fn spawn_util(mode: &str, args: &[&str]) -> std::process::Child {
    hermetic(path_with(&fakes("nvidia")))
        .arg("util")
        .args(args)
        .env("FAKE_NVIDIA_SMI", mode)
        .current_dir(support::own_cwd())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Data rows of the CSV at `path` (0 while it does not exist).
fn csv_rows(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.lines().skip(1).count()).unwrap_or(0)
}

/// Waits until the CSV holds `rows` rows, which it can only do while prof runs if the rows are
/// streamed as they are taken.
fn wait_for_rows(path: &std::path::Path, rows: usize) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while csv_rows(path) < rows {
        assert!(std::time::Instant::now() < deadline, "the CSV did not grow while prof ran");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_signal_to_prof_keeps_the_samples_and_stops_the_command() {
    for (signal, status) in [(libc::SIGINT, 130), (libc::SIGTERM, 143), (libc::SIGHUP, 129)] {
        let dir = scratch_dir(&format!("util-signal-{signal}"));
        let csv = dir.join("samples.csv");
        let marker = dir.join("still-running");
        // The command touches a file every 100 ms while it lives.
        let script = format!("while true; do touch {}; sleep 0.1; done", marker.display());
        let args = ["--interval", "50ms", "--csv", csv.to_str().unwrap(), "--json", "--", "sh", "-c", &script];
        let child = spawn_util("busy", &args);
        wait_for_rows(&csv, 2);
        // SAFETY: kill(2) on the prof we started.
        unsafe { libc::kill(child.id() as i32, signal) };
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(status), "{}", String::from_utf8_lossy(&out.stderr));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(doc["samples"].as_u64().unwrap() >= 2, "{doc}");
        assert_eq!(doc["devices"][0]["gpu_util_peak_pct"], 100.0);
        assert!(doc["stopped_by"].as_str().unwrap().starts_with("SIG"), "{doc}");
        assert!(csv_rows(&csv) as u64 >= doc["samples"].as_u64().unwrap(), "every sample is in the CSV");
        // The command is gone: its marker stops being touched.
        let before = std::fs::metadata(&marker).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(400));
        assert_eq!(std::fs::metadata(&marker).unwrap().modified().unwrap(), before, "the command still runs");
    }
}

#[test]
fn the_time_limit_keeps_the_samples_and_there_is_none_by_default() {
    let csv = scratch_dir("util-timeout").join("samples.csv");
    let args = ["--interval", "50ms", "--timeout", "1s", "--csv", csv.to_str().unwrap(), "--", "sleep", "30"];
    let out = prof_util("busy", &args);
    assert_eq!(out.status.code(), Some(124), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("source: nvidia-smi"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the --timeout limit ended the recording"));
    assert!(csv_rows(&csv) >= 1);
    let help = prof_util("", &["--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("default: never"), "{help}");
}

#[test]
fn a_duration_cut_short_by_ctrl_c_keeps_its_samples() {
    let csv = scratch_dir("util-duration-int").join("samples.csv");
    let child = spawn_util("busy", &["--interval", "50ms", "--duration", "60s", "--csv", csv.to_str().unwrap()]);
    wait_for_rows(&csv, 2);
    // SAFETY: kill(2) on the prof we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&out.stdout).contains("source: nvidia-smi"), "{out:?}");
}

#[test]
fn watch_samples_until_stopped_with_a_line_every_five_seconds() {
    use std::io::{BufRead, BufReader};
    let csv = scratch_dir("util-watch").join("samples.csv");
    let mut child = spawn_util("busy", &["--watch", "--interval", "100ms", "--json", "--csv", csv.to_str().unwrap()]);
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let line = lines.next().unwrap().unwrap();
    assert!(line.starts_with("prof util: +5 s  device 0 100 %"), "{line}");
    // SAFETY: kill(2) on the prof we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "Ctrl-C is how a watch ends");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["mode"], "watch");
    assert_eq!(doc["verdict"]["kind"], "busy");
    assert!(csv_rows(&csv) as u64 >= doc["samples"].as_u64().unwrap());
}

/// `--csv` naming a device is written in place and never replaced (a rename over /dev/full,
/// run as root, once destroyed the system's node); a symbolic link is refused before
/// anything runs.
#[test]
fn csv_to_a_device_leaves_the_device_and_a_link_is_refused() {
    use std::os::unix::fs::FileTypeExt;
    let out = prof_util("busy", &["--interval", "50ms", "--csv", "/dev/null", "--duration", "1s"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    let dir = scratch_dir("util-csv-link");
    let aim = dir.join("aim.csv");
    std::fs::write(&aim, "kept").unwrap();
    let link = dir.join("link.csv");
    std::os::unix::fs::symlink(&aim, &link).unwrap();
    let out = prof_util("busy", &["--interval", "50ms", "--csv", link.to_str().unwrap(), "--duration", "1s"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a symbolic link"));
    assert_eq!(std::fs::read_to_string(&aim).unwrap(), "kept");
}

/// Runs `prof util ARGS` with the fake nvidia-smi and a file-size limit of 0 (SIGXFSZ
/// ignored), so that every write to a regular file fails (EFBIG) as on a full disk.
fn prof_util_on_a_full_disk(args: &[&str]) -> Output {
    use std::os::unix::process::CommandExt;
    let mut command = hermetic(path_with(&fakes("nvidia")));
    command.arg("util").args(args).env("FAKE_NVIDIA_SMI", "busy").current_dir(support::own_cwd());
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let none = libc::rlimit { rlim_cur: 0, rlim_max: libc::RLIM_INFINITY };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &none) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command.output().unwrap()
}

/// A full disk under `--csv`, `--html` and the command's log: the report still comes, then one
/// line per lost file saying what was kept, and exit 74, never 0 (issue #52).
#[test]
fn files_lost_to_a_full_disk_are_named_after_the_report_and_exit_74() {
    let dir = scratch_dir("util-full-disk");
    let (csv, page, out) = (dir.join("u.csv"), dir.join("u.html"), dir.join("out"));
    let (csv, page, out) = (csv.to_str().unwrap(), page.to_str().unwrap(), out.to_str().unwrap());
    let args =
        ["--interval", "50ms", "--csv", csv, "--html", page, "--out", out, "--", "sh", "-c", "echo hello; sleep 0.3"];
    let o = prof_util_on_a_full_disk(&args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(74), "{stderr}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("verdict:"), "the report is printed whole");
    assert!(!String::from_utf8_lossy(&o.stdout).contains("samples written to"), "no false claim");
    for lost in [csv, page, &format!("{out}/util-workload.log")] {
        let line = stderr.lines().find(|line| line.contains(lost) && line.contains("only this file is lost"));
        assert!(line.is_some(), "{lost} not reported lost:\n{stderr}");
    }
    assert!(stderr.contains("the command's output is lost"), "{stderr}");
    assert_eq!(stderr.matches(csv).count(), 1, "the CSV's failure is said once:\n{stderr}");
    assert!(!std::path::Path::new(page).exists(), "no partial page is left");
}

/// `prof util -- CMD` writes the command's log into `--out`: like the capture verbs it takes
/// the directory's lock, so a second run into a live run's directory is refused naming it.
#[test]
fn util_with_a_command_locks_its_out_directory() {
    let out = scratch_dir("util-out-lock");
    std::fs::write(out.join(".prof.lock"), format!("{}\n", std::process::id())).unwrap();
    let o = prof_util("busy", &["--interval", "50ms", "--out", out.to_str().unwrap(), "--", "true"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains(&format!("another prof run (pid {})", std::process::id())), "{said}");
    std::fs::remove_file(out.join(".prof.lock")).unwrap();
    let o = prof_util("busy", &["--interval", "50ms", "--out", out.to_str().unwrap(), "--", "true"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.join(".prof.lock").exists(), "the lock is gone with the run");
}
