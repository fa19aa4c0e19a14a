//! Each phase's busy share (the union of the ops' intervals clipped to the phase, over its
//! length), in one pass over the ops in start order; a large run's ops in two halves on two
//! threads (the phases are found on one core while the other is idle at 10 M ops).

use super::Phase;
use prof_timeline::intervals::SortedUnion;
use prof_timeline::timeline::DeviceOp;

/// Fills each phase's `busy_pct` from the start-ordered `order`.
pub(super) fn busy_shares(order: &[DeviceOp], phases: &mut [Phase]) {
    busy_shares_split(order, phases, prof_timeline::two_threads::SPLIT_OPS);
}

/// [`busy_shares`], on two threads from `two_threads_ops` ops (a parameter for the tests).
pub(super) fn busy_shares_split(order: &[DeviceOp], phases: &mut [Phase], two_threads_ops: usize) {
    let bounds: Vec<(u64, u64)> = phases.iter().map(|p| (p.start_ns, p.end_ns)).collect();
    let last_end = bounds.iter().map(|&(_, end)| end).max().unwrap_or(0);
    // Only ops that start before the last phase ends can add to one (the ops are in order).
    let ops = &order[..order.partition_point(|op| op.start_ns < last_end)];
    let totals: Vec<u64> = if ops.len() < two_threads_ops.max(2) {
        unions(ops, &bounds).iter().map(|u| u.total_ns().unwrap_or(0)).collect()
    } else {
        let (first, second) = ops.split_at(ops.len() / 2);
        let (before, after) = prof_timeline::two_threads::both(|| unions(first, &bounds), || unions(second, &bounds));
        bounds
            .iter()
            .zip(before.iter().zip(&after))
            .map(|(&bound, (before, after))| {
                let both = before.total_ns().unwrap_or(0) + after.total_ns().unwrap_or(0);
                // Only the first half's last merged span can reach into the second half's
                // (every earlier one ended before it began, and the second half's ops start
                // after the first half's): what the second half covers of it counted twice.
                both.saturating_sub(before.open_span().map_or(0, |open| covered(second, bound, open)))
            })
            .collect()
    };
    for (phase, busy) in phases.iter_mut().zip(totals) {
        phase.busy_pct = super::pct(busy, phase.end_ns.saturating_sub(phase.start_ns));
    }
}

/// Per phase bound, the union of `ops`' intervals clipped to it (a clipped start never goes
/// back, so each union merges as the ops come).
fn unions(ops: &[DeviceOp], bounds: &[(u64, u64)]) -> Vec<SortedUnion> {
    let mut unions = vec![SortedUnion::default(); bounds.len()];
    for op in ops {
        for (&(start, end), union) in bounds.iter().zip(&mut unions) {
            union.add(op.start_ns.max(start), op.end_ns().min(end));
        }
    }
    unions
}

/// How much of `[lo, hi)` the intervals of `ops` (in start order, all starting at or after
/// `lo`) clipped to `bound` cover: read only up to the first op that starts at `hi` or later.
fn covered(ops: &[DeviceOp], (start, end): (u64, u64), (lo, hi): (u64, u64)) -> u64 {
    let mut union = SortedUnion::default();
    for op in ops.iter().take_while(|op| op.start_ns < hi) {
        union.add(op.start_ns.max(start).max(lo), op.end_ns().min(end).min(hi));
    }
    union.total_ns().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phases::PhaseKind;
    use prof_timeline::intern::NameId;
    use prof_timeline::test_random::XorShift;
    use prof_timeline::timeline::OpKind;

    fn phase(start_ns: u64, end_ns: u64) -> Phase {
        Phase {
            kind: PhaseKind::Steady,
            start_ns,
            end_ns,
            offset_ns: 0,
            ops: 0,
            busy_pct: 0.0,
            marks: String::new(),
            copied_bytes: None,
        }
    }

    /// On random ops (some long enough to span the split and several phases), the two-thread
    /// sums equal the one-thread ones and the union counted point by point.
    #[test]
    fn two_halves_sum_what_one_pass_and_the_plain_union_sum() {
        let mut rng = XorShift::new(0x0b05_7000_0000_0001);
        for round in 0..300 {
            let n = 2 + rng.below(60) as usize;
            let mut ops: Vec<DeviceOp> = (0..n)
                .map(|_| {
                    let dur = if rng.below(8) == 0 { rng.below(400) } else { rng.below(20) };
                    DeviceOp::new(OpKind::Kernel, NameId(0), 0, 7, rng.below(300), dur)
                })
                .collect();
            ops.sort_by_key(|op| op.start_ns);
            let mut cuts: Vec<u64> = (0..4).map(|_| rng.below(350)).collect();
            cuts.sort_unstable();
            let make =
                || vec![phase(cuts[0], cuts[1]), phase(cuts[1], cuts[2]), phase(cuts[2], cuts[3].max(cuts[2] + 1))];
            let (mut one, mut two) = (make(), make());
            busy_shares_split(&ops, &mut one, usize::MAX);
            busy_shares_split(&ops, &mut two, 2);
            for (k, (a, b)) in one.iter().zip(&two).enumerate() {
                // Point by point: each ns of the phase busy when some op holds it.
                let busy = (a.start_ns..a.end_ns)
                    .filter(|&t| ops.iter().any(|op| op.start_ns <= t && t < op.end_ns()))
                    .count() as u64;
                let want = crate::phases::pct(busy, a.end_ns - a.start_ns);
                assert_eq!(a.busy_pct, want, "round {round} phase {k}");
                assert_eq!(b.busy_pct, want, "round {round} phase {k} (two threads)");
            }
        }
    }
}
