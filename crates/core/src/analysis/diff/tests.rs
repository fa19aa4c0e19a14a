use super::*;
use crate::kernel_summary::summarize_kernels;
use prof_timeline::timeline::{DeviceOp, HostSpan, OpKind};

/// Kernels `gemm` (100 ns) and `norm` (`norm` ns) alternating `n` times, `gap` ns apart,
/// each launched by one runtime call when `launches`.
fn timeline(n: u64, gap: u64, norm: u64, launches: bool) -> Timeline {
    let mut t = Timeline::new(format!("gap{gap}"));
    let (gemm, norm_id, launch) = (t.intern("gemm"), t.intern("norm"), t.intern("cudaLaunchKernel"));
    let mut at = 0;
    for i in 0..n * 2 {
        let (name, dur) = if i % 2 == 0 { (gemm, 100) } else { (norm_id, norm) };
        t.push_op(DeviceOp::new(OpKind::Kernel, name, 0, 7, at, dur));
        if launches {
            let span = HostSpan::test(launch, HostCategory::Runtime, at, 1, None);
            t.host.push(span);
        }
        at += dur + gap;
    }
    t
}

#[test]
fn graph_mode_removes_gaps_and_launches() {
    let families = Families::builtin();
    let eager = timeline(5, 50, 20, true);
    let mut graph = timeline(5, 10, 20, false);
    let one = graph.intern("cudaGraphLaunch");
    graph.host.push(HostSpan::test(one, HostCategory::Runtime, 0, 1, None));
    let (sa, sb) = (summarize_kernels(&eager, &families), summarize_kernels(&graph, &families));
    let diff = diff_profiles(
        &Side { summary: &sa, timeline: Some(&eager), steps: None },
        &Side { summary: &sb, timeline: Some(&graph), steps: None },
        &families,
    );
    let t = diff.timeline.as_ref().unwrap();
    // 10 ops, 9 gaps: 9 × 50 = 450 idle before, 9 × 10 = 90 after; busy 5 × 120 = 600.
    assert_eq!((t.before.idle_ns, t.after.idle_ns, t.before.busy_ns, t.before.wall_ns), (450, 90, 600, 1_050));
    assert_eq!((t.gaps.before, t.gaps.after), (9.0, 9.0));
    assert_eq!(t.idle.change_pct, Some(-80.0));
    assert_eq!(t.launches_per_op.map(|l| (l.before, l.after)), Some((1.0, 0.1)));
    assert_eq!(diff.device_time.change_pct, Some(0.0));
    assert!(
        diff.verdict.starts_with("B: free time \u{2212}80 %: fewer host launches per op: graph mode"),
        "{}",
        diff.verdict
    );
    assert!(diff.kernels.iter().all(|k| k.total.delta == 0.0));
    assert!(diff.skipped.is_empty());
}

#[test]
fn kernels_sorted_by_absolute_delta_and_one_sided_listed() {
    let families = Families::builtin();
    let a = timeline(4, 10, 20, false);
    let mut b = timeline(4, 10, 50, false);
    let extra = b.intern("topk");
    b.push_op(DeviceOp::new(OpKind::Kernel, extra, 0, 7, 5_000, 7));
    let (sa, sb) = (summarize_kernels(&a, &families), summarize_kernels(&b, &families));
    // B as totals only: no timeline numbers, and it says so.
    let diff = diff_profiles(
        &Side { summary: &sa, timeline: Some(&a), steps: None },
        &Side { summary: &sb, timeline: None, steps: None },
        &families,
    );
    assert!(diff.timeline.is_none());
    assert!(diff.skipped[0].contains("B holds per-kernel totals only"), "{:?}", diff.skipped);
    // norm: 4 × 20 = 80 → 4 × 50 = 200, +120; gemm unchanged.
    assert_eq!(diff.kernels[0].name, "norm");
    assert_eq!((diff.kernels[0].total.delta, diff.kernels[0].mean.after), (120.0, 50.0));
    assert_eq!(diff.kernels[1].total.delta, 0.0);
    assert_eq!(diff.only_after, vec![OneSided { name: "topk".into(), calls: 1, total_ns: 7 }]);
    assert!(diff.only_before.is_empty());
    // device time 480 → 607: +26 %.
    assert!(diff.verdict.starts_with("B: device time +26 %: the kernels take more time"), "{}", diff.verdict);
    assert!(diff.verdict.contains("largest kernel change norm (+0.1 µs)"), "{}", diff.verdict);
}
