//! How `prof util` records: the recorder with its CSV stream and watch lines, around a
//! supervised command or for a duration, and how the recording ended. The samples are kept
//! however it ends.

use crate::failure::{Failure, Kind};
use prof_capture::supervisor;
use prof_core::recorder::{Recorder, RecorderHandle, Recording, Tick};
use prof_core::run_plan::RunPlan;
use prof_core::samples_csv::CsvStream;
use prof_core::UtilizationProbe;
use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// How to sample.
pub struct Sampling<'a> {
    /// The interval.
    pub interval: Duration,
    /// Stream every sample to this CSV.
    pub csv: Option<&'a Path>,
    /// Print a line every [`WATCH_EVERY`] on stderr.
    pub watch: bool,
    /// The first failed write to the CSV stream (a full disk): the samples stay in memory;
    /// `--watch` says so at once, and the verb reports it at the end.
    pub csv_error: CsvError,
}

/// Where the CSV stream leaves its first failure (written from the sampler's thread).
pub type CsvError = std::sync::Arc<std::sync::Mutex<Option<String>>>;

/// How often `--watch` prints a line.
pub const WATCH_EVERY: Duration = Duration::from_secs(5);

/// How a recording ended.
#[derive(Debug, Clone, Copy)]
pub enum Ended {
    /// The command exited (with this status, or 128 + its signal), or the duration ran out.
    Exited(Option<i32>),
    /// A signal to prof (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT); the command's group was stopped.
    Signal(i32),
    /// `--timeout` ran out; the command's group was stopped.
    TimedOut,
}

impl Ended {
    /// What stopped it early, for the report.
    pub fn stopped_by(self) -> Option<String> {
        match self {
            Ended::Exited(_) => None,
            Ended::Signal(signal) => Some(prof_timeline::error::signal_name(signal)),
            Ended::TimedOut => Some("the --timeout limit".to_owned()),
        }
    }
}

/// Starts the recorder; with a CSV every tick is also written to it as it is taken, and with
/// `watch` a line is printed every [`WATCH_EVERY`].
fn start(probe: Box<dyn UtilizationProbe>, sampling: &Sampling<'_>) -> Result<RecorderHandle, Failure> {
    let mut stream = match sampling.csv {
        Some(path) => {
            let file = std::fs::File::create(path).map_err(|e| Failure::from(prof_core::Error::io(path, e)))?;
            Some((CsvStream::new(std::io::BufWriter::new(file)), path.display().to_string()))
        }
        None => None,
    };
    let mut watch = sampling.watch.then(WatchLines::default);
    let (failed, live) = (sampling.csv_error.clone(), sampling.watch);
    let sink = Box::new(move |tick: &Tick| {
        if let Some((stream, shown)) = stream.as_mut() {
            if let Err(error) = stream.push(tick) {
                let mut first = failed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if first.is_none() {
                    let message = format!("{shown}: {error}");
                    if live {
                        eprintln!("prof util: cannot write {message}; the samples are kept in memory");
                    }
                    *first = Some(message);
                }
            }
        }
        if let Some(watch) = watch.as_mut() {
            watch.push(tick);
        }
    });
    Ok(Recorder::start_streaming(probe, sampling.interval, sink)?)
}

/// The `--watch` lines: each device's mean utilization, peak memory and power since the last
/// line.
#[derive(Default)]
struct WatchLines {
    since_ns: u64,
    /// Per device: (util sum, util samples, peak memory bytes, last power W).
    devices: std::collections::BTreeMap<u32, (f64, u32, u64, Option<f64>)>,
}

impl WatchLines {
    fn push(&mut self, tick: &Tick) {
        for sample in &tick.samples {
            let entry = self.devices.entry(sample.device).or_default();
            if let Some(util) = sample.gpu_util_pct {
                entry.0 += util;
                entry.1 += 1;
            }
            entry.2 = entry.2.max(sample.mem_used_bytes.unwrap_or(0));
            entry.3 = sample.power_w.or(entry.3);
        }
        if tick.t_ns.saturating_sub(self.since_ns) < WATCH_EVERY.as_nanos() as u64 {
            return;
        }
        let parts: Vec<String> = std::mem::take(&mut self.devices)
            .into_iter()
            .map(|(device, (sum, n, memory, power))| {
                let util = if n > 0 { format!("{:.0} %", sum / f64::from(n)) } else { "-".to_owned() };
                let power = power.map(|w| format!(", {w:.0} W")).unwrap_or_default();
                format!("device {device} {util}, {:.1} GiB{power}", memory as f64 / f64::from(1u32 << 30))
            })
            .collect();
        eprintln!("prof util: +{:.0} s  {}", tick.t_ns as f64 / 1e9, parts.join("; "));
        self.since_ns = tick.t_ns;
    }
}

/// Writes the whole recording to `path` through a temporary file, so the streamed copy stays
/// until the complete one replaces it. A device, FIFO or socket already took every row as it
/// was streamed: it is left alone, never replaced (see [`crate::output_file`]).
/// A stream that failed to a device, FIFO or socket (no rewrite can mend it) is the lost
/// output then.
pub fn rewrite_csv(path: &Path, recording: &Recording, stream_error: Option<String>) -> Result<(), Failure> {
    let fail = |e: String| Failure::new(crate::failure::Kind::Usage, e);
    if crate::output_file::is_special(path).map_err(fail)? {
        return match stream_error {
            Some(error) => Err(Failure::new(
                crate::failure::Kind::OutputLost,
                format!("{error}; the rows before the failure went to it, the rest only into the report"),
            )),
            None => Ok(()),
        };
    }
    Ok(crate::output_file::write(path, |out| prof_core::write_csv(&recording.ticks, out))?)
}

/// Samples while `command` runs under the supervisor (its output in `log`). The samples are
/// kept however it ends: its exit, a signal to prof, or `timeout`. The third value says why
/// the log could not be written (a full disk), when it could not: the verb reports it after
/// the report, as a lost output.
pub fn record_command(
    probe: Box<dyn UtilizationProbe>,
    sampling: &Sampling<'_>,
    command: &[OsString],
    timeout: Option<Duration>,
    log: &Path,
) -> Result<(Recording, Ended, Option<String>), Failure> {
    let handle = start(probe, sampling)?;
    let outcome = supervisor::run(&workload_plan(command, timeout, log));
    let recording = handle.stop();
    let (ended, log_lost) = ended_of(outcome, log)?;
    Ok((recording, ended, log_lost))
}

/// The plan that runs the observed command: its output echoed and kept in `log`.
fn workload_plan(command: &[OsString], timeout: Option<Duration>, log: &Path) -> RunPlan {
    let mut plan = RunPlan::new("workload", command.to_vec(), log);
    plan.timeout = timeout;
    plan.echo = true;
    plan
}

/// How the command ended, from the supervisor's outcome, and why its log in `log` could not be
/// written, when it could not; an error that is not its end (it could not start) is returned.
fn ended_of(outcome: prof_core::Result<prof_core::RunOutcome>, log: &Path) -> Result<(Ended, Option<String>), Failure> {
    match outcome {
        Ok(outcome) => {
            let log_lost =
                outcome.log_error.map(|error| format!("{}: {error}; the command's output is lost", log.display()));
            Ok((Ended::Exited(outcome.exit_code.or(outcome.signal.map(|s| 128 + s))), log_lost))
        }
        Err(prof_core::Error::Interrupted { signal, .. }) => Ok((Ended::Signal(signal), None)),
        Err(prof_core::Error::TimedOut { .. }) => Ok((Ended::TimedOut, None)),
        Err(other) => Err(other.into()),
    }
}

/// Samples for `duration` (`Duration::MAX`: until stopped), or until a signal to prof ends it
/// early (the samples are kept).
pub fn record_for(
    probe: Box<dyn UtilizationProbe>,
    sampling: &Sampling<'_>,
    duration: Duration,
) -> Result<(Recording, Ended), Failure> {
    let runtime = supervisor::runtime()?;
    let handle = start(probe, sampling)?;
    let signal = runtime.block_on(async {
        let mut stop = supervisor::StopSignals::listen()?;
        Ok::<_, prof_core::Error>(tokio::select! {
            _ = sleep_or_forever(duration) => None,
            signal = stop.recv() => Some(signal),
        })
    });
    let recording = handle.stop();
    Ok((recording, signal?.map_or(Ended::Exited(None), Ended::Signal)))
}

/// Sleeps `duration`; `Duration::MAX` never ends.
async fn sleep_or_forever(duration: Duration) {
    match tokio::time::Instant::now().checked_add(duration) {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The exit status `prof util` gives for how the recording `ended`.
pub fn exit_status(ended: Ended) -> ExitCode {
    match ended {
        Ended::Signal(signal) => ExitCode::from(u8::try_from(128 + signal).unwrap_or(130)),
        Ended::TimedOut => ExitCode::from(124),
        Ended::Exited(Some(code)) if code != 0 => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Ended::Exited(_) => ExitCode::SUCCESS,
    }
}

/// Runs the command of a rank that does not sample (local rank above 0), its log in `--out`,
/// and ends with its status.
pub fn run_unsampled(
    out: &Path,
    command: &[OsString],
    timeout: Option<Duration>,
    launched: prof_core::launcher::LaunchedRank,
) -> Result<ExitCode, Failure> {
    let _lock = crate::out_lock::OutLock::take(out).map_err(|e| Failure::new(Kind::Usage, e))?;
    eprintln!(
        "prof util: rank {} is local rank {} of its node: the node's devices are sampled by its local rank 0",
        launched.rank,
        launched.local_rank.unwrap_or(0)
    );
    let log = out.join("util-workload.log");
    let (ended, _) = ended_of(supervisor::run(&workload_plan(command, timeout, &log)), &log)?;
    Ok(exit_status(ended))
}
