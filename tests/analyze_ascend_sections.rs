//! `prof analyze` on recorded Ascend exports: the Ascend op checks section (compute-bound per
//! op type, static vs dynamic) and the vendor-neutral launch analysis fed by the trace's
//! HostToDevice flows. Every expected number was computed independently with python3 over the
//! raw fixture files (the scripts are described next to each value).

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;

fn ascend(rel: &str) -> String {
    support::fixtures().join("ascend").join(rel).display().to_string()
}

const CANN8_PROF: &str = "vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254/PROF_PipeUtilization/PROF_000001_20260823165326062_00625538CIGQAHCJ";
const A003: &str = "ascend-optimization_msprof_op_summary/matmul_bias_activation/master-20261010/profile-metrics-float16-0/artifacts/a003-op_summary.csv";

fn analyses(path: &str) -> Value {
    let doc = support::prof_json(&["analyze", "--phase", "all", "--json", path]);
    doc["analyses"].clone()
}

/// python3 (csv module, Decimal µs → ns): group op_summary rows by (OP Type, Task Type);
/// duration-weighted mean of each aic_*/aiv_* pipe ratio on the task type's cores; compute ≥ 70 %
/// → compute, else the busiest pipe (memory → memory-bound, scalar → scalar-bound).
#[test]
fn cann8_profile_directory_grouped_matmul_is_memory_bound_on_mte2() {
    let a = analyses(&ascend(CANN8_PROF));
    let bound = &a["ascend"]["bound"];
    // python: Σ Task Duration 39,322 ns; memory 26,661 ns (GroupedMatmul), scalar 12,661 ns (2 × OnesLike).
    assert_eq!(bound["total_ns"], 39_322);
    assert_eq!(bound["by_verdict"], serde_json::json!([["memory", 26_661], ["scalar", 12_661]]));
    let top = &bound["top"][0];
    assert_eq!((top["op"].as_str(), top["task_type"].as_str()), (Some("GroupedMatmul"), Some("MIX_AIC")));
    // python: aic_mac_ratio 0.007 → 0.7 %, aic_mte2_ratio 0.44 → 44 %, cube_utilization(%) 87.384.
    assert!((top["compute_pct"].as_f64().unwrap() - 0.7).abs() < 1e-9);
    assert_eq!(top["limiter"][0], "MTE2 (GM→AI Core loads)");
    assert!((top["limiter"][1].as_f64().unwrap() - 44.0).abs() < 1e-9);
    assert!((top["cube_utilization_pct"].as_f64().unwrap() - 87.384).abs() < 1e-9);
    // python: OP State is `dynamic` on all 3 rows (2 op types).
    assert_eq!(
        a["ascend"]["op_state"],
        serde_json::json!([{"state": "dynamic", "tasks": 3, "total_ns": 39_322, "op_types": 2}])
    );

    let text = String::from_utf8(support::prof(&["analyze", "--phase", "all", &ascend(CANN8_PROF)]).stdout).unwrap();
    assert!(text.contains("Ascend op checks"), "{text}");
    assert!(text.contains("GroupedMatmul") && text.contains("memory-bound"), "{text}");
}

#[test]
fn renamed_op_summary_file_custom_matmul_is_scalar_bound() {
    let a = analyses(&ascend(A003));
    let top = &a["ascend"]["bound"]["top"];
    // python (same script): matmul_bias_activation_kernel MIX_AIC 3 tasks 35,160 ns, aic_scalar 57.8548 %
    // → scalar; Cast AI_VECTOR_CORE 6 tasks 22,600 ns, aiv_mte2 33.9296 % → memory.
    assert_eq!(
        (top[0]["op"].as_str(), top[0]["verdict"].as_str()),
        (Some("matmul_bias_activation_kernel"), Some("scalar"))
    );
    assert_eq!((top[0]["calls"].as_u64(), top[0]["total_ns"].as_u64()), (Some(3), Some(35_160)));
    assert_eq!((top[1]["op"].as_str(), top[1]["verdict"].as_str()), (Some("Cast"), Some("memory")));
    assert_eq!(top[1]["limiter"][0], "MTE2 (GM→UB loads)");
    // python: OP State dynamic 12 tasks / 87,380 ns, static 3 tasks / 35,160 ns.
    let states: Vec<(String, u64)> = a["ascend"]["op_state"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["state"].as_str().unwrap().to_owned(), s["total_ns"].as_u64().unwrap()))
        .collect();
    assert_eq!(states, [("dynamic".to_owned(), 87_380), ("static".to_owned(), 35_160)]);
}

#[test]
fn kernel_details_without_memory_pipes_or_op_state_says_so() {
    let a = analyses(&ascend("msprof-analyze_advisor_kernel_details/kernel_details.csv"));
    let ascend = &a["ascend"];
    // python: MatMul AI_CORE 9 tasks 14,070,560 ns, aic_mac_fp16_ratio + aic_mac_int8_ratio 88.18 % → compute.
    assert_eq!(ascend["bound"]["top"][0]["op"], "MatMul");
    assert_eq!(ascend["bound"]["top"][0]["verdict"], "compute");
    assert_eq!(ascend["bound"]["top"][0]["total_ns"], 14_070_560);
    assert!(ascend["op_state"].is_null());
    let notes: Vec<&str> = ascend["notes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(notes.iter().any(|n| n.contains("no memory pipe columns")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("no `OP State` column")), "{notes:?}");
}

/// python3 over trace_view.json (json + Decimal): each HostToDevice `s`/`f` pair bound to the
/// shortest enclosing `X` event of its pid/tid; delay = task ts − API span ts: 274 links, 99
/// negative (task before its span: counted as broken), 175 ≥ 0 with nearest-rank p50 33,674 ns
/// and max 1,070,331 ns.
#[test]
fn trace_view_flows_feed_the_launch_analysis() {
    let dir = ascend("msprof-analyze_advisor_trace_view");
    let a = analyses(&dir);
    let launch = &a["launch"];
    assert_eq!((launch["kernels"].as_u64(), launch["broken_links"].as_u64()), (Some(175), Some(99)));
    assert_eq!(launch["delay"]["p50_ns"], 33_674);
    assert_eq!(launch["delay"]["max_ns"], 1_070_331);
    // The directory has only trace_view.json: the Ascend section names what it skips.
    let skipped = a["ascend"]["skipped"].as_str().unwrap();
    assert!(skipped.contains("no op table (kernel_details.csv / op_summary_*.csv)"), "{skipped}");
    assert!(skipped.contains("compute-bound and static/dynamic checks are skipped"), "{skipped}");
}
