//! `--html FILE`: one self-contained HTML page (no scripts, fonts or network access; inline
//! CSS and SVG drawn by [`svg`]) that a person opens in any browser. `prof analyze` and
//! `prof breakdown` write the kernel breakdown page ([`write_breakdown`]); `prof util` writes
//! utilization over time ([`write_util`]). Pages are built from the typed report with maud
//! templates (never from the text report): every piece of text is escaped by it (kernel names
//! hold `<`, `>` and `&`).

mod bars;
pub mod ranks;
mod strip;
pub mod svg;
mod util_plot;

use crate::render::{display_name, human_ns};
use crate::sections::RenderedSection;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use prof_core::diagnosis::DiagnosisReport;
use prof_core::families::Family;
use prof_core::kernel_summary::KernelSummary;
use prof_core::{Recording, Severity, Timeline};
use std::path::Path;

/// What the page leads with: the answer (headline, evidence, remedy, next step, time
/// account), the diagnosis, and how many kernels to show (`--top`).
#[derive(Debug, Clone, Copy)]
pub struct Answer<'a> {
    /// The findings (absent for `--summary-only`).
    pub diagnosis: Option<&'a DiagnosisReport>,
    /// The answer (absent for `--summary-only`).
    pub answer: Option<&'a crate::answer_view::AnswerView>,
    /// Kernels in the table and the chart.
    pub top: usize,
}

/// One colour per kernel family, the same in every chart and table of every page.
pub fn family_color(family: Family) -> &'static str {
    match family {
        Family::Gemv => "#4e79a7",
        Family::Gemm => "#1f4e79",
        Family::Conv => "#76b7b2",
        Family::Attention => "#59a14f",
        Family::Norm => "#edc948",
        Family::Rope => "#d4a6c8",
        Family::MoeRouting => "#b07aa1",
        Family::TopK => "#9d7660",
        Family::GroupedMatmul => "#2a9d8f",
        Family::Quantize => "#ff9da7",
        Family::Elementwise => "#f28e2b",
        Family::Layout => "#ffbe7d",
        Family::Index => "#8cd17d",
        Family::Rng => "#b6992d",
        Family::Optimizer => "#499894",
        Family::Reduction => "#e15759",
        Family::Memcpy => "#79706e",
        Family::Memset => "#bab0ac",
        Family::Collective => "#8c564b",
        Family::Other => "#c7c7c7",
        Family::Custom(name) => svg::PALETTE[name.bytes().map(usize::from).sum::<usize>() % svg::PALETTE.len()],
    }
}

const STYLE: &str = "body{font-family:sans-serif;margin:24px;color:#222;max-width:1280px}\
h1{font-size:22px;overflow-wrap:anywhere}.note{overflow-wrap:anywhere}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}\
pre{background:#f6f6f6;padding:10px;overflow-x:auto;font-size:12px}\
.note{color:#666;font-size:13px}svg{display:block;margin:6px 0}\
.grid{display:flex;flex-wrap:wrap;gap:8px}\
table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left}\
td.n{text-align:right;font-variant-numeric:tabular-nums}code{background:#f6f6f6;padding:2px 4px;overflow-wrap:anywhere}\
.finding{border-left:4px solid #999;padding:4px 10px;margin:8px 0}.finding ul{margin:4px 0;color:#444;font-size:13px}\
.warning{border-color:#e15759}.opportunity{border-color:#f28e2b}.info{border-color:#4e79a7}\
.swatch{display:inline-block;width:10px;height:10px;margin-right:6px}\
p.line{margin:3px 0;font-size:13px;overflow-wrap:anywhere}";

/// A whole page around `body`.
pub fn page(title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { (title) } style { (PreEscaped(STYLE)) } }
            body { h1 { (title) } (body) }
        }
    }
    .into_string()
}

/// A `<h2>` heading and `content`, or nothing without content.
pub fn block(heading: &str, content: Option<Markup>) -> Markup {
    html! { @if let Some(content) = content { h2 { (heading) } (content) } }
}

use crate::output_file::WriteError;

fn write_page(path: &Path, html: &str) -> Result<(), WriteError> {
    crate::output_file::write_bytes(path, html.as_bytes())
}

/// The kernel breakdown page: the answer first (diagnosis with its evidence, the next command),
/// then the kernel table, family shares and top kernels in the families' colours, the timeline
/// strip with its idle gaps, the temporal breakdown per device, and every section's text.
pub fn breakdown_page(
    timeline: Option<&Timeline>,
    summary: &KernelSummary,
    sections: &[RenderedSection],
    answer: &Answer,
) -> String {
    // The window as the text report names it: the busiest device's first op start to last op
    // end (the time account's wall), not the span of every event the source holds.
    let window = match summary.busiest_device() {
        Some(d) => format!(
            " · device {} busy {} of a {} window",
            d.device,
            human_ns(d.busy_ns as f64),
            human_ns(d.wall_ns as f64)
        ),
        None => String::new(),
    };
    let shown = answer.top.min(summary.kernels.len());
    let families = summary.family_map();
    let body = html! {
        p.note {
            "source: " (summary.source) " · " (summary.ops) " device ops · "
            (human_ns(summary.device_ns as f64)) " of device time" (window)
        }
        @if let Some(partial) = &summary.partial { p.note { "partial artifact: " (partial) } }
        @if let Some(view) = answer.answer { (block("Answer", Some(answer_html(view)))) }
        (block("Diagnosis", Some(diagnosis_html(answer.diagnosis))))
        (block(&format!("Top {shown} kernels"), kernel_table(summary, answer.top)))
        (block("Kernel families (share of device time)", bars::family_bars(summary)))
        (block(
            &format!("Top {shown} kernels (share of device time, coloured by family)"),
            bars::top_kernel_bars(summary, answer.top),
        ))
        (block(
            "Timeline per device stream, coloured by family (idle gaps shaded red)",
            timeline.and_then(|t| strip::timeline_strip(t, &families)),
        ))
        (block("Where each device's wall time went", bars::temporal_bars(sections)))
        @for section in sections { (block(&section.title, Some(blocks_html(&section.text)))) }
    };
    page(&format!("prof breakdown: {}", summary.source), body)
}

/// Typed blocks as HTML, from the data: each table an HTML table (its first row the header, a
/// blank cell kept blank), each line of running text a paragraph.
pub fn blocks_html(blocks: &crate::blocks::Blocks) -> Markup {
    use crate::blocks::Block;
    html! {
        @for block in blocks.blocks() {
            @match block {
                Block::Table(rows) => {
                    table {
                        @for (index, row) in rows.iter().enumerate() {
                            tr {
                                @for cell in row {
                                    @if index == 0 { th { (cell.trim()) } } @else { td { (cell.trim()) } }
                                }
                            }
                        }
                    }
                }
                Block::Text(text) => {
                    @for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) { p.line { (line) } }
                }
            }
        }
    }
}

/// The answer block: the headline, its evidence and remedy, the next step, the time account.
fn answer_html(view: &crate::answer_view::AnswerView) -> Markup {
    let a = &view.answer;
    html! {
        p { b { (a.headline) } }
        ul {
            li { "evidence: " (a.evidence_line) }
            @if let Some(remedy) = &a.remedy { li { "remedy: " (remedy) } }
        }
        p { "next: " code { (view.next_line) } }
        @if let Some(account) = &a.account {
            table {
                tr {
                    th { "device " (account.device) " · " (human_ns(account.wall_ns as f64)) }
                    th { "share of the window" }
                    th { "time" }
                }
                @for part in &account.parts {
                    tr {
                        td { (crate::answer_view::part_label(part.part)) }
                        td { (format_args!("{:.1} %", part.pct)) }
                        td { (human_ns(part.ns as f64)) }
                    }
                }
            }
        }
        @if let Some(e) = &a.efficiency { p { "roofline: " (crate::answer_view::efficiency_line(e)) } }
    }
}

fn diagnosis_html(diagnosis: Option<&DiagnosisReport>) -> Markup {
    let class = |severity: Severity| match severity {
        Severity::Warning => "finding warning",
        Severity::Opportunity => "finding opportunity",
        _ => "finding info",
    };
    html! {
        @match diagnosis {
            None => { p.note { "not run (--summary-only)" } }
            Some(d) if d.findings.is_empty() => {
                p { "No pattern rule fired (the answer above weighs the time account)." }
            }
            Some(d) => {
                @for finding in &d.findings {
                    div class=(class(finding.severity)) {
                        b { (finding.headline) }
                        ul { @for line in &finding.evidence { li { (line) } } }
                    }
                }
            }
        }
    }
}

fn kernel_table(summary: &KernelSummary, top: usize) -> Option<Markup> {
    let rows = summary.top(top);
    if rows.is_empty() {
        return None;
    }
    Some(html! {
        table {
            tr { th { "#" } th { "kernel" } th { "family" } th { "calls" } th { "total" } th { "mean" } th { "share" } }
            @for (rank, k) in rows.iter().enumerate() {
                tr {
                    td.n { (rank + 1) }
                    td title=(k.name) { (crate::render::ellipsize(&display_name(&k.name), 90)) }
                    td { span.swatch style={ "background:" (family_color(k.family)) } {} (k.family.as_str()) }
                    td.n { (k.calls) }
                    td.n { (human_ns(k.total_ns as f64)) }
                    td.n { (human_ns(k.mean_ns)) }
                    td.n { (format_args!("{:.1} %", k.share_pct)) }
                }
            }
        }
    })
}

/// Writes [`breakdown_page`] to `path`.
pub fn write_breakdown(
    path: &Path,
    timeline: Option<&Timeline>,
    summary: &KernelSummary,
    sections: &[RenderedSection],
    answer: &Answer,
) -> Result<(), WriteError> {
    write_page(path, &breakdown_page(timeline, summary, sections, answer))
}

/// The utilization page: per device, utilization, memory, power and clocks over time, then
/// `report` (the text `prof util` printed) in a `<pre>` block.
pub fn util_page(recording: &Recording, report: &str) -> String {
    let body = html! {
        p.note {
            "source: " (recording.source) " · " (recording.ticks.len()) " samples every "
            (human_ns(recording.interval.as_nanos() as f64)) " over " (human_ns(recording.elapsed.as_nanos() as f64))
        }
        @for (device, charts) in util_plot::util_charts(recording) {
            (block(
                &format!("Device {device} over time"),
                (!charts.is_empty()).then(|| html! { div.grid { @for chart in &charts { (chart) } } }),
            ))
        }
        (block("Summary", Some(html! { pre { (report) } })))
    };
    page(&format!("prof util: {}", recording.source), body)
}

/// A page of `body` under `title` (`prof profile` builds its body from its report).
pub fn write_markup_page(path: &Path, title: &str, body: Markup) -> Result<(), WriteError> {
    write_page(path, &page(title, body))
}

/// A page of a report made of typed blocks (`prof diff`, `prof deep-dive`): built from the blocks.
pub fn write_blocks_page(path: &Path, title: &str, blocks: &crate::blocks::Blocks) -> Result<(), WriteError> {
    write_page(path, &page(title, blocks_html(blocks)))
}

/// Writes [`util_page`] to `path`.
pub fn write_util(path: &Path, recording: &Recording, report: &str) -> Result<(), WriteError> {
    write_page(path, &util_page(recording, report))
}

#[cfg(test)]
mod tests {
    use super::blocks_html;
    use crate::blocks::Blocks;

    #[test]
    fn a_table_with_an_empty_last_column_stays_a_table_with_its_header() {
        // The idle-gap table of a trace without host spans: its last column is empty in every
        // row, which the text re-splitting read as a paragraph and a one-row-shorter header.
        let mut blocks = Blocks::from("device 0: 2 gaps & <more>\n".to_owned());
        let row = |cells: [&str; 4]| cells.map(String::from).to_vec();
        blocks.push_table(vec![
            row(["at", "length", "cause", "host in the gap"]),
            row(["+1.00 ms", "2.00 ms", "launch", ""]),
            row(["+9.00 ms", "3.00 ms", "unknown", ""]),
        ]);
        let html = blocks_html(&blocks).into_string();
        assert!(html.starts_with("<p class=\"line\">device 0: 2 gaps &amp; &lt;more&gt;</p><table>"), "{html}");
        assert!(html.contains("<tr><th>at</th><th>length</th><th>cause</th><th>host in the gap</th></tr>"), "{html}");
        assert!(html.contains("<tr><td>+1.00 ms</td><td>2.00 ms</td><td>launch</td><td></td></tr>"), "{html}");
        assert_eq!(html.matches("<tr>").count(), 3, "{html}");
        // The text is the same blocks written out: the line, then the aligned table.
        let text = blocks.text();
        assert!(
            text.starts_with("device 0: 2 gaps & <more>\nat        length   cause    host in the gap\n+1.00 ms"),
            "{text}"
        );
    }
}
