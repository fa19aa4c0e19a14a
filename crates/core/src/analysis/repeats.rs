//! Repeating op sequences: the candidate periods of a name sequence, the regions where each
//! repeats, and the one that covers the most op time. The rules are the layer analysis'
//! ([`layers`](super::layers)); the steps of a run ([`sequence_steps`](crate::diagnosis::steps::sequence_steps))
//! use them too.

use crate::analysis::prefix::PrefixSums;
use crate::intern::{FxHashMap, NameId};

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

/// A repeating region: first op index, period and number of layers, and the op time it covers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Region {
    pub(crate) start: usize,
    pub(crate) period: usize,
    pub(crate) repeats: usize,
    pub(crate) covered_ns: u64,
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

/// The repeating structure of `names`, or `None`. The ops' durations weigh the regions, given
/// as their prefix sums ([`PrefixSums`]: one more entry than `names`).
pub fn repeats(names: &[NameId], prefix: &PrefixSums) -> Option<Repeats> {
    repeats_below(names, prefix, usize::MAX)
}

/// [`repeats`] with periods shorter than `max_period` only (to look inside a repeat that
/// holds the whole run twice, such as two `generate` calls).
pub fn repeats_below(names: &[NameId], prefix: &PrefixSums, max_period: usize) -> Option<Repeats> {
    let best = best_region_below(names, prefix, max_period, true)?;
    let regions = regions_of(names, prefix, best.period).into_iter().map(|r| (r.start, r.repeats)).collect();
    let first = &names[best.start..best.start + best.period];
    let first_prefix = prefix.range(best.start, best.start + best.period);
    let inner_period = best_region(first, &first_prefix).map(|r| r.period).filter(|&p| p < best.period);
    Some(Repeats { period: best.period, regions, inner_period })
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

/// The repeating region covering the most op time (smaller periods preferred within the slack).
pub(crate) fn best_region(names: &[NameId], prefix: &PrefixSums) -> Option<Region> {
    best_region_below(names, prefix, usize::MAX, false)
}

/// Ops from which [`repeats`] tries the candidate periods on all cores (the layers, which run
/// beside other sections, try them on one).
const PARALLEL_MIN_OPS: usize = 1 << 20;

fn best_region_below(names: &[NameId], prefix: &PrefixSums, max_period: usize, parallel: bool) -> Option<Region> {
    let periods: Vec<usize> = candidate_periods(names).into_iter().filter(|&p| p < max_period).collect();
    // The first of a period's equally covering regions.
    let best_of = |period: usize| {
        let regions = regions_of(names, prefix, period);
        regions.iter().copied().reduce(|a, b| if b.covered_ns > a.covered_ns { b } else { a })
    };
    let workers =
        if parallel && names.len() >= PARALLEL_MIN_OPS { crate::text_parts::workers().min(periods.len()) } else { 1 };
    let per_period: Vec<Option<Region>> = if workers > 1 {
        // Worker w tries periods w, w + workers, ...: each period's region is its own.
        std::thread::scope(|scope| {
            let threads: Vec<_> = (0..workers)
                .map(|w| {
                    let (periods, best_of) = (&periods, &best_of);
                    scope
                        .spawn(move || periods.iter().skip(w).step_by(workers).map(|&p| best_of(p)).collect::<Vec<_>>())
                })
                .collect();
            let found: Vec<Vec<Option<Region>>> = threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect();
            (0..periods.len()).map(|i| found[i % workers][i / workers]).collect()
        })
    } else {
        periods.iter().map(|&p| best_of(p)).collect()
    };
    let mut best: Option<Region> = None;
    // Smallest period first, so a larger one must beat the smaller by more than the slack.
    for region in per_period.into_iter().flatten() {
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

/// Positions [`regions_of`] compares at once.
const CHUNK: usize = 16;
/// [`matches_at`] when every position matches.
const ALL: u32 = (1 << CHUNK) - 1;

/// Bit `k` set when `a[k] == b[k]`, for [`CHUNK`] positions (branch-free, so it compiles to
/// vector compares).
#[inline(always)]
fn matches_at(a: &[NameId; CHUNK], b: &[NameId; CHUNK]) -> u32 {
    let mut mask = 0;
    for k in 0..CHUNK {
        mask |= u32::from(a[k] == b[k]) << k;
    }
    mask
}

/// Every repeating region of one period, in order; `prefix` holds prefix sums of the durations.
fn regions_of(names: &[NameId], prefix: &PrefixSums, period: usize) -> Vec<Region> {
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
        regions.push(Region { start: first, period, repeats, covered_ns: prefix.sum(first, end) });
    };
    // (first match, last match) of the region being grown, and mismatches since the last match.
    let mut open: Option<(usize, usize)> = None;
    let end = n - period;
    let mut i = 0;
    while i < end {
        // Sixteen positions at once: a steady loop matches at all of them, a wrong period at
        // none; only a chunk that mixes the two is walked position by position.
        let chunks = (names[i..end].first_chunk(), names[i + period..].first_chunk());
        if let (Some(here), Some(later)) = chunks {
            match matches_at(here, later) {
                ALL => {
                    open = Some((open.map_or(i, |(first, _)| first), i + CHUNK - 1));
                    i += CHUNK;
                    continue;
                }
                0 => {
                    // The region closes at the first mismatch too far from its last match.
                    if let Some((first, last)) = open.filter(|&(_, last)| i + CHUNK - 1 - last > tolerated) {
                        consider(first, last);
                        open = None;
                    }
                    i += CHUNK;
                    continue;
                }
                _ => {}
            }
        }
        if names[i] == names[i + period] {
            open = Some((open.map_or(i, |(first, _)| first), i));
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

    use crate::test_random::XorShift;

    /// [`regions_of`] written one position at a time, as the rules read.
    fn plain_regions(names: &[NameId], prefix: &PrefixSums, period: usize) -> Vec<Region> {
        let n = names.len();
        let mut regions = Vec::new();
        if n < period * MIN_REPEATS {
            return regions;
        }
        let tolerated = ((period as f64 * MISMATCH_TOLERANCE) as usize).max(1);
        let mut consider = |first: usize, last: usize| {
            let repeats = (last + 1 - first + period) / period;
            if repeats >= MIN_REPEATS {
                let end = first + repeats * period;
                regions.push(Region { start: first, period, repeats, covered_ns: prefix.sum(first, end) });
            }
        };
        let mut open: Option<(usize, usize)> = None;
        for i in 0..n - period {
            if names[i] == names[i + period] {
                open = Some((open.map_or(i, |(first, _)| first), i));
            } else if let Some((first, last)) = open {
                if i - last > tolerated {
                    consider(first, last);
                    open = None;
                }
            }
        }
        if let Some((first, last)) = open {
            consider(first, last);
        }
        regions
    }

    /// Sequences of a repeating block with noise (runs of matching, mismatching and mixed
    /// positions, so all three of the chunked comparison's ways are taken), every period from
    /// 1 to 40: the chunked regions equal the plain ones.
    #[test]
    fn chunked_regions_equal_the_regions_found_one_position_at_a_time() {
        let mut rng = XorShift::new(0x0bad_5eed_1234_5678);
        for round in 0..40 {
            let block = 1 + rng.below(30) as usize;
            let noise = [0, 2, 20, 200][round % 4];
            let names: Vec<NameId> = (0..(200 + rng.below(800) as usize))
                .map(|i| {
                    let name = if rng.below(1000) < noise { 1000 + rng.below(5) } else { (i % block) as u64 };
                    NameId(name as u32)
                })
                .collect();
            let prefix = PrefixSums::of(names.iter().map(|_| rng.below(100)));
            for period in 1..=40 {
                assert_eq!(
                    regions_of(&names, &prefix, period),
                    plain_regions(&names, &prefix, period),
                    "round {round} period {period}"
                );
            }
        }
    }

    /// Over [`PARALLEL_MIN_OPS`] ops the periods are tried on all cores: the same region as
    /// trying them one after the other.
    #[test]
    fn periods_tried_on_all_cores_pick_the_region_tried_in_turn() {
        let mut rng = XorShift::new(0x5151_5151_aaaa_0001);
        // Steps of 97 ops, each step 8 layers of 12 plus a head; some ops differ.
        let names: Vec<NameId> = (0..PARALLEL_MIN_OPS + 5_000)
            .map(|i| {
                let at = i % 97;
                let name = if at == 96 { 500 } else { at % 12 };
                NameId(if rng.below(50) == 0 { 600 + rng.below(3) as u32 } else { name as u32 })
            })
            .collect();
        let prefix = PrefixSums::of(names.iter().map(|n| 10 + u64::from(n.0 % 7)));
        let serial = best_region_below(&names, &prefix, usize::MAX, false);
        assert!(serial.is_some());
        assert_eq!(best_region_below(&names, &prefix, usize::MAX, true), serial);
    }
}
