//! The per-device summary against a scripted series whose numbers were worked out by hand.

use prof_core::{summarize, DeviceSample, ProcessUse, Tick};

const GIB: u64 = 1 << 30;

fn reasons(names: &[&str]) -> Option<Vec<String>> {
    Some(names.iter().map(|n| (*n).to_owned()).collect())
}

fn process(pid: u32, name: Option<&str>, mem: Option<u64>) -> ProcessUse {
    ProcessUse { pid, name: name.map(str::to_owned), mem_used_bytes: mem, sm_util_pct: None }
}

/// Five ticks 100 ms apart. Device 0 carries the numbers; device 1 reports nothing.
fn scripted() -> Vec<Tick> {
    let util = [Some(0.0), Some(50.0), Some(100.0), Some(100.0), Some(3.0)];
    let mem_util = [Some(1.0), Some(20.0), Some(40.0), None, Some(30.0)];
    let mem_used = [Some(GIB), Some(2 * GIB), Some(4 * GIB), Some(3 * GIB), None];
    let mem_total = [Some(80 * GIB), Some(80 * GIB), Some(80 * GIB), Some(80 * GIB), None];
    let sm_clock = [Some(345), Some(1500), Some(1980), Some(1755), Some(345)];
    let power = [Some(80.0), Some(300.0), Some(690.0), Some(700.0), Some(85.0)];
    let temperature = [Some(38.0), Some(50.0), Some(65.0), Some(70.0), None];
    let throttle = [
        reasons(&["gpu_idle"]),
        reasons(&[]),
        reasons(&["sw_power_cap"]),
        reasons(&["sw_power_cap", "hw_slowdown"]),
        None,
    ];
    let processes = [
        vec![],
        vec![process(42, Some("python3"), Some(GIB))],
        vec![process(42, Some("python3"), Some(2 * GIB)), process(7, None, None)],
        vec![process(42, None, Some(GIB + GIB / 2))],
        vec![],
    ];
    let activity: [Vec<(String, f64)>; 5] = [
        vec![],
        vec![("sm_activity_pct".into(), 40.0)],
        vec![("sm_activity_pct".into(), 80.0), ("tensor_activity_pct".into(), 10.0)],
        vec![("sm_activity_pct".into(), 90.0)],
        vec![],
    ];
    (0..5)
        .map(|i| Tick {
            t_ns: i as u64 * 100_000_000,
            samples: vec![
                DeviceSample {
                    device: 0,
                    gpu_util_pct: util[i],
                    mem_util_pct: mem_util[i],
                    mem_used_bytes: mem_used[i],
                    mem_total_bytes: mem_total[i],
                    sm_clock_mhz: sm_clock[i],
                    sm_clock_max_mhz: Some(1980),
                    mem_clock_mhz: Some(3201),
                    mem_clock_max_mhz: Some(3201),
                    power_w: power[i],
                    power_limit_w: Some(700.0),
                    temperature_c: temperature[i],
                    throttle_reasons: throttle[i].clone(),
                    processes: processes[i].clone(),
                    activity: activity[i].clone(),
                },
                DeviceSample { device: 1, ..Default::default() },
            ],
        })
        .collect()
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9)
}

#[test]
fn summary_numbers_match_the_hand_computed_ones() {
    let summaries = summarize(&scripted());
    assert_eq!(summaries.len(), 2);
    let s = &summaries[0];
    assert_eq!((s.device, s.samples), (0, 5));
    assert!((s.duration_s - 0.4).abs() < 1e-9);
    // util 0, 50, 100, 100, 3: peak 100, mean 253 / 5, median of 0 3 50 100 100 is 50, busy (≥ 5) 3 of 5.
    assert_eq!(s.gpu_util_peak_pct, Some(100.0));
    assert!(close(s.gpu_util_mean_pct, 50.6));
    assert_eq!(s.gpu_util_median_pct, Some(50.0));
    assert!(close(s.busy_share_pct, 60.0));
    assert_eq!(s.busy_samples, 3);
    // mem util 1, 20, 40, -, 30: mean 91 / 4.
    assert!(close(s.mem_util_mean_pct, 22.75));
    assert_eq!(s.mem_util_peak_pct, Some(40.0));
    assert_eq!(s.mem_used_peak_bytes, Some(4 * GIB));
    assert_eq!(s.mem_total_bytes, Some(80 * GIB));
    assert_eq!(
        (s.sm_clock_lowest_mhz, s.sm_clock_highest_mhz, s.sm_clock_max_mhz),
        (Some(345), Some(1980), Some(1980))
    );
    // power 80, 300, 690, 700, 85: mean 1855 / 5.
    assert_eq!((s.power_min_w, s.power_max_w), (Some(80.0), Some(700.0)));
    assert!(close(s.power_mean_w, 371.0));
    assert_eq!(s.power_limit_w, Some(700.0));
    assert_eq!(s.temperature_max_c, Some(70.0));
}

#[test]
fn throttle_shares_count_all_and_busy_samples() {
    let summaries = summarize(&scripted());
    let throttle = summaries[0].throttle_reasons.as_ref().expect("device 0 reports throttle reasons");
    let names: Vec<_> = throttle.iter().map(|t| t.reason.as_str()).collect();
    assert_eq!(names, ["gpu_idle", "sw_power_cap", "hw_slowdown"]);
    // Four samples report reasons; three of those are busy (util 50, 100, 100).
    assert_eq!(throttle[0].samples, 1);
    assert!(close(Some(throttle[0].share_pct), 25.0));
    assert!(close(throttle[0].busy_share_pct, 0.0));
    assert_eq!(throttle[1].samples, 2);
    assert!(close(Some(throttle[1].share_pct), 50.0));
    assert!(close(throttle[1].busy_share_pct, 200.0 / 3.0));
    assert!(close(Some(throttle[2].share_pct), 25.0));
    assert!(close(throttle[2].busy_share_pct, 100.0 / 3.0));
}

#[test]
fn processes_and_activity_are_summarised() {
    let summaries = summarize(&scripted());
    let s = &summaries[0];
    let processes: Vec<_> = s.processes.iter().map(|p| (p.pid, p.name.as_deref(), p.mem_used_peak_bytes)).collect();
    assert_eq!(processes, [(7, None, None), (42, Some("python3"), Some(2 * GIB))]);
    let activity: Vec<_> = s.activity.iter().map(|a| (a.name.as_str(), a.mean, a.samples)).collect();
    // sm_activity 40, 80, 90: mean 70.
    assert_eq!(activity, [("sm_activity_pct", 70.0, 3), ("tensor_activity_pct", 10.0, 1)]);
    assert_eq!(s.activity_mean("sm_activity_pct"), Some(70.0));
    assert_eq!(s.activity_mean("dram_bw_util_pct"), None);
}

#[test]
fn unknown_stays_none() {
    let summaries = summarize(&scripted());
    let s = &summaries[1];
    assert_eq!((s.device, s.samples, s.busy_samples), (1, 5, 0));
    assert_eq!(s.gpu_util_mean_pct, None);
    assert_eq!(s.gpu_util_median_pct, None);
    assert_eq!(s.busy_share_pct, None);
    assert_eq!(s.mem_used_peak_bytes, None);
    assert_eq!(s.power_mean_w, None);
    assert_eq!(s.sm_clock_lowest_mhz, None);
    assert_eq!(s.temperature_max_c, None);
    assert_eq!(s.throttle_reasons, None);
    assert!(s.processes.is_empty() && s.activity.is_empty());
    let json = serde_json::to_value(s).unwrap();
    assert!(json["gpu_util_mean_pct"].is_null() && json["throttle_reasons"].is_null());
}

#[test]
fn even_medians_and_non_finite_values() {
    let tick = |t_ns: u64, util: f64| Tick {
        t_ns,
        samples: vec![DeviceSample { device: 3, gpu_util_pct: Some(util), ..Default::default() }],
    };
    let s = &summarize(&[tick(0, 4.0), tick(1, 1.0), tick(2, 3.0), tick(3, 2.0)])[0];
    assert_eq!(s.gpu_util_median_pct, Some(2.5));
    assert_eq!(s.busy_share_pct, Some(0.0), "nothing reached 5 %");

    let s = &summarize(&[tick(0, f64::NAN), tick(1, 10.0)])[0];
    assert_eq!(s.samples, 2);
    assert_eq!(s.gpu_util_mean_pct, Some(10.0), "NaN is unknown, not a number");
    assert_eq!(s.busy_share_pct, Some(100.0));

    assert!(summarize(&[]).is_empty());
    assert_eq!(summarize(&[tick(5, 1.0)])[0].duration_s, 0.0);
}
