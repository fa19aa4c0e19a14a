//! Finding the files of an Ascend profile directory and loading the best of them.
//!
//! The layouts, from the recordings: torch_npu writes `<name>_ascend_pt/ASCEND_PROFILER_OUTPUT/`
//! (`kernel_details.csv`, `trace_view.json`, `step_trace_time.csv`, `communication.json`);
//! msprof (CANN 8) writes `PROF_*/mindstudio_profiler_output/` (`op_summary_<ts>.csv`,
//! `op_statistic_<ts>.csv`, `task_time_<ts>.csv`, `api_statistic_<ts>.csv`, `msprof_<ts>.json`);
//! older msprof writes `PROF_*/device_<n>/timeline/msprof_<n>_<model>_<iter>.json`. The search
//! goes four levels down from the given directory.
//!
//! Best available: per-task ops from the op table (`kernel_details.csv`, else `op_summary_*`,
//! else `task_time_*`, which has every task but no op types),
//! host spans and counters from the trace (`trace_view.json`, else `msprof_*.json`), whose
//! device ops stand in when there is no op table; with neither, the per-type totals of
//! `op_statistic_*`. What is missing, and which analyses that skips, goes into
//! [`Timeline::partial`] so every report shows it.

use crate::error::AscendError;
use crate::{op_table, trace_json};
use prof_core::Timeline;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The profile files found under one directory, by role.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProfileFiles {
    /// The directory searched.
    pub root: PathBuf,
    /// Per-task op table: `kernel_details.csv`, `op_summary_*.csv` or `task_time_*.csv`.
    pub op_table: Option<PathBuf>,
    /// Chrome trace: `trace_view.json` or `msprof_*.json`.
    pub trace: Option<PathBuf>,
    /// Per-op-type totals: `op_statistic_*.csv`.
    pub op_statistic: Option<PathBuf>,
}

/// A test on a file name.
type NameTest = fn(&str) -> bool;

/// File roles in order of preference; each is (role, test on the file name).
const ROLES: &[(Role, NameTest)] = &[
    (Role::OpTable, |n| n == "kernel_details.csv"),
    (Role::OpTable, |n| n.starts_with("op_summary") && n.ends_with(".csv")),
    (Role::OpTable, |n| n.starts_with("task_time") && n.ends_with(".csv")),
    (Role::Trace, |n| n == "trace_view.json"),
    (Role::Trace, |n| n.starts_with("msprof") && n.ends_with(".json")),
    (Role::OpStatistic, |n| n.starts_with("op_statistic") && n.ends_with(".csv")),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Role {
    OpTable,
    Trace,
    OpStatistic,
}

/// True when `name` is the name of a file this module loads.
pub fn is_profile_file_name(name: &str) -> bool {
    ROLES.iter().any(|(_, matches)| matches(name))
}

impl ProfileFiles {
    /// Searches `root` for profile files. Two files of the same preferred kind (two
    /// `op_summary` files, i.e. several profiles) are an error listing them, so runs are never
    /// summed by accident; an empty directory is an error listing what was looked for.
    pub fn find(root: &Path) -> Result<Self, AscendError> {
        let mut found: Vec<PathBuf> = Vec::new();
        walk(root, 4, &mut found);
        found.sort();
        let mut chosen: HashMap<Role, PathBuf> = HashMap::new();
        for (role, matches) in ROLES {
            if chosen.contains_key(role) {
                continue;
            }
            let hits: Vec<&PathBuf> =
                found.iter().filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(matches)).collect();
            match hits.as_slice() {
                [] => {}
                [one] => {
                    chosen.insert(*role, (*one).clone());
                }
                many => {
                    let list: Vec<String> = many.iter().map(|p| p.display().to_string()).collect();
                    return Err(AscendError::file(
                        root,
                        0,
                        format!("several profiles here ({}); give one profile directory", list.join(", ")),
                    ));
                }
            }
        }
        let files = Self {
            root: root.to_owned(),
            op_table: chosen.remove(&Role::OpTable),
            trace: chosen.remove(&Role::Trace),
            op_statistic: chosen.remove(&Role::OpStatistic),
        };
        if files.op_table.is_none() && files.trace.is_none() && files.op_statistic.is_none() {
            return Err(AscendError::file(
                root,
                0,
                "no Ascend profile files here (looked for kernel_details.csv, op_summary_*.csv, task_time_*.csv, \
                 trace_view.json, msprof_*.json, op_statistic_*.csv four levels down)",
            ));
        }
        Ok(files)
    }

    /// True when only per-type totals exist, so the profile loads as a summary.
    pub fn summary_only(&self) -> bool {
        self.op_table.is_none() && self.trace.is_none()
    }

    /// What is missing and which analyses that skips; `None` when nothing is.
    pub fn missing_note(&self) -> Option<String> {
        let mut notes = Vec::new();
        if self.summary_only() {
            notes.push(
                "no op table (kernel_details.csv / op_summary_*.csv / task_time_*.csv) and no trace (trace_view.json / msprof_*.json): \
                 per-op-type totals from op_statistic only; timeline analyses (streams, bubbles, overlap, steps, \
                 diagnosis) skipped",
            );
        } else {
            if self.op_table.is_none() {
                notes.push(
                    "no op table (kernel_details.csv / op_summary_*.csv / task_time_*.csv): ops come from the trace, \
                     without op types, block dims or shapes",
                );
            }
            let task_time = self.op_table.as_deref().and_then(|p| p.file_name()).and_then(|n| n.to_str());
            if task_time.is_some_and(|n| n.starts_with("task_time")) {
                notes.push(
                    "ops come from task_time (no op_summary / kernel_details.csv): without op types, block dims or \
                     shapes, so the Ascend op checks are skipped",
                );
            }
            if self.trace.is_none() {
                notes.push(
                    "no trace (trace_view.json / msprof_*.json): no host spans or counters; host-bound, launch-gap \
                     and clock-drop analyses skipped",
                );
            }
        }
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    /// Loads the timeline: op-table ops (with the trace's correlation ids where a trace op
    /// has the same stream and start), the trace's host spans and counters, and the note.
    pub fn load(&self) -> Result<Timeline, AscendError> {
        let mut timeline = match (&self.op_table, &self.trace) {
            (Some(table), Some(trace)) => merge(op_table::load(table)?, trace_json::load(trace)?),
            (Some(table), None) => op_table::load(table)?,
            (None, Some(trace)) => trace_json::load(trace)?,
            (None, None) => {
                return Err(AscendError::file(&self.root, 0, "only op_statistic here: it holds totals, not a timeline"))
            }
        };
        timeline.source = self.root.display().to_string();
        timeline.partial = self.missing_note();
        Ok(timeline)
    }
}

/// The op-table timeline with the trace's host spans and counters added (names re-interned).
fn merge(mut ops: Timeline, trace: Timeline) -> Timeline {
    let correlation: HashMap<(u64, u64), u64> =
        trace.ops.iter().filter_map(|op| Some(((op.stream(), op.start_ns), op.correlation.get()?))).collect();
    for op in &mut ops.ops {
        if op.correlation.get().is_none() {
            op.correlation = correlation.get(&(op.stream(), op.start_ns)).copied().into();
        }
    }
    for span in &trace.host {
        let mut span = *span;
        span.name = ops.intern(trace.name(span.name));
        ops.push_host(span);
    }
    for series in &trace.counters {
        let mut series = series.clone();
        series.name = ops.intern(trace.name(series.name));
        series.unit = series.unit.map(|u| ops.intern(trace.name(u)));
        ops.counters.push(series);
    }
    ops
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() && depth > 0 {
            walk(&path, depth - 1, found);
        } else if kind.is_file() && path.file_name().and_then(|n| n.to_str()).is_some_and(is_profile_file_name) {
            found.push(path);
        }
    }
}

#[cfg(test)]
mod tests;
