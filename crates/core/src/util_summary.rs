//! Per-device summary of a utilization recording: the body of `prof util --json`.
//!
//! Schema (one [`DeviceSummary`] per device, sorted by device index): percentages are
//! 0–100, memory is bytes, clocks MHz, power W, temperature °C, durations seconds.
//! Every statistic is taken over the samples that reported that value; a value the probe
//! never reported is `null` (unknown is never 0). Medians of an even count are the mean
//! of the two middle values.

use crate::probe::DeviceSample;
use crate::recorder::Tick;
use serde::Serialize;
use std::collections::BTreeMap;

/// A sample counts as busy when its `gpu_util_pct` is at least this (percent): NVML and
/// the SMIs report a few percent on an idle device from housekeeping kernels.
pub(crate) const BUSY_UTIL_PCT: f64 = 5.0;

/// Everything `prof util` knows about one device over a recording.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviceSummary {
    /// Device index.
    pub device: u32,
    /// Ticks that carried a sample of this device.
    pub samples: usize,
    /// Time between this device's first and last sample, seconds (0 for a snapshot).
    pub duration_s: f64,
    /// Highest `gpu_util_pct`.
    pub gpu_util_peak_pct: Option<f64>,
    /// Mean `gpu_util_pct`.
    pub gpu_util_mean_pct: Option<f64>,
    /// Median `gpu_util_pct`.
    pub gpu_util_median_pct: Option<f64>,
    /// Share of samples reporting `gpu_util_pct` where it was at least [`BUSY_UTIL_PCT`].
    pub busy_share_pct: Option<f64>,
    /// Samples counted busy.
    pub busy_samples: usize,
    /// Mean memory-controller utilization.
    pub mem_util_mean_pct: Option<f64>,
    /// Highest memory-controller utilization.
    pub mem_util_peak_pct: Option<f64>,
    /// Most device memory in use at any sample, bytes.
    pub mem_used_peak_bytes: Option<u64>,
    /// Device memory in all, bytes (the last reported value).
    pub mem_total_bytes: Option<u64>,
    /// Lowest SM clock seen, MHz.
    pub sm_clock_lowest_mhz: Option<u32>,
    /// Highest SM clock seen, MHz.
    pub sm_clock_highest_mhz: Option<u32>,
    /// The device's maximum SM clock, MHz (the last reported value).
    pub sm_clock_max_mhz: Option<u32>,
    /// Lowest power draw, W.
    pub power_min_w: Option<f64>,
    /// Highest power draw, W.
    pub power_max_w: Option<f64>,
    /// Mean power draw, W.
    pub power_mean_w: Option<f64>,
    /// Enforced power limit, W (the last reported value).
    pub power_limit_w: Option<f64>,
    /// Highest temperature, °C.
    pub temperature_max_c: Option<f64>,
    /// Every clock-limiting reason seen, by name; `None` when the probe reports none of this.
    pub throttle_reasons: Option<Vec<ThrottleShare>>,
    /// Each process seen on the device, by pid.
    pub processes: Vec<ProcessPeak>,
    /// Each richer activity metric seen (`sm_activity_pct` from NVML GPM), in first-seen order.
    pub activity: Vec<ActivityMean>,
}

/// How often one clock-limiting reason was active.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThrottleShare {
    /// Reason name as the backend decodes it (`sw_power_cap`, `gpu_idle`).
    pub reason: String,
    /// Samples it was active in.
    pub samples: usize,
    /// Share of the samples that reported throttle information, percent.
    pub share_pct: f64,
    /// Share of the busy samples that reported throttle information; `None` without any.
    pub busy_share_pct: Option<f64>,
}

/// One process's largest footprint on a device.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProcessPeak {
    /// Process id.
    pub pid: u32,
    /// Process name, where known.
    pub name: Option<String>,
    /// Most device memory it held at any sample, bytes.
    pub mem_used_peak_bytes: Option<u64>,
}

/// The mean of one activity metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ActivityMean {
    /// Metric name (`sm_activity_pct`).
    pub name: String,
    /// Mean over the samples that reported it.
    pub mean: f64,
    /// Samples that reported it.
    pub samples: usize,
}

/// One summary per device seen in `ticks`, sorted by device index.
pub fn summarize(ticks: &[Tick]) -> Vec<DeviceSummary> {
    let mut by_device: BTreeMap<u32, Vec<(u64, &DeviceSample)>> = BTreeMap::new();
    for tick in ticks {
        for sample in &tick.samples {
            by_device.entry(sample.device).or_default().push((tick.t_ns, sample));
        }
    }
    by_device.into_iter().map(|(device, samples)| summarize_device(device, &samples)).collect()
}

/// The summary of one device from its `(t_ns, sample)` series.
pub(crate) fn summarize_device(device: u32, series: &[(u64, &DeviceSample)]) -> DeviceSummary {
    let samples: Vec<&DeviceSample> = series.iter().map(|(_, s)| *s).collect();
    let first = series.iter().map(|(t, _)| *t).min().unwrap_or(0);
    let last = series.iter().map(|(t, _)| *t).max().unwrap_or(0);
    let util = floats(&samples, |s| s.gpu_util_pct);
    let busy_samples = util.iter().filter(|u| **u >= BUSY_UTIL_PCT).count();
    let mem_util = floats(&samples, |s| s.mem_util_pct);
    let sm_clock: Vec<u32> = samples.iter().filter_map(|s| s.sm_clock_mhz).collect();
    let power = floats(&samples, |s| s.power_w);
    DeviceSummary {
        device,
        samples: samples.len(),
        duration_s: (last - first) as f64 / 1e9,
        gpu_util_peak_pct: peak(&util),
        gpu_util_mean_pct: mean(&util),
        gpu_util_median_pct: median(&util),
        busy_share_pct: share(busy_samples, util.len()),
        busy_samples,
        mem_util_mean_pct: mean(&mem_util),
        mem_util_peak_pct: peak(&mem_util),
        mem_used_peak_bytes: samples.iter().filter_map(|s| s.mem_used_bytes).max(),
        mem_total_bytes: samples.iter().rev().find_map(|s| s.mem_total_bytes),
        sm_clock_lowest_mhz: sm_clock.iter().copied().min(),
        sm_clock_highest_mhz: sm_clock.iter().copied().max(),
        sm_clock_max_mhz: samples.iter().rev().find_map(|s| s.sm_clock_max_mhz),
        power_min_w: power.iter().copied().reduce(f64::min),
        power_max_w: peak(&power),
        power_mean_w: mean(&power),
        power_limit_w: samples.iter().rev().find_map(|s| s.power_limit_w.filter(|w| w.is_finite())),
        temperature_max_c: peak(&floats(&samples, |s| s.temperature_c)),
        throttle_reasons: throttle_shares(&samples),
        processes: process_peaks(&samples),
        activity: activity_means(&samples),
    }
}

impl DeviceSummary {
    /// The mean of activity metric `name`, where the probe reported it.
    pub fn activity_mean(&self, name: &str) -> Option<f64> {
        self.activity.iter().find(|a| a.name == name).map(|a| a.mean)
    }
}

fn is_busy(sample: &DeviceSample) -> bool {
    sample.gpu_util_pct.is_some_and(|u| u.is_finite() && u >= BUSY_UTIL_PCT)
}

fn throttle_shares(samples: &[&DeviceSample]) -> Option<Vec<ThrottleShare>> {
    let reporting: Vec<(&Vec<String>, bool)> =
        samples.iter().filter_map(|s| s.throttle_reasons.as_ref().map(|r| (r, is_busy(s)))).collect();
    if reporting.is_empty() {
        return None;
    }
    let busy_reporting = reporting.iter().filter(|(_, busy)| *busy).count();
    let mut counts: Vec<(String, usize, usize)> = Vec::new();
    for (reasons, busy) in &reporting {
        for reason in *reasons {
            let index = match counts.iter().position(|(name, _, _)| name == reason) {
                Some(index) => index,
                None => {
                    counts.push((reason.clone(), 0, 0));
                    counts.len() - 1
                }
            };
            if let Some(entry) = counts.get_mut(index) {
                entry.1 += 1;
                entry.2 += usize::from(*busy);
            }
        }
    }
    let shares = counts
        .into_iter()
        .map(|(reason, samples, busy)| ThrottleShare {
            reason,
            samples,
            share_pct: share(samples, reporting.len()).unwrap_or(0.0),
            busy_share_pct: share(busy, busy_reporting),
        })
        .collect();
    Some(shares)
}

fn process_peaks(samples: &[&DeviceSample]) -> Vec<ProcessPeak> {
    let mut peaks: BTreeMap<u32, ProcessPeak> = BTreeMap::new();
    for process in samples.iter().flat_map(|s| &s.processes) {
        let entry =
            peaks.entry(process.pid).or_insert(ProcessPeak { pid: process.pid, name: None, mem_used_peak_bytes: None });
        if entry.name.is_none() {
            entry.name.clone_from(&process.name);
        }
        entry.mem_used_peak_bytes = entry.mem_used_peak_bytes.max(process.mem_used_bytes);
    }
    peaks.into_values().collect()
}

fn activity_means(samples: &[&DeviceSample]) -> Vec<ActivityMean> {
    let mut sums: Vec<(String, f64, usize)> = Vec::new();
    for (name, value) in samples.iter().flat_map(|s| &s.activity).filter(|(_, v)| v.is_finite()) {
        match sums.iter_mut().find(|(n, _, _)| n == name) {
            Some(entry) => {
                entry.1 += value;
                entry.2 += 1;
            }
            None => sums.push((name.clone(), *value, 1)),
        }
    }
    sums.into_iter().map(|(name, sum, samples)| ActivityMean { name, mean: sum / samples as f64, samples }).collect()
}

fn floats(samples: &[&DeviceSample], value: impl Fn(&DeviceSample) -> Option<f64>) -> Vec<f64> {
    samples.iter().filter_map(|s| value(s)).filter(|v| v.is_finite()).collect()
}

fn peak(values: &[f64]) -> Option<f64> {
    values.iter().copied().reduce(f64::max)
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => sorted.get(middle).copied(),
        _ => Some((sorted.get(middle - 1)? + sorted.get(middle)?) / 2.0),
    }
}

fn share(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| 100.0 * part as f64 / whole as f64)
}
