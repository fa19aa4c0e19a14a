//! Overlap between two classes of device work, per device and across all its streams:
//! - **compute–communication**: the share of communication time that ran while some compute
//!   kernel ran, i.e. was hidden under compute (HolisticTraceAnalysis' `comm_comp_overlap`);
//!   the rest of the communication time is exposed and adds to the step time;
//! - **cube–vector** (ops whose `details.core_type` the source gives): the share of cube time
//!   during which some vector op ran. A [`CoreType::Mix`] kernel runs on both core kinds
//!   itself, so it belongs to neither side; its time is reported apart.
//!
//! Each time is the union of the class's op intervals, so concurrent ops of one class count
//! once; the overlap is the intersection of the two unions. A pair is reported only when
//! both classes ran on the device (the cube–vector pair: cube and vector time both non-zero).

use super::intervals::{IntervalSet, SortedUnion};
use super::streams::pct;
use super::temporal::{activity_of, Activity};
use crate::families::Families;
use prof_timeline::intern::FxHashMap;
use prof_timeline::timeline::{CoreType, DeviceOp, Timeline};
use serde::Serialize;

/// How much of one class of work ran under another.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PairOverlap {
    /// Union of the covering class's op intervals (compute; vector), ns.
    pub cover_ns: u64,
    /// Union of the covered class's op intervals (communication; cube), ns.
    pub covered_ns: u64,
    /// Time both ran, ns.
    pub overlap_ns: u64,
    /// `overlap_ns` as a percentage of `covered_ns`.
    pub hidden_pct: f64,
}

/// The overlaps of one device.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviceOverlap {
    /// Device index.
    pub device: u32,
    /// Communication hidden under compute, when both ran.
    pub compute_communication: Option<PairOverlap>,
    /// Cube time overlapped by vector time, when both ran.
    pub cube_vector: Option<PairOverlap>,
    /// Union of mix-core kernels' intervals, ns (0 when none).
    pub mix_ns: u64,
}

/// Per device (ascending), how much of the ops matching `covered` ran while some op matching
/// `cover` ran; only devices where both matched something with non-zero time.
///
/// Ops in start order (as loaded timelines hold them) are merged as they come, without keeping
/// their intervals: the overlap is `|cover| + |covered| - |cover ∪ covered|`. Otherwise every
/// interval is gathered and the two unions intersected.
pub(crate) fn pair_overlap(
    timeline: &Timeline,
    cover: impl Fn(usize, &DeviceOp) -> bool,
    covered: impl Fn(usize, &DeviceOp) -> bool,
) -> Vec<(u32, PairOverlap)> {
    // Per device: the unions of cover, of covered, and of both.
    let mut unions: prof_timeline::run_map::RunMap<u32, [SortedUnion; 3]> = prof_timeline::run_map::RunMap::new();
    for (index, op) in timeline.ops.iter().enumerate() {
        let (a, b) = (cover(index, op), covered(index, op));
        if a || b {
            let [cover, covered, both] = unions.get(op.device());
            let (start, end) = (op.start_ns, op.end_ns());
            if a {
                cover.add(start, end);
            }
            if b {
                covered.add(start, end);
            }
            both.add(start, end);
        }
    }
    let unions = unions.into_map();
    let in_order: Option<Vec<(u32, [u64; 3])>> = unions
        .iter()
        .map(|(&device, [a, b, both])| Some((device, [a.total_ns()?, b.total_ns()?, both.total_ns()?])))
        .collect();
    let totals = match in_order {
        Some(totals) => totals,
        None => gathered(timeline, &cover, &covered),
    };
    let mut out: Vec<(u32, PairOverlap)> = totals
        .into_iter()
        .filter(|(_, [cover_ns, covered_ns, _])| *cover_ns > 0 && *covered_ns > 0)
        .map(|(device, [cover_ns, covered_ns, union_ns])| {
            let overlap_ns = cover_ns + covered_ns - union_ns;
            (device, PairOverlap { cover_ns, covered_ns, overlap_ns, hidden_pct: pct(overlap_ns, covered_ns) })
        })
        .collect();
    out.sort_by_key(|(device, _)| *device);
    out
}

/// [`pair_overlap`]'s totals per device (cover, covered, their union) from every interval
/// gathered: for ops out of start order.
fn gathered(
    timeline: &Timeline,
    cover: &impl Fn(usize, &DeviceOp) -> bool,
    covered: &impl Fn(usize, &DeviceOp) -> bool,
) -> Vec<(u32, [u64; 3])> {
    let mut spans: FxHashMap<u32, [Vec<(u64, u64)>; 2]> = FxHashMap::default();
    for (index, op) in timeline.ops.iter().enumerate() {
        let (a, b) = (cover(index, op), covered(index, op));
        if a || b {
            let slot = spans.entry(op.device()).or_default();
            if a {
                slot[0].push((op.start_ns, op.end_ns()));
            }
            if b {
                slot[1].push((op.start_ns, op.end_ns()));
            }
        }
    }
    spans
        .into_iter()
        .map(|(device, [a, b])| {
            let (a, b) = (IntervalSet::from_unsorted(a), IntervalSet::from_unsorted(b));
            let (cover_ns, covered_ns) = (a.total_ns(), b.total_ns());
            (device, [cover_ns, covered_ns, cover_ns + covered_ns - a.intersection_ns(&b)])
        })
        .collect()
}

/// The core type of each op of `timeline` (from its details), by its details id in a table made
/// once from the few distinct details (not through each op's shared details).
fn core_types(timeline: &Timeline) -> impl Fn(&DeviceOp) -> Option<CoreType> + '_ {
    let by_id = timeline.details_pool().each(|d| d.core_type);
    move |op| op.details().and_then(|id| by_id.get(id.index()).copied().flatten())
}

/// Compute–communication and cube–vector overlap of every device that has either.
pub fn overlaps(timeline: &Timeline, families: &Families) -> Vec<DeviceOverlap> {
    overlaps_of(timeline, families, true)
}

/// [`overlaps`], told whether `timeline` has a communication op (its stream roles count them:
/// [`crate::analysis::streams::communication_ops`]): without one no device has a
/// compute–communication overlap to report, and the ops are not walked for one.
pub fn overlaps_of(timeline: &Timeline, families: &Families, communication: bool) -> Vec<DeviceOverlap> {
    let activity = activity_of(timeline, families);
    let comm = if communication {
        pair_overlap(timeline, |i, _| activity(i) == Activity::Compute, |i, _| activity(i) == Activity::Communication)
    } else {
        Vec::new()
    };
    // Core types come with an op's details: a timeline whose details name none (every
    // non-Ascend source) has no cube, vector or mix op to walk its ops for.
    let cores = timeline.details_pool().any(|d| d.core_type.is_some());
    let core_type = core_types(timeline);
    let is_mix = |op: &&DeviceOp| core_type(op) == Some(CoreType::Mix);
    let (mut cube, mut mix) = (Vec::new(), prof_timeline::run_map::RunMap::<u32, SortedUnion>::new());
    if cores {
        cube = pair_overlap(
            timeline,
            |_, op| core_type(op) == Some(CoreType::Vector),
            |_, op| core_type(op) == Some(CoreType::Cube),
        );
        for op in timeline.ops.iter().filter(is_mix) {
            mix.get(op.device()).add(op.start_ns, op.end_ns());
        }
    }
    let mix = mix.into_map();
    // A device's mix time, from all its mix ops' intervals when they came out of order.
    let mix_ns = |device: u32, union: &SortedUnion| {
        union.total_ns().unwrap_or_else(|| {
            let spans = timeline.ops.iter().filter(is_mix).filter(|op| op.device() == device);
            IntervalSet::from_unsorted(spans.map(|op| (op.start_ns, op.end_ns())).collect()).total_ns()
        })
    };
    let mut devices: Vec<u32> = comm.iter().map(|c| c.0).chain(cube.iter().map(|c| c.0)).collect();
    devices.sort_unstable();
    devices.dedup();
    devices
        .into_iter()
        .map(|device| DeviceOverlap {
            device,
            compute_communication: comm.iter().find(|c| c.0 == device).map(|c| c.1),
            cube_vector: cube.iter().find(|c| c.0 == device).map(|c| c.1),
            mix_ns: mix.get(&device).map_or(0, |union| mix_ns(device, union)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_timeline::timeline::{OpDetails, OpKind};

    /// An op's core type read through its details (the plain way, against the table's).
    fn core_type(timeline: &Timeline, op: &DeviceOp) -> Option<CoreType> {
        timeline.details_of(op).and_then(|d| d.core_type)
    }

    fn op(t: &mut Timeline, name: &str, stream: u64, start: u64, dur: u64, core: Option<CoreType>) {
        let name = t.intern(name);
        let op = DeviceOp::new(OpKind::Kernel, name, 0, stream, start, dur);
        t.push_op_with(op, OpDetails { core_type: core, ..OpDetails::default() });
    }

    #[test]
    fn hidden_share_is_the_intersection_over_the_covered_class() {
        let mut t = Timeline::new("test");
        // compute [0,100) and [150,200); nccl [50,250) on another stream:
        // overlap [50,100) + [150,200) = 100 of 200 communication → 50 %
        op(&mut t, "ampere_sgemm_128x64_tn", 7, 0, 100, None);
        op(&mut t, "ampere_sgemm_128x64_tn", 7, 150, 50, None);
        op(&mut t, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 9, 50, 200, None);
        // cube [1000,1100) twice (concurrent, counted once); vector [1080,1200) → 20 of 100
        op(&mut t, "MatMul", 1, 1000, 100, Some(CoreType::Cube));
        op(&mut t, "MatMul", 2, 1000, 100, Some(CoreType::Cube));
        op(&mut t, "Add", 3, 1080, 120, Some(CoreType::Vector));
        op(&mut t, "FusedInferAttention", 4, 1300, 30, Some(CoreType::Mix));
        let found = overlaps(&t, &Families::builtin());
        assert_eq!(found.len(), 1);
        let comm = found[0].compute_communication.expect("both ran");
        // compute covers the gemms plus the Ascend kernels: [0,100) [150,200) [1000,1200) [1300,1330)
        assert_eq!((comm.covered_ns, comm.overlap_ns, comm.hidden_pct), (200, 100, 50.0));
        assert_eq!(comm.cover_ns, 100 + 50 + 200 + 30);
        let cube = found[0].cube_vector.expect("both ran");
        assert_eq!((cube.cover_ns, cube.covered_ns, cube.overlap_ns, cube.hidden_pct), (120, 100, 20, 20.0));
        assert_eq!(found[0].mix_ns, 30);
    }

    /// On random ops of two devices, the unions merged as the ops come (start order) and the
    /// gathered intervals (any order) give the intersection computed the plain way.
    #[test]
    fn merged_on_the_fly_equals_gathered_and_a_plain_intersection() {
        let mut rng = prof_timeline::test_random::XorShift::new(0x9e37_79b9_7f4a_7c15u64);
        let mut next = |bound: u64| rng.below(bound);
        let cores = [Some(CoreType::Cube), Some(CoreType::Vector), Some(CoreType::Mix), None];
        for round in 0..40 {
            let mut shuffled = Timeline::new("random");
            for _ in 0..(5 + next(80)) {
                let core = cores[next(4) as usize];
                // A third of the rounds without communication.
                let comm = round % 3 != 0 && next(4) == 0;
                let name = shuffled.intern(if comm { "hcom_allReduce_" } else { "MatMul" });
                let op = DeviceOp::new(OpKind::Kernel, name, next(2) as u32, next(4), next(60) * 10, next(15) * 10);
                shuffled.push_op_with(op, OpDetails { core_type: core, ..OpDetails::default() });
            }
            let mut ordered = shuffled.clone();
            ordered.ops.sort_by_key(|op| op.start_ns);
            let families = Families::builtin();
            let found = overlaps(&ordered, &families);
            assert_eq!(found, overlaps(&shuffled, &families), "round {round}");
            // Told by the stream roles whether there is a communication op: the same answer,
            // and the roles count the communication ops.
            let roles = crate::analysis::streams::stream_roles(&ordered, &families);
            let streams = || roles.iter().flat_map(|d| &d.streams);
            let communication = crate::analysis::streams::communication_ops(&roles) > 0;
            assert_eq!(overlaps_of(&ordered, &families, communication), found, "round {round}");
            let comm_ops = ordered.ops.iter().filter(|op| ordered.name(op.name()).starts_with("hcom")).count();
            assert_eq!(streams().map(|s| s.communication_ops).sum::<u64>(), comm_ops as u64, "round {round}");
            assert_eq!(communication, comm_ops > 0, "round {round}");
            for device in &found {
                let spans = |core: CoreType| {
                    let ops = ordered
                        .ops
                        .iter()
                        .filter(|op| op.device() == device.device && core_type(&ordered, op) == Some(core));
                    IntervalSet::from_unsorted(ops.map(|op| (op.start_ns, op.end_ns())).collect())
                };
                let (vector, cube) = (spans(CoreType::Vector), spans(CoreType::Cube));
                let expected = (vector.total_ns(), cube.total_ns(), vector.intersection_ns(&cube));
                let got = device.cube_vector.map(|c| (c.cover_ns, c.covered_ns, c.overlap_ns));
                if expected.0 > 0 && expected.1 > 0 {
                    assert_eq!(got, Some(expected), "round {round}");
                } else {
                    assert_eq!(got, None, "round {round}");
                }
                assert_eq!(device.mix_ns, spans(CoreType::Mix).total_ns(), "round {round}");
            }
        }
    }

    #[test]
    fn no_pair_without_both_classes() {
        let mut t = Timeline::new("test");
        op(&mut t, "ampere_sgemm_128x64_tn", 7, 0, 100, Some(CoreType::Cube));
        assert!(overlaps(&t, &Families::builtin()).is_empty());
    }
}
