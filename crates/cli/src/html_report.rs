//! `--html FILE`: one self-contained HTML page (no scripts, fonts or network access; inline
//! CSS and SVG drawn by [`svg`]) that a person opens in any browser. `prof analyze` and
//! `prof breakdown` write the kernel breakdown page ([`write_breakdown`]); `prof util` writes
//! utilization over time ([`write_util`]). Every piece of text is escaped: kernel names hold
//! `<`, `>` and `&`.

mod bars;
mod strip;
pub mod svg;
mod util_plot;

use crate::render::human_ns;
use crate::sections::Section;
use prof_core::kernel_summary::KernelSummary;
use prof_core::{Recording, Timeline};
use std::path::Path;

/// Top kernels drawn in the breakdown page.
const TOP_KERNELS: usize = 15;

/// `text` with the HTML/XML special characters escaped, for element content and attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:sans-serif;margin:24px;color:#222;max-width:1280px}\
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}\
pre{background:#f6f6f6;padding:10px;overflow-x:auto;font-size:12px}\
.note{color:#666;font-size:13px}svg{display:block;margin:6px 0}\
.grid{display:flex;flex-wrap:wrap;gap:8px}";

/// A whole page around `body`.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n{body}</body>\n</html>\n",
        title = escape(title)
    )
}

/// A `<h2>` heading and `content`, or nothing without content.
fn block(out: &mut String, heading: &str, content: Option<String>) {
    if let Some(content) = content {
        out.push_str(&format!("<h2>{}</h2>\n{content}", escape(heading)));
    }
}

fn write_page(path: &Path, html: &str) -> Result<(), String> {
    std::fs::write(path, html).map_err(|e| format!("{}: {e}", path.display()))
}

/// The kernel breakdown page: family shares, top kernels, the timeline strip with its idle
/// gaps, the temporal breakdown per device, and every section's text.
pub fn breakdown_page(timeline: Option<&Timeline>, summary: &KernelSummary, sections: &[Section]) -> String {
    let mut body = format!(
        "<p class=\"note\">source: {} · {} device ops · {} of device time over a {} span</p>\n",
        escape(&summary.source),
        summary.ops,
        human_ns(summary.device_ns as f64),
        human_ns(summary.span_ns as f64)
    );
    if let Some(partial) = &summary.partial {
        body.push_str(&format!("<p class=\"note\">partial artifact: {}</p>\n", escape(partial)));
    }
    block(&mut body, "Kernel families (share of device time)", bars::family_bars(summary));
    block(
        &mut body,
        &format!("Top {TOP_KERNELS} kernels (share of device time)"),
        bars::top_kernel_bars(summary, TOP_KERNELS),
    );
    block(&mut body, "Timeline per device stream (idle gaps shaded red)", timeline.and_then(strip::timeline_strip));
    block(&mut body, "Where each device's wall time went", bars::temporal_bars(sections));
    for section in sections {
        block(&mut body, &section.title, Some(format!("<pre>{}</pre>\n", escape(&section.text))));
    }
    page(&format!("prof breakdown: {}", summary.source), &body)
}

/// Writes [`breakdown_page`] to `path`.
pub fn write_breakdown(
    path: &Path,
    timeline: Option<&Timeline>,
    summary: &KernelSummary,
    sections: &[Section],
) -> Result<(), String> {
    write_page(path, &breakdown_page(timeline, summary, sections))
}

/// The utilization page: per device, utilization, memory, power and clocks over time, then
/// `report` (the text `prof util` printed) in a `<pre>` block.
pub fn util_page(recording: &Recording, report: &str) -> String {
    let mut body = format!(
        "<p class=\"note\">source: {} · {} samples every {} over {}</p>\n",
        escape(&recording.source),
        recording.ticks.len(),
        human_ns(recording.interval.as_nanos() as f64),
        human_ns(recording.elapsed.as_nanos() as f64)
    );
    for (device, charts) in util_plot::util_charts(recording) {
        let content = (!charts.is_empty()).then(|| format!("<div class=\"grid\">{}</div>\n", charts.concat()));
        block(&mut body, &format!("Device {device} over time"), content);
    }
    block(&mut body, "Summary", Some(format!("<pre>{}</pre>\n", escape(report))));
    page(&format!("prof util: {}", recording.source), &body)
}

/// Writes [`util_page`] to `path`.
pub fn write_util(path: &Path, recording: &Recording, report: &str) -> Result<(), String> {
    write_page(path, &util_page(recording, report))
}
