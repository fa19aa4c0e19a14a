//! Putting a loaded timeline's ops in start order without holding them one and a half times.
//!
//! The standard library's stable sort takes a buffer of half the slice (200 MB for 10 M ops),
//! which was the peak of every source read table by table: an nsys export lists its kernels,
//! then its copies, then its sets, each table in start order or nearly. Such a list is a few
//! ascending runs; merging neighbouring runs needs a buffer only the size of the shorter one
//! (a handful of copies beside 10 M kernels: a few bytes). Lists of many runs are sorted by the
//! standard library.

use crate::device_op::DeviceOp;

/// More ascending runs than this and the ops are sorted by the standard library.
const MAX_RUNS: usize = 64;

/// Sorts `ops` by start, stably (ops that start together keep their order).
pub(crate) fn sort_by_start(ops: &mut [DeviceOp]) {
    let mut runs = vec![0];
    let mut many = false;
    for (i, pair) in ops.windows(2).enumerate() {
        if pair[1].start_ns < pair[0].start_ns {
            if runs.len() == MAX_RUNS {
                many = true;
                break;
            }
            runs.push(i + 1);
        }
    }
    if many {
        ops.sort_by_key(|op| op.start_ns);
        return;
    }
    runs.push(ops.len());
    // Merge neighbouring runs pairwise until one is left.
    while runs.len() > 2 {
        let mut merged = vec![0];
        for pair in runs.windows(3).step_by(2) {
            merge(ops, pair[0], pair[1], pair[2]);
            merged.push(pair[2]);
        }
        if runs.len() % 2 == 0 {
            merged.push(ops.len());
        }
        runs = merged;
    }
}

/// Merges the ascending runs `ops[start..mid]` and `ops[mid..end]`, stably, through a copy of
/// the shorter one.
fn merge(ops: &mut [DeviceOp], start: usize, mid: usize, end: usize) {
    if mid == start || mid == end || ops[mid - 1].start_ns <= ops[mid].start_ns {
        return;
    }
    let (left_len, right_len) = (mid - start, end - mid);
    if left_len.min(right_len).saturating_mul(GALLOP_RATIO) < left_len.max(right_len) {
        return merge_short(ops, start, mid, end);
    }
    if left_len <= right_len {
        // Forward: the left run from the copy, the right in place; the write position never
        // passes the right run's read position.
        let left = ops[start..mid].to_vec();
        let (mut l, mut r, mut out) = (0, mid, start);
        while l < left.len() {
            if r < end && ops[r].start_ns < left[l].start_ns {
                ops[out] = ops[r];
                r += 1;
            } else {
                ops[out] = left[l];
                l += 1;
            }
            out += 1;
        }
    } else {
        // Backward: the right run from the copy, the left in place, from the ends.
        let right = ops[mid..end].to_vec();
        let (mut l, mut r, mut out) = (mid, right.len(), end);
        while r > 0 {
            out -= 1;
            if l > start && ops[l - 1].start_ns > right[r - 1].start_ns {
                ops[out] = ops[l - 1];
                l -= 1;
            } else {
                ops[out] = right[r - 1];
                r -= 1;
            }
        }
    }
}

/// A run this many times shorter than the other is merged by [`merge_short`].
const GALLOP_RATIO: usize = 16;

/// [`merge`] of a short run into a long one (the copies after 10 M kernels): each op of the
/// short run finds its place in the long one by binary search, and the long run's ops between
/// two places move as one block (a memmove, not an op at a time with a comparison each).
fn merge_short(ops: &mut [DeviceOp], start: usize, mid: usize, end: usize) {
    if mid - start <= end - mid {
        // The left run is short: forward, each of its ops after the right run's earlier ones.
        let left = ops[start..mid].to_vec();
        let (mut out, mut right) = (start, mid);
        for op in left {
            let before = right + ops[right..end].partition_point(|r| r.start_ns < op.start_ns);
            ops.copy_within(right..before, out);
            out += before - right;
            ops[out] = op;
            out += 1;
            right = before;
        }
    } else {
        // The right run is short: backward, each of its ops after the left run's ties.
        let right = ops[mid..end].to_vec();
        let (mut out, mut left) = (end, mid);
        for op in right.into_iter().rev() {
            let after = start + ops[start..left].partition_point(|l| l.start_ns <= op.start_ns);
            out -= left - after;
            ops.copy_within(after..left, out);
            out -= 1;
            ops[out] = op;
            left = after;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intern::NameId;
    use crate::timeline::OpKind;

    fn op(start: u64, tag: u32) -> DeviceOp {
        DeviceOp::new(OpKind::Kernel, NameId(tag), 0, 0, start, 1)
    }

    fn check(starts: &[u64]) {
        let ops: Vec<DeviceOp> = starts.iter().enumerate().map(|(i, &s)| op(s, i as u32)).collect();
        let mut want = ops.clone();
        want.sort_by_key(|op| op.start_ns);
        let mut got = ops;
        sort_by_start(&mut got);
        // The tags (source positions) say whether ties kept their order.
        let tags = |v: &[DeviceOp]| v.iter().map(|op| (op.start_ns, op.name().0)).collect::<Vec<_>>();
        assert_eq!(tags(&got), tags(&want), "{starts:?}");
    }

    #[test]
    fn sorts_as_the_stable_sort_does() {
        let mut rng = crate::test_random::XorShift::new(7);
        for _ in 0..400 {
            let len = rng.below(60) as usize;
            // Few runs (tables listed one after another), many runs, and many ties.
            let most_runs = if rng.below(2) == 0 { 4 } else { 100 };
            let runs = 1 + rng.below(most_runs) as usize;
            let widest = if rng.below(2) == 0 { 5 } else { 1000 };
            let span = 1 + rng.below(widest);
            let mut starts = Vec::with_capacity(len);
            for run in 0..runs {
                let mut part: Vec<u64> =
                    (0..len / runs + usize::from(run < len % runs)).map(|_| rng.below(span)).collect();
                part.sort_unstable();
                starts.extend(part);
            }
            check(&starts);
        }
        // A short run beside a long one, either way round, with ties across them.
        for (long, short) in [(300usize, 3usize), (500, 1), (200, 12), (1000, 40)] {
            let long_run: Vec<u64> = (0..long as u64).map(|i| i / 3).collect();
            let mut short_run: Vec<u64> = (0..short).map(|_| rng.below(long as u64 / 3 + 2)).collect();
            short_run.sort_unstable();
            check(&[long_run.clone(), short_run.clone()].concat());
            check(&[short_run.iter().map(|s| s + 5).collect(), long_run].concat());
        }
        check(&[]);
        check(&[5]);
        check(&[3, 3, 1, 1, 2, 2]);
        // More runs than MAX_RUNS: the standard library's sort.
        check(&(0..200).map(|i| 200 - i).collect::<Vec<_>>());
    }
}
