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
use prof_core::families::Family;
use prof_core::kernel_summary::KernelSummary;
use prof_core::supervisor::{shell_join, shell_quote};
use prof_core::OpKind;
use serde::Serialize;
use std::ffi::OsString;

pub use prof_core::answer::{DOMINANT_RATIO, DOMINANT_SHARE_PCT};

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
    #[schemars(with = "Option<crate::sections::Analyses>")]
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
    /// The answer: the headline with its evidence, remedy, next step and the time account
    /// (added in 0.6.0; see `crate::answer_view`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<&'a crate::answer_view::AnswerView>,
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
            answer: None,
        }
    }
}

/// Where a deep-dive suggestion may be offered, and what it skips.
pub struct DeepDiveContext<'a> {
    /// The vendor of the data has a single-kernel deep dive (NVIDIA's ncu; not Ascend).
    pub available: bool,
    /// Launches of each kernel (by name id; the window keeps its timeline's names) before the
    /// window the summary describes (its warm-up and load).
    pub launches_before: Option<&'a prof_core::intern::FxHashMap<prof_core::intern::NameId, u64>>,
}

/// True when the backend named `vendor` (a [`prof_core::Format`]'s vendor), or the one whose
/// breakdown tool is `tool`, has a deep dive; with neither (the embedded NVIDIA profile), true.
pub fn deep_dive_available(registry: &prof_core::Registry, vendor: Option<&str>, tool: Option<&str>) -> bool {
    if vendor.is_none() && tool.is_none() {
        return true;
    }
    registry.vendors().iter().any(|v| {
        vendor.is_none_or(|name| v.name() == name)
            && tool.is_none_or(|name| v.breakdown_tools().iter().any(|t| t.name() == name))
            && v.deep_dive().is_some()
    })
}

/// Launches skipped past the warm-up beyond those before the steady state: the first steady
/// launches still see cold caches and clocks.
pub const WARM_LAUNCHES: u64 = 2;

/// The kernel a deep dive should look at, and how to reach a warm launch of it.
#[derive(Debug, Clone, PartialEq)]
pub struct DeepDiveTarget {
    /// Its full name, as the trace has it.
    pub kernel: String,
    /// Its share of device time, percent.
    pub share_pct: f64,
    /// The regex for `--kernel`: the function name anchored.
    pub regex: String,
    /// `--launch-skip`: its launches before the steady window and [`WARM_LAUNCHES`] more.
    pub launch_skip: u64,
}

impl DeepDiveTarget {
    /// The `prof deep-dive` command line for `command` (`CMD...` when there is none).
    pub fn command(&self, command: &[OsString]) -> String {
        let cmd = if command.is_empty() { "CMD...".to_owned() } else { shell_join(command) };
        format!(
            "prof deep-dive --kernel {} --launch-skip {} --launch-count 1 -- {cmd}",
            shell_quote(&self.regex),
            self.launch_skip
        )
    }
}

/// The kernel the answer sends to a deep dive ([`prof_core::answer::Next::DeepDive`]: one
/// kernel dominates a busy device and nothing larger can be won back), when the vendor has a
/// deep dive (a deep dive replays the kernel and is slow, so it follows only from that
/// headline). The regex is the kernel's function name anchored (`^name$`, the name ncu
/// matches by default), and the launch-skip passes its launches before the steady state and
/// [`WARM_LAUNCHES`] more.
pub fn dominant_kernel(
    summary: &KernelSummary,
    context: &DeepDiveContext,
    answer: &prof_core::answer::Answer,
) -> Option<DeepDiveTarget> {
    if !context.available {
        return None;
    }
    let (kernel, _) = answer.deep_dive()?;
    let top = summary
        .kernels
        .iter()
        .find(|k| k.kind == OpKind::Kernel && k.family != Family::Collective && k.name == kernel)?;
    let launch_skip =
        context.launches_before.and_then(|before| before.get(&top.name_id)).copied().unwrap_or(0) + WARM_LAUNCHES;
    Some(DeepDiveTarget {
        kernel: top.name.clone(),
        share_pct: top.share_pct,
        regex: format!("^{}$", regex_escape(function_name(&top.name))),
        launch_skip,
    })
}

/// The function name of a demangled kernel signature, as ncu's default `--kernel-name-base
/// function` sees it: no return type, namespaces, template arguments or parameters
/// (`void at::native::elementwise_kernel<128, 4, …>(int, …)` → `elementwise_kernel`).
pub fn function_name(signature: &str) -> &str {
    let end = crate::render::signature_end(signature).unwrap_or(signature.len());
    let mut head = signature[..end].trim_end();
    // The function's own template arguments, matched backwards from the end.
    if head.ends_with('>') {
        let mut depth = 0i32;
        for (at, c) in head.char_indices().rev() {
            match c {
                '>' => depth += 1,
                '<' => {
                    depth -= 1;
                    if depth == 0 {
                        head = &head[..at];
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    // The last word is the qualified name (a return type such as `void` comes before it).
    let qualified = head.rsplit(' ').next().unwrap_or(head);
    match qualified.rsplit("::").next() {
        Some(name) if !name.is_empty() => name,
        _ => signature,
    }
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
    render_with(summary, Some(diagnosis), top)
}

/// The human report of `prof analyze --summary-only`: no diagnosis ran, so it says so, and an
/// empty table cannot say why.
pub fn render_text_summary_only(summary: &KernelSummary, top: usize) -> String {
    render_with(summary, None, top)
}

fn render_with(summary: &KernelSummary, diagnosis: Option<&DiagnosisReport>, top: usize) -> String {
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
        // The diagnosis says why there are no ops, unless the source is a utilization recording.
        out.push_str(match diagnosis.map(|d| d.get(DiagnosisKind::NoDeviceActivity).is_some()) {
            Some(true) => "no device ops, so no kernel or family table (the diagnosis says what the source holds)\n",
            Some(false) => "no device ops: a utilization recording (counters only), so no kernel or family table\n",
            None => {
                "no device ops, so no kernel or family table (`prof analyze` without --summary-only says what the \
                 source holds)\n"
            }
        });
    } else {
        kernel_tables(summary, top, &mut out);
    }
    let Some(diagnosis) = diagnosis else {
        out.push_str("\ndiagnosis: not run (--summary-only)\n");
        return out;
    };
    out.push_str("\ndiagnosis:\n");
    if diagnosis.findings.is_empty() {
        out.push_str("  no pattern rule fired (the answer above weighs the time account)\n");
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
    let shown = summary.top(top);
    // The other columns take about 56 characters (rank, family, calls, total, mean, share).
    let names = shorten_distinct(&shown.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), name_width(56));
    for (rank, (k, name)) in shown.iter().zip(names).enumerate() {
        rows.push(vec![
            (rank + 1).to_string(),
            name,
            k.family.as_str().to_owned(),
            k.calls.to_string(),
            human_ns(k.total_ns as f64),
            human_ns(k.mean_ns),
            format!("{:.1} %", k.share_pct),
        ]);
    }
    out.push_str(&table(&rows));
    if summary.kernels.len() > top {
        let more = prof_core::units::count((summary.kernels.len() - top) as u64, "more kernel");
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
                prof_core::units::count(f.calls, "call"),
                prof_core::units::count(f.kernels as u64, "kernel"),
            ]
        })
        .collect();
    out.push_str(&table(&families));
}

#[cfg(test)]
#[path = "breakdown_view_tests.rs"]
mod tests;
