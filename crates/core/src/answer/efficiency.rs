//! The answer's view of the roofline ([`crate::roofline`]): time lost to inefficiency beside
//! time lost to idle ([`Efficiency`]), and the thresholds by which a deep dive is worth it
//! (the answer is reworked by `super::retarget`).

use crate::roofline::Roofline;
use serde::Serialize;

/// A kernel at this share of its roofline bound or more has little to win inside it, percent.
pub const NEAR_BOUND_PCT: f64 = 70.0;
/// A kernel is worth a deep dive for its loss when that loss is at least this share of the
/// device time, percent.
pub const LOSS_DEEP_DIVE_PCT: f64 = 5.0;

/// Time above the roofline bound, beside the idle time of the account.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Efficiency {
    /// Kernel time of the calls with recorded shapes a model covers, ns.
    pub covered_ns: u64,
    /// Their share of all kernel time, percent.
    pub covered_pct: f64,
    /// Their roofline time on this device, ns.
    pub bound_ns: u64,
    /// Time above the bound, ns: what faster kernels could win back.
    pub lost_ns: u64,
    /// bound ÷ covered time, percent.
    pub efficiency_pct: f64,
    /// The accelerator whose peaks were used.
    pub device: String,
    /// Calls it rests on.
    pub calls: u64,
}

/// The answer's efficiency line, where the roofline has peaks and enough calls.
pub(super) fn of(roofline: Option<&Roofline>) -> Option<Efficiency> {
    let r = roofline.filter(|r| r.enough)?;
    let peaks = r.peaks?;
    Some(Efficiency {
        covered_ns: r.covered_ns,
        covered_pct: r.covered_ns as f64 * 100.0 / r.kernel_ns.max(1) as f64,
        bound_ns: r.bound_ns?,
        lost_ns: r.lost_ns?,
        efficiency_pct: r.efficiency_pct?,
        device: peaks.name.to_owned(),
        calls: r.calls,
    })
}
