//! Frames drawn on ratatui's test backend at 80×24 and 200×60 from a window built by hand: an
//! H100 busy with a training process, an H100 whose kernels are resident but tiny (utilization
//! 100 %, SM activity 4 %), both at their clocks or held down.

use super::frame::{Sort, State};
use super::frame_text;
use prof_core::live::Live;
use prof_core::{DeviceInfo, DeviceSample, ProcessUse, Tick};
use std::time::Duration;

fn state() -> State {
    let info = |index| DeviceInfo {
        index,
        name: "NVIDIA H100 80GB HBM3".into(),
        uuid: Some(format!("GPU-{index}")),
        ..DeviceInfo::default()
    };
    let mut live = Live::new("NVML 13.580.82".into(), "nvidia", vec![info(0), info(1)], 30.0);
    for t in 0..10u64 {
        let busy = DeviceSample {
            device: 0,
            gpu_util_pct: Some(97.0),
            mem_used_bytes: Some(60 << 30),
            mem_total_bytes: Some(80 << 30),
            power_w: Some(650.0),
            power_limit_w: Some(700.0),
            sm_clock_mhz: Some(1755),
            sm_clock_max_mhz: Some(1980),
            temperature_c: Some(63.0),
            throttle_reasons: Some(vec!["sw_power_cap".into()]),
            processes: vec![ProcessUse {
                pid: 4242,
                name: Some("python3 train.py".into()),
                mem_used_bytes: Some(59 << 30),
                sm_util_pct: Some(96.0),
            }],
            activity: vec![("sm_activity_pct".into(), 91.0)],
            ..DeviceSample::default()
        };
        let tiny = DeviceSample {
            device: 1,
            gpu_util_pct: Some(100.0),
            sm_clock_mhz: Some(1980),
            sm_clock_max_mhz: Some(1980),
            throttle_reasons: Some(vec![]),
            activity: vec![("sm_activity_pct".into(), 4.0)],
            ..DeviceSample::default()
        };
        live.push(Tick { t_ns: t * 1_000_000_000, samples: vec![busy, tiny] }, 0.002, t as f64);
    }
    let mut state = State::new(Duration::from_secs(1));
    state.views = vec![live.view()];
    state
}

#[test]
fn a_frame_fits_80x24_and_says_each_verdict() {
    let text = frame_text(&state(), 80, 24);
    assert!(text.lines().count() <= 24);
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("H100 80GB")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].contains("97%") && rows[0].contains("91%") && rows[0].contains("650/700W"), "{}", rows[0]);
    assert!(rows[0].contains("1755/1980!"), "a throttled clock is marked: {}", rows[0]);
    assert!(rows[0].contains("busy") || rows[0].contains("clock-limited"), "{}", rows[0]);
    assert!(rows[1].contains("100%") && rows[1].contains("4%") && rows[1].contains("host-bound"), "{}", rows[1]);
    assert!(text.contains("clock limited by: sw_power_cap"), "{text}");
    assert!(text.contains("4242") && text.contains("python3 train.py") && text.contains("59.0G"), "{text}");
}

#[test]
fn the_picked_device_and_the_sort_change_the_frame() {
    let mut s = state();
    s.selected = 1;
    let text = frame_text(&s, 200, 60);
    assert!(text.lines().all(|l| l.chars().count() <= 200));
    assert!(text.contains("nvidia device 1: host-bound — kernels resident but tiny: SM activity 4 %"), "{text}");
    assert!(text.contains("utilization 100% but SM activity 4%"), "{text}");
    assert!(text.contains("processes: none reported"), "{text}");
    s.sort = Sort::Memory;
    s.selected = 0;
    let text = frame_text(&s, 200, 60);
    let first = text.lines().find(|l| l.contains("H100 80GB")).unwrap();
    assert!(first.starts_with("0 "), "most memory first: {first}");
    assert!(text.contains("s sort (memory)"), "{text}");
    s.paused = true;
    assert!(frame_text(&s, 80, 24).lines().next().unwrap().contains("PAUSED"));
}
