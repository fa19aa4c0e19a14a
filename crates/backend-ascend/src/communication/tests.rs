//! Expected numbers from python3 over the recording (`d = json.load(open('communication.json'))`,
//! ops = every `d['step2'][group][name]` but "Total Op Info"; bytes = RDMA + HCCS + PCIE
//! "Transit Size(MB)" × 10⁶; the type is the word after `hcom_`).

use super::*;
use crate::test_fixtures::{fixture_path, MSINSIGHT_RANK0};
use prof_core::analysis::comm::summarize_collectives;

fn rank0_ops() -> Vec<CommOp> {
    load(&fixture_path(&format!("{MSINSIGHT_RANK0}/ASCEND_PROFILER_OUTPUT/communication.json"))).unwrap()
}

#[test]
fn reads_every_op_of_the_gpt3_rank() {
    let ops = rank0_ops();
    // python: len(ops) == 28 (27 collective + 1 p2p)
    assert_eq!(ops.len(), 28);
    assert_eq!(ops.iter().filter(|o| o.group == "p2p").count(), 1);
    // python: sum of collective Elapse Time(ms) = 151.35844678906247 = the file's own "Total Op Info"
    let collective_ns: u64 = ops.iter().filter(|o| o.group == "collective").map(|o| o.elapse_ns).sum();
    assert!((collective_ns as f64 - 151_358_446.789).abs() < 30.0, "{collective_ns}");
    let first = &ops[0];
    // python: min Start Timestamp(us) is hcom_broadcast__483_0 at 1695115378715400.2, elapse 4.96980784765625 ms
    assert_eq!(first.name, "hcom_broadcast__483_0@9350434047717501483");
    assert_eq!(first.start_ns, Some(1_695_115_378_715_400_200));
    assert_eq!(first.elapse_ns, 4_969_808);
    assert!(first.transports.is_empty());
}

#[test]
fn bandwidth_per_collective_matches_the_file() {
    let stats = summarize_collectives(rank0_ops().iter().map(CommOp::sample));
    let types: Vec<&str> = stats.iter().map(|s| s.op_type.as_str()).collect();
    // python: elapse totals 118.43 (allReduce) > 14.71 (reduceScatter) > 12.70 (allGather) > 5.51 > 0.90 ms
    assert_eq!(types, ["all_reduce", "reduce_scatter", "all_gather", "broadcast", "send"]);
    let all_gather = &stats[2];
    // python: allGather 10 ops (9 with bytes), 1174.406620 MB, 10.740787 ms elapsed over the ops with bytes → 109.3408 GB/s;
    // transit 62.517306 ms → 18.7853 GB/s per link
    assert_eq!((all_gather.count, all_gather.ops_with_bytes), (10, 9));
    assert_eq!(all_gather.bytes, Some(1_174_406_620));
    assert!((all_gather.bandwidth_gbps.unwrap() - 109.3408).abs() < 1e-3);
    assert!((all_gather.link_gbps.unwrap() - 18.7853).abs() < 1e-3);
    // python: reduceScatter moves nothing in this recording (all transit sizes 0)
    assert_eq!((stats[1].count, stats[1].bytes, stats[1].bandwidth_gbps), (9, None, None));
    // python: the one send: 20.97152 MB over RDMA in 0.86381540625 ms = the file's 24.2778 GB/s
    assert!((stats[4].link_gbps.unwrap() - 24.2778).abs() < 1e-3);
}

#[test]
fn transport_totals_sum_the_ops() {
    let totals = transport_totals(&rank0_ops());
    let names: Vec<&str> = totals.iter().map(|t| t.transport.as_str()).collect();
    assert_eq!(names, ["HCCS", "RDMA", "SDMA"]);
    // python: HCCS 11 ops, 1321.321036 MB, 70.17399478125 ms = the file's "Total Op Info" HCCS
    assert_eq!((totals[0].ops, totals[0].bytes), (11, 1_321_321_036));
    assert!((totals[0].transit_ns as f64 - 70_173_994.78).abs() < 20.0);
    // python: RDMA 6 ops, 152.044332 MB
    assert_eq!((totals[1].ops, totals[1].bytes), (6, 152_044_332));
}

#[test]
fn a_truncated_file_is_an_error_naming_it() {
    let path = fixture_path(&format!("{MSINSIGHT_RANK0}/ASCEND_PROFILER_OUTPUT/communication.json"));
    let text = std::fs::read(&path).unwrap();
    let error = parse(&text[..text.len() / 2], &path).unwrap_err().to_string();
    assert!(error.contains("communication.json:1:") && error.contains("EOF"), "{error}");
    let error = parse(br#"{"step1": {"collective": {"hcom_allReduce_1": {}}}}"#, &path).unwrap_err().to_string();
    assert!(error.contains("hcom_allReduce_1: no \"Communication Time Info\""), "{error}");
}

/// The recording with `Transit Size(MB)` of every transport that moved data set to `mb`.
fn rank0_with_transit_mb(mb: f64) -> Vec<u8> {
    let path = fixture_path(&format!("{MSINSIGHT_RANK0}/ASCEND_PROFILER_OUTPUT/communication.json"));
    let mut doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    for group in doc["step2"].as_object_mut().unwrap().values_mut() {
        for op in group.as_object_mut().unwrap().values_mut() {
            let Some(bandwidth) = op.get_mut("Communication Bandwidth Info").and_then(Value::as_object_mut) else {
                continue;
            };
            for info in bandwidth.values_mut() {
                if info["Transit Size(MB)"].as_f64().unwrap() > 0.0 {
                    info["Transit Size(MB)"] = mb.into();
                }
            }
        }
    }
    serde_json::to_vec(&doc).unwrap()
}

/// Regression (a hand-made input through fuzz/'s `ascend_communication`, built with overflow
/// checks): sizes past 64 bits of bytes used to saturate silently, and their sums
/// (`CommOp::bytes`, `transport_totals`) to overflow; now they are errors naming the file.
#[test]
fn transit_sizes_past_64_bits_are_an_error_not_an_overflow() {
    let path = Path::new("communication.json");
    // 10¹³ MB = 10¹⁹ bytes fits in a u64 (< 1.8·10¹⁹), but the ops' sum of them does not.
    let error = parse(&rank0_with_transit_mb(1e13), path).unwrap_err().to_string();
    assert!(error.contains("communication.json") && error.contains("Transit Size(MB) add up past 64 bits"), "{error}");
    let error = parse(&rank0_with_transit_mb(1e300), path).unwrap_err().to_string();
    assert!(error.contains("communication.json") && error.contains("too large to count in 64 bits"), "{error}");
    // The same document with its own sizes still parses: the rewrite alone is not the error.
    assert_eq!(parse(&rank0_with_transit_mb(1.0), path).unwrap().len(), 28);
}
