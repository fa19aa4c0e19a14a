//! Phases of a utilization recording: the idle lead-in (imports, model load, compilation on
//! the host), the active phase, the idle end; the verdict of `prof util` is taken on the
//! active phase.
//!
//! Rules: a tick is **active** when any device's `gpu_util_pct` is at least
//! [`BUSY_UTIL_PCT`]. The active phase runs from the first active tick to the last; the ticks
//! before it are the lead-in ([`PhaseKind::Load`]), the ticks after it the tail. Active ticks
//! at the very start that a long idle stretch then follows belong to the lead-in too (see
//! [`lead_in_blips`]): the first samples still hold the previous process's trailing average,
//! and context start-up or a first upload lights the counter for a moment before a long model
//! load; counting them made a 30 s load part of a 2 s active phase (seen on the H200). A recording
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
        return Phases {
            run_ns: (0, 0),
            phases: Vec::new(),
            steady_steps: None,
            note: Some("no samples".into()),
            sequence: None,
        };
    };
    let run = (first.t_ns, last.t_ns);
    let flags: Vec<bool> = ticks.iter().map(active).collect();
    let (Some(first_active), Some(to)) = (flags.iter().position(|&a| a), flags.iter().rposition(|&a| a)) else {
        let whole = phase(ticks, PhaseKind::Steady, run.0, "idle throughout: no sample reached the busy line".into());
        let note = Some(format!("no sample reached {BUSY_UTIL_PCT} % utilization: idle throughout"));
        return Phases { run_ns: run, phases: vec![whole], steady_steps: None, note, sequence: None };
    };
    let quiet: Vec<bool> =
        ticks.iter().map(|t| t.samples.iter().all(|s| s.gpu_util_pct.is_none_or(|u| u < QUIET_UTIL_PCT))).collect();
    let from = lead_in_blips(ticks, &flags, &quiet, first_active, to);
    let mut phases = Vec::new();
    if from > 0 {
        let blips = flags[..from].iter().filter(|&&a| a).count();
        let mut marks =
            format!("idle lead-in: {} samples below {BUSY_UTIL_PCT} % (imports, model load, host work)", from - blips);
        if blips > 0 {
            marks.push_str(&format!(
                " and {blips} busy for a moment before a long idle stretch (the previous process's \
                 trailing average, context start-up, a first upload)"
            ));
        }
        phases.push(phase(&ticks[..from], PhaseKind::Load, run.0, marks));
    }
    let active_ticks = &ticks[from..=to];
    let marks = format!("active: from the first sample at or above {BUSY_UTIL_PCT} % to the last");
    phases.push(phase(active_ticks, PhaseKind::Steady, run.0, marks));
    if to + 1 < ticks.len() {
        let marks = format!("idle end: {} samples below {BUSY_UTIL_PCT} %", ticks.len() - to - 1);
        phases.push(phase(&ticks[to + 1..], PhaseKind::Tail, run.0, marks));
    }
    Phases { run_ns: run, phases, steady_steps: None, note: None, sequence: None }
}

/// Utilization under which a sample is quiet (nothing ran), percent: a lead-in's idle
/// stretch is quiet throughout. Below [`BUSY_UTIL_PCT`] but above this is low activity, such
/// as a batch-1 decode at 2–3 % (seen on the H200), which is the run itself, not its load.
pub(crate) const QUIET_UTIL_PCT: f64 = 1.0;
/// A quiet stretch at least this long ends a lead-in…
pub(crate) const LEAD_IN_IDLE_NS: u64 = 2_000_000_000;
/// …when the activity before it is at most this share of the activity after it, percent.
pub(crate) const LEAD_IN_BLIP_PCT: usize = 50;

/// Where the active phase starts: `first` (the first active tick), or later, past each quiet
/// stretch of at least [`LEAD_IN_IDLE_NS`] that lasts longer than the activity before it,
/// while the active ticks before it are at most [`LEAD_IN_BLIP_PCT`] % of those after it.
fn lead_in_blips(ticks: &[Tick], active: &[bool], quiet: &[bool], first: usize, last: usize) -> usize {
    let total_active = active[first..=last].iter().filter(|&&a| a).count();
    let mut start = first;
    let mut active_before = 0usize;
    let mut at = first;
    while at <= last {
        if active[at] {
            active_before += 1;
            at += 1;
            continue;
        }
        let gap_start = at;
        let mut all_quiet = true;
        while at <= last && !active[at] {
            all_quiet &= quiet[at];
            at += 1;
        }
        // ticks[at] is the next active tick: the stretch lasts from the last active tick before it.
        let idle_ns = ticks[at.min(last)].t_ns.saturating_sub(ticks[gap_start - 1].t_ns);
        let blip_ns = ticks[gap_start - 1].t_ns.saturating_sub(ticks[start].t_ns);
        let small = active_before * 100 <= (total_active - active_before) * LEAD_IN_BLIP_PCT;
        if all_quiet && idle_ns >= LEAD_IN_IDLE_NS && idle_ns > blip_ns && small {
            start = at;
        } else if !small {
            break;
        }
    }
    start.min(last)
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
    fn busy_blips_before_a_long_idle_load_are_lead_in() {
        // The H200 lm-head run (scripts/device/profile_clients.py): a few busy samples at the
        // start (the previous client's trailing average), 30 s of model load at 0 %, then
        // 1.5 s at 100 %: 15 of 320 samples busy, and the whole run read as host-bound.
        let mut utils = vec![100.0, 100.0, 60.0, 20.0];
        utils.extend(std::iter::repeat_n(0.0, 297));
        utils.extend(std::iter::repeat_n(100.0, 11));
        utils.extend([0.0, 0.0]);
        let phases = util_phases(&ticks(&utils));
        let kinds: Vec<PhaseKind> = phases.phases.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, [PhaseKind::Load, PhaseKind::Steady, PhaseKind::Tail]);
        let steady = phases.get(PhaseKind::Steady).unwrap();
        assert_eq!((steady.offset_ns, steady.ops), (301 * 100_000_000, 11));
        assert_eq!(steady.busy_pct, 100.0);
        assert!(phases.phases[0].marks.contains("297 samples below") && phases.phases[0].marks.contains("4 busy"));
        // Half as much activity before the idle stretch as after it still counts as lead-in;
        // more does not.
        let lead = |before: usize| {
            let mut utils = vec![100.0; before];
            utils.extend(std::iter::repeat_n(0.0, 100));
            utils.extend(std::iter::repeat_n(100.0, 10));
            util_phases(&ticks(&utils)).get(PhaseKind::Steady).unwrap().ops
        };
        assert_eq!((lead(5), lead(6)), (10, 116));
    }

    #[test]
    fn idle_stretches_inside_real_work_stay_in_the_active_phase() {
        // Work, a 3 s pause (evaluation on the host, a checkpoint), more work: the pause is
        // longer than the work before it, but that work is half of all: it is no blip.
        let mut utils = vec![90.0; 20];
        utils.extend(std::iter::repeat_n(0.0, 30));
        utils.extend(std::iter::repeat_n(90.0, 20));
        let steady = util_phases(&ticks(&utils)).get(PhaseKind::Steady).unwrap().clone();
        assert_eq!((steady.offset_ns, steady.ops), (0, 70));
        // Low activity (2–3 %, a batch-1 decode on the H200) is the run, not a quiet load.
        let mut utils = vec![8.0, 8.0];
        utils.extend(std::iter::repeat_n(3.0, 60));
        utils.extend(std::iter::repeat_n(18.0, 40));
        let steady = util_phases(&ticks(&utils)).get(PhaseKind::Steady).unwrap().clone();
        assert_eq!((steady.offset_ns, steady.ops), (0, 102));
        // A short pause after a blip (under 2 s) does not end the lead-in either.
        let mut utils = vec![90.0];
        utils.extend(std::iter::repeat_n(0.0, 10));
        utils.extend(std::iter::repeat_n(90.0, 40));
        let steady = util_phases(&ticks(&utils)).get(PhaseKind::Steady).unwrap().clone();
        assert_eq!((steady.offset_ns, steady.ops), (0, 51));
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
