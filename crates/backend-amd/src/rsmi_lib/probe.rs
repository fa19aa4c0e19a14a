//! The utilization probe over the ROCm SMI library: one library call per value, no process per
//! sample. Busy percent, memory busy percent, VRAM used / total, power (µW) and power cap,
//! junction temperature (edge where junction is not reported; millidegrees), and the current and
//! highest DPM level of the system and memory clocks (Hz). ROCm SMI has no simple throttle call
//! (throttle bits live in the versioned `gpu_metrics` table), so `throttle_reasons` is `None`.

use super::ffi::{RsmiApi, CLK_TYPE_MEM, CLK_TYPE_SYS, TEMP_TYPE_EDGE, TEMP_TYPE_JUNCTION};
use super::frequencies::{self, ClockLevels};
use prof_core::{DeviceInfo, DeviceSample, Result, UtilizationProbe};
use std::ffi::OsStr;

/// Samples every GPU the ROCm SMI library monitors. Shuts the library down when dropped.
pub struct RsmiProbe {
    api: RsmiApi,
    version: Option<String>,
    devices: Vec<DeviceInfo>,
}

impl RsmiProbe {
    /// Loads `library`, initialises it and lists its devices. The message of the error names the
    /// library and what failed: loading, a missing symbol, `rsmi_init` with the library's status
    /// text, or an empty device list.
    pub fn open(library: &OsStr) -> std::result::Result<Self, String> {
        let api = RsmiApi::load(library)?;
        if let Err(code) = api.init() {
            return Err(format!("ROCm SMI library {}: rsmi_init failed with {}", api.label(), api.describe(code)));
        }
        let version = api.version().map(|(version, _)| version);
        let mut probe = Self { api, version, devices: Vec::new() };
        let count = probe.api.device_count().map_err(|code| {
            format!(
                "ROCm SMI library {}: rsmi_num_monitor_devices failed with {}",
                probe.api.label(),
                probe.describe(code)
            )
        })?;
        if count == 0 {
            return Err(format!("ROCm SMI library {} lists no GPU", probe.api.label()));
        }
        probe.devices = (0..count).map(|index| probe.device_info(index)).collect();
        Ok(probe)
    }

    fn describe(&self, code: u32) -> String {
        self.api.describe(code)
    }

    fn device_info(&self, index: u32) -> DeviceInfo {
        DeviceInfo {
            index,
            name: self.api.name(index).ok().filter(|n| !n.is_empty()).unwrap_or_else(|| "AMD GPU".to_owned()),
            memory_total_mib: self.api.vram_total(index).ok().map(|b| b / (1024 * 1024)),
            ..DeviceInfo::default()
        }
    }

    fn clock(&self, index: u32, clock: u32) -> Option<ClockLevels> {
        self.api.clock_frequencies(index, clock).ok().and_then(|buffer| frequencies::decode(&buffer.0))
    }

    fn read(&self, index: u32) -> DeviceSample {
        let api = &self.api;
        let sm = self.clock(index, CLK_TYPE_SYS);
        let mem = self.clock(index, CLK_TYPE_MEM);
        let temperature = api
            .temperature_millicelsius(index, TEMP_TYPE_JUNCTION)
            .or_else(|_| api.temperature_millicelsius(index, TEMP_TYPE_EDGE));
        DeviceSample {
            device: index,
            gpu_util_pct: api.busy_percent(index).ok().map(f64::from),
            mem_util_pct: api.memory_busy_percent(index).ok().map(f64::from),
            mem_used_bytes: api.vram_used(index).ok(),
            mem_total_bytes: api.vram_total(index).ok(),
            sm_clock_mhz: sm.as_ref().and_then(ClockLevels::current_mhz),
            sm_clock_max_mhz: sm.as_ref().and_then(ClockLevels::max_mhz),
            mem_clock_mhz: mem.as_ref().and_then(ClockLevels::current_mhz),
            mem_clock_max_mhz: mem.as_ref().and_then(ClockLevels::max_mhz),
            power_w: api.power_microwatts(index).ok().map(|uw| uw as f64 / 1e6),
            power_limit_w: api.power_cap_microwatts(index).ok().map(|uw| uw as f64 / 1e6),
            temperature_c: temperature.ok().map(|milli| milli as f64 / 1000.0),
            throttle_reasons: None,
            ..DeviceSample::default()
        }
    }
}

impl Drop for RsmiProbe {
    fn drop(&mut self) {
        let _ = self.api.shut_down();
    }
}

impl UtilizationProbe for RsmiProbe {
    fn source(&self) -> String {
        match &self.version {
            Some(version) => format!("ROCm SMI library {version} ({})", self.api.label()),
            None => format!("ROCm SMI library ({})", self.api.label()),
        }
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(self.devices.clone())
    }

    fn sample(&mut self) -> Result<Vec<DeviceSample>> {
        Ok(self.devices.iter().map(|d| self.read(d.index)).collect())
    }
}
