//! `prof analyze --summary-only PATH`: only the ranked kernel and family tables (and, for an
//! Ascend op table, the per-op-type totals), for very large inputs where the timeline
//! analyses are not wanted. An Ascend `kernel_details.csv` / `op_summary_*.csv` is aggregated
//! while it streams, without building the timeline; an nsys SQLite export is read for its
//! device ops only; other formats are loaded as usual and summarised, skipping the diagnosis
//! and the analysis sections.

use crate::breakdown_view::{render_text_summary_only, BreakdownReport};
use crate::deep_dive_target::{deep_dive_available, dominant_kernel, DeepDiveContext};
use crate::failure::{Failure, Kind};
use crate::render::{human_ns, print_json, table};
use prof_core::diagnosis::DiagnosisReport;
use prof_core::families::Families;
use prof_core::kernel_summary::{summarize_kernels, KernelSummary};
use prof_core::{Registry, Timeline};
use std::path::Path;
use std::process::ExitCode;

/// Tasks and time of one op type, as `--summary-only` lists them.
type TypeRow = prof_core::OpTypeTotal;

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
    let (summary, op_types, vendor) = {
        let _loading = crate::progress::loading(path);
        load(registry, path, families)?
    };
    let available = deep_dive_available(registry, Some(vendor), None);
    print(&summary, op_types.as_deref(), vec![path.display().to_string()], json, top, available)?;
    write_html(html, &summary, top)?;
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
    print(&summary, None, Vec::new(), json, top, true)?;
    write_html(html, &summary, top)?;
    Ok(ExitCode::SUCCESS)
}

/// The HTML report of the summary alone (no timeline plots, no analysis sections).
fn write_html(html: Option<&Path>, summary: &KernelSummary, top: usize) -> Result<(), String> {
    if let Some(path) = html {
        let answer = crate::html_report::Answer { diagnosis: None, answer: None, top };
        crate::html_report::write_breakdown(path, None, summary, &[], &answer)?;
        eprintln!("wrote {} (the summary tables only: --summary-only; open in a browser)", path.display());
    }
    Ok(())
}

fn load(
    registry: &Registry,
    path: &Path,
    families: &Families,
) -> Result<(KernelSummary, Option<Vec<TypeRow>>, &'static str), Failure> {
    let (streamed, format) = registry
        .load_summary(path, families)
        .map_err(|e| Failure::from(e).or_kind(Kind::BadInput).at_path(path.display().to_string()))?;
    Ok((streamed.summary, streamed.op_types, format.vendor))
}

fn print(
    summary: &KernelSummary,
    op_types: Option<&[TypeRow]>,
    artifacts: Vec<String>,
    json: bool,
    top: usize,
    deep_dive: bool,
) -> Result<(), String> {
    let diagnosis = DiagnosisReport { findings: Vec::new(), steps: None };
    if json {
        let dive = DeepDiveContext { available: deep_dive, launches_before: None };
        // The answer of a kernel table (no timeline: idle unexplained) decides the deep dive.
        let answer = prof_core::answer::answer(&prof_core::answer::Inputs::of_summary(summary));
        let next = dominant_kernel(summary, &dive, &answer).map(|t| t.command(&[]));
        let mut report = BreakdownReport::new(summary, &diagnosis, artifacts, None, next);
        report.analyses = op_types.map(|types| serde_json::json!({ "op_types": types }));
        return print_json(&report);
    }
    out!("{}", render_text_summary_only(summary, top));
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
