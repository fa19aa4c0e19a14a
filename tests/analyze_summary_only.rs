//! `prof analyze --summary-only` end to end on the recorded torch_npu `kernel_details.csv`:
//! the streamed kernel summary equals the one of the full analysis, and the per-op-type table
//! holds the numbers python computes from the file. Expected numbers: python3 csv.DictReader
//! over the fixture, durations as decimal µs → ns (ROUND_HALF_UP), grouped by `Type`; busy
//! time: the union of [start, start + duration) intervals, sorted and merged.

#[path = "support/mod.rs"]
mod support;

use support::{fixture_arg, prof, prof_json};

const KERNEL_DETAILS: &str = "ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv";

#[test]
fn summary_only_streams_the_same_summary_and_per_type_totals() {
    let path = fixture_arg(KERNEL_DETAILS);
    let fast = prof_json(&["analyze", "--phase", "all", "--summary-only", "--json", &path]);
    let full = prof_json(&["analyze", "--phase", "all", "--json", &path]);
    assert_eq!(fast["summary"], full["summary"]);
    assert_eq!(fast["summary"]["ops"], 591);
    assert_eq!(fast["summary"]["device_ns"], 396_807_040);
    assert_eq!(fast["summary"]["span_ns"], 516_885_540);
    assert_eq!(fast["summary"]["devices"][0]["busy_ns"], 394_576_980);
    assert!(fast["diagnosis"]["findings"].as_array().is_some_and(|f| f.is_empty()));
    let types = fast["analyses"]["op_types"].as_array().expect("per-type table");
    assert_eq!(types.len(), 43);
    let row = |i: usize| (types[i]["type"].as_str(), types[i]["calls"].as_u64(), types[i]["total_ns"].as_u64());
    assert_eq!(row(0), (Some("hcom_broadcast_"), Some(2), Some(308_989_620)));
    assert_eq!(row(1), (Some("hcom_allReduce_"), Some(14), Some(27_867_580)));
    assert_eq!(row(2), (Some("MatMul"), Some(9), Some(14_070_560)));
    assert_eq!(types.iter().map(|t| t["calls"].as_u64().unwrap()).sum::<u64>(), 591);
}

#[test]
fn summary_only_text_lists_op_types_and_says_the_diagnosis_did_not_run() {
    let out = prof(&["analyze", "--phase", "all", "--summary-only", &fixture_arg(KERNEL_DETAILS)]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("op types (43), longest total first:"), "{text}");
    assert!(text.contains("diagnosis: not run (--summary-only)"), "{text}");
    assert!(!text.contains("no rule fired"), "{text}");
}

#[test]
fn summary_only_writes_the_html_summary_and_refuses_a_chrome_trace() {
    let dir = support::Scratch::new("summary-only-outputs");
    let html = dir.path().join("summary.html");
    let out = prof(&[
        "analyze",
        "--phase",
        "all",
        "--summary-only",
        "--html",
        &html.display().to_string(),
        &fixture_arg(KERNEL_DETAILS),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(&html).expect("--html is written with --summary-only");
    // The fixture's longest kernel (python: max total by Name) is in the page's kernel table.
    assert!(page.contains("<html") && page.contains("hcom_broadcast__445_0"), "{}", &page[..page.len().min(400)]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("the summary tables only"));

    let trace = dir.path().join("trace.json");
    let out = prof(&[
        "analyze",
        "--summary-only",
        "--chrome-trace",
        &trace.display().to_string(),
        &fixture_arg(KERNEL_DETAILS),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--summary-only builds no timeline") && err.contains("trace.json"), "{err}");
    assert!(!trace.exists());
}

#[test]
fn summary_only_of_an_nsys_export_reads_its_device_ops_and_matches_the_full_summary() {
    // The loader's numbers on this export are checked against python's sqlite3 in
    // crates/backend-nvidia/src/nsys_sqlite/tests.rs; --summary-only skips the runtime and NVTX
    // tables yet must give the same summary, span included. Span (python sqlite3: min(start),
    // max(end) over the kernel, memcpy, memset, runtime and kept NVTX rows): 385,852,675 −
    // 70,778,248 = 315,074,427 ns; the device ops alone span 4,375,051.
    let path = fixture_arg("nvidia/nsys/sqlite/learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite");
    let fast = prof_json(&["analyze", "--phase", "all", "--summary-only", "--json", &path]);
    let full = prof_json(&["analyze", "--phase", "all", "--json", &path]);
    assert_eq!(fast["summary"], full["summary"]);
    assert_eq!(fast["summary"]["span_ns"], 315_074_427);
}
