//! Loading one rank: its artifact through [`load_any`] (split from the timeline's temporal
//! breakdown, top kernel, communication ops) and, for an Ascend rank directory, the vendor's
//! own per-step split (`step_trace_time.csv`), per-op communication (`communication.json`) and
//! link matrix (`communication_matrix.json`), which win over the timeline where both exist.

use super::super::analyze::{load_any, Loaded};
use crate::sections::comm::TransportRow;
#[cfg(feature = "ascend")]
use prof_core::analysis::comm::gbps;
use prof_core::analysis::comm::{summarize_collectives, timeline_comm_samples, CollectiveStats, CommSample};
use prof_core::analysis::ranks::RankSplit;
use prof_core::analysis::temporal::temporal_breakdown;
use prof_core::families::Families;
use prof_core::kernel_summary::{summarize_kernels, KernelSummary};
use prof_core::Registry;
use serde::Serialize;
use std::path::Path;

/// The longest kernel of a rank.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopKernel {
    /// Kernel name.
    pub name: String,
    /// Its total time, ns.
    pub total_ns: u64,
    /// Its share of the rank's device time, %.
    pub share_pct: f64,
}

/// One link of the communication matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    /// Sending rank.
    pub src: u32,
    /// Receiving rank.
    pub dst: u32,
    /// Transport type.
    pub transport: String,
    /// Ops that used it.
    pub ops: u64,
    /// Transit bytes.
    pub bytes: u64,
    /// Transit time, ns.
    pub transit_ns: u64,
    /// Bytes over transit time, GB/s.
    pub bandwidth_gbps: Option<f64>,
}

/// Everything learned about one rank.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RankResult {
    /// Rank number.
    pub rank: u32,
    /// Its entry in the job directory (or the cluster file it came from).
    pub path: String,
    /// Where the split came from: `timeline`, `step_trace_time.csv` or `cluster_step_trace_time.csv`.
    pub split_from: Option<&'static str>,
    /// Wall time split.
    pub split: Option<RankSplit>,
    /// Wall minus idle, ns.
    pub busy_ns: Option<u64>,
    /// Longest kernel.
    pub top_kernel: Option<TopKernel>,
    /// Communication per collective type.
    pub collectives: Vec<CollectiveStats>,
    /// Per transport (Ascend).
    pub transports: Vec<TransportRow>,
    /// Links of this rank (Ascend `communication_matrix.json`).
    pub links: Vec<Link>,
    /// Why the rank could not be analysed.
    pub error: Option<String>,
    /// What is missing or was cut short.
    pub notes: Vec<String>,
    /// The rank's artifact was cut short: its numbers cover only what was read.
    pub partial: bool,
    /// The communication samples, for the job-wide table.
    #[serde(skip)]
    pub samples: Vec<CommSample>,
}

impl RankResult {
    fn set_split(&mut self, split: RankSplit, from: &'static str) {
        self.split = Some(split);
        self.busy_ns = Some(split.busy_ns());
        self.split_from = Some(from);
    }
}

/// Loads rank `rank` from `path`; never fails: what goes wrong is in `error` / `notes`.
pub fn rank(registry: &Registry, rank: u32, path: &Path, families: &Families) -> RankResult {
    let mut result = RankResult { rank, path: path.display().to_string(), ..RankResult::default() };
    let vendor_files = vendor_tables(&mut result, path);
    let timeline_error = match load_rank_artifact(registry, path, families) {
        Ok(Loaded::Timeline(timeline)) => {
            let summary = summarize_kernels(&timeline, families);
            result.top_kernel = top_kernel(&summary);
            if result.split.is_none() {
                if let Some(split) = RankSplit::from_temporal(&temporal_breakdown(&timeline, families)) {
                    result.set_split(split, "timeline");
                }
            }
            if result.samples.is_empty() {
                result.samples = timeline_comm_samples(&timeline, families);
                result.collectives = summarize_collectives(result.samples.clone());
            }
            if let Some(why) = &timeline.partial {
                result.partial = true;
                result.notes.push(why.clone());
            }
            None
        }
        Ok(Loaded::Summary(summary)) => {
            result.top_kernel = top_kernel(&summary);
            result.notes.push("per-kernel totals only: no wall-time split".to_owned());
            None
        }
        Ok(Loaded::Kernels(_)) => {
            Some(format!("{}: holds single-kernel deep-dive reports, not a timeline", path.display()))
        }
        Err(error) => Some(error),
    };
    if let Some(error) = timeline_error {
        // load_any's list of every format it knows says nothing about this rank.
        let unknown = error.contains("not a format prof reads");
        let error = error.split("; it reads:").next().unwrap_or(&error);
        if vendor_files && unknown {
            result.notes.push(format!("no op timeline, so no top kernel ({error})"));
        } else if result.error.is_none() {
            result.error = Some(format!("rank {rank}: {error}"));
        }
    }
    result
}

fn top_kernel(summary: &KernelSummary) -> Option<TopKernel> {
    summary.kernels.first().map(|k| TopKernel { name: k.name.clone(), total_ns: k.total_ns, share_pct: k.share_pct })
}

/// [`load_any`] on the rank's entry; a directory no loader reads that holds exactly one file
/// (torch.profiler's `rank0/trace.json`) is read as that file.
fn load_rank_artifact(registry: &Registry, path: &Path, families: &Families) -> Result<Loaded, String> {
    let error = match load_any(registry, path, families) {
        Ok(loaded) => return Ok(loaded),
        Err(error) => error.message,
    };
    if !path.is_dir() {
        return Err(error);
    }
    let files: Vec<_> = std::fs::read_dir(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()) && !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    match files.as_slice() {
        // A file no loader knows (profiler_info_0.json) says less than the directory's error.
        [only] => load_any(registry, only, families).map_err(|inner| {
            if inner.message.contains("not a format prof reads") {
                error
            } else {
                inner.message
            }
        }),
        _ => Err(error),
    }
}

/// Reads the Ascend per-rank tables under `path` into `result`; true when any was found.
#[cfg(feature = "ascend")]
fn vendor_tables(result: &mut RankResult, path: &Path) -> bool {
    use prof_backend_ascend::{communication, communication_matrix, step_trace};
    let rank = result.rank;
    let mut found = false;
    let fail = |result: &mut RankResult, error: String| {
        if result.error.is_none() {
            result.error = Some(format!("rank {rank}: {error}"));
        }
    };
    if let Some(file) = communication::find_named(path, "step_trace_time.csv") {
        found = true;
        match step_trace::load(&file) {
            Ok(steps) => result.set_split(step_trace::rank_split(&steps), "step_trace_time.csv"),
            Err(error) => fail(result, error.to_string()),
        }
    }
    if let Some(file) = communication::find_in(path) {
        found = true;
        match communication::load(&file) {
            Ok(ops) => {
                result.samples = ops.iter().map(communication::CommOp::sample).collect();
                result.collectives = summarize_collectives(result.samples.clone());
                result.transports = crate::sections::comm::transport_rows(&ops);
            }
            Err(error) => fail(result, error.to_string()),
        }
    }
    if let Some(file) = communication::find_named(path, "communication_matrix.json") {
        found = true;
        match communication_matrix::load(&file) {
            Ok(links) => {
                result.links = links
                    .into_iter()
                    .map(|l| Link {
                        bandwidth_gbps: gbps(l.bytes, l.transit_ns),
                        src: l.src,
                        dst: l.dst,
                        transport: l.transport,
                        ops: l.ops,
                        bytes: l.bytes,
                        transit_ns: l.transit_ns,
                    })
                    .collect()
            }
            Err(error) => fail(result, error.to_string()),
        }
    }
    found
}

/// Without the Ascend backend there are no vendor tables.
#[cfg(not(feature = "ascend"))]
fn vendor_tables(_result: &mut RankResult, _path: &Path) -> bool {
    false
}

/// Gives every rank of msprof-analyze's cluster table that has no split of its own the
/// cluster's split, adding the ranks that have no directory; an error says why the file was
/// not used.
#[cfg(feature = "ascend")]
pub fn fill_from_cluster(path: &Path, results: &mut Vec<RankResult>) -> Result<(), String> {
    use prof_backend_ascend::step_trace;
    let rows = step_trace::load(path).map_err(|e| e.to_string())?;
    let mut by_rank: std::collections::BTreeMap<u32, Vec<&step_trace::StepTime>> = Default::default();
    for row in &rows {
        if let Some(rank) = row.rank {
            by_rank.entry(rank).or_default().push(row);
        }
    }
    for (rank, steps) in by_rank {
        let split = step_trace::rank_split(steps);
        let at = match results.iter().position(|r| r.rank == rank) {
            Some(at) => at,
            None => {
                results.push(RankResult { rank, path: path.display().to_string(), ..RankResult::default() });
                results.len() - 1
            }
        };
        let result = &mut results[at];
        if result.split.is_none() {
            result.set_split(split, "cluster_step_trace_time.csv");
        }
    }
    Ok(())
}

/// Without the Ascend backend the cluster table cannot be read.
#[cfg(not(feature = "ascend"))]
pub fn fill_from_cluster(path: &Path, _results: &mut Vec<RankResult>) -> Result<(), String> {
    Err(format!("{}: this build has no Ascend backend to read it", path.display()))
}
