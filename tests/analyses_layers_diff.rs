//! End-to-end tests of the layer and counter sections of `prof analyze` and of `prof diff`,
//! on real recorded fixtures. Every expected number was computed independently with python3
//! over the raw fixture (the script is in the comment next to it). Conventions of those
//! scripts: torch traces: device ops are events with `cat` in {kernel, gpu_memset,
//! gpu_memcpy}, ns = round(us × 1000), sorted by (ts, dur); "blocks" are consecutive slices
//! of `period` ops from the first layer's first op.

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use support::{fixtures, prof, prof_json};

const ASCEND_PAIR: &str = "ascend/vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254";

fn path(relative: &str) -> String {
    fixtures().join(relative).display().to_string()
}

fn layers_of(relative: &str) -> Value {
    let doc = prof_json(&["analyze", "--phase", "all", &path(relative), "--json", "--json-full"]);
    doc["analyses"]["layers"].clone()
}

fn near(actual: &Value, expected: f64, tolerance: f64) -> bool {
    actual.as_f64().is_some_and(|a| (a - expected).abs() <= tolerance)
}

#[test]
fn resnet50_training_steps_are_1516_ops_not_a_period_of_chance_matches() {
    let relative = "nvidia/torch/kineto_pt19_resnet50_worker0.1623143089861.pt.trace.json.gz";
    let layers = layers_of(relative);
    // python: ops = 9096 (kernel, gpu_memset, gpu_memcpy; one stream), sorted by (ts, dur):
    //   sum(n[i] != n[i+1516] for i in range(9096-1516)) → 0: six steps of 1516 ops from op 0;
    //   at 1450 (found until 2026-12-05, from chance matches): 4439 of 7646 positions differ
    assert_eq!((layers["period_ops"].as_u64(), layers["count"].as_u64()), (Some(1516), Some(6)), "{layers}");
    assert_eq!((layers["first_op_index"].as_u64(), layers["stream_ops"].as_u64()), (Some(0), Some(9096)));
    assert!(near(&layers["covered_pct"], 100.0, 1e-9));
    let doc = prof_json(&["analyze", "--phase", "all", &path(relative), "--json"]);
    assert_eq!(doc["phases"]["steady_steps"].as_u64(), Some(6), "{}", doc["phases"]);
}

#[test]
fn h200_decode_loop_is_five_steps_of_twenty_ops() {
    let layers = layers_of("nvidia/h200-probe/torch-trace.json");
    // python: ops = 100; all(n[i] == n[i+20] for i in range(80)) → True: 5 identical blocks of 20
    assert_eq!((layers["period_ops"].as_u64(), layers["count"].as_u64()), (Some(20), Some(5)), "{layers}");
    assert_eq!((layers["stream"].as_u64(), layers["stream_ops"].as_u64()), (Some(7), Some(100)));
    assert_eq!(layers["first_op_index"].as_u64(), Some(0));
    assert!(near(&layers["covered_pct"], 100.0, 1e-9));
    // python: spans = [max(s+d for s,d,_ in b) - b[0][0] for b in blocks]
    //   → [1623459, 835937, 905891, 792801, 638690], mean 959355.6
    assert_eq!((layers["layer_min_ns"].as_u64(), layers["layer_max_ns"].as_u64()), (Some(638_690), Some(1_623_459)));
    assert!(near(&layers["layer_mean_ns"], 959_355.6, 0.01));
    // python: means[j] = mean over blocks of b[j] dur; argmax j = 19 (the A @ A GEMM),
    //   mean 174131.6 ns, share 63.236 % of sum(means)
    let ops = layers["ops"].as_array().expect("ops");
    assert_eq!(ops.len(), 20);
    let top = &ops[19];
    assert_eq!(top["name"].as_str(), Some("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"));
    assert!(near(&top["mean_ns"], 174_131.6, 0.01));
    assert!(near(&top["share_pct"], 63.236, 0.001));
    // python: n[0:3] * 4 == n[0:12] and n[12] (sdpa) breaks it: 4 × (norm, GEMV, splitK reduce)
    //   per step; sum(round(means[:12])) * 100 / sum(round(means)) = 24.234 %
    let inner = &layers["inner"];
    assert_eq!((inner["period_ops"].as_u64(), inner["count"].as_u64()), (Some(3), Some(4)), "{inner}");
    assert_eq!(inner["first_position"].as_u64(), Some(0));
    assert!(near(&inner["covered_pct"], 24.234, 0.001));
    let text = prof(&["analyze", &path("nvidia/h200-probe/torch-trace.json")]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("5 layers of 20 ops"), "{text}");
    assert!(text.contains("found by: repeating op sequence"), "{text}");
}

#[test]
fn ascend_kernel_details_finds_the_two_transformer_layers() {
    let layers = layers_of("ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv");
    // python: rows of Stream ID 16 sorted by Start Time → 558; n[i] vs n[i+27] for i in 27..54
    //   differ only at i = 35 (ScaledMaskedSoftmax98 vs ScaledMaskedSoftmax108): 2 layers of 27
    assert_eq!((layers["period_ops"].as_u64(), layers["count"].as_u64()), (Some(27), Some(2)), "{layers}");
    assert_eq!((layers["stream"].as_u64(), layers["stream_ops"].as_u64()), (Some(16), Some(558)));
    assert_eq!(layers["first_op_index"].as_u64(), Some(27));
    // python: s[27] - s[0] = 326721792 ns (the importer's f64 µs→ns conversion may move it < 1 µs)
    assert!(near(&layers["offset_ns"], 326_721_792.0, 1_000.0), "{}", layers["offset_ns"]);
    // python: sum(d[27:81]) * 100 / sum(d) = 34.8957
    assert!(near(&layers["covered_pct"], 34.8957, 0.001));
    // python: spans of the two layers [23681324, 21020124] ns
    assert!(near(&layers["layer_max_ns"], 23_681_324.0, 1_000.0));
    assert!(near(&layers["layer_min_ns"], 21_020_124.0, 1_000.0));
    // python: n[27+19] = MatMul104, mean (d[46] + d[73]) / 2 = 2048220 ns, share 24.7417 %
    let op = &layers["ops"][19];
    assert_eq!(op["name"].as_str(), Some("MatMul104"));
    assert!(near(&op["mean_ns"], 2_048_220.0, 0.5));
    assert!(near(&op["share_pct"], 24.7417, 0.001));
}

#[test]
fn ascend_trace_view_finds_the_optimizer_block() {
    let layers = layers_of("ascend/msprof-analyze_advisor_trace_view/trace_view.json");
    // python: X events of pid 800 (Ascend Hardware) sorted by ts → 276;
    //   all(n[i] == n[i+8] for i in range(184, 256)) → True and n[183] != n[191]: 10 blocks of 8 from 184
    assert_eq!((layers["period_ops"].as_u64(), layers["count"].as_u64()), (Some(8), Some(10)), "{layers}");
    assert_eq!(layers["first_op_index"].as_u64(), Some(184));
    // python: position 3 = aclnnAddcmul_AddcmulAiCore_Addcmul, mean 4.925 µs, share 21.4476 %
    let op = &layers["ops"][3];
    assert_eq!(op["name"].as_str(), Some("aclnnAddcmul_AddcmulAiCore_Addcmul"));
    assert!(near(&op["mean_ns"], 4_925.0, 0.5));
    assert!(near(&op["share_pct"], 21.4476, 0.001));
}

#[test]
fn resnet_training_is_five_steps_matching_the_profiler_steps() {
    let layers = layers_of("nvidia/torch/hta_v100_resnet_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
    // python: 6095 device ops; 6095 / 1219 = 5 and n[i] == n[i+1219] for every i (0 mismatches);
    //   5 user_annotation events named ProfilerStep#N
    assert_eq!((layers["period_ops"].as_u64(), layers["count"].as_u64()), (Some(1219), Some(5)), "{layers}");
    assert_eq!(layers["profiler_steps"].as_u64(), Some(5));
    // python: spans [97662815, 95735967, 95569791, 95663199, 95394079], mean 96005170.2
    assert!(near(&layers["layer_mean_ns"], 96_005_170.2, 100.0));
    assert!(near(&layers["layer_max_ns"], 97_662_815.0, 100.0));
    // python: argmax of means = position 1041 (max_pool_backward_nchw), 1110451.2 ns, 1.1752 %
    let op = &layers["ops"][1041];
    assert!(op["name"].as_str().is_some_and(|n| n.contains("max_pool_backward_nchw")));
    assert!(near(&op["mean_ns"], 1_110_451.2, 0.5));
    assert!(near(&op["share_pct"], 1.1752, 0.0001));
}

#[test]
fn flat_ai_core_freq_is_summarised_without_a_drop() {
    let dir = path(&format!("{ASCEND_PAIR}/PROF_PipeUtilization"));
    let doc = prof_json(&["analyze", &dir, "--json", "--json-full"]);
    let series = doc["analyses"]["counters"].as_array().expect("counters section").clone();
    assert_eq!(series.len(), 1);
    let freq = &series[0];
    // python: C events of msprof_*.json: 3 × "AI Core Freq" {"MHz": 1800}, ts 1787504006800668.000,
    //   …801369.750, …7994979.000 → span 1194311.0 µs
    assert_eq!(freq["name"].as_str(), Some("AI Core Freq"));
    assert_eq!((freq["points"].as_u64(), freq["span_ns"].as_u64()), (Some(3), Some(1_194_311_000)));
    assert_eq!((freq["min"].as_f64(), freq["max"].as_f64()), (Some(1800.0), Some(1800.0)));
    assert_eq!((freq["drop_count"].as_u64(), freq["below_nominal_ns"].as_u64()), (Some(0), Some(0)));
    let text = prof(&["analyze", &dir]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("AI Core Freq: no drop below its nominal 1800"), "{text}");
    // No counters in a kernel_details export: no section.
    let doc = prof_json(&[
        "analyze",
        &path("ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv"),
        "--json",
        "--json-full",
    ]);
    assert!(doc["analyses"].get("counters").is_none());
}

#[test]
fn eager_vs_graph_diff_shows_the_removed_launch_gaps() {
    let a = path("nvidia/h200-diff/eager.json");
    let b = path("nvidia/h200-diff/graph.json");
    let doc = prof_json(&["diff", &a, &b, "--json", "--json-full"]);
    assert_eq!(doc["schema"].as_str(), Some("prof.diff.v1"));
    let t = &doc["timeline"];
    // python: per side ops, sum(dur), wall = last end - first start, busy = union, gaps = merged-1,
    //   launches = events with cat cuda_runtime/cuda_driver:
    //   eager 180 1152733 4979628 1148828 idle 3830800 gaps 142 launches 382
    //   graph 180 1152280 1252797 1152280 idle 100517 gaps 179 launches 22
    let expect = |side: &Value, nums: [u64; 7]| {
        let keys = ["ops", "device_ns", "wall_ns", "busy_ns", "idle_ns", "gap_count", "launches"];
        for (key, value) in keys.iter().zip(nums) {
            assert_eq!(side[key].as_u64(), Some(value), "{key} in {side}");
        }
    };
    expect(&t["before"], [180, 1_152_733, 4_979_628, 1_148_828, 3_830_800, 142, 382]);
    expect(&t["after"], [180, 1_152_280, 1_252_797, 1_152_280, 100_517, 179, 22]);
    // (100517 - 3830800) / 3830800 = −97.38 %
    assert!(near(&t["idle"]["change_pct"], -97.376, 0.001));
    // Both decode 10 tokens (python: 10 gatherTopK launches a side, one per token): 10 steps,
    // so the text compares per step too (4,979,628 / 10 = 498.0 µs of wall a step, 125.3 µs after).
    assert_eq!((t["before"]["steps"].as_u64(), t["after"]["steps"].as_u64()), (Some(10), Some(10)));
    // python: per-name sums of kernel durations, sorted by |B − A|: bitonicSortKVInPlace
    //   38494 → 43424 (+4930), then nvjet_…splitK_NNT 423516 → 419611 (−3905); no one-sided names
    let top = &doc["kernels"][0];
    assert!(top["name"].as_str().is_some_and(|n| n.contains("bitonicSortKVInPlace")));
    assert_eq!((top["total"]["before"].as_f64(), top["total"]["after"].as_f64()), (Some(38_494.0), Some(43_424.0)));
    assert_eq!(doc["kernels"][1]["total"]["delta"].as_f64(), Some(-3_905.0));
    assert_eq!(doc["only_before"].as_array().map(Vec::len), Some(0));
    let verdict = doc["verdict"].as_str().unwrap_or_default();
    assert!(verdict.starts_with("B: free time \u{2212}97 %"), "{verdict}");
    assert!(verdict.contains("graph mode"), "{verdict}");
    let text = prof(&["diff", &a, &b]);
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("free (idle)") && text.contains("verdict: B: free time"), "{text}");
    let per_step = text.lines().find(|l| l.starts_with("wall per step")).unwrap_or_default();
    assert!(per_step.contains("498.0 µs") && per_step.contains("125.3 µs"), "{text}");
}

#[test]
fn ascend_two_runs_diff_and_say_what_the_partial_side_lacks() {
    let a = path(&format!("{ASCEND_PAIR}/PROF_PipeUtilization"));
    let b = path(&format!("{ASCEND_PAIR}/PROF_ResourceConflictRatio"));
    let doc = prof_json(&["diff", &a, &b, "--json", "--json-full"]);
    // python (Decimal over op_summary_*.csv): sum(Task Duration) 39.322 / 37.241 µs;
    //   max(start + dur) - min(start) 14025.881 / 14484.210 µs; 3 ops each, all on one stream
    assert_eq!(
        (doc["device_time"]["before"].as_f64(), doc["device_time"]["after"].as_f64()),
        (Some(39_322.0), Some(37_241.0))
    );
    let t = &doc["timeline"];
    assert_eq!((t["before"]["wall_ns"].as_u64(), t["after"]["wall_ns"].as_u64()), (Some(14_025_881), Some(14_484_210)));
    assert_eq!((t["before"]["gap_count"].as_u64(), t["after"]["gap_count"].as_u64()), (Some(2), Some(2)));
    // python: GroupedMatmul 26.661 → 25.481 µs (−1180 ns) is the largest change
    assert_eq!(doc["kernels"][0]["total"]["delta"].as_f64(), Some(-1_180.0));
    // The ResourceConflictRatio run has no msprof_*.json: the report says B is partial.
    let skipped = doc["skipped"].as_array().expect("skipped");
    assert!(skipped.iter().any(|s| s.as_str().is_some_and(|s| s.starts_with("B is partial"))), "{skipped:?}");
    // −5.3 % device time, +3.3 % free time: below the 10 % verdict threshold.
    assert!(doc["verdict"].as_str().is_some_and(|v| v.starts_with("B: no change of 10 %")), "{}", doc["verdict"]);
}

#[test]
fn summary_only_side_diffs_per_kernel_and_says_what_is_skipped() {
    let a = path("nvidia/nsys/gpuperf_sm103_cuda_gpu_kern_sum.csv");
    let b = path("nvidia/h200-diff/graph.json");
    let doc = prof_json(&["diff", &a, &b, "--json", "--json-full"]);
    assert!(doc["timeline"].is_null());
    assert!(doc["skipped"][0].as_str().is_some_and(|s| s.contains("A holds per-kernel totals only")), "{doc}");
    // python: graph.json kernel durations summed = 1152280 ns (see the eager/graph test)
    assert_eq!(doc["device_time"]["after"].as_f64(), Some(1_152_280.0));
    assert!(doc["families"].as_array().is_some_and(|f| !f.is_empty()));
}

#[test]
fn bad_input_names_the_file() {
    let missing = path("nvidia/h200-diff/missing.json");
    let out = prof(&["diff", &missing, &path("nvidia/h200-diff/graph.json")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing.json") && err.contains("no such file"), "{err}");
    // A single-kernel ncu report is not a profile to diff.
    let ncu = path("nvidia/h200-probe/ncu-details.csv");
    let out = prof(&["diff", &path("nvidia/h200-diff/graph.json"), &ncu]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ncu-details.csv"), "{err}");
}

/// `prof diff` shows the free share of each wall beside the totals; two windows that hold very
/// different amounts of work (180 against 51,078 ops) get a note that the totals do not
/// compare, while the same work in a shorter window (eager against graph replay) is the
/// improvement itself and gets none.
#[test]
fn diff_of_unequal_windows_compares_shares() {
    let text = |a: &str, b: &str| String::from_utf8(prof(&["diff", &path(a), &path(b)]).stdout).unwrap();
    let same_work = text("nvidia/h200-diff/eager.json", "nvidia/h200-diff/graph.json");
    // eager.json: 3.83 ms free of a 4.98 ms wall; graph.json: 100.5 µs of 1.25 ms.
    let row = same_work.lines().find(|l| l.starts_with("free share of wall")).unwrap_or_default();
    assert_eq!(row.split_whitespace().collect::<Vec<_>>()[4..8], ["76.9", "%", "8.0", "%"], "{same_work}");
    assert!(!same_work.contains("note: the windows hold different amounts of work"), "{same_work}");
    let other = text("nvidia/h200-diff/eager.json", "nvidia/h200-phases/hf-decode-cache.pcupti.gz");
    assert!(other.contains("note: the windows hold different amounts of work (180 against 51078 ops"), "{other}");
}
