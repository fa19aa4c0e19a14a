//! The [`Importer`]s that `prof analyze` uses for Ascend exports: one per file format and one
//! for a whole profile directory (see [`crate::profile_dir`]).

use crate::csv_table::CsvTable;
use crate::profile_dir::ProfileFiles;
use crate::{op_statistic, op_table, trace_json};
use prof_core::{Certainty, Families, Importer, KernelSummary, Recognition, Result, StreamedSummary, Timeline};
use std::io::{BufRead, Read};
use std::path::Path;

/// The first line of a CSV file, parsed as a header; `None` when unreadable.
fn csv_header(path: &Path) -> Option<Vec<String>> {
    if path.extension().and_then(|e| e.to_str()) != Some("csv") {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut first = String::new();
    std::io::BufReader::new(file.take(64 * 1024)).read_line(&mut first).ok()?;
    CsvTable::parse(&first, path).ok().map(|t| t.header().to_vec())
}

/// torch_npu `kernel_details.csv` and msprof `op_summary_*.csv` (recognised by their header).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpTableImporter;

impl Importer for OpTableImporter {
    fn name(&self) -> &'static str {
        "ascend-op-table"
    }

    fn recognizes(&self, path: &Path) -> bool {
        path.is_file() && csv_header(path).is_some_and(|h| op_table::is_op_table_header(&h))
    }

    fn recognize(&self, path: &Path) -> Option<Recognition> {
        self.recognizes(path).then(|| Recognition::new(Certainty::Signature, "the header of an Ascend op table"))
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        Ok(op_table::load_with_checks(path)?)
    }

    fn stream_summary(&self, path: &Path, families: &Families) -> Option<Result<StreamedSummary>> {
        Some(
            crate::op_table_summary::summarize(path, families)
                .map(|s| StreamedSummary { summary: s.summary, op_types: Some(s.op_types) })
                .map_err(Into::into),
        )
    }
}

/// msprof `op_statistic_*.csv`: per-op-type totals, loaded as a summary.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpStatisticImporter;

impl Importer for OpStatisticImporter {
    fn name(&self) -> &'static str {
        "ascend-op-statistic"
    }

    fn recognizes(&self, path: &Path) -> bool {
        path.is_file() && csv_header(path).is_some_and(|h| op_statistic::is_op_statistic_header(&h))
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        Err(prof_core::Error::Unsupported(format!(
            "{}: op_statistic holds per-op-type totals, not a timeline",
            path.display()
        )))
    }

    fn load_summary(&self, path: &Path, families: &Families) -> Option<Result<KernelSummary>> {
        Some(op_statistic::load(path, families).map_err(Into::into))
    }
}

/// torch_npu `trace_view.json` and msprof `msprof_*.json` (recognised by file name).
#[derive(Debug, Clone, Copy, Default)]
pub struct TraceImporter;

impl Importer for TraceImporter {
    fn name(&self) -> &'static str {
        "ascend-trace"
    }

    fn recognizes(&self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        path.is_file() && (name == "trace_view.json" || (name.starts_with("msprof") && name.ends_with(".json")))
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        Ok(trace_json::load(path)?)
    }
}

/// A profile directory: `PROF_*`, `ASCEND_PROFILER_OUTPUT`, `mindstudio_profiler_output`, a
/// torch_npu `*_ascend_pt`, or any directory holding their files up to four levels down.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProfileDirImporter;

impl Importer for ProfileDirImporter {
    fn name(&self) -> &'static str {
        "ascend-profile-dir"
    }

    fn recognizes(&self, path: &Path) -> bool {
        if !path.is_dir() {
            return false;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let named = name.starts_with("PROF_")
            || name.ends_with("_ascend_pt")
            || matches!(name, "ASCEND_PROFILER_OUTPUT" | "mindstudio_profiler_output");
        named || ProfileFiles::find(path).is_ok()
    }

    fn recognize(&self, path: &Path) -> Option<Recognition> {
        if !path.is_dir() {
            return None;
        }
        // The directory's files carry msprof's and torch_npu's own names: surer than the msprof
        // tool's look for `PROF_*` directories, and this importer also reads op_statistic alone.
        if ProfileFiles::find(path).is_ok() {
            return Some(Recognition::new(
                Certainty::Signature,
                "a directory holding msprof / torch_npu profile files",
            ));
        }
        self.recognizes(path).then(|| Recognition::new(Certainty::Name, "the name of an Ascend profile directory"))
    }

    fn load(&self, path: &Path) -> Result<Timeline> {
        Ok(ProfileFiles::find(path)?.load()?)
    }

    fn load_summary(&self, path: &Path, families: &Families) -> Option<Result<KernelSummary>> {
        let files = match ProfileFiles::find(path) {
            Ok(files) => files,
            Err(e) => return Some(Err(e.into())),
        };
        let statistic = files.op_statistic.as_deref().filter(|_| files.summary_only())?;
        Some(op_statistic::load(statistic, families).map_err(Into::into).map(|mut summary| {
            summary.source = path.display().to_string();
            summary.partial = files.missing_note();
            summary
        }))
    }
}

/// Every Ascend importer, directory first.
pub fn all() -> Vec<Box<dyn Importer>> {
    vec![
        Box::new(ProfileDirImporter),
        Box::new(OpTableImporter),
        Box::new(OpStatisticImporter),
        Box::new(TraceImporter),
    ]
}
