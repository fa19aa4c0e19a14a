//! Phases of a run: load, warm-up, steady state, tail. Every answer (kernel table, families,
//! diagnosis, timeline analyses) is taken on the steady state by default, because a real run
//! loads (weights copied host-to-device, modules loaded), compiles and warms up (first
//! launches, autotuning), repeats a step, and tears down; only the repeating part says how
//! the model runs.
//!
//! Rules, on the device ops of a [`Timeline`] (all devices, one clock):
//! - **steps** come from [`sequence_steps`]: the repeats of the op sequence of the main stream
//!   (decode steps, training iterations; layers of a step stay inside it). Leading steps that
//!   last more than [`SLOW_STEP_RATIO`] × the median of the later half of the steps are
//!   warm-up (first launches, lazy module loading, autotuning inside the step, a first call
//!   that runs slower throughout): the steady state starts at the first of [`SETTLED_STEPS`]
//!   steps in a row that are not slow, leaving at least half of the steps. When no sequence
//!   covers the whole run, it is looked for after the leading burst of host-to-device copies
//!   (an MoE decode, whose first call's expert loop differs, repeats only there).
//!   Then after the last kernel of a compiler's autotuner (XLA's `stream_executor::` buffer
//!   checks, comparisons and delays: a jitted step traced with its compilation).
//! - **steady state**: from the first steady step's start to the last step's end. With no
//!   steps, the whole run after the leading burst of host-to-device copies (copies with fewer
//!   than [`BURST_END_KERNELS`] kernels in a row between them), when it is a load (below).
//! - **load**: the stretch before the steady state up to the end of its leading burst of
//!   host-to-device copies (as for the no-step case below), when copies make at least [`LOAD_COPY_SHARE_PCT`] % of its device time or move at
//!   least [`LOAD_COPY_BYTES`] bytes (the weight upload).
//! - **warm-up**: the rest before the steady state (compilation, autotuning, one-off kernels,
//!   the first slow steps), when it holds kernels that never run in the steady state or slow
//!   steps; otherwise (the prologue of the first step) it belongs to the steady state.
//! - **tail**: ops that start after the steady state's end, when they hold copies or kernels
//!   that never run in the steady state; otherwise (the last step's epilogue) they belong to
//!   the steady state.
//!
//! A phase's **busy share** is the union of device op intervals inside it over its length.
//! [`PhaseChoice`] picks the window an answer is taken on; [`Timeline::window`] cuts it.

mod busy;
mod marks;
pub mod slice;
pub mod util;

use marks::{leading_burst_end, warmup_marks, NameSet};

use crate::diagnosis::step_source;
use crate::diagnosis::steps::{sequence_steps, sequence_steps_in, StepSpans};
use prof_timeline::timeline::{DeviceOp, OpKind, Timeline};
use serde::Serialize;

pub use slice::PhaseChoice;

/// A leading step this many times longer than the median step is warm-up.
pub(crate) const SLOW_STEP_RATIO: f64 = 3.0;
/// Steps in a row, none of them slow, that start the steady state.
pub(crate) const SETTLED_STEPS: usize = 3;
/// Host-to-device copies making at least this share (percent) of the device time before the
/// steady state make that stretch a load phase.
pub(crate) const LOAD_COPY_SHARE_PCT: f64 = 30.0;
/// Or moving at least this many bytes.
pub(crate) const LOAD_COPY_BYTES: u64 = 16 << 20;

/// What a phase is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    /// Loading: weights and inputs copied to the device, modules loaded; for a utilization
    /// recording, the idle lead-in.
    Load,
    /// Compilation, autotuning, first launches and slow first steps.
    Warmup,
    /// The repeating part of the run.
    Steady,
    /// What runs after the last step (teardown, a final copy back); for a utilization
    /// recording, the idle end.
    Tail,
}

impl PhaseKind {
    /// The name used in reports and by `--phase`.
    pub fn label(self) -> &'static str {
        match self {
            PhaseKind::Load => "load",
            PhaseKind::Warmup => "warm-up",
            PhaseKind::Steady => "steady",
            PhaseKind::Tail => "tail",
        }
    }
}

/// One phase of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Phase {
    /// What it is.
    pub kind: PhaseKind,
    /// Start, ns on the source's clock.
    pub start_ns: u64,
    /// End, ns on the source's clock.
    pub end_ns: u64,
    /// Start, ns from the start of the run.
    pub offset_ns: u64,
    /// Device ops (or samples, for a utilization recording) that start inside it.
    pub ops: usize,
    /// Device busy time inside it over its length, percent (for a utilization recording: the
    /// mean utilization of its samples).
    pub busy_pct: f64,
    /// What marks it, in words.
    pub marks: String,
    /// Bytes copied host-to-device inside it, where the source says (the load phase).
    pub copied_bytes: Option<u64>,
}

impl Phase {
    /// Its length, ns.
    pub fn len_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// The phases of a run, in time order, and where the steady state is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Phases {
    /// Start and end of the whole run, ns.
    pub run_ns: (u64, u64),
    /// The phases, in time order; empty for a run with nothing in it.
    pub phases: Vec<Phase>,
    /// Steps in the steady state, where steps were found.
    pub steady_steps: Option<usize>,
    /// Why there is no steady state, or how it was chosen without steps.
    pub note: Option<String>,
    /// The main stream's repeating sequence as [`sequence_steps`] found it on the same
    /// timeline: a diagnosis of that timeline, uncut, need not look for it again
    /// ([`crate::diagnosis::diagnose_with_sequence`]).
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub sequence: Option<StepSpans>,
}

impl Phases {
    /// The phase of `kind`, if the run has one.
    pub fn get(&self, kind: PhaseKind) -> Option<&Phase> {
        self.phases.iter().find(|p| p.kind == kind)
    }

    /// True when the steady state leaves out part of the run (so answers differ from `--phase all`).
    pub fn steady_is_partial(&self) -> bool {
        self.phases.len() > 1 && self.get(PhaseKind::Steady).is_some()
    }
}

/// True for a copy from host to device, by its name as the sources spell it.
pub(crate) fn is_host_to_device(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["htod", "h2d", "hosttodevice", "host_to_device", "host to device", "-> device"].iter().any(|p| lower.contains(p))
}

/// Where the load of `timeline` likely ends, before its phases are found: the position of its
/// first op after the leading burst of host-to-device copies ([`marks`]), when its ops are in
/// start order and some come before and after it. A guess (the steady window is often cut
/// there), for work done beside [`find_phases`] that is checked against its window.
pub fn load_end_guess(timeline: &Timeline) -> Option<usize> {
    let ops = &timeline.ops;
    if !ops.is_sorted_by_key(|op| op.start_ns) {
        return None;
    }
    let end = marks::leading_burst_end(timeline, ops)?;
    let at = ops.partition_point(|op| op.start_ns < end);
    (at > 0 && at < ops.len()).then_some(at)
}

/// The phases of `timeline`'s device ops.
pub fn find_phases(timeline: &Timeline) -> Phases {
    if timeline.ops.is_empty() {
        let note = Some("no device ops".into());
        return Phases { run_ns: (0, 0), phases: Vec::new(), steady_steps: None, note, sequence: None };
    }
    let mut sequence = sequence_steps(timeline);
    // The ops in start order: the timeline's own (a loaded one is in order), else a sorted copy
    // (stable: ties keep the source's order).
    // In one walk: whether they are in start order, and the run's last end.
    let (mut sorted, mut last_start, mut run_end) = (true, 0u64, 0u64);
    for op in &timeline.ops {
        sorted &= op.start_ns >= last_start;
        last_start = op.start_ns;
        run_end = run_end.max(op.end_ns());
    }
    let order: std::borrow::Cow<[DeviceOp]> = if sorted {
        std::borrow::Cow::Borrowed(&timeline.ops)
    } else {
        let mut ops = timeline.ops.clone();
        ops.sort_by_key(|op| op.start_ns);
        std::borrow::Cow::Owned(ops)
    };
    let order: &[DeviceOp] = &order;
    let run_start = order[0].start_ns;
    let run_end = run_end.max(run_start);

    // A run whose steps repeat only after its load (an MoE decode, whose expert loop differs
    // in the first call) has them looked for there: the phases then count the steps the
    // diagnosis of the steady state counts.
    // Only a run without a sequence needs it (with one, the load is found before the steps).
    let burst_end = if sequence.is_none() { leading_burst_end(timeline, order) } else { None };
    if sequence.is_none() {
        if let Some(load_end) = burst_end.filter(|&end| end > run_start) {
            sequence = sequence_steps_in(&order[order.partition_point(|op| op.start_ns < load_end)..]);
        }
    }
    // A run traced with its compilation (a jitted JAX step: XLA's autotuner times thousands of
    // candidate kernels between buffer checks, more op time than the steps that follow) has its
    // steps looked for after the autotuner's last kernel.
    let tuned_end = if sequence.is_none() { marks::autotune_end(timeline, order) } else { None };
    if let Some(tuned_end) = tuned_end {
        sequence = sequence_steps_in(&order[order.partition_point(|op| op.start_ns < tuned_end)..]);
    }
    let burst_end = match (burst_end, tuned_end) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    // Steps, as (count, how they were found, why leading steps are warm-up).
    let (steady_start, steady_end, steps, note) = match &sequence {
        Some(found) => {
            let spans = &found.spans;
            // The reference is the median of the later half of the steps: when the first half
            // is all slow (a first `generate` call 7× slower per token than the second, seen
            // on the H200), a median over all steps would sit between the two and hide it.
            let mut lengths: Vec<u64> = spans[spans.len() / 2..].iter().map(|&(s, e)| e - s).collect();
            lengths.sort_unstable();
            let median = lengths[lengths.len() / 2].max(1) as f64;
            // The steady state starts at the first of [`SETTLED_STEPS`] steps in a row that
            // are not slow, leaving at least half of the steps.
            let slow = |&(s, e): &(u64, u64)| (e - s) as f64 > SLOW_STEP_RATIO * median;
            let first_steady = (0..=spans.len() / 2)
                .find(|&i| spans[i..].iter().take(SETTLED_STEPS).all(|span| !slow(span)))
                .unwrap_or(0);
            let slow_steps = (first_steady > 0).then(|| {
                format!(
                    "{first_steady} leading steps over {SLOW_STEP_RATIO}× the later steps' median ({}) are warm-up",
                    ms(median as u64)
                )
            });
            let end = spans.last().map_or(run_end, |&(_, e)| e);
            let steps = (spans.len() - first_steady, step_source(&found.source), slow_steps);
            (spans[first_steady].0, end, Some(steps), None)
        }
        None => {
            let start = burst_end.unwrap_or(run_start);
            (start, run_end, None, Some("no repeating step found: the whole run after the load".to_owned()))
        }
    };
    let mut steady_start = steady_start.max(run_start);
    let mut steady_end = steady_end;
    let slow_steps = steps.as_ref().and_then(|(_, _, slow)| slow.clone());
    // Ops that start in [start, end), from the start-ordered `order`.
    let count_in = |start: u64, end: u64| {
        let at = |t: u64| order.partition_point(|op| op.start_ns < t);
        at(end) - at(start)
    };

    let mut phases = Vec::new();
    let phase = |kind, start: u64, end: u64, marks: String| Phase {
        kind,
        start_ns: start,
        end_ns: end,
        offset_ns: start - run_start,
        ops: count_in(start, end.max(start + 1)),
        // Filled in below, in one pass for all phases.
        busy_pct: 0.0,
        marks,
        copied_bytes: None,
    };
    // Before the steady state: load up to the last host-to-device copy, then warm-up.
    if steady_start > run_start {
        let pre = &order[..count_in(run_start, steady_start)];
        let htod: Vec<&DeviceOp> = pre
            .iter()
            .filter(|op| op.kind() == OpKind::Memcpy && is_host_to_device(timeline.name(op.name())))
            .collect();
        // The load ends with the leading burst of copies: a slow first call before the steady
        // state copies its own small inputs, which are not the load.
        let load_end = leading_burst_end(timeline, pre);
        let mut warm_from = run_start;
        if let Some(load_end) = load_end.map(|e| e.min(steady_start)) {
            let copy_ns: u64 = htod.iter().filter(|op| op.start_ns < load_end).map(|op| op.dur_ns()).sum();
            let all_ns: u64 = pre[..count_in(run_start, load_end)].iter().map(|op| op.dur_ns()).sum();
            let bytes: u64 = htod
                .iter()
                .filter(|op| op.start_ns < load_end)
                .filter_map(|op| timeline.details_of(op)?.bytes)
                .fold(0u64, u64::saturating_add);
            let share = pct(copy_ns, all_ns);
            if share >= LOAD_COPY_SHARE_PCT || bytes >= LOAD_COPY_BYTES {
                let moved = if bytes > 0 { format!(", {}", human_bytes(bytes)) } else { String::new() };
                let marks = format!("{share:.0} % of device time is host-to-device copies ({}{moved})", ms(copy_ns));
                let mut load = phase(PhaseKind::Load, run_start, load_end, marks);
                load.copied_bytes = (bytes > 0).then_some(bytes);
                phases.push(load);
                warm_from = load_end;
            }
        }
        if warm_from < steady_start && count_in(warm_from, steady_start) > 0 {
            let (mut marks, one_off) = warmup_marks(timeline, order, warm_from, steady_start, steady_end);
            if let Some(slow) = &slow_steps {
                marks = format!("{marks}; {slow}");
            }
            if one_off > 0 || slow_steps.is_some() {
                phases.push(phase(PhaseKind::Warmup, warm_from, steady_start, marks));
            } else {
                // Nothing sets it apart (the prologue of the first step): steady state.
                steady_start = warm_from;
            }
        } else {
            steady_start = warm_from;
        }
    }
    let (steady_from, after_from) = (count_in(run_start, steady_start), count_in(run_start, steady_end));
    let after = &order[after_from..];
    let steady_names = NameSet::of(timeline, &order[steady_from..after_from]);
    let copies = after.iter().filter(|op| op.kind() == OpKind::Memcpy).count();
    let new_kernels = after.iter().filter(|op| op.kind() == OpKind::Kernel && !steady_names.has(op.name())).count();
    let mut tail = None;
    if copies + new_kernels > 0 {
        let marks = format!(
            "{} ops after the last step ({copies} copies, {new_kernels} kernels not in the steady state)",
            after.len()
        );
        tail = Some(phase(PhaseKind::Tail, steady_end, run_end.max(steady_end + 1), marks));
    } else if !after.is_empty() {
        // The epilogue of the last step, nothing else: steady state.
        steady_end = run_end;
    }
    let steady_marks = match &steps {
        Some((count, source, _)) => format!("{count} steps ({source})"),
        None => note.clone().unwrap_or_default(),
    };
    phases.push(phase(PhaseKind::Steady, steady_start, steady_end, steady_marks));
    phases.extend(tail);
    busy::busy_shares(order, &mut phases);
    Phases { run_ns: (run_start, run_end), phases, steady_steps: steps.map(|(count, _, _)| count), note, sequence }
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// A duration, ns, in ms or s.
pub fn ms(ns: u64) -> String {
    if ns >= 1_000_000_000 {
        format!("{:.2} s", ns as f64 / 1e9)
    } else {
        format!("{:.1} ms", ns as f64 / 1e6)
    }
}

fn human_bytes(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

#[cfg(test)]
mod tests;
