use super::*;
use crate::analysis::gaps::idle_gaps;
use crate::analysis::launch::launch_stats;
use crate::diagnosis::diagnose;
use crate::families::{Families, Family};
use crate::kernel_summary::summarize_kernels;
use prof_timeline::timeline::{DeviceOp, HostCategory, HostSpan};

/// Adds a kernel `name` on `stream` at `start` for `dur` ns, launched by a runtime call at
/// `launch` (a correlation id of its own) when given.
fn kernel(t: &mut Timeline, name: &str, stream: u64, start: u64, dur: u64, launch: Option<(u64, u64)>) {
    let id = t.intern(name);
    let mut op = DeviceOp::new(OpKind::Kernel, id, 0, stream, start, dur);
    if let Some((at, call)) = launch {
        let corr = t.ops.len() as u64 + 1;
        let launch_name = t.intern("cudaLaunchKernel");
        t.host.push(HostSpan::test(launch_name, HostCategory::Runtime, at, call, Some(corr)));
        op.correlation = Some(corr).into();
    }
    t.push_op(op);
}

fn answer_of(t: &Timeline) -> Answer {
    let families = Families::builtin();
    let summary = summarize_kernels(t, &families);
    let diagnosis = diagnose(t, &summary);
    let gaps = idle_gaps(t, &families);
    let launch = launch_stats(t);
    answer(&Inputs {
        timeline: Some(t),
        summary: &summary,
        diagnosis: Some(&diagnosis),
        gaps: Some(&gaps),
        launch: launch.as_ref(),
        roofline: None,
    })
}

fn part_ns(account: &Account, part: Part) -> u64 {
    account.get(part).map_or(0, |p| p.ns)
}

/// A launch-starved run: 200 kernels of 5 µs, each launched 9 µs after the one before ended
/// (the host was late): 2/3 of the window idle, all of it waiting for launches.
#[test]
fn launch_gaps_are_the_headline_and_the_account_adds_up() {
    let mut t = Timeline::new("test");
    for i in 0..200u64 {
        let start = i * 15_000;
        kernel(&mut t, "gemm_kernel", 7, start, 5_000, Some((start - start.min(1_000), 2_000)));
    }
    let a = answer_of(&t);
    let account = a.account.as_ref().expect("an account");
    // Wall: 199 × 15 µs + 5 µs; busy: 200 × 5 µs; idle: 199 gaps of 10 µs.
    assert_eq!(account.wall_ns, 199 * 15_000 + 5_000);
    assert_eq!(account.busy_ns, 1_000_000);
    assert_eq!(account.parts.iter().map(|p| p.ns).sum::<u64>(), account.wall_ns);
    assert_eq!(part_ns(account, Part::Idle { cause: IdleCause::LaunchGaps }), 199 * 10_000);
    assert_eq!(part_ns(account, Part::Busy { family: Family::Gemm }), 1_000_000);
    assert_eq!(a.verdict, Verdict::Idle(IdleCause::LaunchGaps));
    assert!(a.evidence.enough);
    assert_eq!(a.next, Next::ApplyAndCompare);
    assert!(a.deep_dive().is_none(), "no deep dive of a device idle 2/3 of the time, though one kernel is 100 %");
    let expected = 199.0 * 10_000.0 * 100.0 / (199.0 * 15_000.0 + 5_000.0);
    assert!((a.share_pct.unwrap() - expected).abs() < 1e-9, "{:?} vs {expected}", a.share_pct);
}

/// The same kernels back to back: busy, one kernel: the deep dive is the next step.
#[test]
fn a_busy_device_with_one_kernel_leads_to_its_deep_dive() {
    let mut t = Timeline::new("test");
    for i in 0..200u64 {
        kernel(&mut t, "gemm_kernel", 7, i * 10_100, 10_000, None);
        kernel(&mut t, "small_elementwise_kernel", 7, i * 10_100 + 10_000, 100, None);
    }
    let a = answer_of(&t);
    assert_eq!(a.verdict, Verdict::DominantKernel, "{}", a.headline);
    assert_eq!(a.deep_dive().map(|d| d.0), Some("gemm_kernel"));
}

/// A few long stalls and many tiny gaps: host stalls, not launch overhead (the median gap of
/// 1 µs does not make it host-bound).
#[test]
fn long_stalls_are_not_launch_gaps() {
    let mut t = Timeline::new("test");
    let mut at = 0u64;
    for i in 0..300u64 {
        let gap = if i % 100 == 99 { 20_000_000 } else { 1_000 };
        kernel(&mut t, "gemm_kernel", 7, at, 50_000, Some((at.saturating_sub(500), 400)));
        at += 50_000 + gap;
    }
    let a = answer_of(&t);
    assert_eq!(a.verdict, Verdict::Idle(IdleCause::HostStalls), "{}", a.headline);
    let account = a.account.as_ref().unwrap();
    assert_eq!(account.parts.iter().map(|p| p.ns).sum::<u64>(), account.wall_ns);
}

/// A window with two fill kernels (a capture that closed before the work): too little to
/// tell, no deep dive of the 1 µs kernel, capture more.
#[test]
fn two_tiny_kernels_are_too_little_to_tell() {
    let mut t = Timeline::new("test");
    kernel(&mut t, "fill_kernel", 7, 0, 1_000, None);
    kernel(&mut t, "fill_kernel", 7, 5_000, 1_000, None);
    let a = answer_of(&t);
    assert_eq!(a.verdict, Verdict::TooLittle);
    assert_eq!(a.next, Next::CaptureMore);
    assert!(!a.evidence.enough);
    assert!(a.headline.starts_with("too little captured to tell: 2 device ops"), "{}", a.headline);
}

/// Communication overlapped with compute costs nothing; only its exposed part is counted.
#[test]
fn hidden_communication_is_not_counted_exposed_is() {
    let mut t = Timeline::new("test");
    for i in 0..100u64 {
        let start = i * 30_000;
        kernel(&mut t, "gemm_kernel", 7, start, 20_000, None);
        // 15 µs of all-reduce from +10 µs: 10 µs hidden under the GEMM, 5 µs exposed.
        kernel(&mut t, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 9, start + 10_000, 15_000, None);
    }
    let a = answer_of(&t);
    let account = a.account.as_ref().unwrap();
    assert_eq!(part_ns(account, Part::Busy { family: Family::Collective }), 100 * 5_000);
    assert_eq!(part_ns(account, Part::Busy { family: Family::Gemm }), 100 * 20_000);
    assert_eq!(account.busy_ns, 100 * 25_000);
    assert_eq!(account.parts.iter().map(|p| p.ns).sum::<u64>(), account.wall_ns);
}

/// A busy run with a flat profile is healthy, said in words, with nothing to deep-dive.
#[test]
fn a_busy_flat_run_is_healthy() {
    let mut t = Timeline::new("test");
    for i in 0..300u64 {
        let name = ["gemm_kernel", "conv2d_fprop_kernel", "layer_norm_kernel"][(i % 3) as usize];
        kernel(&mut t, name, 7, i * 10_000, 10_000, None);
    }
    let a = answer_of(&t);
    assert_eq!(a.verdict, Verdict::Healthy, "{}", a.headline);
    assert!(a.headline.starts_with("healthy: busy 100.0 %"), "{}", a.headline);
    assert_eq!(a.next, Next::Done);
}

/// Without a timeline (a kernel table) the account still adds up, its idle unexplained.
#[test]
fn a_kernel_table_gets_an_account_without_causes() {
    let mut t = Timeline::new("test");
    for i in 0..150u64 {
        kernel(&mut t, "gemm_kernel", 7, i * 30_000, 10_000, None);
    }
    let summary = summarize_kernels(&t, &Families::builtin());
    let a = answer(&Inputs {
        timeline: None,
        summary: &summary,
        diagnosis: None,
        gaps: None,
        launch: None,
        roofline: None,
    });
    let account = a.account.as_ref().unwrap();
    assert_eq!(account.parts.iter().map(|p| p.ns).sum::<u64>(), account.wall_ns);
    assert_eq!(part_ns(account, Part::Idle { cause: IdleCause::Unexplained }), 149 * 20_000);
    assert_eq!(a.verdict, Verdict::Idle(IdleCause::Unexplained));
}

/// Two thirds of the window in one GEMM, a third waiting for launches: the kernel is the larger
/// share of a mostly busy device, so its deep dive is the next step.
#[test]
fn a_dominant_kernel_outweighs_smaller_idle_time() {
    let mut t = Timeline::new("test");
    for i in 0..200u64 {
        let start = i * 15_000;
        kernel(&mut t, "gemm_kernel", 7, start, 10_000, Some((start - start.min(1_000), 2_000)));
    }
    let a = answer_of(&t);
    assert_eq!(a.verdict, Verdict::DominantKernel, "{}", a.headline);
    assert_eq!(a.deep_dive(), Some(("gemm_kernel", 100.0)));
}

/// A kernel table (no timeline, no device times): the dominant kernel's deep dive, with the
/// table's own calls and device time as the evidence; a flat table says its family split and
/// makes no idle claim.
#[test]
fn a_kernel_table_answers_from_its_rows() {
    use crate::kernel_summary::{summary_from_totals, KernelAcc};
    let row = |name: &str, calls: u64, ns: u64, id: u32| {
        let mut acc = KernelAcc::new(OpKind::Kernel, None);
        for _ in 0..calls {
            acc.add(ns / calls);
        }
        acc.row(name, prof_timeline::intern::NameId(id), Family::Gemm, &|_| 0.0)
    };
    let table = summary_from_totals(
        "stats.csv".into(),
        vec![row("big_gemm", 50, 50_000_000, 0), row("small", 50, 5_000_000, 1)],
    );
    let a = answer(&Inputs::of_summary(&table));
    assert_eq!(a.verdict, Verdict::DominantKernel, "{}", a.headline);
    assert!(a.headline.contains("a kernel table: no timeline, so idle time is not known"), "{}", a.headline);
    assert_eq!(a.evidence.busy_ns, 55_000_000);
    let flat = summary_from_totals("stats.csv".into(), vec![row("a", 50, 5_000_000, 0), row("b", 50, 5_000_000, 1)]);
    let a = answer(&Inputs::of_summary(&flat));
    assert_eq!(a.verdict, Verdict::KernelTable, "{}", a.headline);
    assert_eq!(a.next, Next::CaptureMore);
}

/// A dominant GEMM whose calls carry their shapes: at 80 % of its H100 bound there is little to
/// win inside it, so no deep dive of it; the loss of a slower kernel beside it is the next
/// step when it is large enough. At 30 % of its bound the deep dive stays, with that share said.
#[test]
fn a_dominant_kernel_near_its_roofline_is_not_sent_to_a_deep_dive() {
    use crate::{DType, OpDetails, OpInputs};
    let gemm = |t: &mut Timeline, name: &str, n: u64, start: u64, dur: u64| {
        let inputs = OpInputs {
            op: "aten::mm".into(),
            dims: vec![vec![n, n], vec![n, n]],
            dtypes: vec![Some(DType::Bf16); 2],
            scalars: vec![],
            kernels: 1,
        };
        let id = t.intern(name);
        let details = OpDetails { inputs: Some(Box::new(inputs)), ..OpDetails::default() };
        t.push_op_with(DeviceOp::new(OpKind::Kernel, id, 0, 7, start, dur), details);
    };
    // 4096³ bf16: 137.4 GFLOP, 138.9 µs at 989.5 TFLOP/s; run in 173.6 µs (80 %) or 463 µs (30 %).
    let answer_with = |dur: u64, slow: Option<u64>| {
        let mut t = Timeline::new("test");
        t.recorded_on = Some("NVIDIA H100 80GB HBM3".into());
        let mut at = 0;
        for _ in 0..100 {
            gemm(&mut t, "big_gemm", 4096, at, dur);
            at += dur + 1_000;
            if let Some(slow) = slow {
                gemm(&mut t, "slow_gemm", 1024, at, slow);
                at += slow + 1_000;
            }
        }
        let families = Families::builtin();
        let summary = summarize_kernels(&t, &families);
        let roofline = crate::roofline::roofline(&t);
        answer(&Inputs {
            timeline: Some(&t),
            summary: &summary,
            diagnosis: None,
            gaps: None,
            launch: None,
            roofline: roofline.as_ref(),
        })
    };
    let near = answer_with(173_600, None);
    assert_eq!(near.verdict, Verdict::DominantKernel, "{}", near.headline);
    assert!(near.headline.contains("80 % of its roofline bound: little to win inside it"), "{}", near.headline);
    assert_eq!(near.next, Next::Done);
    let e = near.efficiency.as_ref().expect("efficiency beside the account");
    assert_eq!(e.device, "H100 SXM");
    assert!((e.efficiency_pct - 80.0).abs() < 0.1, "{}", e.efficiency_pct);
    // A 1024³ GEMM beside it at ~3 % of its bound (2.17 µs of work in 60 µs): its loss (≈ 25 %
    // of device time) is worth a look.
    let with_slow = answer_with(173_600, Some(60_000));
    assert_eq!(with_slow.deep_dive().map(|(k, _)| k), Some("slow_gemm"), "{}", with_slow.headline);
    let far = answer_with(463_000, None);
    assert_eq!(far.deep_dive().map(|(k, _)| k), Some("big_gemm"));
    assert!(far.headline.contains("it runs at 30 % of its roofline bound: see why it is slow"), "{}", far.headline);
}
