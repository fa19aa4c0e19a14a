//! The marks a run's phases are cut at and described by: where a leading burst of
//! host-to-device copies (a model load) ends, and which kernels of the warm-up never run
//! again.

use super::is_host_to_device;
use crate::diagnosis::short;
use prof_timeline::intern::{FxHashMap, NameId};
use prof_timeline::timeline::{DeviceOp, OpKind, Timeline};

/// Kernels in a row with no host-to-device copy that end a leading burst of copies.
pub(crate) const BURST_END_KERNELS: usize = 50;

/// Without steps: the end of the last host-to-device copy of the leading burst (copies with
/// fewer than [`BURST_END_KERNELS`] kernels in a row between them), if the run starts with one.
pub(super) fn leading_burst_end(timeline: &Timeline, order: &[DeviceOp]) -> Option<u64> {
    let (mut last_copy_end, mut kernels_since) = (None, 0usize);
    for op in order {
        if op.kind() == OpKind::Memcpy && is_host_to_device(timeline.name(op.name())) {
            last_copy_end = Some(last_copy_end.unwrap_or(0).max(op.end_ns()));
            kernels_since = 0;
        } else if op.kind() == OpKind::Kernel {
            kernels_since += 1;
            if kernels_since >= BURST_END_KERNELS {
                break;
            }
        }
    }
    last_copy_end
}

/// Kernel-name parts (lower case) that only a compiler's autotuner launches: XLA's
/// `stream_executor::gpu::RedzoneAllocatorKernelImpl` (out-of-bounds checks around each
/// candidate), `…::xla_fp_comparison` (candidates' results compared) and `…::DelayKernel`
/// (holds the stream while candidates are queued), seen in the H100 zoo's JAX captures.
pub(crate) const AUTOTUNER_MARKS: [&str; 3] = ["redzoneallocatorkernel", "xla_fp_comparison", "delaykernel"];

/// The end of the last autotuner kernel ([`AUTOTUNER_MARKS`], under `stream_executor::`), if
/// any ran and ops follow it.
pub(super) fn autotune_end(timeline: &Timeline, order: &[DeviceOp]) -> Option<u64> {
    // The tuner's names, from the timeline's names (a few hundred) rather than from each op.
    let mut tuner = NameSet::of(timeline, &[]);
    let mut any = false;
    for (id, name) in timeline.names.iter().enumerate() {
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("stream_executor::") && AUTOTUNER_MARKS.iter().any(|m| lower.contains(m)) {
            tuner.insert(NameId(id as u32));
            any = true;
        }
    }
    if !any {
        return None;
    }
    let is_tuner = |op: &&DeviceOp| op.kind() == OpKind::Kernel && tuner.has(op.name());
    let end = order.iter().filter(is_tuner).map(DeviceOp::end_ns).max()?;
    order.iter().any(|op| op.start_ns >= end).then_some(end)
}

/// What the warm-up holds, and how many kernel names in it never run in the steady state.
pub(super) fn warmup_marks(
    timeline: &Timeline,
    order: &[DeviceOp],
    from: u64,
    to: u64,
    steady_end: u64,
) -> (String, usize) {
    let mut steady = NameSet::of(timeline, &[]);
    let mut warm: Vec<(NameId, u64)> = Vec::new();
    let mut ops = 0usize;
    for op in order {
        if (to..steady_end).contains(&{ op.start_ns }) {
            steady.insert(op.name());
        } else if (from..to).contains(&{ op.start_ns }) {
            ops += 1;
            if op.kind() == OpKind::Kernel {
                warm.push((op.name(), op.dur_ns()));
            }
        }
    }
    let mut one_off: FxHashMap<NameId, u64> = FxHashMap::default();
    for (name, dur) in warm.into_iter().filter(|(n, _)| !steady.has(*n)) {
        *one_off.entry(name).or_default() += dur;
    }
    let mut top: Vec<(NameId, u64)> = one_off.iter().map(|(&n, &d)| (n, d)).collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let lead = top.first().map(|&(n, _)| format!("; most time: `{}`", short(timeline.name(n)))).unwrap_or_default();
    (format!("{ops} ops, {} kernels that never run in the steady state{lead}", one_off.len()), one_off.len())
}

/// A set of a timeline's names, one flag per name id (ids are dense): millions of ops are
/// marked without hashing.
pub(super) struct NameSet(Vec<bool>);

impl NameSet {
    /// The names of `ops`, in a set sized for every name of `timeline` (a run of millions of
    /// ops marked in two halves on two threads).
    pub(super) fn of(timeline: &Timeline, ops: &[DeviceOp]) -> Self {
        let one = |ops: &[DeviceOp]| {
            let mut set = NameSet(vec![false; timeline.names.len()]);
            ops.iter().for_each(|op| set.insert(op.name()));
            set
        };
        if ops.len() < prof_timeline::two_threads::SPLIT_OPS {
            return one(ops);
        }
        let (first, second) = ops.split_at(ops.len() / 2);
        let (mut set, other) = prof_timeline::two_threads::both(|| one(first), || one(second));
        for name in other.0.iter().enumerate().filter(|(_, &has)| has).map(|(at, _)| at) {
            set.insert(NameId(name as u32));
        }
        set
    }

    pub(super) fn insert(&mut self, name: NameId) {
        let slot = name.0 as usize;
        if slot >= self.0.len() {
            self.0.resize(slot + 1, false);
        }
        self.0[slot] = true;
    }

    pub(super) fn has(&self, name: NameId) -> bool {
        self.0.get(name.0 as usize).copied().unwrap_or(false)
    }
}
