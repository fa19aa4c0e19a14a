//! The growing-work form of the re-prefill rule: decode without a KV cache re-runs the whole
//! sequence every step, so the work each step launches grows with the sequence even where
//! the device time barely does (a small model on a large device runs 96 tokens as fast as
//! 33). Measured in launched thread blocks (grid x·y·z summed over a step's kernels), which
//! the source records for every launch and which no timing noise moves.
//!
//! Rule: at least [`super::REPREFILL_MIN_STEPS`] steps with grid sizes on at least half of
//! their kernels; the 90th percentile of blocks per step at least [`GROWTH_P90_P10`] × the
//! 10th; and the blocks grow from one step to the next in at least [`GROWING_PAIRS_PCT`] % of
//! consecutive steps (a run of several `generate` calls starts again at each call, a cached
//! decode's attention grows a little now and then, not step after step).

use super::steps::Steps;
use prof_timeline::timeline::{OpKind, Timeline};

/// Blocks per step, 90th over 10th percentile, from which the work grows.
pub(super) const GROWTH_P90_P10: f64 = 1.3;
/// Share of consecutive step pairs (percent) whose blocks must grow.
pub(super) const GROWING_PAIRS_PCT: f64 = 75.0;

/// What the launched blocks say about the steps.
pub(super) enum Work {
    /// Each step launches more than the one before: the evidence lines.
    Growing(Vec<String>),
    /// The grids are known and the work per step does not grow: step times that grow are
    /// noise (clocks, contention), not a longer sequence.
    Flat,
    /// Too few steps, or too few kernels with a grid, to tell.
    Unknown,
}

/// Whether each step launches more work than the one before.
pub(super) fn growing_work(timeline: &Timeline, steps: &Steps) -> Work {
    if steps.count < super::REPREFILL_MIN_STEPS {
        return Work::Unknown;
    }
    let mut blocks = vec![0u64; steps.count];
    let (mut kernels, mut with_grid) = (0usize, 0usize);
    for (op, step) in timeline.ops.iter().zip(steps.step_of(timeline).iter()) {
        let Some(step) = step else { continue };
        if op.kind() != OpKind::Kernel {
            continue;
        }
        kernels += 1;
        if let Some(grid) = timeline.details_of(op).and_then(|d| d.grid) {
            with_grid += 1;
            let n = grid.iter().map(|&g| u64::from(g)).fold(1u64, u64::saturating_mul);
            blocks[step as usize] = blocks[step as usize].saturating_add(n);
        }
    }
    if with_grid * 2 < kernels.max(1) {
        return Work::Unknown;
    }
    let growing = blocks.windows(2).filter(|w| w[1] > w[0]).count();
    let pairs = steps.count - 1;
    let mut sorted = blocks.clone();
    sorted.sort_unstable();
    let (p10, p90) = (sorted[sorted.len() / 10], sorted[sorted.len() * 9 / 10]);
    let ratio = p90 as f64 / p10.max(1) as f64;
    let share = growing as f64 * 100.0 / pairs as f64;
    if ratio < GROWTH_P90_P10 || share < GROWING_PAIRS_PCT {
        return Work::Flat;
    }
    Work::Growing(vec![
        format!("launched thread blocks per step: {p10} (10th percentile) → {p90} (90th), ×{ratio:.2}"),
        format!("{growing} of {pairs} consecutive steps launch more blocks than the step before ({share:.0} %)"),
    ])
}
