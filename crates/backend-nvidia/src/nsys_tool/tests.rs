use super::*;
use crate::test_fixtures::Scratch;
use prof_core::WindowControl;
use prof_core::{Importer, OpKind};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/nvidia");

fn fixture(path: &str) -> PathBuf {
    Path::new(FIXTURES).join(path)
}

fn request(warmup_runs: u32) -> CaptureRequest {
    CaptureRequest {
        command: vec!["python3".into(), "work.py".into(), "3".into()],
        out_dir: PathBuf::from("/tmp/prof-out"),
        warmup_runs,
        skip: Duration::ZERO,
        window: Duration::from_secs(10),
        range: prof_core::CaptureRange::Time,
        timeout: Duration::from_secs(300),
    }
}

fn argv(step: &RunPlan) -> Vec<String> {
    step.argv.iter().map(|a| a.to_string_lossy().into_owned()).collect()
}

/// A stand-in `nsys` file, so plans can be made where Nsight Systems is not installed.
fn fake_nsys(scratch: &Scratch) -> (NsysTool, String) {
    let path = scratch.file("nsys", b"#!/bin/sh\n");
    (NsysTool::new().with_program(&path), path.display().to_string())
}

#[test]
fn plan_without_warm_up_profiles_then_exports() {
    let scratch = Scratch::new("plan");
    let (tool, nsys) = fake_nsys(&scratch);
    let nsys = nsys.as_str();
    let session = format!("--session-new=prof-{}", std::process::id());
    let plan = tool.plan(&request(0)).unwrap();
    let labels: Vec<&str> = plan.steps.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["capture", "export"]);
    assert_eq!(
        argv(&plan.steps[0]),
        [
            nsys,
            "profile",
            &session,
            "--trace=cuda,nvtx,osrt",
            "--sample=none",
            "--cpuctxsw=none",
            "--duration=10",
            "--output=/tmp/prof-out/prof-nsys",
            "--force-overwrite=true",
            "python3",
            "work.py",
            "3"
        ]
    );
    assert_eq!(
        argv(&plan.steps[1]),
        [
            nsys,
            "export",
            "--type",
            "sqlite",
            "--output=/tmp/prof-out/prof-nsys.sqlite",
            "--force-overwrite=true",
            "/tmp/prof-out/prof-nsys.nsys-rep"
        ]
    );
    assert_eq!(plan.steps[0].log, Path::new("/tmp/prof-out/nsys-profile.log"));
    assert!(plan.steps.iter().all(|s| s.timeout == Some(Duration::from_secs(300)) && s.env.is_empty()));
    assert_eq!(plan.artifacts.len(), 1);
    assert_eq!(plan.artifacts[0].path, Path::new("/tmp/prof-out/prof-nsys.sqlite"));
    assert_eq!(plan.artifacts[0].min_bytes, 65_536);
    // report1, an export of one kernel and three copies, is 892,928 bytes: far above the minimum.
    assert!(
        std::fs::metadata(fixture("nsys/sqlite/learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite")).unwrap().len()
            > MIN_EXPORT_BYTES
    );
    assert!(plan.how_to_open.starts_with("nsys-ui /tmp/prof-out/prof-nsys.nsys-rep"));
    // nsys passes on the 143 of a command it stopped at the window's end (H100 run, 2026-12-05).
    assert_eq!((plan.steps[0].ok_codes.as_slice(), plan.steps[1].ok_codes.as_slice()), (&[143][..], &[][..]));
    assert!(plan.notes.iter().any(|n| n.contains("SIGTERM") && n.contains("10 s")), "{:?}", plan.notes);
}

#[test]
fn plan_with_warm_up_runs_the_command_unprofiled_and_delays_collection() {
    let scratch = Scratch::new("warm");
    let (tool, _) = fake_nsys(&scratch);
    let tool = tool.with_delay(Duration::from_millis(1500));
    let mut req = request(2);
    req.window = Duration::from_millis(2500);
    let plan = tool.plan(&req).unwrap();
    let labels: Vec<&str> = plan.steps.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["warm-up", "warm-up", "capture", "export"]);
    assert_eq!(argv(&plan.steps[0]), ["python3", "work.py", "3"]);
    assert_eq!(plan.steps[1].log, Path::new("/tmp/prof-out/warmup-1.log"));
    let capture = argv(&plan.steps[2]);
    assert_eq!(capture[6..9], ["--delay=2", "--duration=3", "--output=/tmp/prof-out/prof-nsys"]);
    assert_eq!(capture.last().map(String::as_str), Some("3"));

    let mut tiny = request(0);
    tiny.window = Duration::from_millis(1);
    let (plain, _) = fake_nsys(&scratch);
    assert_eq!(argv(&plain.plan(&tiny).unwrap().steps[0])[6], "--duration=1");
    let mut empty = request(0);
    empty.command.clear();
    assert!(plain.plan(&empty).is_err());
}

#[test]
fn check_finds_nsys_or_names_the_install_line() {
    let err = NsysTool::new().with_program("/nonexistent/nsys").check().unwrap_err();
    assert_eq!(err.to_string(), format!("nsys is not installed: {}", tools::install::NSYS));
    let found = find_program("nsys", &tools::nsys_dirs());
    match NsysTool::new().check() {
        Ok(()) => assert!(found.is_some()),
        Err(Error::ToolMissing { tool, install }) => {
            assert!(found.is_none());
            assert_eq!((tool.as_str(), install.as_str()), ("nsys", tools::install::NSYS));
        }
        Err(other) => panic!("{other}"),
    }
    assert!(matches!(
        NsysTool::new().with_program("/nonexistent/nsys").plan(&request(0)),
        Err(Error::ToolMissing { .. })
    ));
}

#[test]
fn a_capture_stream_without_a_report_points_to_cupti() {
    let scratch = Scratch::new("qdstrm");
    let recorded = std::fs::read(fixture("h200-nsys/nsys2025.3.1-in-ncu_profile-qdstrm-only.log")).unwrap();
    scratch.file(PROFILE_LOG, &recorded);
    scratch.file("prof-nsys.qdstrm", b"stream");
    let err = NsysTool::verify_report(&scratch.0).unwrap_err().to_string();
    assert!(err.contains("prof-nsys.nsys-rep: was not written: nsys left only the capture stream"), "{err}");
    assert!(
        err.contains(
            "(nsys said: \"Unable to retrieve the importer version: skipping importation of the QDSTRM file.\")"
        ),
        "{err}"
    );
    assert!(err.contains("Use `prof breakdown --tool cupti`"), "{err}");
    // Loading the export that was never written says the same.
    let err = NsysTool::new().load(&[NsysTool::export_path(&scratch.0)]).unwrap_err().to_string();
    assert!(err.contains("--tool cupti"), "{err}");

    let killed = Scratch::new("killed");
    let recorded = std::fs::read(fixture("h200-nsys/nsys2025.3.1-in-ncu_profile-killed-while-generating.log")).unwrap();
    killed.file(PROFILE_LOG, &recorded);
    let err = NsysTool::verify_report(&killed.0).unwrap_err().to_string();
    assert!(err.contains("nsys was stopped while it was still writing its capture stream"), "{err}");

    let nothing = Scratch::new("nothing");
    let err = NsysTool::verify_report(&nothing.0).unwrap_err().to_string();
    assert!(err.contains("nsys left neither a report nor a capture stream"), "{err}");
    let report = nothing.file("prof-nsys.nsys-rep", b"report");
    assert_eq!(NsysTool::verify_report(&nothing.0).unwrap(), report);
}

#[test]
fn loads_exports_and_refuses_stats_summaries_as_timelines() {
    let tool = NsysTool::new();
    let export = fixture("nsys/sqlite/learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite");
    let t = tool.load(std::slice::from_ref(&export)).unwrap();
    assert_eq!(t.ops.iter().filter(|o| o.kind() == OpKind::Kernel).count(), 1);

    let scratch = Scratch::new("dir");
    scratch.file("prof-nsys.sqlite", &std::fs::read(&export).unwrap());
    assert_eq!(tool.load(std::slice::from_ref(&scratch.0)).unwrap().ops.len(), 4);
    assert!(tool.recognizes(&scratch.0));

    let csv = fixture("nsys/gpuperf_sm103_cuda_gpu_kern_sum.csv");
    let err = tool.load(std::slice::from_ref(&csv)).unwrap_err().to_string();
    assert!(err.contains("is an nsys stats summary (cuda_gpu_kern_sum (gpukernsum), 27 rows)"), "{err}");
    assert_eq!(NsysTool::load_stats(&csv).unwrap().rows.len(), 27);
    assert!(tool.load(&[]).is_err() && tool.load(&[export.clone(), export.clone()]).is_err());
}

#[test]
fn recognizes_by_extension_and_tables() {
    let tool = NsysTool::new();
    assert!(tool.recognizes(&fixture("nsys/sqlite/learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite")));
    // Stats CSVs hold totals, not a timeline: the stats importer takes them, not the tool.
    assert!(!tool.recognizes(&fixture("nsys/cudalm_rtx2080ti_nsys2022.4.2_cudaapisum.csv")));
    assert!(NsysStatsImporter.recognizes(&fixture("nsys/cudalm_rtx2080ti_nsys2022.4.2_cudaapisum.csv")));
    let scratch = Scratch::new("recognize");
    assert!(tool.recognizes(&scratch.file("run.nsys-rep", b"x")) && tool.recognizes(&scratch.file("run.qdstrm", b"x")));
    assert!(!tool.recognizes(&scratch.file("notes.sqlite", b"not a database")));
    assert!(!tool.recognizes(&scratch.file("prof-cupti-12.pcupti", b"PROFCUPT")));
    assert!(!tool.recognizes(&scratch.file("other.csv", b"a,b\n1,2\n")));
    let importer = NsysExportImporter;
    assert_eq!(importer.name(), "nsys-sqlite");
    assert!(!importer.recognizes(&scratch.0.join("run.nsys-rep")));
}

#[test]
fn stats_importer_gives_the_ranked_summary_not_a_timeline() {
    let csv = fixture("nsys/gpuperf_sm103_cuda_gpu_kern_sum.csv");
    let families = prof_core::families::Families::builtin();
    let summary = NsysStatsImporter.load_summary(&csv, &families).expect("a summary format").unwrap();
    // 27 kernel rows in the file (`wc -l` minus the header and the trailing empty line).
    assert_eq!(summary.kernels.len(), 27);
    assert!(summary.kernels.windows(2).all(|w| w[0].total_ns >= w[1].total_ns));
    assert!(NsysStatsImporter.load(&csv).unwrap_err().to_string().contains("not a timeline"));
    let api = fixture("nsys/cudalm_rtx2080ti_nsys2022.4.2_cudaapisum.csv");
    let err = NsysStatsImporter.load_summary(&api, &families).unwrap().unwrap_err().to_string();
    assert!(err.contains("lists no device kernels"), "{err}");
}

#[test]
fn the_requests_skip_becomes_the_collection_delay() {
    let mut request = request(0);
    request.skip = Duration::from_millis(2500);
    let plan = NsysTool::new().with_program("/bin/true").plan(&request).unwrap();
    let argv: Vec<String> = plan.steps[0].argv.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    assert!(argv.iter().any(|a| a.starts_with("--delay=")), "{argv:?}");
}

#[test]
fn plan_names_the_session_and_shuts_exactly_it_down_at_the_end() {
    let scratch = Scratch::new("session");
    let (tool, nsys) = fake_nsys(&scratch);
    let plan = tool.plan(&request(1)).unwrap();
    let session = format!("prof-{}", std::process::id());
    assert_eq!(session_name(), session);
    let capture = argv(&plan.steps[1]);
    assert_eq!(capture[1..3], ["profile".to_owned(), format!("--session-new={session}")]);
    assert_eq!(plan.cleanup.len(), 1, "one clean-up step");
    let shutdown = &plan.cleanup[0];
    assert_eq!(argv(shutdown), [nsys, "shutdown".to_owned(), format!("--session={session}")]);
    assert_eq!(shutdown.log, Path::new("/tmp/prof-out/nsys-shutdown.log"));
    assert_eq!(shutdown.timeout, Some(SHUTDOWN_TIMEOUT));
    assert!(plan.steps.iter().all(|s| !argv(s).contains(&"shutdown".to_owned())), "shutdown is not a step");
}

#[test]
fn capture_ranges_map_onto_nsys_flags_and_the_rest_is_refused() {
    let scratch = Scratch::new("ranges");
    let (tool, _) = fake_nsys(&scratch);
    let with = |range: CaptureRange| CaptureRequest { range, ..request(0) };
    let profiler = tool.plan(&with(CaptureRange::ProfilerApi)).unwrap();
    assert!(argv(&profiler.steps[0]).contains(&"--capture-range=cudaProfilerApi".to_owned()));
    assert!(profiler.steps[0].env.is_empty());
    let range = tool.plan(&with(CaptureRange::Range { name: "ProfilerStep#3".into() })).unwrap();
    let words = argv(&range.steps[0]);
    let at = words.iter().position(|w| w == "--capture-range=nvtx").expect("nvtx capture range");
    assert_eq!(words[at + 1], "--nvtx-capture=ProfilerStep#3");
    assert!(words.ends_with(&["python3".to_owned(), "work.py".to_owned(), "3".to_owned()]));
    assert_eq!(range.steps[0].env, [("NSYS_NVTX_PROFILER_REGISTER_ONLY".to_owned(), "0".to_owned())]);
    for refused in [
        CaptureRange::Auto,
        CaptureRange::KernelLaunch { pattern: "gemm".into(), nth: 2 },
        CaptureRange::Range { name: "step*".into() },
    ] {
        let error = tool.plan(&with(refused.clone())).unwrap_err().to_string();
        assert!(error.starts_with("nsys cannot open its window at") && error.contains("--tool cupti"), "{error}");
    }
}

#[test]
fn the_launch_control_runs_the_workload_in_its_own_session() {
    let scratch = Scratch::new("control");
    let (tool, _) = fake_nsys(&scratch);
    let plan = tool.plan(&request(0)).unwrap();
    let WindowControl::Commands { launch, start, stop, shutdown } = plan.control else { panic!("{:?}", plan.control) };
    let session = format!("prof-launch-{}", std::process::id());
    assert_eq!(argv(&launch)[1..3], ["launch".to_owned(), format!("--session-new={session}")]);
    assert!(argv(&launch).ends_with(&["python3".to_owned(), "work.py".to_owned(), "3".to_owned()]));
    assert_eq!(
        argv(&start)[1..],
        ["start", &format!("--session={session}"), "--output=/tmp/prof-out/prof-nsys", "--force-overwrite=true"]
    );
    assert_eq!(argv(&stop)[1..], ["stop".to_owned(), format!("--session={session}")]);
    assert_eq!(argv(&shutdown)[1..], ["shutdown".to_owned(), format!("--session={session}")]);
}

/// A report given to prof is exported once with the nsys found (the fake replays the real
/// report1 export), the export kept beside it and reused; with no nsys the error gives the
/// command.
#[test]
fn a_report_is_exported_with_nsys_once_and_the_export_reused() {
    let scratch = Scratch::new("report-export");
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fakes/nvidia/nsys");
    let report = scratch.file("run.nsys-rep", b"a report");
    let tool = NsysTool::new().with_program(&fake);
    let first = tool.load(std::slice::from_ref(&report)).unwrap();
    let export = scratch.0.join("run.sqlite");
    let written = std::fs::metadata(&export).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let second = tool.load(std::slice::from_ref(&report)).unwrap();
    assert_eq!(std::fs::metadata(&export).unwrap().modified().unwrap(), written, "the export is reused");
    assert_eq!(first.ops.iter().filter(|o| o.kind() == OpKind::Kernel).count(), 1);
    assert_eq!(first.ops.len(), second.ops.len());
    assert!(first.source.ends_with("run.sqlite"), "{}", first.source);
    // A report newer than its export is exported again.
    std::fs::write(&report, b"a newer report").unwrap();
    let newer = written + Duration::from_secs(2);
    std::fs::File::options().write(true).open(&report).unwrap().set_modified(newer).unwrap();
    tool.load(std::slice::from_ref(&report)).unwrap();
    assert!(std::fs::metadata(&export).unwrap().modified().unwrap() > written, "exported again");

    let missing = NsysTool::new().with_program(scratch.0.join("no-nsys-here"));
    let other = scratch.file("other.nsys-rep", b"a report");
    let err = missing.load(std::slice::from_ref(&other)).unwrap_err().to_string();
    assert!(err.contains("nsys is not installed here to export it; run `nsys export --type sqlite -o"), "{err}");
}
