//! Across ranks, per step: the spread of the ranks' step starts and lengths, a rank that started
//! late, and how late each rank started each step (the heat map).

use super::kept::{median, Kept};
use serde::Serialize;

/// Steps every rank must have for a late start to be named.
pub const MIN_STEPS: usize = 3;

/// A first step that begins this share of the median step length after the median rank's is a
/// late start.
const LATE_SHARE: f64 = 0.25;

/// Most ranks and steps the heat map keeps.
pub const HEAT_SIDE: usize = 64;

/// How late each rank started each step: ns after the earliest rank's start of that step.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepHeat {
    /// The ranks (rows).
    pub ranks: Vec<u32>,
    /// The step indices (columns).
    pub steps: Vec<usize>,
    /// `late_ns[row][column]`; `None` where the rank has no such step.
    pub late_ns: Vec<Vec<Option<u64>>>,
}

/// A rank whose first step began well after the others'.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LateStart {
    /// The rank.
    pub rank: u32,
    /// How much later its first step began than the median rank's, ns.
    pub late_ns: u64,
    /// The median rank's first step length, ns (what the lateness is measured against).
    pub median_step_ns: u64,
}

/// One step index across ranks.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepSkew {
    /// Step index (0: the first step of each rank's window).
    pub step: usize,
    /// Ranks that have it.
    pub ranks: usize,
    /// Latest start minus earliest start, ns.
    pub start_spread_ns: u64,
    /// The rank that started it last.
    pub last_to_start: u32,
    /// Shortest, median and longest length, ns.
    pub length_ns: (u64, u64, u64),
    /// The rank with the longest.
    pub longest: u32,
}

/// `count` indices of `0..len`, evenly spaced (all of them when `len <= count`).
fn evenly(len: usize, count: usize) -> Vec<usize> {
    if len <= count {
        return (0..len).collect();
    }
    (0..count).map(|i| i * (len - 1) / (count - 1).max(1)).collect()
}

pub(super) fn step_heat(kept: &[Kept], named: &[u32]) -> StepHeat {
    let most = kept.iter().map(|k| k.steps.len()).max().unwrap_or(0);
    if kept.len() < 2 || most == 0 {
        return StepHeat::default();
    }
    let steps = evenly(most, HEAT_SIDE);
    let earliest: Vec<Option<u64>> =
        steps.iter().map(|&s| kept.iter().filter_map(|k| k.steps.get(s).map(|w| w.0)).min()).collect();
    // The named ranks, then others evenly spaced, in rank order.
    let mut rows: Vec<usize> =
        kept.iter().enumerate().filter(|(_, k)| named.contains(&k.rank)).map(|(i, _)| i).collect();
    for i in evenly(kept.len(), HEAT_SIDE) {
        if rows.len() >= HEAT_SIDE.max(named.len()) {
            break;
        }
        if !rows.contains(&i) {
            rows.push(i);
        }
    }
    rows.sort_unstable();
    StepHeat {
        ranks: rows.iter().map(|&i| kept[i].rank).collect(),
        late_ns: rows
            .iter()
            .map(|&i| {
                steps.iter().zip(&earliest).map(|(&s, first)| Some(kept[i].steps.get(s)?.0 - (*first)?)).collect()
            })
            .collect(),
        steps,
    }
}

/// The rank whose first step began latest, when that is at least [`LATE_SHARE`] of the median
/// first step's length after the median rank's start.
pub(super) fn late_start(kept: &[Kept], median_first_start: u64) -> Option<LateStart> {
    let median_step_ns =
        median(&mut kept.iter().filter_map(|k| k.steps.first().map(|s| s.1 - s.0)).collect::<Vec<_>>());
    let (rank, start) = kept
        .iter()
        .filter_map(|k| k.steps.first().map(|s| (k.rank, s.0)))
        .max_by_key(|&(rank, start)| (start, std::cmp::Reverse(rank)))?;
    let late_ns = start.saturating_sub(median_first_start);
    let enough = kept.len() > 1 && kept.iter().all(|k| k.steps.len() >= MIN_STEPS);
    (enough && median_step_ns > 0 && late_ns as f64 >= LATE_SHARE * median_step_ns as f64).then_some(LateStart {
        rank,
        late_ns,
        median_step_ns,
    })
}

pub(super) fn step_skew(kept: &[Kept]) -> Vec<StepSkew> {
    let most = kept.iter().map(|k| k.steps.len()).max().unwrap_or(0);
    (0..most)
        .filter_map(|step| {
            let have: Vec<(u32, (u64, u64))> =
                kept.iter().filter_map(|k| k.steps.get(step).map(|&s| (k.rank, s))).collect();
            if have.len() < 2 {
                return None;
            }
            let (last_to_start, latest) =
                have.iter().map(|&(r, s)| (r, s.0)).max_by_key(|&(r, s)| (s, std::cmp::Reverse(r)))?;
            let earliest = have.iter().map(|&(_, s)| s.0).min()?;
            let mut lengths: Vec<u64> = have.iter().map(|&(_, s)| s.1 - s.0).collect();
            let longest = have.iter().max_by_key(|&&(r, s)| (s.1 - s.0, std::cmp::Reverse(r)))?.0;
            let med = median(&mut lengths);
            Some(StepSkew {
                step,
                ranks: have.len(),
                start_spread_ns: latest - earliest,
                last_to_start,
                length_ns: (lengths[0], med, lengths[lengths.len() - 1]),
                longest,
            })
        })
        .collect()
}
