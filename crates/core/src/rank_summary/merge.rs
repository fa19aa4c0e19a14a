//! Many rank summaries into one job report, in bounded memory: each summary is read, reduced to
//! its split, step windows and collective times, and dropped (on every core); what is kept is
//! ~24 bytes a collective and 16 a step per rank.
//!
//! What it names:
//! - the rank the job waits on: at each collective (matched across ranks by type and order)
//!   the rank that arrives last, the others' wait for it, and why it was late (its compute
//!   above the median rank's);
//! - a rank that started late: its first step began a quarter step or more after the median
//!   rank's;
//! - a slow link: a rank whose collectives still run long after every rank has arrived;
//! - the per-step skew (the spread of the ranks' step starts and lengths);
//! - the slowest rank by wall time, as `prof analyze` gives it on raw traces.

use super::kept::{median, Kept};
use super::skew::{late_start, step_heat, step_skew, LateStart, StepHeat, StepSkew};
use super::summary::RankSummary;
use crate::analysis::ranks::{missing_ranks, slowest_rank, RankSplit, SlowestRank};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Mutex;

/// Collectives matched across every rank below which no rank is named (the evidence floor).
pub const MIN_MATCHED: u64 = 10;
/// The middle 80 % of ranks must end their matched collectives within this many median
/// collective lengths (or [`ALIGNED_FLOOR_NS`]) of each other for their arrivals to be compared.
const ALIGNED_FACTOR: u64 = 10;
/// …or within this much, ns.
const ALIGNED_FLOOR_NS: u64 = 1_000_000;
/// A share of collectives a rank must arrive last at to be the one the job waits on.
const STRAGGLER_SHARE: f64 = 0.5;
/// How many times the median transfer a rank's must be to name its link.
const LINK_FACTOR: f64 = 1.5;

/// The merged job.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct JobReport {
    /// Ranks merged.
    pub ranks: usize,
    /// Rank numbers missing from `0..=max`.
    pub missing_ranks: Vec<u32>,
    /// Summaries that could not be read, with why.
    pub failed: Vec<String>,
    /// Per rank, in rank order.
    pub rows: Vec<RankRow>,
    /// The slowest rank by wall time against the median rank.
    pub slowest: Option<SlowestRank>,
    /// The rank the others wait on at collectives, and why.
    pub straggler: Option<Straggler>,
    /// A rank that started late.
    pub late_start: Option<LateStart>,
    /// Ranks whose collectives run long after everyone arrived.
    pub links: Vec<LinkSuspect>,
    /// Per step index: the spread of the ranks' starts and lengths.
    pub steps: Vec<StepSkew>,
    /// Per collective type: how many were matched across ranks and the waits in them.
    pub collectives: Vec<CollectiveWait>,
    /// How late each rank started each step, for a rank × step heat map (at most
    /// [`HEAT_SIDE`] ranks and steps, sampled evenly, the named ranks always in).
    pub heat: StepHeat,
    /// The links of every rank that has them (the vendor's communication matrix).
    pub communication_matrix: Vec<crate::vendor_tables::Link>,
    /// What limits the answer (unequal collective counts, ranks without steps, …).
    pub notes: Vec<String>,
    /// The ranks' matched collectives line up (end together), so arrivals are compared; when
    /// false no rank is named (added in 0.7.0).
    pub aligned: bool,
}

/// One rank's row.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RankRow {
    /// The rank.
    pub rank: u32,
    /// Its split.
    pub split: RankSplit,
    /// Steps found.
    pub steps: usize,
    /// Collectives.
    pub collectives: usize,
    /// Time it waited at collectives for the last rank to arrive, ns.
    pub wait_ns: u64,
    /// Collectives it arrived last at.
    pub last_at: u64,
}

/// The rank the job waits on.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Straggler {
    /// The rank.
    pub rank: u32,
    /// Collectives it arrived last at, of those matched across every rank.
    pub last_at: u64,
    /// Collectives matched across every rank.
    pub matched: u64,
    /// The other ranks' wait for it there, summed over ranks, ns.
    pub others_wait_ns: u64,
    /// Its compute minus the median rank's, ns.
    pub excess_compute_ns: i64,
    /// Why: `slow compute` (its compute above the median rank's) or `unknown`.
    pub cause: String,
}

/// A rank whose collectives run long after every rank arrived.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LinkSuspect {
    /// The rank.
    pub rank: u32,
    /// Its mean time from the last arrival to its collective's end, ns.
    pub transfer_ns: u64,
    /// The median rank's, ns.
    pub median_transfer_ns: u64,
}

/// One collective type across ranks.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CollectiveWait {
    /// Collective type.
    pub op: String,
    /// Collectives of this type matched across every rank.
    pub matched: u64,
    /// Median arrival spread (last minus first start), ns.
    pub median_spread_ns: u64,
    /// The ranks' waits in them, summed, ns.
    pub wait_ns: u64,
}

/// Merges the summaries `paths` name, read on every core; a summary that cannot be read is
/// listed in `failed` and the rest are merged.
pub fn merge(paths: &[std::path::PathBuf]) -> JobReport {
    let types = Mutex::new(HashMap::<String, u16>::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let kept = Mutex::new(Vec::with_capacity(paths.len()));
    let failed = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(paths.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(path) = paths.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    match RankSummary::read(path) {
                        Ok(summary) => {
                            let one = keep(summary, &types);
                            kept.lock().unwrap_or_else(|e| e.into_inner()).push(one);
                        }
                        Err(error) => failed.lock().unwrap_or_else(|e| e.into_inner()).push(error),
                    }
                }
            });
        }
    });
    let mut kept = kept.into_inner().unwrap_or_else(|e| e.into_inner());
    kept.sort_by_key(|k| k.rank);
    let types = types.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut names = vec![String::new(); types.len()];
    for (name, id) in types {
        names[id as usize] = name;
    }
    let mut failed = failed.into_inner().unwrap_or_else(|e| e.into_inner());
    failed.sort();
    merge_kept(&kept, &names, failed)
}

fn keep(summary: RankSummary, types: &Mutex<HashMap<String, u16>>) -> Kept {
    let mut types = types.lock().unwrap_or_else(|e| e.into_inner());
    let collectives = summary
        .collectives
        .iter()
        .map(|c| {
            let next = types.len() as u16;
            (*types.entry(c.op.clone()).or_insert(next), c.start_ns, c.end_ns)
        })
        .collect();
    Kept { rank: summary.rank, split: summary.split, steps: summary.steps, collectives, links: summary.links }
}

fn merge_kept(kept: &[Kept], types: &[String], failed: Vec<String>) -> JobReport {
    let mut notes = Vec::new();
    let mut rows: Vec<RankRow> = kept
        .iter()
        .map(|k| RankRow {
            rank: k.rank,
            split: k.split,
            steps: k.steps.len(),
            collectives: k.collectives.len(),
            wait_ns: 0,
            last_at: 0,
        })
        .collect();
    // Collectives matched across every rank: the n-th of each type, n below every rank's count.
    let per_type: Vec<Vec<Vec<(u64, u64)>>> = kept
        .iter()
        .map(|k| {
            let mut of = vec![Vec::new(); types.len()];
            for &(t, start, end) in &k.collectives {
                of[t as usize].push((start, end));
            }
            of
        })
        .collect();
    let mut collectives = Vec::new();
    let mut others_wait = vec![0u64; kept.len()];
    let mut transfer = vec![(0u64, 0u64); kept.len()];
    let mut matched_total = 0u64;
    // Per matched collective: how far apart the middle 80 % of ranks end it, and how long the
    // median rank's took (a collective ends nearly together on every rank of a step).
    let (mut end_spreads, mut durations) = (Vec::new(), Vec::new());
    for (t, name) in types.iter().enumerate() {
        let counts: Vec<usize> = per_type.iter().map(|of| of[t].len()).collect();
        let matched = counts.iter().copied().min().unwrap_or(0);
        if counts.iter().any(|&c| c != matched) {
            notes.push(format!(
                "{name}: ranks hold {}..{} of them; the first {matched} of each are compared",
                matched,
                counts.iter().max().unwrap_or(&0)
            ));
        }
        let (mut spreads, mut wait_ns) = (Vec::with_capacity(matched), 0u64);
        for n in 0..matched {
            let starts: Vec<u64> = per_type.iter().map(|of| of[t][n].0).collect();
            let (last, &latest) = starts.iter().enumerate().max_by_key(|&(i, s)| (*s, std::cmp::Reverse(i))).unwrap();
            let first = *starts.iter().min().unwrap();
            spreads.push(latest - first);
            let mut ends: Vec<u64> = per_type.iter().map(|of| of[t][n].1).collect();
            ends.sort_unstable();
            end_spreads.push(ends[ends.len() * 9 / 10] - ends[ends.len() / 10]);
            let mut took: Vec<u64> = per_type.iter().map(|of| of[t][n].1.saturating_sub(of[t][n].0)).collect();
            durations.push(median(&mut took));
            rows[last].last_at += 1;
            for (r, &start) in starts.iter().enumerate() {
                let wait = latest - start;
                rows[r].wait_ns += wait;
                wait_ns += wait;
                others_wait[last] += wait;
                let end = per_type[r][t][n].1;
                transfer[r].0 += end.saturating_sub(latest);
                transfer[r].1 += 1;
            }
        }
        matched_total += matched as u64;
        if matched > 0 {
            collectives.push(CollectiveWait {
                op: name.clone(),
                matched: matched as u64,
                median_spread_ns: median(&mut spreads),
                wait_ns,
            });
        }
    }
    collectives.sort_by(|a, b| b.wait_ns.cmp(&a.wait_ns).then_with(|| a.op.cmp(&b.op)));
    let median_compute = median(&mut kept.iter().map(|k| k.split.compute_ns).collect::<Vec<_>>());
    let median_first_start = median(&mut kept.iter().filter_map(|k| k.steps.first().map(|s| s.0)).collect::<Vec<_>>());
    // Ranks whose n-th collectives end far apart did not capture the same steps (or their clocks
    // differ): comparing their arrivals would name a rank at random.
    let (end_spread, duration) = (median(&mut end_spreads), median(&mut durations));
    let aligned = end_spread <= (ALIGNED_FACTOR * duration).max(ALIGNED_FLOOR_NS);
    if kept.len() > 1 && matched_total > 0 && !aligned {
        notes.push(format!(
            "the ranks' matched collectives do not line up: the middle 80 % of ranks end them {} ns apart \
             (median) against a median collective of {} ns; their windows hold different steps or their \
             clocks differ, so no rank is named (capture every rank on the same step: a profiler step or \
             NVTX range)",
            end_spread, duration
        ));
    }
    let enough = kept.len() > 1 && matched_total >= MIN_MATCHED && aligned;
    let straggler = enough
        .then(|| (0..kept.len()).max_by_key(|&r| (rows[r].last_at, std::cmp::Reverse(r))))
        .flatten()
        .filter(|&r| rows[r].last_at as f64 >= STRAGGLER_SHARE * matched_total as f64)
        .map(|r| {
            let excess_compute_ns = kept[r].split.compute_ns as i64 - median_compute as i64;
            Straggler {
                rank: kept[r].rank,
                last_at: rows[r].last_at,
                matched: matched_total,
                others_wait_ns: others_wait[r],
                excess_compute_ns,
                cause: if excess_compute_ns > 0 { "slow compute" } else { "unknown" }.to_owned(),
            }
        });
    let late_start = late_start(kept, median_first_start);
    let means: Vec<u64> = transfer.iter().map(|&(sum, n)| sum.checked_div(n).unwrap_or(0)).collect();
    let median_transfer = median(&mut means.clone());
    let mut links: Vec<LinkSuspect> = means
        .iter()
        .enumerate()
        .filter(|&(_, &mean)| enough && median_transfer > 0 && mean as f64 >= LINK_FACTOR * median_transfer as f64)
        .map(|(r, &mean)| LinkSuspect { rank: kept[r].rank, transfer_ns: mean, median_transfer_ns: median_transfer })
        .collect();
    links.sort_by(|a, b| b.transfer_ns.cmp(&a.transfer_ns).then(a.rank.cmp(&b.rank)));
    let steps = step_skew(kept);
    if kept.iter().any(|k| k.steps.is_empty()) {
        notes.push(format!("{} ranks have no steps", kept.iter().filter(|k| k.steps.is_empty()).count()));
    }
    let named: Vec<u32> = straggler
        .iter()
        .map(|s| s.rank)
        .chain(late_start.iter().map(|l| l.rank))
        .chain(links.iter().map(|l| l.rank))
        .collect();
    let heat = step_heat(kept, &named);
    let splits: Vec<(u32, RankSplit)> = kept.iter().map(|k| (k.rank, k.split)).collect();
    JobReport {
        ranks: kept.len(),
        missing_ranks: missing_ranks(&kept.iter().map(|k| k.rank).collect::<Vec<_>>()),
        failed,
        rows,
        slowest: slowest_rank(&splits),
        straggler,
        late_start,
        links,
        steps,
        collectives,
        heat,
        communication_matrix: kept.iter().flat_map(|k| k.links.iter().cloned()).collect(),
        notes,
        aligned,
    }
}
