//! The Ascend-only analyses of `prof analyze`, over the op-table columns the [`Timeline`]
//! does not keep: the compute-bound check per op type ([`crate::pipe_bound`]) and static vs
//! dynamic ops from the `OP State` column (msprof CANN 8 `op_summary`; torch_npu's 2023
//! `kernel_details.csv` has no such column, and the report says so).
//!
//! The checks are summed row by row ([`crate::op_checks`]), so a large export costs only its
//! groups: in the pass that loads an op table's ops ([`crate::op_table::load_with_checks`]),
//! or by [`read_table`] for a profile directory's table. Ops are grouped by op type (`Type` /
//! `OP Type`, else the name) and task type.
//!
//! [`Timeline`]: prof_core::Timeline

pub use crate::ascend_report::AscendReport;
use crate::csv_table::CsvReader;
use crate::error::AscendError;
use crate::op_checks::OpChecks;
use crate::profile_dir::ProfileFiles;
use prof_core::Interner;
use std::path::Path;

/// The analyses of the profile at `path` (a profile directory or an op table file); `Ok(Err)`
/// with the reason (naming the missing files and the skipped analyses) when it has no op table.
pub fn analyze(path: &Path) -> Result<Result<AscendReport, String>, AscendError> {
    let table = if path.is_dir() {
        match ProfileFiles::find(path)?.op_table {
            Some(table) => table,
            None => {
                return Ok(Err(format!(
                    "no op table (kernel_details.csv / op_summary_*.csv) under {}: the compute-bound and \
                     static/dynamic checks are skipped",
                    path.display()
                )))
            }
        }
    } else {
        path.to_owned()
    };
    read_table(&table).map(Ok)
}

/// The analyses of one op table file.
pub fn read_table(path: &Path) -> Result<AscendReport, AscendError> {
    let mut reader = CsvReader::open(path)?;
    let mut checks = OpChecks::new(reader.header())?;
    let mut ops = Interner::new();
    while let Some(row) = reader.next_row()? {
        let op = ops.intern(checks.op_of(&row)?);
        let dur = checks.duration(&row)?;
        checks.add(&row, dur, op)?;
    }
    Ok(checks.report(reader.header(), &ops))
}

#[cfg(test)]
mod tests;
