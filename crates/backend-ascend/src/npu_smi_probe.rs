//! The utilization probe over `npu-smi`: one `npu-smi info` per sample for every NPU (AI Core
//! %, HBM used/total, power, temperature, processes), plus `npu-smi info -t common -i N` for
//! each NPU where that query works (the AI Core clock, current and rated, and the HBM usage
//! rate). Both parsers are tested on real recordings ([`crate::npu_smi`],
//! [`crate::common_info`]). A value npu-smi does not print stays absent, never 0; npu-smi
//! prints no throttle information, so `throttle_reasons` is absent too.
//!
//! `npu-smi info -t usages` (AI CPU, control CPU and bandwidth rates) is not read yet: real
//! samples exist in public text (a MindCluster FaultDiag guide, telegraf's npu_smi plugin
//! tests) but none is recorded in this project's fixtures, so its parser is left for later.

use crate::common_info::{common_args, parse_common, CommonInfo};
use crate::npu_smi::{parse_info, NpuChip, NpuSmiInfo, INFO_TOOL};
use crate::tools::{SearchPaths, DRIVER_INSTALL, NPU_SMI};
use prof_core::tools::{find_program, run_tool};
use prof_core::{DeviceInfo, DeviceSample, Error, ProcessUse, Result, UtilizationProbe};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one `npu-smi` run may take.
pub const SAMPLE_TIMEOUT: Duration = Duration::from_secs(10);

const MIB: u64 = 1 << 20;

/// Samples every NPU that `npu-smi info` lists.
pub struct NpuSmiProbe {
    program: PathBuf,
    devices: Vec<DeviceInfo>,
    /// NPU ids whose `-t common` query ran and parsed when the probe opened.
    common: Vec<u32>,
}

impl NpuSmiProbe {
    /// Finds `npu-smi` (on `PATH`, then the driver's directories), reads `npu-smi info` once
    /// for the device list and tries `-t common -i N` per NPU. Fails with the driver's install
    /// line when npu-smi is missing, or with the parse error naming the line.
    pub fn open(paths: &SearchPaths) -> Result<Self> {
        let program = find_program(NPU_SMI, &paths.npu_smi_dirs)
            .ok_or_else(|| Error::ToolMissing { tool: NPU_SMI.to_owned(), install: DRIVER_INSTALL.to_owned() })?;
        let info = read_info(&program)?;
        if info.chips.is_empty() {
            return Err(Error::Unsupported(format!("{INFO_TOOL} listed no NPU")));
        }
        let devices = info.chips.iter().map(device_info).collect();
        let mut npus: Vec<u32> = info.chips.iter().map(|c| c.npu).collect();
        npus.dedup();
        let common = npus.into_iter().filter(|&npu| read_common(&program, npu).is_ok()).collect();
        Ok(Self { program, devices, common })
    }

    /// The NPUs whose `-t common` report is read on every sample.
    pub fn common_npus(&self) -> &[u32] {
        &self.common
    }
}

fn device_info(chip: &NpuChip) -> DeviceInfo {
    DeviceInfo {
        index: chip.npu,
        name: chip.name.clone(),
        uuid: None,
        bus_id: Some(chip.bus_id.clone()),
        memory_total_mib: chip.device_memory_mib(),
        architecture: None,
    }
}

fn run(program: &Path, args: &[String], tool: &str) -> Result<String> {
    let output = run_tool(program, args, SAMPLE_TIMEOUT)?;
    if !output.success() {
        let said = output.stderr.lines().chain(output.stdout.lines()).find(|l| !l.trim().is_empty());
        let reason = format!("exited with {:?}: {}", output.code, said.unwrap_or("no output").trim());
        return Err(Error::tool_output(tool, 1, reason));
    }
    Ok(output.stdout)
}

fn read_info(program: &Path) -> Result<NpuSmiInfo> {
    Ok(parse_info(&run(program, &["info".to_owned()], INFO_TOOL)?)?)
}

fn read_common(program: &Path, npu: u32) -> Result<CommonInfo> {
    let text = run(program, &common_args(npu), crate::common_info::COMMON_TOOL)?;
    let info = parse_common(&text)?;
    if info.npu != npu {
        return Err(Error::tool_output(
            crate::common_info::COMMON_TOOL,
            1,
            format!("asked for NPU {npu}, the report is for NPU {}", info.npu),
        ));
    }
    Ok(info)
}

/// One sample per NPU chip of `info`, with the `-t common` reports of `common` merged in.
pub fn samples(info: &NpuSmiInfo, common: &[CommonInfo]) -> Vec<DeviceSample> {
    info.chips
        .iter()
        .map(|chip| {
            let (used, total) = match (chip.hbm_used_mib, chip.hbm_total_mib) {
                (Some(used), Some(total)) if total > 0 => (Some(used), Some(total)),
                _ => (chip.memory_used_mib, chip.memory_total_mib.filter(|&t| t > 0)),
            };
            let mut sample = DeviceSample {
                device: chip.npu,
                gpu_util_pct: chip.aicore_pct,
                mem_used_bytes: used.filter(|_| total.is_some()).map(|m| m * MIB),
                mem_total_bytes: total.map(|m| m * MIB),
                power_w: chip.power_w,
                temperature_c: chip.temperature_c,
                processes: info
                    .processes
                    .iter()
                    .filter(|p| p.npu == chip.npu && p.chip == chip.chip)
                    .map(|p| ProcessUse {
                        pid: p.pid,
                        name: (!p.name.is_empty()).then(|| p.name.clone()),
                        mem_used_bytes: Some(p.memory_mib * MIB),
                        sm_util_pct: None,
                    })
                    .collect(),
                ..DeviceSample::default()
            };
            let detail =
                common.iter().filter(|c| c.npu == chip.npu).flat_map(|c| &c.chips).find(|c| c.chip == chip.chip);
            if let Some(detail) = detail {
                sample.sm_clock_mhz = detail.aicore_cur_freq_mhz.and_then(mhz);
                sample.sm_clock_max_mhz = detail.aicore_freq_mhz.and_then(mhz);
                sample.power_w = sample.power_w.or(detail.power_w);
                sample.temperature_c = sample.temperature_c.or(detail.temperature_c);
                sample.gpu_util_pct = sample.gpu_util_pct.or(detail.aicore_usage_pct);
                if let Some(rate) = detail.hbm_usage_pct {
                    sample.activity.push(("hbm_usage_pct".to_owned(), rate));
                }
            }
            sample
        })
        .collect()
}

fn mhz(value: f64) -> Option<u32> {
    (value >= 0.0 && value < f64::from(u32::MAX)).then(|| value.round() as u32)
}

impl UtilizationProbe for NpuSmiProbe {
    fn source(&self) -> String {
        let common = if self.common.is_empty() { "" } else { " and -t common" };
        format!("npu-smi info{common} ({})", self.program.display())
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(self.devices.clone())
    }

    fn sample(&mut self) -> Result<Vec<DeviceSample>> {
        let info = read_info(&self.program)?;
        let common = self.common.iter().map(|&npu| read_common(&self.program, npu)).collect::<Result<Vec<_>>>()?;
        Ok(samples(&info, &common))
    }
}

#[cfg(test)]
#[path = "npu_smi_probe_tests.rs"]
mod tests;
