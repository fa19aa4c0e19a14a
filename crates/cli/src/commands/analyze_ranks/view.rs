//! The multi-rank report as text: per-rank table, the slowest rank and why, communication per
//! collective over all ranks, and the communication matrix.

use super::RanksReport;
use crate::render::{ellipsize, human_ns, table};
use crate::sections::comm;
use prof_core::report::CommReport;

/// The whole report, ending in a newline.
pub(super) fn render(report: &RanksReport) -> String {
    let plural = if report.ranks.len() == 1 { "" } else { "s" };
    let head = format!("rank job: {} ({} rank{plural})\n", report.root, report.ranks.len());
    let mut out = crate::wrap::wrap(&head, crate::wrap::width());
    if report.partial {
        out.push_str("PARTIAL: some ranks are missing or failed to load (see below)\n");
    }
    out.push_str(&rank_table(report));
    let width = crate::wrap::width();
    let mut notes = String::new();
    for r in report.ranks {
        if let Some(error) = &r.error {
            notes.push_str(&format!("error: {error}\n"));
        }
        for note in &r.notes {
            notes.push_str(&format!("note: rank {}: {note}\n", r.rank));
        }
    }
    for note in &report.notes {
        notes.push_str(&format!("note: {note}\n"));
    }
    out.push_str(&crate::wrap::wrap(&notes, width));
    if let Some(s) = report.slowest.as_ref().filter(|s| s.cause == "none") {
        out.push_str(&format!("\nno rank is slower than the median rank (wall {})\n", human_ns(s.wall_ns as f64)));
    }
    if let Some(s) = report.slowest.as_ref().filter(|s| s.cause != "none") {
        let ms = |ns: i64| format!("{:+.2} ms", ns as f64 / 1e6);
        let line = format!(
            "\nslowest rank {}: wall {} vs median {} ({}): compute {}, communication {}, other {}, idle {}; mostly {}\n",
            s.rank,
            human_ns(s.wall_ns as f64),
            human_ns(s.median_wall_ns as f64),
            ms(s.excess_ns),
            ms(s.excess_compute_ns),
            ms(s.excess_communication_ns),
            ms(s.excess_other_ns),
            ms(s.excess_idle_ns),
            s.cause,
        );
        out.push_str(&crate::wrap::wrap(&line, width));
    }
    if !report.collectives.is_empty() {
        let with_comm: Vec<String> =
            report.ranks.iter().filter(|r| !r.collectives.is_empty()).map(|r| r.rank.to_string()).collect();
        let all = CommReport {
            source: format!("ranks {}", with_comm.join(", ")),
            collectives: report.collectives.clone(),
            transports: Vec::new(),
        };
        out.push_str("\ncommunication bandwidth per collective (effective = bytes / latency)\n");
        out.push_str(&comm::render(&all).text());
        for r in report.ranks.iter().filter(|r| !r.transports.is_empty()) {
            out.push_str(&format!("rank {} per transport\n{}", r.rank, comm::render_transports(&r.transports).text()));
        }
    }
    if !report.communication_matrix.is_empty() {
        out.push_str("\ncommunication matrix (src → dst, summed over ops)\n");
        let mut rows = vec![["src", "dst", "transport", "ops", "bytes", "transit", "GB/s"].map(String::from).to_vec()];
        for l in &report.communication_matrix {
            rows.push(vec![
                l.link.src.to_string(),
                l.link.dst.to_string(),
                l.link.transport.clone(),
                l.link.ops.to_string(),
                comm::human_bytes(l.link.bytes),
                human_ns(l.link.transit_ns as f64),
                l.bandwidth_gbps.map_or("-".to_owned(), |g| format!("{g:.2}")),
            ]);
        }
        out.push_str(&table(&rows));
    }
    out
}

fn rank_table(report: &RanksReport) -> String {
    let source = |r: &super::RankResult| {
        r.split_from.as_deref().unwrap_or(if r.error.is_some() { "FAILED" } else { "-" }).to_owned()
    };
    // One source for every rank is said once under the table, not in a column of its own.
    let shared = report.ranks.first().map(source).filter(|first| report.ranks.iter().all(|r| source(r) == *first));
    // No rank with a top kernel (a step-trace split without ops): no column for it.
    let kernels = report.ranks.iter().any(|r| r.top_kernel.is_some());
    let mut header = vec!["rank", "wall", "compute", "comm", "idle", "busy", "split from", "top kernel"];
    header.retain(|h| !(*h == "split from" && shared.is_some() || *h == "top kernel" && !kernels));
    let mut rows = vec![header.into_iter().map(String::from).collect::<Vec<_>>()];
    for r in report.ranks {
        let mark = if report.slowest.as_ref().is_some_and(|s| s.rank == r.rank) { " *" } else { "" };
        let mut row = vec![format!("{}{mark}", r.rank)];
        match &r.split {
            Some(s) => row.extend([
                human_ns(s.wall_ns as f64),
                format!("{:.1} %", s.share_pct(s.compute_ns)),
                format!("{:.1} %", s.share_pct(s.communication_ns)),
                format!("{:.1} %", s.share_pct(s.idle_ns)),
                human_ns(s.busy_ns() as f64),
            ]),
            None => row.extend(["-"; 5].map(String::from)),
        }
        if shared.is_none() {
            row.push(source(r));
        }
        if kernels {
            row.push(
                r.top_kernel
                    .as_ref()
                    .map_or("-".to_owned(), |k| format!("{} ({:.1} %)", ellipsize(&k.name, 48), k.share_pct)),
            );
        }
        rows.push(row);
    }
    let mut out = table(&crate::blocks::fit(&rows, crate::wrap::width()));
    if let Some(source) = shared.filter(|s| s != "-") {
        out.push_str(&format!("(split from {source} for every rank)\n"));
    }
    out
}
