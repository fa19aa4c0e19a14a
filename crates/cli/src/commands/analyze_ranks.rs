//! `prof analyze DIR` over a multi-rank job: a directory holding one artifact (or profile
//! directory) per rank, as torchrun and Slurm jobs write them (`rank0/`, `rank_1/`,
//! `test_rank_0/`, `…_rank-0.….pt.trace.json.gz`, `prof-cupti-<pid>-rank<R>….pcupti`, a
//! torch_npu `*_ascend_pt/` with its `profiler_info_<R>.json`), or an msprof-analyze cluster
//! directory (`cluster_analysis_output/cluster_step_trace_time.csv`).
//!
//! Each rank is loaded on its own; one that fails is reported with its file and the others are
//! still analysed (the report is then marked partial, as it is when rank numbers are missing).
//! `--json` prints the `prof.ranks.v1` document: `schema`, `root`, `partial`, `missing_ranks`,
//! `notes`, `ranks` (per rank: `rank`, `path`, `split_from`, `split` {wall/compute/
//! communication/other/idle ns}, `busy_ns`, `top_kernel`, `collectives`, `transports`,
//! `links`, `error`, `notes`), `slowest` (core's `SlowestRank`), `collectives` (all ranks
//! together) and `communication_matrix` (the links of every rank that has one).

mod load;
mod view;

use crate::render::print_json;
use load::RankResult;
use prof_core::analysis::comm::{summarize_collectives, CollectiveStats};
use prof_core::analysis::ranks::{missing_ranks, rank_in_name, slowest_rank, SlowestRank};
use prof_core::families::Families;
use prof_core::Registry;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The per-step table msprof-analyze writes for a whole cluster.
const CLUSTER_STEP_TRACE: &str = "cluster_step_trace_time.csv";
/// The directory msprof-analyze writes it into.
const CLUSTER_OUTPUT: &str = "cluster_analysis_output";

/// A multi-rank job found on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct RankJob {
    /// The job directory.
    pub root: PathBuf,
    /// One artifact or directory per rank, by rank.
    pub ranks: BTreeMap<u32, PathBuf>,
    /// msprof-analyze's `cluster_step_trace_time.csv`, when present.
    pub cluster_step_trace: Option<PathBuf>,
    /// Entries left out (a second entry for a rank already taken).
    pub ignored: Vec<String>,
}

/// The `prof.ranks.v1` document.
#[derive(Debug, Serialize)]
struct RanksReport<'a> {
    schema: &'static str,
    root: String,
    partial: bool,
    missing_ranks: Vec<u32>,
    notes: Vec<String>,
    ranks: &'a [RankResult],
    slowest: Option<SlowestRank>,
    collectives: Vec<CollectiveStats>,
    communication_matrix: Vec<&'a load::Link>,
}

/// Runs the multi-rank analysis when `path` is a multi-rank directory; `None` otherwise.
pub fn try_run(
    registry: &Registry,
    path: &Path,
    families: &Families,
    json: bool,
) -> Option<Result<ExitCode, crate::failure::Failure>> {
    let job = detect(path).or_else(|| single_vendor_rank(path))?;
    Some(run(registry, &job, families, json))
}

/// One Ascend rank directory that holds only the per-rank tables (`step_trace_time.csv`,
/// `communication.json`) and no op table or trace, which no importer loads: a job of one.
#[cfg(feature = "ascend")]
fn single_vendor_rank(path: &Path) -> Option<RankJob> {
    use prof_backend_ascend::{communication::find_named, profile_dir::ProfileFiles};
    let tables = ["step_trace_time.csv", "communication.json", "communication_matrix.json"];
    if !path.is_dir() || ProfileFiles::find(path).is_ok() || !tables.iter().any(|t| find_named(path, t).is_some()) {
        return None;
    }
    let rank = rank_of_entry(path).unwrap_or(0);
    Some(RankJob {
        root: path.to_owned(),
        ranks: BTreeMap::from([(rank, path.to_owned())]),
        cluster_step_trace: None,
        ignored: Vec::new(),
    })
}

/// Without the Ascend backend no per-rank tables are read.
#[cfg(not(feature = "ascend"))]
fn single_vendor_rank(_path: &Path) -> Option<RankJob> {
    None
}

/// The multi-rank job at `path`: two or more rank-numbered entries, or a cluster directory.
pub fn detect(path: &Path) -> Option<RankJob> {
    if !path.is_dir() {
        return None;
    }
    let root = if path.file_name().is_some_and(|n| n == CLUSTER_OUTPUT) { path.parent()? } else { path };
    let cluster = root.join(CLUSTER_OUTPUT).join(CLUSTER_STEP_TRACE);
    let cluster_step_trace = cluster.is_file().then_some(cluster);
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root).ok()?.flatten().map(|e| e.path()).collect();
    entries.sort();
    let mut ranks = BTreeMap::new();
    let mut ignored = Vec::new();
    for entry in entries {
        let Some(rank) = rank_of_entry(&entry) else { continue };
        match ranks.get(&rank) {
            Some(taken) => ignored.push(format!(
                "{}: rank {rank} is already {}; ignored",
                entry.display(),
                Path::new(taken).display()
            )),
            None => {
                ranks.insert(rank, entry);
            }
        }
    }
    (ranks.len() >= 2 || cluster_step_trace.is_some()).then(|| RankJob {
        root: root.to_owned(),
        ranks,
        cluster_step_trace,
        ignored,
    })
}

/// The rank of one directory entry: the number in its name, else (a torch_npu profile
/// directory) the `<R>` of the `profiler_info_<R>.json` it holds.
fn rank_of_entry(entry: &Path) -> Option<u32> {
    let name = entry.file_name()?.to_str()?;
    if name.starts_with('.') {
        return None;
    }
    rank_in_name(name).or_else(|| {
        let infos = std::fs::read_dir(entry).ok()?;
        infos.flatten().find_map(|info| {
            let name = info.file_name();
            let number = name.to_str()?.strip_prefix("profiler_info_")?.strip_suffix(".json")?.to_owned();
            number.parse().ok()
        })
    })
}

fn run(
    registry: &Registry,
    job: &RankJob,
    families: &Families,
    json: bool,
) -> Result<ExitCode, crate::failure::Failure> {
    let mut notes = job.ignored.clone();
    let mut results: Vec<RankResult> =
        job.ranks.iter().map(|(&rank, path)| load::rank(registry, rank, path, families)).collect();
    if let Some(cluster) = &job.cluster_step_trace {
        if let Err(error) = load::fill_from_cluster(cluster, &mut results) {
            notes.push(error);
        }
    }
    results.sort_by_key(|r| r.rank);
    if results.iter().all(|r| r.split.is_none() && r.top_kernel.is_none()) {
        let reasons: Vec<String> = results.iter().filter_map(|r| r.error.clone()).chain(notes).collect();
        let message = format!("{}: no rank could be analysed: {}", job.root.display(), reasons.join("; "));
        return Err(crate::failure::Failure::new(crate::failure::Kind::BadInput, message));
    }
    let numbers: Vec<u32> = results.iter().map(|r| r.rank).collect();
    let missing = missing_ranks(&numbers);
    if !missing.is_empty() {
        notes.push(format!("ranks missing from the job directory: {missing:?}"));
    }
    let partial = !missing.is_empty() || !notes.is_empty() || results.iter().any(|r| r.error.is_some() || r.partial);
    let splits: Vec<_> = results.iter().filter_map(|r| Some((r.rank, r.split?))).collect();
    let slowest = slowest_rank(&splits);
    let collectives = summarize_collectives(results.iter().flat_map(|r| r.samples.iter().cloned()));
    let matrix: Vec<&load::Link> = results.iter().flat_map(|r| &r.links).collect();
    let report = RanksReport {
        schema: "prof.ranks.v1",
        root: job.root.display().to_string(),
        partial,
        missing_ranks: missing,
        notes,
        ranks: &results,
        slowest,
        collectives,
        communication_matrix: matrix,
    };
    if json {
        print_json(&report)?;
    } else {
        out!("{}", view::render(&report));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_needs_two_ranked_entries_or_a_cluster_file() {
        let root = std::env::temp_dir().join(format!("prof-ranks-detect-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("rank0")).unwrap();
        std::fs::write(root.join("notes.txt"), "x").unwrap();
        assert_eq!(detect(&root), None);
        std::fs::write(root.join("trace_rank-1.pt.trace.json"), "{}").unwrap();
        std::fs::create_dir_all(root.join("rank_1")).unwrap();
        let job = detect(&root).unwrap();
        assert_eq!(job.ranks.keys().copied().collect::<Vec<_>>(), [0, 1]);
        assert!(job.ranks[&1].ends_with("rank_1"));
        assert_eq!(job.ignored.len(), 1);
        std::fs::create_dir_all(root.join("worker_ascend_pt")).unwrap();
        std::fs::write(root.join("worker_ascend_pt/profiler_info_5.json"), "{}").unwrap();
        assert!(detect(&root).unwrap().ranks[&5].ends_with("worker_ascend_pt"));
        let _ = std::fs::remove_dir_all(&root);
    }
}
