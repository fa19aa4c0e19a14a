//! "Are kernels launch-bound": launch delay, CPU launch time against kernel time, and the
//! share of kernels shorter than their launch call (core's [`launch_stats`]).

use super::RenderedSection;
use crate::blocks::Blocks;
use crate::render::human_ns;
use prof_core::analysis::launch::{LaunchStats, Percentiles, SHORT_KERNEL_NS};

/// The launch statistics, when some kernel links to its launch call.
pub fn section(stats: &LaunchStats) -> Option<RenderedSection> {
    let cells = |p: &Percentiles| [p.p50_ns, p.p90_ns, p.p99_ns, p.max_ns].map(|ns| human_ns(ns as f64));
    let mut rows = vec![["", "p50", "p90", "p99", "max"].map(String::from).to_vec()];
    for (label, p) in [("launch delay", &stats.delay), ("launch call", &stats.launch_duration)] {
        let Some(p) = p else { continue };
        let mut row = vec![label.to_owned()];
        row.extend(cells(p));
        rows.push(row);
    }
    let mut text = Blocks::default();
    if rows.len() > 1 {
        text.push_table(rows);
    }
    text.push_str(&format!(
        "{} kernels linked to their launch ({} broken links); launch calls {} against kernels {}\n",
        stats.kernels,
        stats.broken_links,
        human_ns(stats.launch_total_ns as f64),
        human_ns(stats.kernel_total_ns as f64)
    ));
    text.push_str(&format!(
        "shorter than their launch: {} ({:.1} %); under {} µs: {} ({:.1} % of kernels, {:.1} % of kernel time)\n",
        stats.shorter_than_launch,
        stats.shorter_than_launch_pct,
        SHORT_KERNEL_NS / 1_000,
        stats.short_kernels,
        stats.short_kernels_pct,
        stats.short_kernel_time_pct
    ));
    text.push_str(&format!("verdict: {}\n", stats.verdict_line));
    let json = serde_json::to_value(stats).ok()?;
    Some(RenderedSection { key: "launch", title: "kernel launches".to_owned(), text, json })
}
