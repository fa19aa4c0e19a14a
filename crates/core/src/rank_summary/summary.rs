//! The rank summary itself: what it holds, how it is made from a report, a timeline or a split,
//! and how it is read and written.

use crate::analysis::comm::timeline_comm_ops;
use crate::analysis::ranks::RankSplit;
use crate::analysis::temporal::DeviceTemporal;
use crate::report::Report;
use crate::{Families, Timeline};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The schema name of a rank summary.
pub const SCHEMA: &str = "prof.rank-summary.v1";
/// The file name suffix rank summaries are written with (`rank3.rank-summary.json`).
pub const SUFFIX: &str = ".rank-summary.json";
/// Kernels a summary lists.
const TOP_KERNELS: usize = 20;

/// One rank, reduced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RankSummary {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// The rank (the launcher's `RANK`, or the number in the artifact's name).
    pub rank: u32,
    /// The ranks in the job, where the launcher said.
    pub world_size: Option<u32>,
    /// The artifact the summary was made from.
    pub source: String,
    /// The window's wall time split (compute, exposed communication, other, idle).
    pub split: RankSplit,
    /// Device time per family, ns, largest first.
    pub families: Vec<(String, u64)>,
    /// The costliest kernels: name, calls, total ns.
    pub top_kernels: Vec<(String, u64, u64)>,
    /// The steps found (repeating sequence, profiler steps or a repeating kernel), in order:
    /// `[start, end)` of each step's device work, ns.
    pub steps: Vec<(u64, u64)>,
    /// Every collective in start order.
    pub collectives: Vec<Collective>,
    /// The rank's links as the vendor's communication matrix gives them (Ascend), for the job's
    /// matrix.
    #[serde(default)]
    pub links: Vec<crate::vendor_tables::Link>,
}

/// One collective on one rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Collective {
    /// Collective type (`all_reduce`, `all_gather`, `send`, …).
    pub op: String,
    /// Start, ns (the rank's clock).
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
    /// Bytes, where the source says.
    pub bytes: Option<u64>,
}

impl RankSummary {
    /// The summary of `report` (the rank's window: see [`crate::report::analyze`]) for `rank`,
    /// read from `source`. Families and kernels from the window's summary; the split from its
    /// temporal analysis (worked out here when the report has none).
    pub fn of(report: &Report, families: &Families, rank: u32, world_size: Option<u32>, source: &str) -> Self {
        let temporal = match report.analyses.temporal.is_empty() {
            true => crate::analysis::temporal::temporal_breakdown(&report.timeline, families),
            false => report.analyses.temporal.clone(),
        };
        Self::of_parts(&report.timeline, &report.summary, &temporal, families, rank, world_size, source)
    }

    /// A summary that holds only a rank's split (a vendor's per-step table, no op timeline).
    pub fn of_split(rank: u32, split: RankSplit, source: &str) -> Self {
        RankSummary {
            schema: SCHEMA.to_owned(),
            rank,
            world_size: None,
            source: source.to_owned(),
            split,
            families: Vec::new(),
            top_kernels: Vec::new(),
            steps: Vec::new(),
            collectives: Vec::new(),
            links: Vec::new(),
        }
    }

    /// The summary of `timeline` (a rank's artifact as read, or its window) whose kernel
    /// summary and temporal breakdown are already worked out.
    pub fn of_parts(
        timeline: &Timeline,
        summary: &crate::KernelSummary,
        temporal: &[DeviceTemporal],
        families: &Families,
        rank: u32,
        world_size: Option<u32>,
        source: &str,
    ) -> Self {
        let collectives = timeline_comm_ops(timeline, families)
            .map(|(op, op_type)| Collective {
                op: op_type,
                start_ns: op.start_ns,
                end_ns: op.start_ns + op.dur_ns(),
                bytes: timeline.details_of(op).and_then(|d| d.bytes),
            })
            .collect();
        RankSummary {
            schema: SCHEMA.to_owned(),
            rank,
            world_size,
            source: source.to_owned(),
            split: RankSplit::from_temporal(temporal).unwrap_or_default(),
            families: summary.families.iter().map(|f| (f.family.as_str().to_owned(), f.total_ns)).collect(),
            top_kernels: summary.top(TOP_KERNELS).iter().map(|k| (k.name.clone(), k.calls, k.total_ns)).collect(),
            steps: super::steps::step_windows(timeline),
            collectives,
            links: Vec::new(),
        }
    }

    /// Reads a summary file ([`RankSummary::to_json`]); the error names the file (and the
    /// line and column of a JSON error).
    pub fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let summary: Self = serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if summary.schema != SCHEMA {
            return Err(format!("{}: schema `{}`, not {SCHEMA}", path.display(), summary.schema));
        }
        summary.check().map_err(|why| format!("{}: {why}", path.display()))?;
        Ok(summary)
    }

    /// What a summary must hold to be merged: windows that end at or after they start, and a
    /// split whose parts fit its wall.
    fn check(&self) -> Result<(), String> {
        if let Some(k) = self.steps.iter().position(|&(start, end)| end < start) {
            return Err(format!("steps[{k}] ends before it starts"));
        }
        if let Some(k) = self.collectives.iter().position(|c| c.end_ns < c.start_ns) {
            return Err(format!("collectives[{k}] ends before it starts"));
        }
        let s = &self.split;
        let parts =
            [s.compute_ns, s.communication_ns, s.other_ns, s.idle_ns].iter().try_fold(0u64, |a, &p| a.checked_add(p));
        if parts.is_none_or(|sum| sum > s.wall_ns.saturating_add(s.wall_ns / 100 + 1_000)) {
            return Err(format!("split: its parts add up to more than its wall of {} ns", s.wall_ns));
        }
        Ok(())
    }

    /// The summary as the JSON a summary file holds (the front end writes it, as it writes its
    /// other output files).
    pub fn to_json(&self) -> Result<Vec<u8>, String> {
        serde_json::to_vec(self).map_err(|e| format!("cannot encode the rank summary: {e}"))
    }
}

/// The name a rank's summary is written under: `rank<R>.rank-summary.json`.
pub fn file_name(rank: u32) -> String {
    format!("rank{rank}{SUFFIX}")
}

/// Whether `path` names a rank summary (by its suffix).
pub fn is_rank_summary(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(SUFFIX))
}
