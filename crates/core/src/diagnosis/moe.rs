//! The MoE rules: a mixture of experts recognised from its routing and expert structure, and
//! the expert loop (experts run one after another as small dense GEMMs) told apart from
//! grouped expert GEMMs.
//!
//! - **Routing** ran when a kernel named as routing ran (router, gating, `moe_align`), or when
//!   top-k selections ran once per layer: at least [`TOPK_PER_STEP`] per step where steps are
//!   found, and at least [`TOPK_PER_ATTENTION`] per attention kernel where attention runs
//!   (sampling selects once a token, MoE routing once a layer).
//! - **MoE shape** (info; a warning when routing takes at least
//!   [`MOE_ROUTING_RIVAL_RATIO`](super::MOE_ROUTING_RIVAL_RATIO) × the grouped-matmul time):
//!   routing ran, or grouped matmuls are at least
//!   [`MOE_MIN_GROUPED_SHARE_PCT`](super::MOE_MIN_GROUPED_SHARE_PCT) % of compute time beside
//!   top-k, or beside index kernels where no top-k or router ran (the tokens sorted by expert,
//!   gathered and scattered back: their time is the routing's).
//! - **Expert loop** (opportunity): routing ran, grouped matmuls are below that share, and the
//!   experts' outputs are scatter-added back one expert at a time (at least
//!   [`LOOP_SCATTERS_PER_TOPK`] scatter-adds per top-k) between at least
//!   [`LOOP_MATMULS_PER_SCATTER`] matmuls each: the Python loop over experts of an eager MoE.

use super::shape::Shape;
use super::{finding, pct, us, Diagnosis, DiagnosisKind, Mix, MOE_MIN_GROUPED_SHARE_PCT, MOE_ROUTING_RIVAL_RATIO};
use crate::deepdive::Severity;
use crate::families::Family;
use crate::kernel_summary::KernelSummary;

/// Top-k selections per attention kernel from which the top-k is per-layer routing.
pub(crate) const TOPK_PER_ATTENTION: f64 = 0.5;
/// Top-k selections per step from which the top-k is per-layer routing (runs without an
/// attention kernel).
pub(crate) const TOPK_PER_STEP: f64 = 2.0;
/// Scatter-adds per top-k selection from which experts are combined one at a time.
pub(crate) const LOOP_SCATTERS_PER_TOPK: f64 = 2.0;
/// Matmul launches per scatter-add in an expert loop (gate/up and down projections).
pub(crate) const LOOP_MATMULS_PER_SCATTER: f64 = 2.0;

/// Why the run counts as MoE routing, if it does.
fn routing(mix: &Mix, shape: &Shape, steps: Option<usize>) -> Option<String> {
    if mix.calls(Family::MoeRouting) > 0 {
        return Some(format!("routing kernels: {}", mix.describe(Family::MoeRouting)));
    }
    if shape.topk_ops == 0 {
        return None;
    }
    let per_step = steps.map(|steps| shape.topk_ops as f64 / steps.max(1) as f64);
    if per_step.is_some_and(|per_step| per_step < TOPK_PER_STEP) {
        return None; // one selection a step: sampling (or a one-layer model)
    }
    if shape.attention_calls > 0 {
        let ratio = shape.topk_ops as f64 / shape.attention_calls as f64;
        return (ratio >= TOPK_PER_ATTENTION).then(|| {
            format!(
                "top-k: {} selections, {ratio:.2} per attention kernel (per-layer routing from {TOPK_PER_ATTENTION}; \
                 sampling selects once a token)",
                shape.topk_ops
            )
        });
    }
    // No attention kernel to compare with: the per-step rate, already at least TOPK_PER_STEP.
    let (steps, per_step) = (steps?, per_step?);
    Some(format!(
        "top-k: {} selections, {per_step:.1} per step over {steps} steps (routing from {TOPK_PER_STEP})",
        shape.topk_ops
    ))
}

/// The communication beside an MoE's experts, where any ran: in an expert-parallel run the
/// tokens' all-to-all (DeepEP's dispatch and combine are collectives: see the family table),
/// which can take as much device time as the experts.
fn communication(summary: &KernelSummary) -> Option<String> {
    let collective = summary.families.iter().find(|f| f.family == Family::Collective && f.total_ns > 0)?;
    Some(format!(
        "communication beside the experts: collective {} in {}, {:.1} % of device time (in an expert-parallel run, \
         the tokens' dispatch to their experts' ranks and the combine back)",
        us(collective.total_ns),
        prof_timeline::units::count(collective.calls, "call"),
        collective.share_pct
    ))
}

/// The MoE findings: the shape, and the expert loop when the experts run one by one.
pub(super) fn moe(mix: &Mix, shape: &Shape, steps: Option<usize>, summary: &KernelSummary) -> Vec<Diagnosis> {
    let grouped = mix.ns(Family::GroupedMatmul);
    let grouped_share = mix.share(grouped);
    let named_routing = shape.topk_ops > 0 || mix.calls(Family::MoeRouting) > 0;
    // Tokens routed by sorting them by expert (argsort, gather, scatter back: what callers of
    // `torch._grouped_mm` and MegaBlocks-style layers do) instead of a named top-k or router.
    let why = routing(mix, shape, steps);
    let sorted_routing = !named_routing && why.is_none() && mix.calls(Family::Index) > 0;
    let grouped_moe = grouped_share >= MOE_MIN_GROUPED_SHARE_PCT && (named_routing || sorted_routing);
    if why.is_none() && !grouped_moe {
        return Vec::new();
    }
    let mut routing_ns = mix.ns(Family::MoeRouting) + mix.ns(Family::TopK);
    let first = if sorted_routing {
        routing_ns += mix.ns(Family::Index);
        format!("routing by sorting the tokens by expert (no top-k or router kernel): {}", mix.describe(Family::Index))
    } else {
        format!("top-k: {} selections", shape.topk_ops)
    };
    let mut evidence = vec![why.unwrap_or(first)];
    if grouped > 0 {
        evidence.push(mix.describe(Family::GroupedMatmul));
    }
    evidence.push(if sorted_routing {
        format!("routing: {}", us(routing_ns))
    } else {
        format!("routing + top-k: {}", us(routing_ns))
    });
    let mut out = Vec::new();
    if grouped_moe {
        let ratio = routing_ns as f64 / grouped as f64;
        evidence.push(format!("routing / grouped matmul = {ratio:.2} (flagged from {MOE_ROUTING_RIVAL_RATIO})"));
        evidence.extend(communication(summary));
        let (severity, headline) = if ratio >= MOE_ROUTING_RIVAL_RATIO && sorted_routing {
            (
                Severity::Warning,
                "MoE: the routing (sorting, gathering and scattering the tokens by expert) rivals the expert \
                 matmuls; fuse the permutation into the grouped GEMM or batch it",
            )
        } else if ratio >= MOE_ROUTING_RIVAL_RATIO {
            (Severity::Warning, "MoE: routing and top-k rival the expert matmuls; fuse or batch the routing")
        } else {
            (Severity::Info, "MoE shape: grouped expert matmuls with light routing")
        };
        let shape_finding = finding(DiagnosisKind::MoeShape, severity, headline.to_owned(), evidence);
        out.extend(shape_finding.map(|d| d.about(routing_ns)));
        return out;
    }
    let headline = "MoE shape: top-k routing in every layer, experts as dense GEMM/GEMV kernels (no grouped \
                    expert GEMM)";
    evidence.extend(communication(summary));
    out.extend(finding(DiagnosisKind::MoeShape, Severity::Info, headline.to_owned(), evidence));
    let scatters_per_topk = shape.scatter_adds as f64 / shape.topk_ops.max(1) as f64;
    let matmuls_per_scatter = shape.matmul_calls as f64 / shape.scatter_adds.max(1) as f64;
    if shape.topk_ops > 0
        && scatters_per_topk >= LOOP_SCATTERS_PER_TOPK
        && matmuls_per_scatter >= LOOP_MATMULS_PER_SCATTER
    {
        let matmul = mix.matmul_ns();
        let evidence = vec![
            format!(
                "{} scatter-adds (index_add), {scatters_per_topk:.1} per top-k: one per expert hit (from {LOOP_SCATTERS_PER_TOPK})",
                shape.scatter_adds
            ),
            format!(
                "{} matmul launches, {matmuls_per_scatter:.1} per scatter-add, {} ({} % of compute time)",
                shape.matmul_calls,
                us(matmul),
                pct(mix.share(matmul))
            ),
            format!("grouped matmul: {} % of compute time", pct(grouped_share)),
        ];
        let headline = "MoE expert loop: experts run one after another as small GEMMs with a gather and a \
                        scatter-add each (an eager loop over experts); use a grouped GEMM (torch._grouped_mm, a \
                        fused MoE kernel)";
        let loop_finding = finding(DiagnosisKind::MoeExpertLoop, Severity::Opportunity, headline.to_owned(), evidence);
        out.extend(loop_finding.map(|d| d.about(matmul)));
    }
    out
}
