//! The utilization probe over `npu-smi`: one `npu-smi info` per sample for every NPU (AI Core
//! %, HBM used/total, power, temperature, processes), plus `npu-smi info -t common -i N` (the AI
//! Core clock, current and rated, and the HBM usage rate) and `npu-smi info -t usages -i N` (AI
//! Core, AI CPU, control CPU, HBM/DDR occupancy and bandwidth rates) for each NPU where that
//! query works. All parsers are tested on public samples ([`crate::npu_smi`],
//! [`crate::common_info`], [`crate::npu_smi::usages`]). A value npu-smi does not print stays
//! absent, never 0; npu-smi prints no throttle information, so `throttle_reasons` is absent too.
//!
//! From `-t usages`: `HBM Bandwidth Usage Rate(%)` is the memory-busy share (`mem_util_pct`);
//! AI CPU, control CPU and the other rates go to `activity` under `*_usage_pct` names.

use crate::common_info::{common_args, parse_common, CommonInfo};
use crate::npu_smi::usages::{parse_usages, usages_args, UsagesChip, UsagesInfo, USAGES_TOOL};
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
    /// NPU ids whose `-t usages` query ran and parsed when the probe opened.
    usages: Vec<u32>,
    /// What the queries at opening left out and why (a query that did not answer, a rate that
    /// is not a number), for [`UtilizationProbe::source`].
    notes: Vec<String>,
}

/// Most characters of one quoted reason or note (a tool's error can be long).
const NOTE_WIDTH: usize = 120;

impl NpuSmiProbe {
    /// Finds `npu-smi` (on `PATH`, then the driver's directories), reads `npu-smi info` once
    /// for the device list and tries `-t common -i N` and `-t usages -i N` per NPU. Fails with the driver's install
    /// line when npu-smi is missing, or with the parse error naming the line.
    pub fn open(paths: &SearchPaths) -> Result<Self> {
        let program = find_program(NPU_SMI, &paths.npu_smi_dirs)
            .ok_or_else(|| Error::ToolMissing { tool: NPU_SMI.to_owned(), install: DRIVER_INSTALL.to_owned() })?;
        let info = read_info(&program)?;
        if info.chips.is_empty() {
            return Err(Error::Unsupported(format!("{INFO_TOOL} listed no NPU")));
        }
        let devices = info.chips.iter().map(NpuChip::device_info).collect();
        let mut npus: Vec<u32> = info.chips.iter().map(|c| c.npu).collect();
        npus.dedup();
        let mut notes = Vec::new();
        let common = answering(&npus, "-t common", &mut notes, |npu| read_common(&program, npu).map(|_| Vec::new()));
        let usages = answering(&npus, "-t usages", &mut notes, |npu| read_usages(&program, npu).map(|u| u.notes));
        Ok(Self { program, devices, common, usages, notes })
    }
}

/// The NPUs of `npus` for which `query` answers; notes what it said it left out, and which
/// NPUs it did not answer for with the first reason.
fn answering(
    npus: &[u32],
    query: &str,
    notes: &mut Vec<String>,
    mut read: impl FnMut(u32) -> Result<Vec<String>>,
) -> Vec<u32> {
    let mut answered = Vec::new();
    let mut failed: Vec<(u32, String)> = Vec::new();
    for &npu in npus {
        match read(npu) {
            Ok(left_out) => {
                answered.push(npu);
                notes.extend(left_out.into_iter().map(|note| short(&format!("{query} -i {npu}: {note}"))));
            }
            Err(error) => failed.push((npu, error.to_string())),
        }
    }
    if let Some((first, reason)) = failed.first() {
        let ids: Vec<String> = failed.iter().map(|(npu, _)| npu.to_string()).collect();
        notes.push(format!("{query} did not answer for NPU {} (NPU {first}: {})", ids.join(", "), short(reason)));
    }
    answered
}

/// `text` on one line, at most [`NOTE_WIDTH`] characters.
fn short(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(NOTE_WIDTH) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

fn run(program: &Path, args: &[String], tool: &str) -> Result<String> {
    let output = run_tool(program, args, SAMPLE_TIMEOUT)?;
    if !output.success() {
        let said = output.stderr.lines().chain(output.stdout.lines()).find(|l| !l.trim().is_empty());
        let status = output.code.map_or_else(|| "by a signal".to_owned(), |code| code.to_string());
        let reason = format!("exited {status}: {}", said.unwrap_or("no output").trim());
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

fn read_usages(program: &Path, npu: u32) -> Result<UsagesInfo> {
    let info = parse_usages(&run(program, &usages_args(npu), USAGES_TOOL)?)?;
    if info.npu != npu {
        return Err(Error::tool_output(
            USAGES_TOOL,
            1,
            format!("asked for NPU {npu}, the report is for NPU {}", info.npu),
        ));
    }
    Ok(info)
}

/// One sample per NPU chip of `info`, with the `-t common` reports of `common` and the
/// `-t usages` reports of `usages` merged in.
pub fn samples(info: &NpuSmiInfo, common: &[CommonInfo], usages: &[UsagesInfo]) -> Vec<DeviceSample> {
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
            let rates =
                usages.iter().filter(|u| u.npu == chip.npu).flat_map(|u| &u.chips).find(|c| c.chip == chip.chip);
            if let Some(rates) = rates {
                merge_usages(&mut sample, rates);
            }
            sample
        })
        .collect()
}

/// Fills the sample from one chip's `-t usages` rates, keeping what `npu-smi info` and
/// `-t common` already gave (the table's AI Core %, the `-t common` HBM rate).
fn merge_usages(sample: &mut DeviceSample, rates: &UsagesChip) {
    sample.gpu_util_pct = sample.gpu_util_pct.or(rates.aicore_usage_pct);
    sample.mem_util_pct = sample.mem_util_pct.or(rates.hbm_bandwidth_usage_pct);
    let extra = [
        ("hbm_usage_pct", rates.hbm_usage_pct),
        ("aicpu_usage_pct", rates.aicpu_usage_pct),
        ("ctrlcpu_usage_pct", rates.ctrlcpu_usage_pct),
        ("aivector_usage_pct", rates.aivector_usage_pct),
        ("aicube_usage_pct", rates.aicube_usage_pct),
        ("npu_utilization_pct", rates.npu_utilization_pct),
        ("ddr_usage_pct", rates.ddr_usage_pct),
        ("ddr_bandwidth_usage_pct", rates.ddr_bandwidth_usage_pct),
    ];
    for (name, value) in extra {
        if let Some(value) = value {
            if !sample.activity.iter().any(|(known, _)| known == name) {
                sample.activity.push((name.to_owned(), value));
            }
        }
    }
}

fn mhz(value: f64) -> Option<u32> {
    (value >= 0.0 && value < f64::from(u32::MAX)).then(|| value.round() as u32)
}

impl UtilizationProbe for NpuSmiProbe {
    fn source(&self) -> String {
        let extra = match (self.common.is_empty(), self.usages.is_empty()) {
            (true, true) => "",
            (false, true) => " and -t common",
            (true, false) => " and -t usages",
            (false, false) => ", -t common and -t usages",
        };
        let notes = if self.notes.is_empty() { String::new() } else { format!("; {}", self.notes.join("; ")) };
        format!("npu-smi info{extra} ({}){notes}", self.program.display())
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(self.devices.clone())
    }

    fn sample(&mut self) -> Result<Vec<DeviceSample>> {
        let info = read_info(&self.program)?;
        let common = self.common.iter().map(|&npu| read_common(&self.program, npu)).collect::<Result<Vec<_>>>()?;
        let usages = self.usages.iter().map(|&npu| read_usages(&self.program, npu)).collect::<Result<Vec<_>>>()?;
        Ok(samples(&info, &common, &usages))
    }
}

#[cfg(test)]
mod tests;
