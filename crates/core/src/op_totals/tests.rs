use super::*;
use crate::{summarize_kernels, DeviceOp};
use prof_timeline::test_random::XorShift;
use prof_timeline::timeline::{OpDetails, OpKind};

const NAMES: [&str; 6] = ["gemm_kernel", "nccl_allreduce", "memcpy HtoD", "softmax_fwd", "layer_norm", "idle_fill"];
const KINDS: [OpKind; 6] =
    [OpKind::Kernel, OpKind::Communication, OpKind::Memcpy, OpKind::Kernel, OpKind::Kernel, OpKind::Other];

/// One random op: (name index, op type or none, device, stream, start, duration).
type Row = (usize, Option<&'static str>, u32, u64, u64, u64);

fn random_rows(seed: u64, count: usize) -> Vec<Row> {
    let mut random = XorShift::new(seed);
    (0..count)
        .map(|i| {
            let name = random.below(NAMES.len() as u64) as usize;
            let op_type = [None, Some("MatMul"), Some("Add")][random.below(3) as usize];
            let device = random.below(3) as u32;
            let stream = random.below(4);
            // Mostly in time order, with overlaps, touching ops, zero durations and some ops
            // starting well before the ones read before them (another stream's long kernel).
            let early = if random.below(10) == 0 { 900 } else { 0 };
            let start = 10_000 + (i as u64) * 1_000 + random.below(4_000) - early;
            let dur = [0, 1, 500, 1_000, 3_000, 25_000][random.below(6) as usize];
            (name, op_type, device, stream, start, dur)
        })
        .collect()
}

fn push(timeline: &mut Timeline, &(name, op_type, device, stream, start, dur): &Row) {
    let id = timeline.intern(NAMES[name]);
    let op = DeviceOp::new(KINDS[name], id, device, stream, start, dur);
    match op_type {
        Some(t) => {
            let op_type = Some(timeline.intern(t));
            timeline.push_op_with(op, OpDetails { op_type, ..OpDetails::default() })
        }
        None => timeline.push_op(op),
    }
}

/// The summary as compared: every field but the rows' name ids (ids in different interners).
fn comparable(mut summary: KernelSummary) -> KernelSummary {
    summary.kernels.iter_mut().for_each(|k| k.name_id = NameId(0));
    summary
}

#[test]
fn parts_folded_and_joined_give_the_summary_of_the_whole_timeline() {
    let families = Families::builtin();
    for (seed, count, parts) in [(1, 1, 1), (2, 40, 1), (3, 400, 2), (4, 1_000, 7), (5, 3_000, 3), (6, 257, 256)] {
        let rows = random_rows(seed, count);
        let mut whole = Timeline::new("t");
        rows.iter().for_each(|row| push(&mut whole, row));
        let expected = comparable(summarize_kernels(&whole, &families));
        let mut joined = OpTotals::default();
        for chunk in rows.chunks(count.div_ceil(parts)) {
            let mut part = Timeline::new("t");
            chunk.iter().for_each(|row| push(&mut part, row));
            joined.absorb(OpTotals::of_timeline(&part));
        }
        let got = comparable(joined.finish("t", &families));
        assert_eq!(got, expected, "seed {seed}, {count} ops in {parts} parts");
        assert_eq!(got.ops, count as u64);
    }
}

#[test]
fn busy_time_is_the_union_of_every_part_even_when_parts_overlap_in_time() {
    // Independent numbers: device 0 runs [0, 10) and [20, 30) in part 1, then [5, 25) (a
    // long op recorded later) and [40, 41) in part 2: busy = [0, 30) + [40, 41) = 31 ns over a
    // wall of 41 ns; ops 4, op time 10 + 10 + 20 + 1 = 41 ns.
    let mut first = Timeline::new("t");
    let mut second = Timeline::new("t");
    let k = first.intern("k");
    first.push_op(DeviceOp::new(OpKind::Kernel, k, 0, 7, 0, 10));
    first.push_op(DeviceOp::new(OpKind::Kernel, k, 0, 7, 20, 10));
    let k2 = second.intern("k");
    second.push_op(DeviceOp::new(OpKind::Kernel, k2, 0, 9, 5, 20));
    second.push_op(DeviceOp::new(OpKind::Kernel, k2, 0, 7, 40, 1));
    let mut totals = OpTotals::of_timeline(&first);
    totals.absorb(OpTotals::of_timeline(&second));
    let summary = totals.finish("t", &Families::builtin());
    let d = &summary.devices[0];
    assert_eq!((d.ops, d.op_ns, d.busy_ns, d.wall_ns), (4, 41, 31, 41));
    assert_eq!((summary.kernels.len(), summary.kernels[0].calls, summary.kernels[0].min_ns), (1, 4, 1));
    assert_eq!(summary.span_ns, 41);
}

#[test]
fn an_empty_part_changes_nothing() {
    let families = Families::builtin();
    let rows = random_rows(9, 50);
    let mut part = Timeline::new("t");
    rows.iter().for_each(|row| push(&mut part, row));
    let alone = comparable(OpTotals::of_timeline(&part).finish("t", &families));
    let mut with_empty = OpTotals::of_timeline(&Timeline::new("t"));
    with_empty.absorb(OpTotals::of_timeline(&part));
    with_empty.absorb(OpTotals::of_timeline(&Timeline::new("t")));
    assert_eq!(comparable(with_empty.finish("t", &families)), alone);
}
