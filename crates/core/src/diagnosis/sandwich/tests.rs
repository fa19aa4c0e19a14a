use super::*;
use crate::families::Families;
use crate::kernel_summary::summarize_kernels;

/// The counter that sees each stream's kernels once, in order, against the count written the
/// plain way (each stream's kernels gathered, sorted, and each softmax's or reduction's
/// neighbours looked at), on random streams of matmuls, softmaxes, reductions, copies and other
/// kernels.
#[test]
fn the_streaming_count_equals_a_look_at_each_kernels_neighbours() {
    let mut rng = prof_timeline::test_random::XorShift::new(0x1234_5678_9abc_def1u64);
    let mut next = |bound: u64| rng.below(bound);
    let names =
        ["ampere_sgemm_128x64_tn", "softmax_warp_forward", "fusion_7", "elementwise_kernel", "CUDA memcpy DtoD"];
    let (mut seen, mut seen_heavy, mut seen_light, mut seen_chained) = (0, 0, 0, 0);
    for round in 0..80 {
        let mut t = Timeline::new("random");
        for _ in 0..(10 + next(300)) {
            let pick = next(5) as usize;
            let kind = if pick == 4 { OpKind::Memcpy } else { OpKind::Kernel };
            let name = t.intern(names[pick]);
            // Durations around the matmul floor and the ratio, so every branch is taken.
            let dur = 1 + next(30_000);
            t.push_op(DeviceOp::new(kind, name, next(2) as u32, next(3), next(400) * 10, dur));
        }
        let summary = summarize_kernels(&t, &Families::builtin());
        // Per (device, stream): (start, role, duration) of each kernel.
        type Kernels = Vec<(u64, usize, u64)>;
        let mut streams: FxHashMap<(u32, u64), Kernels> = FxHashMap::default();
        for op in t.ops.iter().filter(|op| op.kind() == OpKind::Kernel) {
            let role = names.iter().position(|n| *n == t.name(op.name())).unwrap();
            streams.entry((op.device(), op.stream())).or_default().push((op.start_ns, role, op.dur_ns()));
        }
        let mut expected = Sandwiches::default();
        for ops in streams.values_mut() {
            ops.sort_by_key(|op| op.0);
            // The (matmul before, matmul after) of each counted kernel, each pair once; heavy
            // reductions by their pair, which counts unless another heavy pair ends at its
            // matmul before or starts at its matmul after (a chain of layers).
            let mut pairs = std::collections::BTreeSet::new();
            let mut heavy: std::collections::BTreeMap<(usize, usize), u64> = Default::default();
            for at in (0..ops.len()).filter(|&at| ops[at].1 == 1 || ops[at].1 == 2) {
                let before = (at.saturating_sub(SANDWICH_BEFORE)..at).rev().find(|&i| ops[i].1 == 0);
                let after = (at + 1..ops.len()).take(SANDWICH_AFTER).find(|&i| ops[i].1 == 0);
                let (Some(from), Some(to)) = (before, after) else { continue };
                if ops[at].1 == 1 {
                    expected.softmax += 1;
                    pairs.insert((from, to));
                } else {
                    let (b, a, r) = (ops[from].2, ops[to].2, ops[at].2);
                    if b.min(a) < 10_000 || (r as f64) < 1.25 * b.max(a) as f64 {
                        seen_light += 1;
                        continue;
                    }
                    *heavy.entry((from, to)).or_default() += 1;
                }
            }
            for (&(from, to), &n) in &heavy {
                if heavy.keys().any(|&(f, t)| t == from || f == to) {
                    seen_chained += 1;
                    continue;
                }
                expected.heavy += n;
                pairs.insert((from, to));
            }
            expected.ns += pairs.iter().map(|&(from, to)| ops[from..=to].iter().map(|o| o.2).sum::<u64>()).sum::<u64>();
        }
        let fusion = t.names.get("fusion_7");
        expected.heavy_name = fusion.filter(|_| expected.heavy > 0).map(|id| (id, expected.heavy));
        assert_eq!(sandwiches(&t, &summary), expected, "round {round}");
        let mut ordered = t.clone();
        ordered.ops.sort_by_key(|op| op.start_ns);
        assert_eq!(sandwiches(&ordered, &summary), expected, "round {round}");
        seen += expected.softmax;
        seen_heavy += expected.heavy;
    }
    assert!(
        seen > 0 && seen_heavy > 0 && seen_light > 0 && seen_chained > 0,
        "{seen} {seen_heavy} {seen_light} {seen_chained}"
    );
}

fn stream(kernels: &[(&str, u64)]) -> Timeline {
    let mut t = Timeline::new("sandwich");
    for (k, (name, dur)) in kernels.iter().enumerate() {
        let id = t.intern(name);
        t.push_op(DeviceOp::new(OpKind::Kernel, id, 0, 7, k as u64 * 100_000, *dur));
    }
    t
}

/// Without a softmax or reduction (or a matmul) in the summary of the timeline nothing is
/// walked; a summary of other ops (not this timeline's) does not stop the walk.
#[test]
fn a_summary_without_softmax_skips_the_walk_only_when_it_is_this_timelines() {
    let t = stream(&[("ampere_sgemm_128x64_tn", 5), ("softmax_warp_forward", 5), ("ampere_sgemm_128x64_tn", 5)]);
    let count = |t: &Timeline, s: &KernelSummary| {
        let found = sandwiches(t, s);
        (found.softmax, found.ns)
    };
    let own = summarize_kernels(&t, &Families::builtin());
    assert_eq!(count(&t, &own), (1, 15));
    // The matmuls alone: a summary of another timeline, whose op count differs.
    let mut matmuls = t.clone();
    matmuls.ops.retain(|op| t.name(op.name()) != "softmax_warp_forward");
    let other = summarize_kernels(&matmuls, &Families::builtin());
    assert_eq!(count(&t, &other), (1, 15));
    assert_eq!(count(&matmuls, &other), (0, 0));
    // Softmaxes without a matmul.
    let mut softmaxes = t.clone();
    softmaxes.ops.retain(|op| t.name(op.name()) == "softmax_warp_forward");
    assert_eq!(count(&softmaxes, &summarize_kernels(&softmaxes, &Families::builtin())), (0, 0));
}

/// The XLA attention of the H200 zoo (`jax-attention`: nvjet QKᵀ 154 µs, `fusion_7` 838 µs,
/// `gemm_fusion_dot_1` 142 µs) is attention by cost; a layer norm between two projections
/// (`jax-transformer`: `fusion_163` 12.9 µs between GEMMs of 14.0 and 46.1 µs) is not, nor is a
/// reduction beside launch-floor matmuls, nor one just under the ratio.
#[test]
fn an_unnamed_reduction_is_attention_only_when_it_outlasts_the_matmuls_around_it() {
    let heavy_of = |kernels: &[(&str, u64)]| {
        let t = stream(kernels);
        let found = sandwiches(&t, &summarize_kernels(&t, &Families::builtin()));
        (found.heavy, found.heavy_name.map(|(id, n)| (t.name(id).to_owned(), n)), found.ns)
    };
    let attention = [
        ("nvjet_sm90_tst_512x64_64x2_1x2_h_bz_coopB_TNN", 154_047),
        ("fusion_7", 838_008),
        ("gemm_fusion_dot_1", 141_599),
    ];
    assert_eq!(heavy_of(&attention), (1, Some(("fusion_7".to_owned(), 1)), 154_047 + 838_008 + 141_599));
    let norm =
        [("gemm_fusion_dot_5", 13_984), ("fusion_163", 12_864), ("nvjet_sm90_tst_128x160_64x5_4x2_h_bz_NNT", 46_080)];
    assert_eq!(heavy_of(&norm), (0, None, 0));
    let floor = [("gemm_fusion_dot_5", 4_000), ("fusion_163", 12_864), ("gemm_fusion_dot_5", 4_000)];
    assert_eq!(heavy_of(&floor), (0, None, 0));
    let under = [("gemm_fusion_dot_5", 40_000), ("fusion_163", 49_999), ("gemm_fusion_dot_5", 30_000)];
    assert_eq!(heavy_of(&under).0, 0);
    let at = [("gemm_fusion_dot_5", 40_000), ("fusion_163", 50_000), ("gemm_fusion_dot_5", 30_000)];
    assert_eq!(heavy_of(&at).0, 1);
    // Too far from the matmul after it (nine kernels on).
    let mut far = vec![attention[0], attention[1]];
    far.extend(std::iter::repeat_n(("loop_add_fusion", 1_000), SANDWICH_AFTER));
    far.push(attention[2]);
    assert_eq!(heavy_of(&far).0, 0);
}

/// A norm after every projection of a stack of square layers (the H100's `jax-ln-mlp-256`:
/// `fusion_81` 71 µs between GEMMs of 46 µs, 1.5×) outlasts its matmuls as a softmax does, but
/// each matmul after one norm is the matmul before the next: a chain of layers, not attention.
/// Two attention layers in a row keep their own QKᵀ and ·V.
#[test]
fn heavy_reductions_one_matmul_apart_are_a_stack_of_layers() {
    let heavy_of = |kernels: &[(&str, u64)]| {
        let t = stream(kernels);
        sandwiches(&t, &summarize_kernels(&t, &Families::builtin())).heavy
    };
    let gemm = ("nvjet_sm90_tst_128x128_64x6_2x1_v_bz_TNT", 46_000);
    let norm = ("fusion_81", 71_000);
    assert_eq!(heavy_of(&[gemm, norm, gemm, norm, gemm, norm, gemm]), 0);
    assert_eq!(heavy_of(&[gemm, norm, gemm]), 1);
    let (qk, softmax, pv) = (("nvjet_qk", 154_000), ("fusion_7", 838_000), ("gemm_fusion_dot_1", 142_000));
    assert_eq!(heavy_of(&[qk, softmax, pv, qk, softmax, pv]), 2);
    assert_eq!(heavy_of(&[qk, softmax, pv, ("loop_add_fusion", 5_000), qk, softmax, pv]), 2);
}
