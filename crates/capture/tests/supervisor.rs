//! The supervisor on real child processes: early death, time limits that take the whole
//! group (grandchildren included), Ctrl-C forwarding, logs and artifact checks.

use prof_capture::supervisor::{self, Supervised};
use prof_core::process_group::live_group_members;
use prof_core::RunPlan;
use prof_core::{Error, ExpectedArtifact};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prof-supervisor-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn argv(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

fn wait_until_gone(pgid: i32) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = live_group_members(pgid);
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn output_goes_to_the_log_and_status_is_reported() {
    let dir = temp_dir("log");
    let plan = RunPlan::new("run", argv(&["sh", "-c", "echo out; echo err >&2; exit 7"]), dir.join("run.log"));
    let outcome = supervisor::run(&plan).unwrap();
    assert_eq!(outcome.exit_code, Some(7));
    assert!(!outcome.success());
    let log = std::fs::read_to_string(dir.join("run.log")).unwrap();
    assert!(log.contains("out\n") && log.contains("err\n"), "{log}");
}

#[test]
fn early_death_is_detected_in_under_two_seconds() {
    let dir = temp_dir("early");
    let mut plan =
        RunPlan::new("server", argv(&["sh", "-c", "echo 'error: model not found' >&2; exit 3"]), dir.join("s.log"));
    plan.must_survive = Some(Duration::from_secs(30));
    plan.timeout = Some(Duration::from_secs(60));
    let started = Instant::now();
    let error = supervisor::run(&plan).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    match error {
        Error::DiedEarly { status, log_tail, .. } => {
            assert_eq!(status, "with status 3");
            assert!(log_tail.contains("model not found"), "{log_tail}");
        }
        other => panic!("expected DiedEarly, got {other}"),
    }
}

#[test]
fn timeout_kills_the_whole_group_including_grandchildren() {
    let dir = temp_dir("timeout");
    let pids = dir.join("pids");
    let script = format!("sleep 300 & echo $! > {0}; sh -c 'sleep 300' & echo $! >> {0}; wait", pids.display());
    let mut plan = RunPlan::new("capture", argv(&["sh", "-c", &script]), dir.join("t.log"));
    plan.timeout = Some(Duration::from_millis(700));
    let runtime = supervisor::runtime().unwrap();
    let (pgid, result, elapsed) = runtime.block_on(async {
        let started = Instant::now();
        let running = Supervised::start(plan).await.unwrap();
        let pgid = running.pgid();
        (pgid, running.wait().await, started.elapsed())
    });
    assert!(matches!(result, Err(Error::TimedOut { .. })), "{result:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    let grandchildren = std::fs::read_to_string(&pids).unwrap();
    assert_eq!(grandchildren.lines().count(), 2, "{grandchildren}");
    assert_eq!(wait_until_gone(pgid), Vec::<i32>::new(), "left running in group {pgid}");
}

#[test]
fn leftover_background_processes_are_reaped_after_a_normal_exit() {
    let dir = temp_dir("leftover");
    let plan = RunPlan::new("run", argv(&["sh", "-c", "sleep 300 & echo started"]), dir.join("l.log"));
    let runtime = supervisor::runtime().unwrap();
    let (pgid, outcome) = runtime.block_on(async {
        let running = Supervised::start(plan).await.unwrap();
        let pgid = running.pgid();
        (pgid, running.wait().await.unwrap())
    });
    assert!(outcome.success());
    assert_eq!(wait_until_gone(pgid), Vec::<i32>::new());
}

#[test]
fn a_survivor_passes_the_fail_fast_window() {
    let dir = temp_dir("survive");
    let mut plan = RunPlan::new("server", argv(&["sleep", "1"]), dir.join("s.log"));
    plan.must_survive = Some(Duration::from_millis(200));
    assert!(supervisor::run(&plan).unwrap().success());
}

#[test]
fn missing_program_is_a_spawn_error() {
    let dir = temp_dir("missing");
    let plan = RunPlan::new("run", argv(&["/nonexistent/prof-test-tool"]), dir.join("m.log"));
    let error = supervisor::run(&plan).unwrap_err();
    assert!(matches!(error, Error::Spawn { .. }), "{error}");
    assert!(error.to_string().contains("/nonexistent/prof-test-tool"));
}

/// Runs in a child copy of this test binary (see `stop_signals_are_forwarded_to_the_group`):
/// exits 100 + the signal the supervisor reports as the interruption, 1 otherwise.
#[test]
fn stop_signal_child_role() {
    let Ok(dir) = std::env::var("PROF_SUPERVISOR_SIGNAL_DIR") else { return };
    let dir = PathBuf::from(dir);
    let plan = RunPlan::new(
        "workload",
        argv(&[
            "sh",
            "-c",
            "trap 'echo got-int; exit 1' INT; trap 'echo got-term; exit 1' TERM; trap 'echo got-hup; exit 1' HUP; \
             sleep 300 & wait",
        ]),
        dir.join("c.log"),
    );
    let runtime = supervisor::runtime().unwrap();
    let result = runtime.block_on(async {
        let running = Supervised::start(plan).await.unwrap();
        std::fs::write(dir.join("pgid"), running.pgid().to_string()).unwrap();
        running.wait().await
    });
    std::process::exit(match result {
        Err(Error::Interrupted { signal, .. }) => 100 + signal,
        _ => 1,
    });
}

#[test]
fn stop_signals_are_forwarded_to_the_group() {
    for (signal, name) in [(libc::SIGINT, "int"), (libc::SIGTERM, "term"), (libc::SIGHUP, "hup")] {
        let dir = temp_dir(&format!("signal-{name}"));
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["stop_signal_child_role", "--exact", "--nocapture", "--test-threads=1"])
            .env("PROF_SUPERVISOR_SIGNAL_DIR", &dir)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        let pgid: i32 = loop {
            if let Ok(text) = std::fs::read_to_string(dir.join("pgid")) {
                if let Ok(pgid) = text.trim().parse() {
                    break pgid;
                }
            }
            assert!(Instant::now() < deadline, "child never started its workload");
            std::thread::sleep(Duration::from_millis(20));
        };
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: plain kill(2) on the child we spawned.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(100 + signal), "{name}: the supervisor did not report it");
        let log = std::fs::read_to_string(dir.join("c.log")).unwrap();
        assert!(log.contains(&format!("got-{name}")), "{name} was not forwarded: {log}");
        assert_eq!(wait_until_gone(pgid), Vec::<i32>::new(), "{name}: the group is still running");
    }
}

#[test]
fn artifacts_are_verified() {
    let dir = temp_dir("artifact");
    let missing = ExpectedArtifact { path: dir.join("none.bin"), min_bytes: 1 };
    assert!(supervisor::verify_artifact(&missing).unwrap_err().to_string().contains("was not written"));
    std::fs::write(dir.join("empty.bin"), b"").unwrap();
    let empty = ExpectedArtifact { path: dir.join("empty.bin"), min_bytes: 1 };
    assert!(supervisor::verify_artifact(&empty).unwrap_err().to_string().contains("0 bytes"));
    std::fs::write(dir.join("small.bin"), b"abc").unwrap();
    let small = ExpectedArtifact { path: dir.join("small.bin"), min_bytes: 100 };
    assert!(supervisor::verify_artifact(&small).unwrap_err().to_string().contains("below the 100 bytes"));
    let ok = ExpectedArtifact { path: dir.join("small.bin"), min_bytes: 3 };
    assert_eq!(supervisor::verify_artifact(&ok).unwrap(), 3);
    std::fs::create_dir_all(dir.join("d")).unwrap();
    std::fs::write(dir.join("d/part"), vec![0u8; 64]).unwrap();
    let as_dir = ExpectedArtifact { path: dir.join("d"), min_bytes: 10 };
    assert_eq!(supervisor::verify_artifact(&as_dir).unwrap(), 64);
}

#[test]
fn display_command_quotes_for_a_shell() {
    let mut plan = RunPlan::new("x", argv(&["python3", "bench.py", "--name", "it's here"]), "/tmp/x.log");
    plan.env.push(("CUDA_INJECTION64_PATH".into(), "/opt/prof/libprof_cupti.so".into()));
    assert_eq!(
        plan.display_command(),
        "CUDA_INJECTION64_PATH=/opt/prof/libprof_cupti.so python3 bench.py --name 'it'\\''s here'"
    );
}

#[test]
fn a_log_that_cannot_be_written_is_reported_not_ignored() {
    // /dev/full fails every write with ENOSPC, as a full disk does.
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let plan = RunPlan::new("workload", argv(&["sh", "-c", "echo some output"]), "/dev/full");
    let outcome = supervisor::run(&plan).unwrap();
    assert!(outcome.success());
    let error = outcome.log_error.expect("the failed write is kept");
    assert!(error.contains("No space left on device"), "{error}");
    let capture = prof_core::CapturePlan { steps: vec![plan], ..prof_core::CapturePlan::default() };
    let refused = prof_capture::capture::run_capture(&capture).unwrap_err().to_string();
    assert!(refused.contains("/dev/full") && refused.contains("could not be written"), "{refused}");
}
