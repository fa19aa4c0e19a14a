//! Capture windows opened at an event, recorded on the H200 with prof's CUPTI tracer
//! (tests/fixtures/nvidia/h200-ranges, SOURCES.md). Every expected count comes from the
//! client's design (scripts/device/phase_clients.py `range_loop`: per step one one-token
//! upload, four matmuls and one cumsum, which launches a cub scan-init and a scan kernel) and
//! from the whole-run trace of the same client, not from the tracer's code.

mod support;

use serde_json::Value;
use support::{fixture_arg, prof_json};

/// Calls per kind of op in a windowed trace: (scans, matmuls, host-to-device copies, kernels).
fn counts(case: &str) -> (u64, u64, u64, u64) {
    let path = fixture_arg(&format!("nvidia/h200-ranges/{case}.pcupti.gz"));
    let doc: Value = prof_json(&["analyze", "--json", "--phase", "all", "--top", "1000", &path]);
    let rows = doc["summary"]["kernels"].as_array().unwrap();
    let calls =
        |keep: &dyn Fn(&Value) -> bool| rows.iter().filter(|r| keep(r)).map(|r| r["calls"].as_u64().unwrap()).sum();
    let name = |r: &Value| r["name"].as_str().unwrap().to_owned();
    (
        calls(&|r| name(r).contains("DeviceScanKernel")),
        calls(&|r| r["family"] == "gemm"),
        // The one-token uploads copy from pageable memory (`torch.tensor([i]).to("cuda")`).
        calls(&|r| name(r) == "CUDA memcpy HtoD (Pageable -> Device)"),
        calls(&|r| r["kind"] == "kernel"),
    )
}

fn log(case: &str) -> String {
    std::fs::read_to_string(fixture_arg(&format!("nvidia/h200-ranges/{case}.capture.log"))).unwrap()
}

#[test]
fn the_whole_run_has_forty_steps_of_six_launches() {
    let (scans, matmuls, uploads, kernels) = counts("whole");
    assert_eq!((scans, matmuls), (40, 160));
    assert_eq!(uploads, 41, "the 512 MiB upload and one token per step");
    // Three set-up kernels (randn, randn, arange) and six launches per step.
    assert_eq!(kernels, 3 + 40 * 6);
}

#[test]
fn profiler_start_and_stop_hold_exactly_steps_ten_to_nineteen() {
    assert_eq!(counts("profiler"), (10, 40, 10, 60));
    let log = log("profiler");
    assert!(
        log.contains("profiler: capture window opened") && log.contains("profiler: capture window closed"),
        "{log}"
    );
}

#[test]
fn an_nvtx_range_holds_exactly_its_step() {
    assert_eq!(counts("nvtx"), (1, 4, 1, 6));
    assert!(log("nvtx").contains("nvtx:step12: capture window closed"));
}

#[test]
fn the_fifth_scan_launch_opens_the_window_at_step_four() {
    let (scans, _, uploads, _) = counts("kernel");
    assert_eq!(scans, 40 - 4, "steps 4..39 launch their scans inside the window");
    assert_eq!(uploads, 40 - 5, "step 4's token went up before its scan was launched");
}

#[test]
fn auto_opens_after_four_blocks_of_launches_once_the_upload_is_over() {
    // Block 0 (launches 1..256) holds the 512 MiB upload; blocks 1..3 copy one token per
    // step, so the window opens at launch 4 × 256 = 1024: after the 3 set-up launches, that
    // is inside step (1024 - 3) / 6 = 170, whose scan is the first in the window.
    let (scans, _, uploads, _) = counts("auto-loop");
    assert_eq!(scans, 400 - (1024 - 3) / 6);
    assert_eq!(uploads, 400 - 170 - 1, "step 170's token went up before the window opened");
    let path = fixture_arg("nvidia/h200-ranges/auto-loop.pcupti.gz");
    let doc = prof_json(&["analyze", "--json", "--phase", "all", &path]);
    let kinds: Vec<&str> =
        doc["phases"]["phases"].as_array().unwrap().iter().map(|p| p["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["steady"], "no load left in the window");
}

/// The real log of a capture whose window never opened: what prof adds to its error.
#[cfg(feature = "nvidia")]
#[test]
fn a_window_that_never_opens_says_why() {
    let explained = prof_backend_nvidia::fuzz::cupti_tool::tracer_warnings(&log("never")).unwrap();
    assert_eq!(
        explained,
        "prof-cupti: warning: the capture window never opened: no cudaProfilerStart/cuProfilerStart call was made"
    );
}
