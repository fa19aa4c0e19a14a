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
use prof_core::analysis::ranks::{missing_ranks, slowest_rank, SlowestRank};
use prof_core::families::Families;
use prof_core::rank_job::RankJob;
use prof_core::Registry;
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;

/// The `prof.ranks.v1` document.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct RanksReport<'a> {
    schema: &'static str,
    root: String,
    partial: bool,
    missing_ranks: Vec<u32>,
    notes: Vec<String>,
    ranks: &'a [RankResult],
    slowest: Option<SlowestRank>,
    collectives: Vec<CollectiveStats>,
    communication_matrix: Vec<&'a load::LinkBandwidth>,
}

/// Runs the multi-rank analysis when `path` is a multi-rank directory; `None` otherwise.
pub fn try_run(
    registry: &Registry,
    path: &Path,
    families: &Families,
    json: bool,
    html: Option<&Path>,
    before: impl FnOnce() -> Result<(), crate::failure::Failure>,
    summaries: Option<&Path>,
) -> Option<Result<ExitCode, crate::failure::Failure>> {
    let job = registry.rank_job(path)?;
    Some(before().and_then(|()| run(registry, &job, families, json, html, summaries)))
}

fn run(
    registry: &Registry,
    job: &RankJob,
    families: &Families,
    json: bool,
    html: Option<&Path>,
    summaries: Option<&Path>,
) -> Result<ExitCode, crate::failure::Failure> {
    let mut notes = job.ignored.clone();
    let mut results = load_all(registry, job, families, summaries.is_some());
    if let Some(cluster) = &job.cluster {
        match registry.cluster_splits(cluster) {
            Ok(splits) => load::fill_from_cluster(&cluster.file, splits, &mut results),
            Err(error) => notes.push(error.to_string()),
        }
    }
    results.sort_by_key(|r| r.rank);
    if let Some(dir) = summaries {
        write_summaries(dir, &mut results)?;
    }
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
    let matrix: Vec<&load::LinkBandwidth> = results.iter().flat_map(|r| &r.links).collect();
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
    if let Some(page) = html {
        let links: Vec<&prof_core::vendor_tables::Link> = report.communication_matrix.iter().map(|l| &l.link).collect();
        let html = crate::html_report::ranks::ranks_page(&report.root, &splits, &links, &view::render(&report));
        crate::output_file::write_bytes(page, html.as_bytes())?;
        eprintln!("wrote {} (per-rank wall time and the communication matrix; open in a browser)", page.display());
    }
    if json {
        print_json(&report)?;
    } else {
        out!("{}", view::render(&report));
    }
    Ok(ExitCode::SUCCESS)
}

/// Every rank of `job`, loaded on all cores: one worker per core takes the next rank until none
/// is left (each rank's timeline is summarised and dropped by its worker, so at most one
/// timeline per core is held at once). Results come back in rank order.
fn load_all(registry: &Registry, job: &RankJob, families: &Families, summarize: bool) -> Vec<RankResult> {
    let ranks: Vec<(u32, &std::path::PathBuf)> = job.ranks.iter().map(|(&rank, path)| (rank, path)).collect();
    let workers = std::thread::available_parallelism().map_or(1, usize::from).min(ranks.len()).max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, RankResult)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(rank, path)) = ranks.get(at) else { break done };
                        done.push((at, load::rank(registry, rank, path, families, summarize)));
                    }
                })
            })
            .collect();
        // A worker that panicked is a bug: fail loudly rather than report the job without its ranks.
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    results.sort_by_key(|(at, _)| *at);
    results.into_iter().map(|(_, result)| result).collect()
}

/// Writes each rank's summary into `dir` (`--rank-summaries`): its timeline's where it had one,
/// with the split the job report uses (a vendor's per-step table wins, as in the report) and
/// the rank's links; a rank with a split and no timeline gets a summary of its split alone.
fn write_summaries(dir: &Path, results: &mut [RankResult]) -> Result<(), crate::failure::Failure> {
    use prof_core::rank_summary::{file_name, RankSummary};
    let lost = |e: String| crate::failure::Failure::new(crate::failure::Kind::OutputLost, e);
    std::fs::create_dir_all(dir).map_err(|e| lost(format!("cannot create {}: {e}", dir.display())))?;
    for r in results.iter_mut() {
        let summary = match (r.summary.take(), r.split) {
            (Some(mut summary), split) => {
                summary.split = split.unwrap_or(summary.split);
                summary
            }
            (None, Some(split)) => RankSummary::of_split(r.rank, split, r.split_from.as_deref().unwrap_or(&r.path)),
            (None, None) => continue,
        };
        let summary = RankSummary { links: r.links.iter().map(|l| l.link.clone()).collect(), ..summary };
        super::analyze_job::write_summary(&dir.join(file_name(r.rank)), &summary)?;
    }
    Ok(())
}

/// The JSON Schema of the `prof.ranks.v1` document.
pub fn json_schema() -> schemars::Schema {
    schemars::schema_for!(RanksReport<'static>)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_job_needs_two_ranked_entries_or_a_cluster_file() {
        let registry = crate::registry::build();
        let root = std::env::temp_dir().join(format!("prof-ranks-detect-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("rank0")).unwrap();
        std::fs::write(root.join("notes.txt"), "x").unwrap();
        assert_eq!(registry.rank_job(&root), None);
        std::fs::write(root.join("trace_rank-1.pt.trace.json"), "{}").unwrap();
        std::fs::create_dir_all(root.join("rank_1")).unwrap();
        let job = registry.rank_job(&root).unwrap();
        assert_eq!(job.ranks.keys().copied().collect::<Vec<_>>(), [0, 1]);
        assert!(job.ranks[&1].ends_with("rank_1"));
        assert_eq!(job.ignored.len(), 1);
        #[cfg(feature = "ascend")]
        {
            std::fs::create_dir_all(root.join("worker_ascend_pt")).unwrap();
            std::fs::write(root.join("worker_ascend_pt/profiler_info_5.json"), "{}").unwrap();
            assert!(registry.rank_job(&root).unwrap().ranks[&5].ends_with("worker_ascend_pt"));
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
