//! The step of each op, worked out when a rule asks for it: only the re-prefill rule does, and
//! only on a transformer's inference run, so a run it does not apply to never holds the 4
//! bytes an op (40 MB at 10 M ops) nor walks its ops for them.

use prof_timeline::timeline::Timeline;
use std::sync::OnceLock;

/// The step of each op of a timeline, 4 bytes an op (an `Option<u32>` takes 8).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepOf(Vec<u32>);

/// What [`StepOf`] holds for an op outside every step.
const NO_STEP: u32 = u32::MAX;

impl StepOf {
    /// The step of op `index`, `None` outside every step (or past the ops).
    pub fn get(&self, index: usize) -> Option<u32> {
        self.0.get(index).copied().filter(|&step| step != NO_STEP)
    }

    /// The step of each op, in order.
    pub fn iter(&self) -> impl Iterator<Item = Option<u32>> + '_ {
        self.0.iter().map(|&step| (step != NO_STEP).then_some(step))
    }

    /// How many ops.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for no ops.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<Option<u32>> for StepOf {
    fn from_iter<I: IntoIterator<Item = Option<u32>>>(steps: I) -> Self {
        StepOf(steps.into_iter().map(|step| step.unwrap_or(NO_STEP)).collect())
    }
}

/// A step's index as [`StepOf`] holds it (no run has 2^32 - 1 steps).
pub(super) fn step_index(index: usize) -> Option<u32> {
    u32::try_from(index).ok().filter(|&step| step != NO_STEP)
}

/// How the steps' sources place an op in a step.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Bounds {
    /// `[start, end)` device-time spans, in start order: the step whose span holds the op's start.
    Spans(Vec<(u64, u64)>),
    /// `[start, end)` host annotations, in start order: the step whose span holds the op's
    /// launch (the host span with its correlation id), or its start without one.
    Launches(Vec<(u64, u64)>),
    /// Step starts, in order: the last start at or before the op's.
    Starts(Vec<u64>),
}

impl Bounds {
    fn assign(&self, timeline: &Timeline) -> StepOf {
        match self {
            Bounds::Spans(spans) => {
                // Ops come in start order (as loaded timelines hand them out): the step of each
                // is found by moving forward from the last one's; an earlier op is looked up.
                let mut cursor = 0usize;
                let in_span = |t: u64, cursor: &mut usize| {
                    if spans.get(*cursor).is_some_and(|&(start, _)| t < start) {
                        *cursor = spans.partition_point(|&(start, _)| start <= t).saturating_sub(1);
                    }
                    while spans.get(*cursor + 1).is_some_and(|&(start, _)| start <= t) {
                        *cursor += 1;
                    }
                    let &(start, end) = spans.get(*cursor)?;
                    (start <= t && t < end).then(|| step_index(*cursor)).flatten()
                };
                timeline.ops.iter().map(|op| in_span(op.start_ns, &mut cursor)).collect()
            }
            Bounds::Launches(spans) => {
                let launches = timeline.host_by_correlation();
                let step = |op: &crate::DeviceOp| {
                    let launch =
                        op.correlation.get().and_then(|c| launches.get(&c)).and_then(|&i| timeline.host.get(i));
                    let at = launch.map_or(op.start_ns, |span| span.start_ns);
                    let index = spans.partition_point(|&(start, _)| start <= at).checked_sub(1)?;
                    spans.get(index).filter(|&&(_, end)| at < end).and_then(|_| step_index(index))
                };
                timeline.ops.iter().map(step).collect()
            }
            Bounds::Starts(starts) => timeline
                .ops
                .iter()
                .map(|op| starts.partition_point(|&b| b <= op.start_ns).checked_sub(1).and_then(step_index))
                .collect(),
        }
    }
}

/// The bounds of a timeline's steps and, once asked for, the step of each of its ops.
#[derive(Debug, Clone)]
pub(super) struct LazyStepOf {
    bounds: Bounds,
    step_of: OnceLock<StepOf>,
}

impl PartialEq for LazyStepOf {
    fn eq(&self, other: &Self) -> bool {
        self.bounds == other.bounds
    }
}

impl LazyStepOf {
    pub(super) fn new(bounds: Bounds) -> Self {
        LazyStepOf { bounds, step_of: OnceLock::new() }
    }

    /// The step of each op of `timeline` (the timeline the steps were found on), worked out
    /// on the first call.
    pub(super) fn get(&self, timeline: &Timeline) -> &StepOf {
        self.step_of.get_or_init(|| self.bounds.assign(timeline))
    }
}
