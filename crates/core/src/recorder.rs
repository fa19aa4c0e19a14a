//! The utilization [`Recorder`]: samples a [`UtilizationProbe`] at a fixed interval on
//! its own thread while a workload runs, for question 1, "is the device busy?".
//!
//! Ticks are scheduled against the recording's start (tick `k` is due at `k × interval`),
//! so a slow probe does not stretch the series; a tick that falls wholly behind is skipped
//! and counted. A failing (or panicking) probe is recorded and sampling goes on. `stop`
//! wakes the thread through a channel, so it returns without waiting out an interval.
//!
//! ```
//! use prof_core::recorder::{Recorder, DEFAULT_INTERVAL};
//! use prof_core::{DeviceInfo, DeviceSample, Result, UtilizationProbe};
//!
//! struct Idle;
//! impl UtilizationProbe for Idle {
//!     fn source(&self) -> String { "example".into() }
//!     fn devices(&self) -> Result<Vec<DeviceInfo>> { Ok(Vec::new()) }
//!     fn sample(&mut self) -> Result<Vec<DeviceSample>> {
//!         Ok(vec![DeviceSample { gpu_util_pct: Some(0.0), ..Default::default() }])
//!     }
//! }
//!
//! let handle = Recorder::start(Box::new(Idle), DEFAULT_INTERVAL)?;
//! let recording = handle.stop();
//! assert!(!recording.ticks.is_empty());
//! # Ok::<(), prof_core::Error>(())
//! ```

use crate::probe::{DeviceSample, UtilizationProbe};
use prof_timeline::error::{Error, Result};
use serde::{Serialize, Serializer};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The sampling interval `prof util` uses unless told otherwise.
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(100);

/// The shortest interval accepted: below it the probe's own cost (an NVML or SMI call)
/// becomes a large share of the period and the numbers stop meaning much.
pub const MIN_INTERVAL: Duration = Duration::from_millis(10);

/// One tick: every device's sample, taken at one moment.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Tick {
    /// When the probe was called, ns since the recording started (monotonic clock).
    pub t_ns: u64,
    /// One sample per device, as the probe returned them.
    pub samples: Vec<DeviceSample>,
}

/// Sampling failures: they are counted and the first one is kept, sampling goes on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SampleErrors {
    /// How many ticks failed.
    pub count: u64,
    /// The first failure's message.
    pub first: Option<String>,
}

/// What one call to the probe costs, so a report can quote the sampling overhead.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SampleCost {
    /// Probe calls measured (successful or not).
    pub calls: u64,
    /// Mean duration of one call.
    #[serde(rename = "mean_ns", serialize_with = "duration_ns")]
    #[cfg_attr(feature = "schema", schemars(with = "u64"))]
    pub mean: Duration,
    /// Longest call.
    #[serde(rename = "max_ns", serialize_with = "duration_ns")]
    #[cfg_attr(feature = "schema", schemars(with = "u64"))]
    pub max: Duration,
}

/// A finished recording: the ticks and how the sampling went.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Recording {
    /// Where the numbers come from ([`UtilizationProbe::source`]).
    pub source: String,
    /// Wall-clock start, ms since the Unix epoch (for reports; tick times are monotonic).
    pub start_unix_ms: u64,
    /// The sampling interval asked for.
    #[serde(rename = "interval_ns", serialize_with = "duration_ns")]
    #[cfg_attr(feature = "schema", schemars(with = "u64"))]
    pub interval: Duration,
    /// How long the recording ran, from start to stop.
    #[serde(rename = "elapsed_ns", serialize_with = "duration_ns")]
    #[cfg_attr(feature = "schema", schemars(with = "u64"))]
    pub elapsed: Duration,
    /// The successful ticks, in time order.
    pub ticks: Vec<Tick>,
    /// Ticks skipped because a probe call ran past them.
    pub missed_ticks: u64,
    /// Failed probe calls.
    pub errors: SampleErrors,
    /// Cost of one probe call.
    pub sample_cost: SampleCost,
}

/// Starts recordings; see [`Recorder::start`].
pub struct Recorder;

/// A recording in progress; [`RecorderHandle::stop`] ends it and hands the data back.
/// Dropping the handle without stopping also ends the thread (the recording is lost).
pub struct RecorderHandle {
    stop: Sender<()>,
    thread: JoinHandle<Recording>,
    source: String,
    interval: Duration,
    start_unix_ms: u64,
}

impl Recorder {
    /// Starts sampling `probe` every `interval` on a new thread; the first tick is taken at once.
    ///
    /// Fails when `interval` is below [`MIN_INTERVAL`] or the thread cannot be started.
    pub fn start(probe: Box<dyn UtilizationProbe>, interval: Duration) -> Result<RecorderHandle> {
        Self::start_streaming(probe, interval, Box::new(|_| {}))
    }

    /// As [`Recorder::start`], and hands each tick to `sink` as soon as it is taken (on the
    /// recorder's thread), so it can be written out while the recording runs.
    pub fn start_streaming(
        probe: Box<dyn UtilizationProbe>,
        interval: Duration,
        sink: Box<dyn FnMut(&Tick) + Send>,
    ) -> Result<RecorderHandle> {
        check_interval(interval)?;
        let source = probe.source();
        let (stop, stopped) = mpsc::channel();
        let start_unix_ms = unix_ms_now();
        let thread_source = source.clone();
        let thread = std::thread::Builder::new()
            .name("prof-recorder".into())
            .spawn(move || record(probe, interval, stopped, thread_source, start_unix_ms, sink))
            .map_err(|source| Error::Spawn { program: "prof recorder thread".into(), source })?;
        Ok(RecorderHandle { stop, thread, source, interval, start_unix_ms })
    }
}

impl RecorderHandle {
    /// Stops sampling at once (a probe call in flight is let finish) and returns the recording.
    pub fn stop(self) -> Recording {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or_else(|_| Recording {
            source: self.source,
            start_unix_ms: self.start_unix_ms,
            interval: self.interval,
            errors: SampleErrors { count: 1, first: Some("the recorder thread panicked; this is a prof bug".into()) },
            ..Recording::default()
        })
    }
}

impl Recording {
    /// One sample of every device, as a recording of one tick at `t_ns` 0: `prof util`
    /// with no command. Unlike a running recording, a failing probe is an error here.
    pub fn snapshot(probe: &mut dyn UtilizationProbe) -> Result<Recording> {
        let start_unix_ms = unix_ms_now();
        let started = Instant::now();
        let samples = probe.sample()?;
        let cost = started.elapsed();
        Ok(Recording {
            source: probe.source(),
            start_unix_ms,
            interval: Duration::ZERO,
            elapsed: cost,
            ticks: vec![Tick { t_ns: 0, samples }],
            missed_ticks: 0,
            errors: SampleErrors::default(),
            sample_cost: SampleCost { calls: 1, mean: cost, max: cost },
        })
    }
}

/// Rejects intervals below [`MIN_INTERVAL`] with a message that says what is allowed.
pub(crate) fn check_interval(interval: Duration) -> Result<()> {
    if interval < MIN_INTERVAL {
        return Err(Error::Unsupported(format!(
            "sampling interval {interval:?} is too short: the minimum is {} ms (default {} ms)",
            MIN_INTERVAL.as_millis(),
            DEFAULT_INTERVAL.as_millis()
        )));
    }
    Ok(())
}

fn record(
    mut probe: Box<dyn UtilizationProbe>,
    interval: Duration,
    stopped: Receiver<()>,
    source: String,
    start_unix_ms: u64,
    mut sink: Box<dyn FnMut(&Tick) + Send>,
) -> Recording {
    let start = Instant::now();
    let mut recording = Recording { source, start_unix_ms, interval, ..Recording::default() };
    let mut cost_total = Duration::ZERO;
    let mut due: u32 = 0;
    loop {
        let t_ns = nanos(start.elapsed());
        let call_started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| probe.sample()));
        let cost = call_started.elapsed();
        cost_total += cost;
        recording.sample_cost.calls += 1;
        recording.sample_cost.max = recording.sample_cost.max.max(cost);
        match outcome {
            Ok(Ok(samples)) => {
                let tick = Tick { t_ns, samples };
                if catch_unwind(AssertUnwindSafe(|| sink(&tick))).is_err() {
                    note_error(&mut recording.errors, "the sample sink panicked; this is a prof bug".to_owned());
                }
                recording.ticks.push(tick);
            }
            Ok(Err(error)) => note_error(&mut recording.errors, error.to_string()),
            Err(panic) => {
                note_error(&mut recording.errors, format!("the probe panicked: {}", panic_message(panic.as_ref())))
            }
        }
        let elapsed = start.elapsed();
        let next = next_due(due, elapsed, interval);
        recording.missed_ticks += u64::from(next.saturating_sub(due).saturating_sub(1));
        due = next;
        let wait = interval.saturating_mul(due).saturating_sub(elapsed);
        match stopped.recv_timeout(wait) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    recording.elapsed = start.elapsed();
    let calls = u32::try_from(recording.sample_cost.calls).unwrap_or(u32::MAX).max(1);
    recording.sample_cost.mean = cost_total / calls;
    recording
}

/// The tick to take after tick `current` (due at `index × interval`): the next one, or,
/// when the probe ran late, the latest one already due, so ticks wholly behind are skipped.
fn next_due(current: u32, elapsed: Duration, interval: Duration) -> u32 {
    let latest_due = elapsed.as_nanos() / interval.as_nanos().max(1);
    current.saturating_add(1).max(u32::try_from(latest_due).unwrap_or(u32::MAX))
}

fn note_error(errors: &mut SampleErrors, message: String) {
    errors.count += 1;
    errors.first.get_or_insert(message);
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

fn unix_ms_now() -> u64 {
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX)
}

fn duration_ns<S: Serializer>(duration: &Duration, serializer: S) -> std::result::Result<S::Ok, S::Error> {
    serializer.serialize_u64(nanos(*duration))
}
