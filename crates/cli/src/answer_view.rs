//! How the answer is shown: the first lines of every breakdown (text), the `answer` object of
//! `prof.breakdown.v1` (JSON, added in 0.6.0) and the lead block of the HTML page, all from
//! one [`AnswerView`]: core's [`Answer`] with its next step spelt out as a command line.

use crate::deep_dive_target::{DeepDiveContext, DeepDiveTarget};
use prof_core::answer::{Account, Answer, IdleCause, Next, Part};
use prof_core::kernel_summary::KernelSummary;
use serde::Serialize;
use std::ffi::OsString;

/// The answer with its next step as a line a person can run or follow.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct AnswerView {
    /// The answer (core's typed verdict, headline, evidence, account).
    #[serde(flatten)]
    pub answer: Answer,
    /// The next step as a command line (or, where there is nothing to run, a sentence).
    pub next_line: String,
    /// The command of the next step alone, where it has one (added in 0.7.0): what to run,
    /// without the sentence around it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_command: Option<String>,
    /// The sentence before the command, where both are (the text puts the command on a line of
    /// its own; not in the JSON: `next_line` has it).
    #[serde(skip)]
    #[schemars(skip)]
    next_prose: Option<&'static str>,
    /// The deep-dive target, when the next step is one (not in the JSON: `next_line` has it).
    #[serde(skip)]
    #[schemars(skip)]
    pub target: Option<DeepDiveTarget>,
}

/// Where the answer came from, for the command lines of its next step.
pub struct Origin<'a> {
    /// The user's command (empty when the data came from a file).
    pub command: &'a [OsString],
    /// The artifact read, when there is one.
    pub path: Option<&'a str>,
}

impl AnswerView {
    /// `answer` with its next step spelt out: a deep dive of the dominant kernel (where the
    /// vendor has one), the capture that gets more evidence, the comparison after a remedy.
    pub fn new(answer: Answer, summary: &KernelSummary, dive: &DeepDiveContext, origin: &Origin) -> Self {
        let cmd = if origin.command.is_empty() {
            "CMD...".to_owned()
        } else {
            prof_core::run_plan::shell_join(origin.command)
        };
        let target = crate::deep_dive_target::dominant_kernel(summary, dive, &answer);
        let (prose, next_command) = match (&answer.next, &target) {
            (Next::DeepDive { .. }, Some(target)) => (None, Some(target.command(origin.command))),
            (Next::DeepDive { .. }, None) => (
                Some("no single-kernel deep dive for this source's vendor: the kernel table below is the answer"),
                None,
            ),
            (Next::CaptureMore, _) => {
                (Some("capture more"), Some(format!("prof breakdown --skip auto --window 30s -- {cmd}")))
            }
            (Next::Breakdown, _) => (Some("see which kernels take the time"), Some(format!("prof breakdown -- {cmd}"))),
            (Next::ApplyAndCompare, _) => {
                let before = origin.path.map_or_else(|| "BEFORE".to_owned(), prof_core::run_plan::shell_quote);
                (Some("apply the remedy, capture again, then compare"), Some(format!("prof diff {before} AFTER")))
            }
            (Next::Done, _) => (
                Some(
                    "nothing more to capture: no kernel dominates, so a deep dive would explain little; the tables \
                     below rank kernels and families",
                ),
                None,
            ),
        };
        let next_line = match (prose, &next_command) {
            (Some(prose), Some(command)) => format!("{prose}: {command}"),
            (Some(prose), None) => prose.to_owned(),
            (None, command) => command.clone().unwrap_or_default(),
        };
        let next_prose = prose.filter(|_| next_command.is_some());
        Self { answer, next_line, next_command, next_prose, target }
    }

    /// The deep-dive command, when the answer leads to one (then it is the next line).
    pub fn deep_dive_command(&self) -> Option<String> {
        self.target.as_ref().map(|_| self.next_line.clone())
    }

    /// The text lines that open the report: the headline, the next step (its command on a
    /// line of its own, whole, so it can be copied), the evidence, the remedy and the time
    /// account, wrapped to the terminal ([`crate::wrap`]).
    pub fn render_text(&self) -> String {
        let a = &self.answer;
        let width = crate::wrap::width();
        let mut out = crate::wrap::wrap(&format!("answer: {}\n", a.headline), width);
        match (&self.next_command, self.next_prose) {
            (Some(command), Some(prose)) => {
                out.push_str(&crate::wrap::wrap(&format!("  next: {prose}:\n"), width));
                out.push_str(&format!("    {command}\n"));
            }
            // The command alone: on the label's line when it fits, else on a line of its own.
            (Some(command), _) if command.chars().count() + 8 <= width => out.push_str(&format!("  next: {command}\n")),
            (Some(command), _) => out.push_str(&format!("  next: see why it is slow:\n    {command}\n")),
            (None, _) => out.push_str(&crate::wrap::wrap(&format!("  next: {}\n", self.next_line), width)),
        }
        let mut rest = format!("  evidence: {}\n", a.evidence_line);
        if let Some(remedy) = &a.remedy {
            rest.push_str(&format!("  remedy: {remedy}\n"));
        }
        if let Some(account) = &a.account {
            rest.push_str(&format!("  time: {}\n", account_line(account)));
        }
        if let Some(e) = &a.efficiency {
            rest.push_str(&format!("  roofline: {}\n", efficiency_line(e)));
        }
        out.push_str(&crate::wrap::wrap(&rest, width));
        out
    }
}

/// `ops with shapes (62.0 % of kernel time, 1.20 ms, 36 calls) run at 71.3 % of their
/// H200 SXM roofline bound: 345.1 µs above it`.
pub fn efficiency_line(e: &prof_core::answer::Efficiency) -> String {
    format!(
        "ops with shapes ({:.1} % of kernel time, {}, {} calls) run at {:.1} % of their {} roofline bound: {} above it",
        e.covered_pct,
        crate::render::human_ns(e.covered_ns as f64),
        e.calls,
        e.efficiency_pct,
        e.device,
        crate::render::human_ns(e.lost_ns as f64)
    )
}

/// How a part of the account reads.
pub fn part_label(part: Part) -> String {
    match part {
        Part::Busy { family } => family.as_str().to_owned(),
        Part::Idle { cause: IdleCause::Unexplained } => "idle".to_owned(),
        Part::Idle { cause } => format!("idle: {}", cause.label()),
    }
}

/// `device 0, 4.80 ms: busy 71.2 % (gemm 40.1, elementwise 20.0, 3 more 11.1) · idle 28.8 %
/// (waiting for launches 20.1, host stalls 8.7)`.
pub fn account_line(account: &Account) -> String {
    let group = |busy: bool| {
        let parts: Vec<_> = account.parts.iter().filter(|p| matches!(p.part, Part::Busy { .. }) == busy).collect();
        let total: f64 = parts.iter().map(|p| p.pct).sum();
        let mut shown: Vec<String> = parts
            .iter()
            .take(3)
            .map(|p| {
                let label = match p.part {
                    Part::Busy { family } => family.as_str(),
                    Part::Idle { cause } => cause.label(),
                };
                format!("{label} {:.1}", p.pct)
            })
            .collect();
        if parts.len() > 3 {
            let rest: f64 = parts[3..].iter().map(|p| p.pct).sum();
            shown.push(format!("{} more {rest:.1}", parts.len() - 3));
        }
        (total, shown.join(", "))
    };
    let (busy, busy_parts) = group(true);
    let (idle, idle_parts) = group(false);
    let mut line =
        format!("device {}, {}: busy {busy:.1} %", account.device, crate::render::human_ns(account.wall_ns as f64));
    if !busy_parts.is_empty() {
        line.push_str(&format!(" ({busy_parts})"));
    }
    line.push_str(&format!(" · idle {idle:.1} %"));
    if !idle_parts.is_empty() && idle > 0.0 {
        line.push_str(&format!(" ({idle_parts})"));
    }
    line
}
