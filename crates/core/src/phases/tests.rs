use super::*;
use prof_timeline::timeline::DeviceOp;

const MS: u64 = 1_000_000;

fn push(t: &mut Timeline, kind: OpKind, name: &str, start: u64, dur: u64, bytes: Option<u64>) {
    let id = t.intern(name);
    let op = DeviceOp::new(kind, id, 0, 7, start, dur);
    if bytes.is_some() {
        t.push_op_with(op, prof_timeline::timeline::OpDetails { bytes, ..Default::default() });
    } else {
        t.push_op(op);
    }
}

/// Load (3 × 10 MiB uploads), warm-up (one autotune kernel and a slow first step), 10 steps
/// of 4 kernels, a copy back.
fn run() -> Timeline {
    let mut t = Timeline::new("test");
    for i in 0..3 {
        push(&mut t, OpKind::Memcpy, "CUDA memcpy HtoD", i * MS, MS / 2, Some(10 << 20));
    }
    push(&mut t, OpKind::Kernel, "autotune_candidate", 5 * MS, MS / 10, None);
    let mut at = 10 * MS;
    for step in 0..11u64 {
        let stretch = if step == 0 { 20 } else { 1 };
        for name in ["norm", "gemv", "attn", "gemv_out"] {
            push(&mut t, OpKind::Kernel, name, at, 100_000 * stretch, None);
            at += 250_000 * stretch;
        }
    }
    push(&mut t, OpKind::Memcpy, "CUDA memcpy DtoH", at + MS, 10_000, Some(4));
    t
}

#[test]
fn load_warmup_steady_and_tail_from_the_ops() {
    let t = run();
    let phases = find_phases(&t);
    let kinds: Vec<PhaseKind> = phases.phases.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [PhaseKind::Load, PhaseKind::Warmup, PhaseKind::Steady, PhaseKind::Tail]);
    let load = phases.get(PhaseKind::Load).unwrap();
    assert_eq!((load.start_ns, load.end_ns, load.ops), (0, 2 * MS + MS / 2, 3));
    assert!(load.marks.contains("100 % of device time is host-to-device copies"), "{}", load.marks);
    assert!(load.marks.contains("30.0 MiB"), "{}", load.marks);
    // The slow first step (20× the others) is warm-up with the autotune kernel.
    let warm = phases.get(PhaseKind::Warmup).unwrap();
    assert_eq!((warm.start_ns, warm.end_ns), (load.end_ns, 10 * MS + 4 * 250_000 * 20));
    assert_eq!(warm.ops, 5);
    assert!(warm.marks.contains("1 kernels that never run in the steady state"), "{}", warm.marks);
    let steady = phases.get(PhaseKind::Steady).unwrap();
    assert_eq!(phases.steady_steps, Some(10));
    assert_eq!(steady.ops, 40);
    // 4 × 100 µs busy in every 1 ms step; the last step ends at its last kernel's end.
    let expected = 40.0 * 100_000.0 * 100.0 / (steady.end_ns - steady.start_ns) as f64;
    assert!((steady.busy_pct - expected).abs() < 1e-9);
    let tail = phases.get(PhaseKind::Tail).unwrap();
    assert_eq!(tail.ops, 1);
    assert!(phases.steady_is_partial());
}

#[test]
fn choices_pick_windows_and_refuse_missing_phases() {
    let t = run();
    let phases = find_phases(&t);
    let steady = phases.get(PhaseKind::Steady).unwrap().clone();
    assert_eq!(PhaseChoice::default().window(&phases).unwrap(), Some((steady.start_ns, steady.end_ns)));
    assert_eq!(PhaseChoice::parse("all").unwrap().window(&phases).unwrap(), None);
    assert_eq!(PhaseChoice::parse("LOAD").unwrap(), PhaseChoice::Only(PhaseKind::Load));
    assert_eq!(PhaseChoice::parse("2ms..5ms").unwrap().window(&phases).unwrap(), Some((2 * MS, 5 * MS)));
    assert_eq!(PhaseChoice::parse("0.01..").unwrap(), PhaseChoice::Range(Some(10 * MS), None));
    assert!(PhaseChoice::parse("5s..2s").unwrap_err().contains("not after"));
    assert!(PhaseChoice::parse("middle").unwrap_err().contains("not a phase"));
    assert!(PhaseChoice::parse("1h..").unwrap_err().contains("unknown unit"));
    assert!(PhaseChoice::parse("9s..").unwrap().window(&phases).unwrap_err().contains("after the run ends"));
    let sliced = t.clone().window(steady.start_ns, steady.end_ns);
    assert_eq!(sliced.ops.len(), 40);
    assert!(sliced.ops.iter().all(|op| op.kind() == OpKind::Kernel && t.name(op.name()) != "autotune_candidate"));
    // A run with no load phase refuses --phase load, naming what it has.
    let mut plain = Timeline::new("plain");
    for step in 0..5u64 {
        push(&mut plain, OpKind::Kernel, "a", step * MS, 10, None);
        push(&mut plain, OpKind::Kernel, "b", step * MS + 100, 10, None);
    }
    let p = find_phases(&plain);
    let err = PhaseChoice::Only(PhaseKind::Load).window(&p).unwrap_err();
    assert!(err.contains("no load phase") && err.contains("steady"), "{err}");
    assert_eq!(PhaseChoice::Steady.window(&p).unwrap(), None, "a run that is all steady state is not cut");
}

#[test]
fn without_steps_the_steady_state_follows_the_upload_and_empty_runs_have_no_phases() {
    let mut t = Timeline::new("loop");
    push(&mut t, OpKind::Memcpy, "Memcpy HtoD (Pageable -> Device)", 0, 300 * MS, None);
    push(&mut t, OpKind::Kernel, "randn", 301 * MS, MS, None);
    for i in 0..50 {
        push(&mut t, OpKind::Kernel, &format!("op{i}"), 310 * MS + i * 2 * MS, 2 * MS, None);
    }
    let phases = find_phases(&t);
    assert_eq!(phases.steady_steps, None);
    assert!(phases.note.as_deref().unwrap().contains("no repeating step"));
    assert_eq!(phases.get(PhaseKind::Load).unwrap().end_ns, 300 * MS);
    let steady = phases.get(PhaseKind::Steady).unwrap();
    assert_eq!((steady.start_ns, steady.ops), (300 * MS, 51));
    // One step of distinct ops (an op table of one training step): nothing is cut.
    let mut one = Timeline::new("one step");
    for i in 0..20 {
        push(&mut one, OpKind::Kernel, &format!("MatMul{i}"), i * MS, MS / 2, None);
    }
    let phases = find_phases(&one);
    assert_eq!(phases.phases.len(), 1);
    assert_eq!(PhaseChoice::Steady.window(&phases).unwrap(), None);
    assert!(find_phases(&Timeline::new("empty")).phases.is_empty());
    assert!(is_host_to_device("CopyHostToDevice") && !is_host_to_device("CUDA memcpy DtoH"));
}

/// Each phase's busy share is the union of the ops inside it over its length, as an interval
/// set clipped to the phase measures it; the same from the ops in any order.
#[test]
fn busy_shares_are_the_clipped_union_of_the_ops() {
    use prof_timeline::intervals::IntervalSet;
    let mut t = run();
    // Concurrent ops on another stream, overlapping the steps and each other.
    let side = t.intern("side");
    for (start, dur) in [(12 * MS, 2 * MS), (13 * MS, MS), (30 * MS, 5 * MS)] {
        t.push_op(DeviceOp::new(OpKind::Kernel, side, 0, 9, start, dur));
    }
    let found = find_phases(&t);
    assert!(found.phases.len() >= 3, "{:?}", found.phases);
    let all = IntervalSet::from_unsorted(t.ops.iter().map(|op| (op.start_ns, op.end_ns())).collect());
    for phase in &found.phases {
        let expected = all.clipped_ns(phase.start_ns, phase.end_ns) as f64 * 100.0
            / phase.end_ns.saturating_sub(phase.start_ns) as f64;
        assert!((phase.busy_pct - expected).abs() < 1e-9, "{phase:?}: expected {expected}");
    }
    let mut ordered = t.clone();
    ordered.ops.sort_by_key(|op| op.start_ns);
    assert_eq!(find_phases(&ordered), found);
}

/// The load's end is guessed at the first op after the leading uploads, on a timeline in
/// start order only.
#[test]
fn the_load_end_is_guessed_after_the_leading_uploads() {
    let t = run();
    let at = load_end_guess(&t).expect("a leading burst");
    assert_eq!(t.name(t.ops[at].name()), "autotune_candidate");
    let mut shuffled = run();
    shuffled.ops.swap(0, 5);
    assert_eq!(load_end_guess(&shuffled), None);
    let mut no_copies = Timeline::new("t");
    push(&mut no_copies, OpKind::Kernel, "k", 0, 10, None);
    push(&mut no_copies, OpKind::Kernel, "k", 20, 10, None);
    assert_eq!(load_end_guess(&no_copies), None);
}

/// The summary and stream roles of a timeline's ops from a position on equal those of the
/// timeline cut to them (span aside: the cut's host spans set it), on random timelines of
/// two devices and three streams whose ops overlap, come out of order within a stream, and
/// whose names' op types differ from op to op (the activity of a name is its first op's).
#[test]
fn the_ops_from_a_position_summarize_as_the_timeline_cut_to_them() {
    use crate::analysis::streams::{stream_roles, stream_roles_of};
    use crate::kernel_summary::{summarize_kernels, summarize_kernels_of};
    use prof_timeline::timeline::OpDetails;
    let families = crate::Families::builtin();
    let mut random = prof_timeline::test_random::XorShift::new(0x0005_eed0_fa11);
    for round in 0..60 {
        let mut t = Timeline::new("random");
        let names = ["gemm_kernel", "ncclDevKernel_AllReduce", "CUDA memcpy HtoD", "softmax", "custom_op"];
        let types = [t.intern("MatMul"), t.intern("HcomAllReduce"), t.intern("Add")];
        let mut start = 0;
        for _ in 0..(50 + random.below(400)) {
            start += 1 + random.below(5_000);
            let name = names[random.below(names.len() as u64) as usize];
            let kind = match name {
                "CUDA memcpy HtoD" => OpKind::Memcpy,
                "ncclDevKernel_AllReduce" => OpKind::Communication,
                _ => OpKind::Kernel,
            };
            let id = t.intern(name);
            let (device, stream) = (random.below(2) as u32, random.below(3));
            let op = DeviceOp::new(kind, id, device, stream, start, 1 + random.below(20_000));
            match random.below(3) {
                0 => t.push_op(op),
                k => {
                    let op_type = Some(types[random.below(types.len() as u64) as usize]);
                    t.push_op_with(op, OpDetails { op_type, block_dim: Some(k as u32), ..OpDetails::default() })
                }
            }
        }
        for _ in 0..4 {
            let at = 1 + random.below(t.ops.len() as u64 - 1) as usize;
            let cut = t.clone().window(t.ops[at].start_ns, u64::MAX);
            assert_eq!(cut.ops.len(), t.ops.len() - at, "round {round}");
            let mut summary = summarize_kernels_of(&t, &t.ops[at..], None, &families);
            summary.span_ns = cut.span_ns().map_or(0, |(lo, hi)| hi - lo);
            assert_eq!(summary, summarize_kernels(&cut, &families), "round {round}, from {at}");
            assert_eq!(stream_roles_of(&t, &t.ops[at..], &families), stream_roles(&cut, &families), "round {round}");
        }
    }
}

/// A jitted step traced with its compilation: XLA's autotuner times candidate kernels between
/// buffer checks (thousands on the H100's `jax-train-attention`, more op time than the steps),
/// then the steps run. The steps are found after the autotuner's last kernel; a kernel of the
/// same name outside `stream_executor::` is no autotuner's.
#[test]
fn a_run_traced_with_its_autotuning_has_its_steps_after_the_tuner() {
    let tuned = |prefix: &str| {
        let mut t = Timeline::new("jax");
        let mut rng = prof_timeline::test_random::XorShift::new(0x005e_ed0f_a070_7e11);
        let mut at = 0;
        for _ in 0..300 {
            // Each candidate: one to three buffer checks, the candidate, a comparison or not.
            let mut names =
                vec![format!("{prefix}RedzoneAllocatorKernelImpl(unsigned char*)"); 1 + rng.below(3) as usize];
            names.push(format!("gemm_candidate_{}", rng.below(200)));
            if rng.below(2) == 0 {
                names.push(format!("{prefix}xla_fp_comparison"));
            }
            names.push("CUDA memcpy HtoH (Pinned -> Pageable)".to_owned());
            for name in &names {
                let kind = if name.starts_with("CUDA memcpy") { OpKind::Memcpy } else { OpKind::Kernel };
                push(&mut t, kind, name, at, 300_000 + rng.below(100_000), None);
                at += 450_000;
            }
        }
        let tuner_end = at;
        at += 50 * MS;
        for _ in 0..11 {
            for name in ["fusion_3", "gemm_fusion_dot_1", "loop_add_fusion", "nvjet_sm90_tst_128x128"] {
                push(&mut t, OpKind::Kernel, name, at, 40_000, None);
                at += 45_000;
            }
        }
        (t, tuner_end)
    };
    let (t, tuner_end) = tuned("stream_executor::gpu::");
    // Over the whole run the tuner's ops hide the steps.
    let whole = sequence_steps(&t);
    let whole = whole.map(|w| w.spans.len());
    assert_ne!(whole, Some(11), "the steps found over the whole run");
    let phases = find_phases(&t);
    let steady = phases.get(PhaseKind::Steady).expect("a steady state");
    assert!(steady.start_ns >= tuner_end, "steady from {} before the tuner's end {tuner_end}", steady.start_ns);
    assert_eq!(phases.steady_steps, Some(11), "{:?}", phases.note);
    // The same names outside stream_executor are ordinary kernels: no cut after them.
    let (t, _) = tuned("my::");
    assert_eq!(marks::autotune_end(&t, &t.ops), None);
}
