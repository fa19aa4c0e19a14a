//! The utilization pre-pass of `prof breakdown`: for a capture tool that cannot open its window
//! on the work itself (nsys, rocprofv3, msprof: only a time after the start, or a range the
//! program must mark), the first warm-up run is recorded the way `prof util -- CMD` records
//! it, and the window of the capture opens where that run's active phase began. The warm-up
//! was going to run anyway, so the pre-pass costs the sampling alone.
//!
//! Why: a program that loads for 12 s and then computes had its 10 s window close before the
//! work began (issue 49); `prof profile` already handed the breakdown the active phase its own
//! utilization step found, and a plain `prof breakdown` now finds it the same way.

use super::util;
use super::util_record::Ended;
use crate::failure::{Failure, Kind};
use prof_core::Registry;
use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

/// Utilization sampling interval of the pre-pass (as `prof util`'s default).
const INTERVAL: Duration = Duration::from_millis(100);

/// What the pre-pass found.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// The active phase began this long after the command started.
    Active(Duration),
    /// The run had no active phase (too short, or the device stayed idle): the window opens at
    /// the start.
    NoActivePhase(String),
    /// No utilization probe could be opened here: the warm-up runs as a plain step.
    NoProbe(String),
}

impl Found {
    /// Where the capture window opens.
    pub fn skip(&self) -> Option<Duration> {
        match self {
            Self::Active(start) => Some(*start),
            Self::NoActivePhase(_) => Some(Duration::ZERO),
            Self::NoProbe(_) => None,
        }
    }

    /// One line for stderr and the report.
    pub fn describe(&self) -> String {
        match self {
            Self::Active(start) => format!(
                "the utilization pre-pass (the warm-up run, sampled) saw the device start working {:.1} s after the \
                 start",
                start.as_secs_f64()
            ),
            Self::NoActivePhase(why) => format!("the utilization pre-pass found no active phase ({why})"),
            Self::NoProbe(why) => format!("no utilization pre-pass ({why})"),
        }
    }
}

/// Runs `command` once under the utilization sampler, its output in `out/prepass/`; a run that
/// fails fails the breakdown as a failing warm-up would.
pub fn run(registry: &Registry, command: &[OsString], timeout: Duration, out: &Path) -> Result<Found, Failure> {
    let dir = out.join("prepass");
    let args = util::UtilArgs::for_command(command.to_vec(), INTERVAL, Some(timeout), dir.clone());
    let measured = match util::measure(registry, &args) {
        Ok(measured) => measured,
        Err(failure) if failure.kind == Kind::ToolMissing => return Ok(Found::NoProbe(first_line(&failure.message))),
        Err(failure) => return Err(failure),
    };
    match measured.ended {
        Ended::Exited(Some(0)) | Ended::Exited(None) => {}
        Ended::Exited(Some(code)) => {
            let log = dir.join("util-workload.log");
            let message = format!(
                "the command failed (exit status {code}) in the warm-up run (the utilization pre-pass); its output is \
                 in {}",
                log.display()
            );
            return Err(Failure::new(Kind::WorkloadFailed, message));
        }
        other => {
            let kind = if matches!(other, Ended::TimedOut) { Kind::TimedOut } else { Kind::Interrupted };
            let why = other.stopped_by().unwrap_or_default();
            return Err(Failure::new(kind, format!("{why} ended the warm-up run (the utilization pre-pass)")));
        }
    }
    Ok(active_start(measured.phases.as_ref().and_then(|phases| phases.window_ns), &measured.verdict.headline))
}

/// The pre-pass's answer from the active window it found (ns from the command's start).
fn active_start(window_ns: Option<(u64, u64)>, headline: &str) -> Found {
    match window_ns {
        Some((start, _)) => Found::Active(Duration::from_nanos(start)),
        None => Found::NoActivePhase(headline.to_owned()),
    }
}

fn first_line(text: &str) -> String {
    text.lines().map(str::trim).find(|line| !line.is_empty() && !line.ends_with(':')).unwrap_or(text).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_opens_where_the_active_phase_began_and_at_the_start_without_one() {
        let found = active_start(Some((12_300_000_000, 20_000_000_000)), "busy");
        assert_eq!(found.skip(), Some(Duration::from_millis(12_300)));
        assert!(found.describe().contains("12.3 s after the start"), "{}", found.describe());
        let none = active_start(None, "too short to tell");
        assert_eq!(none.skip(), Some(Duration::ZERO));
        assert!(none.describe().contains("too short to tell"));
        let no_probe = Found::NoProbe(first_line("no utilization probe could be opened:\n  NVIDIA: no NVML"));
        assert_eq!(no_probe.skip(), None);
        assert_eq!(no_probe.describe(), "no utilization pre-pass (NVIDIA: no NVML)");
    }
}
