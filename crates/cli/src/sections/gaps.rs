//! "Where the device sat idle, and why": per device, idle gaps between any ops and on the
//! main stream, by length and by cause, each stream's own idle time, the longest gaps with the ops around them and the
//! host activity inside, and the remedies that apply (core's [`idle_gaps`]).

use super::RenderedSection;
use crate::blocks::Blocks;
use crate::render::{ellipsize, human_ns};
use prof_core::analysis::gaps::{DeviceGaps, GapCause, GapStats};

/// Widest op or host-span name printed.
const NAME_WIDTH: usize = 40;
/// Longest gaps printed per device in the text (the JSON has all the core lists).
const TEXT_GAPS: usize = 5;
/// Streams printed per device in the text.
const TEXT_STREAMS: usize = 6;

/// The idle gaps, when some device has any.
pub fn section(devices: &[DeviceGaps]) -> Option<RenderedSection> {
    if !devices.iter().any(|d| d.device_gaps.count > 0) {
        return None;
    }
    let mut text = Blocks::default();
    for d in devices.iter().filter(|d| d.device_gaps.count > 0) {
        text.push_str(&format!(
            "device {}: {} gaps, {} idle ({:.1} % of {}); main stream {}: {} gaps, {} ({:.1} %)\n",
            d.device,
            d.device_gaps.count,
            human_ns(d.device_gaps.total_ns as f64),
            d.device_gaps.idle_pct,
            human_ns(d.device_gaps.wall_ns as f64),
            d.main_stream,
            d.main_stream_gaps.count,
            human_ns(d.main_stream_gaps.total_ns as f64),
            d.main_stream_gaps.idle_pct,
        ));
        text.push_str(&summary(&d.device_gaps));
        text.push_str(&per_stream(d));
        let mut rows =
            vec![["at", "length", "cause", "op before", "op after", "host in gap"].map(String::from).to_vec()];
        // The three name columns share what the terminal leaves beside the other three (about
        // 46 characters with their gaps): at 80 columns, 12 each; more on a wider terminal.
        let width = match crate::render::name_width(46) {
            usize::MAX => usize::MAX,
            room => (room / 3).clamp(12, NAME_WIDTH),
        };
        for g in d.device_gaps.largest.iter().take(TEXT_GAPS) {
            let host = g.host.iter().map(|h| ellipsize(&h.name, width)).collect::<Vec<_>>().join(", ");
            rows.push(vec![
                format!("+{}", human_ns(g.offset_ns as f64)),
                human_ns(g.length_ns as f64),
                cause(g.cause).to_owned(),
                ellipsize(&crate::render::display_name(&g.before), width),
                ellipsize(&crate::render::display_name(&g.after), width),
                host,
            ]);
        }
        text.push_table(rows);
        for remedy in &d.remedies {
            text.push_str(&format!("  {}: {}\n", cause(remedy.cause), remedy.advice));
        }
    }
    let json = serde_json::to_value(devices).ok()?;
    Some(RenderedSection { key: "gaps", title: "idle gaps (bubbles) per device".to_owned(), text, json })
}

fn summary(stats: &GapStats) -> String {
    let buckets: Vec<String> =
        stats.buckets.iter().filter(|b| b.count > 0).map(|b| format!("{} {}", b.label, b.count)).collect();
    let causes: Vec<String> = stats
        .causes
        .iter()
        .filter(|c| c.count > 0)
        .map(|c| format!("{} {} ({})", cause(c.cause), c.count, human_ns(c.total_ns as f64)))
        .collect();
    format!("  by length: {}\n  by cause: {}\n", buckets.join(", "), causes.join(", "))
}

/// One line of every stream's own gaps (HTA's per-stream idle time), the longest first.
fn per_stream(d: &DeviceGaps) -> String {
    let mut streams: Vec<_> = d.streams.iter().filter(|s| s.count > 0).collect();
    if streams.len() < 2 {
        return String::new();
    }
    streams.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.stream.cmp(&b.stream)));
    let listed: Vec<String> = streams
        .iter()
        .take(TEXT_STREAMS)
        .map(|s| {
            format!(
                "{} {} gaps {} ({:.1} %)",
                crate::render::stream_label(s.stream),
                s.count,
                human_ns(s.total_ns as f64),
                s.idle_pct
            )
        })
        .collect();
    let more = streams.len().saturating_sub(TEXT_STREAMS);
    let more = if more > 0 { format!(", {more} more in the JSON") } else { String::new() };
    format!("  per stream: {}{more}\n", listed.join(", "))
}

fn cause(cause: GapCause) -> &'static str {
    match cause {
        GapCause::HostWait => "host wait",
        GapCause::KernelWait => "kernel wait",
        GapCause::Dependency => "dependency/sync",
        GapCause::Unknown => "unknown",
    }
}
