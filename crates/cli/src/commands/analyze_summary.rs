//! `prof analyze --summary-only PATH`: only the ranked kernel and family tables (and, for an
//! Ascend op table, the per-op-type totals), for very large inputs where the timeline
//! analyses are not wanted. An Ascend `kernel_details.csv` / `op_summary_*.csv` is aggregated
//! while it streams, without building the timeline; an nsys SQLite export is read for its
//! device ops only; other formats are loaded as usual and summarised, skipping the diagnosis
//! and the analysis sections.

use super::analyze::{load_any, Loaded};
use crate::breakdown_view::{deep_dive_suggestion, render_text, BreakdownReport};
use crate::failure::{Failure, Kind};
use crate::render::{human_ns, print_json, table};
use prof_core::diagnosis::DiagnosisReport;
use prof_core::families::Families;
use prof_core::kernel_summary::{summarize_kernels, KernelSummary};
use prof_core::{Registry, Timeline};
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;

/// Tasks and time of one op type, as `--summary-only` lists them.
#[derive(Debug, Clone, Serialize)]
struct TypeRow {
    #[serde(rename = "type")]
    op_type: String,
    calls: u64,
    total_ns: u64,
    share_pct: f64,
}

/// Runs `prof analyze --summary-only` on `path`; with `html`, also writes the HTML report of
/// the summary tables there.
pub fn run(
    registry: &Registry,
    path: &Path,
    families: &Families,
    json: bool,
    top: usize,
    html: Option<&Path>,
) -> Result<ExitCode, Failure> {
    let (summary, op_types) = {
        let _loading = crate::progress::loading(path);
        load(registry, path, families)?
    };
    print(&summary, op_types.as_deref(), vec![path.display().to_string()], json, top)?;
    write_html(html, &summary)?;
    Ok(ExitCode::SUCCESS)
}

/// `--summary-only` over an already loaded timeline (the embedded default).
pub fn run_timeline(
    timeline: &Timeline,
    families: &Families,
    json: bool,
    top: usize,
    html: Option<&Path>,
) -> Result<ExitCode, Failure> {
    let summary = summarize_kernels(timeline, families);
    print(&summary, None, Vec::new(), json, top)?;
    write_html(html, &summary)?;
    Ok(ExitCode::SUCCESS)
}

/// The HTML report of the summary alone (no timeline plots, no analysis sections).
fn write_html(html: Option<&Path>, summary: &KernelSummary) -> Result<(), String> {
    if let Some(path) = html {
        crate::html_report::write_breakdown(path, None, summary, &[])?;
        eprintln!("wrote {} (the summary tables only: --summary-only; open in a browser)", path.display());
    }
    Ok(())
}

fn load(
    registry: &Registry,
    path: &Path,
    families: &Families,
) -> Result<(KernelSummary, Option<Vec<TypeRow>>), Failure> {
    #[cfg(feature = "ascend")]
    {
        use prof_backend_ascend::importers::OpTableImporter;
        use prof_core::Importer;
        if OpTableImporter.recognizes(path) {
            let streamed = prof_backend_ascend::op_table_summary::summarize(path, families)
                .map_err(|e| Failure::from(prof_core::Error::from(e)).or_kind(Kind::BadInput))?;
            let types = streamed
                .op_types
                .into_iter()
                .map(|t| TypeRow { op_type: t.op_type, calls: t.calls, total_ns: t.total_ns, share_pct: t.share_pct })
                .collect();
            return Ok((streamed.summary, Some(types)));
        }
    }
    #[cfg(feature = "nvidia")]
    if prof_backend_nvidia::nsys_sqlite::is_nsys_export(path) {
        // Kernels, copies and sets only: the runtime and NVTX tables add nothing to a summary.
        let summary = prof_backend_nvidia::nsys_sqlite::summarize_device_ops(path, families);
        return summary.map(|s| (s, None)).map_err(|e| Failure::from(e).or_kind(Kind::BadInput));
    }
    match load_any(registry, path, families)? {
        Loaded::Timeline(timeline) => Ok((summarize_kernels(&timeline, families), None)),
        Loaded::Summary(summary) => Ok((summary, None)),
        Loaded::Kernels(_) => Err(Failure::new(
            Kind::Usage,
            format!(
                "{}: holds single-kernel deep-dive reports, not a kernel summary; run prof analyze without \
                 --summary-only",
                path.display()
            ),
        )),
    }
}

fn print(
    summary: &KernelSummary,
    op_types: Option<&[TypeRow]>,
    artifacts: Vec<String>,
    json: bool,
    top: usize,
) -> Result<(), String> {
    let diagnosis = DiagnosisReport { findings: Vec::new(), steps: None };
    if json {
        let mut report = BreakdownReport::new(summary, &diagnosis, artifacts, None, deep_dive_suggestion(summary, &[]));
        report.analyses = op_types.map(|types| serde_json::json!({ "op_types": types }));
        return print_json(&report);
    }
    let text = render_text(summary, &diagnosis, top);
    // The diagnosis did not run: say so rather than "no rule fired".
    match text.split_once("\ndiagnosis:\n") {
        Some((tables, _)) => out!("{tables}\ndiagnosis: not run (--summary-only)\n"),
        None => out!("{text}"),
    }
    if let Some(types) = op_types {
        outln!("\nop types ({}), longest total first:", types.len());
        let mut rows = vec![["op type", "calls", "total", "share"].map(String::from).to_vec()];
        for t in types.iter().take(top) {
            rows.push(vec![
                t.op_type.clone(),
                t.calls.to_string(),
                human_ns(t.total_ns as f64),
                format!("{:.1} %", t.share_pct),
            ]);
        }
        out!("{}", table(&rows));
    }
    Ok(())
}
