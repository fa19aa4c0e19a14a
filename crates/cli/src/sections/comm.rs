//! "Communication bandwidth per collective": count, bytes, total latency and effective
//! bandwidth (bytes / latency) of each collective type (core's
//! [`summarize_collectives`]). The ops come from Ascend's `communication.json` next to the
//! artifact when there is one (it carries bytes and per-transport link rates), else from the
//! timeline's communication ops (bytes where the source gives `args.bytes`).

use super::{RenderedSection, SectionContext};
use crate::blocks::Blocks;
use crate::render::human_ns;
use prof_core::analysis::comm::{gbps, summarize_collectives, timeline_comm_samples, CollectiveStats};
use prof_core::analysis::streams::communication_ops;
use prof_core::vendor_tables::{CommTable, TransportTotal};
use prof_core::{Registry, Timeline};
use serde::Serialize;
use std::path::Path;

/// One transport's totals: name, ops, bytes, transit ns.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CommReport {
    /// `communication.json` path, or `timeline`.
    pub source: String,
    /// Per collective type, longest first.
    pub collectives: Vec<CollectiveStats>,
    /// Per transport, where the source measures them.
    pub transports: Vec<TransportRow>,
}

/// The communication section, `None` when the artifact has no communication.
pub fn section(timeline: &Timeline, context: &SectionContext) -> Option<RenderedSection> {
    let report = match context.path.and_then(|path| vendor_report(context.registry, path)) {
        Some(Ok(report)) => report,
        Some(Err(error)) => return Some(error_section(error)),
        // The stream roles count the communication ops: with none, no walk for them.
        None if communication_ops(context.stream_roles(timeline)) == 0 => return None,
        None => CommReport {
            source: "timeline".to_owned(),
            collectives: summarize_collectives(timeline_comm_samples(timeline, context.families)),
            transports: Vec::new(),
        },
    };
    if report.collectives.is_empty() {
        return None;
    }
    Some(RenderedSection {
        key: "comm",
        title: "communication bandwidth per collective (effective = bytes / latency)".to_owned(),
        text: render(&report),
        json: serde_json::to_value(&report).ok()?,
    })
}

fn error_section(error: String) -> RenderedSection {
    RenderedSection {
        key: "comm",
        title: "communication bandwidth per collective".to_owned(),
        text: Blocks::from(format!("skipped: {error}\n")),
        json: serde_json::json!({ "error": error }),
    }
}

/// The report of the vendor's communication table under (or beside) `path` (Ascend's
/// `communication.json`); `None` when there is none.
pub fn vendor_report(registry: &Registry, path: &Path) -> Option<Result<CommReport, String>> {
    Some(registry.communication(path)?.map_err(|e| e.to_string()).map(|table| report_of(&table)))
}

/// A communication table as a report.
pub fn report_of(table: &CommTable) -> CommReport {
    CommReport {
        source: table.source.display().to_string(),
        collectives: summarize_collectives(table.samples.clone()),
        transports: transport_rows(&table.transports),
    }
}

/// Per-transport totals, with the link rate the vendor measured.
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

/// The report as text: the collective table, then the transport table when there is one.
pub fn render(report: &CommReport) -> Blocks {
    let mut rows =
        vec![["collective", "ops", "total", "bytes", "effective GB/s", "link GB/s"].map(String::from).to_vec()];
    for c in &report.collectives {
        let bytes =
            c.bytes.map_or("-".to_owned(), |b| format!("{} ({}/{} ops)", human_bytes(b), c.ops_with_bytes, c.count));
        rows.push(vec![
            c.op_type.clone(),
            c.count.to_string(),
            human_ns(c.total_ns as f64),
            bytes,
            c.bandwidth_gbps.map_or("-".to_owned(), |g| format!("{g:.2}")),
            c.link_gbps.map_or("-".to_owned(), |g| format!("{g:.2}")),
        ]);
    }
    let mut out = Blocks::from(format!("source: {}\n", report.source));
    out.push_table(rows);
    out.append(render_transports(&report.transports));
    out
}

/// The per-transport table; empty for no transports.
pub fn render_transports(transports: &[TransportRow]) -> Blocks {
    if transports.is_empty() {
        return Blocks::default();
    }
    let mut rows = vec![["transport", "ops", "bytes", "transit", "link GB/s"].map(String::from).to_vec()];
    for t in transports {
        rows.push(vec![
            t.transport.clone(),
            t.ops.to_string(),
            human_bytes(t.bytes),
            human_ns(t.transit_ns as f64),
            t.link_gbps.map_or("-".to_owned(), |g| format!("{g:.2}")),
        ]);
    }
    let mut out = Blocks::from_table(rows);
    out.push_str("(link GB/s: transit bytes / transit time as the vendor measured it; SDMA = HCCS + PCIE)\n");
    out
}

/// Bytes in decimal units (`1.17 GB`), as the vendors print transfer sizes.
pub fn human_bytes(bytes: u64) -> String {
    match bytes as f64 {
        b if b < 1e3 => format!("{b:.0} B"),
        b if b < 1e6 => format!("{:.1} kB", b / 1e3),
        b if b < 1e9 => format!("{:.1} MB", b / 1e6),
        b => format!("{:.2} GB", b / 1e9),
    }
}

#[cfg(all(test, feature = "ascend"))]
mod tests {
    use super::*;

    #[test]
    fn an_ascend_profile_reads_its_communication_json() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/ascend/msinsight_gpt3_16rank_torch_npu/test_rank_0");
        let registry = crate::registry::build();
        let report = vendor_report(&registry, &dir).unwrap().unwrap();
        assert!(report.source.ends_with("ASCEND_PROFILER_OUTPUT/communication.json"));
        // python: 28 ops (27 collective + 1 p2p); transports with data: HCCS, RDMA, SDMA
        assert_eq!(report.collectives.iter().map(|c| c.count).sum::<u64>(), 28);
        let transports: Vec<&str> = report.transports.iter().map(|t| t.transport.as_str()).collect();
        assert_eq!(transports, ["HCCS", "RDMA", "SDMA"]);
        let text = render(&report).text();
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("all_gather") && words.contains("SDMA = HCCS + PCIE"), "{text}");
        assert!(vendor_report(&registry, &dir.join("profiler_info_0.json")).is_none());
        assert_eq!(human_bytes(1_174_406_620), "1.17 GB");
    }
}
