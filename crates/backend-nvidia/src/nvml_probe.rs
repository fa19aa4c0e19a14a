//! The NVIDIA utilization probe over NVML, loaded at run time (the binary starts where
//! NVML is absent and says so). On Hopper and newer it adds the GPM metrics, because
//! `utilization.gpu` at 100 % only means a kernel was resident, not that the SMs were busy.

use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::enums::gpm::GpmMetricId;
use nvml_wrapper::{Device, GpmSample, Nvml};
use prof_core::{DeviceInfo, DeviceSample, Error, ProcessUse, Result, UtilizationProbe};
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How often per-process SM utilization is read. `nvmlDeviceGetProcessUtilization` cost
/// 2.3 ms a call on the H200 (examples/nvml_cost.rs), 100 times the rest of a sample, and
/// the driver buffers its samples, so reading it once a second loses nothing.
pub const PROCESS_UTIL_PERIOD: Duration = Duration::from_secs(1);

/// Least time between two GPM reads. GPM metrics are rates over the time between two
/// samples; at shorter sampling intervals they are computed only on the ticks where this
/// much time has passed, and absent (not repeated) on the others.
pub const GPM_PERIOD: Duration = Duration::from_millis(100);

/// The GPM metrics sampled, with the names they get in [`DeviceSample::activity`].
const GPM_METRICS: [(GpmMetricId, &str); 5] = [
    (GpmMetricId::SmUtil, "sm_activity_pct"),
    (GpmMetricId::SmOccupancy, "sm_occupancy_pct"),
    (GpmMetricId::AnyTensorUtil, "tensor_activity_pct"),
    (GpmMetricId::DramBwUtil, "dram_bw_util_pct"),
    (GpmMetricId::GraphicsUtil, "graphics_activity_pct"),
];

static NVML: OnceLock<std::result::Result<Nvml, String>> = OnceLock::new();

/// The process-wide NVML handle, initialised on first use. NVML is one library per
/// process; sharing it lets GPM samples borrow it for `'static`.
pub fn shared_nvml() -> std::result::Result<&'static Nvml, String> {
    NVML.get_or_init(|| {
        let library = crate::nvml_detect::library_name();
        Nvml::builder()
            .lib_path(&library)
            .init()
            .map_err(|e| format!("NVML ({}) could not be loaded: {e}", library.to_string_lossy()))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// The previous GPM sample: each metric is a rate between two samples.
struct GpmState {
    previous: GpmSample<'static>,
    taken: Instant,
}

struct ProbedDevice {
    info: DeviceInfo,
    device: Device<'static>,
    sm_clock_max_mhz: Option<u32>,
    mem_clock_max_mhz: Option<u32>,
    gpm: Option<GpmState>,
    last_process_timestamp: Option<u64>,
    last_process_read: Option<Instant>,
    process_sm_util: HashMap<u32, f64>,
    process_names: HashMap<u32, Option<String>>,
}

/// Samples every NVIDIA device through NVML.
pub struct NvmlProbe {
    nvml: &'static Nvml,
    devices: Vec<ProbedDevice>,
}

impl NvmlProbe {
    /// Opens NVML and every device; fails with the install line when NVML is absent.
    pub fn open() -> Result<Self> {
        let nvml = shared_nvml().map_err(|reason| {
            if reason.contains("cannot open shared object file") {
                let library = crate::nvml_detect::library_name();
                let tool = format!("NVML ({})", library.to_string_lossy());
                Error::ToolMissing { tool, install: crate::tools::install::DRIVER.to_owned() }
            } else {
                Error::Unsupported(reason)
            }
        })?;
        let count = nvml.device_count().map_err(|e| Error::Unsupported(format!("NVML device count: {e}")))?;
        let mut devices = Vec::new();
        for index in 0..count {
            let device =
                nvml.device_by_index(index).map_err(|e| Error::Unsupported(format!("NVML device {index}: {e}")))?;
            devices.push(ProbedDevice::new(index, device));
        }
        Ok(Self { nvml, devices })
    }
}

impl ProbedDevice {
    fn new(index: u32, device: Device<'static>) -> Self {
        let info = DeviceInfo {
            index,
            name: device.name().unwrap_or_else(|_| "NVIDIA GPU".to_owned()),
            uuid: device.uuid().ok(),
            bus_id: device.pci_info().ok().map(|p| p.bus_id),
            memory_total_mib: device.memory_info().ok().map(|m| m.total / (1024 * 1024)),
            architecture: device.cuda_compute_capability().ok().map(|c| format!("{}.{}", c.major, c.minor)),
        };
        let gpm = match device.gpm_support() {
            Ok(true) => device.gpm_sample().ok().map(|previous| GpmState { previous, taken: Instant::now() }),
            _ => None,
        };
        Self {
            info,
            sm_clock_max_mhz: device.max_clock_info(Clock::SM).ok(),
            mem_clock_max_mhz: device.max_clock_info(Clock::Memory).ok(),
            device,
            gpm,
            last_process_timestamp: None,
            last_process_read: None,
            process_sm_util: HashMap::new(),
            process_names: HashMap::new(),
        }
    }

    fn sample(&mut self, nvml: &'static Nvml) -> DeviceSample {
        let d = &self.device;
        let utilization = d.utilization_rates().ok();
        let memory = d.memory_info().ok();
        let mut sample = DeviceSample {
            device: self.info.index,
            gpu_util_pct: utilization.as_ref().map(|u| f64::from(u.gpu)),
            mem_util_pct: utilization.as_ref().map(|u| f64::from(u.memory)),
            mem_used_bytes: memory.as_ref().map(|m| m.used),
            mem_total_bytes: memory.as_ref().map(|m| m.total),
            sm_clock_mhz: d.clock_info(Clock::SM).ok(),
            sm_clock_max_mhz: self.sm_clock_max_mhz,
            mem_clock_mhz: d.clock_info(Clock::Memory).ok(),
            mem_clock_max_mhz: self.mem_clock_max_mhz,
            power_w: d.power_usage().ok().map(|mw| f64::from(mw) / 1000.0),
            power_limit_w: d.enforced_power_limit().ok().map(|mw| f64::from(mw) / 1000.0),
            temperature_c: d.temperature(TemperatureSensor::Gpu).ok().map(f64::from),
            throttle_reasons: d.current_throttle_reasons().ok().map(|r| crate::reasons::decode_reason_mask(r.bits())),
            processes: Vec::new(),
            activity: Vec::new(),
        };
        sample.processes = self.processes(nvml);
        sample.activity = self.gpm_activity(nvml);
        sample
    }

    fn processes(&mut self, nvml: &'static Nvml) -> Vec<ProcessUse> {
        let running = self.device.running_compute_processes().unwrap_or_default();
        if running.is_empty() {
            return Vec::new();
        }
        if self.last_process_read.is_none_or(|at| at.elapsed() >= PROCESS_UTIL_PERIOD) {
            self.last_process_read = Some(Instant::now());
            if let Ok(stats) = self.device.process_utilization_stats(self.last_process_timestamp) {
                for stat in stats {
                    self.last_process_timestamp = Some(self.last_process_timestamp.unwrap_or(0).max(stat.timestamp));
                    self.process_sm_util.insert(stat.pid, f64::from(stat.sm_util));
                }
            }
        }
        running
            .into_iter()
            .map(|p| ProcessUse {
                pid: p.pid,
                name: self
                    .process_names
                    .entry(p.pid)
                    .or_insert_with(|| nvml.sys_process_name(p.pid, 256).ok().or_else(|| process_name_from_proc(p.pid)))
                    .clone(),
                mem_used_bytes: match p.used_gpu_memory {
                    UsedGpuMemory::Used(bytes) => Some(bytes),
                    UsedGpuMemory::Unavailable => None,
                },
                sm_util_pct: self.process_sm_util.get(&p.pid).copied(),
            })
            .collect()
    }

    fn gpm_activity(&mut self, nvml: &'static Nvml) -> Vec<(String, f64)> {
        let Some(gpm) = self.gpm.as_mut() else { return Vec::new() };
        if gpm.taken.elapsed() < GPM_PERIOD {
            return Vec::new();
        }
        let Ok(current) = self.device.gpm_sample() else { return Vec::new() };
        let ids: Vec<GpmMetricId> = GPM_METRICS.iter().map(|(id, _)| *id).collect();
        let results = nvml_wrapper::gpm::gpm_metrics_get(nvml, &gpm.previous, &current, &ids);
        gpm.previous = current;
        gpm.taken = Instant::now();
        let Ok(results) = results else { return Vec::new() };
        GPM_METRICS
            .iter()
            .zip(results)
            .filter_map(|((_, name), result)| result.ok().map(|r| ((*name).to_owned(), r.value)))
            .collect()
    }
}

fn process_name_from_proc(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).ok().map(|s| s.trim().to_owned())
}

impl UtilizationProbe for NvmlProbe {
    fn source(&self) -> String {
        match self.nvml.sys_nvml_version() {
            Ok(version) => format!("NVML {version}"),
            Err(_) => "NVML".to_owned(),
        }
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(self.devices.iter().map(|d| d.info.clone()).collect())
    }

    fn sample(&mut self) -> Result<Vec<DeviceSample>> {
        let nvml = self.nvml;
        Ok(self.devices.iter_mut().map(|d| d.sample(nvml)).collect())
    }
}
