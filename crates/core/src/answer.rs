//! The answer: one headline about where the answer window's time went, with its evidence,
//! its size and the next step, reconciled with every finding so no section contradicts it.
//!
//! It starts from the [`account`] of the busiest device: its wall time split into busy time
//! by family and idle time by cause, adding up to 100 %. Then:
//! 1. **Evidence floor.** A window needs one of: at least [`ENOUGH_OPS`] device ops,
//!    [`ENOUGH_STEPS`] repeating steps, or [`ENOUGH_BUSY_NS`] of device work. Below it the
//!    answer is too little to tell ([`Verdict::TooLittle`]) with the command that captures
//!    more, and gives no family, launch or deep-dive verdict (a capture that closed before the
//!    work began holds a few fill kernels: its "dominant" 1 µs kernel is not worth a deep
//!    dive). One 2.5 ms kernel is enough to look inside; a few microseconds of fills are not.
//!    A window with no device op at all takes the no-device-activity finding's words.
//! 2. **Candidates**, each a share of the wall time that can be won back, with its remedy:
//!    idle by cause (waiting for launches, host stalls, dependencies; short gaps and long
//!    stalls where the trace has no launch records), exposed communication, exposed copies,
//!    and the diagnosis' warnings and opportunities that say how much device time they are
//!    about ([`crate::diagnosis::Diagnosis::device_ns`], taken as that share of the busy
//!    time). The largest of at least [`ADDRESSABLE_MIN_PCT`] % is the headline.
//!    One compute kernel that dominates (at least [`DOMINANT_SHARE_PCT`] % of device time and
//!    [`DOMINANT_RATIO`]× the next) on a device busy at least [`DEEP_DIVE_MIN_BUSY_PCT`] % of
//!    its wall time is a candidate too, with its share of the wall time: when it is the
//!    largest, the headline is that kernel and the next step its deep dive
//!    ([`Next::DeepDive`]).
//! 3. **Nothing to win back**: the run is healthy, said in words with its largest families.
//!
//! A deep dive is suggested only by the dominant-kernel headline: never beside an idle or
//! finding headline, never below the floor.

mod account;
mod words;

pub use account::{account, account_of_summary, Account, AccountPart, IdleCause, Part};

use crate::analysis::gaps::DeviceGaps;
use crate::analysis::launch::LaunchStats;
use crate::deepdive::Severity;
use crate::diagnosis::{DiagnosisKind, DiagnosisReport};
use crate::families::Family;
use crate::kernel_summary::KernelSummary;
use crate::timeline::{OpKind, Timeline};
use serde::Serialize;

/// Device ops that are enough for a verdict…
pub const ENOUGH_OPS: u64 = 100;
/// …or repeating steps…
pub const ENOUGH_STEPS: usize = 3;
/// …or device work (busy time of the busiest device), ns: 1 ms.
pub const ENOUGH_BUSY_NS: u64 = 1_000_000;
/// Least share of the wall time, percent, that a cause must hold to be the headline.
pub const ADDRESSABLE_MIN_PCT: f64 = 10.0;
/// A kernel dominates (and is worth a slow deep dive) at this share of device time…
pub const DOMINANT_SHARE_PCT: f64 = 40.0;
/// …when it also takes at least this many times the next compute kernel's time…
pub const DOMINANT_RATIO: f64 = 2.0;
/// …on a device busy at least this share of its wall time, percent.
pub const DEEP_DIVE_MIN_BUSY_PCT: f64 = 50.0;

/// What the headline says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Below the evidence floor.
    TooLittle,
    /// No device op in the window.
    NoDeviceActivity,
    /// Idle time of one cause is the largest share to win back.
    Idle(IdleCause),
    /// Collectives with no compute under them.
    ExposedCommunication,
    /// Copies or sets with nothing else running.
    ExposedCopies,
    /// A diagnosis finding explains the largest share.
    Finding(DiagnosisKind),
    /// Busy, one kernel dominates: look inside it.
    DominantKernel,
    /// Busy, nothing large to win back.
    Healthy,
    /// A kernel table (no timeline): where the device time went, no idle time to judge.
    KernelTable,
    /// A utilization recording: its verdict (`prof util`'s).
    Utilization,
}

/// The next step the headline leads to.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Next {
    /// Capture again, longer and opening on the work.
    CaptureMore,
    /// Deep-dive the dominant kernel.
    DeepDive {
        /// Its full name.
        kernel: String,
        /// Its share of device time, percent.
        share_pct: f64,
    },
    /// Apply the remedy, capture again and compare the two with `prof diff`.
    ApplyAndCompare,
    /// See which kernels take the time (a utilization recording of a busy device).
    Breakdown,
    /// Nothing further to run: the answer is the report.
    Done,
}

/// How much the answer rests on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Evidence {
    /// Device ops in the window (all devices).
    pub ops: u64,
    /// Kernels among them.
    pub kernels: u64,
    /// Busy time of the device the account is of, ns.
    pub busy_ns: u64,
    /// Its wall time, ns.
    pub wall_ns: u64,
    /// Steps found, where the diagnosis found them.
    pub steps: Option<usize>,
    /// True when the window holds enough for a verdict ([`ENOUGH_OPS`], [`ENOUGH_STEPS`] or
    /// [`ENOUGH_BUSY_NS`]).
    pub enough: bool,
}

/// The answer of one window.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Answer {
    /// What the headline says.
    pub verdict: Verdict,
    /// The headline, one line.
    pub headline: String,
    /// The share of the wall time the headline is about, percent, where it is a share.
    pub share_pct: Option<f64>,
    /// What to do about it.
    pub remedy: Option<String>,
    /// The numbers behind the headline, one line.
    pub evidence_line: String,
    /// How much the answer rests on.
    pub evidence: Evidence,
    /// The next step.
    pub next: Next,
    /// The busiest device's time, accounted for (absent with no device op).
    pub account: Option<Account>,
}

impl Answer {
    /// True when the headline sends the user to a deep dive.
    pub fn deep_dive(&self) -> Option<(&str, f64)> {
        match &self.next {
            Next::DeepDive { kernel, share_pct } => Some((kernel, *share_pct)),
            _ => None,
        }
    }
}

/// What the answer is built from: the window's summary and diagnosis, and where there is a
/// timeline, the timeline with its idle gaps and launch statistics.
pub struct Inputs<'a> {
    /// The window's timeline (absent for a kernel table).
    pub timeline: Option<&'a Timeline>,
    /// Its kernel summary.
    pub summary: &'a KernelSummary,
    /// Its diagnosis (absent: not run).
    pub diagnosis: Option<&'a DiagnosisReport>,
    /// Its idle gaps ([`crate::analysis::gaps::idle_gaps`]).
    pub gaps: Option<&'a [DeviceGaps]>,
    /// Its launch statistics.
    pub launch: Option<&'a LaunchStats>,
}

/// The answer for `inputs`.
pub fn answer(inputs: &Inputs) -> Answer {
    let summary = inputs.summary;
    let device = summary.busiest_device();
    let account = device.map(|d| match inputs.timeline {
        Some(t) => account(t, summary, d, inputs.gaps.and_then(|g| g.iter().find(|g| g.device == d.device))),
        None => account_of_summary(summary, d),
    });
    let kernels = summary.kernels.iter().filter(|k| k.kind == OpKind::Kernel).map(|k| k.calls).sum();
    let evidence = Evidence {
        ops: summary.ops,
        kernels,
        busy_ns: account.as_ref().map_or(0, |a| a.busy_ns),
        wall_ns: account.as_ref().map_or(0, |a| a.wall_ns),
        steps: inputs.diagnosis.and_then(|d| d.steps.as_ref()).map(|s| s.count),
        enough: false,
    };
    let evidence = Evidence {
        enough: evidence.ops >= ENOUGH_OPS
            || evidence.steps.is_some_and(|s| s >= ENOUGH_STEPS)
            || evidence.busy_ns >= ENOUGH_BUSY_NS,
        ..evidence
    };
    let Some(account) = account.filter(|_| summary.ops > 0) else {
        if !summary.kernels.is_empty() {
            return words::kernel_table(summary, evidence);
        }
        return words::no_device(inputs.diagnosis, evidence);
    };
    if !evidence.enough {
        return words::too_little(account, evidence);
    }
    let mut candidates = words::idle_candidates(&account, inputs.launch, inputs.gaps);
    candidates.extend(words::exposed_candidates(&account, inputs.diagnosis));
    if let Some(diagnosis) = inputs.diagnosis {
        candidates.extend(finding_candidates(diagnosis, summary, &account));
    }
    let kernel = dominant(summary).filter(|_| account.busy_pct() >= DEEP_DIVE_MIN_BUSY_PCT);
    if let Some((_, share)) = kernel {
        candidates.push(Candidate {
            verdict: Verdict::DominantKernel,
            share_pct: share * account.busy_pct() / 100.0,
            headline: String::new(),
            remedy: None,
            evidence: String::new(),
        });
    }
    candidates.sort_by(|a, b| b.share_pct.total_cmp(&a.share_pct));
    match (candidates.into_iter().next().filter(|c| c.share_pct >= ADDRESSABLE_MIN_PCT), kernel) {
        (Some(top), Some((name, share))) if top.verdict == Verdict::DominantKernel => {
            words::dominant(name, share, account, evidence)
        }
        (Some(top), _) => words::from_candidate(top, account, evidence),
        (None, _) => words::healthy(summary, account, evidence),
    }
}

/// The answer of a utilization recording (`prof util --csv`): its own verdict, which has no
/// kernels to rank; a busy device leads to the breakdown.
pub fn of_utilization(verdict: &crate::util_verdict::Verdict) -> Answer {
    words::utilization(verdict)
}

/// A headline candidate: a share of the wall time with what it is and what to do.
pub(crate) struct Candidate {
    pub(crate) verdict: Verdict,
    pub(crate) share_pct: f64,
    pub(crate) headline: String,
    pub(crate) remedy: Option<String>,
    pub(crate) evidence: String,
}

/// The diagnosis' warnings and opportunities that say how much device time they are about,
/// as shares of the wall time (their share of device time × the busy share).
fn finding_candidates(diagnosis: &DiagnosisReport, summary: &KernelSummary, account: &Account) -> Vec<Candidate> {
    let busy_share = account.busy_pct() / 100.0;
    diagnosis
        .findings
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .filter_map(|d| {
            let ns = d.device_ns?;
            let share_pct = ns as f64 * 100.0 / summary.device_ns.max(1) as f64 * busy_share;
            Some(Candidate {
                verdict: Verdict::Finding(d.kind),
                share_pct,
                headline: d.headline.clone(),
                remedy: None,
                evidence: d.evidence.first().cloned().unwrap_or_default(),
            })
        })
        .collect()
}

/// The top compute kernel when it dominates: at least [`DOMINANT_SHARE_PCT`] % of device
/// time and [`DOMINANT_RATIO`]× the next compute kernel (copies, sets and collectives cannot
/// be replayed by a kernel profiler).
pub fn dominant(summary: &KernelSummary) -> Option<(&str, f64)> {
    let mut compute = summary.kernels.iter().filter(|k| k.kind == OpKind::Kernel && k.family != Family::Collective);
    let top = compute.next()?;
    let second = compute.next().map_or(0, |k| k.total_ns);
    let dominant = top.share_pct >= DOMINANT_SHARE_PCT && top.total_ns as f64 >= DOMINANT_RATIO * second as f64;
    dominant.then_some((top.name.as_str(), top.share_pct))
}

#[cfg(test)]
mod tests;
