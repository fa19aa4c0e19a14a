//! The verdict of `prof util`: is the device busy, and what to do next.
//!
//! Rules, judged on the device summaries ([`DeviceSummary`]) of a recording:
//! - **too short** (a command ran or a duration was sampled): the busiest device has fewer than
//!   [`MIN_VERDICT_SAMPLES`] samples; no verdict is given on so little.
//! - **idle**: no device reached [`BUSY_UTIL_PCT`] in any sample: the work did not run on
//!   these devices (or did nothing), which is not the same as host-bound.
//! - **host-bound** (a command ran): the busiest device (highest mean utilization) had a
//!   mean utilization below [`HOST_BOUND_MEAN_UTIL_PCT`] or was busy (≥ [`BUSY_UTIL_PCT`])
//!   in less than [`HOST_BOUND_BUSY_SHARE_PCT`] of its samples. A kernel trace won't help.
//! - **busy** (a command ran, not host-bound): the next step is `prof breakdown -- <command>`.
//! - **snapshot** (no command): states which devices are busy (mean utilization ≥ [`BUSY_UTIL_PCT`]).
//! - **no data**: no device reported utilization; unknown is not idle.
//! - **clock-limited** (an extra [`UtilFinding`], alongside any of the above): a reason other
//!   than [`IDLE_THROTTLE_REASON`] was active in at least [`CLOCK_LIMITED_BUSY_SHARE_PCT`] of a
//!   device's busy samples.
//! - **host-bound with tiny kernels** (the richest signal first): where the busiest device
//!   reports `sm_activity_pct` (NVML GPM, Hopper and later) and its mean is below
//!   [`HOST_BOUND_MEAN_UTIL_PCT`], the SMs did almost nothing whatever utilization says (39 %
//!   "utilization" at 0 % SM activity: kernels were resident, and tiny): host-bound, said here
//!   instead of sending the user to a breakdown.
//! - Where `sm_activity_pct` is reported and its mean is below [`RESIDENT_NOT_ACTIVE_RATIO`] ×
//!   the mean utilization of a device at least [`HOST_BOUND_MEAN_UTIL_PCT`] busy, the evidence
//!   says that utilization only means a kernel was resident.

use crate::run_plan::shell_join;
use crate::util_summary::{DeviceSummary, BUSY_UTIL_PCT};
use serde::Serialize;
use std::ffi::OsStr;

/// Fewer samples than this give "too short to tell" instead of a verdict.
pub(crate) const MIN_VERDICT_SAMPLES: usize = 3;
/// Below this mean utilization (percent) a device that ran a command is host-bound.
pub(crate) const HOST_BOUND_MEAN_UTIL_PCT: f64 = 10.0;
/// Below this share of busy samples (percent) a device that ran a command is host-bound.
pub(crate) const HOST_BOUND_BUSY_SHARE_PCT: f64 = 30.0;
/// A non-idle throttle reason active in at least this share of busy samples (percent) makes
/// the run clock-limited; a reason seen less often is a transient.
pub(crate) const CLOCK_LIMITED_BUSY_SHARE_PCT: f64 = 20.0;
/// The throttle reason that only says the device had nothing to do.
pub(crate) const IDLE_THROTTLE_REASON: &str = "gpu_idle";
/// The activity metric that says how busy the SMs were, not only whether a kernel was resident.
pub(crate) const SM_ACTIVITY_METRIC: &str = "sm_activity_pct";
/// SM activity below this fraction of the mean utilization counts as "much lower".
pub(crate) const RESIDENT_NOT_ACTIVE_RATIO: f64 = 0.5;

/// The main answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// The device was busy while the command ran: profile its kernels next.
    Busy,
    /// The device mostly waited: the host side is the bottleneck.
    HostBound,
    /// A one-shot reading with no command.
    Snapshot,
    /// No device reported utilization.
    NoData,
    /// Too few samples to tell.
    TooShort,
    /// No device did any work while it was watched.
    Idle,
}

/// A finding that holds alongside the main answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// Power or thermal limits held the clocks down while the device was busy.
    ClockLimited,
}

/// One extra finding with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UtilFinding {
    /// Which rule.
    pub kind: FindingKind,
    /// One line that says it.
    pub headline: String,
    /// The numbers behind it.
    pub evidence: Vec<String>,
}

/// The verdict of a recording: the answer, its evidence, the next command, extra findings.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Verdict {
    /// The main answer.
    pub kind: VerdictKind,
    /// One line that says it.
    pub headline: String,
    /// The numbers behind it, one line per fact.
    pub evidence: Vec<String>,
    /// The exact command to run next, where there is one.
    pub next_step: Option<String>,
    /// Findings that hold as well (clock-limited).
    pub findings: Vec<UtilFinding>,
}

impl Verdict {
    /// True when `kind` is among the extra findings.
    pub fn has_finding(&self, kind: FindingKind) -> bool {
        self.findings.iter().any(|f| f.kind == kind)
    }
}

/// The verdict on a recording taken while `command` ran.
pub fn judge_run<S: AsRef<OsStr>>(summaries: &[DeviceSummary], command: &[S]) -> Verdict {
    let Some(lead) = busiest(summaries) else { return no_data(summaries) };
    let mut evidence: Vec<String> = summaries.iter().map(describe).collect();
    if lead.samples < MIN_VERDICT_SAMPLES {
        let headline = format!(
            "too short to tell: {} sample(s) of device {} over {:.1} s; run longer or sample faster (--interval 20ms)",
            lead.samples, lead.device, lead.duration_s
        );
        return Verdict { kind: VerdictKind::TooShort, headline, evidence, next_step: None, findings: Vec::new() };
    }
    let peak = summaries.iter().filter_map(|s| s.gpu_util_peak_pct).fold(0.0, f64::max);
    if peak < BUSY_UTIL_PCT {
        let headline = format!(
            "idle: no device did any work while it was watched (peak utilization {} %); is the work placed on \
             this machine's accelerator (CUDA_VISIBLE_DEVICES, device placement)?",
            num(peak)
        );
        return Verdict { kind: VerdictKind::Idle, headline, evidence, next_step: None, findings: Vec::new() };
    }
    let mean = lead.gpu_util_mean_pct.unwrap_or(0.0);
    let busy_share = lead.busy_share_pct.unwrap_or(0.0);
    let mut reasons = Vec::new();
    if mean < HOST_BOUND_MEAN_UTIL_PCT {
        reasons.push(format!("mean utilization {} % is below {} %", num(mean), num(HOST_BOUND_MEAN_UTIL_PCT)));
    }
    if busy_share < HOST_BOUND_BUSY_SHARE_PCT {
        reasons.push(format!("busy in {} % of samples, below {} %", num(busy_share), num(HOST_BOUND_BUSY_SHARE_PCT)));
    }
    if let Some(sm) = lead.activity_mean(SM_ACTIVITY_METRIC).filter(|&sm| sm < HOST_BOUND_MEAN_UTIL_PCT) {
        reasons.push(format!(
            "SM activity ({SM_ACTIVITY_METRIC}) averaged {} %, below {} %, while utilization averaged {} %: kernels \
             were resident but tiny, so the device mostly waits for launches",
            num(sm),
            num(HOST_BOUND_MEAN_UTIL_PCT),
            num(mean)
        ));
    }
    evidence.extend(resident_not_active(summaries));
    let (kind, headline, next_step) = if reasons.is_empty() {
        let headline = format!(
            "busy: device {} was busy in {} % of samples (mean utilization {} %); next, see which kernels take the time",
            lead.device,
            num(busy_share),
            num(mean)
        );
        (VerdictKind::Busy, headline, Some(format!("prof breakdown -- {}", shell_join(command))))
    } else {
        evidence.push(format!("device {} (the busiest): {}", lead.device, reasons.join("; ")));
        let headline = "host-bound: CPU, transfers or a small batch keep the device waiting; \
                        stop here, a kernel trace won't help"
            .to_owned();
        (VerdictKind::HostBound, headline, None)
    };
    Verdict { kind, headline, evidence, next_step, findings: clock_limited(summaries).into_iter().collect() }
}

/// The verdict on a one-shot reading: which devices are busy now.
pub fn judge_snapshot(summaries: &[DeviceSummary]) -> Verdict {
    if busiest(summaries).is_none() {
        return no_data(summaries);
    }
    let busy: Vec<String> = summaries
        .iter()
        .filter(|s| s.gpu_util_mean_pct.is_some_and(|u| u >= BUSY_UTIL_PCT))
        .map(|s| format!("device {} ({} %)", s.device, num(s.gpu_util_mean_pct.unwrap_or(0.0))))
        .collect();
    let headline = match (busy.len(), summaries.len()) {
        (0, 1) => "snapshot: the device is idle".to_owned(),
        (0, n) => format!("snapshot: all {n} devices are idle"),
        (b, n) => format!("snapshot: {b} of {n} devices busy: {}", busy.join(", ")),
    };
    let mut evidence: Vec<String> = summaries.iter().map(describe).collect();
    evidence.extend(resident_not_active(summaries));
    Verdict {
        kind: VerdictKind::Snapshot,
        headline,
        evidence,
        next_step: None,
        findings: clock_limited(summaries).into_iter().collect(),
    }
}

fn busiest(summaries: &[DeviceSummary]) -> Option<&DeviceSummary> {
    summaries
        .iter()
        .filter(|s| s.gpu_util_mean_pct.is_some())
        .max_by(|a, b| a.gpu_util_mean_pct.unwrap_or(0.0).total_cmp(&b.gpu_util_mean_pct.unwrap_or(0.0)))
}

fn no_data(summaries: &[DeviceSummary]) -> Verdict {
    let evidence = if summaries.is_empty() {
        vec!["no sample was taken: the command ended within one interval, or every probe call failed".to_owned()]
    } else {
        summaries.iter().map(describe).collect()
    };
    Verdict {
        kind: VerdictKind::NoData,
        headline: "no data: no device reported its utilization, so busy or idle is unknown".to_owned(),
        evidence,
        next_step: None,
        findings: Vec::new(),
    }
}

fn describe(s: &DeviceSummary) -> String {
    match (s.gpu_util_mean_pct, s.gpu_util_median_pct, s.gpu_util_peak_pct, s.busy_share_pct) {
        (Some(mean), Some(median), Some(peak), Some(busy)) => format!(
            "device {}: utilization mean {} %, median {} %, peak {} %; busy (≥ {} %) in {} % of {}",
            s.device,
            num(mean),
            num(median),
            num(peak),
            num(BUSY_UTIL_PCT),
            num(busy),
            plural_samples(s.samples)
        ),
        _ => format!("device {}: utilization not reported ({})", s.device, plural_samples(s.samples)),
    }
}

fn plural_samples(n: usize) -> String {
    if n == 1 {
        "1 sample".to_owned()
    } else {
        format!("{n} samples")
    }
}

fn resident_not_active(summaries: &[DeviceSummary]) -> Vec<String> {
    summaries
        .iter()
        .filter_map(|s| {
            let util = s.gpu_util_mean_pct.filter(|u| *u >= HOST_BOUND_MEAN_UTIL_PCT)?;
            let sm = s.activity_mean(SM_ACTIVITY_METRIC).filter(|sm| *sm < RESIDENT_NOT_ACTIVE_RATIO * util)?;
            Some(format!(
                "device {}: SM activity ({SM_ACTIVITY_METRIC}) averaged {} % while utilization averaged {} %: \
                 utilization.gpu only means a kernel was resident, not that the SMs were busy",
                s.device,
                num(sm),
                num(util)
            ))
        })
        .collect()
}

fn clock_limited(summaries: &[DeviceSummary]) -> Option<UtilFinding> {
    let mut evidence = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for s in summaries.iter().filter(|s| s.busy_samples > 0) {
        let limiting: Vec<_> = s
            .throttle_reasons
            .iter()
            .flatten()
            .filter(|t| t.reason != IDLE_THROTTLE_REASON)
            .filter(|t| t.busy_share_pct.is_some_and(|p| p >= CLOCK_LIMITED_BUSY_SHARE_PCT))
            .collect();
        if limiting.is_empty() {
            continue;
        }
        for t in &limiting {
            evidence.push(format!(
                "device {}: {} active in {} % of busy samples",
                s.device,
                t.reason,
                num(t.busy_share_pct.unwrap_or(0.0))
            ));
            if !names.contains(&t.reason.as_str()) {
                names.push(&t.reason);
            }
        }
        if let (Some(max), Some(limit)) = (s.power_max_w, s.power_limit_w) {
            evidence.push(format!("device {}: power peaked at {} W of a {} W limit", s.device, num(max), num(limit)));
        }
        if let (Some(low), Some(high), Some(max)) = (s.sm_clock_lowest_mhz, s.sm_clock_highest_mhz, s.sm_clock_max_mhz)
        {
            evidence.push(format!("device {}: SM clock {low}–{high} MHz of a {max} MHz maximum", s.device));
        }
    }
    if names.is_empty() {
        return None;
    }
    let headline = format!(
        "clock-limited: {} held the clocks down while busy; numbers are not representative until \
         the thermal/power limit is addressed",
        names.join(", ")
    );
    Some(UtilFinding { kind: FindingKind::ClockLimited, headline, evidence })
}

/// A number for a sentence: one decimal at most, no trailing `.0`.
fn num(value: f64) -> String {
    let rounded = format!("{value:.1}");
    rounded.strip_suffix(".0").map(str::to_owned).unwrap_or(rounded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util_summary::ActivityMean;

    fn device(util: f64, sm_activity: Option<f64>) -> DeviceSummary {
        DeviceSummary {
            samples: 50,
            duration_s: 5.0,
            gpu_util_peak_pct: Some(util + 10.0),
            gpu_util_mean_pct: Some(util),
            busy_share_pct: Some(90.0),
            busy_samples: 45,
            activity: sm_activity
                .map(|mean| ActivityMean { name: SM_ACTIVITY_METRIC.to_owned(), mean, samples: 50 })
                .into_iter()
                .collect(),
            ..DeviceSummary::default()
        }
    }

    /// 39 % utilization: busy by utilization alone; with SM activity at 0.4 % the SMs did
    /// almost nothing: host-bound at the util step, no breakdown suggested.
    #[test]
    fn sm_activity_overrules_utilization() {
        let busy = judge_run(&[device(39.0, None)], &["python3", "app.py"]);
        assert_eq!(busy.kind, VerdictKind::Busy);
        let tiny = judge_run(&[device(39.0, Some(0.4))], &["python3", "app.py"]);
        assert_eq!(tiny.kind, VerdictKind::HostBound, "{}", tiny.headline);
        assert_eq!(tiny.next_step, None);
        assert!(
            tiny.evidence.iter().any(|e| e.contains("SM activity (sm_activity_pct) averaged 0.4 %")),
            "{:?}",
            tiny.evidence
        );
        let active = judge_run(&[device(39.0, Some(35.0))], &["python3", "app.py"]);
        assert_eq!(active.kind, VerdictKind::Busy);
    }
}
