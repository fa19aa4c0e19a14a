//! Utilization samples from the SMI outputs detection already parses: `rocm-smi … --json`,
//! the plain `rocm-smi` table and `amd-smi monitor -ptumv`.
//!
//! Only fields the recorded outputs show are read; a field the output lacks (or prints as
//! `N/A`) stays `None`. None of the recordings carries throttle status, so
//! `throttle_reasons` is always `None` here. Temperature is the junction (hotspot) sensor
//! where the output has one, the edge sensor otherwise.

use crate::amd_smi::{MonitorRow, MonitorTable};
use crate::error::{quote, AmdError};
use crate::rocm_smi_concise::{ConciseRow, ConciseTable};
use crate::rocm_smi_json::{self, field_line, text_field};
use prof_core::{DeviceInfo, DeviceSample};
use serde_json::{Map, Value};

/// One device as one SMI run reported it: who it is, and its reading.
pub type SampledDevice = (DeviceInfo, DeviceSample);

/// Bytes in amd-smi's "MB" (see [`crate::amd_smi::MonitorRow::vram_total_mib`]).
const MIB: f64 = 1024.0 * 1024.0;

/// Samples from `rocm-smi … --json` (Telegraf's flag list): `"GPU use (%)"`,
/// `"GPU memory use (%)"`, `"VRAM Total Memory (B)"`, `"VRAM Total Used Memory (B)"`,
/// `"Average Graphics Package Power (W)"`, `"Max Graphics Package Power (W)"` (the power cap),
/// `"Temperature (Sensor junction|edge) (C)"`, `"sclk clock speed:"` / `"mclk clock speed:"`
/// (`(300Mhz)`). The numbered level keys (`"1": "495Mhz"`) are not read: several clock
/// domains print the same keys, so the JSON keeps only one of them.
pub fn rocm_json_samples(tool: &str, text: &str) -> Result<Vec<SampledDevice>, AmdError> {
    let report = rocm_smi_json::parse(tool, text)?;
    let top: Map<String, Value> = serde_json::from_str(text)
        .map_err(|e| AmdError::output(tool, e.line().max(1), format!("invalid JSON: {e}")))?;
    let mut devices = Vec::new();
    for card in &report.cards {
        let entry = top
            .iter()
            .find(|(key, _)| key.strip_prefix("card").and_then(|n| n.parse::<u32>().ok()) == Some(card.index));
        let Some((key, Value::Object(fields))) = entry else {
            return Err(AmdError::output(tool, 1, format!("card{} is not an object of fields", card.index)));
        };
        let field = Field { tool, text, key, fields };
        let sample = DeviceSample {
            device: card.index,
            gpu_util_pct: field.number("GPU use (%)", &[""])?,
            mem_util_pct: field.number("GPU memory use (%)", &[""])?,
            mem_used_bytes: field.bytes("VRAM Total Used Memory (B)")?,
            mem_total_bytes: card.vram_total_bytes,
            sm_clock_mhz: field.clock("sclk clock speed:")?,
            mem_clock_mhz: field.clock("mclk clock speed:")?,
            power_w: field.number("Average Graphics Package Power (W)", &[""])?,
            power_limit_w: field.number("Max Graphics Package Power (W)", &[""])?,
            temperature_c: match field.number("Temperature (Sensor junction) (C)", &[""])? {
                Some(t) => Some(t),
                None => field.number("Temperature (Sensor edge) (C)", &[""])?,
            },
            ..DeviceSample::default()
        };
        devices.push((card.to_device_info(), sample));
    }
    Ok(devices)
}

/// One `cardN` entry's fields, with errors that name the field and its line.
struct Field<'a> {
    tool: &'a str,
    text: &'a str,
    key: &'a str,
    fields: &'a Map<String, Value>,
}

impl Field<'_> {
    fn raw(&self, name: &str) -> Result<Option<String>, AmdError> {
        text_field(self.tool, self.text, self.key, self.fields, name)
    }

    fn bad(&self, name: &str, what: &str, raw: &str) -> AmdError {
        let line = field_line(self.text, self.key, name);
        AmdError::output(self.tool, line, format!("`{name}` of {} is not {what}: {}", self.key, quote(raw)))
    }

    fn number(&self, name: &str, units: &[&str]) -> Result<Option<f64>, AmdError> {
        let Some(raw) = self.raw(name)? else { return Ok(None) };
        with_unit(&raw, units).map(Some).ok_or_else(|| self.bad(name, "a number", &raw))
    }

    fn bytes(&self, name: &str) -> Result<Option<u64>, AmdError> {
        let Some(raw) = self.raw(name)? else { return Ok(None) };
        raw.parse::<u64>().map(Some).map_err(|_| self.bad(name, "a byte count", &raw))
    }

    fn clock(&self, name: &str) -> Result<Option<u32>, AmdError> {
        let Some(raw) = self.raw(name)? else { return Ok(None) };
        let inner = raw.trim().trim_start_matches('(').trim_end_matches(')');
        mhz(inner).map(Some).ok_or_else(|| self.bad(name, "a clock like `(300Mhz)`", &raw))
    }
}

/// Samples from the plain `rocm-smi` table: `GPU%`, `Temp` (junction), `Power` (socket),
/// `SCLK`, `MCLK`, `PwrCap`. `VRAM%` is the share of VRAM allocated, not memory activity, and
/// the table has no VRAM size to turn it into bytes, so it is not read.
pub fn concise_samples(tool: &str, table: &ConciseTable) -> Result<Vec<SampledDevice>, AmdError> {
    table
        .rows
        .iter()
        .map(|row| {
            let number = |column: &str, units: &[&str]| concise_cell(tool, table, row, column, |c| with_unit(c, units));
            let clock = |column: &str| concise_cell(tool, table, row, column, |c| mhz(c).map(f64::from));
            let sample = DeviceSample {
                device: row.device,
                gpu_util_pct: number("GPU%", &["%"])?,
                sm_clock_mhz: clock("SCLK")?.map(|v| v as u32),
                mem_clock_mhz: clock("MCLK")?.map(|v| v as u32),
                power_w: number("Power", &["W"])?,
                power_limit_w: number("PwrCap", &["W"])?,
                temperature_c: number("Temp", &["°C", "C"])?,
                ..DeviceSample::default()
            };
            Ok((row.to_device_info(), sample))
        })
        .collect()
}

fn concise_cell(
    tool: &str,
    table: &ConciseTable,
    row: &ConciseRow,
    column: &str,
    read: impl Fn(&str) -> Option<f64>,
) -> Result<Option<f64>, AmdError> {
    match table.cell(row, column) {
        None => Ok(None),
        Some("N/A") => Ok(None),
        Some(cell) => read(cell).map(Some).ok_or_else(|| {
            AmdError::output(
                tool,
                row.line,
                format!("`{column}` of device {} is not a reading: {}", row.device, quote(cell)),
            )
        }),
    }
}

/// Samples from `amd-smi monitor -ptumv`: `POWER` (W), `GPU_TEMP` (°C), `GFX_UTIL` and
/// `MEM_UTIL` (%), `GFX_CLOCK` and `MEM_CLOCK` (MHz), `VRAM_USED` and `VRAM_TOTAL` (MB = MiB).
/// A value in another unit than these is an error, not a guess.
pub fn monitor_samples(tool: &str, table: &MonitorTable) -> Result<Vec<SampledDevice>, AmdError> {
    table
        .rows
        .iter()
        .map(|row| {
            let value = |column: &str, unit: &str| monitor_value(tool, table, row, column, unit);
            let sample = DeviceSample {
                device: row.gpu,
                gpu_util_pct: value("GFX_UTIL", "%")?,
                mem_util_pct: value("MEM_UTIL", "%")?,
                mem_used_bytes: value("VRAM_USED", "MB")?.map(|mb| (mb * MIB) as u64),
                mem_total_bytes: value("VRAM_TOTAL", "MB")?.map(|mb| (mb * MIB) as u64),
                sm_clock_mhz: value("GFX_CLOCK", "MHz")?.map(|v| v as u32),
                mem_clock_mhz: value("MEM_CLOCK", "MHz")?.map(|v| v as u32),
                power_w: value("POWER", "W")?,
                temperature_c: value("GPU_TEMP", "°C")?,
                ..DeviceSample::default()
            };
            Ok((row.to_device_info(), sample))
        })
        .collect()
}

fn monitor_value(
    tool: &str,
    table: &MonitorTable,
    row: &MonitorRow,
    column: &str,
    unit: &str,
) -> Result<Option<f64>, AmdError> {
    let Some(reading) = table.reading(row, column) else { return Ok(None) };
    let Some(value) = reading.value else { return Ok(None) };
    if reading.unit.as_deref() != Some(unit) || !value.is_finite() || value < 0.0 {
        let reason = format!(
            "`{column}` of GPU {} should be a non-negative number of {unit}, found {value} {}",
            row.gpu,
            reading.unit.as_deref().unwrap_or("(no unit)")
        );
        return Err(AmdError::output(tool, row.line, reason));
    }
    Ok(Some(value))
}

/// `raw` without one of `units` as a suffix, read as a finite, non-negative number.
fn with_unit(raw: &str, units: &[&str]) -> Option<f64> {
    let raw = raw.trim();
    let number = units.iter().find_map(|unit| raw.strip_suffix(unit))?;
    number.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
}

/// `300Mhz` (the spelling rocm-smi and amdgpu print) as 300.
fn mhz(raw: &str) -> Option<u32> {
    let raw = raw.trim();
    let number = raw.strip_suffix("Mhz").or_else(|| raw.strip_suffix("MHz"))?;
    number.trim().parse::<u32>().ok()
}

#[cfg(test)]
mod tests;
