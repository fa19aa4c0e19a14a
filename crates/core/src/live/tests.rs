use super::*;

fn info(index: u32) -> DeviceInfo {
    DeviceInfo {
        index,
        name: "NVIDIA H100 80GB HBM3".into(),
        uuid: Some(format!("GPU-{index}")),
        ..DeviceInfo::default()
    }
}

fn sample(device: u32, util: f64) -> DeviceSample {
    DeviceSample {
        device,
        gpu_util_pct: Some(util),
        sm_clock_mhz: Some(1980),
        sm_clock_max_mhz: Some(1980),
        throttle_reasons: Some(vec![]),
        ..DeviceSample::default()
    }
}

fn live_of(utils: &[f64], window_s: f64) -> Live {
    let mut live = Live::new("test".into(), "nvidia", vec![info(0)], window_s);
    for (i, &u) in utils.iter().enumerate() {
        live.push(Tick { t_ns: i as u64 * 1_000_000_000, samples: vec![sample(0, u)] }, 0.001, i as f64);
    }
    live
}

#[test]
fn the_window_holds_only_its_seconds() {
    let live = live_of(&[100.0; 100], 10.0);
    assert_eq!(live.held(), 11, "ticks 89..=99 are within 10 s of the last");
    assert_eq!(live.health.samples, 100);
    let view = live.view();
    assert_eq!(view.devices[0].summary.as_ref().unwrap().samples, 11);
}

#[test]
fn verdicts_follow_the_window() {
    assert_eq!(live_of(&[98.0; 10], 30.0).view().devices[0].verdict, LiveKind::Busy);
    assert_eq!(live_of(&[0.0; 10], 30.0).view().devices[0].verdict, LiveKind::Idle);
    assert_eq!(live_of(&[100.0], 30.0).view().devices[0].verdict, LiveKind::TooShort);
    // Work in bursts: busy in 2 of 10 samples.
    let mut bursts = [0.0; 10];
    bursts[3] = 90.0;
    bursts[7] = 90.0;
    let v = live_of(&bursts, 30.0).view();
    assert_eq!(v.devices[0].verdict, LiveKind::HostBound, "{}", v.devices[0].reason);
    // The busy minute leaves the window: idle again.
    let mut late = vec![100.0; 10];
    late.extend([0.0; 40]);
    assert_eq!(live_of(&late, 30.0).view().devices[0].verdict, LiveKind::Idle);
}

#[test]
fn resident_tiny_kernels_are_host_bound_whatever_utilization_says() {
    let mut live = Live::new("test".into(), "nvidia", vec![info(0)], 30.0);
    for i in 0..10u64 {
        let mut s = sample(0, 100.0);
        s.activity = vec![("sm_activity_pct".into(), 3.0)];
        live.push(Tick { t_ns: i * 1_000_000_000, samples: vec![s] }, 0.001, i as f64);
    }
    let d = &live.view().devices[0];
    assert_eq!(d.verdict, LiveKind::HostBound);
    assert!(d.reason.contains("SM activity 3 %"), "{}", d.reason);
    assert_eq!(d.sm_activity_pct(), Some(3.0));
}

#[test]
fn clocks_held_down_while_busy_are_said() {
    let mut live = Live::new("test".into(), "nvidia", vec![info(0)], 30.0);
    for i in 0..10u64 {
        let mut s = sample(0, 100.0);
        s.sm_clock_mhz = Some(1200);
        s.throttle_reasons = Some(vec!["sw_power_cap".into()]);
        live.push(Tick { t_ns: i * 1_000_000_000, samples: vec![s] }, 0.001, i as f64);
    }
    let d = &live.view().devices[0];
    assert_eq!(d.verdict, LiveKind::ClockLimited, "{}", d.reason);
}

#[test]
fn a_device_without_samples_has_no_data_and_failures_are_counted() {
    let mut live = Live::new("test".into(), "nvidia", vec![info(0), info(1)], 30.0);
    live.push(Tick { t_ns: 0, samples: vec![sample(0, 50.0)] }, 0.002, 1.0);
    live.failed("NVML: GPU is lost".into());
    let v = live.view();
    assert_eq!(v.devices[1].verdict, LiveKind::NoData);
    assert_eq!((v.health.samples, v.health.errors), (1, 1));
    assert_eq!(v.health.last_error.as_deref(), Some("NVML: GPU is lost"));
}
