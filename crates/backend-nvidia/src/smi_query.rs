//! What prof reads from `nvidia-smi --query-gpu` and `--query-compute-apps` tables: the
//! detection device list, one [`DeviceSample`] per GPU for the utilization fallback, and
//! per-process memory use.

use crate::error::NvidiaError;
use crate::query_csv::{QueryRowRef, QueryTable};
use crate::reasons::decode_reason_mask;
use crate::values::mib_to_bytes;
use prof_core::{DeviceInfo, DeviceSample, ProcessUse};

/// Tool label for `--query-gpu` output in error messages.
pub const QUERY_GPU_TOOL: &str = "nvidia-smi --query-gpu";
/// Tool label for `--query-compute-apps` output in error messages.
pub const COMPUTE_APPS_TOOL: &str = "nvidia-smi --query-compute-apps";

/// The fields detection asks for, in order.
pub const DETECT_FIELDS: &[&str] =
    &["index", "name", "uuid", "pci.bus_id", "driver_version", "memory.total", "compute_cap"];

/// The arguments of a `--query-gpu` run for `fields`, CSV with header and units.
pub fn query_gpu_args(fields: &[&str]) -> Vec<String> {
    vec![format!("--query-gpu={}", fields.join(",")), "--format=csv".to_owned()]
}

/// Devices and driver version as detection reports them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SmiDevices {
    /// Driver version (the first GPU's; nvidia-smi prints the same on every row).
    pub driver_version: Option<String>,
    /// One entry per GPU row.
    pub devices: Vec<DeviceInfo>,
}

/// Parses the output of `nvidia-smi` run with [`query_gpu_args`]`(`[`DETECT_FIELDS`]`)`.
/// Every detection field must be in the header; `index` and `name` must have values.
pub fn parse_detect_query(text: &str) -> Result<SmiDevices, NvidiaError> {
    let table = QueryTable::parse(QUERY_GPU_TOOL, text)?;
    table.require(DETECT_FIELDS)?;
    let mut found = SmiDevices::default();
    for row in table.rows() {
        if found.driver_version.is_none() {
            found.driver_version = row.text("driver_version").map(str::to_owned);
        }
        found.devices.push(DeviceInfo {
            index: required_index(&row)?,
            name: row
                .text("name")
                .ok_or_else(|| NvidiaError::output(QUERY_GPU_TOOL, row.line(), "name has no value"))?
                .to_owned(),
            uuid: row.text("uuid").map(str::to_owned),
            bus_id: row.text("pci.bus_id").map(str::to_owned),
            memory_total_mib: row.whole("memory.total", "MiB")?,
            architecture: row.text("compute_cap").map(str::to_owned),
        });
    }
    Ok(found)
}

/// One [`DeviceSample`] from a `--query-gpu` row. Columns the query did not ask for stay
/// `None`; `index` is required. Power draw falls back to `power.draw.average` and the limit
/// to `power.limit`; throttle reasons come from the `clocks_event_reasons.active` bitmask
/// (or the old `clocks_throttle_reasons.active`).
pub fn sample_from_row(row: &QueryRowRef<'_>) -> Result<DeviceSample, NvidiaError> {
    let memory = |field| -> Result<Option<u64>, NvidiaError> { Ok(row.whole(field, "MiB")?.and_then(mib_to_bytes)) };
    let first_number = |fields: &[&str], unit| -> Result<Option<f64>, NvidiaError> {
        for field in fields {
            if let Some(value) = row.number(field, unit)? {
                return Ok(Some(value));
            }
        }
        Ok(None)
    };
    let mask = match row.bitmask("clocks_event_reasons.active")? {
        Some(mask) => Some(mask),
        None => row.bitmask("clocks_throttle_reasons.active")?,
    };
    Ok(DeviceSample {
        device: required_index(row)?,
        gpu_util_pct: row.number("utilization.gpu", "%")?,
        mem_util_pct: row.number("utilization.memory", "%")?,
        mem_used_bytes: memory("memory.used")?,
        mem_total_bytes: memory("memory.total")?,
        sm_clock_mhz: row.whole_u32("clocks.current.sm", "MHz")?,
        sm_clock_max_mhz: row.whole_u32("clocks.max.sm", "MHz")?,
        mem_clock_mhz: row.whole_u32("clocks.current.memory", "MHz")?,
        mem_clock_max_mhz: row.whole_u32("clocks.max.memory", "MHz")?,
        power_w: first_number(&["power.draw", "power.draw.average"], "W")?,
        power_limit_w: first_number(&["enforced.power.limit", "power.limit"], "W")?,
        temperature_c: row.number("temperature.gpu", "C")?,
        throttle_reasons: mask.map(decode_reason_mask),
        processes: Vec::new(),
        activity: Vec::new(),
    })
}

/// Parses `--query-gpu` output into one sample per GPU row (see [`sample_from_row`]).
pub fn parse_sample_query(text: &str) -> Result<Vec<DeviceSample>, NvidiaError> {
    let table = QueryTable::parse(QUERY_GPU_TOOL, text)?;
    table.require(&["index"])?;
    table.rows().map(|row| sample_from_row(&row)).collect()
}

/// One row of `--query-compute-apps`: a process and the GPU it runs on, where the query said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ComputeApp {
    /// The GPU's UUID (`gpu_uuid` column), to match the process to a device.
    pub gpu_uuid: Option<String>,
    /// The GPU's PCI bus id (`gpu_bus_id` column).
    pub gpu_bus_id: Option<String>,
    /// The process and its device memory.
    pub process: ProcessUse,
}

/// Parses `--query-compute-apps=…,pid,…,used_gpu_memory --format=csv` output. `pid` is
/// required; a header with no rows means no compute process.
pub fn parse_compute_apps(text: &str) -> Result<Vec<ComputeApp>, NvidiaError> {
    let table = QueryTable::parse(COMPUTE_APPS_TOOL, text)?;
    table.require(&["pid"])?;
    table
        .rows()
        .map(|row| {
            let pid = row
                .whole_u32("pid", "")?
                .ok_or_else(|| NvidiaError::output(COMPUTE_APPS_TOOL, row.line(), "pid has no value"))?;
            Ok(ComputeApp {
                gpu_uuid: row.text("gpu_uuid").map(str::to_owned),
                gpu_bus_id: row.text("gpu_bus_id").map(str::to_owned),
                process: ProcessUse {
                    pid,
                    name: row.text("process_name").map(str::to_owned),
                    mem_used_bytes: row.whole("used_gpu_memory", "MiB")?.and_then(mib_to_bytes),
                    sm_util_pct: None,
                },
            })
        })
        .collect()
}

fn required_index(row: &QueryRowRef<'_>) -> Result<u32, NvidiaError> {
    row.whole_u32("index", "")?.ok_or_else(|| NvidiaError::output(QUERY_GPU_TOOL, row.line(), "index has no value"))
}

#[cfg(test)]
mod tests;
