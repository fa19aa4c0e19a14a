//! How a kernel breakdown is shown, shared by `prof breakdown` and `prof analyze`: the ranked
//! kernel table, family totals, device busy against wall time, the diagnosis with its
//! evidence, and the deep-dive suggestion when one kernel dominates.
//!
//! `--json` schema `prof.breakdown.v1`: `{"schema", "source", "partial": string|null,
//! "summary": KernelSummary (kernels ranked by total time, families, devices), "diagnosis":
//! DiagnosisReport, "artifacts": [string], "how_to_open": string|null, "deep_dive": string|null, "analyses": {section
//! key: value} (timelines only; see `crate::sections`), "phases": PhaseView (timelines only; see
//! `crate::phases_view`: the phases found and the window every other field describes, the
//! steady state unless `--phase` says otherwise; added in 0.3.0)}`.

use crate::render::{ellipsize, human_ns, table};
use prof_core::diagnosis::DiagnosisReport;
use prof_core::families::Family;
use prof_core::kernel_summary::KernelSummary;
use prof_core::supervisor::shell_quote;
use prof_core::OpKind;
use serde::Serialize;
use std::ffi::OsString;

/// A kernel dominates (and is worth a slow deep dive) at this share of device time…
pub const DOMINANT_SHARE_PCT: f64 = 40.0;
/// …when it also takes at least this many times the second kernel's time.
pub const DOMINANT_RATIO: f64 = 2.0;

/// The `--json` document of a breakdown.
#[derive(Debug, Serialize)]
pub struct BreakdownReport<'a> {
    /// Always `prof.breakdown.v1`.
    pub schema: &'static str,
    /// Where the timeline came from.
    pub source: &'a str,
    /// Set when the artifact was cut short.
    pub partial: Option<&'a str>,
    /// Ranked kernels, families, device time.
    pub summary: &'a KernelSummary,
    /// Findings with evidence.
    pub diagnosis: &'a DiagnosisReport,
    /// Artifact files of a capture.
    pub artifacts: Vec<String>,
    /// How to open the artifact.
    pub how_to_open: Option<&'a str>,
    /// The suggested deep-dive command, when one kernel dominates.
    pub deep_dive: Option<String>,
    /// The timeline analyses (see `crate::sections`), keyed by section; absent for
    /// summary-only artifacts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analyses: Option<serde_json::Value>,
    /// The phases of the run and the window the answers describe (see `crate::phases_view`);
    /// absent for summary-only artifacts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phases: Option<&'a crate::phases_view::PhaseView>,
    /// For a `prof util --csv` recording: the verdict of `prof util` on it (added in 0.3.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub util_verdict: Option<&'a prof_core::Verdict>,
    /// How the artifact was recognised (added in 0.5.0): `vendor`, `name` (the reader),
    /// `certainty` (`name`, `content` or `signature`), `reason`, and `inner` (the file read
    /// when a directory was given that holds one artifact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'a prof_core::Format>,
}

impl<'a> BreakdownReport<'a> {
    /// The document for `summary` and `diagnosis`, with what a capture adds (artifacts, how
    /// to open them) and the deep-dive suggestion.
    pub fn new(
        summary: &'a KernelSummary,
        diagnosis: &'a DiagnosisReport,
        artifacts: Vec<String>,
        how_to_open: Option<&'a str>,
        deep_dive: Option<String>,
    ) -> Self {
        Self {
            schema: "prof.breakdown.v1",
            source: &summary.source,
            partial: summary.partial.as_deref(),
            summary,
            diagnosis,
            artifacts,
            how_to_open,
            deep_dive,
            analyses: None,
            phases: None,
            util_verdict: None,
            format: None,
        }
    }
}

/// The deep-dive command for the top kernel, only when it dominates (a deep dive replays
/// the kernel and is slow, so it is not suggested for a flat profile).
pub fn deep_dive_suggestion(summary: &KernelSummary, command: &[OsString]) -> Option<String> {
    // Only compute kernels can be replayed by a kernel profiler: not copies, sets or collectives.
    let mut compute = summary.kernels.iter().filter(|k| k.kind == OpKind::Kernel && k.family != Family::Collective);
    let top = compute.next()?;
    let second = compute.next().map_or(0, |k| k.total_ns);
    let dominant = top.share_pct >= DOMINANT_SHARE_PCT && top.total_ns as f64 >= DOMINANT_RATIO * second as f64;
    if !dominant {
        return None;
    }
    let stem: String = top.name.split(['(', '<', ' ']).next().unwrap_or(&top.name).to_owned();
    let regex = regex_escape(&stem);
    let cmd = if command.is_empty() {
        "CMD...".to_owned()
    } else {
        command.iter().map(|a| shell_quote(&a.to_string_lossy())).collect::<Vec<_>>().join(" ")
    };
    Some(format!("prof deep-dive --kernel {} --launch-skip 5 --launch-count 1 -- {cmd}", shell_quote(&regex)))
}

fn regex_escape(text: &str) -> String {
    text.chars().fold(String::new(), |mut out, c| {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

/// The human report.
pub fn render_text(summary: &KernelSummary, diagnosis: &DiagnosisReport, top: usize) -> String {
    let mut out = format!("source: {}\n", summary.source);
    if let Some(partial) = &summary.partial {
        out.push_str(&format!("PARTIAL: {partial}\n"));
    }
    for d in &summary.devices {
        out.push_str(&format!(
            "device {}: busy {} of {} wall ({:.1} %), {} ops\n",
            d.device,
            human_ns(d.busy_ns as f64),
            human_ns(d.wall_ns as f64),
            d.busy_pct,
            d.ops
        ));
    }
    out.push('\n');
    if summary.kernels.is_empty() {
        out.push_str("no device ops: a utilization recording (counters only), so no kernel or family table\n");
    } else {
        kernel_tables(summary, top, &mut out);
    }
    out.push_str("\ndiagnosis:\n");
    if diagnosis.findings.is_empty() {
        out.push_str("  no rule fired\n");
    }
    for finding in &diagnosis.findings {
        out.push_str(&format!("  - {}\n", finding.headline));
        for line in &finding.evidence {
            out.push_str(&format!("      {line}\n"));
        }
    }
    out
}

/// The ranked kernel table and the family totals.
fn kernel_tables(summary: &KernelSummary, top: usize, out: &mut String) {
    let mut rows = vec![["#", "kernel", "family", "calls", "total", "mean", "share"].map(str::to_owned).to_vec()];
    for (rank, k) in summary.top(top).iter().enumerate() {
        rows.push(vec![
            (rank + 1).to_string(),
            ellipsize(&k.name, 70),
            k.family.as_str().to_owned(),
            k.calls.to_string(),
            human_ns(k.total_ns as f64),
            human_ns(k.mean_ns),
            format!("{:.1} %", k.share_pct),
        ]);
    }
    out.push_str(&table(&rows));
    if summary.kernels.len() > top {
        out.push_str(&format!("… {} more kernels (--top N shows more)\n", summary.kernels.len() - top));
    }
    out.push_str("\nfamilies:\n");
    let families: Vec<Vec<String>> = summary
        .families
        .iter()
        .map(|f| {
            vec![
                format!("  {}", f.family.as_str()),
                format!("{:.1} %", f.share_pct),
                human_ns(f.total_ns as f64),
                format!("{} calls", f.calls),
                format!("{} kernels", f.kernels),
            ]
        })
        .collect();
    out.push_str(&table(&families));
}
