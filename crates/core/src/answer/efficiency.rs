//! The answer's view of the roofline ([`crate::roofline`]): time lost to inefficiency beside
//! time lost to idle, and which kernel a deep dive is worth. A dominant kernel that already runs
//! near its bound is not worth looking inside; the kernel with the most time lost against its
//! bound is, when that loss is large enough.

use super::model::{Answer, Next};
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

/// Reworks a dominant-kernel answer whose kernel runs near its bound: the headline says so,
/// and the deep dive goes to the kernel with the most time lost (when worth it), else nowhere.
pub(super) fn retarget(answer: &mut Answer, roofline: Option<&Roofline>, device_ns: u64) {
    let Some(r) = roofline.filter(|r| r.enough && r.peaks.is_some()) else { return };
    let Next::DeepDive { kernel, share_pct } = &answer.next else { return };
    let Some(efficiency) = r.kernel_efficiency(kernel) else { return };
    if efficiency < NEAR_BOUND_PCT {
        answer.headline = format!(
            "{}; it runs at {efficiency:.0} % of its roofline bound",
            answer.headline.trim_end_matches("; see why it is slow")
        );
        answer.headline.push_str(": see why it is slow");
        return;
    }
    let short = crate::diagnosis::short(kernel).to_owned();
    answer.headline = format!(
        "one kernel dominates a busy device: `{short}` takes {share_pct:.1} % of device time at {efficiency:.0} % \
         of its roofline bound: little to win inside it"
    );
    answer.remedy = Some(format!(
        "the time is the work itself: fewer or smaller calls of `{short}` (batching, a lower precision, less \
         recomputation) are the lever, not a faster kernel"
    ));
    let worst = r.kernels.iter().find(|(k, ..)| k != kernel);
    answer.next = match worst {
        Some((k, _, lost)) if *lost as f64 * 100.0 / device_ns.max(1) as f64 >= LOSS_DEEP_DIVE_PCT => {
            let share = *lost as f64 * 100.0 / device_ns.max(1) as f64;
            if let Some(remedy) = &mut answer.remedy {
                remedy.push_str(&format!(
                    "; the most time to win is in `{}`: {share:.1} % of device time above its roofline bound",
                    crate::diagnosis::short(k)
                ));
            }
            Next::DeepDive { kernel: k.clone(), share_pct: share }
        }
        _ => Next::Done,
    };
}
