//! Per-rank and per-job tables some vendors write beside their traces (Ascend's
//! `step_trace_time.csv`, `communication.json`, `communication_matrix.json`, msprof-analyze's
//! cluster table), as core data: backends read them behind [`crate::Vendor`], the CLI shows
//! them without knowing whose they are. Where such a table exists it wins over what the
//! timeline alone can say (it carries bytes, transports and the vendor's own step split).

use crate::analysis::comm::CommSample;
use crate::analysis::ranks::RankSplit;
use prof_timeline::Result;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Totals of one transport (`HCCS`, `RDMA`, …).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TransportTotal {
    /// Transport name.
    pub transport: String,
    /// Ops that moved data over it.
    pub ops: u64,
    /// Transit bytes.
    pub bytes: u64,
    /// Transit time, ns.
    pub transit_ns: u64,
}

/// A vendor's per-op communication table.
#[derive(Debug, Clone, PartialEq)]
pub struct CommTable {
    /// The file read.
    pub source: PathBuf,
    /// One sample per op.
    pub samples: Vec<CommSample>,
    /// Per transport, where the file measures them.
    pub transports: Vec<TransportTotal>,
}

/// One link of a communication matrix (rank to rank).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Link {
    /// Sending rank.
    pub src: u32,
    /// Receiving rank.
    pub dst: u32,
    /// Transport type.
    pub transport: String,
    /// Ops that used it.
    pub ops: u64,
    /// Transit bytes.
    pub bytes: u64,
    /// Transit time, ns.
    pub transit_ns: u64,
}

/// What a vendor's own per-rank tables say about one rank.
#[derive(Debug, Clone, Default)]
pub struct RankTables {
    /// Some table was there (even one that could not be read).
    pub found: bool,
    /// The wall-time split and the file it came from.
    pub split: Option<(RankSplit, &'static str)>,
    /// Per-op communication.
    pub comm: Option<CommTable>,
    /// Links of the communication matrix.
    pub links: Vec<Link>,
    /// Tables that were there but could not be read, each naming its file.
    pub errors: Vec<String>,
}

/// A job-wide table of per-rank splits (msprof-analyze's `cluster_step_trace_time.csv`).
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterTable {
    /// The job's root directory.
    pub root: PathBuf,
    /// The table.
    pub file: PathBuf,
}

/// A backend's knowledge of multi-rank job directories, the one optional capability
/// ([`crate::Vendor::job_tables`]) behind which its tools' own directory layout stays: every
/// method has a default that knows nothing.
pub trait JobTables: Send + Sync {
    /// The rank of a job directory's entry that has no rank in its name, read from what the
    /// vendor's tools write inside it (a torch_npu `profiler_info_<R>.json`, a Kineto trace's
    /// `distributedInfo.rank`).
    fn rank_of_entry(&self, entry: &Path) -> Option<u32> {
        let _ = entry;
        None
    }
    /// The vendor's per-op communication table under or beside `path`, when there is one.
    fn communication(&self, path: &Path) -> Option<Result<CommTable>> {
        let _ = path;
        None
    }
    /// The vendor's own per-rank tables under `path` (a rank's entry in a job directory).
    fn rank_tables(&self, path: &Path) -> RankTables {
        let _ = path;
        RankTables::default()
    }
    /// The job-wide table of per-rank splits at or under `path`, when the vendor writes one.
    fn cluster_table(&self, path: &Path) -> Option<ClusterTable> {
        let _ = path;
        None
    }
    /// The per-rank splits of a [`ClusterTable`] file, by rank.
    fn cluster_splits(&self, table: &Path) -> Result<Vec<(u32, RankSplit)>> {
        Err(prof_timeline::Error::Unsupported(format!("{}: this backend reads no cluster table", table.display())))
    }
}
