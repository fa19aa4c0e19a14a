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
//! 3. **Nothing to win back**: the run is healthy, said in words with its largest families
//!    and its next lever (the smaller findings where some fired, else the top kernel).
//!
//! A source without a timeline answers with what it has: a kernel table (stats CSVs) with its
//! family split and no idle claim ([`Verdict::KernelTable`], or the dominant kernel's deep
//! dive), a `prof util --csv` recording with util's own verdict ([`of_utilization`]).
//!
//! A deep dive is suggested only by the dominant-kernel headline: never beside an idle or
//! finding headline, never below the floor. Where the source recorded shapes
//! ([`crate::roofline`]), the time the ops lost against their roofline bound stands beside the
//! idle time ([`Efficiency`]), and a dominant kernel already at [`NEAR_BOUND_PCT`] % of its
//! bound or more is not looked inside: the deep dive goes to the kernel with the most time lost
//! (at least [`LOSS_DEEP_DIVE_PCT`] % of device time), else nowhere.

mod account;
mod efficiency;
mod model;
mod retarget;
mod words;

pub use account::{account, account_of_summary, Account, AccountPart, IdleCause, Part};
pub use efficiency::{Efficiency, LOSS_DEEP_DIVE_PCT, NEAR_BOUND_PCT};
pub use model::{Answer, Evidence, Next, Verdict};
pub use model::{ADDRESSABLE_MIN_PCT, DEEP_DIVE_MIN_BUSY_PCT, DOMINANT_RATIO, DOMINANT_SHARE_PCT};
pub use model::{ENOUGH_BUSY_NS, ENOUGH_OPS, ENOUGH_STEPS};
pub use words::dominant;

use crate::analysis::gaps::DeviceGaps;
use crate::analysis::launch::LaunchStats;
use crate::deepdive::Severity;
use crate::diagnosis::DiagnosisReport;
use crate::kernel_summary::KernelSummary;
use model::Candidate;
use prof_timeline::timeline::{OpKind, Timeline};

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
    /// How close to their roofline bound its ops ran, where the source recorded shapes.
    pub roofline: Option<&'a crate::roofline::Roofline>,
}

impl<'a> Inputs<'a> {
    /// A kernel table alone: no timeline, diagnosis, gaps, launches or roofline (its idle time
    /// is unexplained).
    pub fn of_summary(summary: &'a KernelSummary) -> Self {
        Inputs { timeline: None, summary, diagnosis: None, gaps: None, launch: None, roofline: None }
    }
}

/// The answer for `inputs`, with the time its ops lost against their roofline bound beside
/// its idle time; a dominant kernel already near its bound is not sent to a deep dive.
pub fn answer(inputs: &Inputs) -> Answer {
    let mut answer = answer_of(inputs);
    if answer.evidence.enough {
        answer.efficiency = efficiency::of(inputs.roofline);
        retarget::retarget(&mut answer, inputs.roofline, inputs.summary.device_ns);
    }
    answer
}

fn answer_of(inputs: &Inputs) -> Answer {
    let summary = inputs.summary;
    let device = summary.busiest_device();
    let account = device.map(|d| match inputs.timeline {
        Some(t) => account(t, summary, d, inputs.gaps.and_then(|g| g.iter().find(|g| g.device == d.device))),
        None => account_of_summary(summary, d),
    });
    let busy_ns = account.as_ref().map_or(0, |a| a.busy_ns);
    // Steps as the phases would call them: not three launches of a setup kernel.
    let steps = inputs.diagnosis.and_then(|d| d.steps.as_ref()).filter(|s| s.firm()).map(|s| s.count);
    let evidence = Evidence {
        ops: summary.ops,
        kernels: summary.kernels.iter().filter(|k| k.kind == OpKind::Kernel).map(|k| k.calls).sum(),
        busy_ns,
        wall_ns: account.as_ref().map_or(0, |a| a.wall_ns),
        steps,
        enough: summary.ops >= ENOUGH_OPS || steps.is_some_and(|s| s >= ENOUGH_STEPS) || busy_ns >= ENOUGH_BUSY_NS,
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
            words::dominant_answer(name, share, account, evidence)
        }
        (Some(top), _) => words::from_candidate(top, account, evidence),
        (None, _) => words::healthy(summary, inputs.diagnosis, account, evidence),
    }
}

/// The answer of a utilization recording (`prof util --csv`): its own verdict, which has no
/// kernels to rank; a busy device leads to the breakdown.
pub fn of_utilization(verdict: &crate::util_verdict::Verdict) -> Answer {
    words::utilization(verdict)
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

#[cfg(test)]
mod tests;
