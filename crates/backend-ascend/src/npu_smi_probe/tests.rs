//! Expected values were read off the recordings by eye and with
//! `python3 -c "print(30711*2**20, 32768*2**20, 30784*2**20)"`.

use super::*;
use crate::npu_smi::usages::parse_usages;
use crate::test_fixtures::{fixture, COMMON_910B, INFO_23_0_RC1, INFO_24_1_0, INFO_25_5_6};

/// The MindCluster guide's `-t usages -i 0` example (see tests/fixtures/ascend/SOURCES.md).
const USAGES_MIND_CLUSTER: &str = "npu-smi/mind-cluster_npu-smi-23.0.5_t-usages-i0.txt";
/// telegraf's npu_smi `-t usages -i 0` test data (npu-smi 25.5.1, 910B).
const USAGES_TELEGRAF: &str = "npu-smi/yunionio-telegraf_npu-smi-25.5.1_910B_t-usages-i0.txt";

#[test]
fn info_alone_gives_hbm_power_temperature_and_processes() {
    let info = parse_info(&fixture(INFO_23_0_RC1)).unwrap();
    let [sample] = samples(&info, &[], &[]).try_into().unwrap();
    assert_eq!(sample.device, 0);
    assert_eq!((sample.power_w, sample.temperature_c, sample.gpu_util_pct), (Some(78.4), Some(33.0), Some(0.0)));
    // HBM-Usage(MB) `30711/ 32768` (the board's Memory-Usage `1198 / 15137` is not device memory).
    assert_eq!((sample.mem_used_bytes, sample.mem_total_bytes), (Some(32_202_817_536), Some(34_359_738_368)));
    assert_eq!(sample.processes.len(), 1);
    let process = &sample.processes[0];
    assert_eq!(
        (process.pid, process.name.as_deref(), process.mem_used_bytes),
        (55115, Some("python"), Some(32_279_363_584))
    );
    assert_eq!((sample.sm_clock_mhz, sample.sm_clock_max_mhz), (None, None), "no -t common: unknown, not 0");
    assert!(sample.throttle_reasons.is_none());
    assert!(sample.mem_util_pct.is_none());
}

#[test]
fn four_910b2_idle_with_no_processes() {
    let info = parse_info(&fixture(INFO_25_5_6)).unwrap();
    let samples = samples(&info, &[], &[]);
    let devices: Vec<u32> = samples.iter().map(|s| s.device).collect();
    assert_eq!(devices, [4, 5, 6, 7]);
    let powers: Vec<Option<f64>> = samples.iter().map(|s| s.power_w).collect();
    assert_eq!(powers, [Some(92.8), Some(92.0), Some(92.8), Some(89.3)]);
    assert_eq!(samples[3].mem_used_bytes, Some(3404 * MIB));
    assert!(samples.iter().all(|s| s.processes.is_empty()));
}

#[test]
fn common_adds_the_ai_core_clock_and_hbm_rate() {
    // The -t common recording is NPU 1 of another 910B host; it is re-labelled NPU 0 here to
    // merge with the single-NPU info recording (the merge, not a real pairing, is under test).
    let info = parse_info(&fixture(INFO_23_0_RC1)).unwrap();
    let mut common = parse_common(&fixture(COMMON_910B)).unwrap();
    common.npu = 0;
    let [sample] = samples(&info, &[common], &[]).try_into().unwrap();
    assert_eq!((sample.sm_clock_mhz, sample.sm_clock_max_mhz), (Some(1800), Some(1800)));
    assert_eq!(sample.activity, [("hbm_usage_pct".to_owned(), 91.0)]);
    assert_eq!(sample.power_w, Some(78.4), "the table's power is kept");
}

#[test]
fn usages_add_memory_bandwidth_and_cpu_rates() {
    // The -t usages sample is NPU 0 of a 910B host (telegraf's test data); the 910A table's
    // NPU 0 is another host: only the merge is under test. Sample values, read with
    // `grep -n 'Rate\|Utilization' FILE`: HBM Usage 5, Aicore 0, Aivector 0, Aicpu 0, Ctrlcpu 6,
    // DDR Usage 0, DDR Bandwidth 0, HBM Bandwidth 0, NPU Utilization 0, Aicube 0.
    let info = parse_info(&fixture(INFO_24_1_0)).unwrap();
    let usages = parse_usages(&fixture(USAGES_TELEGRAF)).unwrap();
    let samples = samples(&info, &[], &[usages]);
    let npu0 = &samples[0];
    assert_eq!(npu0.device, 0);
    assert_eq!(npu0.mem_util_pct, Some(0.0), "HBM Bandwidth Usage Rate(%) : 0");
    let activity: Vec<(&str, f64)> = npu0.activity.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    assert_eq!(
        activity,
        [
            ("hbm_usage_pct", 5.0),
            ("aicpu_usage_pct", 0.0),
            ("ctrlcpu_usage_pct", 6.0),
            ("aivector_usage_pct", 0.0),
            ("aicube_usage_pct", 0.0),
            ("npu_utilization_pct", 0.0),
            ("ddr_usage_pct", 0.0),
            ("ddr_bandwidth_usage_pct", 0.0),
        ]
    );
    assert!(samples[1..].iter().all(|s| s.activity.is_empty() && s.mem_util_pct.is_none()), "only NPU 0 answered");
}

#[test]
fn usages_keep_the_table_and_common_values_and_leave_unprinted_rates_out() {
    // MindCluster example: DDR Usage 6, everything else 0, no Aivector/Aicube/NPU Utilization lines.
    let info = parse_info(&fixture(INFO_23_0_RC1)).unwrap();
    let mut common = parse_common(&fixture(COMMON_910B)).unwrap();
    common.npu = 0;
    let usages = parse_usages(&fixture(USAGES_MIND_CLUSTER)).unwrap();
    let [sample] = samples(&info, &[common], &[usages]).try_into().unwrap();
    assert_eq!(sample.gpu_util_pct, Some(0.0), "the table's AICore(%)");
    let names: Vec<&str> = sample.activity.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["hbm_usage_pct", "aicpu_usage_pct", "ctrlcpu_usage_pct", "ddr_usage_pct", "ddr_bandwidth_usage_pct"]
    );
    assert_eq!(sample.activity[0].1, 91.0, "-t common's HBM rate is not replaced");
    assert_eq!(sample.activity[3].1, 6.0);
    assert_eq!(sample.mem_util_pct, Some(0.0));
}

#[test]
fn a_usages_rate_that_is_not_a_number_stays_absent() {
    let text =
        fixture(USAGES_TELEGRAF).replace("HBM Bandwidth Usage Rate(%)    : 0", "HBM Bandwidth Usage Rate(%)    : NA");
    let usages = parse_usages(&text).unwrap();
    assert_eq!(usages.notes.len(), 1);
    let info = parse_info(&fixture(INFO_24_1_0)).unwrap();
    let samples = samples(&info, &[], &[usages]);
    assert_eq!(samples[0].mem_util_pct, None, "NA is unknown, not 0");
}

#[test]
fn what_the_queries_left_out_becomes_notes() {
    // NPU 0 answers with a rate of `NA` (the telegraf report, edited), NPU 1 and 2 fail.
    let text =
        fixture(USAGES_TELEGRAF).replace("HBM Bandwidth Usage Rate(%)    : 0", "HBM Bandwidth Usage Rate(%)    : NA");
    let left_out = parse_usages(&text).unwrap().notes;
    assert_eq!(left_out.len(), 1);
    let mut notes = Vec::new();
    let answered = answering(&[0, 1, 2], "-t usages", &mut notes, |npu| match npu {
        0 => Ok(left_out.clone()),
        _ => Err(Error::Unsupported(format!("no NPU {npu}\n{}", "x".repeat(300)))),
    });
    assert_eq!(answered, [0]);
    assert_eq!(notes[0], format!("-t usages -i 0: {}", left_out[0]));
    assert!(notes[0].contains("HBM Bandwidth Usage Rate(%)"), "{}", notes[0]);
    assert!(notes[1].starts_with("-t usages did not answer for NPU 1, 2 (NPU 1: "), "{}", notes[1]);
    assert!(notes[1].ends_with("…)") && notes[1].len() < 200, "long reasons are cut: {}", notes[1]);
    assert!(!notes[1].contains('\n'));
}
