//! The diff of two profiles, "before" (A) and "after" (B): did the change (graph mode, a
//! fused kernel, a new library) shrink device time, idle time and the gaps between ops, and
//! which kernels moved. Works on two timelines, or on per-kernel totals where one side has
//! nothing else (an nsys stats report): then only the per-kernel and per-family deltas are
//! given and [`ProfileDiff::skipped`] says what was left out.
//!
//! Rules:
//! - **wall**, **busy** and **idle** are summed over devices: wall is first op start to last
//!   op end, busy the union of op intervals, idle their difference (the device's free time);
//!   **gaps** are the device gaps of [`idle_gaps`] (count and total);
//! - kernel and family rows are matched by name; a row's delta is B − A of its total time;
//!   rows are listed by the absolute delta, largest first; names in one side only are listed
//!   apart, each with its total;
//! - **launches per op**: host runtime/driver spans over device ops; it falling by at least
//!   [`FEWER_LAUNCHES_RATIO`] (B/A at most that) means the host launched the ops in batches
//!   (graph replay, fusion);
//! - a side whose timeline is partial (the artifact lacked part of its data) says so in
//!   [`ProfileDiff::skipped`];
//! - the **verdict** names every change of at least [`VERDICT_MIN_CHANGE_PCT`] % among device
//!   time, free time and gap count, then says why when it can: free time down with fewer
//!   launches per op → launch gaps removed (graph mode or fusion); free time down alone →
//!   less waiting between ops; else device time down / up → faster / slower kernels; free
//!   time up → more waiting.

use super::gaps::idle_gaps;
use crate::families::{Families, Family};
use crate::kernel_summary::KernelSummary;
use prof_timeline::timeline::{HostCategory, Timeline};
use serde::Serialize;
use std::collections::BTreeMap;

/// A change of at least this much, percent, is named in the verdict.
pub(crate) const VERDICT_MIN_CHANGE_PCT: f64 = 10.0;
/// B's launches per op over A's at or below which B launched its ops in batches.
pub(crate) const FEWER_LAUNCHES_RATIO: f64 = 0.5;

/// One number on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Delta {
    /// Value in A.
    pub before: f64,
    /// Value in B.
    pub after: f64,
    /// B − A.
    pub delta: f64,
    /// (B − A) / A, percent; `None` when A is 0.
    pub change_pct: Option<f64>,
}

impl Delta {
    /// The delta of `before` → `after`.
    pub fn new(before: f64, after: f64) -> Self {
        let change_pct = (before != 0.0).then(|| (after - before) * 100.0 / before);
        Self { before, after, delta: after - before, change_pct }
    }
}

/// Timeline-level numbers of one side.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimelineNumbers {
    /// Devices with ops.
    pub devices: usize,
    /// Device ops.
    pub ops: u64,
    /// Sum of op durations, ns.
    pub device_ns: u64,
    /// Wall time summed over devices, ns.
    pub wall_ns: u64,
    /// Busy time summed over devices, ns.
    pub busy_ns: u64,
    /// Free time (wall − busy) summed over devices, ns.
    pub idle_ns: u64,
    /// Device gaps.
    pub gap_count: u64,
    /// Device gap time, ns.
    pub gap_ns: u64,
    /// Host runtime/driver spans (launch calls).
    pub launches: u64,
    /// Repeating steps found (ProfilerStep annotations, a repeating op sequence or kernel), when
    /// there are at least two: per-step numbers compare windows of different lengths.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<usize>,
}

impl TimelineNumbers {
    /// The numbers of `timeline`, whose kernel summary is `summary`.
    pub fn of(timeline: &Timeline, summary: &KernelSummary, families: &Families) -> Self {
        let gaps = idle_gaps(timeline, families);
        let launches =
            timeline.host.iter().filter(|s| matches!(s.category, HostCategory::Runtime | HostCategory::Driver)).count()
                as u64;
        let wall_ns: u64 = summary.devices.iter().map(|d| d.wall_ns).sum();
        let busy_ns: u64 = summary.devices.iter().map(|d| d.busy_ns).sum();
        Self {
            devices: summary.devices.len(),
            ops: summary.ops,
            device_ns: summary.device_ns,
            wall_ns,
            busy_ns,
            idle_ns: wall_ns.saturating_sub(busy_ns),
            gap_count: gaps.iter().map(|g| g.device_gaps.count).sum(),
            gap_ns: gaps.iter().map(|g| g.device_gaps.total_ns).sum(),
            launches,
            steps: None,
        }
    }

    /// Launch calls per device op (`None` without ops or without launches on record).
    pub fn launches_per_op(&self) -> Option<f64> {
        (self.ops > 0 && self.launches > 0).then(|| self.launches as f64 / self.ops as f64)
    }
}

/// The timeline-level deltas.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimelineDiff {
    /// A's numbers.
    pub before: TimelineNumbers,
    /// B's numbers.
    pub after: TimelineNumbers,
    /// Wall time, ns.
    pub wall: Delta,
    /// Busy time, ns.
    pub busy: Delta,
    /// Free time, ns.
    pub idle: Delta,
    /// Gap count.
    pub gaps: Delta,
    /// Gap time, ns.
    pub gap_time: Delta,
    /// Launch calls per op, when both sides have launches on record.
    pub launches_per_op: Option<Delta>,
}

/// One kernel (or family) on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RowDiff {
    /// Kernel name, or family name for family rows.
    pub name: String,
    /// Family.
    pub family: Family,
    /// Calls.
    pub calls: Delta,
    /// Total time, ns.
    pub total: Delta,
    /// Mean time, ns.
    pub mean: Delta,
}

/// A name present on one side only.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OneSided {
    /// Kernel name.
    pub name: String,
    /// Calls.
    pub calls: u64,
    /// Total time, ns.
    pub total_ns: u64,
}

/// The diff of two profiles (`prof diff --json`, schema `prof.diff.v1`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProfileDiff {
    /// A's source.
    pub before: String,
    /// B's source.
    pub after: String,
    /// Device time (sum of op durations), ns.
    pub device_time: Delta,
    /// Timeline-level deltas; `None` when a side has per-kernel totals only.
    pub timeline: Option<TimelineDiff>,
    /// What was left out and why.
    pub skipped: Vec<String>,
    /// Families on either side, by absolute total delta.
    pub families: Vec<RowDiff>,
    /// Kernels on both sides, by absolute total delta.
    pub kernels: Vec<RowDiff>,
    /// Kernels in A only, longest first.
    pub only_before: Vec<OneSided>,
    /// Kernels in B only, longest first.
    pub only_after: Vec<OneSided>,
    /// One line: what changed and, where the numbers say, why.
    pub verdict: String,
}

/// One side of a diff: its summary, and its timeline when it has one.
pub struct Side<'a> {
    /// The kernel summary.
    pub summary: &'a KernelSummary,
    /// The timeline, absent for per-kernel totals.
    pub timeline: Option<&'a Timeline>,
    /// Its repeating steps, where the caller found them (the diagnosis' step count).
    pub steps: Option<usize>,
}

/// The diff of `before` → `after`.
pub fn diff_profiles(before: &Side, after: &Side, families: &Families) -> ProfileDiff {
    let (a, b) = (before.summary, after.summary);
    let mut skipped = Vec::new();
    let timeline = match (before.timeline, after.timeline) {
        (Some(ta), Some(tb)) => {
            let mut na = TimelineNumbers::of(ta, a, families);
            let mut nb = TimelineNumbers::of(tb, b, families);
            na.steps = before.steps.filter(|&n| n >= 2);
            nb.steps = after.steps.filter(|&n| n >= 2);
            Some(timeline_diff(na, nb))
        }
        (ta, tb) => {
            let which: Vec<&str> = [(ta, "A"), (tb, "B")].iter().filter(|s| s.0.is_none()).map(|s| s.1).collect();
            skipped.push(format!(
                "wall, busy, free time, gaps and launches: {} holds per-kernel totals only",
                which.join(" and ")
            ));
            None
        }
    };
    for (label, timeline) in [("A", before.timeline), ("B", after.timeline)] {
        if let Some(why) = timeline.and_then(|t| t.partial.as_deref()) {
            skipped.push(format!("{label} is partial: {why}"));
        }
    }
    let mut kernels = Vec::new();
    let mut only_before = Vec::new();
    let after_rows: BTreeMap<&str, usize> = b.kernels.iter().enumerate().map(|(i, k)| (k.name.as_str(), i)).collect();
    let mut matched = vec![false; b.kernels.len()];
    for k in &a.kernels {
        match after_rows.get(k.name.as_str()) {
            Some(&i) => {
                matched[i] = true;
                let o = &b.kernels[i];
                kernels.push(RowDiff {
                    name: k.name.clone(),
                    family: k.family,
                    calls: Delta::new(k.calls as f64, o.calls as f64),
                    total: Delta::new(k.total_ns as f64, o.total_ns as f64),
                    mean: Delta::new(k.mean_ns, o.mean_ns),
                });
            }
            None => only_before.push(OneSided { name: k.name.clone(), calls: k.calls, total_ns: k.total_ns }),
        }
    }
    let only_after: Vec<OneSided> = b
        .kernels
        .iter()
        .zip(&matched)
        .filter(|(_, &m)| !m)
        .map(|(k, _)| OneSided { name: k.name.clone(), calls: k.calls, total_ns: k.total_ns })
        .collect();
    only_before.sort_by(|x, y| y.total_ns.cmp(&x.total_ns).then(x.name.cmp(&y.name)));
    let mut only_after = only_after;
    only_after.sort_by(|x, y| y.total_ns.cmp(&x.total_ns).then(x.name.cmp(&y.name)));
    by_abs_delta(&mut kernels);
    let mut families_diff: Vec<RowDiff> = Vec::new();
    let mut family_names: Vec<Family> = a.families.iter().chain(&b.families).map(|f| f.family).collect();
    family_names.sort_by_key(|f| f.as_str());
    family_names.dedup();
    for family in family_names {
        let row = |s: &KernelSummary| {
            s.families.iter().find(|f| f.family == family).map_or((0, 0), |f| (f.calls, f.total_ns))
        };
        let ((ca, ta), (cb, tb)) = (row(a), row(b));
        let mean = |c: u64, t: u64| if c == 0 { 0.0 } else { t as f64 / c as f64 };
        families_diff.push(RowDiff {
            name: family.as_str().to_owned(),
            family,
            calls: Delta::new(ca as f64, cb as f64),
            total: Delta::new(ta as f64, tb as f64),
            mean: Delta::new(mean(ca, ta), mean(cb, tb)),
        });
    }
    by_abs_delta(&mut families_diff);
    let device_time = Delta::new(a.device_ns as f64, b.device_ns as f64);
    let verdict = verdict(&device_time, timeline.as_ref(), &kernels);
    ProfileDiff {
        before: a.source.clone(),
        after: b.source.clone(),
        device_time,
        timeline,
        skipped,
        families: families_diff,
        kernels,
        only_before,
        only_after,
        verdict,
    }
}

fn timeline_diff(before: TimelineNumbers, after: TimelineNumbers) -> TimelineDiff {
    let d = |x: u64, y: u64| Delta::new(x as f64, y as f64);
    TimelineDiff {
        wall: d(before.wall_ns, after.wall_ns),
        busy: d(before.busy_ns, after.busy_ns),
        idle: d(before.idle_ns, after.idle_ns),
        gaps: d(before.gap_count, after.gap_count),
        gap_time: d(before.gap_ns, after.gap_ns),
        launches_per_op: before.launches_per_op().zip(after.launches_per_op()).map(|(x, y)| Delta::new(x, y)),
        before,
        after,
    }
}

fn by_abs_delta(rows: &mut [RowDiff]) {
    rows.sort_by(|x, y| y.total.delta.abs().total_cmp(&x.total.delta.abs()).then(x.name.cmp(&y.name)));
}

/// A change in percent as the verdict writes it (`−38 %`, `+12 %`).
pub fn signed_pct(change: f64) -> String {
    if change.abs() < 0.5 {
        "0 %".to_owned()
    } else if change < 0.0 {
        format!("\u{2212}{:.0} %", -change)
    } else {
        format!("+{change:.0} %")
    }
}

fn notable(delta: &Delta) -> Option<f64> {
    delta.change_pct.filter(|c| c.abs() >= VERDICT_MIN_CHANGE_PCT)
}

fn verdict(device_time: &Delta, timeline: Option<&TimelineDiff>, kernels: &[RowDiff]) -> String {
    let mut changes = Vec::new();
    let device = notable(device_time);
    if let Some(c) = device {
        changes.push(format!("device time {}", signed_pct(c)));
    }
    let idle = timeline.and_then(|t| notable(&t.idle));
    let gaps = timeline.and_then(|t| notable(&t.gaps));
    if let Some(c) = idle {
        changes.push(format!("free time {}", signed_pct(c)));
    }
    if let Some(c) = gaps {
        changes.push(format!("gaps {}", signed_pct(c)));
    }
    let fewer_launches = timeline
        .and_then(|t| t.launches_per_op)
        .is_some_and(|l| l.before > 0.0 && l.after / l.before <= FEWER_LAUNCHES_RATIO);
    let why = match (idle.is_some_and(|c| c < 0.0), fewer_launches) {
        (true, true) => Some("fewer host launches per op: graph mode (or fusion) removed launch gaps".to_owned()),
        (true, false) => Some("the device waits less between ops".to_owned()),
        _ if device.is_some_and(|c| c < 0.0) => Some("the kernels take less time".to_owned()),
        _ if device.is_some_and(|c| c > 0.0) => Some("the kernels take more time".to_owned()),
        _ if idle.is_some_and(|c| c > 0.0) => Some("the device waits more between ops".to_owned()),
        _ => None,
    };
    let mut line = if changes.is_empty() {
        format!("B: no change of {VERDICT_MIN_CHANGE_PCT:.0} % or more in device time, free time or gaps")
    } else {
        format!("B: {}", changes.join(", "))
    };
    if let Some(why) = why {
        line.push_str(&format!(": {why}"));
    }
    if let Some(top) = kernels.first().filter(|k| k.total.delta != 0.0) {
        line.push_str(&format!("; largest kernel change {} ({:+.1} µs)", short_name(&top.name), top.total.delta / 1e3));
    }
    line
}

/// A kernel name cut to 60 characters, for the one-line verdict.
fn short_name(name: &str) -> String {
    if name.chars().count() <= 60 {
        name.to_owned()
    } else {
        format!("{}…", name.chars().take(59).collect::<String>())
    }
}

#[cfg(test)]
mod tests;
