//! The answer's data: what it says ([`Verdict`], [`Next`]), how much it rests on
//! ([`Evidence`]), the document itself ([`Answer`]) and the floors and thresholds its rules use.

use super::account::{Account, IdleCause};
use crate::diagnosis::DiagnosisKind;
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
    /// Time its ops lost against their roofline bound, where the source recorded shapes and the
    /// device's peaks are known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<super::efficiency::Efficiency>,
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

/// A headline candidate: a share of the wall time with what it is and what to do.
pub(crate) struct Candidate {
    pub(crate) verdict: Verdict,
    pub(crate) share_pct: f64,
    pub(crate) headline: String,
    pub(crate) remedy: Option<String>,
    pub(crate) evidence: String,
}
