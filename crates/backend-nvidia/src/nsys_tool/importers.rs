//! The importers of what nsys wrote earlier: its SQLite exports (a timeline) and its `nsys
//! stats --format csv` reports (per-kernel totals).

use super::NsysTool;
use crate::nsys_sqlite;
use crate::nsys_stats_csv;
use prof_core::families::Families;
use prof_core::kernel_summary::KernelSummary;
use prof_core::{Certainty, Error, Importer, Recognition, Result, StreamedSummary, Timeline};
use std::path::Path;

/// Reads `nsys stats --format csv` reports, which hold per-kernel totals, not a timeline.
#[derive(Debug, Clone, Copy, Default)]
pub struct NsysStatsImporter;

impl Importer for NsysStatsImporter {
    fn name(&self) -> &'static str {
        "nsys-stats-csv"
    }

    fn recognizes(&self, path: &Path) -> bool {
        nsys_stats_csv::is_stats_csv(path)
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        Err(Error::Unsupported(format!(
            "{}: an nsys stats report holds per-kernel totals, not a timeline; `prof analyze` shows its ranking",
            path.display()
        )))
    }

    fn load_summary(&self, path: &Path, families: &Families) -> Option<Result<KernelSummary>> {
        Some(NsysTool::load_stats(path).and_then(|table| {
            table.to_kernel_summary(families).ok_or_else(|| {
                Error::Unsupported(format!(
                    "{}: this nsys stats report ({}) lists no device kernels or memory operations",
                    path.display(),
                    table.report.report_names()
                ))
            })
        }))
    }
}

/// Imports nsys SQLite exports that nsys wrote earlier (`prof breakdown report.sqlite`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NsysExportImporter;

impl Importer for NsysExportImporter {
    fn name(&self) -> &'static str {
        "nsys-sqlite"
    }

    fn recognizes(&self, path: &Path) -> bool {
        nsys_sqlite::is_nsys_export(path) || nsys_sqlite::is_gzipped_nsys_export(path)
    }

    fn recognize(&self, path: &Path) -> Option<Recognition> {
        if nsys_sqlite::is_nsys_export(path) {
            return Some(Recognition::new(Certainty::Signature, "SQLite with the nsys export tables"));
        }
        nsys_sqlite::is_gzipped_nsys_export(path)
            .then(|| Recognition::new(Certainty::Signature, "gzip of an SQLite file with the nsys export tables"))
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        nsys_sqlite::load(path)
    }

    /// Kernels, copies and sets only: the runtime and NVTX tables add nothing to a summary.
    fn stream_summary(&self, path: &Path, families: &Families) -> Option<Result<StreamedSummary>> {
        Some(
            nsys_sqlite::summarize_device_ops(path, families)
                .map(|summary| StreamedSummary { summary, op_types: None }),
        )
    }
}
