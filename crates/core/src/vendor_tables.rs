//! Per-rank and per-job tables some vendors write beside their traces (Ascend's
//! `step_trace_time.csv`, `communication.json`, `communication_matrix.json`, msprof-analyze's
//! cluster table), as core data: backends read them behind [`crate::Vendor`], the CLI shows
//! them without knowing whose they are. Where such a table exists it wins over what the
//! timeline alone can say (it carries bytes, transports and the vendor's own step split).

use crate::analysis::comm::CommSample;
use crate::analysis::ranks::RankSplit;
use serde::Serialize;
use std::path::PathBuf;

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
#[derive(Debug, Clone, PartialEq, Serialize)]
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
