//! "Communication bandwidth per collective": count, bytes, total latency and effective
//! bandwidth (bytes / latency) of each collective type (core's
//! [`prof_core::analysis::comm::summarize_collectives`]). The ops come from Ascend's `communication.json` next to the
//! artifact when there is one (it carries bytes and per-transport link rates), else from the
//! timeline's communication ops (bytes where the source gives `args.bytes`).

use super::RenderedSection;
use crate::blocks::Blocks;
use crate::render::human_ns;
use prof_core::report::{CommReport, TransportRow};

/// The communication section, `None` when the window has no communication.
pub fn section(comm: Option<&Result<CommReport, String>>) -> Option<RenderedSection> {
    match comm? {
        Err(error) => Some(error_section(error.clone())),
        Ok(report) => Some(RenderedSection {
            key: "comm",
            title: "communication bandwidth per collective (effective = bytes / latency)".to_owned(),
            text: render(report),
            json: serde_json::to_value(report).ok()?,
        }),
    }
}

fn error_section(error: String) -> RenderedSection {
    RenderedSection {
        key: "comm",
        title: "communication bandwidth per collective".to_owned(),
        text: Blocks::from(format!("skipped: {error}\n")),
        json: serde_json::json!({ "error": error }),
    }
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
    use std::path::Path;

    #[test]
    fn an_ascend_profile_reads_its_communication_json() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/ascend/msinsight_gpt3_16rank_torch_npu/test_rank_0");
        let registry = crate::registry::build();
        let report = prof_core::report::vendor_report(&registry, &dir).unwrap().unwrap();
        assert!(report.source.ends_with("ASCEND_PROFILER_OUTPUT/communication.json"));
        // python: 28 ops (27 collective + 1 p2p); transports with data: HCCS, RDMA, SDMA
        assert_eq!(report.collectives.iter().map(|c| c.count).sum::<u64>(), 28);
        let transports: Vec<&str> = report.transports.iter().map(|t| t.transport.as_str()).collect();
        assert_eq!(transports, ["HCCS", "RDMA", "SDMA"]);
        let text = render(&report).text();
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("all_gather") && words.contains("SDMA = HCCS + PCIE"), "{text}");
        assert!(prof_core::report::vendor_report(&registry, &dir.join("profiler_info_0.json")).is_none());
        assert_eq!(human_bytes(1_174_406_620), "1.17 GB");
    }
}
