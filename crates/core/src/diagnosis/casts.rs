//! Weights converted every step: dtype conversions (PyTorch's copies with a cast,
//! `LoadWithCast`) that take at least [`CAST_MIN_SHARE_PCT`] % of compute time and at least
//! [`CAST_DWARF_RATIO`] × the matmul time they feed. That is a weight-only low-bit model
//! dequantized outside its matmul kernel (`w.to(bf16) * scale` before every linear: the H100
//! zoo's int8 decode, 42.6 % in the cast and 42.5 % in the scale against 12.6 % of matmuls),
//! or weights cast under autocast at a batch too small for the matmuls to hide it. Activation
//! casts stay below: the eager-attention prefill's fp32 scores are 18 % of compute beside as
//! much matmul time. Reported as low-bit quant prep.

use super::shape::Shape;
use super::{finding, pct, us, Diagnosis, DiagnosisKind, Mix};
use crate::deepdive::Severity;

/// Least share of compute time, percent, of the conversions.
pub(crate) const CAST_MIN_SHARE_PCT: f64 = 20.0;
/// Least conversion time as a multiple of the matmul time.
pub(crate) const CAST_DWARF_RATIO: f64 = 2.0;

/// The finding, where the conversions dwarf the matmuls of an inference run.
pub(super) fn weight_casts(mix: &Mix, shape: &Shape) -> Option<Diagnosis> {
    let matmul = mix.matmul_ns();
    let share = mix.share(shape.cast_ns);
    if shape.training || matmul == 0 || share < CAST_MIN_SHARE_PCT {
        return None;
    }
    let ratio = shape.cast_ns as f64 / matmul as f64;
    if ratio < CAST_DWARF_RATIO {
        return None;
    }
    let evidence = vec![
        format!(
            "dtype conversions (copies with a cast): {} in {}, {} % of compute time",
            us(shape.cast_ns),
            prof_timeline::units::count(shape.cast_calls, "call"),
            pct(share)
        ),
        format!(
            "matmul (GEMV + GEMM + grouped): {} in {}",
            us(matmul),
            prof_timeline::units::count(shape.matmul_calls, "call")
        ),
        format!("conversions / matmul = {ratio:.2} (flagged from {CAST_DWARF_RATIO})"),
    ];
    let headline = "weights converted every step: dtype conversions dwarf the matmuls they feed (weight-only \
                    low-bit weights dequantized outside the matmul, or weights cast at a batch too small to hide \
                    it); use a fused low-bit kernel (int8/int4 weight-only) or keep the weights in the compute dtype";
    finding(DiagnosisKind::QuantPrep, Severity::Warning, headline.to_owned(), evidence).map(|d| d.about(shape.cast_ns))
}
