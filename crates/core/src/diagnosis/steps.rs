//! Step segmentation for the per-step diagnosis rules.
//!
//! Three sources, in this order:
//! 0. **A repeating op sequence** ([`sequence_steps`]): on the main stream (most ops) of the
//!    device with the most ops, the repeating structure of op names
//!    ([`repeats`](crate::analysis::repeats::repeats), the rules of the layer analysis). Each
//!    repeat of the winning period is a step, in every region of that period (a decode step
//!    repeats as a whole, its transformer layers inside it; the prefill of a second `generate`
//!    call breaks the region and belongs to no step). When the period has no inner repeat and
//!    its regions are themselves regular (at least [`MIN_SEQUENCE_STEPS`] regions, at least
//!    [`REGULAR_REGIONS_PCT`] % of them with the same repeat count, and their repeats holding at
//!    least half of the ops from the first region to the last), the period is a layer and
//!    each region plus the ops up to the next region is a step (the layers of a decode step
//!    broken by the step's own prologue and epilogue). At least [`MIN_SEQUENCE_STEPS`] steps;
//!    a winning period that repeats fewer times (a run of two `generate` calls repeats as a
//!    whole) is looked inside: the best period below half of it is taken instead. Steps that
//!    hold less than [`MIN_STEP_COVERAGE_PCT`] % of the main stream's ops from the first step
//!    on are no steps (an expert loop that changes from token to token breaks the sequence).
//! 1. **Profiler steps**: host annotations named `ProfilerStep#N` (torch.profiler writes
//!    one per `prof.step()`). An op belongs to the step whose span holds its launch (the
//!    host span with the op's correlation id), or its own start when it has no launch.
//! 2. **A repeating kernel**: on the device with the most ops, kernels are counted by name;
//!    the step count is the smallest count of at least [`MIN_ANCHOR_CALLS`] shared by two or
//!    more kernel names (a step runs each of its once-per-step kernels once), or failing
//!    that the smallest count of at least [`MIN_ANCHOR_CALLS`]. Of the names with that count
//!    the one that runs first is the anchor; each launch of it starts a step, which lasts
//!    until the next. Ops before the first anchor belong to no step.

pub use super::step_of::StepOf;
use super::step_of::{Bounds, LazyStepOf};
use crate::analysis::main_stream::MainStream;
use crate::analysis::prefix::PrefixSums;
use crate::analysis::repeats::{repeats, repeats_below};
use prof_timeline::intern::{FxHashMap, NameId};
use prof_timeline::timeline::{DeviceOp, OpKind, Timeline};
use serde::Serialize;

/// A kernel must run at least this many times to mark steps.
pub(crate) const MIN_ANCHOR_CALLS: u64 = 3;
/// Fewest steps marked by a repeating kernel alone (source 2) that the answer and the per-step
/// rules count as steps: three launches of a setup kernel around a compile (the H100 zoo's
/// FlexAttention run, whose phases find no repeating step) are too little to call steps.
pub const MIN_KERNEL_STEPS: usize = 5;

use crate::analysis::profiler_steps::profiler_step_spans;

/// Fewest steps a repeating op sequence must give.
pub const MIN_SEQUENCE_STEPS: usize = 3;
/// Share (percent) of the main stream's ops from the first step on that the steps must hold.
pub(crate) const MIN_STEP_COVERAGE_PCT: f64 = 50.0;
/// Share of regions (percent) that must hold the same number of repeats for the regions to be
/// the steps.
pub(crate) const REGULAR_REGIONS_PCT: f64 = 70.0;

/// Where the steps came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepSource {
    /// Repeats of an op sequence of this many ops on the main stream (a step of repeated
    /// layers when `layers_per_step` is set: the repeat found was a layer).
    RepeatingSequence {
        /// Ops in the repeating sequence.
        period_ops: usize,
        /// Layers per step, when each step is a region of repeated layers.
        layers_per_step: Option<usize>,
    },
    /// `ProfilerStep#N` host annotations.
    ProfilerSteps,
    /// Launches of this kernel start each step.
    RepeatingKernel(String),
}

/// The steps of a timeline and, on request, the step of each op.
#[derive(Debug, Clone, PartialEq)]
pub struct Steps {
    /// Where the steps came from.
    pub source: StepSource,
    /// Number of steps.
    pub count: usize,
    /// Where they lie, and the step of each op once asked for.
    step_of: LazyStepOf,
}

impl Steps {
    /// Step index of each op of `timeline.ops` (same order), `None` outside every step;
    /// `timeline` must be the one the steps were found on. Worked out on the first call.
    pub fn step_of(&self, timeline: &Timeline) -> &StepOf {
        self.step_of.get(timeline)
    }
}

/// Segments `timeline` into steps, or `None` when no source finds any.
#[cfg(test)]
fn segment(timeline: &Timeline) -> Option<Steps> {
    segment_with(timeline, None)
}

/// [`segment`], with [`sequence_steps`] of `timeline` already found (`Some(found)`, where
/// `found` may be `None`) or not (`None`).
pub(crate) fn segment_with(timeline: &Timeline, sequence: Option<Option<StepSpans>>) -> Option<Steps> {
    sequence
        .unwrap_or_else(|| sequence_steps(timeline))
        .map(StepSpans::assign)
        .or_else(|| profiler_steps(timeline))
        .or_else(|| repeating_kernel(timeline))
}

/// How many steps [`crate::diagnose`] finds in `timeline` (the same sources, in the same
/// order), without running any rule: `prof diff` compares per step with it.
pub fn count(timeline: &Timeline) -> Option<usize> {
    segment_with(timeline, None).map(|steps| steps.count)
}

/// Steps as device-time spans on the main stream, before ops are assigned to them.
#[derive(Debug, Clone, PartialEq)]
pub struct StepSpans {
    /// Where they came from.
    pub source: StepSource,
    /// `[start, end)` of each step, ns, in start order, not overlapping.
    pub spans: Vec<(u64, u64)>,
}

impl StepSpans {
    /// The steps: each op of the timeline is in the step whose span holds its start.
    pub fn assign(self) -> Steps {
        let count = self.spans.len();
        Steps { source: self.source, count, step_of: LazyStepOf::new(Bounds::Spans(self.spans)) }
    }
}

/// The steps of a repeating op sequence on the main stream (source 0 above), or `None`.
pub(crate) fn sequence_steps(timeline: &Timeline) -> Option<StepSpans> {
    sequence_steps_in(&timeline.ops)
}

/// [`sequence_steps`] of some of a timeline's ops (those after its load, say).
pub(crate) fn sequence_steps_in(all: &[DeviceOp]) -> Option<StepSpans> {
    let mut main = MainStream::of(all);
    let len = main.len();
    let (names, prefix) = (&main.names, &main.prefix);
    let mut found = repeats(names, prefix)?;
    // A repeat that holds the run only a few times (two `generate` calls) is looked inside.
    for _ in 0..3 {
        let steps: usize = found.regions.iter().map(|&(_, r)| r).sum();
        if steps >= MIN_SEQUENCE_STEPS {
            break;
        }
        match repeats_below(names, prefix, found.period / 2) {
            Some(inner) => found = inner,
            None => break,
        }
    }
    let p = found.period;
    // The names and sums (about 8 bytes an op) are not needed past the search.
    (main.names, main.prefix) = (Vec::new(), PrefixSums::default());
    let mut counts: FxHashMap<usize, usize> = FxHashMap::default();
    for &(_, r) in &found.regions {
        *counts.entry(r).or_default() += 1;
    }
    let (modal, modal_count) = counts.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))).map(|(&r, &c)| (r, c))?;
    // Regions that are steps hold most of each step: their layers, not a small pattern
    // inside a step that mostly does something else.
    let spread = match (found.regions.first(), found.regions.last()) {
        (Some(&(first, _)), Some(&(last, r))) => last + r * p - first,
        _ => 0,
    };
    let layered: usize = found.regions.iter().map(|&(_, r)| r * p).sum();
    let regular = found.regions.len() >= MIN_SEQUENCE_STEPS
        && modal_count as f64 * 100.0 >= REGULAR_REGIONS_PCT * found.regions.len() as f64
        && layered * 2 >= spread;
    // Each step is [start of its first op, start of the next step's first op), the last one
    // (of the run, or of a region) up to the latest end of its ops: those starts and ends,
    // read in one walk of the stream.
    let (spans, layers_per_step) = if found.inner_period.is_none() && regular {
        // Each region of layers, with the ops up to the next region, is one step; the last
        // step ends where its region ends plus the median gap that followed the others.
        let starts: Vec<usize> = found.regions.iter().map(|&(s, _)| s).collect();
        let mut tails: Vec<usize> =
            found.regions.windows(2).map(|w| w[1].0.saturating_sub(w[0].0 + w[0].1 * p)).collect();
        tails.sort_unstable();
        let tail = tails.get(tails.len() / 2).copied().unwrap_or(0);
        let last = found.regions.last().map(|&(s, r)| (s, (s + r * p + tail).min(len)));
        let (at, end) = main.starts_and_ends(&starts, &last.into_iter().collect::<Vec<_>>());
        let spans = (0..at.len()).map(|i| (at[i], at.get(i + 1).or(end.first()).copied().unwrap_or(0))).collect();
        (spans, Some(modal))
    } else {
        // Step k of a region of r starts at s + k·p; the last one of each region ends at the
        // latest end of its ops, the others where the next one starts: in one walk of the
        // stream, without a list of the steps' positions (a run of millions of steps).
        let walked = found.regions.last().map_or(0, |&(s, r)| s + r * p);
        let spans = super::region_steps::region_step_spans(&found.regions, p, main.ops().take(walked));
        (spans, None)
    };
    let mut spans: Vec<(u64, u64)> = spans;
    for i in 1..spans.len() {
        if spans[i - 1].1 > spans[i].0 {
            spans[i - 1].1 = spans[i].0;
        }
    }
    spans.retain(|&(start, end)| end > start);
    if spans.len() < MIN_SEQUENCE_STEPS {
        return None;
    }
    // Steps that leave most of the run after them outside (an expert loop that changes from
    // token to token breaks the sequence) do not describe the run.
    let (after, inside) = super::region_steps::step_coverage(&main, &spans);
    if (inside as f64) * 100.0 < MIN_STEP_COVERAGE_PCT * after as f64 {
        return None;
    }
    Some(StepSpans { source: StepSource::RepeatingSequence { period_ops: p, layers_per_step }, spans })
}

fn profiler_steps(timeline: &Timeline) -> Option<Steps> {
    let spans = profiler_step_spans(timeline);
    if spans.is_empty() {
        return None;
    }
    let count = spans.len();
    Some(Steps { source: StepSource::ProfilerSteps, count, step_of: LazyStepOf::new(Bounds::Launches(spans)) })
}

fn repeating_kernel(timeline: &Timeline) -> Option<Steps> {
    let mut per_device: FxHashMap<u32, usize> = FxHashMap::default();
    for op in &timeline.ops {
        *per_device.entry(op.device()).or_default() += 1;
    }
    let device = per_device.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))?.0;
    let mut kernels: Vec<(u64, NameId)> = timeline
        .ops
        .iter()
        .filter(|op| op.device() == device && op.kind() == OpKind::Kernel)
        .map(|op| (op.start_ns, op.name()))
        .collect();
    kernels.sort_unstable();
    let mut counts: FxHashMap<NameId, (u64, usize)> = FxHashMap::default();
    for (position, &(_, name)) in kernels.iter().enumerate() {
        counts.entry(name).or_insert((0, position)).0 += 1;
    }
    let mut names_with: FxHashMap<u64, usize> = FxHashMap::default();
    for &(count, _) in counts.values() {
        *names_with.entry(count).or_default() += 1;
    }
    let eligible = |shared: usize| {
        names_with
            .iter()
            .filter(|&(&count, &names)| count >= MIN_ANCHOR_CALLS && names >= shared)
            .map(|(&c, _)| c)
            .min()
    };
    let step_count = eligible(2).or_else(|| eligible(1))?;
    let anchor = counts.iter().filter(|(_, &(count, _))| count == step_count).min_by_key(|(_, &(_, first))| first)?.0;
    let bounds: Vec<u64> = kernels.iter().filter(|(_, name)| name == anchor).map(|&(start, _)| start).collect();
    let source = StepSource::RepeatingKernel(timeline.name(*anchor).to_owned());
    Some(Steps { source, count: bounds.len(), step_of: LazyStepOf::new(Bounds::Starts(bounds)) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::profiler_steps::profiler_step_count;
    use prof_timeline::timeline::{DeviceOp, HostSpan};
    use prof_timeline::HostCategory;

    fn op(t: &mut Timeline, name: &str, start: u64) {
        let id = t.intern(name);
        t.push_op(DeviceOp::new(OpKind::Kernel, id, 0, 7, start, 10));
    }

    #[test]
    fn anchor_is_the_first_once_per_step_kernel() {
        let mut t = Timeline::new("test");
        op(&mut t, "warmup", 0);
        for step in 0..3u64 {
            let base = 100 + step * 100;
            op(&mut t, "norm", base);
            op(&mut t, "gemv", base + 10);
            op(&mut t, "norm", base + 20);
            op(&mut t, "gemv", base + 30);
            op(&mut t, "attn", base + 40);
            op(&mut t, "topk", base + 50);
        }
        // The whole step repeats: each repeat of the 6-op sequence is a step.
        let steps = segment(&t).unwrap();
        assert_eq!(steps.source, StepSource::RepeatingSequence { period_ops: 6, layers_per_step: None });
        assert_eq!(steps.count, 3);
        assert_eq!(steps.step_of(&t).get(0), None);
        assert_eq!(steps.step_of(&t).get(1), Some(0));
        assert_eq!(steps.step_of(&t).get(6), Some(0));
        assert_eq!(steps.step_of(&t).get(7), Some(1));
        assert_eq!(steps.step_of(&t).get(18), Some(2));
        // The kernel rule alone anchors on the first once-per-step kernel.
        let steps = repeating_kernel(&t).unwrap();
        assert_eq!(steps.source, StepSource::RepeatingKernel("attn".into()));
        assert_eq!(steps.count, 3);
        assert_eq!(steps.step_of(&t).get(0), None);
        assert_eq!(steps.step_of(&t).get(5), Some(0));
        assert_eq!(steps.step_of(&t).get(6), Some(0));
        assert_eq!(steps.step_of(&t).get(18), Some(2));
    }

    #[test]
    fn steps_of_repeated_layers_split_at_the_step_prologue() {
        // 4 decode steps: embed, 3 layers of (norm, gemv, act), then head and argmax; gemv
        // and act change kernels from step to step (as split-k attention does with length),
        // so whole steps do not repeat. The layers repeat in 4 regions of 3; each region with
        // the ops up to the next is a step.
        let mut t = Timeline::new("test");
        let mut at = 0;
        for step in 0..4 {
            let (gemv, act) = (format!("gemv{step}"), format!("act{step}"));
            let mut names = vec!["embed"];
            for _ in 0..3 {
                names.extend(["norm", gemv.as_str(), act.as_str()]);
            }
            names.extend(["head", "argmax"]);
            for name in names {
                op(&mut t, name, at);
                at += 20;
            }
            at += 500;
        }
        let found = sequence_steps(&t).unwrap();
        assert_eq!(found.source, StepSource::RepeatingSequence { period_ops: 3, layers_per_step: Some(3) });
        assert_eq!(found.spans.len(), 4);
        let steps = found.assign();
        // op 0 (embed of step 0) lies before the first region; op 12 (embed of step 1)
        // belongs to step 0, which runs until the next region.
        assert_eq!(steps.step_of(&t).get(0), None);
        assert_eq!(steps.step_of(&t).get(1), Some(0));
        assert_eq!(steps.step_of(&t).get(10), Some(0));
        assert_eq!(steps.step_of(&t).get(13), Some(1));
        assert_eq!(steps.step_of(&t).get(4 * 12 - 1), Some(3), "the last step keeps its epilogue");
    }

    #[test]
    fn profiler_steps_assign_ops_by_launch_time() {
        let mut t = Timeline::new("test");
        for (i, start) in [0u64, 1_000].into_iter().enumerate() {
            let name = t.intern(&format!("ProfilerStep#{}", i + 1));
            t.host.push(HostSpan::test(name, HostCategory::Annotation, start, 1_000, None));
        }
        let launch = t.intern("cudaLaunchKernel");
        t.host.push(HostSpan::test(launch, HostCategory::Runtime, 990, 5, Some(9)));
        let k = t.intern("k");
        let mut late = DeviceOp::new(OpKind::Kernel, k, 0, 7, 1_200, 10);
        late.correlation = Some(9).into();
        t.push_op(late);
        t.push_op(DeviceOp::new(OpKind::Kernel, k, 0, 7, 1_300, 10));
        t.push_op(DeviceOp::new(OpKind::Kernel, k, 0, 7, 5_000, 10));
        let steps = segment(&t).unwrap();
        assert_eq!(steps.source, StepSource::ProfilerSteps);
        assert_eq!(steps.step_of(&t).iter().collect::<Vec<_>>(), vec![Some(0), Some(1), None]);
        assert_eq!((steps.step_of(&t).len(), steps.step_of(&t).get(3)), (3, None));
        assert_eq!(profiler_step_count(&t), Some(2));
        assert_eq!(profiler_step_count(&Timeline::new("no steps")), None);
    }
}
