//! Choosing the window an answer is taken on (`--phase`), and cutting a timeline to it.

use super::{PhaseKind, Phases};

/// Which part of a run the answers describe.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum PhaseChoice {
    /// The steady state (the default), or the whole run where none was found.
    #[default]
    Steady,
    /// The whole run.
    All,
    /// One phase.
    Only(PhaseKind),
    /// From..to, ns from the run's start (an open end is `None`).
    Range(Option<u64>, Option<u64>),
}

impl PhaseChoice {
    /// Parses `steady`, `all`, `load`, `warmup`, `tail`, or `START..END` (seconds, or with a
    /// unit `ms`/`s`/`m`; either end may be left out: `12s..`, `..500ms`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        Ok(match text.to_ascii_lowercase().as_str() {
            "steady" | "steady-state" => Self::Steady,
            "all" | "whole" => Self::All,
            "load" => Self::Only(PhaseKind::Load),
            "warmup" | "warm-up" => Self::Only(PhaseKind::Warmup),
            "tail" => Self::Only(PhaseKind::Tail),
            _ => {
                let Some((from, to)) = text.split_once("..") else {
                    return Err(format!(
                        "--phase {text}: not a phase; use steady, all, load, warmup, tail or START..END (e.g. 12s..20s)"
                    ));
                };
                let end = |part: &str| -> Result<Option<u64>, String> {
                    if part.trim().is_empty() {
                        return Ok(None);
                    }
                    offset_ns(part).map(Some).map_err(|e| format!("--phase {text}: {e}"))
                };
                let (from, to) = (end(from)?, end(to)?);
                if let (Some(a), Some(b)) = (from, to) {
                    if b <= a {
                        return Err(format!("--phase {text}: the end is not after the start"));
                    }
                }
                Self::Range(from, to)
            }
        })
    }

    /// The absolute `[start, end)` window in `phases`' clock, `None` for the whole run, or why
    /// the choice cannot be met.
    pub fn window(&self, phases: &Phases) -> Result<Option<(u64, u64)>, String> {
        let (run_start, run_end) = phases.run_ns;
        match *self {
            Self::All => Ok(None),
            Self::Steady => {
                Ok(phases.get(PhaseKind::Steady).filter(|_| phases.steady_is_partial()).map(|p| (p.start_ns, p.end_ns)))
            }
            Self::Only(kind) => match phases.get(kind) {
                Some(p) => Ok(Some((p.start_ns, p.end_ns))),
                None => {
                    let found: Vec<&str> = phases.phases.iter().map(|p| p.kind.label()).collect();
                    Err(format!("--phase {}: this run has no {0} phase (it has: {})", kind.label(), found.join(", ")))
                }
            },
            Self::Range(from, to) => {
                let start = run_start.saturating_add(from.unwrap_or(0));
                let end = to.map_or(run_end.saturating_add(1), |t| run_start.saturating_add(t));
                if start >= run_end.max(run_start + 1) {
                    let length = super::ms(run_end - run_start);
                    return Err(format!("--phase: the window starts after the run ends (the run lasts {length})"));
                }
                Ok(Some((start, end)))
            }
        }
    }
}

/// A duration such as `12`, `12.5s`, `500ms`, `2m`, as ns.
fn offset_ns(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().map_err(|_| format!("`{text}` is not a time (try 12s, 500ms)"))?;
    let scale = match unit.trim() {
        "ms" => 1e6,
        "" | "s" => 1e9,
        "m" | "min" => 60e9,
        "us" | "µs" => 1e3,
        other => return Err(format!("`{text}`: unknown unit `{other}` (use us, ms, s or m)")),
    };
    let ns = value * scale;
    if !(0.0..1e18).contains(&ns) {
        return Err(format!("`{text}` is out of range"));
    }
    Ok(ns as u64)
}
