//! The phases of a run as every timeline verb shows them: one line per phase and the window
//! the answers are taken on (the data: [`prof_core::report::PhaseView`]).

use crate::render::human_ns;
use prof_core::phases::PhaseChoice;
use prof_core::report::PhaseView;

/// Clap's parser for `--phase`.
pub fn parse_phase(text: &str) -> Result<PhaseChoice, String> {
    PhaseChoice::parse(text)
}

/// One line per phase, and which one the answers describe; empty when the run has no phases.
pub fn render_text(view: &PhaseView) -> String {
    let phases = &view.phases;
    if phases.phases.is_empty() {
        return String::new();
    }
    let mut out = String::from("phases:\n");
    let width = crate::wrap::width();
    for phase in &phases.phases {
        let marker = match view.window_ns {
            Some((start, end)) if phase.start_ns >= start && phase.end_ns <= end => "*",
            None => "*",
            _ => " ",
        };
        let columns = format!(
            "{marker} {:<8} at +{:<9} {:>9}  busy {:>5.1} %  ",
            phase.kind.label(),
            human_ns(phase.offset_ns as f64),
            human_ns(phase.len_ns() as f64),
            phase.busy_pct,
        );
        // The marks hang under themselves where that leaves them half the width, else under
        // the phase's name.
        let hang = Some(columns.chars().count()).filter(|&h| h <= width / 2).unwrap_or(4);
        out.push_str(&crate::wrap::wrap_with(&format!("{columns}{}\n", phase.marks), width, Some(hang)));
    }
    let answer = match view.window_ns {
        None if view.chosen != "steady" => "answers below: the whole run (--phase all)".to_owned(),
        None => match &phases.note {
            Some(note) if phases.phases.len() == 1 => format!("answers below: the whole run ({note})"),
            _ => "answers below: the whole run (it is all steady state)".to_owned(),
        },
        Some((start, end)) => {
            let run_start = phases.run_ns.0;
            let what = if view.chosen == "steady" {
                "the steady state".to_owned()
            } else {
                format!("--phase {}", view.chosen)
            };
            format!(
                "answers below: {what}, +{}..+{} (--phase all for the whole run)",
                human_ns(start.saturating_sub(run_start) as f64),
                human_ns(end.saturating_sub(run_start) as f64)
            )
        }
    };
    out.push_str(&crate::wrap::wrap(&answer, width));
    out.push_str("\n\n");
    out
}
