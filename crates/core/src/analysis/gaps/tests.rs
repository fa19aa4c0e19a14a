//! Tests of the idle-gap analysis on small hand-checked timelines and one large one.

use super::*;
use prof_timeline::timeline::{DeviceOp, OpKind};

fn host(t: &mut Timeline, name: &str, category: HostCategory, start: u64, dur: u64, correlation: Option<u64>) {
    let name = t.intern(name);
    t.host.push(HostSpan::test(name, category, start, dur, correlation));
}

fn op(t: &mut Timeline, name: &str, stream: u64, start: u64, dur: u64, correlation: Option<u64>) {
    let name = t.intern(name);
    let mut op = DeviceOp::new(OpKind::Kernel, name, 0, stream, start, dur);
    op.correlation = correlation.into();
    t.push_op(op);
}

#[test]
fn gaps_are_measured_classified_and_explained() {
    let mut t = Timeline::new("test");
    // main stream 7: a [0,100) b [105,200) c [1200,1300) d [61200,61300) e [61400,61500)
    // side stream 9: s [300,400): fills part of the main stream's gap between b and c
    op(&mut t, "a", 7, 0, 100, Some(1));
    op(&mut t, "b", 7, 105, 95, Some(2)); // launched at 10 (early), gap 5 → kernel wait
    op(&mut t, "c", 7, 1_200, 100, Some(3)); // launched at 1000 (after 400) → host wait, gap 800
    op(&mut t, "d", 7, 61_200, 100, Some(4)); // launched at 1250 (early), gap 59 900 → dependency
    op(&mut t, "e", 7, 61_400, 100, None); // gap 100, unknown
    op(&mut t, "s", 9, 300, 100, None); // device gaps before it: [200,300) unknown
    op(&mut t, "zero", 9, 500, 0, None);
    for (corr, start) in [(1, 0), (2, 10), (3, 1_000), (4, 1_250)] {
        host(&mut t, "cudaLaunchKernel", HostCategory::Runtime, start, 5, Some(corr));
    }
    host(&mut t, "ProfilerStep#1", HostCategory::Annotation, 0, 70_000, None);
    host(&mut t, "forward", HostCategory::Annotation, 300, 5_000, None);
    host(&mut t, "aten::item", HostCategory::Framework, 450, 500, None);
    host(&mut t, "aten::copy_", HostCategory::Framework, 390, 20, None);
    let found = idle_gaps(&t, &Families::builtin());
    assert_eq!(found.len(), 1);
    let d = &found[0];
    assert_eq!(d.main_stream, 7);
    let g = &d.device_gaps;
    // device gaps: [100,105) 5, [200,300) 100, [400,1200) 800, [1300,61200) 59 900, [61300,61400) 100
    assert_eq!((g.wall_ns, g.count, g.total_ns), (61_500, 5, 60_905));
    let causes: Vec<(u64, u64)> = g.causes.iter().map(|c| (c.count, c.total_ns)).collect();
    assert_eq!(causes, vec![(1, 800), (1, 5), (1, 59_900), (2, 200)]);
    let buckets: Vec<u64> = g.buckets.iter().map(|b| b.count).collect();
    assert_eq!(buckets, vec![4, 1, 0, 0, 0]);
    let top = &g.largest[0];
    assert_eq!((top.offset_ns, top.length_ns, top.before.as_str(), top.after.as_str()), (1_300, 59_900, "c", "d"));
    assert_eq!((top.cause, top.launch_offset_ns), (GapCause::Dependency, Some(-50)));
    let second = &g.largest[1];
    assert_eq!((second.before.as_str(), second.cause, second.launch_offset_ns), ("s", GapCause::HostWait, Some(600)));
    let names: Vec<(&str, u64)> = second.host.iter().map(|h| (h.name.as_str(), h.overlap_ns)).collect();
    // [400,1200): forward and ProfilerStep hold it all (only the inner forward is listed),
    // aten::item [450,950) overlaps 500, aten::copy_ [390,410) 10
    assert_eq!(names, vec![("forward", 800), ("aten::item", 500), ("aten::copy_", 10)]);
    assert_eq!(d.remedies.len(), 1);
    assert_eq!(d.remedies[0].cause, GapCause::Dependency);
    // main stream: gaps 5, 1000 ([200,1200)), 59 900, 100
    let m = &d.main_stream_gaps;
    assert_eq!((m.count, m.total_ns), (4, 61_005));
    assert_eq!((m.largest[1].length_ns, m.largest[1].before.as_str()), (1_000, "b"));
    // Per stream: 7 as its main-stream figures; 9 holds only `s` (the zero-length op is
    // ignored), so no gap in its 100 ns.
    let streams: Vec<(u64, u64, u64, u64)> =
        d.streams.iter().map(|s| (s.stream, s.wall_ns, s.count, s.total_ns)).collect();
    assert_eq!(streams, vec![(7, 61_500, 4, 61_005), (9, 100, 0, 0)]);
    assert_eq!(d.streams[0].causes, m.causes);
}

/// 100 000 ops and twice as many host spans: a quadratic step anywhere in the four analyses
/// would not finish (no time bound is asserted, so the test is not flaky).
#[test]
fn large_timelines_stay_near_linear() {
    let mut t = Timeline::new("test");
    let (k, nccl, launch, cpu) =
        (t.intern("k"), t.intern("ncclKernel_AllReduce"), t.intern("cudaLaunchKernel"), t.intern("aten::mm"));
    let n = 100_000u64;
    for i in 0..n {
        // compute on stream 7 every 1000 ns for 600 ns, a collective on stream 9 every 10th slot
        let (name, stream) = if i % 10 == 9 { (nccl, 9) } else { (k, 7) };
        let mut op = DeviceOp::new(OpKind::Kernel, name, 0, stream, i * 1_000, 600);
        op.correlation = Some(i).into();
        t.push_op(op);
        let span = HostSpan::test(launch, HostCategory::Runtime, (i * 1_000).saturating_sub(300), 50, Some(i));
        t.host.push(span);
        t.host.push(HostSpan::test(cpu, HostCategory::Framework, (i * 1_000).saturating_sub(300), 50, None));
    }
    let families = Families::builtin();
    let found = idle_gaps(&t, &families);
    // every slot leaves 400 ns idle; each op was launched 100 ns after the gap before it began
    assert_eq!((found[0].device_gaps.count, found[0].device_gaps.total_ns), (n - 1, (n - 1) * 400));
    assert_eq!(found[0].device_gaps.causes[0].count, n - 1);
    assert_eq!(super::super::launch::launch_stats(&t).map(|s| s.kernels), Some(n));
    let overlap = super::super::overlap::overlaps(&t, &families);
    assert_eq!(overlap[0].compute_communication.map(|o| o.overlap_ns), Some(0));
    assert_eq!(stream_roles(&t, &families)[0].streams.len(), 2);
}

#[test]
fn back_to_back_ops_have_no_gaps() {
    let mut t = Timeline::new("test");
    op(&mut t, "a", 1, 0, 10, None);
    op(&mut t, "b", 1, 10, 10, None);
    let found = idle_gaps(&t, &Families::builtin());
    assert_eq!((found[0].device_gaps.count, found[0].device_gaps.wall_ns), (0, 20));
    assert!(found[0].device_gaps.largest.is_empty() && found[0].remedies.is_empty());
}

/// The device gaps of random overlapping, nested and touching ops in random order, against a
/// reference written the plain way: merge the sorted intervals, take the spaces between them,
/// name the op that ended where each gap starts (earliest start first among equal ends) and the
/// first that starts where it ends.
#[test]
fn one_sweep_gaps_equal_a_plain_interval_merge() {
    let mut rng = prof_timeline::test_random::XorShift::new(0x9e37_79b9_7f4a_7c15u64);
    let mut next = |bound: u64| rng.below(bound);
    for round in 0..40 {
        let mut t = Timeline::new("random");
        let count = 5 + next(60) as usize;
        for i in 0..count {
            // Coarse times make equal starts, equal ends and touching ops common.
            let start = next(40) * 10;
            let dur = if next(8) == 0 { 0 } else { next(12) * 10 };
            op(&mut t, &format!("op{i}"), 1 + next(3), start, dur, None);
        }
        let found = idle_gaps(&t, &Families::builtin());
        let ops: Vec<&DeviceOp> = t.ops.iter().filter(|op| op.dur_ns() > 0).collect();
        let Some(d) = found.first() else {
            assert!(ops.is_empty(), "round {round}: ops but no gaps report");
            continue;
        };
        let mut by_start: Vec<&DeviceOp> = ops.clone();
        by_start.sort_by_key(|op| op.start_ns);
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for op in &by_start {
            match merged.last_mut() {
                Some(last) if op.start_ns <= last.1 => last.1 = last.1.max(op.end_ns()),
                _ => merged.push((op.start_ns, op.end_ns())),
            }
        }
        let gaps: Vec<(u64, u64)> = merged.windows(2).map(|w| (w[0].1, w[1].0)).collect();
        let g = &d.device_gaps;
        let first = merged[0].0;
        assert_eq!(g.wall_ns, merged.last().unwrap().1 - first, "round {round}");
        assert_eq!(g.count, gaps.len() as u64, "round {round}");
        assert_eq!(g.total_ns, gaps.iter().map(|(s, e)| e - s).sum::<u64>(), "round {round}");
        // Longest first, ties earliest, at most TOP_GAPS.
        let mut expected: Vec<(u64, u64)> = gaps.clone();
        expected.sort_by(|a, b| (b.1 - b.0).cmp(&(a.1 - a.0)).then(a.0.cmp(&b.0)));
        expected.truncate(TOP_GAPS);
        let listed: Vec<(u64, u64, &str, &str)> =
            g.largest.iter().map(|x| (x.start_ns, x.length_ns, x.before.as_str(), x.after.as_str())).collect();
        let reference: Vec<(u64, u64, &str, &str)> = expected
            .iter()
            .map(|&(s, e)| {
                let before = by_start.iter().find(|op| op.end_ns() == s).unwrap();
                let after = by_start.iter().find(|op| op.start_ns >= e).unwrap();
                (s, e - s, t.name(before.name()), t.name(after.name()))
            })
            .collect();
        assert_eq!(listed, reference, "round {round}");
    }
}

/// The one pass over ops already in start order (a loaded timeline) gives what the sorted
/// fallback gives on the same ops shuffled: two devices, three streams each, launches for some.
#[test]
fn start_ordered_and_shuffled_timelines_give_the_same_gaps() {
    let mut rng = prof_timeline::test_random::XorShift::new(0x2545_f491_4f6c_dd1du64);
    let mut next = |bound: u64| rng.below(bound);
    for round in 0..30 {
        let mut shuffled = Timeline::new("shuffled");
        for i in 0..(20 + next(200)) {
            let name = shuffled.intern(&format!("k{}", next(9)));
            let (start, dur) = (next(500) * 100, if next(10) == 0 { 0 } else { next(30) * 50 });
            let mut op = DeviceOp::new(OpKind::Kernel, name, next(2) as u32, 1 + next(3), start, dur);
            if next(3) > 0 {
                op.correlation = Some(i).into();
                let at = start.saturating_sub(next(4_000));
                host(&mut shuffled, "cudaLaunchKernel", HostCategory::Runtime, at, 5, Some(i));
            }
            shuffled.push_op(op);
        }
        let mut ordered = shuffled.clone();
        ordered.ops.sort_by_key(|op| op.start_ns);
        assert!(!shuffled.ops.is_sorted_by_key(|op| op.start_ns), "round {round}: the shuffled copy is in order");
        let families = Families::builtin();
        let found = idle_gaps(&ordered, &families);
        assert!(!found.is_empty(), "round {round}");
        assert_eq!(found, idle_gaps(&shuffled, &families), "round {round}");
    }
}

/// A device of one stream takes only the device's sweep: its main stream's gaps and its one
/// stream's are those, as the full sweeps (forced by roles that list a second stream) find.
#[test]
fn one_stream_gaps_equal_the_full_sweeps() {
    let mut rng = prof_timeline::test_random::XorShift::new(0x6a95_0001);
    let families = Families::builtin();
    for round in 0..100 {
        let mut t = Timeline::new("one stream");
        let mut at = 0;
        for k in 0..2 + rng.below(60) {
            at += rng.below(200);
            op(&mut t, if k % 3 == 0 { "gemm" } else { "norm" }, 7, at, rng.below(150), Some(k + 1));
            if rng.below(4) == 0 {
                host(
                    &mut t,
                    "cudaLaunchKernel",
                    HostCategory::Runtime,
                    at.saturating_sub(rng.below(300)),
                    5,
                    Some(k + 1),
                );
            }
        }
        host(&mut t, "aten::mm", HostCategory::Framework, rng.below(500), rng.below(900), None);
        let roles = stream_roles(&t, &families);
        assert_eq!(roles[0].streams.len(), 1);
        let launches = t.launch_index();
        let short = idle_gaps_of_roles(&t, &roles, &launches);
        let mut two = roles.clone();
        let mut side = two[0].streams[0].clone();
        side.stream = 99;
        side.role = crate::analysis::streams::StreamRole::Side;
        two[0].streams.push(side);
        assert_eq!(short, idle_gaps_of_roles(&t, &two, &launches), "round {round}");
    }
}
