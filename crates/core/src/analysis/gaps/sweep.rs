//! The sweep behind [`idle_gaps`](super::idle_gaps): the gaps of one set of ops fed in start
//! order, and the host spans inside the longest.

use super::{
    pct, CauseTotal, Gap, GapBucket, GapCause, GapStats, HostInGap, BUCKET_BOUNDS_NS, BUCKET_LABELS, CAUSES,
    HOST_SPANS_PER_GAP, KERNEL_WAIT_MAX_NS, STALL_MIN_NS,
};
use crate::analysis::launch::MAX_PLAUSIBLE_DELAY_NS;
use prof_timeline::launch_index::LaunchIndex;
use prof_timeline::timeline::{DeviceOp, HostSpan, Timeline};

/// A gap while the gaps are being measured: op indices, not names yet.
struct Found {
    start: u64,
    length: u64,
    before: usize,
    after: usize,
    cause: GapCause,
    launch_offset_ns: Option<i64>,
}

/// What every sweep of one timeline reads: its ops, the launch calls by correlation id, and
/// the framework ops and annotations in start order.
pub(super) struct Context<'a> {
    pub(super) timeline: &'a Timeline,
    /// [`Timeline::launch_index`].
    pub(super) launches: &'a LaunchIndex,
    pub(super) host: Vec<&'a HostSpan>,
}

/// The gaps of one set of ops fed in start order: the busy time is their union, merged as it
/// goes (an op starting past the furthest end so far opens a gap), so no interval list or
/// end-ordered copy is built. The op before a gap is the first in start order that reached the
/// furthest end (the one that ended where the gap starts); the op after it is the first that
/// starts where the gap ends. Only ops that take time are fed ([`idle_gaps`](super::idle_gaps)
/// leaves zero-length ops out).
pub(super) struct Sweep {
    /// Gaps listed (the longest), 0 for totals only (no host spans looked up).
    listed: usize,
    /// The first op's start, once one came.
    pub(super) first: Option<u64>,
    /// The furthest end so far and the first op (in start order) that reached it.
    reach: u64,
    reach_op: usize,
    /// (count, total ns) per length bucket and per cause.
    buckets: [(u64, u64); BUCKET_LABELS.len()],
    causes: [(u64, u64); CAUSES.len()],
    /// (count, total ns) of the stalls ([`STALL_MIN_NS`]) per cause.
    stalls: [(u64, u64); CAUSES.len()],
    /// The longest gaps so far, longest first (ties: earliest), at most `listed`.
    longest: Vec<Found>,
}

/// A stream's sweep: totals only.
impl Default for Sweep {
    fn default() -> Self {
        Sweep::new(0)
    }
}

impl Sweep {
    pub(super) fn new(listed: usize) -> Self {
        let empty = (0, 0);
        Sweep {
            listed,
            first: None,
            reach: 0,
            reach_op: 0,
            buckets: [empty; BUCKET_LABELS.len()],
            causes: [empty; CAUSES.len()],
            stalls: [empty; CAUSES.len()],
            longest: Vec::new(),
        }
    }

    /// The op `op`, at `after` (no earlier start than any op fed before). Most ops start
    /// inside the busy time so far: that is checked here, inline; a gap (or the first op) is
    /// measured apart.
    #[inline]
    pub(super) fn add(&mut self, context: &Context, after: usize, op: &DeviceOp) {
        if self.first.is_some() && op.start_ns <= self.reach {
            if op.end_ns() > self.reach {
                (self.reach, self.reach_op) = (op.end_ns(), after);
            }
            return;
        }
        self.open(context, after, op);
    }

    /// [`Sweep::add`] of the first op, or of one that starts past the busy time: a gap.
    #[inline(never)]
    fn open(&mut self, context: &Context, after: usize, op: &DeviceOp) {
        let (end, op_end) = (op.start_ns, op.end_ns());
        if self.first.is_none() {
            self.first = Some(end);
            (self.reach, self.reach_op) = (op_end, after);
            return;
        }
        if end <= self.reach {
            if op_end > self.reach {
                (self.reach, self.reach_op) = (op_end, after);
            }
            return;
        }
        let (start, before) = (self.reach, self.reach_op);
        (self.reach, self.reach_op) = (op_end, after);
        let length = end - start;
        let launch =
            op.correlation.get().and_then(|c| context.launches.get(c)).map(|i| context.timeline.host[i].start_ns);
        let launch = launch.filter(|&l| l <= end && end - l <= MAX_PLAUSIBLE_DELAY_NS);
        let cause = match launch {
            None => GapCause::Unknown,
            Some(l) if l >= start => GapCause::HostWait,
            Some(_) if length <= KERNEL_WAIT_MAX_NS => GapCause::KernelWait,
            Some(_) => GapCause::Dependency,
        };
        let bucket = BUCKET_BOUNDS_NS.iter().position(|&b| length < b).unwrap_or(BUCKET_BOUNDS_NS.len());
        let which = CAUSES.iter().position(|&c| c == cause).unwrap_or(3);
        let slots = [&mut self.buckets[bucket], &mut self.causes[which]];
        for slot in slots {
            slot.0 += 1;
            slot.1 += length;
        }
        if length >= STALL_MIN_NS {
            self.stalls[which].0 += 1;
            self.stalls[which].1 += length;
        }
        let listed = self.listed;
        if listed == 0 || self.longest.len() == listed && self.longest.last().is_some_and(|s| s.length >= length) {
            // Not longer than the shortest kept (and later: a tie loses to it).
            return;
        }
        let offset = launch.and_then(|l| i64::try_from(i128::from(l) - i128::from(start)).ok());
        let at = self.longest.partition_point(|kept| kept.length >= length);
        self.longest.insert(at, Found { start, length, before, after, cause, launch_offset_ns: offset });
        self.longest.truncate(listed);
    }

    /// The totals, and the longest gaps with their ops' names and host spans.
    pub(super) fn finish(self, context: &Context) -> GapStats {
        let ops = &context.timeline.ops;
        let first = self.first.unwrap_or(0);
        let largest = self
            .longest
            .into_iter()
            .map(|f| Gap {
                offset_ns: f.start - first,
                start_ns: f.start,
                length_ns: f.length,
                before: context.timeline.name(ops[f.before].name()).to_owned(),
                after: context.timeline.name(ops[f.after].name()).to_owned(),
                cause: f.cause,
                launch_offset_ns: f.launch_offset_ns,
                host: context.host_in(f.start, f.start + f.length),
            })
            .collect();
        let buckets: Vec<GapBucket> = BUCKET_LABELS
            .iter()
            .zip(self.buckets)
            .map(|(&label, (count, total_ns))| GapBucket { label, count, total_ns })
            .collect();
        let causes = CAUSES
            .iter()
            .zip(self.causes.into_iter().zip(self.stalls))
            .map(|(&cause, ((count, total_ns), (long_count, long_ns)))| CauseTotal {
                cause,
                count,
                total_ns,
                long_count,
                long_ns,
            })
            .collect();
        let total_ns: u64 = buckets.iter().map(|b| b.total_ns).sum();
        let wall_ns = self.first.map_or(0, |first| self.reach - first);
        GapStats {
            wall_ns,
            count: buckets.iter().map(|b| b.count).sum(),
            total_ns,
            idle_pct: pct(total_ns, wall_ns),
            buckets,
            causes,
            largest,
        }
    }
}

impl Context<'_> {
    /// Framework ops and annotations overlapping `[start, end)`.
    fn host_in(&self, start: u64, end: u64) -> Vec<HostInGap> {
        let upto = self.host.partition_point(|s| s.start_ns < end);
        let mut found: Vec<(u64, u64, &HostSpan)> = self.host[..upto]
            .iter()
            .filter_map(|s| {
                let overlap = (s.start_ns.saturating_add(s.dur_ns())).min(end).saturating_sub(s.start_ns.max(start));
                (overlap > 0).then_some((overlap, s.dur_ns(), *s))
            })
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let length = end - start;
        let innermost_containing = found.iter().position(|f| f.0 == length);
        found
            .into_iter()
            .enumerate()
            .filter(|(i, f)| f.0 < length || Some(*i) == innermost_containing)
            .map(|(_, f)| f)
            .take(HOST_SPANS_PER_GAP)
            .map(|(overlap_ns, _, s)| HostInGap {
                name: self.timeline.name(s.name).to_owned(),
                category: s.category,
                overlap_ns,
            })
            .collect()
    }
}
