//! Expected values were read off the recordings by eye and with
//! `python3 -c "print(30711*2**20, 32768*2**20, 30784*2**20)"`.

use super::*;
use crate::test_fixtures::{fixture, COMMON_910B, INFO_23_0_RC1, INFO_25_5_6};

#[test]
fn info_alone_gives_hbm_power_temperature_and_processes() {
    let info = parse_info(&fixture(INFO_23_0_RC1)).unwrap();
    let [sample] = samples(&info, &[]).try_into().unwrap();
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
    let samples = samples(&info, &[]);
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
    let [sample] = samples(&info, &[common]).try_into().unwrap();
    assert_eq!((sample.sm_clock_mhz, sample.sm_clock_max_mhz), (Some(1800), Some(1800)));
    assert_eq!(sample.activity, [("hbm_usage_pct".to_owned(), 91.0)]);
    assert_eq!(sample.power_w, Some(78.4), "the table's power is kept");
}
