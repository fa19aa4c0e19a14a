//! The O(n²) re-prefill rule: decode steps that each re-run the whole sequence. Told first by
//! the work each step launches growing ([`super::growing`]); where that cannot tell, by
//! prefill-shaped steps (large GEMMs, not GEMVs) whose GEMM time grows step over step.

use super::steps::Steps;
use super::{
    finding, growing, pct, step_source, us, Diagnosis, DiagnosisKind, Mix, REPREFILL_GEMM_STEP_SHARE_PCT,
    REPREFILL_GROWTH_RATIO, REPREFILL_MIN_COMPUTE_SHARE_PCT, REPREFILL_MIN_STEPS, REPREFILL_STEP_FRACTION_PCT,
};
use crate::deepdive::Severity;
use crate::families::Family;
use crate::kernel_summary::KernelSummary;
use prof_timeline::timeline::Timeline;

/// The re-prefill finding, if `steps` of `timeline` show one.
pub(super) fn re_prefill(mix: &Mix, timeline: &Timeline, summary: &KernelSummary, steps: &Steps) -> Option<Diagnosis> {
    match growing::growing_work(timeline, steps) {
        growing::Work::Growing(mut evidence) => {
            evidence.insert(0, format!("{} steps, from {}", steps.count, step_source(&steps.source)));
            let headline = "O(n²) re-prefill: every step launches more work than the last (each decode step re-runs \
                            the whole sequence); use the KV cache";
            let found = finding(DiagnosisKind::RePrefill, Severity::Warning, headline.to_owned(), evidence);
            return found.map(|d| d.about(mix.ns(Family::Gemm) + mix.ns(Family::Attention)));
        }
        // The same work each step: a slower end is clocks or contention (an H200 prefill loop's
        // GEMMs slowed ×1.12 as it heated), not a growing sequence.
        growing::Work::Flat => return None,
        growing::Work::Unknown => {}
    }
    let large_share = mix.share(mix.ns(Family::Gemm));
    if steps.count < REPREFILL_MIN_STEPS || large_share < REPREFILL_MIN_COMPUTE_SHARE_PCT {
        return None;
    }
    let families = summary.family_map();
    let mut large = vec![0u64; steps.count];
    let mut matmul = vec![0u64; steps.count];
    for (op, step) in timeline.ops.iter().zip(steps.step_of(timeline).iter()) {
        let (Some(step), Some(family)) = (step, families.get(&op.name())) else { continue };
        if let (Some(l), Some(m)) = (large.get_mut(step as usize), matmul.get_mut(step as usize)) {
            *l += if *family == Family::Gemm { op.dur_ns() } else { 0 };
            *m += if family.is_matmul() { op.dur_ns() } else { 0 };
        }
    }
    let shaped = large
        .iter()
        .zip(&matmul)
        .filter(|&(&l, &m)| m > 0 && l as f64 * 100.0 >= REPREFILL_GEMM_STEP_SHARE_PCT * m as f64);
    let shaped = shaped.count();
    if (shaped as f64) * 100.0 < REPREFILL_STEP_FRACTION_PCT * steps.count as f64 {
        return None;
    }
    let k = (steps.count / 3).max(1);
    let mean = |part: &[u64]| part.iter().sum::<u64>() as f64 / part.len().max(1) as f64;
    let (first, last) =
        (mean(large.get(..k).unwrap_or_default()), mean(large.get(steps.count - k..).unwrap_or_default()));
    let growth = if first > 0.0 { last / first } else { 0.0 };
    if growth < REPREFILL_GROWTH_RATIO {
        return None;
    }
    let source = step_source(&steps.source);
    let evidence = vec![
        format!("{} steps, from {source}", steps.count),
        format!("{shaped} of {} steps have large GEMMs ≥ {REPREFILL_GEMM_STEP_SHARE_PCT} % of their matmul time", steps.count),
        format!("large GEMMs: {} % of compute time; GEMV: {} %", pct(large_share), pct(mix.share(mix.ns(Family::Gemv)))),
        format!(
            "large-GEMM time per step, mean over the first and last {k} step(s): {} → {} (×{growth:.2}, growing from ×{REPREFILL_GROWTH_RATIO})",
            us(first as u64),
            us(last as u64)
        ),
    ];
    let headline = "O(n²) re-prefill: prefill-shaped steps (large GEMMs, not GEMVs) that grow step over step; \
                    each decode step re-runs the whole sequence: use the KV cache";
    finding(DiagnosisKind::RePrefill, Severity::Warning, headline.to_owned(), evidence)
        .map(|d| d.about(mix.ns(Family::Gemm)))
}
