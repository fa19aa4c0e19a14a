//! The communication analysis: the vendor's own communication tables beside the artifact
//! where the backend has them (an Ascend profile's `communication.json`), else the
//! collectives of the timeline's communication streams.

use crate::analysis::comm::{gbps, summarize_collectives, timeline_comm_samples, CollectiveStats};
use crate::analysis::streams::communication_ops;
use crate::vendor_tables::{CommTable, TransportTotal};
use crate::{Registry, Timeline};
use serde::Serialize;
use std::path::Path;

/// One transport's totals: name, ops, bytes, transit ns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TransportRow {
    /// Transport (`HCCS`, `RDMA`, …).
    pub transport: String,
    /// Ops that used it.
    pub ops: u64,
    /// Transit bytes.
    pub bytes: u64,
    /// Transit time, ns.
    pub transit_ns: u64,
    /// Bytes over transit time, GB/s.
    pub link_gbps: Option<f64>,
}

/// Communication as one source sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CommReport {
    /// `communication.json` path, or `timeline`.
    pub source: String,
    /// Per collective type, longest first.
    pub collectives: Vec<CollectiveStats>,
    /// Per transport, where the source measures them.
    pub transports: Vec<TransportRow>,
}

/// The communication analysis of `timeline` (whose stream roles are `roles`): the vendor's
/// tables beside `path` when its backend reads them (`Err`: they were there and could not be
/// read), else the timeline's collectives; `None` when neither has any.
pub(super) fn analysis(timeline: &Timeline, context: &super::Context) -> Option<Result<CommReport, String>> {
    let report = match context.path.and_then(|path| vendor_report(context.registry, path)) {
        Some(Ok(report)) => report,
        Some(Err(error)) => return Some(Err(error)),
        // The stream roles count the communication ops: with none, no walk for them.
        None if communication_ops(context.stream_roles(timeline)) == 0 => return None,
        None => CommReport {
            source: "timeline".to_owned(),
            collectives: summarize_collectives(timeline_comm_samples(timeline, context.families)),
            transports: Vec::new(),
        },
    };
    (!report.collectives.is_empty()).then_some(Ok(report))
}

/// The vendor's communication tables beside `path`, when a backend reads them.
pub fn vendor_report(registry: &Registry, path: &Path) -> Option<Result<CommReport, String>> {
    Some(registry.communication(path)?.map_err(|e| e.to_string()).map(|table| report_of(&table)))
}

/// A vendor communication table as a report.
pub fn report_of(table: &CommTable) -> CommReport {
    CommReport {
        source: table.source.display().to_string(),
        collectives: summarize_collectives(table.samples.clone()),
        transports: transport_rows(&table.transports),
    }
}

/// The vendor's transport totals with their link bandwidth.
pub fn transport_rows(totals: &[TransportTotal]) -> Vec<TransportRow> {
    totals
        .iter()
        .map(|t| TransportRow {
            link_gbps: gbps(t.bytes, t.transit_ns),
            transport: t.transport.clone(),
            ops: t.ops,
            bytes: t.bytes,
            transit_ns: t.transit_ns,
        })
        .collect()
}
