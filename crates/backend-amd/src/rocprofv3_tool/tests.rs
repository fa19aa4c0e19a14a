use super::*;
use crate::test_fixtures::{fixture, fixture_path, TempDir};
use prof_core::{summarize_kernels, Families, OpKind};
use std::time::Duration;

fn tool(tmp: &TempDir) -> Rocprofv3Tool {
    let program = tmp.program("rocm-7.0.0/bin/rocprofv3", "#!/bin/sh\n");
    Rocprofv3Tool::with_paths(SearchPaths { program_dirs: vec![], library_dirs: vec![] }).with_program(program)
}

fn request(out: &Path, warmup_runs: u32) -> CaptureRequest {
    CaptureRequest {
        command: vec!["python".into(), "train.py".into()],
        out_dir: out.to_owned(),
        warmup_runs,
        skip: Duration::ZERO,
        window: Duration::from_secs(10),
        range: prof_core::CaptureRange::Time,
        timeout: Duration::from_secs(60),
    }
}

#[test]
fn plan_runs_warm_ups_then_rocprofv3_with_csv_output() {
    let tmp = TempDir::new("plan");
    let tool = tool(&tmp);
    let out = tmp.path().join("out");
    let plan = tool.plan(&request(&out, 2)).unwrap();
    assert_eq!(plan.steps.len(), 3);
    assert_eq!(plan.steps[0].argv, ["python", "train.py"].map(OsString::from));
    assert_eq!(plan.steps[1].label, "warm-up");
    let capture = &plan.steps[2];
    let argv: Vec<String> = capture.argv.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let dir = out.join("rocprofv3").display().to_string();
    let expected = [
        tmp.path().join("rocm-7.0.0/bin/rocprofv3").display().to_string().as_str(),
        "--kernel-trace",
        "--memory-copy-trace",
        "--hip-runtime-trace",
        "--stats",
        "--collection-period",
        "0:10:1",
        "--output-format",
        "csv",
        "-d",
        dir.as_str(),
        "-o",
        "prof",
        "--",
        "python",
        "train.py",
    ]
    .map(str::to_owned);
    assert_eq!(argv, expected);
    assert_eq!((capture.timeout, capture.log.clone()), (Some(Duration::from_secs(60)), out.join("rocprofv3.log")));
    assert_eq!(plan.artifacts[0].path, out.join("rocprofv3"));
    assert!(tool.plan(&request(&out, 0)).unwrap().steps.len() == 1);
    let mut empty = request(&out, 0);
    empty.command.clear();
    assert!(tool.plan(&empty).is_err());
}

#[test]
fn missing_rocprofv3_names_the_install_line() {
    let tool = Rocprofv3Tool::with_paths(SearchPaths { program_dirs: vec![], library_dirs: vec![] })
        .with_program("/nonexistent/rocprofv3");
    let error = tool.check().unwrap_err().to_string();
    assert!(error.contains("rocprofv3") && error.contains("rocprofiler-sdk"), "{error}");
}

/// A capture directory laid out as `-d DIR -o prof` leaves it, from the recorded sdk 1.0 files
/// (not its memory copy trace: that one was recorded in another run, see
/// `copies_from_another_run_are_refused`).
fn capture_dir(tmp: &TempDir, sub: &str, prefix: &str) -> PathBuf {
    for (name, fixture_name) in [
        ("kernel_trace.csv", "rocprofv3/sdk1.0_kernel_trace.csv"),
        ("hip_api_trace.csv", "rocprofv3/sdk1.0_hip_api_trace.csv"),
    ] {
        tmp.file(&format!("{sub}/{prefix}{name}"), &fixture(fixture_name));
    }
    tmp.path().join(sub.split('/').next().unwrap_or(sub))
}

#[test]
fn loads_both_output_layouts_and_single_files() {
    let tmp = TempDir::new("layouts");
    let tool = tool(&tmp);
    let flat = capture_dir(&tmp, "flat", "prof_");
    let nested = capture_dir(&tmp, "nested/host-a", "4242_");
    for dir in [&flat, &nested] {
        assert!(tool.recognizes(dir), "{}", dir.display());
        let t = tool.load(std::slice::from_ref(dir)).unwrap();
        // 9 kernels (python, see rocprofv3_trace tests); the 17 HIP calls come from another
        // run (495,000 s away), so they are left out and the timeline says so.
        assert_eq!((t.ops.len(), t.host.len()), (9, 0));
        assert_eq!(t.ops.iter().filter(|op| op.kind() == OpKind::Kernel).count(), 9);
        let note = t.partial.as_deref().unwrap();
        assert!(note.contains("hip_api_trace.csv: its times lie") && note.ends_with("its HIP calls were left out"));
    }
    let file = flat.join("prof_kernel_trace.csv");
    assert!(tool.recognizes(&file));
    let note = tool.load(&[file]).unwrap().partial.unwrap();
    assert!(note.contains("prof_hip_api_trace.csv"), "a file brings its same-prefix siblings: {note}");
    let fixture_file = fixture_path("rocprofv3/sdk0.5_kernel_trace.csv");
    let t = Rocprofv3Tool::load_path(&fixture_file).unwrap();
    assert_eq!(summarize_kernels(&t, &Families::builtin()).device_ns, 795_453);
    assert!(!tool.recognizes(&fixture_path("rocprofv3/hpctrain-mi300a_agent_info.csv")));
    assert!(!tool.recognizes(&fixture_path("rocprofv3/hpctrain-jacobi_kernel_stats.csv")));
    assert!(!tool.recognizes(tmp.path().join("nowhere").as_path()));
}

#[test]
fn two_processes_keep_their_correlation_ids_apart() {
    let tmp = TempDir::new("two");
    capture_dir(&tmp, "run/host", "100_");
    capture_dir(&tmp, "run/host", "200_");
    let t = tool(&tmp).load(&[tmp.path().join("run")]).unwrap();
    assert_eq!(t.ops.len(), 18);
    let first: Vec<u64> = t.ops.iter().filter_map(|op| op.correlation.get()).filter(|c| c >> 32 == 0).collect();
    let second: Vec<u64> = t.ops.iter().filter_map(|op| op.correlation.get()).filter(|c| c >> 32 == 1).collect();
    assert_eq!((first.len(), second.len()), (9, 9));
}

#[test]
fn copies_from_another_run_are_left_out_and_said() {
    // The recorded sdk 1.0 kernel and memory copy traces come from two runs: the kernels span
    // 144 us, the copies 162 ms, ending 492,188 s before the kernels start (python over the
    // CSVs' Start_Timestamp/End_Timestamp columns).
    let tmp = TempDir::new("two-runs");
    let dir = capture_dir(&tmp, "run", "prof_");
    tmp.file("run/prof_memory_copy_trace.csv", &fixture("rocprofv3/sdk1.0_memory_copy_trace.csv"));
    let t = tool(&tmp).load(&[dir]).unwrap();
    assert_eq!(t.ops.len(), 9, "the 9 recorded kernels, no copy");
    let note = t.partial.unwrap_or_default();
    assert!(note.contains("prof_memory_copy_trace.csv: its times lie 492188 s away"), "{note}");
    assert!(note.contains("come from different runs; it was left out"), "{note}");
}

#[test]
fn failure_without_output_shows_the_log() {
    let tmp = TempDir::new("fail");
    let tool = tool(&tmp);
    tmp.file("out/rocprofv3.log", "starting\nrocprofv3: error: ROCm runtime not found\n");
    let explained = tool.explain_failure(&tmp.path().join("out")).unwrap();
    assert!(explained.contains("no *_kernel_trace.csv") && explained.contains("ROCm runtime not found"), "{explained}");
    let empty_dir = tmp.path().join("empty");
    std::fs::create_dir_all(&empty_dir).unwrap();
    assert!(tool.load(&[empty_dir]).unwrap_err().to_string().contains("holds no rocprofv3"));
    capture_dir(&tmp, "out/rocprofv3", "prof_");
    assert!(tool.explain_failure(&tmp.path().join("out")).is_none(), "files were written");
}

fn capture_argv(plan: &CapturePlan) -> Vec<String> {
    let capture = plan.steps.iter().find(|s| s.label == "capture").expect("a capture step");
    capture.argv.iter().map(|a| a.to_string_lossy().into_owned()).collect()
}

/// The arguments after `--stats` and before `--output-format`: where the period goes.
fn period_args(plan: &CapturePlan) -> Vec<String> {
    let argv = capture_argv(plan);
    let from = argv.iter().position(|a| a == "--stats").unwrap() + 1;
    let to = argv.iter().position(|a| a == "--output-format").unwrap();
    argv[from..to].to_vec()
}

#[test]
fn skip_and_window_become_the_collection_period() {
    let tmp = TempDir::new("period");
    let tool = tool(&tmp);
    let mut req = request(&tmp.path().join("out"), 0);
    req.skip = Duration::from_secs(2);
    req.window = Duration::from_secs(5);
    let plan = tool.plan(&req).unwrap();
    assert_eq!(period_args(&plan), ["--collection-period", "2:5:1"]);
    assert!(plan.notes.is_empty(), "ROCm 7.0.0 has the option: {:?}", plan.notes);
    assert!(plan.cleanup.is_empty());

    req.skip = Duration::from_millis(1500);
    req.window = Duration::from_millis(250);
    let plan = tool.plan(&req).unwrap();
    assert_eq!(period_args(&plan), ["--collection-period", "1500:250:1", "--collection-period-unit", "msec"]);

    req.skip = Duration::ZERO;
    req.window = Duration::ZERO;
    assert_eq!(period_args(&tool.plan(&req).unwrap()), ["--collection-period", "0:1:1"], "never a zero window");
}

#[test]
fn an_older_rocm_traces_the_whole_run_and_the_plan_says_so() {
    let tmp = TempDir::new("old-rocm");
    let program = tmp.program("rocm-6.3.1/bin/rocprofv3", "#!/bin/sh\n");
    let tool =
        Rocprofv3Tool::with_paths(SearchPaths { program_dirs: vec![], library_dirs: vec![] }).with_program(program);
    let mut req = request(&tmp.path().join("out"), 0);
    req.skip = Duration::from_secs(2);
    req.window = Duration::from_secs(5);
    let plan = tool.plan(&req).unwrap();
    assert!(period_args(&plan).is_empty(), "{:?}", capture_argv(&plan));
    assert!(!capture_argv(&plan).iter().any(|a| a.starts_with("--collection-period")));
    assert_eq!(plan.notes.len(), 1);
    assert!(plan.notes[0].contains("ROCm 6.3.1") && plan.notes[0].contains("6.4"), "{:?}", plan.notes);

    let first = tmp.program("rocm-6.4.0/bin/rocprofv3", "#!/bin/sh\n");
    let tool =
        Rocprofv3Tool::with_paths(SearchPaths { program_dirs: vec![], library_dirs: vec![] }).with_program(first);
    assert_eq!(period_args(&tool.plan(&req).unwrap()), ["--collection-period", "2:5:1"], "6.4 is the first");
}

#[test]
fn an_unknown_release_gets_the_option_and_a_note() {
    let tmp = TempDir::new("unknown-rocm");
    let program = tmp.program("tools/rocprofv3", "#!/bin/sh\n");
    let tool =
        Rocprofv3Tool::with_paths(SearchPaths { program_dirs: vec![], library_dirs: vec![] }).with_program(program);
    let plan = tool.plan(&request(&tmp.path().join("out"), 0)).unwrap();
    assert_eq!(period_args(&plan), ["--collection-period", "0:10:1"]);
    assert!(plan.notes.len() == 1 && plan.notes[0].contains("unknown"), "{:?}", plan.notes);
}

#[test]
fn release_numbers_compare_as_numbers() {
    assert_eq!(has_collection_period(Some("6.4.0")), Some(true));
    assert_eq!(has_collection_period(Some("6.10")), Some(true));
    assert_eq!(has_collection_period(Some("7")), Some(true));
    assert_eq!(has_collection_period(Some("6.3.4")), Some(false));
    assert_eq!(has_collection_period(Some("5.7.1")), Some(false));
    assert_eq!(has_collection_period(Some("rocm")), None);
    assert_eq!(has_collection_period(None), None);
}
