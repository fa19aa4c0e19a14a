//! `prof analyze DIR` on multi-rank jobs (issue #8) and communication bandwidth (issue #7).
//!
//! Expected numbers come from python3 over the raw files, never from prof's output:
//! - Ascend: `rows = [r for r in csv.DictReader(open('cluster_step_trace_time.csv')) if r['Type'] == 'rank']`,
//!   per rank (Computing, Communication(Not Overlapped), Free) × 1000 in ns, wall = their sum;
//!   the median rank for 16 ranks is the mean of the 8th and 9th by wall, part by part.
//! - communication.json: ops = every `d['step2'][group][name]` but "Total Op Info"; bytes = RDMA + HCCS + PCIE
//!   "Transit Size(MB)" × 10⁶; the type is the word after `hcom_`.
//! - torch traces: the interval-union script described in `torch_rank_files_are_split_from_their_timelines`.

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{fixtures, prof, prof_json, scratch_dir};

const GPT3: &str = "ascend/msinsight_gpt3_16rank_torch_npu";

fn rank(report: &Value, number: u64) -> &Value {
    report["ranks"].as_array().unwrap().iter().find(|r| r["rank"] == number).unwrap()
}

fn near(value: &Value, expected: f64, tolerance: f64) -> bool {
    value.as_f64().is_some_and(|v| (v - expected).abs() <= tolerance)
}

/// Copies a directory tree (the fixtures are small).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn ascend_cluster_job_has_16_ranks_and_explains_the_slowest() {
    let dir = fixtures().join(GPT3);
    let report = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
    assert_eq!(report["schema"], "prof.ranks.v1");
    assert_eq!(report["ranks"].as_array().unwrap().len(), 16);
    assert_eq!(report["partial"], false);
    assert_eq!(report["missing_ranks"], serde_json::json!([]));
    // Rank 0 has its own directory: its split comes from its step_trace_time.csv (75174.57464453117,
    // 146614.02034375005, 69909.50350390615 µs); ranks 1-15 from the cluster file.
    let r0 = rank(&report, 0);
    assert_eq!(r0["split_from"], "step_trace_time.csv");
    assert_eq!(r0["split"]["compute_ns"], 75_174_575);
    assert_eq!(r0["split"]["communication_ns"], 146_614_020);
    assert_eq!(r0["split"]["idle_ns"], 69_909_504);
    assert_eq!(r0["split"]["wall_ns"], 291_698_099);
    assert_eq!(r0["busy_ns"], 291_698_099 - 69_909_504);
    assert_eq!(rank(&report, 7)["split_from"], "cluster_step_trace_time.csv");
    // python: rank 7 = 75386.59999999976 + 160813.12 + 67817.70000000008 µs
    assert!(near(&rank(&report, 7)["split"]["wall_ns"], 304_017_420.0, 1.0));
    // python: walls sorted [6, 4, 5, 0, 1, 2, 3, 7, 8, 15, 9, 10, 12, 13, 14, 11]; slowest 11 at 394234920 ns,
    // median (ranks 7 and 8) 339045535, excess 55189385 = compute 2149835 + communication 42951162.5 + idle 10088387.5
    let slow = &report["slowest"];
    assert_eq!(slow["rank"], 11);
    assert_eq!(slow["wall_ns"], 394_234_920);
    assert!(near(&slow["median_wall_ns"], 339_045_535.0, 2.0));
    assert!(near(&slow["excess_ns"], 55_189_385.0, 2.0));
    assert!(near(&slow["excess_compute_ns"], 2_149_835.0, 2.0));
    assert!(near(&slow["excess_communication_ns"], 42_951_162.5, 2.0));
    assert!(near(&slow["excess_idle_ns"], 10_088_387.5, 2.0));
    assert_eq!(slow["cause"], "communication");
    // Pointing at msprof-analyze's output directory is the same job.
    let cluster = prof_json(&["analyze", "--json", dir.join("cluster_analysis_output").to_str().unwrap()]);
    assert_eq!((cluster["ranks"].as_array().unwrap().len(), &cluster["slowest"]), (16, slow));
}

#[test]
fn one_ascend_rank_directory_is_a_job_of_one() {
    let dir = fixtures().join(GPT3).join("test_rank_0");
    let report = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
    assert_eq!(report["schema"], "prof.ranks.v1");
    assert_eq!(report["ranks"].as_array().unwrap().len(), 1);
    assert_eq!(rank(&report, 0)["split"]["wall_ns"], 291_698_099);
    assert_eq!(report["slowest"], Value::Null);
    // python: 28 ops in communication.json, 10 links in communication_matrix.json
    let ops: u64 = report["collectives"].as_array().unwrap().iter().map(|c| c["count"].as_u64().unwrap()).sum();
    assert_eq!((ops, report["communication_matrix"].as_array().unwrap().len()), (28, 10));
}

#[test]
fn ascend_rank_communication_and_matrix_come_from_its_files() {
    let report = prof_json(&["analyze", "--json", fixtures().join(GPT3).to_str().unwrap()]);
    let collectives = report["collectives"].as_array().unwrap();
    let types: Vec<&str> = collectives.iter().map(|c| c["op_type"].as_str().unwrap()).collect();
    // python: elapse totals allReduce 118.434287 > reduceScatter 14.714494 > allGather 12.700178 > broadcast
    // 5.509488 > send 0.896487 ms
    assert_eq!(types, ["all_reduce", "reduce_scatter", "all_gather", "broadcast", "send"]);
    let all_reduce = &collectives[0];
    // python: allReduce 6 ops, 277.872652 MB, 118.193550 ms over the ops with bytes → 2.3510 GB/s;
    // transit 13.054966 ms → 21.2848 GB/s
    assert_eq!(all_reduce["count"], 6);
    assert_eq!(all_reduce["bytes"], 277_872_652);
    assert!(near(&all_reduce["bandwidth_gbps"], 2.3510, 1e-3));
    assert!(near(&all_reduce["link_gbps"], 21.2848, 1e-3));
    assert!(near(&all_reduce["total_ns"], 118_434_287.0, 30.0));
    let transports = rank(&report, 0)["transports"].as_array().unwrap().clone();
    // python: RDMA over 6 ops: 152.044332 MB in 6.274428648 ms → 24.2324 GB/s
    let rdma = transports.iter().find(|t| t["transport"] == "RDMA").unwrap();
    assert_eq!(rdma["bytes"], 152_044_332);
    assert!(near(&rdma["link_gbps"], 24.2324, 1e-3));
    let matrix = report["communication_matrix"].as_array().unwrap();
    // python over communication_matrix.json: 10 (src, dst, transport) links; 0-8 RDMA: 5 ops, 20.972332 MB
    assert_eq!(matrix.len(), 10);
    let to_8 = matrix.iter().find(|l| l["dst"] == 8).unwrap();
    assert_eq!(
        (to_8["transport"].as_str(), to_8["ops"].as_u64(), to_8["bytes"].as_u64()),
        (Some("RDMA"), Some(5), Some(20_972_332))
    );
    let text = prof(&["analyze", fixtures().join(GPT3).to_str().unwrap()]);
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("slowest rank 11") && text.contains("mostly communication"), "{text}");
    assert!(text.contains("communication matrix"), "{text}");
}

/// A job of two real torch traces: the V100 ResNet `rank-0` trace and the A100 AlexNet trace as rank 1.
fn torch_rank_job() -> PathBuf {
    let dir = scratch_dir("ranks-torch");
    let torch = fixtures().join("nvidia/torch");
    std::fs::copy(
        torch.join("hta_v100_resnet_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"),
        dir.join("job_rank-0.pt.trace.json.gz"),
    )
    .unwrap();
    std::fs::copy(
        torch.join("hta_a100_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"),
        dir.join("job_rank-1.pt.trace.json.gz"),
    )
    .unwrap();
    dir
}

#[test]
fn torch_rank_files_are_split_from_their_timelines() {
    let dir = torch_rank_job();
    let report = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
    assert_eq!(report["ranks"].as_array().unwrap().len(), 2);
    // python (json.load(..., parse_float=Decimal); intervals of "X" events with cat kernel / gpu_memcpy /
    // gpu_memset, ts/dur µs × 1000 exactly; compute = |∪ kernels|, memory = |∪ all| − |∪ kernels|,
    // wall = last end − first start, idle = wall − |∪ all|):
    // rank 0 wall 480029179, compute 468153602, memory 4300839, idle 7574738;
    // rank 1 wall 12920244000, compute 10630000, memory 55511000, idle 12854103000
    let r0 = &rank(&report, 0)["split"];
    assert_eq!((r0["wall_ns"].as_u64(), r0["compute_ns"].as_u64()), (Some(480_029_179), Some(468_153_602)));
    assert_eq!((r0["other_ns"].as_u64(), r0["idle_ns"].as_u64()), (Some(4_300_839), Some(7_574_738)));
    assert_eq!(rank(&report, 1)["split"]["idle_ns"], 12_854_103_000u64);
    // python: most total time by name: rank 1 "Memcpy HtoD (Pageable -> Device)" 55503000 ns = 83.8376 % of op time
    let top = &rank(&report, 1)["top_kernel"];
    assert_eq!(top["name"], "Memcpy HtoD (Pageable -> Device)");
    assert!(near(&top["share_pct"], 83.8376, 1e-3));
    // Two ranks: the median is their mean, so the excess is half the difference of each part.
    let slow = &report["slowest"];
    assert_eq!(slow["rank"], 1);
    assert!(near(&slow["excess_ns"], (12_920_244_000.0 - 480_029_179.0) / 2.0, 1.0));
    assert!(near(&slow["excess_compute_ns"], (10_630_000.0 - 468_153_602.0) / 2.0, 1.0));
    assert!(near(&slow["excess_idle_ns"], (12_854_103_000.0 - 7_574_738.0) / 2.0, 1.0));
    assert_eq!(slow["cause"], "idle");
    assert_eq!(report["collectives"], serde_json::json!([]));
}

#[test]
fn a_bad_rank_is_reported_and_the_others_still_analysed() {
    let dir = scratch_dir("ranks-bad");
    let rank0 = fixtures().join(GPT3).join("test_rank_0");
    copy_tree(&rank0, &dir.join("rank0"));
    copy_tree(&rank0, &dir.join("rank1"));
    let comm = dir.join("rank1/ASCEND_PROFILER_OUTPUT/communication.json");
    let text = std::fs::read(&comm).unwrap();
    std::fs::write(&comm, &text[..text.len() / 3]).unwrap();
    std::fs::write(dir.join("rank3.json"), "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kern").unwrap();
    // rank 4: the H200 rank-0 torch trace cut in half: a partial timeline, still analysed.
    let trace = std::fs::read(fixtures().join("nvidia/h200-ranks/torch/rank0/trace.json")).unwrap();
    std::fs::create_dir_all(dir.join("rank4")).unwrap();
    std::fs::write(dir.join("rank4/trace.json"), &trace[..trace.len() / 2]).unwrap();
    let report = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
    assert_eq!(report["partial"], true);
    assert_eq!(report["missing_ranks"], serde_json::json!([2]));
    assert_eq!(report["ranks"].as_array().unwrap().len(), 4);
    let bad = rank(&report, 1)["error"].as_str().unwrap().to_owned();
    assert!(bad.starts_with("rank 1: ") && bad.contains("rank1/ASCEND_PROFILER_OUTPUT/communication.json:1:"), "{bad}");
    // rank 1's step_trace_time.csv is intact, so it still has its split.
    assert_eq!(rank(&report, 1)["split"]["wall_ns"], 291_698_099);
    let truncated = rank(&report, 3)["error"].as_str().unwrap().to_owned();
    assert!(truncated.starts_with("rank 3: ") && truncated.contains("rank3.json"), "{truncated}");
    assert_eq!(rank(&report, 0)["error"], Value::Null);
    let cut = rank(&report, 4);
    assert_eq!((cut["partial"].as_bool(), cut["error"].is_null()), (Some(true), true));
    assert!(cut["split"]["wall_ns"].as_u64().is_some_and(|w| w > 0 && w <= 30_105_504), "{cut}");
    let out = prof(&["analyze", dir.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("PARTIAL") && text.contains("ranks missing from the job directory: [2]"), "{text}");
}

#[test]
fn a_job_where_no_rank_loads_fails_naming_the_files() {
    let dir = scratch_dir("ranks-none");
    std::fs::write(dir.join("rank0.json"), "not json").unwrap();
    std::fs::write(dir.join("rank1.json"), "").unwrap();
    let out = prof(&["analyze", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("no rank could be analysed") && stderr.contains("rank0.json") && stderr.contains("rank1.json"),
        "{stderr}"
    );
}

#[test]
fn h200_torchrun_ranks_in_rank_directories() {
    let dir = fixtures().join("nvidia/h200-ranks/torch");
    let report = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
    assert_eq!((report["ranks"].as_array().unwrap().len(), report["partial"].as_bool()), (2, Some(false)));
    // python (the interval-union script above, over rank<R>/trace.json):
    // rank 0 wall 30105504, compute 3369323, memory 4472351, idle 22263830;
    // rank 1 wall 833064521, compute 6617850, memory 3688203, idle 822758468
    // (the kernel totals are SOURCES.md's 3369.3 µs and 6617.9 µs; gloo all-reduces run on the CPU, so no
    // communication on the device)
    let r0 = &rank(&report, 0)["split"];
    let r1 = &rank(&report, 1)["split"];
    assert_eq!(
        [&r0["wall_ns"], &r0["compute_ns"], &r0["other_ns"], &r0["idle_ns"]],
        [30_105_504, 3_369_323, 4_472_351, 22_263_830]
    );
    assert_eq!(
        [&r1["wall_ns"], &r1["compute_ns"], &r1["other_ns"], &r1["idle_ns"]],
        [833_064_521u64, 6_617_850, 3_688_203, 822_758_468]
    );
    assert_eq!((r0["communication_ns"].as_u64(), r1["communication_ns"].as_u64()), (Some(0), Some(0)));
    // python: rank 0's one kernel name holds 3369323 of 7841674 ns of op time = 42.9669 %
    assert!(near(&rank(&report, 0)["top_kernel"]["share_pct"], 42.9669, 1e-3));
    let slow = &report["slowest"];
    assert_eq!((slow["rank"].as_u64(), slow["cause"].as_str()), (Some(1), Some("idle")));
    assert!(near(&slow["excess_idle_ns"], (822_758_468.0 - 22_263_830.0) / 2.0, 1.0));
    assert!(near(&slow["excess_compute_ns"], (6_617_850.0 - 3_369_323.0) / 2.0, 1.0));
}

#[test]
fn h200_cupti_rank_files_are_one_rank_each() {
    let dir = fixtures().join("nvidia/h200-ranks/cupti");
    let report = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
    let ranks = report["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 2);
    assert!(rank(&report, 0)["path"].as_str().unwrap().ends_with("prof-cupti-559-rank0-local0.pcupti"));
    assert!(rank(&report, 1)["path"].as_str().unwrap().ends_with("prof-cupti-560-rank1-local1.pcupti"));
    // SOURCES.md: rank 1 multiplies 5016² matrices, rank 0 4096², the same number of times: rank 1 computes
    // longer, and each rank's top kernel is its own GEMM tile.
    let compute = |r: u64| rank(&report, r)["split"]["compute_ns"].as_u64().unwrap();
    assert!(compute(1) > compute(0));
    assert_ne!(rank(&report, 0)["top_kernel"]["name"], rank(&report, 1)["top_kernel"]["name"]);
}

#[test]
fn comm_section_of_an_op_table_counts_hccl_ops_without_inventing_bytes() {
    let csv = fixtures().join("ascend/msprof-analyze_advisor_kernel_details/kernel_details.csv");
    let report = prof_json(&["analyze", "--json", csv.to_str().unwrap()]);
    let comm = &report["analyses"]["comm"];
    assert_eq!(comm["source"], "timeline");
    // python: rows with Accelerator Core == "HCCL" (19), grouped by the word after `hcom_`, Duration(us) summed
    // with Decimal × 1000: broadcast 2 / 308989620 ns, allReduce 14 / 27867580, allGather 2 / 4927120,
    // reduceScatter 1 / 4614420
    let rows: Vec<(String, u64, u64)> = comm["collectives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (c["op_type"].as_str().unwrap().to_owned(), c["count"].as_u64().unwrap(), c["total_ns"].as_u64().unwrap())
        })
        .collect();
    let expected = [
        ("broadcast", 2, 308_989_620),
        ("all_reduce", 14, 27_867_580),
        ("all_gather", 2, 4_927_120),
        ("reduce_scatter", 1, 4_614_420),
    ];
    assert_eq!(rows, expected.map(|(t, n, ns)| (t.to_owned(), n, ns)));
    // kernel_details.csv has no byte counts: no bandwidth rather than a made-up one.
    assert!(comm["collectives"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["bytes"].is_null() && c["bandwidth_gbps"].is_null()));
}

#[test]
fn a_truncated_cluster_table_is_reported_and_the_rank_directories_still_analysed() {
    let dir = scratch_dir("ranks-cluster-cut");
    copy_tree(&fixtures().join(GPT3).join("test_rank_0"), &dir.join("test_rank_0"));
    let cluster = fixtures().join(GPT3).join("cluster_analysis_output/cluster_step_trace_time.csv");
    let text = std::fs::read(&cluster).unwrap();
    std::fs::create_dir_all(dir.join("cluster_analysis_output")).unwrap();
    // Cut inside a number of a rank row: its field count is intact, only the final newline is missing.
    let cut = text.len() * 3 / 5;
    std::fs::write(dir.join("cluster_analysis_output/cluster_step_trace_time.csv"), &text[..cut]).unwrap();
    let report = prof_json(&["analyze", "--json", dir.to_str().unwrap()]);
    assert_eq!(report["partial"], true);
    let notes = report["notes"].to_string();
    assert!(notes.contains("cluster_step_trace_time.csv:") && notes.contains("cut short"), "{notes}");
    assert_eq!(report["ranks"].as_array().unwrap().len(), 1);
    assert_eq!(rank(&report, 0)["split"]["wall_ns"], 291_698_099);
}
