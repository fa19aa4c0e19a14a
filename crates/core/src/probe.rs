//! The [`UtilizationProbe`] trait and one sample of one device: question 1, "is it busy?".

use prof_timeline::error::Result;
use serde::Serialize;

/// One accelerator device.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviceInfo {
    /// Index as the vendor numbers it.
    pub index: u32,
    /// Marketing name (`NVIDIA H200`, `910B2`).
    pub name: String,
    /// Stable id (UUID, unique id), where known.
    pub uuid: Option<String>,
    /// PCI bus id, where known.
    pub bus_id: Option<String>,
    /// Device memory in MiB, where known.
    pub memory_total_mib: Option<u64>,
    /// Architecture / compute capability (`9.0`, `gfx942`), where known.
    pub architecture: Option<String>,
}

/// Samples device activity. `sample` takes `&mut self` because some counters
/// (NVML GPM) are rates computed between two consecutive reads.
pub trait UtilizationProbe: Send {
    /// Where the numbers come from (`NVML 13.580.159.04`, `nvidia-smi`), for reports.
    fn source(&self) -> String;
    /// The devices this probe samples.
    fn devices(&self) -> Result<Vec<DeviceInfo>>;
    /// One sample per device. A value the vendor does not report is `None`, never 0.
    fn sample(&mut self) -> Result<Vec<DeviceSample>>;
}

/// One reading of one device.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviceSample {
    /// Device index.
    pub device: u32,
    /// Share of the sample period a kernel was resident, percent.
    pub gpu_util_pct: Option<f64>,
    /// Share of the period device memory was read or written, percent.
    pub mem_util_pct: Option<f64>,
    /// Device memory in use, bytes.
    pub mem_used_bytes: Option<u64>,
    /// Device memory in all, bytes.
    pub mem_total_bytes: Option<u64>,
    /// Current SM / core clock, MHz.
    pub sm_clock_mhz: Option<u32>,
    /// Maximum SM / core clock, MHz.
    pub sm_clock_max_mhz: Option<u32>,
    /// Current memory clock, MHz.
    pub mem_clock_mhz: Option<u32>,
    /// Maximum memory clock, MHz.
    pub mem_clock_max_mhz: Option<u32>,
    /// Power draw, watts.
    pub power_w: Option<f64>,
    /// Enforced power limit, watts.
    pub power_limit_w: Option<f64>,
    /// Core temperature, °C.
    pub temperature_c: Option<f64>,
    /// Active clock-limiting reasons, decoded to names (`sw_power_cap`); empty when none.
    /// `None` when the vendor reports no throttle information.
    pub throttle_reasons: Option<Vec<String>>,
    /// Per-process use of this device.
    pub processes: Vec<ProcessUse>,
    /// Richer activity metrics where the vendor has them (`sm_activity_pct`, `tensor_activity_pct`).
    pub activity: Vec<(String, f64)>,
}

/// One process's use of a device.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProcessUse {
    /// Process id.
    pub pid: u32,
    /// Process name, where known.
    pub name: Option<String>,
    /// Device memory it holds, bytes.
    pub mem_used_bytes: Option<u64>,
    /// Its share of SM time, percent, where the vendor reports it.
    pub sm_util_pct: Option<f64>,
}
