//! `--html FILE`: one self-contained HTML page (no scripts, fonts or network access; inline
//! CSS and SVG drawn by [`svg`]) that a person opens in any browser. `prof analyze` and
//! `prof breakdown` write the kernel breakdown page ([`write_breakdown`]); `prof util` writes
//! utilization over time ([`write_util`]). Every piece of text is escaped: kernel names hold
//! `<`, `>` and `&`.

mod bars;
pub mod ranks;
mod strip;
pub mod svg;
mod util_plot;

use crate::render::{display_name, human_ns};
use crate::sections::RenderedSection;
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
h1{font-size:22px;overflow-wrap:anywhere}.note{overflow-wrap:anywhere}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}\
pre{background:#f6f6f6;padding:10px;overflow-x:auto;font-size:12px}\
.note{color:#666;font-size:13px}svg{display:block;margin:6px 0}\
.grid{display:flex;flex-wrap:wrap;gap:8px}\
table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left}\
td.n{text-align:right;font-variant-numeric:tabular-nums}code{background:#f6f6f6;padding:2px 4px}\
.finding{border-left:4px solid #999;padding:4px 10px;margin:8px 0}.finding ul{margin:4px 0;color:#444;font-size:13px}\
.warning{border-color:#e15759}.opportunity{border-color:#f28e2b}.info{border-color:#4e79a7}\
.swatch{display:inline-block;width:10px;height:10px;margin-right:6px}\
p.line{margin:3px 0;font-size:13px;overflow-wrap:anywhere}";

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
    let mut body = format!(
        "<p class=\"note\">source: {} · {} device ops · {} of device time{window}</p>\n",
        escape(&summary.source),
        summary.ops,
        human_ns(summary.device_ns as f64),
    );
    if let Some(partial) = &summary.partial {
        body.push_str(&format!("<p class=\"note\">partial artifact: {}</p>\n", escape(partial)));
    }
    if let Some(view) = answer.answer {
        block(&mut body, "Answer", Some(answer_html(view)));
    }
    block(&mut body, "Diagnosis", Some(diagnosis_html(answer.diagnosis)));
    block(
        &mut body,
        &format!("Top {} kernels", answer.top.min(summary.kernels.len())),
        kernel_table(summary, answer.top),
    );
    block(&mut body, "Kernel families (share of device time)", bars::family_bars(summary));
    block(
        &mut body,
        &format!("Top {} kernels (share of device time, coloured by family)", answer.top.min(summary.kernels.len())),
        bars::top_kernel_bars(summary, answer.top),
    );
    let families = summary.family_map();
    block(
        &mut body,
        "Timeline per device stream, coloured by family (idle gaps shaded red)",
        timeline.and_then(|t| strip::timeline_strip(t, &families)),
    );
    block(&mut body, "Where each device's wall time went", bars::temporal_bars(sections));
    for section in sections {
        block(&mut body, &section.title, Some(blocks_html(&section.text)));
    }
    page(&format!("prof breakdown: {}", summary.source), &body)
}

/// Typed blocks as HTML, from the data: each table an HTML table (its first row the header, a
/// blank cell kept blank), each line of running text a paragraph.
pub fn blocks_html(blocks: &crate::blocks::Blocks) -> String {
    use crate::blocks::Block;
    let mut out = String::new();
    for block in blocks.blocks() {
        match block {
            Block::Table(rows) => {
                out.push_str("<table>\n");
                for (index, row) in rows.iter().enumerate() {
                    let tag = if index == 0 { "th" } else { "td" };
                    let cells: String = row.iter().map(|c| format!("<{tag}>{}</{tag}>", escape(c.trim()))).collect();
                    out.push_str(&format!("<tr>{cells}</tr>\n"));
                }
                out.push_str("</table>\n");
            }
            Block::Text(text) => {
                for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                    out.push_str(&format!("<p class=\"line\">{}</p>\n", escape(line)));
                }
            }
        }
    }
    out
}

/// A text report's text as HTML (`prof diff`, `prof deep-dive`, whose reports are text): runs of two or more lines that split into the same number (two or
/// more) of columns at runs of two spaces (what [`crate::render::table`] writes) become a
/// table, its first line the header; every other line a paragraph.
pub fn text_to_html(text: &str) -> String {
    fn cells(line: &str) -> Vec<&str> {
        let mut cells: Vec<&str> = line.trim().split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
        // A header whose first column is blank (a row-label column) starts with a long indent.
        if line.starts_with("    ") && !cells.is_empty() {
            cells.insert(0, "");
        }
        cells
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut at = 0;
    while at < lines.len() {
        let columns = cells(lines[at]).len();
        let run = if columns >= 2 { lines[at..].iter().take_while(|l| cells(l).len() == columns).count() } else { 1 };
        if run >= 2 {
            out.push_str("<table>\n");
            for (index, line) in lines[at..at + run].iter().enumerate() {
                let tag = if index == 0 { "th" } else { "td" };
                let row: String = cells(line).iter().map(|c| format!("<{tag}>{}</{tag}>", escape(c))).collect();
                out.push_str(&format!("<tr>{row}</tr>\n"));
            }
            out.push_str("</table>\n");
        } else if !lines[at].trim().is_empty() {
            out.push_str(&format!("<p class=\"line\">{}</p>\n", escape(lines[at].trim())));
        }
        at += run;
    }
    out
}

/// The answer block: the headline, its evidence and remedy, the next step, the time account.
fn answer_html(view: &crate::answer_view::AnswerView) -> String {
    let a = &view.answer;
    let mut out =
        format!("<p><b>{}</b></p>\n<ul>\n<li>evidence: {}</li>\n", escape(&a.headline), escape(&a.evidence_line));
    if let Some(remedy) = &a.remedy {
        out.push_str(&format!("<li>remedy: {}</li>\n", escape(remedy)));
    }
    out.push_str(&format!("</ul>\n<p>next: <code>{}</code></p>\n", escape(&view.next_line)));
    if let Some(account) = &a.account {
        out.push_str(&format!(
            "<table>\n<tr><th>device {} · {}</th><th>share of the window</th><th>time</th></tr>\n",
            account.device,
            human_ns(account.wall_ns as f64)
        ));
        for part in &account.parts {
            out.push_str(&format!(
                "<tr><td>{}</td><td>{:.1} %</td><td>{}</td></tr>\n",
                escape(&crate::answer_view::part_label(part.part)),
                part.pct,
                human_ns(part.ns as f64)
            ));
        }
        out.push_str("</table>\n");
    }
    if let Some(e) = &a.efficiency {
        out.push_str(&format!("<p>roofline: {}</p>\n", escape(&crate::answer_view::efficiency_line(e))));
    }
    out
}

fn diagnosis_html(diagnosis: Option<&DiagnosisReport>) -> String {
    let Some(diagnosis) = diagnosis else {
        return "<p class=\"note\">not run (--summary-only)</p>\n".to_owned();
    };
    if diagnosis.findings.is_empty() {
        return "<p>No pattern rule fired (the answer above weighs the time account).</p>\n".to_owned();
    }
    let mut out = String::new();
    for finding in &diagnosis.findings {
        let class = match finding.severity {
            Severity::Warning => "warning",
            Severity::Opportunity => "opportunity",
            _ => "info",
        };
        out.push_str(&format!("<div class=\"finding {class}\"><b>{}</b>\n<ul>\n", escape(&finding.headline)));
        for line in &finding.evidence {
            out.push_str(&format!("<li>{}</li>\n", escape(line)));
        }
        out.push_str("</ul></div>\n");
    }
    out
}

fn kernel_table(summary: &KernelSummary, top: usize) -> Option<String> {
    let rows = summary.top(top);
    if rows.is_empty() {
        return None;
    }
    let mut out = String::from(
        "<table>\n<tr><th>#</th><th>kernel</th><th>family</th><th>calls</th><th>total</th><th>mean</th><th>share</th></tr>\n",
    );
    for (rank, k) in rows.iter().enumerate() {
        out.push_str(&format!(
            "<tr><td class=\"n\">{}</td><td title=\"{}\">{}</td><td><span class=\"swatch\" style=\"background:{}\"></span>{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1} %</td></tr>\n",
            rank + 1,
            escape(&k.name),
            escape(&crate::render::ellipsize(&display_name(&k.name), 90)),
            family_color(k.family),
            k.family.as_str(),
            k.calls,
            human_ns(k.total_ns as f64),
            human_ns(k.mean_ns),
            k.share_pct
        ));
    }
    out.push_str("</table>\n");
    Some(out)
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

/// A page of a text report (`prof diff`, `prof deep-dive`): its tables as HTML tables, its
/// other lines as paragraphs (see [`text_to_html`]).
pub fn write_text_page(path: &Path, title: &str, text: &str) -> Result<(), WriteError> {
    write_page(path, &page(title, &text_to_html(text)))
}

/// A page of a report made of typed blocks (`prof diff`): built from the blocks.
pub fn write_blocks_page(path: &Path, title: &str, blocks: &crate::blocks::Blocks) -> Result<(), WriteError> {
    write_page(path, &page(title, &blocks_html(blocks)))
}

/// Writes [`util_page`] to `path`.
pub fn write_util(path: &Path, recording: &Recording, report: &str) -> Result<(), WriteError> {
    write_page(path, &util_page(recording, report))
}

#[cfg(test)]
mod tests {
    use super::{blocks_html, text_to_html};
    use crate::blocks::Blocks;

    #[test]
    fn a_table_with_an_empty_last_column_stays_a_table_with_its_header() {
        // The idle-gap table of a trace without host spans: its last column is empty in every
        // row, which the text re-splitting read as a paragraph and a one-row-shorter header.
        let mut blocks = Blocks::from("device 0: 2 gaps\n".to_owned());
        let row = |cells: [&str; 4]| cells.map(String::from).to_vec();
        blocks.push_table(vec![
            row(["at", "length", "cause", "host in the gap"]),
            row(["+1.00 ms", "2.00 ms", "launch", ""]),
            row(["+9.00 ms", "3.00 ms", "unknown", ""]),
        ]);
        let html = blocks_html(&blocks);
        assert!(html.starts_with("<p class=\"line\">device 0: 2 gaps</p>\n<table>\n"), "{html}");
        assert!(html.contains("<tr><th>at</th><th>length</th><th>cause</th><th>host in the gap</th></tr>"), "{html}");
        assert!(html.contains("<tr><td>+1.00 ms</td><td>2.00 ms</td><td>launch</td><td></td></tr>"), "{html}");
        assert_eq!(html.matches("<tr>").count(), 3, "{html}");
        // The text is the same blocks written out: the line, then the aligned table.
        let text = blocks.text();
        assert!(text.starts_with("device 0: 2 gaps\nat        length   cause    host in the gap\n+1.00 ms"), "{text}");
    }

    #[test]
    fn section_text_tables_become_html_tables() {
        let text = "device  wall      idle\n0       4.80 ms   71.4 %\nby cause: host wait 3 (1.0 ms)\n              p50      p90\nlaunch delay  21 ms    37 ms\n";
        let html = text_to_html(text);
        assert_eq!(html.matches("<table>").count(), 2, "{html}");
        assert!(html.contains("<tr><th>device</th><th>wall</th><th>idle</th></tr>"), "{html}");
        assert!(html.contains("<tr><td>0</td><td>4.80 ms</td><td>71.4 %</td></tr>"), "{html}");
        assert!(html.contains("<p class=\"line\">by cause: host wait 3 (1.0 ms)</p>"), "{html}");
        assert!(html.contains("<tr><th></th><th>p50</th><th>p90</th></tr>"), "a blank row-label header: {html}");
    }
}
