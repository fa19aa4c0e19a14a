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
//! - `ProfilerStep#N` annotations ([`steps::profiler_step_count`](crate::diagnosis::steps::profiler_step_count)),
//!   where present, give the step count, to say how many layers a step holds.
//!
//! Cost: one pass per candidate period, so O(n) for a fixed number of candidates.

use super::streams::stream_roles;
use crate::diagnosis::steps::profiler_step_count;
use crate::families::Families;
use crate::intern::{FxHashMap, NameId};
use crate::timeline::{DeviceOp, Timeline};
use serde::Serialize;

/// Candidate periods taken from each of the two rankings of recurrence distances.
pub const CANDIDATE_PERIODS: usize = 8;
/// Shortest layer, ops: a "layer" of one op repeated is a loop, not a layer.
pub const MIN_PERIOD_OPS: usize = 2;
/// Fewest layers a repeating region must hold.
pub const MIN_REPEATS: usize = 2;
/// Longest run of mismatching positions a region tolerates, as a fraction of the period.
pub const MISMATCH_TOLERANCE: f64 = 0.1;
/// How much less op time (percent) a smaller period may cover and still win over a larger one.
pub const SMALLER_PERIOD_SLACK_PCT: f64 = 5.0;

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

/// A repeating region: first op index, period and number of layers, and the op time it covers.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Region {
    start: usize,
    period: usize,
    repeats: usize,
    covered_ns: u64,
}

/// The ops of the main stream (most ops) of the busiest device (most busy time; ties: lowest
/// index), in start order, with that device and stream; `None` for a timeline without ops.
pub fn main_stream_ops<'t>(timeline: &'t Timeline, families: &Families) -> Option<(u32, u64, Vec<&'t DeviceOp>)> {
    let devices = stream_roles(timeline, families);
    let busiest = devices.iter().max_by(|a, b| a.busy_ns.cmp(&b.busy_ns).then(b.device.cmp(&a.device)))?;
    let stream = busiest.main_stream()?;
    let mut ops: Vec<&DeviceOp> =
        timeline.ops.iter().filter(|op| op.device == busiest.device && op.stream == stream).collect();
    if !ops.is_sorted_by_key(|op| (op.start_ns, op.end_ns())) {
        ops.sort_by_key(|op| (op.start_ns, op.end_ns()));
    }
    Some((busiest.device, stream, ops))
}

/// The repeating structure of an op-name sequence: the winning period (by the rules above)
/// and every region of it, in order, with the period of the pattern repeating inside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeats {
    /// Ops in one repeat.
    pub period: usize,
    /// `(first op index, repeats)` of every region of that period, in order.
    pub regions: Vec<(usize, usize)>,
    /// The period of a shorter pattern repeating inside one repeat, if any.
    pub inner_period: Option<usize>,
}

/// The repeating structure of `names` (durations weigh the regions), or `None`.
pub fn repeats(names: &[NameId], durations: &[u64]) -> Option<Repeats> {
    repeats_below(names, durations, usize::MAX)
}

/// [`repeats`] with periods shorter than `max_period` only (to look inside a repeat that
/// holds the whole run twice, such as two `generate` calls).
pub fn repeats_below(names: &[NameId], durations: &[u64], max_period: usize) -> Option<Repeats> {
    let best = best_region_below(names, durations, max_period)?;
    let prefix = prefix_sums(durations);
    let regions = regions_of(names, &prefix, best.period).into_iter().map(|r| (r.start, r.repeats)).collect();
    let first = &names[best.start..best.start + best.period];
    let first_durations = &durations[best.start..best.start + best.period];
    let inner_period = best_region(first, first_durations).map(|r| r.period).filter(|&p| p < best.period);
    Some(Repeats { period: best.period, regions, inner_period })
}

/// The layers of `timeline`'s main stream, or `None` when no op pattern repeats.
pub fn find_layers(timeline: &Timeline, families: &Families) -> Option<Layers> {
    let (device, stream, ops) = main_stream_ops(timeline, families)?;
    let names: Vec<NameId> = ops.iter().map(|op| op.name).collect();
    let durations: Vec<u64> = ops.iter().map(|op| op.dur_ns).collect();
    let region = best_region(&names, &durations)?;
    let layer = |k: usize| &ops[region.start + k * region.period..region.start + (k + 1) * region.period];
    let spans: Vec<u64> = (0..region.repeats)
        .map(|k| {
            let ops = layer(k);
            let end = ops.iter().map(|op| op.end_ns()).max().unwrap_or(0);
            end.saturating_sub(ops[0].start_ns)
        })
        .collect();
    let means: Vec<f64> = (0..region.period)
        .map(|j| (0..region.repeats).map(|k| layer(k)[j].dur_ns as f64).sum::<f64>() / region.repeats as f64)
        .collect();
    let layer_total: f64 = means.iter().sum();
    let stream_total: u64 = durations.iter().sum();
    let first: Vec<NameId> = layer(0).iter().map(|op| op.name).collect();
    let mean_durations: Vec<u64> = means.iter().map(|&m| m.round() as u64).collect();
    let inner = best_region(&first, &mean_durations).filter(|r| r.period < region.period).map(|r| InnerRepeat {
        period_ops: r.period,
        count: r.repeats,
        first_position: r.start,
        covered_pct: pct(r.covered_ns as f64, mean_durations.iter().sum::<u64>() as f64),
    });
    let profiler_steps = profiler_step_count(timeline);
    Some(Layers {
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
        stream_ops: ops.len(),
        first_op_index: region.start,
        offset_ns: ops[region.start].start_ns - ops[0].start_ns,
        covered_pct: pct(region.covered_ns as f64, stream_total as f64),
        layer_mean_ns: spans.iter().sum::<u64>() as f64 / spans.len() as f64,
        layer_min_ns: spans.iter().copied().min().unwrap_or(0),
        layer_max_ns: spans.iter().copied().max().unwrap_or(0),
        profiler_steps,
        inner,
        ops: layer(0)
            .iter()
            .zip(&means)
            .enumerate()
            .map(|(position, (op, &mean_ns))| LayerOp {
                position,
                name: timeline.name(op.name).to_owned(),
                mean_ns,
                share_pct: pct(mean_ns, layer_total),
            })
            .collect(),
    })
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part * 100.0 / whole
    } else {
        0.0
    }
}

/// The candidate periods of `names`, from the distances back to each name's previous run.
fn candidate_periods(names: &[NameId]) -> Vec<usize> {
    // Name ids are dense (an interner's indices): the last position of each is a plain table.
    let ids = names.iter().map(|n| n.0 as usize + 1).max().unwrap_or(0);
    let mut last: Vec<usize> = vec![usize::MAX; ids];
    let mut distances: FxHashMap<usize, u64> = FxHashMap::default();
    // The distance just counted, and its count so far: runs of one distance (every op of a
    // steady loop) are counted without a hash look-up each.
    let mut run: Option<(usize, u64)> = None;
    for (i, &name) in names.iter().enumerate() {
        let previous = std::mem::replace(&mut last[name.0 as usize], i);
        if previous != usize::MAX && i - previous >= MIN_PERIOD_OPS {
            let distance = i - previous;
            match &mut run {
                Some((d, count)) if *d == distance => *count += 1,
                _ => {
                    if let Some((d, count)) = run.replace((distance, 1)) {
                        *distances.entry(d).or_default() += count;
                    }
                }
            }
        }
    }
    if let Some((d, count)) = run {
        *distances.entry(d).or_default() += count;
    }
    let mut ranked: Vec<(usize, u64)> = distances.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut candidates: Vec<usize> = ranked.iter().take(CANDIDATE_PERIODS).map(|&(p, _)| p).collect();
    ranked.sort_by(|a, b| (b.1 * b.0 as u64).cmp(&(a.1 * a.0 as u64)).then(a.0.cmp(&b.0)));
    candidates.extend(ranked.iter().take(CANDIDATE_PERIODS).map(|&(p, _)| p));
    candidates.sort_unstable();
    candidates.dedup();
    candidates
}

fn prefix_sums(durations: &[u64]) -> Vec<u64> {
    let mut prefix = Vec::with_capacity(durations.len() + 1);
    prefix.push(0u64);
    for &d in durations {
        prefix.push(prefix[prefix.len() - 1].saturating_add(d));
    }
    prefix
}

/// The repeating region covering the most op time (smaller periods preferred within the slack).
fn best_region(names: &[NameId], durations: &[u64]) -> Option<Region> {
    best_region_below(names, durations, usize::MAX)
}

fn best_region_below(names: &[NameId], durations: &[u64], max_period: usize) -> Option<Region> {
    let prefix = prefix_sums(durations);
    let mut best: Option<Region> = None;
    // Smallest period first, so a larger one must beat the smaller by more than the slack.
    for period in candidate_periods(names).into_iter().filter(|&p| p < max_period) {
        // The first of equally covering regions.
        let regions = regions_of(names, &prefix, period);
        let Some(region) = regions.iter().copied().reduce(|a, b| if b.covered_ns > a.covered_ns { b } else { a })
        else {
            continue;
        };
        let better = match best {
            None => true,
            Some(b) => region.covered_ns as f64 > b.covered_ns as f64 * (1.0 + SMALLER_PERIOD_SLACK_PCT / 100.0),
        };
        if better {
            best = Some(region);
        }
    }
    best
}

/// Every repeating region of one period, in order; `prefix` holds prefix sums of the durations.
fn regions_of(names: &[NameId], prefix: &[u64], period: usize) -> Vec<Region> {
    let n = names.len();
    let mut regions = Vec::new();
    if n < period * MIN_REPEATS {
        return regions;
    }
    let tolerated = ((period as f64 * MISMATCH_TOLERANCE) as usize).max(1);
    let mut consider = |first: usize, last: usize| {
        // Matches at positions first..=last: ops first..last + period + 1 repeat.
        let repeats = (last + 1 - first + period) / period;
        if repeats < MIN_REPEATS {
            return;
        }
        let end = first + repeats * period;
        regions.push(Region { start: first, period, repeats, covered_ns: prefix[end] - prefix[first] });
    };
    // (first match, last match) of the region being grown, and mismatches since the last match.
    let mut open: Option<(usize, usize)> = None;
    let end = n - period;
    let mut i = 0;
    while i < end {
        // A steady loop matches everywhere: eight positions that all match at once.
        const RUN: usize = 8;
        if i + RUN <= end && names[i..i + RUN].iter().zip(&names[i + period..i + period + RUN]).all(|(a, b)| a == b) {
            open = Some(match open {
                Some((first, _)) => (first, i + RUN - 1),
                None => (i, i + RUN - 1),
            });
            i += RUN;
            continue;
        }
        if names[i] == names[i + period] {
            open = Some(match open {
                Some((first, _)) => (first, i),
                None => (i, i),
            });
        } else if let Some((first, last)) = open {
            if i - last > tolerated {
                consider(first, last);
                open = None;
            }
        }
        i += 1;
    }
    if let Some((first, last)) = open {
        consider(first, last);
    }
    regions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::OpKind;

    /// Ops on device 0 stream 7, back to back, 10 ns apart, named by `sequence`.
    fn timeline(sequence: &[(&str, u64)]) -> Timeline {
        let mut t = Timeline::new("test");
        let mut at = 0;
        for &(name, dur) in sequence {
            let id = t.intern(name);
            t.push_op(DeviceOp::new(OpKind::Kernel, id, 0, 7, at, dur));
            at += dur + 10;
        }
        t
    }

    #[test]
    fn finds_the_layer_after_a_prologue_and_averages_each_position() {
        // prologue "embed", 3 layers of norm(10|20|30) gemm(100) act(10), epilogue "head".
        let mut seq = vec![("embed", 50)];
        for norm in [10, 20, 30] {
            seq.extend([("norm", norm), ("gemm", 100), ("act", 10)]);
        }
        seq.push(("head", 40));
        // A side stream op must not count.
        let mut t = timeline(&seq);
        let side = t.intern("copy");
        t.push_op(DeviceOp::new(OpKind::Memcpy, side, 0, 9, 0, 1_000));
        let layers = find_layers(&t, &Families::builtin()).unwrap();
        assert_eq!((layers.period_ops, layers.count, layers.first_op_index, layers.stream), (3, 3, 1, 7));
        // offset: embed 50 + 10 gap.
        assert_eq!(layers.offset_ns, 60);
        let names: Vec<&str> = layers.ops.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["norm", "gemm", "act"]);
        // norm mean (10+20+30)/3 = 20; layer sum 20+100+10 = 130.
        assert_eq!(layers.ops[0].mean_ns, 20.0);
        assert!((layers.ops[1].share_pct - 100.0 * 100.0 / 130.0).abs() < 1e-9);
        assert_eq!(layers.by_share()[0].name, "gemm");
        // layer k spans norm start .. act end: norm + 10 + 100 + 10 + 10.
        assert_eq!((layers.layer_min_ns, layers.layer_max_ns), (140, 160));
        assert_eq!(layers.layer_mean_ns, 150.0);
        // covered: 390 of 50 + 390 + 40.
        assert!((layers.covered_pct - 390.0 * 100.0 / 480.0).abs() < 1e-9);
        assert_eq!(layers.profiler_steps, None);
        assert_eq!(layers.inner, None);
    }

    #[test]
    fn tolerates_one_differing_op_and_prefers_the_period_that_covers_most_time() {
        // 4 layers of 10 ops, the 3rd layer's softmax is a different node.
        let mut seq = Vec::new();
        for k in 0..4 {
            for j in 0..10 {
                let name = match (k, j) {
                    (2, 5) => "softmax_b",
                    (_, 5) => "softmax_a",
                    _ => ["a", "b", "c", "d", "e", "", "g", "h", "i", "j"][j],
                };
                seq.push((name, 5));
            }
        }
        // A cheap pair repeating many times after it must not win.
        for _ in 0..8 {
            seq.extend([("x", 1), ("y", 1)]);
        }
        let layers = find_layers(&timeline(&seq), &Families::builtin()).unwrap();
        assert_eq!((layers.period_ops, layers.count, layers.first_op_index), (10, 4, 0));
        assert_eq!(layers.ops[5].name, "softmax_a");
    }

    #[test]
    fn a_step_of_repeated_layers_reports_the_inner_repeat() {
        // 3 steps: 4 × (norm 10, gemv 40), then head 100.
        let mut seq = Vec::new();
        for _ in 0..3 {
            for _ in 0..4 {
                seq.extend([("norm", 10), ("gemv", 40)]);
            }
            seq.push(("head", 100));
        }
        let layers = find_layers(&timeline(&seq), &Families::builtin()).unwrap();
        assert_eq!((layers.period_ops, layers.count), (9, 3));
        let inner = layers.inner.unwrap();
        assert_eq!((inner.period_ops, inner.count, inner.first_position), (2, 4, 0));
        // 4 × 50 of 300.
        assert!((inner.covered_pct - 200.0 * 100.0 / 300.0).abs() < 1e-9);
    }

    #[test]
    fn large_timelines_stay_linear() {
        // 200 steps of 1000 ops (names k0..k999), 200 000 ops: one pass per candidate period.
        let mut t = Timeline::new("test");
        let names: Vec<NameId> = (0..1_000).map(|i| t.intern(&format!("k{i}"))).collect();
        for step in 0..200u64 {
            for (i, &name) in names.iter().enumerate() {
                let at = (step * 1_000 + i as u64) * 100;
                t.push_op(DeviceOp::new(OpKind::Kernel, name, 0, 7, at, 50 + i as u64 % 7));
            }
        }
        let started = std::time::Instant::now();
        let layers = find_layers(&t, &Families::builtin()).unwrap();
        assert_eq!((layers.period_ops, layers.count, layers.covered_pct), (1_000, 200, 100.0));
        assert!(started.elapsed().as_secs() < 20, "took {:?}", started.elapsed());
    }

    #[test]
    fn nothing_repeats_nothing_found() {
        let seq: Vec<(&str, u64)> = ["a", "b", "c", "d", "e"].iter().map(|&n| (n, 10)).collect();
        assert_eq!(find_layers(&timeline(&seq), &Families::builtin()), None);
        assert_eq!(find_layers(&Timeline::new("empty"), &Families::builtin()), None);
    }
}
