//! torch.profiler's step annotations (`ProfilerStep#N`): how many a timeline holds and where
//! each one is, what the layer view and the step finder read.

use prof_timeline::intern::{FxHashMap, NameId};
use prof_timeline::{HostCategory, Timeline};

/// The prefix of torch.profiler's step annotations.
pub(crate) const PROFILER_STEP_PREFIX: &str = "ProfilerStep#";

/// How many profiler-step annotations (`ProfilerStep#N`) the timeline holds, `None` for none:
/// what `diagnosis::steps::segment` counts when it uses them, without assigning the ops to steps.
pub(crate) fn profiler_step_count(timeline: &Timeline) -> Option<usize> {
    Some(profiler_step_spans(timeline).len()).filter(|&n| n > 0)
}

/// The `[start, end)` of each profiler-step annotation, in start order.
pub(crate) fn profiler_step_spans(timeline: &Timeline) -> Vec<(u64, u64)> {
    let mut is_step: FxHashMap<NameId, bool> = FxHashMap::default();
    let mut spans: Vec<(u64, u64)> = timeline
        .host
        .iter()
        .filter(|s| s.category == HostCategory::Annotation)
        .filter(|s| *is_step.entry(s.name).or_insert_with(|| timeline.name(s.name).starts_with(PROFILER_STEP_PREFIX)))
        .map(|s| (s.start_ns, s.start_ns.saturating_add(s.dur_ns())))
        .collect();
    spans.sort_unstable();
    spans
}
