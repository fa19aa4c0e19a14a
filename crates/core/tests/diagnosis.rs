//! Each diagnosis rule on a small synthetic timeline that triggers it and one that does not.

use prof_core::diagnosis::{HOST_BOUND_BUSY_PCT, REPREFILL_MIN_STEPS};
use prof_core::{
    diagnose, summarize_kernels, DeviceOp, DiagnosisKind, DiagnosisReport, Families, HostCategory, HostSpan, OpKind,
    Severity, Timeline,
};

/// `steps` repetitions of `step` (name, duration ns) on one stream, `gap` ns apart; a
/// duration of 0 in `step` takes `grow(step index)` instead.
fn run(step: &[(&str, u64)], steps: u64, gap: u64, grow: impl Fn(u64) -> u64) -> Timeline {
    let mut t = Timeline::new("synthetic");
    let mut at = 0;
    for index in 0..steps {
        for &(name, dur) in step {
            let dur = if dur == 0 { grow(index) } else { dur };
            let id = t.intern(name);
            t.push_op(DeviceOp::new(OpKind::Kernel, id, 0, 7, at, dur));
            at += dur + gap;
        }
    }
    t
}

fn report(t: &Timeline) -> DiagnosisReport {
    diagnose(t, &summarize_kernels(t, &Families::builtin()))
}

fn flat(_: u64) -> u64 {
    0
}

#[test]
fn healthy_dense_decode() {
    let decode = [("rms_norm_kernel", 5), ("gemv2T_kernel", 50), ("rms_norm_kernel", 5), ("gemv2T_kernel", 50)];
    let mut step = decode.to_vec();
    step.push(("flash_fwd_kernel", 20));
    let r = report(&run(&step, 3, 0, flat));
    let found = r.get(DiagnosisKind::HealthyDenseDecode).expect("healthy decode");
    assert_eq!(found.severity, Severity::Info);
    assert!(found.evidence[0].contains("gemv: 300 ns in 6 calls, 76.9 %"), "{:?}", found.evidence);
    step.push(("flash_fwd_kernel", 200));
    assert!(report(&run(&step, 3, 0, flat)).get(DiagnosisKind::HealthyDenseDecode).is_none());
}

#[test]
fn moe_shape_flags_only_heavy_routing() {
    let light = report(&run(&[("grouped_gemm_kernel", 100), ("topk_softmax", 10)], 2, 0, flat));
    assert_eq!(light.get(DiagnosisKind::MoeShape).map(|d| d.severity), Some(Severity::Info));
    let heavy = report(&run(&[("grouped_gemm_kernel", 100), ("moe_align_block_size", 60)], 2, 0, flat));
    let found = heavy.get(DiagnosisKind::MoeShape).expect("moe");
    assert_eq!(found.severity, Severity::Warning);
    assert!(found.evidence[3].contains("= 0.60"), "{:?}", found.evidence);
    assert!(report(&run(&[("ampere_sgemm_128x64_nn", 100), ("topk", 60)], 2, 0, flat))
        .get(DiagnosisKind::MoeShape)
        .is_none());
}

#[test]
fn moe_shape_names_the_expert_parallel_all_to_all_beside_it() {
    // Per step: 100 ns of experts, 10 of top-k, 90 of DeepEP dispatch: 180 of 400 ns = 45.0 %.
    let step =
        [("grouped_gemm_kernel", 100), ("topk_softmax", 10), ("void deep_ep::intranode::dispatch<8>(int4*)", 90)];
    let found = report(&run(&step, 2, 0, flat)).get(DiagnosisKind::MoeShape).cloned().expect("moe");
    let last = found.evidence.last().unwrap();
    assert!(
        last.starts_with("communication beside the experts: collective 180 ns in 2 calls, 45.0 % of device time"),
        "{last}"
    );
    let alone = report(&run(&step[..2], 2, 0, flat)).get(DiagnosisKind::MoeShape).cloned().expect("moe");
    assert!(!alone.evidence.iter().any(|e| e.starts_with("communication")), "{:?}", alone.evidence);
}

#[test]
fn quant_prep_flags_only_when_it_dwarfs_the_matmul() {
    let heavy = report(&run(&[("scaled_fp8_quant", 300), ("sm90_xmma_gemm_e4m3", 100)], 2, 0, flat));
    let found = heavy.get(DiagnosisKind::QuantPrep).expect("quant");
    assert_eq!(found.severity, Severity::Warning);
    assert!(found.evidence[2].contains("= 3.00"), "{:?}", found.evidence);
    let light = report(&run(&[("scaled_fp8_quant", 20), ("sm90_xmma_gemm_e4m3", 100)], 2, 0, flat));
    assert_eq!(light.get(DiagnosisKind::QuantPrep).map(|d| d.severity), Some(Severity::Info));
    assert!(report(&run(&[("sm90_xmma_gemm_e4m3", 100)], 2, 0, flat)).get(DiagnosisKind::QuantPrep).is_none());
}

#[test]
fn unfused_attention_is_gemm_plus_softmax_without_an_attention_kernel() {
    let layer = [("ampere_sgemm_128x64_nn", 40), ("softmax_warp_forward", 10), ("ampere_sgemm_128x64_nn", 40)];
    let step: Vec<_> = [&layer[..], &layer[..], &[("embedding_kernel", 5), ("argmax_kernel", 5)][..]].concat();
    let found = report(&run(&step, 3, 0, flat));
    let found = found.get(DiagnosisKind::UnfusedAttention).expect("unfused attention");
    assert_eq!(found.severity, Severity::Opportunity);
    assert!(found.evidence[0].contains("6 of 6 softmax launches (2.0 per step over 3 steps)"), "{:?}", found.evidence);
    let mut fused = step.clone();
    fused.push(("flash_fwd_kernel", 5));
    assert!(report(&run(&fused, 3, 0, flat)).get(DiagnosisKind::UnfusedAttention).is_none());
    let sampling = [("embedding_kernel", 5), ("ampere_sgemm_128x64_nn", 40), ("softmax_warp_forward", 10)];
    assert!(report(&run(&sampling, 3, 0, flat)).get(DiagnosisKind::UnfusedAttention).is_none());
}

#[test]
fn unfused_norm_is_many_elementwise_kernels_without_a_norm_kernel() {
    let mut step = vec![("ampere_sgemm_128x64_nn", 30)];
    step.extend([("vectorized_elementwise_kernel<pow>", 3), ("reduce_kernel<mean>", 2)]);
    step.extend([("vectorized_elementwise_kernel<rsqrt>", 3), ("vectorized_elementwise_kernel<mul>", 3)]);
    step.extend([("vectorized_elementwise_kernel<mul>", 3)]);
    let found = report(&run(&step, 2, 0, flat));
    let found = found.get(DiagnosisKind::UnfusedNormRope).expect("unfused norm");
    assert!(found.evidence[1].starts_with("rsqrt: 2 launches"), "{:?}", found.evidence);
    assert!(found.evidence[3].starts_with("4.0 elementwise calls per matmul call"), "{:?}", found.evidence);
    // Elementwise-heavy work with no rsqrt is no normalisation (an FP8 MLP's casts and scales).
    let no_norm: Vec<_> = step.iter().copied().filter(|(name, _)| !name.contains("rsqrt")).collect();
    assert!(report(&run(&no_norm, 2, 0, flat)).get(DiagnosisKind::UnfusedNormRope).is_none());
    step.push(("rms_norm_kernel", 2));
    assert!(report(&run(&step, 2, 0, flat)).get(DiagnosisKind::UnfusedNormRope).is_none());
}

#[test]
fn re_prefill_only_where_transformer_inference_steps_grow() {
    let step = [("embedding_kernel", 5), ("ampere_sgemm_128x128_nn", 0), ("flash_fwd_kernel", 5), ("sampling_topk", 5)];
    let growing = report(&run(&step, 6, 0, |i| 100 + 20 * i));
    let found = growing.get(DiagnosisKind::RePrefill).expect("re-prefill");
    assert_eq!(found.severity, Severity::Warning);
    assert_eq!(growing.steps.as_ref().map(|s| s.count), Some(6));
    // First two steps 100 + 120, last two 180 + 200 ns: ×1.73.
    assert!(found.evidence[3].contains("(×1.73"), "{:?}", found.evidence);
    // Steps of a flat cost are an encoder's, a prefill's or a CNN's as much as a decode's.
    assert!(report(&run(&step, 6, 0, |_| 100)).get(DiagnosisKind::RePrefill).is_none());
    // Growing steps without attention (no transformer) are no re-prefill either.
    let cnn = [("embedding_kernel", 5), ("ampere_sgemm_128x128_nn", 0), ("max_pool_forward_nchw", 5)];
    assert!(report(&run(&cnn, 6, 0, |i| 100 + 20 * i)).get(DiagnosisKind::RePrefill).is_none());
    let decode = [("embedding_kernel", 5), ("gemv2T_kernel", 100), ("flash_fwd_kernel", 5), ("sampling_topk", 5)];
    assert!(report(&run(&decode, 6, 0, flat)).get(DiagnosisKind::RePrefill).is_none());
    let few = report(&run(&step, REPREFILL_MIN_STEPS as u64 - 1, 0, |i| 100 + 20 * i));
    assert!(few.get(DiagnosisKind::RePrefill).is_none());
    let mut training = run(&step, 6, 0, |i| 100 + 20 * i);
    let backward = training.intern("autograd::engine::evaluate_function: MmBackward0");
    training.host.push(HostSpan::new(backward, HostCategory::Framework, (1, 1), 0, 10, None.into()));
    assert!(report(&training).get(DiagnosisKind::RePrefill).is_none());
    // Training told from its kernels alone (a CUPTI trace has no autograd spans).
    let backward = [("flash_bwd_kernel", 5), ("multi_tensor_apply_kernel", 5)];
    let trained: Vec<_> = step.iter().copied().chain(backward).collect();
    assert!(report(&run(&trained, 6, 0, |i| 100 + 20 * i)).get(DiagnosisKind::RePrefill).is_none());
}

#[test]
fn host_bound_when_the_device_mostly_waits() {
    let idle = report(&run(&[("gemv2T_kernel", 10)], 10, 90, flat));
    let found = idle.get(DiagnosisKind::HostBound).expect("host-bound");
    // 10 ops of 10 ns with 90 ns gaps: busy 100 of a 910 ns window.
    assert!(found.evidence[0].contains("busy 100 ns of a 910 ns window (11.0 %"), "{:?}", found.evidence);
    const { assert!(HOST_BOUND_BUSY_PCT > 11.0) };
    assert!(report(&run(&[("gemv2T_kernel", 10)], 10, 5, flat)).get(DiagnosisKind::HostBound).is_none());
    // An empty timeline is not host-bound: its one finding says it holds nothing.
    let kinds: Vec<DiagnosisKind> = report(&Timeline::new("empty")).findings.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, vec![DiagnosisKind::NoDeviceActivity]);
}

#[test]
fn one_long_idle_is_a_stall_not_launch_overhead() {
    // 7 ops of 100 ns, 100 ns apart, then one 3000 ns gap: idle 3600 of 4400 ns, the gap 83 % of it.
    let mut t = run(&[("ampere_sgemm_128x64_nn", 100)], 7, 100, flat);
    let id = t.intern("ampere_sgemm_128x64_nn");
    t.push_op(DeviceOp::new(OpKind::Kernel, id, 0, 7, 1_300 + 3_000, 100));
    let r = report(&t);
    assert!(r.get(DiagnosisKind::HostBound).is_none());
    let found = r.get(DiagnosisKind::IdleStretch).expect("idle stretch");
    assert!(
        found.evidence[1].starts_with("longest gap 3.0 µs at +1.3 µs (83.3 % of the idle time)"),
        "{:?}",
        found.evidence
    );
}

#[test]
fn pageable_copies_only_when_they_take_device_time() {
    let mut t = run(&[("ampere_sgemm_128x64_nn", 40_000)], 4, 1_000, flat);
    let copy = t.intern("Memcpy HtoD (Pageable -> Device)");
    for i in 0..4 {
        let op = DeviceOp::new(OpKind::Memcpy, copy, 0, 7, 200_000 + i * 60_000, 50_000);
        t.push_op_with(op, prof_core::OpDetails { bytes: Some(64 << 20), ..Default::default() });
    }
    let r = report(&t);
    let found = r.get(DiagnosisKind::PageableCopies).expect("pageable");
    // 4 × 50 µs of copies against 160 + 200 µs busy: 55.6 %; 256 MiB in 200 µs.
    assert!(
        found.evidence[0].starts_with("4 pageable copies, 200.0 µs (55.6 % of device 0's busy time"),
        "{:?}",
        found.evidence
    );
    assert!(found.evidence[2].starts_with("256.0 MiB moved at 1342.2 GB/s"), "{:?}", found.evidence);
    // One-scalar sync copies (`.item()`) are no data copies.
    let mut t = run(&[("ampere_sgemm_128x64_nn", 40_000)], 4, 1_000, flat);
    let back = t.intern("Memcpy DtoH (Device -> Pageable)");
    for i in 0..400 {
        t.push_op(DeviceOp::new(OpKind::Memcpy, back, 0, 7, 200_000 + i * 3_000, 2_000));
    }
    assert!(report(&t).get(DiagnosisKind::PageableCopies).is_none());
}

#[test]
fn host_syncs_only_when_several_a_step() {
    let step = [("embedding_kernel", 5), ("gemv2T_kernel", 100), ("flash_fwd_kernel", 5)];
    let with_syncs = |per_step: u64| {
        let mut t = run(&step, 6, 50, flat);
        let sync = t.intern("cudaStreamSynchronize");
        for i in 0..6 * per_step {
            t.host.push(HostSpan::new(sync, HostCategory::Runtime, (1, 1), i * 10, 3, None.into()));
        }
        report(&t)
    };
    let r = with_syncs(4);
    let found = r.get(DiagnosisKind::HostSyncs).expect("host syncs");
    assert!(
        found.evidence[0].starts_with("24 host calls that wait for the device, 4.0 per step over 6 steps"),
        "{:?}",
        found.evidence
    );
    assert!(found.evidence[1].starts_with("cudaStreamSynchronize: 24 calls, 72 ns"), "{:?}", found.evidence);
    assert!(with_syncs(1).get(DiagnosisKind::HostSyncs).is_none(), "one a step is a loss read or a stopping check");
    assert!(prof_core::diagnosis::host::is_sync_call("cudaDeviceSynchronize_v3020"));
    assert!(prof_core::diagnosis::host::is_sync_call("cuMemcpyDtoH_v2"));
    assert!(!prof_core::diagnosis::host::is_sync_call("cudaMemcpyAsync"));
}
