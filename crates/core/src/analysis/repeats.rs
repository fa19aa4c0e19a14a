//! Repeating op sequences: the candidate periods of a name sequence, the regions where each
//! repeats, and the one that covers the most op time. The rules are the layer analysis'
//! ([`layers`](super::layers)); the steps of a run ([`sequence_steps`](crate::diagnosis::steps::sequence_steps))
//! use them too.

use crate::analysis::prefix::PrefixSums;
use prof_timeline::intern::{FxHashMap, NameId};

/// Candidate periods taken from each of the two rankings of recurrence distances.
pub(crate) const CANDIDATE_PERIODS: usize = 8;
/// Shortest layer, ops: a "layer" of one op repeated is a loop, not a layer.
pub(crate) const MIN_PERIOD_OPS: usize = 2;
/// Fewest layers a repeating region must hold.
pub(crate) const MIN_REPEATS: usize = 2;
/// Longest run of mismatching positions a region tolerates, as a fraction of the period.
pub(crate) const MISMATCH_TOLERANCE: f64 = 0.1;
/// Fewest positions of a region (percent) whose op is named as the op one period later: past
/// the runs of mismatches tolerated, a wrong period's chance matches (a name as common as an
/// elementwise kernel's, every twenty ops) had strung a whole run into one region, which won
/// over the true period two ops longer (an H100 decode capture: 5 % matching against 99 %).
pub(crate) const MIN_MATCH_PCT: usize = 50;
/// How much less op time (percent) a smaller period may cover and still win over a larger one.
pub(crate) const SMALLER_PERIOD_SLACK_PCT: f64 = 5.0;

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
pub(crate) fn repeats_below(names: &[NameId], prefix: &PrefixSums, max_period: usize) -> Option<Repeats> {
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
    // The first of each period's equally covering regions.
    let best_of = |periods: &[usize]| -> Vec<Option<Region>> {
        regions_of_all(names, prefix, periods, true).into_iter().map(|regions| regions.first().copied()).collect()
    };
    let workers = if parallel && names.len() >= PARALLEL_MIN_OPS {
        prof_timeline::text_parts::workers().min(periods.len())
    } else {
        1
    };
    let per_period: Vec<Option<Region>> = if workers > 1 {
        // Worker w tries periods w, w + workers, ...: each period's region is its own.
        std::thread::scope(|scope| {
            let threads: Vec<_> = (0..workers)
                .map(|w| {
                    let (periods, best_of) = (&periods, &best_of);
                    scope.spawn(move || {
                        let mine: Vec<usize> = periods.iter().skip(w).step_by(workers).copied().collect();
                        best_of(&mine)
                    })
                })
                .collect();
            let found: Vec<Vec<Option<Region>>> = threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect();
            (0..periods.len()).map(|i| found[i % workers][i / workers]).collect()
        })
    } else {
        best_of(&periods)
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

/// The region being grown (first match, last match, matches) with one more match, at `at`.
#[inline(always)]
fn grown(open: Option<(usize, usize, usize)>, at: usize) -> (usize, usize, usize) {
    match open {
        Some((first, _, matched)) => (first, at, matched + 1),
        None => (at, at, 1),
    }
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
    regions_of_all(names, prefix, &[period], false).pop().unwrap_or_default()
}

/// Names each period's scan reads before the next period's scan reads the same ones, so
/// that they are read from the cache, not from memory, by all but the first (64 KB of ids).
const TILE: usize = 1 << 14;

/// [`regions_of`] for each of `periods`, in one walk over `names` a tile at a time; with
/// `best_only`, only the first of each period's regions that cover the most op time (a
/// wrong period has many small regions, which are not kept).
fn regions_of_all(names: &[NameId], prefix: &PrefixSums, periods: &[usize], best_only: bool) -> Vec<Vec<Region>> {
    let mut scans: Vec<RegionScan> = periods.iter().map(|&p| RegionScan::new(names.len(), p, best_only)).collect();
    let mut until = 0;
    while scans.iter().any(|scan| scan.i < scan.end) {
        until += TILE;
        for scan in &mut scans {
            scan.advance(names, prefix, until);
        }
    }
    scans.into_iter().map(|scan| scan.finish(prefix)).collect()
}

/// The walk of [`regions_of`] for one period, which can stop at any position and go on.
struct RegionScan {
    period: usize,
    /// Longest run of mismatches a region tolerates.
    tolerated: usize,
    /// Positions compared: `0..end` (`names[i]` with `names[i + period]`); none when the
    /// names cannot repeat `MIN_REPEATS` times.
    end: usize,
    /// The next position.
    i: usize,
    /// (first match, last match, matches) of the region being grown.
    open: Option<(usize, usize, usize)>,
    regions: Vec<Region>,
    /// Keep only the first region that covers the most.
    best_only: bool,
}

impl RegionScan {
    fn new(n: usize, period: usize, best_only: bool) -> Self {
        let end = if n < period * MIN_REPEATS { 0 } else { n - period };
        let tolerated = ((period as f64 * MISMATCH_TOLERANCE) as usize).max(1);
        Self { period, tolerated, end, i: 0, open: None, regions: Vec::new(), best_only }
    }

    /// A region with `matched` matches at positions first..=last: ops first..last + period + 1
    /// repeat, when enough of its positions match ([`MIN_MATCH_PCT`]).
    fn consider(&mut self, prefix: &PrefixSums, (first, last, matched): (usize, usize, usize)) {
        let period = self.period;
        let repeats = (last + 1 - first + period) / period;
        if repeats < MIN_REPEATS || matched * 100 < MIN_MATCH_PCT * (last + 1 - first) {
            return;
        }
        let end = first + repeats * period;
        let region = Region { start: first, period, repeats, covered_ns: prefix.sum(first, end) };
        match self.regions.first_mut() {
            Some(best) if self.best_only => {
                if region.covered_ns > best.covered_ns {
                    *best = region;
                }
            }
            _ => self.regions.push(region),
        }
    }

    /// Compares the positions from the next one up to `until` (or a little past it: a chunk
    /// is compared whole).
    fn advance(&mut self, names: &[NameId], prefix: &PrefixSums, until: usize) {
        let (period, end, tolerated) = (self.period, self.end, self.tolerated);
        let (mut i, mut open) = (self.i, self.open);
        while i < end.min(until) {
            // Sixteen positions at once: a steady loop matches at all of them, a wrong period
            // at none or a few. The region closes at the first mismatch too far from its last
            // match: before a match that follows more than `tolerated + 1` positions after the
            // last, or at the chunk's end.
            let chunks = (names[i..end].first_chunk(), names[i + period..].first_chunk());
            if let (Some(here), Some(later)) = chunks {
                let mut matches = matches_at(here, later);
                if matches == ALL {
                    open = Some(match open {
                        Some((first, _, matched)) => (first, i + CHUNK - 1, matched + CHUNK),
                        None => (i, i + CHUNK - 1, CHUNK),
                    });
                    i += CHUNK;
                    continue;
                }
                while matches != 0 {
                    let at = i + matches.trailing_zeros() as usize;
                    matches &= matches - 1;
                    if let Some(span) = open.filter(|&(_, last, _)| at - last > tolerated + 1) {
                        self.consider(prefix, span);
                        open = None;
                    }
                    open = Some(grown(open, at));
                }
                if let Some(span) = open.filter(|&(_, last, _)| i + CHUNK - 1 - last > tolerated) {
                    self.consider(prefix, span);
                    open = None;
                }
                i += CHUNK;
                continue;
            }
            if names[i] == names[i + period] {
                open = Some(grown(open, i));
            } else if let Some((first, last, matched)) = open {
                if i - last > tolerated {
                    self.consider(prefix, (first, last, matched));
                    open = None;
                }
            }
            i += 1;
        }
        (self.i, self.open) = (i, open);
    }

    /// The regions, once every position is compared.
    fn finish(mut self, prefix: &PrefixSums) -> Vec<Region> {
        if let Some(span) = self.open.take() {
            self.consider(prefix, span);
        }
        self.regions
    }
}

#[cfg(test)]
mod tests;
