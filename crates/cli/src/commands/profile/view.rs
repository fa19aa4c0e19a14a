//! The `prof profile` report: what each step found, where it stopped and why.
//!
//! `--json` prints schema `prof.profile.v1`: `{"schema", "command": [string], "vendor",
//! "max_depth": "util"|"breakdown"|"deep-dive", "stopped_after": "util"|"breakdown"|"deep-dive",
//! "answer": string (the deepest step's headline), "why": string (why it stopped there),
//! "steps": [Step]}`. A step is `{"name", "ran": bool, "tool": string|null, "headline",
//! "evidence": [string], "skipped": string|null (why a step the answers called for did not
//! run), "artifacts": [{"path", "bytes", "open"}], "rerun": string (the command that runs the
//! step alone), "document": the step's own document (`prof.util.v1`, `prof.breakdown.v1`,
//! `prof.deep-dive.v1`) or null}`. Lists are bounded as every `--json` document is.

use super::ProfileArgs;
use crate::commands::{breakdown, deep_dive};
use crate::render::display_name;
use maud::{html, Markup};
use serde::Serialize;
use std::ffi::OsString;
use std::path::PathBuf;

/// How deep `prof profile` may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
pub enum Depth {
    /// Utilization only.
    #[serde(rename = "util")]
    Util,
    /// Utilization, then a kernel breakdown.
    #[serde(rename = "breakdown")]
    Breakdown,
    /// All three, the deep dive only on a dominant kernel.
    #[serde(rename = "deep-dive")]
    DeepDive,
}

impl Depth {
    /// Parses `--max-depth`.
    pub fn parse(text: &str) -> Result<Depth, String> {
        match text {
            "util" => Ok(Depth::Util),
            "breakdown" => Ok(Depth::Breakdown),
            "deep-dive" | "deep_dive" => Ok(Depth::DeepDive),
            other => Err(format!("`{other}` is not a step: use util, breakdown or deep-dive")),
        }
    }
}

/// An artifact a step kept.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Artifact {
    /// Its path.
    pub path: String,
    /// Its size.
    pub bytes: u64,
    /// How to open it.
    pub open: String,
}

/// One step of the method.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Step {
    /// `util`, `breakdown` or `deep-dive`.
    pub name: &'static str,
    /// False for a step the answers called for that did not run (see `skipped`).
    pub ran: bool,
    /// The capture tool, for a breakdown or a deep dive.
    pub tool: Option<String>,
    /// What it found, in one line.
    pub headline: String,
    /// The numbers behind it.
    pub evidence: Vec<String>,
    /// Why a step did not run.
    pub skipped: Option<String>,
    /// How a step failed, after the steps before it answered (`prof.error.v1`; added in 0.6.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<crate::failure::Failure>,
    /// Files it kept.
    pub artifacts: Vec<Artifact>,
    /// The command that runs this step alone.
    pub rerun: String,
    /// The step's own document.
    pub document: Option<serde_json::Value>,
    /// The step's own report, for people.
    #[serde(skip)]
    pub text: String,
}

impl Step {
    /// A step that ran.
    pub fn ran(name: &'static str, headline: &str, evidence: Vec<String>, rerun: String) -> Step {
        Step {
            name,
            ran: true,
            tool: None,
            headline: headline.to_owned(),
            evidence,
            skipped: None,
            failed: None,
            artifacts: Vec::new(),
            rerun,
            document: None,
            text: String::new(),
        }
    }
}

/// The `prof.profile.v1` document.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ProfileReport {
    /// Always `prof.profile.v1`.
    pub schema: &'static str,
    /// The workload.
    pub command: Vec<String>,
    /// The vendor found.
    pub vendor: &'static str,
    /// `--max-depth`.
    pub max_depth: Depth,
    /// The last step that ran.
    pub stopped_after: &'static str,
    /// The deepest step's headline.
    pub answer: String,
    /// Why it stopped there.
    pub why: String,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

impl ProfileReport {
    /// An empty report for `command`.
    pub fn new(command: &[OsString], vendor: &'static str, max_depth: Depth) -> Self {
        Self {
            schema: "prof.profile.v1",
            command: command.iter().map(|a| a.to_string_lossy().into_owned()).collect(),
            vendor,
            max_depth,
            stopped_after: "",
            answer: String::new(),
            why: String::new(),
            steps: Vec::new(),
        }
    }

    /// Ends the report after `step`.
    pub fn stop(&mut self, step: &'static str, answer: &str, why: &str) {
        self.stopped_after = step;
        self.answer = answer.to_owned();
        self.why = why.to_owned();
    }

    /// Records a step the answers called for that did not run.
    pub fn skip(&mut self, name: &'static str, why: &str, rerun: String) {
        let mut step = Step::ran(name, "not run", Vec::new(), rerun);
        step.ran = false;
        step.skipped = Some(why.to_owned());
        self.steps.push(step);
    }
}

/// The plan, shown before anything runs.
pub fn plan_text(report: &ProfileReport, args: &ProfileArgs, deep_dive: Option<(&str, &Result<(), String>)>) -> String {
    let mut out = format!(
        "prof profile on {}: up to three steps, each a run of the command, each stopping when its answer is enough\n",
        report.vendor
    );
    out.push_str(&format!(
        "  1. util       one run, sampling utilization every {} ms; stops if the device mostly waits\n",
        args.interval.as_millis()
    ));
    if report.max_depth >= Depth::Breakdown {
        let tool = args.tool.as_deref().unwrap_or("the first tool that can run");
        out.push_str(&format!(
            "  2. breakdown  if busy: one warm-up run, then one run traced with {tool} ({:.0} s window); \
             stops unless one kernel dominates\n",
            args.window.as_secs_f64()
        ));
    }
    if report.max_depth >= Depth::DeepDive {
        let how = match deep_dive {
            None => "no deep-dive tool for this vendor".to_owned(),
            Some((name, Err(error))) => format!("{name} cannot run here: {error}"),
            Some((name, Ok(()))) if args.yes => format!("one run under {name}, replaying that kernel (slow)"),
            Some((name, Ok(()))) => format!("one run under {name}, replaying that kernel (slow; asks first)"),
        };
        out.push_str(&format!("  3. deep-dive  if one kernel dominates: {how}\n"));
    }
    out
}

/// The breakdown's headline (its most serious finding, else the top kernel) and evidence.
pub fn breakdown_headline(measured: &breakdown::Measured) -> (String, Vec<String>) {
    let summary = &measured.summary;
    let answer = &measured.answer.answer;
    let mut evidence = vec![answer.evidence_line.clone()];
    if let Some(account) = &answer.account {
        evidence.push(crate::answer_view::account_line(account));
    }
    if let Some(e) = &answer.efficiency {
        evidence.push(format!("roofline: {}", crate::answer_view::efficiency_line(e)));
    }
    for family in summary.families.iter().take(3) {
        evidence.push(format!("{} {:.1} % of device time", family.family.as_str(), family.share_pct));
    }
    for kernel in summary.kernels.iter().take(3) {
        let calls = prof_timeline::units::count(kernel.calls, "call");
        evidence.push(format!("{:.1} %  {} ({calls})", kernel.share_pct, display_name(&kernel.name)));
    }
    evidence.extend(
        measured.diagnosis.findings.iter().filter(|f| f.headline != answer.headline).map(|f| f.headline.clone()),
    );
    (answer.headline.clone(), evidence)
}

/// Why the breakdown is the answer: its headline does not lead to a deep dive (a deep dive
/// follows only when one kernel dominates a busy device and nothing larger can be won back).
pub fn no_dominant_kernel(measured: &breakdown::Measured) -> String {
    let answer = &measured.answer.answer;
    match answer.verdict {
        prof_core::answer::Verdict::DominantKernel => {
            "one kernel dominates, but this vendor has no single-kernel deep dive".to_owned()
        }
        prof_core::answer::Verdict::Healthy => {
            let summary = &measured.summary;
            match summary.kernels.first() {
                Some(top) => format!(
                    "no kernel dominates (the top one, {}, is {:.1} % of device time: a deep dive needs ≥ {:.0} % and {}× the next)",
                    display_name(&top.name),
                    top.share_pct,
                    prof_core::answer::DOMINANT_SHARE_PCT,
                    prof_core::answer::DOMINANT_RATIO
                ),
                None => "the capture holds no device op".to_owned(),
            }
        }
        // Utilization saw work (the breakdown runs only then): a window this empty missed it.
        prof_core::answer::Verdict::TooLittle => format!(
            "the breakdown's window missed the work the utilization run saw ({}); next: {}",
            answer.headline, measured.answer.next_line
        ),
        _ => format!("the breakdown answers it ({}); next: {}", answer.headline, measured.answer.next_line),
    }
}

/// The deep dive's headline (its verdict) and evidence.
pub fn deep_dive_headline(
    measured: &deep_dive::Measured,
    target: &crate::deep_dive_target::DeepDiveTarget,
) -> (String, Vec<String>) {
    let Some(report) = measured.reports.first() else {
        return (format!("no launch of {} was profiled", target.regex), Vec::new());
    };
    let pct = |v: Option<f64>| v.map(|v| format!("{v:.1} %")).unwrap_or_else(|| "-".to_owned());
    let mut evidence = vec![format!(
        "compute {} and memory {} of peak",
        pct(report.compute_throughput_pct),
        pct(report.memory_throughput_pct)
    )];
    if let Some(ns) = report.duration_ns {
        evidence.push(format!("one launch: {}", crate::render::human_ns(ns)));
    }
    evidence.extend(report.findings.iter().take(3).map(|f| {
        let speedup = f.estimated_speedup_pct.map(|s| format!(" (est. {s:.1} %)")).unwrap_or_default();
        format!("{}{speedup}", f.rule)
    }));
    let headline =
        report.verdict.clone().unwrap_or_else(|| format!("{}: profiled one launch", display_name(&report.kernel)));
    (format!("{}: {headline}", display_name(&report.kernel)), evidence)
}

/// A step's artifacts with how to open them.
pub fn artifacts(files: &[(PathBuf, u64)], open: &str) -> Vec<Artifact> {
    files
        .iter()
        .map(|(path, bytes)| Artifact { path: path.display().to_string(), bytes: *bytes, open: open.to_owned() })
        .collect()
}

/// The report a person reads: the answer and the steps first, each step's own report after.
pub fn render_text(report: &ProfileReport) -> String {
    let mut out = format!("answer: {}\nstopped after {}: {}\n", report.answer, report.stopped_after, report.why);
    for (index, step) in report.steps.iter().enumerate() {
        let tool = step.tool.as_ref().map(|t| format!(" ({t})")).unwrap_or_default();
        out.push_str(&format!("\n{}. {}{tool}: ", index + 1, step.name));
        match (&step.skipped, &step.failed) {
            (Some(why), _) => out.push_str(&format!("not run: {why}\n")),
            (None, Some(failure)) => {
                out.push_str(&format!("failed (exit status {}): {}\n", failure.exit_code, failure.message))
            }
            (None, None) => out.push_str(&format!("{}\n", step.headline)),
        }
        for line in &step.evidence {
            out.push_str(&format!("   - {line}\n"));
        }
        for artifact in &step.artifacts {
            out.push_str(&format!(
                "   artifact: {} ({} bytes); open: {}\n",
                artifact.path, artifact.bytes, artifact.open
            ));
        }
        out.push_str(&format!("   rerun alone: {}\n", step.rerun));
    }
    for (index, step) in report.steps.iter().enumerate().filter(|(_, s)| s.ran) {
        out.push_str(&format!("\n=== {}. {} ===\n{}", index + 1, step.name, step.text));
    }
    out
}

/// The page (`--html`): the same report from its data, the answer and the steps first (each
/// with its headline, evidence, artifacts and the command that reruns it), then each step's
/// own report as it printed.
pub fn render_html(report: &ProfileReport) -> Markup {
    html! {
        p { b { "answer: " (report.answer) } }
        p { "stopped after " (report.stopped_after) ": " (report.why) }
        @for (index, step) in report.steps.iter().enumerate() {
            h2 {
                (index + 1) ". " (step.name)
                @if let Some(tool) = &step.tool { " (" (tool) ")" }
            }
            @match (&step.skipped, &step.failed) {
                (Some(why), _) => { p { "not run: " (why) } }
                (None, Some(failure)) => {
                    p { "failed (exit status " (failure.exit_code) "): " (failure.message) }
                }
                (None, None) => { p { b { (step.headline) } } }
            }
            ul {
                @for line in &step.evidence { li { (line) } }
                @for artifact in &step.artifacts {
                    li { "artifact: " code { (artifact.path) } " (" (artifact.bytes) " bytes); open: " code { (artifact.open) } }
                }
            }
            p { "rerun alone: " code { (step.rerun) } }
            @if step.ran && !step.text.is_empty() { pre { (step.text) } }
        }
    }
}
