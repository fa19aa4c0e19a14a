//! Loading one rank: its artifact through [`load_any`] (split from the timeline's temporal
//! breakdown, top kernel, communication ops) and, for an Ascend rank directory, the vendor's
//! own per-step split (`step_trace_time.csv`), per-op communication (`communication.json`) and
//! link matrix (`communication_matrix.json`), which win over the timeline where both exist.

use crate::failure::{Failure, Kind};
use prof_core::analysis::comm::{gbps, summarize_collectives, timeline_comm_samples, CollectiveStats, CommSample};
use prof_core::analysis::ranks::RankSplit;
use prof_core::analysis::temporal::temporal_breakdown;
use prof_core::families::Families;
use prof_core::kernel_summary::{summarize_kernels, KernelSummary};
use prof_core::rank_summary::RankSummary;
use prof_core::report::TransportRow;
use prof_core::{Error, Loaded, Registry};
use serde::Serialize;
use std::path::Path;

/// The longest kernel of a rank.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TopKernel {
    /// Kernel name.
    pub name: String,
    /// Its total time, ns.
    pub total_ns: u64,
    /// Its share of the rank's device time, %.
    pub share_pct: f64,
}

/// One link of the communication matrix, with its bandwidth.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LinkBandwidth {
    /// The link as the vendor's table gives it.
    #[serde(flatten)]
    pub link: prof_core::vendor_tables::Link,
    /// Bytes over transit time, GB/s.
    pub bandwidth_gbps: Option<f64>,
}

/// Everything learned about one rank.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct RankResult {
    /// Rank number.
    pub rank: u32,
    /// Its entry in the job directory (or the cluster file it came from).
    pub path: String,
    /// Where the split came from: `timeline`, `step_trace_time.csv` or `cluster_step_trace_time.csv`.
    pub split_from: Option<String>,
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
    pub links: Vec<LinkBandwidth>,
    /// Why the rank could not be analysed.
    pub error: Option<String>,
    /// What is missing or was cut short.
    pub notes: Vec<String>,
    /// The rank's artifact was cut short: its numbers cover only what was read.
    pub partial: bool,
    /// The communication samples, for the job-wide table.
    #[serde(skip)]
    pub samples: Vec<CommSample>,
    /// The rank summary of its timeline, when asked for (`--rank-summaries`).
    #[serde(skip)]
    pub summary: Option<RankSummary>,
}

impl RankResult {
    fn set_split(&mut self, split: RankSplit, from: impl Into<String>) {
        self.split = Some(split);
        self.busy_ns = Some(split.busy_ns());
        self.split_from = Some(from.into());
    }
}

/// Loads rank `rank` from `path`; never fails: what goes wrong is in `error` / `notes`.
pub fn rank(registry: &Registry, rank: u32, path: &Path, families: &Families, summarize: bool) -> RankResult {
    let mut result = RankResult { rank, path: path.display().to_string(), ..RankResult::default() };
    let vendor_files = vendor_tables(registry, &mut result, path);
    let timeline_error = match load_rank_artifact(registry, path, families) {
        Ok(Loaded::Timeline(timeline)) => {
            let summary = summarize_kernels(&timeline, families);
            result.top_kernel = top_kernel(&summary);
            // The temporal breakdown, worked out once: for the split and for the rank summary.
            let temporal = (result.split.is_none() || summarize).then(|| temporal_breakdown(&timeline, families));
            if let (None, Some(split)) = (result.split, temporal.as_deref().and_then(RankSplit::from_temporal)) {
                result.set_split(split, "timeline");
            }
            if summarize {
                let (source, temporal) = (path.display().to_string(), temporal.unwrap_or_default());
                let rank_summary = RankSummary::of_parts(&timeline, &summary, &temporal, families, rank, None, &source);
                result.summary = Some(rank_summary);
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
        Ok(Loaded::Kernels(_)) => Some(RankLoadError {
            message: format!("{}: holds single-kernel deep-dive reports, not a timeline", path.display()),
            unknown_format: None,
        }),
        Err(error) => Some(error),
    };
    if let Some(RankLoadError { message, unknown_format }) = timeline_error {
        // The door's list of every format it knows says nothing about this rank.
        let error = unknown_format.as_deref().unwrap_or(&message);
        if vendor_files && unknown_format.is_some() {
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

/// Why a rank's artifact gave no timeline.
struct RankLoadError {
    /// What `prof analyze` would say of the path.
    message: String,
    /// When no reader takes the path: the message without the list of every format prof
    /// reads (which says nothing about this rank).
    unknown_format: Option<String>,
}

/// The registry's load of the rank's entry (a directory holding one artifact, torch.profiler's
/// `rank0/trace.json`, is read as that artifact by the registry).
fn load_rank_artifact(registry: &Registry, path: &Path, families: &Families) -> Result<Loaded, RankLoadError> {
    registry.load(path, families).map(|(loaded, _)| loaded).map_err(|error| {
        let unknown_format = match &error {
            Error::UnknownFormat { path, looks_like, .. } => {
                Some(format!("{}: not a format prof reads: it is {looks_like}", path.display()))
            }
            _ => None,
        };
        let message = Failure::from(error).or_kind(Kind::BadInput).at_path(path.display().to_string()).message;
        RankLoadError { message, unknown_format }
    })
}

/// Reads the vendor's per-rank tables under `path` into `result`; true when any was found.
fn vendor_tables(registry: &Registry, result: &mut RankResult, path: &Path) -> bool {
    let tables = registry.rank_tables(path);
    if let Some((split, from)) = tables.split {
        result.set_split(split, from);
    }
    if let Some(comm) = &tables.comm {
        result.samples.clone_from(&comm.samples);
        result.collectives = summarize_collectives(result.samples.clone());
        result.transports = prof_core::report::transport_rows(&comm.transports);
    }
    result.links = tables
        .links
        .into_iter()
        .map(|link| LinkBandwidth { bandwidth_gbps: gbps(link.bytes, link.transit_ns), link })
        .collect();
    if let Some(error) = tables.errors.first().filter(|_| result.error.is_none()) {
        result.error = Some(format!("rank {}: {error}", result.rank));
    }
    tables.found
}

/// Gives every rank of the job's cluster table that has no split of its own the cluster's
/// split, adding the ranks that have no directory.
pub fn fill_from_cluster(file: &Path, splits: Vec<(u32, RankSplit)>, results: &mut Vec<RankResult>) {
    for (rank, split) in splits {
        let at = match results.iter().position(|r| r.rank == rank) {
            Some(at) => at,
            None => {
                results.push(RankResult { rank, path: file.display().to_string(), ..RankResult::default() });
                results.len() - 1
            }
        };
        let result = &mut results[at];
        if result.split.is_none() {
            let from =
                file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
            result.set_split(split, from);
        }
    }
}
