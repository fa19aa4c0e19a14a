//! Temporal breakdown: how each device's wall time splits into compute, communication,
//! memory traffic and idle (HolisticTraceAnalysis' "temporal breakdown", msprof-analyze's
//! step split). The shares are exclusive and sum to the wall time: where work overlaps,
//! compute wins over communication, which wins over memory traffic, which wins over other
//! device work; what remains is idle. Overlap itself is [`overlap`](super::overlap)'s job.

use super::intervals::{IntervalSet, SortedUnion};
use crate::families::{Families, Family};
use prof_timeline::intern::FxHashMap;
use prof_timeline::timeline::{DeviceOp, OpKind, Timeline};
use serde::Serialize;
use std::cell::Cell;

/// What a device op counts as in the temporal breakdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Activity {
    /// Compute kernels (every kernel that is not a collective).
    Compute,
    /// Collectives and point-to-point transfers (NCCL/RCCL/HCCL kernels or ops).
    Communication,
    /// Memory copies and sets.
    Memory,
    /// Other device work (markers, synchronisation, tasks the source does not type).
    Other,
}

/// The activity of the op at each index of `timeline.ops`, decided once per kernel name with
/// the family table (as the first op of that name, in the timeline's order, is classified: its
/// type, where the source gives one, can decide). Read as the ops are walked: no table of an
/// activity per op is built (10 MB at 10 M ops, once for each of four analyses).
pub(crate) fn activity_of<'a>(timeline: &'a Timeline, families: &'a Families) -> impl Fn(usize) -> Activity + 'a {
    activity_of_ops(timeline, &timeline.ops, families)
}

/// [`activity_of`] of `ops`, some of `timeline`'s ops in its order (those a cut of it would
/// keep): `index` counts in `ops`, and each name's activity is its first op's there.
pub(crate) fn activity_of_ops<'a>(
    timeline: &'a Timeline,
    ops: &'a [DeviceOp],
    families: &'a Families,
) -> impl Fn(usize) -> Activity + 'a {
    let activities = Activities { timeline, ops, families, kernels: vec![Cell::new(None); timeline.names.len()] };
    // Without op types a kernel's name alone decides, so a name is classified when it is first
    // asked about; with them, by the first op of each name in order, asked about here.
    if timeline.details_pool().any(|d| d.op_type.is_some()) {
        (0..ops.len()).for_each(|index| {
            activities.of(index);
        });
    }
    move |index| activities.of(index)
}

/// [`activity_of`]'s state: each kernel name's activity once decided.
struct Activities<'a> {
    timeline: &'a Timeline,
    ops: &'a [DeviceOp],
    families: &'a Families,
    kernels: Vec<Cell<Option<Activity>>>,
}

impl Activities<'_> {
    /// The activity of the op at `index`.
    #[inline(always)]
    fn of(&self, index: usize) -> Activity {
        let op = &self.ops[index];
        match op.kind() {
            OpKind::Memcpy | OpKind::Memset => Activity::Memory,
            OpKind::Communication => Activity::Communication,
            OpKind::Other => Activity::Other,
            OpKind::Kernel => match self.kernels.get(op.name().0 as usize).and_then(Cell::get) {
                Some(known) => known,
                None => self.first(op),
            },
        }
    }

    /// The activity of kernel `op`, whose name was not decided yet: decided and kept.
    #[cold]
    #[inline(never)]
    fn first(&self, op: &DeviceOp) -> Activity {
        let activity = self.classify(op);
        if let Some(slot) = self.kernels.get(op.name().0 as usize) {
            slot.set(Some(activity));
        }
        activity
    }

    /// The activity of kernel `op` by the family table.
    fn classify(&self, op: &DeviceOp) -> Activity {
        let timeline = self.timeline;
        let op_type = timeline.details_of(op).and_then(|d| d.op_type).map(|t| timeline.name(t));
        match self.families.classify_op(op.kind(), timeline.name(op.name()), op_type) {
            Family::Collective => Activity::Communication,
            Family::Memcpy | Family::Memset => Activity::Memory,
            _ => Activity::Compute,
        }
    }
}

/// One device's wall time, split.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviceTemporal {
    /// Device index.
    pub device: u32,
    /// First op start to last op end on this device, ns.
    pub wall_ns: u64,
    /// Time some compute kernel ran, ns.
    pub compute_ns: u64,
    /// Time communication ran and no compute did, ns.
    pub communication_ns: u64,
    /// Time memory traffic ran and neither compute nor communication did, ns.
    pub memory_ns: u64,
    /// Time only other device work ran, ns.
    pub other_ns: u64,
    /// Time nothing ran, ns.
    pub idle_ns: u64,
    /// Ops on this device.
    pub ops: u64,
}

impl DeviceTemporal {
    /// `ns` as a percentage of the wall time (0 for an empty wall).
    pub fn share_pct(&self, ns: u64) -> f64 {
        if self.wall_ns == 0 {
            0.0
        } else {
            ns as f64 * 100.0 / self.wall_ns as f64
        }
    }
}

/// The temporal breakdown of every device of `timeline`, by device index.
pub fn temporal_breakdown(timeline: &Timeline, families: &Families) -> Vec<DeviceTemporal> {
    let activity = activity_of(timeline, families);
    let slot_of = |index: usize| match activity(index) {
        Activity::Compute => 0,
        Activity::Communication => 1,
        Activity::Memory => 2,
        Activity::Other => 3,
    };
    // Ops in start order (as most sources write them): per device the unions of compute, of
    // compute + communication, of those + memory and of all, merged on the fly.
    // Ops of one device come in runs: the device is looked up when it changes.
    let mut on_the_fly: prof_timeline::run_map::RunMap<u32, OnTheFly> = prof_timeline::run_map::RunMap::new();
    for (index, op) in timeline.ops.iter().enumerate() {
        let device = on_the_fly.get(op.device());
        let (start, end) = (op.start_ns, op.end_ns());
        device.ops += 1;
        if end > start {
            device.bounds = Some(device.bounds.map_or((start, end), |(lo, hi)| (lo.min(start), hi.max(end))));
        }
        let slot = slot_of(index);
        if slot > device.highest {
            // Until now every union from `highest` up held the same ops: the higher ones
            // start as copies of it.
            let same = device.unions[device.highest];
            device.unions[device.highest + 1..=slot].fill(same);
            device.highest = slot;
        }
        for union in &mut device.unions[slot..=device.highest] {
            union.add(start, end);
        }
    }
    let mut on_the_fly = on_the_fly.into_map();
    for device in on_the_fly.values_mut() {
        let same = device.unions[device.highest];
        device.unions[device.highest + 1..].fill(same);
    }
    let in_order: Option<Vec<DeviceTemporal>> = on_the_fly
        .iter()
        .map(|(&device, d)| {
            let [compute, with_comm, with_memory, all] = [0, 1, 2, 3].map(|k| d.unions[k].total_ns());
            Some(split(device, d.bounds, [compute?, with_comm?, with_memory?, all?], d.ops))
        })
        .collect();
    let mut devices = match in_order {
        Some(devices) => devices,
        None => gathered(timeline, &slot_of),
    };
    devices.sort_by_key(|d| d.device);
    devices
}

/// One device's unions while the ops stream past. Union `k` holds the ops of activity slots
/// up to `k`, so the unions above the highest slot seen yet equal its union: only the unions
/// up to `highest` are added to (a device of compute alone adds each op once, not four times).
#[derive(Default)]
struct OnTheFly {
    ops: u64,
    bounds: Option<(u64, u64)>,
    unions: [SortedUnion; 4],
    highest: usize,
}

/// The split of one device from its nested unions' totals (compute, + communication,
/// + memory, + other) and the bounds of its non-empty ops.
fn split(device: u32, bounds: Option<(u64, u64)>, totals: [u64; 4], ops: u64) -> DeviceTemporal {
    let [compute, with_comm, with_memory, all] = totals;
    let wall_ns = bounds.map_or(0, |(start, end)| end - start);
    DeviceTemporal {
        device,
        wall_ns,
        compute_ns: compute,
        communication_ns: with_comm - compute,
        memory_ns: with_memory - with_comm,
        other_ns: all - with_memory,
        idle_ns: wall_ns - all,
        ops,
    }
}

/// The breakdown from every op interval gathered per device and activity (ops out of order).
fn gathered(timeline: &Timeline, slot_of: &dyn Fn(usize) -> usize) -> Vec<DeviceTemporal> {
    let mut spans: FxHashMap<u32, [Vec<(u64, u64)>; 4]> = FxHashMap::default();
    for (index, op) in timeline.ops.iter().enumerate() {
        spans.entry(op.device()).or_default()[slot_of(index)].push((op.start_ns, op.end_ns()));
    }
    spans
        .into_iter()
        .map(|(device, [compute, comm, memory, other])| {
            let ops = (compute.len() + comm.len() + memory.len() + other.len()) as u64;
            let compute = IntervalSet::from_unsorted(compute);
            let with_comm = compute.union(&IntervalSet::from_unsorted(comm));
            let with_memory = with_comm.union(&IntervalSet::from_unsorted(memory));
            let all = with_memory.union(&IntervalSet::from_unsorted(other));
            let totals = [compute.total_ns(), with_comm.total_ns(), with_memory.total_ns(), all.total_ns()];
            split(device, all.bounds(), totals, ops)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_timeline::timeline::DeviceOp;

    #[test]
    fn shares_are_exclusive_and_sum_to_the_wall() {
        let mut t = Timeline::new("test");
        let gemm = t.intern("ampere_sgemm_128x64_tn");
        let nccl = t.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        let copy = t.intern("Memcpy HtoD");
        // compute [0,100), nccl [50,200) → 100 exclusive, copy [150,260) → 60 exclusive, idle [260,300)
        t.push_op(DeviceOp::new(OpKind::Kernel, gemm, 0, 7, 0, 100));
        t.push_op(DeviceOp::new(OpKind::Kernel, nccl, 0, 9, 50, 150));
        t.push_op(DeviceOp::new(OpKind::Memcpy, copy, 0, 8, 150, 110));
        t.push_op(DeviceOp::new(OpKind::Kernel, gemm, 0, 7, 300, 100));
        t.push_op(DeviceOp::new(OpKind::Kernel, gemm, 1, 7, 0, 10));
        let split = temporal_breakdown(&t, &Families::builtin());
        assert_eq!(split.len(), 2);
        let d0 = &split[0];
        assert_eq!((d0.wall_ns, d0.compute_ns, d0.communication_ns, d0.memory_ns, d0.idle_ns), (400, 200, 100, 60, 40));
        assert_eq!(d0.compute_ns + d0.communication_ns + d0.memory_ns + d0.other_ns + d0.idle_ns, d0.wall_ns);
        assert_eq!(d0.ops, 4);
        assert_eq!((split[1].device, split[1].wall_ns, split[1].idle_ns), (1, 10, 0));
        assert_eq!(d0.share_pct(d0.idle_ns), 10.0);
        // The same ops out of start order take the gathering path, with the same numbers.
        let mut reversed = Timeline::new("test");
        for op in t.ops.iter().rev() {
            let name = reversed.intern(t.name(op.name()));
            reversed.push_op(DeviceOp::new(op.kind(), name, op.device(), op.stream(), op.start_ns, op.dur_ns()));
        }
        assert_eq!(temporal_breakdown(&reversed, &Families::builtin()), split);
    }

    /// On random ops of two devices whose activities first come in every order (a copy before
    /// any kernel, collectives late, one activity alone), the unions merged as the ops come
    /// give what the gathered intervals give, and each share counted ns by ns.
    #[test]
    fn merged_unions_equal_gathered_ones_whatever_activity_comes_first() {
        let names = ["ampere_sgemm_128x64_tn", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "Memcpy HtoD", "marker"];
        let kinds = [OpKind::Kernel, OpKind::Kernel, OpKind::Memcpy, OpKind::Other];
        let mut rng = prof_timeline::test_random::XorShift::new(0x7e4_0001);
        for round in 0..300 {
            let mut ops = Vec::new();
            // Which activities this round has (one alone in some rounds).
            let mask = 1 + rng.below(15);
            for _ in 0..1 + rng.below(40) {
                let pick = rng.below(4) as usize;
                if mask & (1 << pick) != 0 {
                    ops.push((pick, rng.below(2) as u32, rng.below(300), rng.below(40)));
                }
            }
            ops.sort_by_key(|&(_, _, start, _)| start);
            let mut t = Timeline::new("random");
            for &(pick, device, start, dur) in &ops {
                let name = t.intern(names[pick]);
                t.push_op(DeviceOp::new(kinds[pick], name, device, 7, start, dur));
            }
            let split = temporal_breakdown(&t, &Families::builtin());
            let mut shuffled = t.clone();
            shuffled.ops.reverse();
            assert_eq!(temporal_breakdown(&shuffled, &Families::builtin()), split, "round {round}");
            for d in &split {
                // ns by ns: the highest-priority activity running, or idle.
                let mine: Vec<&(usize, u32, u64, u64)> = ops.iter().filter(|o| o.1 == d.device).collect();
                let (lo, hi) =
                    mine.iter().filter(|o| o.3 > 0).fold((u64::MAX, 0), |(lo, hi), o| (lo.min(o.2), hi.max(o.2 + o.3)));
                let mut by = [0u64; 5];
                for ns in lo..hi.max(lo) {
                    let running = mine.iter().filter(|o| o.2 <= ns && ns < o.2 + o.3).map(|o| o.0).min();
                    by[running.unwrap_or(4)] += 1;
                }
                let got = [d.compute_ns, d.communication_ns, d.memory_ns, d.other_ns, d.idle_ns];
                assert_eq!(got, by, "round {round} device {}", d.device);
            }
        }
    }
}
