//! The unfused rules: **unfused attention** (QKᵀ, softmax and ·V as separate kernels where no
//! attention kernel ran) and **unfused norm/RoPE** (normalisation written as elementwise ops);
//! thresholds and their reasons in the parent module's notes.

use super::sandwich::HEAVY_REDUCTION_RATIO;
use super::*;

pub(super) fn unfused_attention(mix: &Mix, shape: &Shape, steps: Option<usize>) -> Option<Diagnosis> {
    let gemm = mix.ns(Family::Gemm) + mix.ns(Family::Gemv);
    let (named, heavy) = (shape.sandwiched_softmax, shape.heavy_reductions);
    let sandwiched = named + heavy;
    if mix.ns(Family::Attention) > 0 || gemm == 0 || sandwiched == 0 {
        return None;
    }
    let per_matmul_pct = sandwiched as f64 * 100.0 / shape.matmul_calls.max(1) as f64;
    let (fires, rate) = match steps {
        Some(steps) => {
            let per_step = sandwiched as f64 / steps as f64;
            // A softmax known by its cost is no loss softmax (module notes of `sandwich`):
            // one a step is a one-layer model's attention.
            let fires =
                per_step >= UNFUSED_ATTN_SOFTMAX_PER_STEP || heavy as f64 / steps as f64 >= UNFUSED_ATTN_HEAVY_PER_STEP;
            (fires, format!("{per_step:.1} per step over {steps} steps"))
        }
        None => (
            sandwiched >= UNFUSED_ATTN_MIN_CALLS && per_matmul_pct >= UNFUSED_ATTN_MIN_PER_MATMUL_PCT,
            format!("{per_matmul_pct:.1} per 100 matmul launches, no steps found"),
        ),
    };
    if !fires {
        return None;
    }
    // The softmaxes first (the answer quotes a finding's first line), then what ran beside them.
    let mut evidence = Vec::new();
    // The rate goes with the one kind of softmax found, or on a line of its own for both.
    let alone = |count: u64| if count == sandwiched { format!(" ({rate})") } else { String::new() };
    if named > 0 {
        evidence.push(format!(
            "softmax between matmuls: {named} of {} softmax launches{}, {} in all softmax",
            shape.softmax_calls,
            alone(named),
            us(shape.softmax_ns)
        ));
    }
    if let Some((name, n)) = &shape.heavy_reduction {
        evidence.push(format!(
            "softmax by its cost: {heavy} reductions between matmuls, {n} of them `{name}`{}, each at least \
             {HEAVY_REDUCTION_RATIO:.2}× the longer matmul beside it: a row-wise pass outlasts its GEMM only when \
             the GEMM's inner dimension is a head's width (attention scores)",
            alone(heavy)
        ));
    }
    if named > 0 && heavy > 0 {
        evidence.push(format!("{sandwiched} attention softmaxes in all ({rate})"));
    }
    evidence.extend([
        "attention: no attention-family kernel (flash, fmha, SDPA…) ran".to_owned(),
        format!(
            "the attention pieces (QKᵀ matmul through ·V matmul, masks and casts between): {}",
            us(shape.sandwich_ns)
        ),
        format!("GEMM + GEMV: {}", us(gemm)),
        mix.describe(Family::Elementwise),
    ]);
    let headline =
        "unfused attention: attention runs as GEMM + softmax + elementwise kernels; use a fused attention kernel \
         (SDPA / flash; in JAX jax.nn.dot_product_attention)"
            .to_owned();
    let softmax_ns = if named > 0 { shape.softmax_ns } else { 0 };
    finding(DiagnosisKind::UnfusedAttention, Severity::Opportunity, headline, evidence)
        .map(|d| d.about(shape.sandwich_ns.max(softmax_ns)))
}

pub(super) fn unfused_norm(mix: &Mix, shape: &Shape, steps: usize) -> Option<Diagnosis> {
    let elementwise = mix.ns(Family::Elementwise);
    let matmul_calls = mix.calls(Family::Gemv) + mix.calls(Family::Gemm) + mix.calls(Family::GroupedMatmul);
    if mix.ns(Family::Norm) > 0 || matmul_calls == 0 || shape.rsqrt_calls * 2 < steps as u64 {
        return None;
    }
    let per_matmul = mix.calls(Family::Elementwise) as f64 / matmul_calls as f64;
    if mix.share(elementwise) < UNFUSED_ELEMENTWISE_MIN_SHARE_PCT || per_matmul < UNFUSED_ELEMENTWISE_CALLS_PER_MATMUL {
        return None;
    }
    let rope = if mix.ns(Family::Rope) == 0 { "no RoPE kernel either" } else { "a RoPE kernel ran" };
    let evidence = vec![
        format!("norm: no norm-family kernel ran; {rope}"),
        format!("rsqrt: {} launches, a normalisation written as elementwise ops", shape.rsqrt_calls),
        mix.describe(Family::Elementwise),
        format!("{per_matmul:.1} elementwise calls per matmul call ({matmul_calls} matmul calls)"),
    ];
    let headline = "unfused norm/RoPE: normalisation runs as many small elementwise kernels; use fused \
                    RMSNorm/LayerNorm (and RoPE) kernels"
        .to_owned();
    // The time the unfused norms take: each rsqrt stands for one norm of about
    // UNFUSED_NORM_KERNELS elementwise launches (pow, mean, add, rsqrt, mul, mul) at the mean
    // elementwise launch's time, at most all elementwise time (activations and residual adds
    // are elementwise too, and not this finding's).
    let per_call = elementwise / mix.calls(Family::Elementwise).max(1);
    let norms = (shape.rsqrt_calls * UNFUSED_NORM_KERNELS * per_call).min(elementwise);
    finding(DiagnosisKind::UnfusedNormRope, Severity::Opportunity, headline, evidence).map(|d| d.about(norms))
}
