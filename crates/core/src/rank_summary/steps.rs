//! The steps of a rank as device-time windows, whatever found them.

use crate::diagnosis::steps::segment_with;
use crate::Timeline;

/// `[start, end)` of each step's device work (first op start to last op end among the ops of
/// that step), in step order; empty when no steps are found.
pub(super) fn step_windows(timeline: &Timeline) -> Vec<(u64, u64)> {
    let Some(steps) = segment_with(timeline, None) else { return Vec::new() };
    let mut windows = vec![(u64::MAX, 0u64); steps.count];
    for (op, step) in timeline.ops.iter().zip(steps.step_of(timeline).iter()) {
        if let Some(window) = step.and_then(|k| windows.get_mut(k as usize)) {
            window.0 = window.0.min(op.start_ns);
            window.1 = window.1.max(op.start_ns + op.dur_ns());
        }
    }
    windows.retain(|w| w.0 < w.1);
    windows
}
