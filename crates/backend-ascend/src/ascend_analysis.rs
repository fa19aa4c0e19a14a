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

use crate::csv_table::CsvReader;
use crate::error::AscendError;
use crate::op_checks::Group;
pub(crate) use crate::op_checks::OpChecks;
use crate::pipe_bound::{sides, Bound};
use crate::profile_dir::ProfileFiles;
use prof_core::Interner;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Op types listed in the compute-bound table, longest total first.
pub const TOP_OPS: usize = 10;
/// The `OP State` column (`static` / `dynamic`).
pub const OP_STATE: &[&str] = &["OP State"];
/// msprof's `cube_utilization(%)` column, shown as it is (its definition is not documented
/// where prof could find it; it is not the MAC ratio: the recorded GroupedMatmul says 87.4 %
/// beside an `aic_mac_ratio` of 0.007).
pub const CUBE_UTILIZATION: &[&str] = &["cube_utilization(%)"];

/// Everything the Ascend analyses found in one profile.
#[derive(Debug, Clone, Serialize)]
pub struct AscendReport {
    /// The op table read.
    pub op_table: PathBuf,
    /// The compute-bound check.
    pub bound: BoundReport,
    /// Static vs dynamic ops, when the table has an `OP State` column.
    pub op_state: Option<Vec<StateShare>>,
    /// What could not be analysed and why (a missing column, a missing file).
    pub notes: Vec<String>,
}

/// The compute-bound check over all ops of the table.
#[derive(Debug, Clone, Serialize)]
pub struct BoundReport {
    /// The pipe ratio columns the table has.
    pub pipe_columns: Vec<String>,
    /// Summed task time, ns.
    pub total_ns: u64,
    /// Task time per verdict, ns, largest first.
    pub by_verdict: Vec<(Bound, u64)>,
    /// The [`TOP_OPS`] AI Core op types (AI_CORE, AI_VECTOR_CORE, MIX_*) by total time, with
    /// their verdicts; HCCL, AI CPU and DSA tasks count in `by_verdict` as unknown only.
    pub top: Vec<OpBound>,
}

/// One op type (on one task type) with its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct OpBound {
    /// Op type (or name).
    pub op: String,
    /// Task type (`AI_CORE`, `MIX_AIC`, …).
    pub task_type: String,
    /// Tasks.
    pub calls: u64,
    /// Summed duration, ns.
    pub total_ns: u64,
    /// Share of all task time, percent.
    pub share_pct: f64,
    /// The highest compute-pipe share, percent (duration-weighted).
    pub compute_pct: Option<f64>,
    /// The limiting pipe and its share, percent: the busiest pipe, or for a memory-bound op
    /// the busiest memory pipe.
    pub limiter: Option<(&'static str, f64)>,
    /// Mean `cube_utilization(%)`, where the table has it.
    pub cube_utilization_pct: Option<f64>,
    /// The verdict.
    pub verdict: Bound,
}

/// Ops and time of one `OP State` value.
#[derive(Debug, Clone, Serialize)]
pub struct StateShare {
    /// `static`, `dynamic`, or `N/A`.
    pub state: String,
    /// Tasks.
    pub tasks: u64,
    /// Summed duration, ns.
    pub total_ns: u64,
    /// Distinct op types.
    pub op_types: usize,
}

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

pub(crate) fn bound_report(groups: HashMap<(String, String), Group>, pipe_columns: Vec<String>) -> BoundReport {
    let total_ns: u64 = groups.values().map(|g| g.total_ns).sum();
    let mut by_verdict: HashMap<Bound, u64> = HashMap::new();
    let mut rows: Vec<OpBound> = groups
        .into_iter()
        .map(|((op, task_type), group)| {
            let (verdict, compute_pct, limiter) = group.means.verdict(sides(&task_type));
            *by_verdict.entry(verdict).or_default() += group.total_ns;
            OpBound {
                share_pct: if total_ns == 0 { 0.0 } else { group.total_ns as f64 * 100.0 / total_ns as f64 },
                op,
                task_type,
                calls: group.calls,
                total_ns: group.total_ns,
                compute_pct,
                limiter,
                cube_utilization_pct: group.cube_util.mean(),
                verdict,
            }
        })
        .collect();
    rows.retain(|row| !sides(&row.task_type).is_empty());
    rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.op.cmp(&b.op)));
    rows.truncate(TOP_OPS);
    let mut by_verdict: Vec<(Bound, u64)> = by_verdict.into_iter().collect();
    by_verdict.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.describe().cmp(b.0.describe())));
    BoundReport { pipe_columns, total_ns, by_verdict, top: rows }
}

pub(crate) fn state_shares(states: HashMap<String, (u64, u64, usize)>) -> Vec<StateShare> {
    let mut shares: Vec<StateShare> = states
        .into_iter()
        .map(|(state, (tasks, total_ns, op_types))| StateShare { state, tasks, total_ns, op_types })
        .collect();
    shares.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.state.cmp(&b.state)));
    shares
}

#[cfg(test)]
#[path = "ascend_analysis_tests.rs"]
mod tests;
