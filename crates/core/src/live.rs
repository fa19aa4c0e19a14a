//! A rolling view of every device, for a live view (`prof top`) and an exporter (`prof
//! exporter`): the probe's ticks of the last N seconds (a bounded window, so memory holds over
//! days), the last sample of each device and its verdict over the window, judged by the rules
//! `prof util` applies to a recording ([`crate::judge_run`]): idle, busy, host-bound (with the
//! SM-activity trap: resident tiny kernels), clock-limited, too short. The sampler's own health
//! (ticks, failures, the last failure, what a sample costs) travels with it.

use crate::probe::{DeviceInfo, DeviceSample};
use crate::recorder::Tick;
use crate::util_summary::{summarize, DeviceSummary};
use crate::util_verdict::{judge_run, FindingKind, VerdictKind, SM_ACTIVITY_METRIC};
use serde::Serialize;
use std::collections::VecDeque;

/// The verdict on one device over the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LiveKind {
    /// Busy: kernels resident most of the window.
    Busy,
    /// Busy, but power or thermal limits held the clocks down.
    ClockLimited,
    /// Work arrives, but the device mostly waits (or runs tiny kernels).
    HostBound,
    /// No work in the window.
    Idle,
    /// Too few samples yet.
    TooShort,
    /// The device reports no utilization.
    NoData,
}

impl LiveKind {
    /// Every kind, for a labelled gauge that lists them all.
    pub const ALL: [LiveKind; 6] = [
        LiveKind::Busy,
        LiveKind::ClockLimited,
        LiveKind::HostBound,
        LiveKind::Idle,
        LiveKind::TooShort,
        LiveKind::NoData,
    ];

    /// Its name (`host_bound`).
    pub fn label(self) -> &'static str {
        match self {
            LiveKind::Busy => "busy",
            LiveKind::ClockLimited => "clock_limited",
            LiveKind::HostBound => "host_bound",
            LiveKind::Idle => "idle",
            LiveKind::TooShort => "too_short",
            LiveKind::NoData => "no_data",
        }
    }
}

/// One device now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LiveDevice {
    /// What it is.
    pub info: DeviceInfo,
    /// Its last sample.
    pub last: Option<DeviceSample>,
    /// Its window's summary.
    pub summary: Option<DeviceSummary>,
    /// Its verdict over the window.
    pub verdict: LiveKind,
    /// Why, in one line.
    pub reason: String,
}

impl LiveDevice {
    /// SM activity of the last sample (NVML GPM), percent; absent where the vendor has none.
    pub fn sm_activity_pct(&self) -> Option<f64> {
        self.last.as_ref()?.activity.iter().find(|(k, _)| k == SM_ACTIVITY_METRIC).map(|(_, v)| *v)
    }
}

/// The sampler's health.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SamplerHealth {
    /// Ticks sampled.
    pub samples: u64,
    /// Ticks that failed.
    pub errors: u64,
    /// The last failure.
    pub last_error: Option<String>,
    /// What the last sample took, seconds.
    pub last_cost_s: f64,
    /// When the last sample was taken, seconds since the Unix epoch.
    pub last_unix_s: f64,
}

/// The window and what it holds.
#[derive(Debug, Clone)]
pub struct Live {
    /// Where the numbers come from (the probe's source).
    pub source: String,
    /// The vendor (`nvidia`, `amd`, `ascend`).
    pub vendor: String,
    devices: Vec<DeviceInfo>,
    window_ns: u64,
    ticks: VecDeque<Tick>,
    /// The sampler's health.
    pub health: SamplerHealth,
}

/// One view of the window: every device with its verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LiveView {
    /// Where the numbers come from.
    pub source: String,
    /// The vendor.
    pub vendor: String,
    /// The window the verdicts are over, seconds.
    pub window_s: f64,
    /// Every device.
    pub devices: Vec<LiveDevice>,
    /// The sampler's health.
    pub health: SamplerHealth,
}

impl Live {
    /// An empty window of `window_s` seconds over `devices`.
    pub fn new(source: String, vendor: &str, devices: Vec<DeviceInfo>, window_s: f64) -> Self {
        let window_ns = (window_s.max(0.0) * 1e9) as u64;
        Self {
            source,
            vendor: vendor.to_owned(),
            devices,
            window_ns,
            ticks: VecDeque::new(),
            health: SamplerHealth::default(),
        }
    }

    /// Adds a tick (its samples taken at `tick.t_ns`, costing `cost_s`, at `unix_s`); ticks older
    /// than the window are let go.
    pub fn push(&mut self, tick: Tick, cost_s: f64, unix_s: f64) {
        let now = tick.t_ns;
        self.ticks.push_back(tick);
        while self.ticks.front().is_some_and(|t| now.saturating_sub(t.t_ns) > self.window_ns) {
            self.ticks.pop_front();
        }
        self.health.samples += 1;
        self.health.last_cost_s = cost_s;
        self.health.last_unix_s = unix_s;
    }

    /// Counts a failed tick.
    pub fn failed(&mut self, error: String) {
        self.health.errors += 1;
        self.health.last_error = Some(error);
    }

    /// Ticks held (at most the window's worth).
    pub fn held(&self) -> usize {
        self.ticks.len()
    }

    /// Every device now, with its verdict over the window.
    pub fn view(&self) -> LiveView {
        let ticks: Vec<Tick> = self.ticks.iter().cloned().collect();
        let summaries = summarize(&ticks);
        let devices = self
            .devices
            .iter()
            .map(|info| {
                let last =
                    self.ticks.iter().rev().find_map(|t| t.samples.iter().find(|s| s.device == info.index)).cloned();
                let summary = summaries.iter().find(|s| s.device == info.index).cloned();
                let (verdict, reason) = judge(summary.as_ref());
                LiveDevice { info: info.clone(), last, summary, verdict, reason }
            })
            .collect();
        LiveView {
            source: self.source.clone(),
            vendor: self.vendor.clone(),
            window_s: self.window_ns as f64 / 1e9,
            devices,
            health: self.health.clone(),
        }
    }
}

/// One device's verdict over its window, by `prof util`'s rules, with a short reason.
fn judge(summary: Option<&DeviceSummary>) -> (LiveKind, String) {
    let Some(s) = summary else { return (LiveKind::NoData, "no sample yet".to_owned()) };
    let verdict = judge_run(std::slice::from_ref(s), &[] as &[&str]);
    let pct = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.0} %"));
    let util = format!("mean utilization {} over {:.0} s", pct(s.gpu_util_mean_pct), s.duration_s);
    match verdict.kind {
        VerdictKind::NoData => (LiveKind::NoData, "the device reports no utilization".to_owned()),
        VerdictKind::TooShort => (LiveKind::TooShort, format!("{} sample(s) so far", s.samples)),
        VerdictKind::Idle => (LiveKind::Idle, format!("no work: peak utilization {}", pct(s.gpu_util_peak_pct))),
        VerdictKind::HostBound => {
            let sm = s.activity_mean(SM_ACTIVITY_METRIC);
            let reason = match sm {
                Some(sm) if sm < 10.0 => format!("kernels resident but tiny: SM activity {sm:.0} %, {util}"),
                _ => format!("the device mostly waits: busy in {} of samples, {util}", pct(s.busy_share_pct)),
            };
            (LiveKind::HostBound, reason)
        }
        _ if verdict.has_finding(FindingKind::ClockLimited) => {
            let evidence = verdict.findings.first().and_then(|f| f.evidence.first()).cloned().unwrap_or_default();
            (LiveKind::ClockLimited, format!("{util}; clocks held down: {evidence}"))
        }
        _ => (LiveKind::Busy, format!("busy in {} of samples, {util}", pct(s.busy_share_pct))),
    }
}

#[cfg(test)]
mod tests;
