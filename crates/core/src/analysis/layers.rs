//! Layer / step segmentation from the repeating op pattern, and the per-op share of one
//! representative layer: the ops of a model's layer, in order, with what each costs, so the
//! most expensive op of the layer (the first optimisation target) stands out.
//!
//! Rules:
//! - the ops looked at are those of the **main stream** (the stream with the most ops,
//!   [`stream_roles`]) of the **busiest device** (the most busy time; ties: lowest index),
//!   in start order; each op is a symbol, its name;
//! - **candidate periods** `p` (in ops) come from how far back each op's name last ran: the
//!   [`CANDIDATE_PERIODS`] most frequent such distances, and the [`CANDIDATE_PERIODS`] with
//!   the largest frequency × distance (long periods such as a whole training step recur
//!   rarely but cover many ops); distances below [`MIN_PERIOD_OPS`] are dropped;
//! - for a period `p`, position `i` **matches** when op `i` and op `i + p` have the same
//!   name; a **repeating region** is a stretch of matches in which no run of mismatches is
//!   longer than [`MISMATCH_TOLERANCE`] × `p` (at least one op), so a layer that differs in
//!   one op (a different softmax node) still repeats; it holds ⌊(length + p) / p⌋ layers
//!   and must hold at least [`MIN_REPEATS`]; a prologue or epilogue lies outside it;
//! - of all regions of all candidates the one whose layers cover the most op time wins; a
//!   smaller period whose best region covers at least (100 − [`SMALLER_PERIOD_SLACK_PCT`]) %
//!   as much wins over a larger one (a multiple of the true period tiles as well);
//! - the **representative layer** is position by position: the name of the first layer's
//!   op and the mean duration over all layers of the op at that position; an op's share is
//!   its mean over the sum of the means; a layer's time is its first op's start to its last
//!   op's end;
//! - the same rules run once more on the representative layer's names and mean durations: a
//!   shorter pattern repeating inside it (the transformer layers inside a decode step) is
//!   reported as its **inner repeat**;
//! - `ProfilerStep#N` annotations ([`profiler_step_count`](crate::analysis::profiler_steps::profiler_step_count)),
//!   where present, give the step count, to say how many layers a step holds.
//!
//! Cost: one pass per candidate period, so O(n) for a fixed number of candidates.

use super::main_stream::MainStream;
use super::prefix::PrefixSums;
use super::repeats::{best_region, Region};
use super::streams::{stream_roles, DeviceStreams, StreamRole};
use crate::analysis::profiler_steps::profiler_step_count;
use crate::families::Families;
use prof_timeline::intern::NameId;
use prof_timeline::timeline::{DeviceOp, Timeline};
use serde::Serialize;

use super::repeats::MISMATCH_TOLERANCE;

/// One op of the representative layer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LayerOp {
    /// Position in the layer, from 0.
    pub position: usize,
    /// Op name (as in the first layer).
    pub name: String,
    /// Mean duration over all layers of the op at this position, ns.
    pub mean_ns: f64,
    /// Share of the layer's summed op time, percent.
    pub share_pct: f64,
}

/// The layers of the main stream and one representative layer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Layers {
    /// Device looked at (the busiest).
    pub device: u32,
    /// Its main stream.
    pub stream: u64,
    /// How the layers were found, in words.
    pub method: String,
    /// Ops in one layer (the period).
    pub period_ops: usize,
    /// Layers found.
    pub count: usize,
    /// Ops on the main stream.
    pub stream_ops: usize,
    /// Index (in start order on the stream) of the first layer's first op.
    pub first_op_index: usize,
    /// Start of the first layer, ns from the stream's first op.
    pub offset_ns: u64,
    /// Op time inside the layers over the stream's op time, percent.
    pub covered_pct: f64,
    /// Layer time (first op start to last op end), mean, ns.
    pub layer_mean_ns: f64,
    /// Shortest layer, ns.
    pub layer_min_ns: u64,
    /// Longest layer, ns.
    pub layer_max_ns: u64,
    /// `ProfilerStep#N` steps in the timeline, when it has them.
    pub profiler_steps: Option<usize>,
    /// A shorter pattern repeating inside the representative layer (the transformer layers
    /// of a decode step), when there is one.
    pub inner: Option<InnerRepeat>,
    /// The representative layer, in order.
    pub ops: Vec<LayerOp>,
}

/// A pattern repeating inside the representative layer, found by the same rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InnerRepeat {
    /// Ops in one inner block.
    pub period_ops: usize,
    /// Inner blocks in a row.
    pub count: usize,
    /// Position in the layer of the first inner block's first op.
    pub first_position: usize,
    /// The inner blocks' share of the layer's (mean) op time, percent.
    pub covered_pct: f64,
}

impl Layers {
    /// The representative layer's ops, most expensive first: the optimisation priorities.
    pub fn by_share(&self) -> Vec<&LayerOp> {
        let mut ops: Vec<&LayerOp> = self.ops.iter().collect();
        ops.sort_by(|a, b| b.mean_ns.total_cmp(&a.mean_ns).then(a.position.cmp(&b.position)));
        ops
    }
}

/// The busiest device (most busy time; ties: lowest index), its main stream (most ops) and
/// that stream's op count; `None` for a timeline without ops.
fn main_stream_with_count(devices: &[DeviceStreams]) -> Option<(u32, u64, usize)> {
    let busiest = devices.iter().max_by(|a, b| a.busy_ns.cmp(&b.busy_ns).then(b.device.cmp(&a.device)))?;
    let main = busiest.streams.iter().find(|s| s.role == StreamRole::Main)?;
    Some((busiest.device, main.stream, usize::try_from(main.ops).unwrap_or(0)))
}

/// The layers of `timeline`'s main stream, or `None` when no op pattern repeats.
///
/// The stream's ops are read in place ([`MainStream`]), in (start, end) order, twice: once for
/// their names and the prefix sums of their durations, once for the layers' spans.
pub fn find_layers(timeline: &Timeline, families: &Families) -> Option<Layers> {
    find_layers_of_roles(timeline, &stream_roles(timeline, families))
}

/// [`find_layers`] with the timeline's [`stream_roles`] given (several analyses read them).
pub fn find_layers_of_roles(timeline: &Timeline, roles: &[DeviceStreams]) -> Option<Layers> {
    let (device, stream, count) = main_stream_with_count(roles)?;
    let mut main = MainStream::on(&timeline.ops, device, stream, count);
    let (names, prefix) = (std::mem::take(&mut main.names), std::mem::take(&mut main.prefix));
    let (found, spans) = layers_of(names, prefix, || main.ops())?;
    Some(found.finish(timeline, (device, stream), spans))
}

/// The layers' times (first op start to last op end), summed as they come.
#[derive(Default)]
struct SpanStats {
    count: u64,
    sum: u64,
    min: Option<u64>,
    max: u64,
}

impl SpanStats {
    fn add(&mut self, ns: u64) {
        self.count += 1;
        self.sum = self.sum.saturating_add(ns);
        self.min = Some(self.min.map_or(ns, |m| m.min(ns)));
        self.max = self.max.max(ns);
    }
}

/// What [`layers_of`] found before the names are looked up.
struct Found {
    region: Region,
    stream_ops: usize,
    offset_ns: u64,
    stream_total: u64,
    first: Vec<NameId>,
    means: Vec<f64>,
}

/// The layers of the stream whose ops (in order) `ops` gives, with their `names` and duration
/// `prefix` sums; and each layer's time (first op start to last op end).
fn layers_of<'t, I: Iterator<Item = &'t DeviceOp>>(
    names: Vec<NameId>,
    prefix: PrefixSums,
    ops: impl Fn() -> I,
) -> Option<(Found, SpanStats)> {
    let region = best_region(&names, &prefix)?;
    let (start, period) = (region.start, region.period);
    let end = start + region.repeats * period;
    let (stream_ops, stream_total, first) =
        (names.len(), prefix.at(names.len()), names[start..start + period].to_vec());
    // The names and sums (about 8 bytes an op) are not needed for the walk.
    drop((names, prefix));
    // Walked once, layer by layer: each position's duration sum adds its layers in order, and
    // each layer's span is its first op's start to its ops' last end.
    let mut means = vec![0.0f64; period];
    let (mut first_start, mut offset_ns) = (None, 0);
    // The layers' times as they come: count, sum, shortest, longest (no list of millions).
    let (mut spans, mut layer) = (SpanStats::default(), (0u64, 0u64));
    // The position in the layer of the next op from `start` on (counted, not divided for).
    let mut position = 0;
    for (at, op) in ops().enumerate().take(end) {
        let first = *first_start.get_or_insert(op.start_ns);
        if at < start {
            continue;
        }
        if at == start {
            offset_ns = op.start_ns - first;
        }
        if position == 0 {
            layer = (op.start_ns, op.end_ns());
        }
        layer.1 = layer.1.max(op.end_ns());
        means[position] += op.dur_ns() as f64;
        position += 1;
        if position == period {
            spans.add(layer.1.saturating_sub(layer.0));
            position = 0;
        }
    }
    means.iter_mut().for_each(|m| *m /= region.repeats as f64);
    let found = Found { region, stream_ops, offset_ns, stream_total, first, means };
    Some((found, spans))
}

impl Found {
    /// The layers of `stream` on `device`, named.
    fn finish(self, timeline: &Timeline, (device, stream): (u32, u64), spans: SpanStats) -> Layers {
        let Found { region, stream_ops, offset_ns, stream_total, first, means } = self;
        let layer_total: f64 = means.iter().sum();
        let mean_durations: Vec<u64> = means.iter().map(|&m| m.round() as u64).collect();
        let inner =
            best_region(&first, &PrefixSums::of(mean_durations.iter().copied())).filter(|r| r.period < region.period);
        let inner = inner.map(|r| InnerRepeat {
            period_ops: r.period,
            count: r.repeats,
            first_position: r.start,
            covered_pct: pct(r.covered_ns as f64, mean_durations.iter().sum::<u64>() as f64),
        });
        Layers {
            device,
            stream,
            method: format!(
                "repeating op sequence: period {} ops, {} repeats (names recur every {} ops; \
                 {:.0} % mismatch tolerated)",
                region.period,
                region.repeats,
                region.period,
                MISMATCH_TOLERANCE * 100.0
            ),
            period_ops: region.period,
            count: region.repeats,
            stream_ops,
            first_op_index: region.start,
            offset_ns,
            covered_pct: pct(region.covered_ns as f64, stream_total as f64),
            layer_mean_ns: spans.sum as f64 / spans.count as f64,
            layer_min_ns: spans.min.unwrap_or(0),
            layer_max_ns: spans.max,
            profiler_steps: profiler_step_count(timeline),
            inner,
            ops: first
                .iter()
                .zip(&means)
                .enumerate()
                .map(|(position, (&name, &mean_ns))| LayerOp {
                    position,
                    name: timeline.name(name).to_owned(),
                    mean_ns,
                    share_pct: pct(mean_ns, layer_total),
                })
                .collect(),
        }
    }
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part * 100.0 / whole
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests;
