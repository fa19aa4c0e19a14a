//! Importers for AMD profiler files written outside a prof capture: the legacy rocprof
//! dispatch table (`results.csv`, a timeline), its Chrome trace (`results.json`, a timeline
//! with copies and API calls; a results directory holding one reads as it) and kernel and copy
//! stats (`*_kernel_stats.csv`, `results.stats.csv`, `results.copy_stats.csv`: totals only,
//! read through [`Importer::load_summary`]). rocprofv3 trace CSVs and directories are read by
//! [`Rocprofv3Tool`](crate::rocprofv3_tool::Rocprofv3Tool).

use crate::{rocprof_legacy, rocprof_stats, rocprof_v1_json};
use prof_core::families::Families;
use prof_core::kernel_summary::KernelSummary;
use prof_core::{Error, Importer, Result, Timeline};
use rocprof_stats::Stats;
use std::path::{Path, PathBuf};

/// Reads legacy rocprof (v1) `results.csv` dispatch tables.
#[derive(Debug, Clone, Copy, Default)]
pub struct RocprofResultsImporter;

impl Importer for RocprofResultsImporter {
    fn name(&self) -> &'static str {
        "rocprof-results-csv"
    }

    fn recognizes(&self, path: &Path) -> bool {
        rocprof_legacy::is_results_csv(path)
    }

    /// rocprof-compute's `timestamps.csv` is surer than the `pmc_perf.csv` beside it, which has
    /// the same columns among its counters: a workload directory reads as its timestamps.
    fn recognize(&self, path: &Path) -> Option<prof_core::Recognition> {
        use prof_core::{Certainty, Recognition};
        if !self.recognizes(path) {
            return None;
        }
        Some(match path.file_name().and_then(|n| n.to_str()) {
            Some("timestamps.csv") => Recognition::new(Certainty::Signature, "rocprof-compute's timestamps.csv"),
            _ => Recognition::new(Certainty::Content, "a rocprof dispatch table header"),
        })
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        rocprof_legacy::load(path)
    }
}

/// Reads legacy rocprof (v1) Chrome traces (`results.json` from `--hip-trace`/`--sys-trace`),
/// or a results directory holding one.
#[derive(Debug, Clone, Copy, Default)]
pub struct RocprofV1JsonImporter;

impl Importer for RocprofV1JsonImporter {
    fn name(&self) -> &'static str {
        "rocprof-v1-json"
    }

    fn recognizes(&self, path: &Path) -> bool {
        v1_trace(path).is_some()
    }

    fn recognize(&self, path: &Path) -> Option<prof_core::Recognition> {
        let trace = v1_trace(path)?;
        let why = if trace == path {
            "a Chrome trace with rocprof v1's lanes (BeginNs/EndNs)"
        } else {
            "a rocprof v1 results directory with its results.json"
        };
        Some(prof_core::Recognition::new(prof_core::Certainty::Signature, why))
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        let trace = v1_trace(path).unwrap_or_else(|| path.to_owned());
        rocprof_v1_json::load(&trace)
    }
}

/// The rocprof v1 trace at `path`: the file itself, or a directory's `results.json`.
fn v1_trace(path: &Path) -> Option<PathBuf> {
    let file = if path.is_dir() { path.join("results.json") } else { path.to_owned() };
    (file.is_file() && rocprof_v1_json::is_rocprof_v1_json(&file)).then_some(file)
}

/// Reads legacy rocprof (v1) SQLite databases (`results.db` from `--hip-trace`).
#[derive(Debug, Clone, Copy, Default)]
pub struct RocprofV1DbImporter;

impl Importer for RocprofV1DbImporter {
    fn name(&self) -> &'static str {
        "rocprof-v1-db"
    }

    fn recognizes(&self, path: &Path) -> bool {
        path.is_file() && crate::rocprof_v1_db::is_rocprof_v1_db(path)
    }

    fn recognize(&self, path: &Path) -> Option<prof_core::Recognition> {
        self.recognizes(path).then(|| {
            prof_core::Recognition::new(
                prof_core::Certainty::Signature,
                "SQLite with rocprof v1's OPS/COPY and HIP tables",
            )
        })
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        crate::rocprof_v1_db::load(path)
    }
}

/// Reads per-kernel totals (rocprofv3 `--stats` kernel stats, rocprof v1 `results.stats.csv`),
/// with the run's copy stats beside them; refuses API stats with what to read instead.
#[derive(Debug, Clone, Copy, Default)]
pub struct KernelStatsImporter;

impl Importer for KernelStatsImporter {
    fn name(&self) -> &'static str {
        "rocprof-kernel-stats"
    }

    /// A stats file, or a directory whose only rocprof stats are one kernel and one copy file.
    fn recognizes(&self, path: &Path) -> bool {
        !stats_files(path).is_empty() || rocprof_stats::stats_file_kind(path) == Some(Stats::Api)
    }

    /// API stats by name and header only, so that they never stand for a directory.
    fn recognize(&self, path: &Path) -> Option<prof_core::Recognition> {
        use prof_core::{Certainty, Recognition};
        if rocprof_stats::stats_file_kind(path) == Some(Stats::Api) {
            return Some(Recognition::new(Certainty::Name, "a HIP/HSA API stats file"));
        }
        let files = stats_files(path);
        let why = match files.len() {
            0 => return None,
            1 => "a kernel or copy stats header",
            _ => "a run's kernel and copy stats",
        };
        Some(Recognition::new(Certainty::Content, why))
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        Err(Error::Unsupported(format!(
            "{}: kernel stats hold per-kernel totals, not a timeline; `prof analyze` shows their ranking",
            path.display()
        )))
    }

    fn load_summary(&self, path: &Path, families: &Families) -> Option<Result<KernelSummary>> {
        if rocprof_stats::stats_file_kind(path) == Some(Stats::Api) {
            return Some(Err(rocprof_stats::api_stats_refusal(path)));
        }
        let files = stats_files(path);
        (!files.is_empty()).then(|| rocprof_stats::load_all(&files, families))
    }
}

/// The stats files at `path`: the file itself, or a directory's one kernel stats file and
/// its one copy stats file (either may be missing; two of a kind is no single run).
fn stats_files(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return if rocprof_stats::is_kernel_stats(path) { vec![path.to_owned()] } else { Vec::new() };
    }
    let Ok(entries) = std::fs::read_dir(path) else { return Vec::new() };
    let mut files: Vec<(Stats, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter_map(|p| rocprof_stats::stats_file_kind(&p).map(|k| (k, p)))
        .filter(|(k, _)| *k != Stats::Api)
        .collect();
    files.sort_by_key(|(k, _)| *k != Stats::Kernels);
    let count = |kind| files.iter().filter(|(k, _)| *k == kind).count();
    if count(Stats::Kernels) > 1 || count(Stats::Copies) > 1 {
        return Vec::new();
    }
    files.into_iter().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::{fixture_path, TempDir};

    #[test]
    fn importers_recognise_their_files_only() {
        let results = fixture_path("rocprof-v1/hpctrain-laplacian_results.csv");
        let stats = fixture_path("rocprofv3/hpctrain-jacobi_kernel_stats.csv");
        assert!(RocprofResultsImporter.recognizes(&results) && !RocprofResultsImporter.recognizes(&stats));
        assert!(KernelStatsImporter.recognizes(&stats) && !KernelStatsImporter.recognizes(&results));
        assert_eq!(RocprofResultsImporter.load(&results).unwrap().ops.len(), 1004);
        let summary = KernelStatsImporter.load_summary(&stats, &Families::builtin()).unwrap().unwrap();
        assert_eq!(summary.kernels.len(), 7);
        assert!(KernelStatsImporter.load(&stats).unwrap_err().to_string().contains("not a timeline"));
        let tmp = TempDir::new("stats-dir");
        tmp.file(
            "run/1234_kernel_stats.csv",
            &crate::test_fixtures::fixture("rocprofv3/hpctrain-jacobi_kernel_stats.csv"),
        );
        assert!(KernelStatsImporter.recognizes(&tmp.path().join("run")));
        assert!(!KernelStatsImporter.recognizes(tmp.path()), "only a directory holding the file itself");
    }
}

/// Reads rocprofv3's JSON output (`--output-format json`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Rocprofv3JsonImporter;

impl Importer for Rocprofv3JsonImporter {
    fn name(&self) -> &'static str {
        "rocprofv3-json"
    }

    fn recognizes(&self, path: &Path) -> bool {
        path.is_file() && crate::rocprofv3_json::is_rocprofv3_json(path)
    }

    fn recognize(&self, path: &Path) -> Option<prof_core::Recognition> {
        self.recognizes(path).then(|| {
            prof_core::Recognition::new(prof_core::Certainty::Signature, "JSON with the `rocprofiler-sdk-tool` key")
        })
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        crate::rocprofv3_json::load(path)
    }
}

/// Reads rocprofv3's rocpd SQLite database (the default output since ROCm 7).
#[derive(Debug, Clone, Copy, Default)]
pub struct RocpdImporter;

impl Importer for RocpdImporter {
    fn name(&self) -> &'static str {
        "rocpd-sqlite"
    }

    fn recognizes(&self, path: &Path) -> bool {
        path.is_file() && crate::rocpd::is_rocpd(path)
    }

    fn recognize(&self, path: &Path) -> Option<prof_core::Recognition> {
        let why = if !path.is_file() {
            return None;
        } else if crate::rocpd::is_gzipped_rocpd(path) {
            "a gzip stream of SQLite whose schema names rocpd_metadata"
        } else if crate::rocpd::is_plain_rocpd(path) {
            "SQLite with rocpd_metadata and the kernels view"
        } else {
            return None;
        };
        Some(prof_core::Recognition::new(prof_core::Certainty::Signature, why))
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        crate::rocpd::load(path)
    }
}
