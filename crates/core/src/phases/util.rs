//! Phases of a utilization recording: the idle lead-in (imports, model load, compilation on
//! the host), the active phase, the idle end; the verdict of `prof util` is taken on the
//! active phase.
//!
//! Rules: a tick is **active** when any device's `gpu_util_pct` is at least
//! [`BUSY_UTIL_PCT`]. The active phase runs from the first active tick to the last; the ticks
//! before it are the lead-in ([`PhaseKind::Load`]), the ticks after it the tail. A recording
//! with no active tick has one phase, the whole recording, and a note saying it was idle
//! throughout. Each phase's `busy_pct` is the highest per-device mean utilization over its
//! ticks; `ops` counts its ticks.

use super::{Phase, PhaseKind, Phases};
use crate::recorder::Tick;
use crate::util_summary::BUSY_UTIL_PCT;
use std::collections::BTreeMap;

/// The phases of `ticks` (in time order).
pub fn util_phases(ticks: &[Tick]) -> Phases {
    let active = |t: &Tick| t.samples.iter().any(|s| s.gpu_util_pct.is_some_and(|u| u >= BUSY_UTIL_PCT));
    let (Some(first), Some(last)) = (ticks.first(), ticks.last()) else {
        return Phases { run_ns: (0, 0), phases: Vec::new(), steady_steps: None, note: Some("no samples".into()) };
    };
    let run = (first.t_ns, last.t_ns);
    let (Some(from), Some(to)) = (ticks.iter().position(active), ticks.iter().rposition(active)) else {
        let whole = phase(ticks, PhaseKind::Steady, run.0, "idle throughout: no sample reached the busy line".into());
        let note = Some(format!("no sample reached {BUSY_UTIL_PCT} % utilization: idle throughout"));
        return Phases { run_ns: run, phases: vec![whole], steady_steps: None, note };
    };
    let mut phases = Vec::new();
    if from > 0 {
        let marks = format!("idle lead-in: {from} samples below {BUSY_UTIL_PCT} % (imports, model load, host work)");
        phases.push(phase(&ticks[..from], PhaseKind::Load, run.0, marks));
    }
    let active_ticks = &ticks[from..=to];
    let marks = format!("active: from the first sample at or above {BUSY_UTIL_PCT} % to the last");
    phases.push(phase(active_ticks, PhaseKind::Steady, run.0, marks));
    if to + 1 < ticks.len() {
        let marks = format!("idle end: {} samples below {BUSY_UTIL_PCT} %", ticks.len() - to - 1);
        phases.push(phase(&ticks[to + 1..], PhaseKind::Tail, run.0, marks));
    }
    Phases { run_ns: run, phases, steady_steps: None, note: None }
}

fn phase(ticks: &[Tick], kind: PhaseKind, run_start: u64, marks: String) -> Phase {
    let start = ticks.first().map_or(run_start, |t| t.t_ns);
    let end = ticks.last().map_or(start, |t| t.t_ns);
    let mut per_device: BTreeMap<u32, (f64, usize)> = BTreeMap::new();
    for sample in ticks.iter().flat_map(|t| &t.samples) {
        if let Some(util) = sample.gpu_util_pct {
            let entry = per_device.entry(sample.device).or_default();
            entry.0 += util;
            entry.1 += 1;
        }
    }
    let busy_pct = per_device.values().map(|&(sum, n)| sum / n as f64).fold(0.0, f64::max);
    Phase {
        kind,
        start_ns: start,
        end_ns: end,
        offset_ns: start - run_start,
        ops: ticks.len(),
        busy_pct,
        marks,
        copied_bytes: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::DeviceSample;

    fn ticks(utils: &[f64]) -> Vec<Tick> {
        utils
            .iter()
            .enumerate()
            .map(|(i, &u)| Tick {
                t_ns: i as u64 * 100_000_000,
                samples: vec![DeviceSample { device: 0, gpu_util_pct: Some(u), ..Default::default() }],
            })
            .collect()
    }

    #[test]
    fn lead_in_active_and_tail() {
        let t = ticks(&[0.0, 0.0, 3.0, 80.0, 2.0, 100.0, 40.0, 0.0]);
        let phases = util_phases(&t);
        let kinds: Vec<PhaseKind> = phases.phases.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, [PhaseKind::Load, PhaseKind::Steady, PhaseKind::Tail]);
        let steady = phases.get(PhaseKind::Steady).unwrap();
        assert_eq!((steady.offset_ns, steady.ops), (300_000_000, 4));
        assert!((steady.busy_pct - (80.0 + 2.0 + 100.0 + 40.0) / 4.0).abs() < 1e-9);
        assert!((phases.phases[0].busy_pct - 1.0).abs() < 1e-9);
    }

    #[test]
    fn idle_throughout_is_one_phase_with_a_note() {
        let phases = util_phases(&ticks(&[0.0, 1.0, 0.0]));
        assert_eq!(phases.phases.len(), 1);
        assert_eq!((phases.phases[0].offset_ns, phases.phases[0].ops), (0, 3), "the whole recording");
        assert!(phases.note.unwrap().contains("idle throughout"));
        assert!(util_phases(&[]).phases.is_empty());
    }
}
