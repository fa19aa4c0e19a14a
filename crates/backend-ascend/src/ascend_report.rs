//! The Ascend op checks' report (the compute-bound verdict per op type and the static vs dynamic
//! split of `OP State`) and the section `prof analyze` shows of it.

use crate::pipe_bound::{Bound, COMPUTE_BOUND_PCT};
use prof_timeline::section::{Cell, Section, Table};
use serde::Serialize;
use std::path::PathBuf;

/// The section's key in the report.
pub(crate) const KEY: &str = "ascend";
/// The section's title.
pub(crate) const TITLE: &str = "Ascend op checks (compute-bound, static vs dynamic)";

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

/// The op checks of one op table as a section, or the error that stopped them.
pub(crate) fn checks_section(report: std::result::Result<AscendReport, crate::error::AscendError>) -> Section {
    match report {
        Ok(report) => report_section(&report),
        Err(error) => {
            let error = prof_core::Error::from(error).to_string();
            let mut section = Section::new(KEY, TITLE, serde_json::json!({ "error": error }));
            section.lines.push(vec![Cell::text(format!("could not read the op table: {error}"))]);
            section
        }
    }
}

pub(crate) fn report_section(report: &AscendReport) -> Section {
    let json = serde_json::to_value(report).unwrap_or_default();
    let mut section = Section::new(KEY, TITLE, json);
    let bound = &report.bound;
    section.lines.push(vec![Cell::text(format!(
        "compute-bound check from {} (≥ {COMPUTE_BOUND_PCT:.0} % in the cube MAC or vector pipe = compute-bound; \
         otherwise the busiest pipe limits):",
        report.op_table.display()
    ))]);
    let mut shares = vec![Cell::text("  task time by verdict: ")];
    for (at, (verdict, ns)) in bound.by_verdict.iter().enumerate() {
        let pct = if bound.total_ns == 0 { 0.0 } else { *ns as f64 * 100.0 / bound.total_ns as f64 };
        if at > 0 {
            shares.push(Cell::text(", "));
        }
        shares.extend([
            Cell::text(format!("{} ", verdict.describe())),
            Cell::Ns(*ns),
            Cell::text(" ("),
            Cell::Pct(pct),
            Cell::text(")"),
        ]);
    }
    section.lines.push(shares);
    if !bound.top.is_empty() {
        let header = ["op type", "task", "calls", "total", "share", "compute", "limiter", "verdict"];
        let rows = bound
            .top
            .iter()
            .map(|op| {
                vec![
                    Cell::Name(op.op.clone()),
                    Cell::text(&op.task_type),
                    Cell::Count(op.calls),
                    Cell::Ns(op.total_ns),
                    Cell::Pct(op.share_pct),
                    op.compute_pct.map_or(Cell::Missing, Cell::Pct),
                    op.limiter.map_or(Cell::Missing, |(pipe, pct)| Cell::text(format!("{pipe} {pct:.1} %"))),
                    Cell::text(op.verdict.describe()),
                ]
            })
            .collect();
        section.table = Some(Table { header: header.map(String::from).to_vec(), rows });
    }
    if let Some(states) = &report.op_state {
        let total: u64 = states.iter().map(|s| s.total_ns).sum();
        let mut line = vec![Cell::text("static vs dynamic (OP State): ")];
        for (at, s) in states.iter().enumerate() {
            let pct = if total == 0 { 0.0 } else { s.total_ns as f64 * 100.0 / total as f64 };
            if at > 0 {
                line.push(Cell::text("; "));
            }
            line.extend([
                Cell::text(format!("{} {} tasks of {} op types, ", s.state, s.tasks, s.op_types)),
                Cell::Ns(s.total_ns),
                Cell::text(" ("),
                Cell::Pct(pct),
                Cell::text(")"),
            ]);
        }
        section.after.push(line);
    }
    section.notes.clone_from(&report.notes);
    section
}
