//! The steps of the regions where an op sequence repeats, as time spans, read in one walk of
//! the main stream (a run of millions of steps holds no list of their positions).

use crate::analysis::main_stream::{MainStream, Ops};
use prof_timeline::timeline::DeviceOp;

/// The `[start, end)` of every step of `regions` (first op index, repeats) of period `p`,
/// from the stream's `ops` in order: step k of a region of r starts at s + k·p and ends where
/// step k + 1 starts; the last one ends at the latest end of its ops. A region may begin
/// inside the previous one's last step (a region ends a period after its last match, the
/// next begins a few mismatches after it), so that step's ops are followed until it ends
/// while the next region's steps begin; the steps' starts still come in order.
pub(crate) fn region_step_spans<'a>(
    regions: &[(usize, usize)],
    p: usize,
    ops: impl Iterator<Item = &'a DeviceOp>,
) -> Vec<(u64, u64)> {
    let mut spans: Vec<(u64, u64)> = Vec::with_capacity(regions.iter().map(|&(_, r)| r).sum());
    let mut starts = regions.iter().flat_map(|&(s, r)| (0..r).map(move |k| (s + k * p, k, r))).peekable();
    // The last step of a region being followed: (first position past it, its index).
    let mut last_step: Option<(usize, usize)> = None;
    for (at, op) in ops.enumerate() {
        if let Some((_, k, r)) = starts.next_if(|&(position, _, _)| position == at) {
            if let Some(previous) = spans.last_mut().filter(|_| k > 0) {
                previous.1 = op.start_ns;
            }
            spans.push((op.start_ns, 0));
            if k + 1 == r {
                last_step = Some((at + p, spans.len() - 1));
            }
        }
        match last_step {
            Some((end, index)) if at < end => spans[index].1 = spans[index].1.max(op.end_ns()),
            _ => last_step = None,
        }
    }
    spans
}

/// How many ops of `main` start at or after the first step's start, and how many start inside
/// a step (`spans` in start order, not overlapping): in one walk, on two threads for a long
/// stream. The ops are in start order: the step that may hold each is found by moving a
/// cursor, from a binary search at the first op of each half.
pub(crate) fn step_coverage(main: &MainStream, spans: &[(u64, u64)]) -> (usize, usize) {
    step_coverage_split(main, spans, prof_timeline::two_threads::SPLIT_OPS)
}

/// [`step_coverage`], on two threads from `two_threads_ops` stream ops (for the tests).
fn step_coverage_split(main: &MainStream, spans: &[(u64, u64)], two_threads_ops: usize) -> (usize, usize) {
    let first = spans.first().map_or(u64::MAX, |&(start, _)| start);
    let count = |ops: Ops| {
        let (mut after, mut inside, mut cursor) = (0usize, 0usize, None);
        for op in ops {
            after += usize::from(op.start_ns >= first);
            let at = cursor.get_or_insert_with(|| spans.partition_point(|&(s, _)| s <= op.start_ns));
            while spans.get(*at).is_some_and(|&(s, _)| s <= op.start_ns) {
                *at += 1;
            }
            inside += usize::from(*at > 0 && op.start_ns < spans[*at - 1].1);
        }
        (after, inside)
    };
    if main.len() < two_threads_ops {
        return count(main.ops());
    }
    let [first_half, second_half] = main.halves();
    let ((after, inside), (more_after, more_inside)) =
        prof_timeline::two_threads::both(|| count(first_half), || count(second_half));
    (after + more_after, inside + more_inside)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On random streams among other streams' ops, in order or not, and random steps: the
    /// counts of one walk, of two halves, and of each op looked up on its own agree.
    #[test]
    fn coverage_in_two_halves_is_the_coverage_of_each_op() {
        let mut rng = XorShift::new(0x5eed_0000_0000_0c0f);
        for round in 0..200 {
            let mut ops: Vec<DeviceOp> = (0..2 + rng.below(80))
                .map(|_| DeviceOp::new(OpKind::Kernel, NameId(0), 0, 7 + rng.below(2), rng.below(500), rng.below(30)))
                .collect();
            if round % 2 == 0 {
                ops.sort_by_key(|op| op.start_ns);
            }
            let mut spans = Vec::new();
            let mut at = rng.below(100);
            for _ in 0..rng.below(6) {
                let len = 1 + rng.below(60);
                spans.push((at, at + len));
                at += len + rng.below(40);
            }
            let main = MainStream::on(&ops, 0, 7, ops.len());
            let stream: Vec<&DeviceOp> = main.ops().collect();
            let first = spans.first().map_or(u64::MAX, |&(s, _)| s);
            let after = stream.iter().filter(|op| op.start_ns >= first).count();
            let inside =
                stream.iter().filter(|op| spans.iter().any(|&(s, e)| s <= op.start_ns && op.start_ns < e)).count();
            assert_eq!(step_coverage_split(&main, &spans, usize::MAX), (after, inside), "round {round}");
            assert_eq!(step_coverage_split(&main, &spans, 2), (after, inside), "round {round} (two threads)");
        }
    }
    use prof_timeline::intern::NameId;
    use prof_timeline::test_random::XorShift;
    use prof_timeline::timeline::OpKind;

    /// The spans by the rule read position by position: step k of a region starts at the op
    /// at s + k·p and ends at the next step's start, the last one at the latest end of the ops
    /// s + (r - 1)·p .. s + r·p.
    fn by_positions(ops: &[DeviceOp], regions: &[(usize, usize)], p: usize) -> Vec<(u64, u64)> {
        let mut spans = Vec::new();
        for &(s, r) in regions {
            for k in 0..r {
                let start = ops[s + k * p].start_ns;
                let end = if k + 1 == r {
                    ops[s + k * p..s + r * p].iter().map(DeviceOp::end_ns).max().unwrap_or(0)
                } else {
                    ops[s + (k + 1) * p].start_ns
                };
                spans.push((start, end));
            }
        }
        spans
    }

    /// Regions apart, back to back and beginning inside the last step of the one before (as
    /// the repeat search finds them: a region ends a period after its last match), with ops
    /// that overlap: the walk gives the spans of the rule.
    #[test]
    fn walked_spans_are_the_spans_of_the_positions_also_when_regions_overlap() {
        let mut rng = XorShift::new(0x5eed_0000_0000_0042);
        for round in 0..200 {
            let p = 1 + rng.below(12) as usize;
            let mut regions = Vec::new();
            let mut at = rng.below(5) as usize;
            for _ in 0..1 + rng.below(6) {
                let r = 2 + rng.below(5) as usize;
                regions.push((at, r));
                // The next region: inside this one's last step, right after it, or later.
                let end = at + r * p;
                at = match rng.below(3) {
                    0 => end - rng.below(p as u64) as usize,
                    1 => end,
                    _ => end + 1 + rng.below(20) as usize,
                }
                .max(at + (r - 1) * p + 1);
            }
            let len = regions.last().map_or(0, |&(s, r)| s + r * p) + rng.below(4) as usize;
            let mut start = 0;
            let ops: Vec<DeviceOp> = (0..len)
                .map(|_| {
                    start += rng.below(50);
                    DeviceOp::new(OpKind::Kernel, NameId(0), 0, 0, start, rng.below(200))
                })
                .collect();
            let walked = regions.last().map_or(0, |&(s, r)| s + r * p);
            assert_eq!(
                region_step_spans(&regions, p, ops.iter().take(walked)),
                by_positions(&ops, &regions, p),
                "round {round}, period {p}, regions {regions:?}"
            );
        }
    }
}
