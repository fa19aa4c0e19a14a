//! Every verdict rule on a scripted series that triggers it and on one that does not.

use prof_core::{judge_run, judge_snapshot, summarize, DeviceSample, FindingKind, Tick, Verdict, VerdictKind};

const COMMAND: [&str; 2] = ["python3", "work.py"];

/// Device 0 at the given utilizations, one tick every 100 ms, each with its throttle reasons.
fn series(util: &[f64], throttle: &[&[&str]]) -> Vec<Tick> {
    util.iter()
        .enumerate()
        .map(|(i, u)| Tick {
            t_ns: i as u64 * 100_000_000,
            samples: vec![DeviceSample {
                device: 0,
                gpu_util_pct: Some(*u),
                throttle_reasons: throttle.get(i).map(|r| r.iter().map(|n| (*n).to_owned()).collect()),
                ..Default::default()
            }],
        })
        .collect()
}

fn run(util: &[f64], throttle: &[&[&str]]) -> Verdict {
    judge_run(&summarize(&series(util, throttle)), &COMMAND)
}

fn with_activity(mut ticks: Vec<Tick>, sm_activity: f64) -> Vec<Tick> {
    for tick in &mut ticks {
        tick.samples[0].activity.push(("sm_activity_pct".into(), sm_activity));
    }
    ticks
}

#[test]
fn low_mean_utilization_is_host_bound() {
    let verdict = run(&[8.0; 10], &[]);
    assert_eq!(verdict.kind, VerdictKind::HostBound);
    assert!(verdict.headline.contains("a kernel trace won't help"), "{}", verdict.headline);
    assert!(
        verdict.evidence.iter().any(|e| e.contains("mean utilization 8 % is below 10 %")),
        "{:?}",
        verdict.evidence
    );
    assert_eq!(verdict.next_step, None);

    assert_eq!(run(&[12.0; 10], &[]).kind, VerdictKind::Busy);
    assert_eq!(run(&[10.0; 10], &[]).kind, VerdictKind::Busy, "10 % is not below 10 %");
}

#[test]
fn low_busy_share_is_host_bound() {
    // 100, 100 and eight 0: mean 20 %, busy in 20 % of samples.
    let verdict = run(&[100.0, 100.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], &[]);
    assert_eq!(verdict.kind, VerdictKind::HostBound);
    assert!(
        verdict.evidence.iter().any(|e| e.contains("busy in 20 % of samples, below 30 %")),
        "{:?}",
        verdict.evidence
    );
    assert!(!verdict.evidence.iter().any(|e| e.contains("is below 10 %")));

    // Three of ten busy: mean 30 %, busy share 30 %, not below either threshold.
    let verdict = run(&[100.0, 100.0, 100.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], &[]);
    assert_eq!(verdict.kind, VerdictKind::Busy);
}

#[test]
fn busy_names_the_exact_next_command() {
    let ticks = series(&[100.0; 5], &[]);
    let verdict = judge_run(&summarize(&ticks), &["python3", "work.py", "3 s", "it's"]);
    assert_eq!(verdict.kind, VerdictKind::Busy);
    assert_eq!(verdict.next_step.as_deref(), Some(r"prof breakdown -- python3 work.py '3 s' 'it'\''s'"));
    assert!(verdict.headline.contains("device 0"), "{}", verdict.headline);
    assert!(verdict.findings.is_empty());
}

#[test]
fn the_busiest_device_decides() {
    let mut ticks = series(&[0.0; 4], &[]);
    for tick in &mut ticks {
        tick.samples.push(DeviceSample { device: 1, gpu_util_pct: Some(95.0), ..Default::default() });
    }
    let verdict = judge_run(&summarize(&ticks), &COMMAND);
    assert_eq!(verdict.kind, VerdictKind::Busy);
    assert!(verdict.headline.contains("device 1"), "{}", verdict.headline);
    assert_eq!(verdict.evidence.len(), 2, "one line per device: {:?}", verdict.evidence);
}

#[test]
fn a_non_idle_reason_in_busy_samples_is_clock_limited() {
    let cap: &[&str] = &["sw_power_cap"];
    let none: &[&str] = &[];
    // Busy throughout; sw_power_cap in 3 of 10 busy samples (30 % ≥ 20 %).
    let verdict = run(&[100.0; 10], &[cap, cap, cap, none, none, none, none, none, none, none]);
    assert_eq!(verdict.kind, VerdictKind::Busy, "busy and clock-limited are both said");
    assert!(verdict.has_finding(FindingKind::ClockLimited));
    let finding = &verdict.findings[0];
    assert!(finding.headline.contains("sw_power_cap") && finding.headline.contains("not representative"));
    assert!(finding.evidence.iter().any(|e| e == "device 0: sw_power_cap active in 30 % of busy samples"));

    // 1 of 10 busy samples (10 %) is a transient.
    let verdict = run(&[100.0; 10], &[cap, none, none, none, none, none, none, none, none, none]);
    assert!(!verdict.has_finding(FindingKind::ClockLimited));
}

#[test]
fn idle_reasons_and_idle_samples_are_not_clock_limited() {
    let idle: &[&str] = &["gpu_idle"];
    let slow: &[&str] = &["hw_slowdown"];
    let verdict = run(&[100.0; 4], &[idle, idle, idle, idle]);
    assert!(!verdict.has_finding(FindingKind::ClockLimited), "gpu_idle only says there was nothing to do");
    // hw_slowdown only while idle (util 0): no busy sample was limited.
    let verdict = run(&[100.0, 100.0, 100.0, 0.0, 0.0], &[&[], &[], &[], slow, slow]);
    assert!(!verdict.has_finding(FindingKind::ClockLimited));
    // Host-bound runs can be clock-limited too when their few busy samples were.
    let verdict = run(&[100.0, 0.0, 0.0, 0.0, 0.0], &[slow, &[], &[], &[], &[]]);
    assert_eq!(verdict.kind, VerdictKind::HostBound);
    assert!(verdict.has_finding(FindingKind::ClockLimited));
}

#[test]
fn low_sm_activity_says_utilization_only_means_resident() {
    let resident = |sm: f64| {
        let verdict = judge_run(&summarize(&with_activity(series(&[100.0; 4], &[]), sm)), &COMMAND);
        verdict.evidence.iter().any(|e| e.contains("utilization.gpu only means a kernel was resident"))
    };
    assert!(resident(20.0));
    assert!(!resident(90.0));
    assert!(!resident(50.0), "half the utilization is not below half");
    assert!(!judge_run(&summarize(&series(&[100.0; 4], &[])), &COMMAND)
        .evidence
        .iter()
        .any(|e| e.contains("resident")));
}

#[test]
fn snapshot_states_idle_or_busy() {
    let tick = Tick {
        t_ns: 0,
        samples: vec![
            DeviceSample { device: 0, gpu_util_pct: Some(100.0), ..Default::default() },
            DeviceSample { device: 1, gpu_util_pct: Some(0.0), ..Default::default() },
        ],
    };
    let verdict = judge_snapshot(&summarize(std::slice::from_ref(&tick)));
    assert_eq!(verdict.kind, VerdictKind::Snapshot);
    assert_eq!(verdict.headline, "snapshot: 1 of 2 devices busy: device 0 (100 %)");
    assert_eq!(verdict.next_step, None);

    let verdict = judge_snapshot(&summarize(&series(&[0.0], &[])));
    assert_eq!(verdict.kind, VerdictKind::Snapshot, "an idle snapshot is not host-bound: nothing ran");
    assert_eq!(verdict.headline, "snapshot: the device is idle");
}

#[test]
fn no_utilization_is_no_data_not_idle() {
    let verdict = judge_run(&summarize(&[]), &COMMAND);
    assert_eq!(verdict.kind, VerdictKind::NoData);
    assert!(verdict.evidence[0].contains("no sample was taken"));
    let blind = vec![Tick { t_ns: 0, samples: vec![DeviceSample { device: 0, ..Default::default() }] }];
    let verdict = judge_run(&summarize(&blind), &COMMAND);
    assert_eq!(verdict.kind, VerdictKind::NoData);
    assert_eq!(verdict.evidence, ["device 0: utilization not reported (1 sample)"]);
    assert_eq!(judge_snapshot(&summarize(&blind)).kind, VerdictKind::NoData);
}

#[test]
fn verdict_serializes_with_snake_case_kinds() {
    let cap: &[&str] = &["sw_power_cap"];
    let json = serde_json::to_value(run(&[100.0; 4], &[cap; 4])).unwrap();
    assert_eq!(json["kind"], "busy");
    assert_eq!(json["findings"][0]["kind"], "clock_limited");
    assert_eq!(json["next_step"], "prof breakdown -- python3 work.py");
}

#[test]
fn too_few_samples_give_no_verdict() {
    let verdict = run(&[100.0, 100.0], &[]);
    assert_eq!(verdict.kind, VerdictKind::TooShort);
    assert!(verdict.headline.starts_with("too short to tell: 2 sample(s) of device 0"), "{}", verdict.headline);
    assert_eq!(verdict.next_step, None);
    assert_eq!(run(&[100.0; 3], &[]).kind, VerdictKind::Busy, "three samples are enough");
    assert_eq!(run(&[0.0], &[]).kind, VerdictKind::TooShort, "one idle sample is not idle either");
}

#[test]
fn a_device_that_never_worked_is_idle_not_host_bound() {
    let verdict = run(&[0.0, 1.0, 4.9, 0.0], &[]);
    assert_eq!(verdict.kind, VerdictKind::Idle);
    assert!(verdict.headline.contains("peak utilization 4.9 %"), "{}", verdict.headline);
    // One sample at 5 % is work: a little, so host-bound.
    assert_eq!(run(&[0.0, 5.0, 0.0, 0.0], &[]).kind, VerdictKind::HostBound);
}
