//! What the Ascend backend adds to a report beyond the timeline, as core data (see
//! [`prof_timeline::section`] and [`prof_core::vendor_tables`]): the op checks of
//! [`crate::ascend_analysis`] as a section, `communication.json` as a communication table,
//! `step_trace_time.csv` / `communication.json` / `communication_matrix.json` as a rank's
//! tables, torch_npu's `profiler_info_<R>.json` as a rank number, and msprof-analyze's
//! `cluster_analysis_output/cluster_step_trace_time.csv` as the job's cluster table.

use crate::ascend_analysis::analyze;
use crate::ascend_report::{checks_section, report_section, KEY, TITLE};
use crate::importers::OpTableImporter;
use crate::profile_dir::ProfileFiles;
use crate::{communication, communication_matrix, step_trace};
use prof_core::analysis::ranks::RankSplit;
use prof_core::vendor_tables::{ClusterTable, CommTable, RankTables};
use prof_core::{Importer, Result};
use prof_timeline::section::Section;
use std::path::Path;

/// The per-step table msprof-analyze writes for a whole cluster.
const CLUSTER_STEP_TRACE: &str = "cluster_step_trace_time.csv";
/// The directory msprof-analyze writes it into.
const CLUSTER_OUTPUT: &str = "cluster_analysis_output";

/// True when `path` is something the Ascend op checks read (or can say they skip).
fn is_ascend(path: &Path) -> bool {
    if path.is_dir() {
        return ProfileFiles::find(path).is_ok();
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    OpTableImporter.recognizes(path)
        || name == "trace_view.json"
        || (name.starts_with("msprof") && name.ends_with(".json"))
}

/// The op checks of `path` as a section; none when `path` is not an Ascend profile, or is
/// an op table file: its reader ([`crate::op_table::load_with_checks`]) sums the checks in
/// the pass that loads its ops and puts the section on the timeline.
pub(crate) fn sections(path: &Path) -> Vec<Section> {
    if !is_ascend(path) || (path.is_file() && OpTableImporter.recognizes(path)) {
        return Vec::new();
    }
    let section = match analyze(path) {
        Ok(Ok(report)) => report_section(&report),
        Ok(Err(skipped)) => Section::skipped(KEY, TITLE, skipped),
        Err(error) => checks_section(Err(error)),
    };
    vec![section]
}

/// `communication.json` under or beside `path`, as a communication table.
pub(crate) fn communication(path: &Path) -> Option<Result<CommTable>> {
    let file = communication::find_in(path)?;
    Some(communication::load(&file).map_err(Into::into).map(|ops| CommTable {
        transports: communication::transport_totals(&ops),
        samples: ops.iter().map(communication::CommOp::sample).collect(),
        source: file,
    }))
}

/// The per-rank tables under `path`.
pub(crate) fn rank_tables(path: &Path) -> RankTables {
    let mut tables = RankTables::default();
    if let Some(file) = communication::find_named(path, "step_trace_time.csv") {
        tables.found = true;
        match step_trace::load(&file) {
            Ok(steps) => tables.split = Some((step_trace::rank_split(&steps), "step_trace_time.csv")),
            Err(error) => tables.errors.push(prof_core::Error::from(error).to_string()),
        }
    }
    if let Some(comm) = communication(path) {
        tables.found = true;
        match comm {
            Ok(comm) => tables.comm = Some(comm),
            Err(error) => tables.errors.push(error.to_string()),
        }
    }
    if let Some(file) = communication::find_named(path, "communication_matrix.json") {
        tables.found = true;
        match communication_matrix::load(&file) {
            Ok(links) => tables.links = links,
            Err(error) => tables.errors.push(prof_core::Error::from(error).to_string()),
        }
    }
    tables
}

/// The `<R>` of the `profiler_info_<R>.json` a torch_npu profile directory holds.
pub(crate) fn rank_of_entry(entry: &Path) -> Option<u32> {
    let infos = std::fs::read_dir(entry).ok()?;
    infos.flatten().find_map(|info| {
        let name = info.file_name();
        name.to_str()?.strip_prefix("profiler_info_")?.strip_suffix(".json")?.parse().ok()
    })
}

/// msprof-analyze's cluster table of the job at `path` (the job directory or its
/// `cluster_analysis_output`).
pub(crate) fn cluster_table(path: &Path) -> Option<ClusterTable> {
    let root = if path.file_name().is_some_and(|n| n == CLUSTER_OUTPUT) { path.parent()? } else { path };
    let file = root.join(CLUSTER_OUTPUT).join(CLUSTER_STEP_TRACE);
    file.is_file().then(|| ClusterTable { root: root.to_owned(), file })
}

/// The per-rank splits of the cluster table at `file`.
pub(crate) fn cluster_splits(file: &Path) -> Result<Vec<(u32, RankSplit)>> {
    let rows = step_trace::load(file)?;
    let mut by_rank: std::collections::BTreeMap<u32, Vec<&step_trace::StepTime>> = Default::default();
    for row in &rows {
        if let Some(rank) = row.rank {
            by_rank.entry(rank).or_default().push(row);
        }
    }
    Ok(by_rank.into_iter().map(|(rank, steps)| (rank, step_trace::rank_split(steps))).collect())
}
