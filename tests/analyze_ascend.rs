//! `prof analyze --json` end to end on recorded Ascend exports: a torch_npu
//! `kernel_details.csv` and `trace_view.json`, CANN 8 msprof directories, an older msprof
//! timeline directory, and bad input. Every expected number was computed with python's csv /
//! json modules from the fixture (durations as decimal µs → ns, ROUND_HALF_UP), not copied
//! from prof's output. None of this ran on Ascend hardware: it is proven on recordings only.

#[path = "support/mod.rs"]
mod support;

use support::{fixture_arg, fixtures, prof, prof_json, Scratch};

const CANN8_PROF: &str = "vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254/PROF_PipeUtilization/PROF_000001_20260823165326062_00625538CIGQAHCJ";

/// `prof analyze --json` on `tests/fixtures/ascend/<path>`, expected to succeed.
fn analyze(path: &str) -> serde_json::Value {
    prof_json(&["analyze", "--phase", "all", "--json", "--json-full", &fixture_arg(&format!("ascend/{path}"))])
}

fn calls(doc: &serde_json::Value) -> u64 {
    doc["summary"]["kernels"].as_array().unwrap().iter().map(|k| k["calls"].as_u64().unwrap()).sum()
}

#[test]
fn torch_npu_kernel_details() {
    let doc = analyze("msprof-analyze_advisor_kernel_details/kernel_details.csv");
    assert_eq!(doc["schema"], "prof.breakdown.v1");
    assert_eq!(calls(&doc), 591);
    assert_eq!(doc["summary"]["device_ns"], 396_807_040);
    let top = &doc["summary"]["kernels"][0];
    assert_eq!((top["name"].as_str(), top["total_ns"].as_u64()), (Some("hcom_broadcast__445_0"), Some(308_926_680)));
    assert_eq!(top["family"], "collective");
    assert_eq!(doc["summary"]["families"][0]["family"], "collective");
    assert_eq!(doc["summary"]["families"][0]["total_ns"], 346_398_740);
}

#[test]
fn torch_npu_trace_view() {
    let doc = analyze("msprof-analyze_advisor_trace_view/trace_view.json");
    assert_eq!(calls(&doc), 276);
    assert_eq!(doc["summary"]["device_ns"], 1_790_457);
    assert_eq!(doc["summary"]["kernels"][0]["name"], "aclnnReduceSum_CastAiCpu_Cast");
    assert_eq!(doc["summary"]["kernels"][0]["total_ns"], 188_148);
}

#[test]
fn cann8_prof_directory_uses_op_summary() {
    let doc = analyze(CANN8_PROF);
    assert_eq!(calls(&doc), 3);
    assert_eq!(doc["summary"]["device_ns"], 39_322);
    let top = &doc["summary"]["kernels"][0];
    assert_eq!(top["name"], "aclnnGroupedMatmulV5_GroupedMatmul_GroupedMatmul");
    assert_eq!((top["total_ns"].as_u64(), top["family"].as_str()), (Some(26_661), Some("grouped_matmul")));
    assert!(doc["partial"].is_null(), "{}", doc["partial"]);
}

#[test]
fn op_statistic_alone_gives_totals() {
    let doc = analyze(&format!("{CANN8_PROF}/mindstudio_profiler_output/op_statistic_20260823165335.csv"));
    assert_eq!(calls(&doc), 3);
    assert_eq!(doc["summary"]["device_ns"], 39_320);
    assert_eq!(doc["summary"]["kernels"][0]["name"], "GroupedMatmul");
}

#[test]
fn renamed_op_summary_file() {
    let doc = analyze("ascend-optimization_msprof_op_summary/matmul_bias_activation/master-20261010/profile-metrics-float16-0/artifacts/a003-op_summary.csv");
    assert_eq!(calls(&doc), 15);
    assert_eq!(doc["summary"]["device_ns"], 122_540);
    assert_eq!(doc["summary"]["kernels"][0]["name"], "aclnnInplaceNormal_DSARandomNormal_DSARandomNormal");
    assert_eq!(doc["summary"]["kernels"][0]["total_ns"], 64_780);
}

#[test]
fn old_msprof_directory_reports_missing_op_table() {
    let doc = analyze("mindinsight_msprof_2dev/PROF_000001_20230818142704322_COJGGGCANRMICFBC");
    // 490 hardware tasks less the runtime's 12 EVENT_* tasks (not device work; python json over
    // msprof_0_2_1.json, durations rounded half up to ns: 172,200,350).
    assert_eq!(calls(&doc), 478);
    assert_eq!(doc["summary"]["device_ns"], 172_200_350);
    assert_eq!(doc["summary"]["kernels"][0]["name"], "NOTIFY_WAIT");
    assert_eq!(doc["summary"]["kernels"][0]["total_ns"], 138_220_550);
    assert_eq!(doc["summary"]["kernels"][0]["family"], "collective");
    let partial = doc["partial"].as_str().unwrap();
    assert!(partial.contains("no op table"), "{partial}");
}

#[test]
fn bad_ascend_input_is_a_clear_error() {
    let group = fixture_arg("ascend/vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254");
    let out = prof(&["analyze", "--phase", "all", "--json", &group]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("several profiles"), "{err}");

    let scratch = Scratch::new("analyze-ascend-bad");
    let dir = scratch.path();
    let prof_dir = dir.join("PROF_000001_empty");
    std::fs::create_dir_all(&prof_dir).unwrap();
    let truncated = dir.join("kernel_details.csv");
    let text =
        std::fs::read_to_string(fixtures().join("ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv"))
            .unwrap();
    std::fs::write(&truncated, &text[..text.len() - 40]).unwrap();
    let empty = prof(&["analyze", "--phase", "all", "--json", prof_dir.to_str().unwrap()]);
    let cut = prof(&["analyze", "--phase", "all", "--json", truncated.to_str().unwrap()]);
    assert!(!empty.status.success());
    assert!(String::from_utf8_lossy(&empty.stderr).contains("no Ascend profile files"));
    // Cut inside its last row: the 590 complete rows are read, and the answer says the row on
    // line 592 was left out.
    let cut = support::success_json(&cut);
    assert_eq!(cut["summary"]["ops"], 590);
    let partial = cut["partial"].as_str().unwrap();
    assert!(partial.contains("kernel_details.csv:592: the last row has no line break"), "{partial}");
}
