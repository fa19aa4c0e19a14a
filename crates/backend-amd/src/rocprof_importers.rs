//! Importers for AMD profiler files written outside a prof capture: the legacy rocprof
//! dispatch table (`results.csv`, a timeline) and kernel stats (`*_kernel_stats.csv`,
//! `results.stats.csv`: totals only, read through [`Importer::load_summary`]). rocprofv3 trace
//! CSVs and directories are read by [`Rocprofv3Tool`](crate::rocprofv3_tool::Rocprofv3Tool).

use crate::{rocprof_legacy, rocprof_stats};
use prof_core::families::Families;
use prof_core::kernel_summary::KernelSummary;
use prof_core::{Error, Importer, Result, Timeline};
use std::path::Path;

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

/// Reads per-kernel totals (rocprofv3 `--stats` kernel stats, rocprof v1 `results.stats.csv`).
#[derive(Debug, Clone, Copy, Default)]
pub struct KernelStatsImporter;

impl Importer for KernelStatsImporter {
    fn name(&self) -> &'static str {
        "rocprof-kernel-stats"
    }

    /// A stats file, or a directory whose only rocprof output is one kernel stats file.
    fn recognizes(&self, path: &Path) -> bool {
        stats_file(path).is_some()
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        Err(Error::Unsupported(format!(
            "{}: kernel stats hold per-kernel totals, not a timeline; `prof analyze` shows their ranking",
            path.display()
        )))
    }

    fn load_summary(&self, path: &Path, families: &Families) -> Option<Result<KernelSummary>> {
        let file = stats_file(path)?;
        Some(rocprof_stats::load(&file, families))
    }
}

/// The kernel stats file at `path`: the file itself, or the single one in a directory.
fn stats_file(path: &Path) -> Option<std::path::PathBuf> {
    if !path.is_dir() {
        return rocprof_stats::is_kernel_stats(path).then(|| path.to_owned());
    }
    let entries = std::fs::read_dir(path).ok()?;
    let mut found = entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| rocprof_stats::is_kernel_stats(p));
    let first = found.next()?;
    found.next().is_none().then_some(first)
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
