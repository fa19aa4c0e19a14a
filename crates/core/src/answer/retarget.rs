//! Which kernel a deep dive is worth, by the roofline: a dominant kernel that already runs near
//! its bound is not worth looking inside; the kernel with the most time lost against its bound
//! is, when that loss is large enough ([`super::efficiency`]'s thresholds).

use super::efficiency::{LOSS_DEEP_DIVE_PCT, NEAR_BOUND_PCT};
use super::model::{Answer, Next};
use crate::roofline::Roofline;

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
