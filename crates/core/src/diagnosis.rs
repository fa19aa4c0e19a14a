//! Diagnosis of a kernel mix: rules over a [`KernelSummary`] (and the timeline's steps),
//! each finding with the numbers behind it (`prof breakdown` prints them; `--json` gives
//! [`DiagnosisReport`]).
//!
//! "Compute time" is the summed duration of every family but memcpy, memset and collective.
//! Rules and their thresholds:
//! - **healthy dense decode** (info): GEMV is the largest compute family, at least
//!   [`HEALTHY_GEMV_MIN_SHARE_PCT`] of compute time, with attention and norm each below it.
//! - **MoE shape** and **MoE expert loop**: see [`moe`] (routing from named routing kernels or
//!   per-layer top-k; grouped expert GEMMs; experts run one at a time).
//! - **low-bit quant prep**: quantize kernels are at least [`QUANT_MIN_SHARE_PCT`] of compute
//!   time beside some matmul. Info, a warning when quantize time is at least
//!   [`QUANT_DWARF_RATIO`] × the matmul time. Or, in an inference run, weights converted every
//!   step: dtype conversions that dwarf the matmuls they feed (see [`casts`]).
//! - **unfused attention** (opportunity): no attention-family kernel ran, and softmaxes ran
//!   between matmuls (a matmul at most [`sandwich::SANDWICH_BEFORE`] kernels before and
//!   [`sandwich::SANDWICH_AFTER`] after: QKᵀ, scale, mask, softmax, ·V) at least
//!   [`UNFUSED_ATTN_SOFTMAX_PER_STEP`] times per step; without steps, at least
//!   [`UNFUSED_ATTN_MIN_CALLS`] times and on at least [`UNFUSED_ATTN_MIN_PER_MATMUL_PCT`] % of
//!   matmul launches. A softmax is known by its name, or, unnamed (XLA's `fusion_7`), by its
//!   cost: a reduction that outlasts the matmuls around it (see [`sandwich`]); those are never a
//!   loss softmax, so [`UNFUSED_ATTN_HEAVY_PER_STEP`] a step is enough. A loss softmax (once a
//!   step) or an XLA fusion for a layer norm is not attention.
//! - **unfused norm/RoPE** (opportunity): no norm-family kernel, `rsqrt` kernels ran (a
//!   normalisation written as elementwise ops) at least every other step, elementwise kernels take at
//!   least [`UNFUSED_ELEMENTWISE_MIN_SHARE_PCT`] of compute time and run at least
//!   [`UNFUSED_ELEMENTWISE_CALLS_PER_MATMUL`] times per matmul call.
//! - **re-prefill** (warning): an inference run (no backward or optimizer kernel, no autograd
//!   span) that is transformer-shaped (attention kernels, or attention as GEMM + softmax), in
//!   which each step launches more work than the last (see `growing`: thread blocks per step
//!   growing step after step), or: at least [`REPREFILL_MIN_STEPS`] steps (see [`steps`]); in at
//!   least [`REPREFILL_STEP_FRACTION_PCT`] % of them large GEMMs (GEMM family, not GEMV) are at
//!   least [`REPREFILL_GEMM_STEP_SHARE_PCT`] % of the step's matmul time, large GEMMs are at
//!   least [`REPREFILL_MIN_COMPUTE_SHARE_PCT`] % of compute time, and their time per step grows:
//!   the mean of the last third of the steps at least [`REPREFILL_GROWTH_RATIO`] × the first
//!   third's, this time form only where the source records no grids (with grids, work that
//!   does not grow is not re-prefill however the times drift). Decode without a KV cache re-runs the whole sequence each step (O(n²) over a
//!   generation). Steps of a flat cost are not reported: an encoder, a prefill or a CNN looks
//!   the same.
//! - **layout transposes** (opportunity): see [`layout`] (layout transforms around
//!   convolutions: channels-last).
//! - **host-bound**, **idle stretch**, **pageable copies** and **host syncs**: see [`host`].
//! - **throttled** (warning): a frequency-like counter of a device (an SM clock, Ascend's
//!   `AI Core Freq`; see [`crate::analysis::counters`]) is below its nominal value (its
//!   maximum, less the drop tolerance) for at least [`THROTTLED_MIN_SHARE_PCT`] of the device's
//!   busy span: its ops' first start to last end; without ops (a `prof util` recording) the
//!   first to last sample of its utilization series at or above the busy threshold; else the
//!   series' own span. Idle down-clocking before and after the work is outside that span and
//!   not counted. The evidence gives the drops in the span, the time below nominal, the lowest
//!   clock against nominal and the throttle reasons active meanwhile, where the data has them.
//! - **no device activity** (warning; info for a window that leaves the ops out): no device op
//!   to rank; see [`no_device`] (a utilization recording, counters alone, has its own verdict).

mod casts;
mod growing;
pub mod host;
mod layout;
pub mod moe;
mod no_device;
mod re_prefill;
mod region_steps;
mod sandwich;
pub mod shape;
mod step_of;
pub mod steps;
mod throttled;
mod unfused;

use crate::deepdive::Severity;
use crate::families::Family;
use crate::kernel_summary::KernelSummary;
use prof_timeline::intern::FxHashMap;
use prof_timeline::timeline::Timeline;
use serde::Serialize;
use shape::Shape;
use steps::StepSource;

/// Least GEMV share of compute time, percent, for a healthy dense decode.
pub(crate) const HEALTHY_GEMV_MIN_SHARE_PCT: f64 = 30.0;
/// Least grouped-matmul share of compute time, percent, for an MoE shape.
pub(crate) const MOE_MIN_GROUPED_SHARE_PCT: f64 = 5.0;
/// Routing time at least this multiple of grouped-matmul time is flagged.
pub(crate) const MOE_ROUTING_RIVAL_RATIO: f64 = 0.5;
/// Least quantize share of compute time, percent, to report quant prep.
pub(crate) const QUANT_MIN_SHARE_PCT: f64 = 1.0;
/// Quantize time at least this multiple of matmul time is flagged.
pub(crate) const QUANT_DWARF_RATIO: f64 = 2.0;
/// Softmax-between-matmuls launches per step from which attention counts as unfused.
pub(crate) const UNFUSED_ATTN_SOFTMAX_PER_STEP: f64 = 2.0;
/// Softmaxes known by their cost ([`sandwich`]) per step from which attention counts as
/// unfused: a loss softmax is never one, so one a step (a one-layer model) is enough.
pub(crate) const UNFUSED_ATTN_HEAVY_PER_STEP: f64 = 1.0;
/// Without steps: fewest softmax-between-matmuls launches for unfused attention.
pub(crate) const UNFUSED_ATTN_MIN_CALLS: u64 = 8;
/// Without steps: least softmax-between-matmuls launches per 100 matmul launches.
pub(crate) const UNFUSED_ATTN_MIN_PER_MATMUL_PCT: f64 = 5.0;
/// Least elementwise share of compute time, percent, for unfused norm/RoPE.
pub(crate) const UNFUSED_ELEMENTWISE_MIN_SHARE_PCT: f64 = 20.0;
/// Least elementwise calls per matmul call for unfused norm/RoPE.
pub(crate) const UNFUSED_ELEMENTWISE_CALLS_PER_MATMUL: f64 = 3.0;
/// Elementwise launches one unfused norm takes (pow, mean, add, rsqrt, mul, mul): the device
/// time the unfused-norm finding is about is this many per rsqrt.
pub(crate) const UNFUSED_NORM_KERNELS: u64 = 6;
/// Fewest steps for the re-prefill rule.
pub const REPREFILL_MIN_STEPS: usize = 3;
/// Least large-GEMM share of a step's matmul time, percent, for a prefill-shaped step.
pub(crate) const REPREFILL_GEMM_STEP_SHARE_PCT: f64 = 50.0;
/// Least share of steps, percent, that must be prefill-shaped.
pub(crate) const REPREFILL_STEP_FRACTION_PCT: f64 = 80.0;
/// Least large-GEMM share of compute time, percent, for re-prefill.
pub(crate) const REPREFILL_MIN_COMPUTE_SHARE_PCT: f64 = 30.0;
/// Large-GEMM time per step growing by at least this factor (last third of the steps
/// against the first third) makes prefill-shaped steps a re-prefill.
pub(crate) const REPREFILL_GROWTH_RATIO: f64 = 1.05;
/// Busy share of wall time, percent, below which the device is host-bound.
pub const HOST_BOUND_BUSY_PCT: f64 = 50.0;
/// Least share of a device's busy span, percent, that a clock must spend below nominal for
/// the run to count as throttled (a short dip at a load change is not).
pub(crate) const THROTTLED_MIN_SHARE_PCT: f64 = 10.0;

/// Which rule a finding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DiagnosisKind {
    /// GEMV-dominated, attention and norm below it.
    HealthyDenseDecode,
    /// MoE: routing (named routing kernels or per-layer top-k) with grouped or dense experts.
    MoeShape,
    /// MoE experts run one at a time: small GEMMs with a scatter-add each.
    MoeExpertLoop,
    /// Low-bit quantize kernels beside the matmuls.
    QuantPrep,
    /// Attention as GEMM + softmax without an attention kernel.
    UnfusedAttention,
    /// Norm (and RoPE) as many elementwise kernels.
    UnfusedNormRope,
    /// Layout transposes around convolutions (an NCHW model): use channels-last.
    LayoutTransposes,
    /// Prefill-shaped work repeating every step.
    RePrefill,
    /// The device waits for the host between many small kernels.
    HostBound,
    /// The device waits for the host in few long stretches.
    IdleStretch,
    /// Host↔device copies from pageable memory take a real share of device time.
    PageableCopies,
    /// The host waits for the device several times a step.
    HostSyncs,
    /// A device clock held below its nominal value while busy (power cap, thermal limit).
    Throttled,
    /// No device op in the answer's window: what the source holds instead (host events only,
    /// nothing, ops outside the window).
    NoDeviceActivity,
}

/// One finding with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Diagnosis {
    /// Which rule.
    pub kind: DiagnosisKind,
    /// How serious.
    pub severity: Severity,
    /// One line that says it.
    pub headline: String,
    /// The numbers behind it, one fact a line.
    pub evidence: Vec<String>,
    /// The device time (summed op durations, ns) the finding is about, where a rule can say:
    /// what [`crate::answer`] weighs it by (added in 0.6.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_ns: Option<u64>,
}

impl Diagnosis {
    /// This finding, about `ns` of device time.
    pub(crate) fn about(mut self, ns: u64) -> Self {
        self.device_ns = Some(ns);
        self
    }
}

/// The steps the per-step rules used.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepInfo {
    /// Where they came from.
    pub source: StepSource,
    /// How many.
    pub count: usize,
}

impl StepInfo {
    /// True for steps a report may count as steps: the program's own marks, a repeating op
    /// sequence, or at least [`steps::MIN_KERNEL_STEPS`] launches of a repeating kernel.
    pub fn firm(&self) -> bool {
        !matches!(self.source, StepSource::RepeatingKernel(_)) || self.count >= steps::MIN_KERNEL_STEPS
    }
}

/// Every finding on one timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DiagnosisReport {
    /// Findings, those that say how much device time they are about first, largest first (the
    /// rest in rule order).
    pub findings: Vec<Diagnosis>,
    /// The steps found, if any.
    pub steps: Option<StepInfo>,
}

impl DiagnosisReport {
    /// The finding of `kind`, if that rule fired.
    pub fn get(&self, kind: DiagnosisKind) -> Option<&Diagnosis> {
        self.findings.iter().find(|d| d.kind == kind)
    }
}

struct Mix {
    compute_ns: u64,
    by_family: FxHashMap<Family, (u64, u64)>,
}

impl Mix {
    fn ns(&self, family: Family) -> u64 {
        self.by_family.get(&family).map_or(0, |v| v.0)
    }
    fn calls(&self, family: Family) -> u64 {
        self.by_family.get(&family).map_or(0, |v| v.1)
    }
    fn share(&self, ns: u64) -> f64 {
        if self.compute_ns == 0 {
            0.0
        } else {
            ns as f64 * 100.0 / self.compute_ns as f64
        }
    }
    fn matmul_ns(&self) -> u64 {
        self.ns(Family::Gemv) + self.ns(Family::Gemm) + self.ns(Family::GroupedMatmul)
    }
    fn describe(&self, family: Family) -> String {
        let ns = self.ns(family);
        format!(
            "{}: {} in {}, {} % of compute time",
            family.as_str(),
            us(ns),
            prof_timeline::units::count(self.calls(family), "call"),
            pct(self.share(ns))
        )
    }
}

/// Runs every rule on `timeline` and its `summary`.
pub fn diagnose(timeline: &Timeline, summary: &KernelSummary) -> DiagnosisReport {
    diagnose_with_sequence(timeline, summary, None)
}

/// [`diagnose`], with [`steps::sequence_steps`] of this very timeline already found
/// (`Some(found)`; [`crate::phases::Phases::sequence`] of it, uncut), so a 10 M-op run does not
/// look for its repeating sequence twice.
pub fn diagnose_with_sequence(
    timeline: &Timeline,
    summary: &KernelSummary,
    sequence: Option<Option<steps::StepSpans>>,
) -> DiagnosisReport {
    let mut by_family = FxHashMap::default();
    for f in summary.families.iter().filter(|f| f.family.is_compute()) {
        by_family.insert(f.family, (f.total_ns, f.calls));
    }
    let mix = Mix { compute_ns: by_family.values().map(|v| v.0).sum(), by_family };
    let steps = steps::segment_with(timeline, sequence);
    let info = steps.as_ref().map(|s| StepInfo { source: s.source.clone(), count: s.count });
    // The per-step rules count firm steps only (three launches of a setup kernel are no steps).
    let step_count = info.as_ref().filter(|i| i.firm()).map(|i| i.count.max(1));
    let shape = Shape::of(timeline, summary);
    let attention = unfused::unfused_attention(&mix, &shape, step_count);
    let transformer = shape.attention_calls > 0 || attention.is_some();
    // Only the re-prefill rule reads the steps past their count, on a transformer's inference
    // run: otherwise their bounds (16 bytes a step) go now, not after every rule has run.
    let steps = steps.filter(|_| transformer && !shape.training);
    let mut findings: Vec<Option<Diagnosis>> =
        vec![no_device::no_device_activity(timeline, summary), healthy_decode(&mix)];
    findings.extend(moe::moe(&mix, &shape, step_count, summary).into_iter().map(Some));
    findings.extend([
        quant_prep(&mix).or_else(|| casts::weight_casts(&mix, &shape)),
        attention,
        unfused::unfused_norm(&mix, &shape, step_count.unwrap_or(1)),
        layout::layout_transposes(&mix, summary.device_ns),
        steps.as_ref().and_then(|s| re_prefill::re_prefill(&mix, timeline, summary, s)),
        host::waiting(timeline, summary),
        host::pageable_copies(timeline, summary),
        host::host_syncs(timeline, step_count),
        throttled::throttled(timeline),
    ]);
    let mut findings: Vec<Diagnosis> = findings.into_iter().flatten().collect();
    // Ranked by the device time they explain (those that say none keep rule order after them).
    findings.sort_by_key(|d| std::cmp::Reverse(d.device_ns));
    DiagnosisReport { findings, steps: info }
}

fn finding(kind: DiagnosisKind, severity: Severity, headline: String, evidence: Vec<String>) -> Option<Diagnosis> {
    Some(Diagnosis { kind, severity, headline, evidence, device_ns: None })
}

fn healthy_decode(mix: &Mix) -> Option<Diagnosis> {
    let top = mix.by_family.iter().max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.0.cmp(a.0)))?;
    let gemv = mix.ns(Family::Gemv);
    let healthy = *top.0 == Family::Gemv
        && mix.share(gemv) >= HEALTHY_GEMV_MIN_SHARE_PCT
        && mix.ns(Family::Attention) < gemv
        && mix.ns(Family::Norm) < gemv;
    if !healthy {
        return None;
    }
    let evidence = [Family::Gemv, Family::Attention, Family::Norm].map(|f| mix.describe(f)).to_vec();
    let headline = "healthy dense decode: GEMV (weight streaming) leads, attention and norm below it".to_owned();
    finding(DiagnosisKind::HealthyDenseDecode, Severity::Info, headline, evidence)
}

fn quant_prep(mix: &Mix) -> Option<Diagnosis> {
    let quant = mix.ns(Family::Quantize);
    let matmul = mix.matmul_ns();
    if mix.share(quant) < QUANT_MIN_SHARE_PCT || matmul == 0 {
        return None;
    }
    let ratio = quant as f64 / matmul as f64;
    let evidence = vec![
        mix.describe(Family::Quantize),
        format!("matmul (GEMV + GEMM + grouped): {}", us(matmul)),
        format!("quantize / matmul = {ratio:.2} (flagged from {QUANT_DWARF_RATIO})"),
    ];
    let (severity, headline) = if ratio >= QUANT_DWARF_RATIO {
        (Severity::Warning, "low-bit quant prep dwarfs the matmuls it feeds: the low-bit saving is lost".to_owned())
    } else {
        (Severity::Info, "low-bit quantization: quantize kernels beside the matmuls, in proportion".to_owned())
    };
    finding(DiagnosisKind::QuantPrep, severity, headline, evidence).map(|d| d.about(quant))
}

/// How a step source reads in evidence and phase lines.
pub(crate) fn step_source(source: &StepSource) -> String {
    match source {
        StepSource::ProfilerSteps => "ProfilerStep annotations".to_owned(),
        StepSource::RepeatingSequence { period_ops, layers_per_step: None } => {
            format!("a repeating sequence of {period_ops} ops")
        }
        StepSource::RepeatingSequence { period_ops, layers_per_step: Some(layers) } => {
            format!("{layers} repeats of a {period_ops}-op layer per step")
        }
        StepSource::RepeatingKernel(name) => format!("launches of `{}`", short(name)),
    }
}

/// A duration in its unit (`45.3 µs`, `1.20 ms`).
fn us(ns: u64) -> String {
    prof_timeline::units::duration(ns as f64)
}

fn pct(value: f64) -> String {
    format!("{value:.1}")
}

/// `name` cut to its first 60 characters.
pub(crate) fn short(name: &str) -> &str {
    name.char_indices().nth(60).map_or(name, |(at, _)| &name[..at])
}
