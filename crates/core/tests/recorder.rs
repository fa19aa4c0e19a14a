//! The recorder against a scripted mock probe: interval, drift, prompt stop, errors, cost.

use prof_core::recorder::{Recorder, MIN_INTERVAL};
use prof_core::{DeviceInfo, DeviceSample, Error, Recording, Result, UtilizationProbe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Replays `script` in a loop, counts its calls, fails or panics on chosen calls (0-based)
/// and can take `delay` per call, like a slow SMI.
#[derive(Default)]
struct MockProbe {
    calls: Arc<AtomicUsize>,
    script: Vec<Vec<DeviceSample>>,
    fail_on: Vec<usize>,
    panic_on: Vec<usize>,
    delay: Duration,
}

impl MockProbe {
    fn new(util: &[f64]) -> Self {
        let script = util
            .iter()
            .map(|u| vec![DeviceSample { device: 0, gpu_util_pct: Some(*u), ..Default::default() }])
            .collect();
        Self { script, ..Default::default() }
    }
}

impl UtilizationProbe for MockProbe {
    fn source(&self) -> String {
        "mock".into()
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(Vec::new())
    }

    fn sample(&mut self) -> Result<Vec<DeviceSample>> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(self.delay);
        if self.panic_on.contains(&call) {
            panic!("mock panic at call {call}");
        }
        if self.fail_on.contains(&call) {
            return Err(Error::tool_output("mock", call, format!("boom at call {call}")));
        }
        Ok(self.script[call % self.script.len()].clone())
    }
}

fn wait_for_calls(calls: &AtomicUsize, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while calls.load(Ordering::SeqCst) < n {
        assert!(Instant::now() < deadline, "probe was called only {} times", calls.load(Ordering::SeqCst));
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn interval_is_honoured_and_does_not_drift() {
    let interval = Duration::from_millis(20);
    let mut probe = MockProbe::new(&[50.0]);
    // 8 ms per call: sleeping the interval after each sample would give a tick every 28 ms (about 15).
    probe.delay = Duration::from_millis(8);
    let handle = Recorder::start(Box::new(probe), interval).expect("recorder starts");
    std::thread::sleep(Duration::from_millis(400));
    let recording = handle.stop();

    let expected = (recording.elapsed.as_nanos() / interval.as_nanos()) as i64 + 1;
    let ticks = recording.ticks.len() as i64;
    assert!((18..=24).contains(&ticks), "{ticks} ticks over {:?}", recording.elapsed);
    assert!((ticks + recording.missed_ticks as i64 - expected).abs() <= 1, "{ticks} ticks, expected {expected}");
    assert_eq!(recording.errors.count, 0);
    assert_eq!(recording.interval, interval);
    assert!(recording.ticks.windows(2).all(|w| w[0].t_ns < w[1].t_ns));
    if recording.missed_ticks == 0 {
        for (k, tick) in recording.ticks.iter().enumerate() {
            let due = interval.as_nanos() as i64 * k as i64;
            let late = tick.t_ns as i64 - due;
            assert!((0..15_000_000).contains(&late), "tick {k} at {} ns, due at {due} ns", tick.t_ns);
        }
    }
}

#[test]
fn stop_does_not_wait_for_the_interval() {
    let probe = MockProbe::new(&[0.0]);
    let calls = probe.calls.clone();
    let handle = Recorder::start(Box::new(probe), Duration::from_secs(5)).expect("recorder starts");
    wait_for_calls(&calls, 1);
    let asked = Instant::now();
    let recording = handle.stop();
    assert!(asked.elapsed() < Duration::from_millis(500), "stop took {:?}", asked.elapsed());
    assert_eq!(recording.ticks.len(), 1);
    assert!(recording.ticks[0].t_ns < 50_000_000, "the first tick is taken at once");
}

#[test]
fn errors_are_recorded_and_sampling_goes_on() {
    let mut probe = MockProbe::new(&[10.0, 20.0, 30.0]);
    probe.fail_on = vec![1, 2];
    let calls = probe.calls.clone();
    let handle = Recorder::start(Box::new(probe), MIN_INTERVAL).expect("recorder starts");
    wait_for_calls(&calls, 6);
    let recording = handle.stop();
    let made = calls.load(Ordering::SeqCst) as u64;

    assert_eq!(recording.errors.count, 2);
    let first = recording.errors.first.as_deref().expect("first error kept");
    assert!(first.contains("boom at call 1"), "{first}");
    assert_eq!(recording.ticks.len() as u64 + recording.errors.count, made);
    assert_eq!(recording.sample_cost.calls, made);
    let utils: Vec<_> = recording.ticks.iter().take(3).map(|t| t.samples[0].gpu_util_pct).collect();
    assert_eq!(utils, vec![Some(10.0), Some(10.0), Some(20.0)], "calls 0, 3, 4 of the script");
}

#[test]
fn a_panicking_probe_is_an_error_not_the_end() {
    let mut probe = MockProbe::new(&[40.0]);
    probe.panic_on = vec![0];
    let calls = probe.calls.clone();
    let handle = Recorder::start(Box::new(probe), MIN_INTERVAL).expect("recorder starts");
    wait_for_calls(&calls, 3);
    let recording = handle.stop();
    assert_eq!(recording.errors.count, 1);
    let first = recording.errors.first.unwrap_or_default();
    assert!(first.contains("panicked") && first.contains("mock panic at call 0"), "{first}");
    assert!(recording.ticks.len() >= 2);
}

#[test]
fn intervals_below_the_minimum_are_refused() {
    let error = Recorder::start(Box::new(MockProbe::new(&[0.0])), Duration::from_millis(9)).err().expect("refused");
    let message = error.to_string();
    assert!(message.contains("too short") && message.contains("10 ms"), "{message}");
    assert!(Recorder::start(Box::new(MockProbe::new(&[0.0])), Duration::ZERO).is_err());
    let handle = Recorder::start(Box::new(MockProbe::new(&[0.0])), MIN_INTERVAL).expect("10 ms is allowed");
    assert!(!handle.stop().ticks.is_empty());
}

#[test]
fn sample_cost_measures_the_probe_calls() {
    let mut probe = MockProbe::new(&[0.0]);
    probe.delay = Duration::from_millis(3);
    let calls = probe.calls.clone();
    let handle = Recorder::start(Box::new(probe), MIN_INTERVAL).expect("recorder starts");
    wait_for_calls(&calls, 4);
    let recording = handle.stop();
    let cost = recording.sample_cost;
    assert_eq!(cost.calls, calls.load(Ordering::SeqCst) as u64);
    assert!(cost.mean >= Duration::from_millis(3), "{cost:?}");
    assert!(cost.max >= cost.mean, "{cost:?}");
}

#[test]
fn recording_carries_source_and_wall_clock_start() {
    let before = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let handle = Recorder::start(Box::new(MockProbe::new(&[0.0])), MIN_INTERVAL).expect("recorder starts");
    let recording = handle.stop();
    let after = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    assert_eq!(recording.source, "mock");
    assert!((before..=after).contains(&recording.start_unix_ms));
    let json = serde_json::to_value(&recording).unwrap();
    assert_eq!(json["interval_ns"], 10_000_000);
}

#[test]
fn snapshot_takes_one_sample() {
    let mut probe = MockProbe::new(&[75.0, 10.0]);
    let recording = Recording::snapshot(&mut probe).expect("snapshot");
    assert_eq!(probe.calls.load(Ordering::SeqCst), 1);
    assert_eq!(recording.ticks.len(), 1);
    assert_eq!(recording.ticks[0].t_ns, 0);
    assert_eq!(recording.ticks[0].samples[0].gpu_util_pct, Some(75.0));
    assert_eq!(recording.sample_cost.calls, 1);

    let mut failing = MockProbe::new(&[0.0]);
    failing.fail_on = vec![0];
    let error = Recording::snapshot(&mut failing).expect_err("a failed snapshot is an error");
    assert!(error.to_string().contains("boom at call 0"));
}
