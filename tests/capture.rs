//! `prof breakdown` and `prof deep-dive` end to end without a GPU: fake `nvidia-smi`, `nsys`
//! and `ncu` on PATH replay outputs recorded on real machines (tests/fixtures/nvidia/SOURCES.md),
//! so the durable algorithm (check, plan, warm-up, capture, verify, load, report) runs for real.

use std::path::PathBuf;
use std::process::Output;

#[path = "support/mod.rs"]
mod support;

/// A `--out` directory that does not exist yet, in a fresh scratch directory.
fn out_dir(name: &str) -> PathBuf {
    support::scratch_dir(&format!("capture-{name}")).join("out")
}

/// `prof args` hermetically with the NVIDIA fakes on `PATH` and `env` on top.
fn prof(env: &[(&str, &str)], args: &[&str]) -> Output {
    support::prof_with_fakes("nvidia", env, args)
}

#[test]
fn nsys_breakdown_runs_warm_up_capture_export_and_reports() {
    let out = out_dir("nsys");
    let marker = out.join("ran");
    let script = format!("echo run >> {}", marker.display());
    let o = prof(
        &[],
        &["breakdown", "--tool", "nsys", "--json", "--out", out.to_str().unwrap(), "--", "sh", "-c", &script],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plan = String::from_utf8_lossy(&o.stderr);
    // nsys cannot open its window on the work: the warm-up run is the utilization pre-pass
    // (sampled through the fake NVML; a run this short has no active phase, so the window opens
    // at the start) and the plan is capture and export.
    assert!(plan.contains("prof: the utilization pre-pass found no active phase (too short to tell"), "{plan}");
    assert!(
        !plan.contains("warm-up (limit") && plan.contains("1. capture (limit 600 s): ") && plan.contains("2. export"),
        "{plan}"
    );
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap().lines().count(),
        2,
        "the pre-pass (the warm-up) and the capture both ran the command"
    );
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // report1.sqlite (python sqlite3): one kernel, matrixMulKernel, 2,523,567 ns.
    let top = &doc["summary"]["kernels"][0];
    assert_eq!(top["name"], "matrixMulKernel(float *, float *, float *, int)");
    assert_eq!(top["total_ns"], 2_523_567);
    assert!(doc["artifacts"][0].as_str().unwrap().ends_with("prof-nsys.sqlite"));
}

#[test]
fn nsys_that_leaves_only_a_stream_points_to_the_cupti_tool() {
    let out = out_dir("qdstrm");
    let o = prof(
        &[("FAKE_NSYS", "qdstrm")],
        &["breakdown", "--tool", "nsys", "--warmup", "0", "--out", out.to_str().unwrap(), "--", "true"],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("prof-nsys.qdstrm") && err.contains("--tool cupti"), "{err}");
}

#[test]
fn cupti_without_libcupti_names_the_install_line() {
    let o = prof(&[], &["breakdown", "--tool", "cupti", "--", "true"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("libcupti") && err.contains("cuda-cupti"), "{err}");
}

#[test]
fn deep_dive_reports_the_kernel_from_the_recorded_pages() {
    let out = out_dir("ncu");
    let o = prof(
        &[],
        &[
            "deep-dive",
            "--kernel",
            "nvjet_sm90_tst_256x128",
            "--launch-skip",
            "10",
            "--json",
            "--html",
            out.join("deep-dive.html").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--",
            "true",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The page holds the report's tables (the same 90.32 % as the JSON below).
    let html = std::fs::read_to_string(out.join("deep-dive.html")).unwrap();
    assert!(html.contains("<h1>prof deep-dive: nvjet_sm90_tst_256x128</h1>") && html.contains("90.3"), "{html}");
    let plan = String::from_utf8_lossy(&o.stderr);
    assert!(
        plan.contains(
            "--kernel-name regex:nvjet_sm90_tst_256x128 --launch-skip 10 --launch-count 1 --clock-control none"
        ),
        "{plan}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["schema"], "prof.deep-dive.v1");
    // h200-verify/deep-dive-ncu-details.csv: "Compute (SM) Throughput","%","90.32".
    assert_eq!(doc["kernels"][0]["compute_throughput_pct"], 90.32);
    assert!(out.join("prof-ncu.ncu-rep").is_file(), "the report is kept");
}

#[test]
fn deep_dive_regex_that_matches_nothing_lists_the_kernels_seen() {
    let out = out_dir("nokernels");
    let o = prof(
        &[("FAKE_NCU", "nokernels")],
        &["deep-dive", "--kernel", "no_such_kernel", "--out", out.to_str().unwrap(), "--", "true"],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("No kernels were profiled") && err.contains("kernels ncu saw:") && err.contains("gatherTopK"),
        "{err}"
    );
}

#[test]
fn capture_ranges_reach_nsys_and_what_it_cannot_do_is_refused_before_running() {
    let out = out_dir("nsys-range");
    let marker = out.join("ran");
    let script = format!("echo run >> {}", marker.display());
    let run = |extra: &[&str]| {
        let mut args = vec!["breakdown", "--tool", "nsys", "--warmup", "0", "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.extend(["--", "sh", "-c", script.as_str()]);
        prof(&[], &args)
    };
    let o = run(&["--capture-range", "profiler"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plan = String::from_utf8_lossy(&o.stderr);
    assert!(
        plan.contains("opened at the profiler start/stop calls") && plan.contains("--capture-range=cudaProfilerApi")
    );
    for refused in [&["--skip", "auto"][..], &["--capture-range", "kernel:gemm@3"][..]] {
        let o = run(refused);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("nsys cannot open its window at") && err.contains("--tool cupti"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&marker).unwrap().lines().count(), 1, "refused plans ran nothing");
    let o = run(&["--skip", "5s", "--capture-range", "profiler"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot be used with"),
        "--skip and --capture-range exclude each other"
    );
    let o = run(&["--capture-range", "kernel:gemm@0"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("`0` in `kernel:gemm@0` is not a launch number"));
}
