//! The phases of a run and the window the answers are taken on (`--phase`, steady state by
//! default): the timeline cut to it, and the JSON `phases` object.
//!
//! JSON (`phases`, added to `prof.breakdown.v1`, `prof.util.v1` and `prof.serve.v1`):
//! `{"chosen": "steady"|"all"|"load"|"warm-up"|"tail"|"range", "window_ns": [start, end]|null
//! (null: the whole run), "run_ns": [start, end], "steady_steps": n|null, "note": string|null,
//! "phases": [{"kind", "start_ns", "end_ns", "offset_ns", "ops", "busy_pct", "marks",
//! "copied_bytes": n|null}]}`.

use crate::analysis::streams::{stream_roles, stream_roles_of, DeviceStreams};
use crate::phases::{find_phases, load_end_guess, PhaseChoice, Phases};
use crate::{summarize_kernels, summarize_kernels_of, Families, KernelSummary, Timeline};
use prof_timeline::two_threads::both;
use serde::Serialize;
use std::sync::OnceLock;

/// The phases of a run and the window chosen.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PhaseView {
    /// What `--phase` asked for.
    pub chosen: &'static str,
    /// The window the answers describe; `None` = the whole run.
    pub window_ns: Option<(u64, u64)>,
    /// The phases found.
    #[serde(flatten)]
    pub phases: Phases,
    /// Kernel launches before the window, by kernel name (the deep-dive suggestion skips them).
    #[serde(skip)]
    pub launches_before: prof_timeline::intern::FxHashMap<prof_timeline::intern::NameId, u64>,
}

impl PhaseView {
    /// The repeating sequence the phases found, for the diagnosis of the timeline the answers
    /// read: whole when that timeline was not cut, else its steps inside the window (the steady
    /// state's steps, so the diagnosis counts the steps the phases report); `None` (look again)
    /// when fewer than [`MIN_SEQUENCE_STEPS`](crate::diagnosis::steps::MIN_SEQUENCE_STEPS)
    /// lie inside. Taken out of the phases, not copied (a run of millions of steps holds 16
    /// bytes a step): the phases' JSON does not show it.
    pub fn take_sequence(&mut self) -> Option<Option<crate::diagnosis::steps::StepSpans>> {
        let mut found = self.phases.sequence.take()?;
        let Some((start, end)) = self.window_ns else { return Some(Some(found)) };
        found.spans.retain(|&(s, e)| s >= start && e <= end);
        (found.spans.len() >= crate::diagnosis::steps::MIN_SEQUENCE_STEPS).then_some(Some(found))
    }
}

fn label(choice: PhaseChoice) -> &'static str {
    match choice {
        PhaseChoice::Steady => "steady",
        PhaseChoice::All => "all",
        PhaseChoice::Only(kind) => kind.label(),
        PhaseChoice::Range(..) => "range",
    }
}

/// Finds the phases of `timeline` and cuts it to `choice`'s window (a timeline without device
/// ops, such as a utilization recording, is kept whole).
pub fn apply(timeline: Timeline, choice: PhaseChoice) -> Result<(Timeline, PhaseView), String> {
    let phases = find_phases(&timeline);
    cut(timeline, choice, phases)
}

/// Ops from which [`apply_summarized`] works the kernel summary out beside the phases (the
/// H200 decode captures of tests/fixtures, 50-60 K ops, take both of its ways).
const SUMMARY_BESIDE_OPS: usize = 1 << 15;

/// What [`apply_summarized`] gives: the timeline cut to the phase chosen, its phases, its
/// kernel summary, and its stream roles when they were worked out already (for
/// [`super::Context::new`]; empty otherwise, for the sections to fill).
pub type Summarized = (Timeline, PhaseView, KernelSummary, OnceLock<Vec<DeviceStreams>>);

/// [`apply`] and the kernel summary of the timeline it returns. On a large timeline the
/// summary and the stream roles of the whole run are worked out on a second thread while the
/// phases are found (the phases mostly run on one core, and took twice the summary's time at
/// 10 M ops): they are the answer when the window keeps the whole run, as it does for most
/// runs. A run that starts with a burst of host-to-device copies (a model's load) is mostly
/// cut just after it: that thread then also works out the summary and roles of the ops after
/// the burst ([`AfterLoad`]), the answer when the window keeps exactly those. Otherwise both
/// are worked out again on the cut timeline, also side by side.
pub fn apply_summarized(timeline: Timeline, choice: PhaseChoice, families: &Families) -> Result<Summarized, String> {
    if timeline.ops.len() < SUMMARY_BESIDE_OPS {
        let (timeline, view) = apply(timeline, choice)?;
        let summary = summarize_kernels(&timeline, families);
        return Ok((timeline, view, summary, OnceLock::new()));
    }
    let (phases, (whole, roles, after_load)) = both(
        || find_phases(&timeline),
        || {
            let (whole, roles) = (summarize_kernels(&timeline, families), stream_roles(&timeline, families));
            let after_load = load_end_guess(&timeline).map(|at| AfterLoad::of(&timeline, at, families));
            (whole, roles, after_load)
        },
    );
    let (timeline, view) = cut(timeline, choice, phases)?;
    Ok(match view.window_ns {
        None => (timeline, view, whole, OnceLock::from(roles)),
        Some(window) => match after_load.filter(|after| after.is_cut_to(window)) {
            Some(AfterLoad { mut summary, roles, .. }) => {
                // Its span is the cut timeline's: its ops' and the host spans it kept.
                summary.span_ns = timeline.span_ns().map_or(0, |(lo, hi)| hi - lo);
                (timeline, view, summary, OnceLock::from(roles))
            }
            None => {
                // The cut timeline's, again on two threads.
                let (summary, roles) =
                    both(|| summarize_kernels(&timeline, families), || stream_roles(&timeline, families));
                (timeline, view, summary, OnceLock::from(roles))
            }
        },
    })
}

/// The summary and stream roles of the ops of a timeline in start order from position `at`
/// on (those after its load, [`load_end_guess`]), and where they lie: a window `[s, e)` keeps
/// exactly them when `s` falls after the start of the op before them and at or before their
/// first one's, and `e` after their last one's start.
struct AfterLoad {
    before: u64,
    first: u64,
    last: u64,
    /// Its span is left for the cut timeline's.
    summary: KernelSummary,
    roles: Vec<DeviceStreams>,
}

impl AfterLoad {
    fn of(timeline: &Timeline, at: usize, families: &Families) -> Self {
        let (ops, all) = (&timeline.ops[at..], &timeline.ops);
        AfterLoad {
            before: all[at - 1].start_ns,
            first: all[at].start_ns,
            last: all[all.len() - 1].start_ns,
            summary: summarize_kernels_of(timeline, ops, None, families),
            roles: stream_roles_of(timeline, ops, families),
        }
    }

    /// Whether [`Timeline::window`] to `(start, end)` keeps exactly these ops.
    fn is_cut_to(&self, (start, end): (u64, u64)) -> bool {
        self.before < start && start <= self.first && self.last < end
    }
}

/// `timeline` cut to `choice`'s window of its `phases`.
fn cut(timeline: Timeline, choice: PhaseChoice, phases: Phases) -> Result<(Timeline, PhaseView), String> {
    if phases.phases.is_empty() {
        return Ok((
            timeline,
            PhaseView { chosen: label(choice), window_ns: None, phases, launches_before: Default::default() },
        ));
    }
    let window = choice.window(&phases)?;
    let mut launches_before = prof_timeline::intern::FxHashMap::default();
    if let Some((start, _)) = window {
        for op in timeline.ops.iter().filter(|op| op.kind() == crate::OpKind::Kernel && op.start_ns < start) {
            *launches_before.entry(op.name()).or_insert(0) += 1;
        }
    }
    let cut = match window {
        Some((start, end)) => timeline.window(start, end),
        None => timeline,
    };
    Ok((cut, PhaseView { chosen: label(choice), window_ns: window, phases, launches_before }))
}

/// The phases of a utilization recording, the summaries and verdict of `choice`'s window (the
/// active phase by default), as `prof util` and `prof analyze util.csv` both give them.
pub fn judge_util<S: AsRef<std::ffi::OsStr>>(
    ticks: &[crate::Tick],
    choice: PhaseChoice,
    command: &[S],
) -> Result<(PhaseView, Vec<crate::DeviceSummary>, crate::Verdict), String> {
    let phases = crate::phases::util::util_phases(ticks);
    let window = if phases.phases.is_empty() { None } else { choice.window(&phases)? };
    let chosen: Vec<crate::Tick> = match window {
        Some((start, end)) => ticks.iter().filter(|t| t.t_ns >= start && t.t_ns <= end).cloned().collect(),
        None => ticks.to_vec(),
    };
    let summaries = crate::summarize(&chosen);
    let verdict = crate::judge_run(&summaries, command);
    Ok((
        PhaseView { chosen: label(choice), window_ns: window, phases, launches_before: Default::default() },
        summaries,
        verdict,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::steps::{StepSource, StepSpans, MIN_SEQUENCE_STEPS};

    fn view(window_ns: Option<(u64, u64)>, steps: u64) -> PhaseView {
        let spans = (0..steps).map(|k| (k * 10, k * 10 + 10)).collect();
        let sequence =
            StepSpans { source: StepSource::RepeatingSequence { period_ops: 3, layers_per_step: None }, spans };
        let phases = Phases {
            run_ns: (0, steps * 10),
            phases: Vec::new(),
            steady_steps: None,
            note: None,
            sequence: Some(sequence),
        };
        PhaseView { chosen: "steady", window_ns, phases, launches_before: Default::default() }
    }

    /// The sequence is handed over whole for an uncut timeline, cut to the window's steps when
    /// enough lie inside, and left to the diagnosis to look for again (`None`) when too few do
    /// (a `--phase load` window before the steps); a run without one has nothing to hand over.
    #[test]
    fn the_sequence_handed_to_the_diagnosis_is_the_windows_or_none_to_look_again() {
        let steps = MIN_SEQUENCE_STEPS as u64 + 4;
        assert_eq!(view(None, steps).take_sequence().map(|s| s.map(|s| s.spans.len())), Some(Some(steps as usize)));
        let inside = view(Some((20, steps * 10)), steps).take_sequence();
        assert_eq!(inside.map(|s| s.map(|s| s.spans.len())), Some(Some(steps as usize - 2)));
        let before = view(Some((0, 25)), steps).take_sequence();
        assert!(before.is_none(), "too few steps inside the window: look again, {before:?}");
        let mut none = view(None, 0);
        none.phases.sequence = None;
        assert!(none.take_sequence().is_none());
    }

    /// A run of `steps` steps of four kernels after three uploads, with a copy back at the end
    /// when `tail`.
    fn loaded_run(steps: u64, tail: bool) -> Timeline {
        use crate::{DeviceOp, OpDetails, OpKind};
        let mut t = Timeline::new("loaded");
        for i in 0..3 {
            let id = t.intern("CUDA memcpy HtoD");
            let op = DeviceOp::new(OpKind::Memcpy, id, 0, 7, i * 1_000_000, 500_000);
            t.push_op_with(op, OpDetails { bytes: Some(10 << 20), ..OpDetails::default() });
        }
        let mut at = 10_000_000;
        for _ in 0..steps {
            for name in ["norm", "gemv", "attn", "gemv_out"] {
                let id = t.intern(name);
                t.push_op(DeviceOp::new(OpKind::Kernel, id, 0, 7, at, 1_000));
                at += 2_500;
            }
        }
        if tail {
            let id = t.intern("CUDA memcpy DtoH");
            t.push_op(DeviceOp::new(OpKind::Memcpy, id, 0, 7, at + 1_000_000, 10_000));
        }
        t
    }

    /// On a large run cut after its load, the summary and roles worked out beside the phases
    /// for the ops after the load are taken (the window keeps exactly them) and equal those of
    /// the cut timeline; with a copy back at the end the window keeps fewer, and they are
    /// worked out again. Either way the answer is the plain one.
    #[test]
    fn the_summary_beside_the_phases_is_the_cut_timelines() {
        let families = Families::builtin();
        for tail in [false, true] {
            let run = loaded_run((SUMMARY_BESIDE_OPS as u64) / 4 + 10, tail);
            let at = load_end_guess(&run).expect("the uploads lead");
            let after = AfterLoad::of(&run, at, &families);
            let (plain, plain_view) = apply(run.clone(), PhaseChoice::Steady).unwrap();
            let window = plain_view.window_ns.expect("the load is cut off");
            assert_eq!(after.is_cut_to(window), !tail, "tail {tail}");
            let (cut, view, summary, roles) = apply_summarized(run, PhaseChoice::Steady, &families).unwrap();
            assert_eq!(view.window_ns, Some(window));
            assert_eq!(cut.ops.len(), plain.ops.len());
            assert_eq!(summary, summarize_kernels(&plain, &families), "tail {tail}");
            assert_eq!(roles.get(), Some(&stream_roles(&plain, &families)), "tail {tail}");
        }
    }
}
