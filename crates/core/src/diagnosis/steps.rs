//! Step segmentation for the per-step diagnosis rules.
//!
//! Two sources, in this order:
//! 1. **Profiler steps**: host annotations named `ProfilerStep#N` (torch.profiler writes
//!    one per `prof.step()`). An op belongs to the step whose span holds its launch (the
//!    host span with the op's correlation id), or its own start when it has no launch.
//! 2. **A repeating kernel**: on the device with the most ops, kernels are counted by name;
//!    the step count is the smallest count of at least [`MIN_ANCHOR_CALLS`] shared by two or
//!    more kernel names (a step runs each of its once-per-step kernels once), or failing
//!    that the smallest count of at least [`MIN_ANCHOR_CALLS`]. Of the names with that count
//!    the one that runs first is the anchor; each launch of it starts a step, which lasts
//!    until the next. Ops before the first anchor belong to no step.

use crate::intern::{FxHashMap, NameId};
use crate::timeline::{HostCategory, OpKind, Timeline};
use serde::Serialize;

/// A kernel must run at least this many times to mark steps.
pub const MIN_ANCHOR_CALLS: u64 = 3;

/// The prefix of torch.profiler's step annotations.
pub const PROFILER_STEP_PREFIX: &str = "ProfilerStep#";

/// Where the steps came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepSource {
    /// `ProfilerStep#N` host annotations.
    ProfilerSteps,
    /// Launches of this kernel start each step.
    RepeatingKernel(String),
}

/// The steps of a timeline and the step of each op.
#[derive(Debug, Clone, PartialEq)]
pub struct Steps {
    /// Where the steps came from.
    pub source: StepSource,
    /// Number of steps.
    pub count: usize,
    /// Step index of each op of `timeline.ops` (same order), `None` outside every step.
    pub step_of: Vec<Option<usize>>,
}

/// Segments `timeline` into steps, or `None` when neither source finds any.
pub fn segment(timeline: &Timeline) -> Option<Steps> {
    profiler_steps(timeline).or_else(|| repeating_kernel(timeline))
}

/// How many profiler-step annotations (`ProfilerStep#N`) the timeline holds, `None` for none:
/// what [`segment`] counts when it uses them, without assigning the ops to steps.
pub fn profiler_step_count(timeline: &Timeline) -> Option<usize> {
    Some(profiler_step_spans(timeline).len()).filter(|&n| n > 0)
}

/// The `[start, end)` of each profiler-step annotation, in start order.
fn profiler_step_spans(timeline: &Timeline) -> Vec<(u64, u64)> {
    let mut is_step: FxHashMap<NameId, bool> = FxHashMap::default();
    let mut spans: Vec<(u64, u64)> = timeline
        .host
        .iter()
        .filter(|s| s.category == HostCategory::Annotation)
        .filter(|s| *is_step.entry(s.name).or_insert_with(|| timeline.name(s.name).starts_with(PROFILER_STEP_PREFIX)))
        .map(|s| (s.start_ns, s.start_ns.saturating_add(s.dur_ns)))
        .collect();
    spans.sort_unstable();
    spans
}

fn profiler_steps(timeline: &Timeline) -> Option<Steps> {
    let spans = profiler_step_spans(timeline);
    if spans.is_empty() {
        return None;
    }
    let launches = timeline.host_by_correlation();
    let step_of = timeline
        .ops
        .iter()
        .map(|op| {
            let launch = op.correlation.and_then(|c| launches.get(&c)).and_then(|&i| timeline.host.get(i));
            let at = launch.map_or(op.start_ns, |span| span.start_ns);
            let index = spans.partition_point(|&(start, _)| start <= at).checked_sub(1)?;
            spans.get(index).filter(|&&(_, end)| at < end).map(|_| index)
        })
        .collect();
    Some(Steps { source: StepSource::ProfilerSteps, count: spans.len(), step_of })
}

fn repeating_kernel(timeline: &Timeline) -> Option<Steps> {
    let mut per_device: FxHashMap<u32, usize> = FxHashMap::default();
    for op in &timeline.ops {
        *per_device.entry(op.device).or_default() += 1;
    }
    let device = per_device.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))?.0;
    let mut kernels: Vec<(u64, NameId)> = timeline
        .ops
        .iter()
        .filter(|op| op.device == device && op.kind == OpKind::Kernel)
        .map(|op| (op.start_ns, op.name))
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
    let step_of = timeline.ops.iter().map(|op| bounds.partition_point(|&b| b <= op.start_ns).checked_sub(1)).collect();
    let source = StepSource::RepeatingKernel(timeline.name(*anchor).to_owned());
    Some(Steps { source, count: bounds.len(), step_of })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::{DeviceOp, HostSpan};

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
        let steps = segment(&t).unwrap();
        assert_eq!(steps.source, StepSource::RepeatingKernel("attn".into()));
        assert_eq!(steps.count, 3);
        assert_eq!(steps.step_of[0], None);
        assert_eq!(steps.step_of[5], Some(0));
        assert_eq!(steps.step_of[6], Some(0));
        assert_eq!(steps.step_of[18], Some(2));
    }

    #[test]
    fn profiler_steps_assign_ops_by_launch_time() {
        let mut t = Timeline::new("test");
        for (i, start) in [0u64, 1_000].into_iter().enumerate() {
            let name = t.intern(&format!("ProfilerStep#{}", i + 1));
            t.host.push(HostSpan {
                name,
                category: HostCategory::Annotation,
                pid: 1,
                tid: 1,
                start_ns: start,
                dur_ns: 1_000,
                correlation: None,
            });
        }
        let launch = t.intern("cudaLaunchKernel");
        t.host.push(HostSpan {
            name: launch,
            category: HostCategory::Runtime,
            pid: 1,
            tid: 1,
            start_ns: 990,
            dur_ns: 5,
            correlation: Some(9),
        });
        let k = t.intern("k");
        let mut late = DeviceOp::new(OpKind::Kernel, k, 0, 7, 1_200, 10);
        late.correlation = Some(9);
        t.push_op(late);
        t.push_op(DeviceOp::new(OpKind::Kernel, k, 0, 7, 1_300, 10));
        t.push_op(DeviceOp::new(OpKind::Kernel, k, 0, 7, 5_000, 10));
        let steps = segment(&t).unwrap();
        assert_eq!(steps.source, StepSource::ProfilerSteps);
        assert_eq!(steps.step_of, vec![Some(0), Some(1), None]);
        assert_eq!(profiler_step_count(&t), Some(2));
        assert_eq!(profiler_step_count(&Timeline::new("no steps")), None);
    }
}
