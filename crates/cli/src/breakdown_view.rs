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

use crate::render::{human_ns, name_width, shorten_distinct, table};
use prof_core::diagnosis::{DiagnosisKind, DiagnosisReport};
use prof_core::kernel_summary::KernelSummary;
use serde::Serialize;

/// The `--json` document of a breakdown.
#[derive(Debug, Serialize, schemars::JsonSchema)]
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
    #[schemars(with = "Option<crate::sections::AnalysesSchema>")]
    pub analyses: Option<serde_json::Value>,
    /// The phases of the run and the window the answers describe (see `crate::phases_view`);
    /// absent for summary-only artifacts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phases: Option<&'a prof_core::report::PhaseView>,
    /// For a `prof util --csv` recording: the verdict of `prof util` on it (added in 0.3.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub util_verdict: Option<&'a prof_core::Verdict>,
    /// How the artifact was recognised (added in 0.5.0): `vendor`, `name` (the reader),
    /// `certainty` (`name`, `content` or `signature`), `reason`, and `inner` (the file read
    /// when a directory was given that holds one artifact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'a prof_core::Format>,
    /// The accelerator the source says it was recorded on, read from the source itself
    /// (added in 0.6.0): `AMD Instinct MI300X VF`, `MTIA (ARTEMIS)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_on: Option<&'a str>,
    /// Events the reader saw but does not read, by kind, with counts, largest first (added in
    /// 0.6.0): what the report cannot show.
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    pub unread: &'a [(String, u64)],
    /// The answer: the headline with its evidence, remedy, next step and the time account
    /// (added in 0.6.0; see `crate::answer_view`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<&'a crate::answer_view::AnswerView>,
    /// For a capture (`prof breakdown`, `prof profile`): where its window opened and how long
    /// it was asked to stay open (added in 0.7.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture_window: Option<CaptureWindow>,
    /// Under a job launcher: the rank summary written beside the capture, for `prof analyze DIR`
    /// to merge (added in 0.7.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_summary: Option<String>,
}

/// Where a capture's window opened (`capture_window` of `prof.breakdown.v1`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CaptureWindow {
    /// `time` (a time after the start), `auto` (on the work: the program's profiler start or
    /// second step range, else the end of the load), `profiler`, `range`, `kernel`.
    pub opens_on: &'static str,
    /// In words: `at the work (…)`, `3.2 s after the start`, `at the range `step*``.
    pub opens: String,
    /// For `time`: nanoseconds after the command's start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_ns: Option<u64>,
    /// How long the window was asked to stay open, in nanoseconds.
    pub length_ns: u64,
    /// Why it opened there when prof chose the time: the utilization pre-pass, `prof
    /// profile`'s utilization step, or the retry after an `auto` window that never opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen_by: Option<String>,
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
            partial: summary.partial.as_deref().inspect(|_| crate::render::note_partial()),
            summary,
            diagnosis,
            artifacts,
            how_to_open,
            deep_dive,
            analyses: None,
            phases: None,
            util_verdict: None,
            format: None,
            recorded_on: None,
            unread: &[],
            answer: None,
            capture_window: None,
            rank_summary: None,
        }
    }
}

/// The human report.
pub fn render_text(summary: &KernelSummary, diagnosis: &DiagnosisReport, top: usize) -> String {
    render_with(summary, Some(diagnosis), top)
}

/// The human report of `prof analyze --summary-only`: no diagnosis ran, so it says so, and an
/// empty table cannot say why.
pub fn render_text_summary_only(summary: &KernelSummary, top: usize) -> String {
    render_with(summary, None, top)
}

fn render_with(summary: &KernelSummary, diagnosis: Option<&DiagnosisReport>, top: usize) -> String {
    let width = crate::wrap::width();
    let mut head = format!("source: {}\n", summary.source);
    if let Some(partial) = &summary.partial {
        crate::render::note_partial();
        head.push_str(&format!("PARTIAL: {partial}\n"));
    }
    for d in &summary.devices {
        head.push_str(&format!(
            "device {}: busy {} of {} wall ({:.1} %), {} ops\n",
            d.device,
            human_ns(d.busy_ns as f64),
            human_ns(d.wall_ns as f64),
            d.busy_pct,
            d.ops
        ));
    }
    // The source, partial and device lines are prose; the tables after them are not.
    let mut out = crate::wrap::wrap(&head, width);
    out.push('\n');
    if summary.kernels.is_empty() {
        // The diagnosis says why there are no ops, unless the source is a utilization recording.
        let why = match diagnosis.map(|d| d.get(DiagnosisKind::NoDeviceActivity).is_some()) {
            Some(true) => "no device ops, so no kernel or family table (the diagnosis says what the source holds)\n",
            Some(false) => "no device ops: a utilization recording (counters only), so no kernel or family table\n",
            None => {
                "no device ops, so no kernel or family table (`prof analyze` without --summary-only says what the \
                 source holds)\n"
            }
        };
        out.push_str(&crate::wrap::wrap(why, width));
    } else {
        kernel_tables(summary, top, &mut out);
    }
    let Some(diagnosis) = diagnosis else {
        out.push_str("\ndiagnosis: not run (--summary-only)\n");
        return out;
    };
    let mut prose = String::from("\ndiagnosis:\n");
    if diagnosis.findings.is_empty() {
        prose.push_str("  no pattern rule fired (the answer above weighs the time account)\n");
    }
    for finding in &diagnosis.findings {
        prose.push_str(&format!("  - {}\n", finding.headline));
        for line in &finding.evidence {
            prose.push_str(&format!("      {line}\n"));
        }
    }
    out.push_str(&crate::wrap::wrap(&prose, width));
    out
}

/// The ranked kernel table and the family totals.
fn kernel_tables(summary: &KernelSummary, top: usize, out: &mut String) {
    // Below 100 columns the mean (total / calls; in the JSON) gives its room to the names,
    // which then keep about 35 characters in 80 columns instead of 24.
    let with_mean = crate::wrap::width() >= 100;
    let mut header = vec!["#", "kernel", "family", "calls", "total", "mean", "share"];
    if !with_mean {
        header.retain(|h| *h != "mean");
    }
    let mut rows = vec![header.into_iter().map(str::to_owned).collect::<Vec<_>>()];
    let shown = summary.top(top);
    // The other columns take about 56 characters (rank, family, calls, total, mean, share).
    let other = if with_mean { 56 } else { 45 };
    let names = shorten_distinct(&shown.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), name_width(other));
    for (rank, (k, name)) in shown.iter().zip(names).enumerate() {
        let mut row = vec![
            (rank + 1).to_string(),
            name,
            k.family.as_str().to_owned(),
            k.calls.to_string(),
            human_ns(k.total_ns as f64),
        ];
        if with_mean {
            row.push(human_ns(k.mean_ns));
        }
        row.push(format!("{:.1} %", k.share_pct));
        rows.push(row);
    }
    out.push_str(&table(&rows));
    if summary.kernels.len() > top {
        let more = prof_timeline::units::count((summary.kernels.len() - top) as u64, "more kernel");
        out.push_str(&format!("… {more} (--top N shows more; --wide prints whole names)\n"));
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
                prof_timeline::units::count(f.calls, "call"),
                prof_timeline::units::count(f.kernels as u64, "kernel"),
            ]
        })
        .collect();
    out.push_str(&table(&families));
}
