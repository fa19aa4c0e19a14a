//! What prof reads from `npu-smi info`: the title's version, the NPU table (two rows per NPU:
//! id/name/health/power/temperature/hugepages, then chip/bus id/AICore %/memory/HBM) and the
//! process table.
//!
//! The layout follows the real recordings of npu-smi 23.0.rc1 (910ProB), 24.1.0 (910A, whose
//! Name column says 910B) and 25.5.6 (910B2 ×4). Multi-value cells are bound to the labels of
//! the header cell above them by order, never by character position, since the recordings
//! differ in spacing (`30711/ 32768` next to `3405 / 65536`). npu-smi's `MB` are MiB
//! (the 910B2's 64 GiB of HBM prints as `65536`).

/// `npu-smi info -t usages -i N`: per-chip AI Core, AI CPU, control CPU and memory rates.
pub mod usages;

use crate::error::{quote, AscendError};
use crate::table::{cell_values, classify, CellValue, TableLine};

/// Tool label for `npu-smi info` output in error messages.
pub const INFO_TOOL: &str = "npu-smi info";

/// Everything `npu-smi info` printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NpuSmiInfo {
    /// The version in the title (`npu-smi 25.5.6   Version: 25.5.6`). npu-smi prints its own
    /// version, which tracks the Ascend driver package it ships in.
    pub version: Option<String>,
    /// One entry per NPU row pair, in printed order.
    pub chips: Vec<NpuChip>,
    /// The process table's rows (`No running processes found in NPU n` lines give none).
    pub processes: Vec<NpuProcess>,
}

/// One NPU row pair of the table. Values a header does not name stay `None`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NpuChip {
    /// The NPU id, as `npu-smi -i` takes it.
    pub npu: u32,
    /// The chip number within the NPU.
    pub chip: u32,
    /// The Name column (`910B2`).
    pub name: String,
    /// The Health column (`OK`).
    pub health: String,
    /// PCI bus id (`0000:01:00.0`).
    pub bus_id: String,
    /// Power draw in W.
    pub power_w: Option<f64>,
    /// Temperature in °C.
    pub temperature_c: Option<f64>,
    /// Huge pages in use.
    pub hugepages_used: Option<u64>,
    /// Huge pages in total.
    pub hugepages_total: Option<u64>,
    /// AI Core utilization in %.
    pub aicore_pct: Option<f64>,
    /// Memory-Usage used, MiB (the board's DDR; the NPU's own memory is HBM where there is HBM).
    pub memory_used_mib: Option<u64>,
    /// Memory-Usage total, MiB.
    pub memory_total_mib: Option<u64>,
    /// HBM-Usage used, MiB.
    pub hbm_used_mib: Option<u64>,
    /// HBM-Usage total, MiB.
    pub hbm_total_mib: Option<u64>,
    /// 1-based line of the NPU's first row.
    pub line: usize,
}

impl NpuChip {
    /// The NPU's device memory: HBM total, or Memory-Usage total when the header has no
    /// HBM column. Every recording has an HBM column, so the fallback is unverified.
    pub fn device_memory_mib(&self) -> Option<u64> {
        self.hbm_total_mib.or(self.memory_total_mib)
    }

    /// The chip as `prof detect` and the utilization probe list it.
    pub fn device_info(&self) -> prof_core::DeviceInfo {
        prof_core::DeviceInfo {
            index: self.npu,
            name: self.name.clone(),
            uuid: None,
            bus_id: Some(self.bus_id.clone()),
            memory_total_mib: self.device_memory_mib(),
            architecture: None,
        }
    }
}

/// One row of the process table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpuProcess {
    /// NPU id.
    pub npu: u32,
    /// Chip within the NPU.
    pub chip: u32,
    /// Process id.
    pub pid: u32,
    /// Process name (may be empty).
    pub name: String,
    /// Device memory the process holds, MiB.
    pub memory_mib: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Start,
    DeviceHeader,
    Devices,
    Processes,
}

/// Parses the standard output of `npu-smi info`. Errors name the line: output that is not a
/// table, a row before the NPU header, a row with the wrong number of cells or values, an NPU
/// whose second row is missing, a value that is not a number, empty output.
pub fn parse_info(text: &str) -> Result<NpuSmiInfo, AscendError> {
    let err = |line: usize, reason: String| AscendError::output(INFO_TOOL, line, reason);
    let mut info = NpuSmiInfo::default();
    let mut section = Section::Start;
    let mut labels_first: Vec<&str> = Vec::new();
    let mut labels_second: Vec<&str> = Vec::new();
    let mut pending: Option<NpuChip> = None;
    let mut last_line = 0;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        last_line = line;
        let cells = match classify(raw) {
            Some(TableLine::Blank) => continue,
            Some(TableLine::Border) => {
                if let Some(chip) = &pending {
                    return Err(err(line, format!("NPU {} has no second (Chip / Bus-Id) row", chip.npu)));
                }
                continue;
            }
            Some(TableLine::Row(cells)) => cells,
            None => return Err(err(line, format!("not a table line: {}", quote(raw)))),
        };
        if cells.len() == 1 && cells[0].starts_with("npu-smi") && section == Section::Start {
            info.version = Some(
                title_version(cells[0])
                    .ok_or_else(|| err(line, format!("the title has no `Version: …`: {}", quote(raw))))?,
            );
        } else if cells.len() == 3 && cells[1] == "Health" && cells[0].starts_with("NPU") {
            labels_first = cells[2].split_whitespace().collect();
            section = Section::DeviceHeader;
        } else if section == Section::DeviceHeader {
            if cells.len() != 3 || cells[1] != "Bus-Id" {
                return Err(err(line, format!("expected the `Chip | Bus-Id | …` header row: {}", quote(raw))));
            }
            labels_second = cells[2].split_whitespace().collect();
            section = Section::Devices;
        } else if cells.len() >= 2 && cells[1] == "Process id" {
            if let Some(chip) = &pending {
                return Err(err(line, format!("NPU {} has no second (Chip / Bus-Id) row", chip.npu)));
            }
            if cells.len() != 4 {
                return Err(err(line, format!("expected 4 cells in the process header: {}", quote(raw))));
            }
            section = Section::Processes;
        } else if section == Section::Devices {
            if cells.len() != 3 {
                return Err(err(line, format!("expected 3 cells, found {}: {}", cells.len(), quote(raw))));
            }
            match pending.take() {
                None => pending = Some(first_row(&cells, &labels_first, line).map_err(|r| err(line, r))?),
                Some(mut chip) => {
                    second_row(&mut chip, &cells, &labels_second).map_err(|r| err(line, r))?;
                    info.chips.push(chip);
                }
            }
        } else if section == Section::Processes {
            if let Some(process) = process_row(&cells).map_err(|r| err(line, format!("{r}: {}", quote(raw))))? {
                info.processes.push(process);
            }
        } else {
            return Err(err(line, format!("a row before the `NPU Name | Health | …` header: {}", quote(raw))));
        }
    }
    if let Some(chip) = pending {
        return Err(err(last_line, format!("the table ends after NPU {}'s first row (truncated output?)", chip.npu)));
    }
    match section {
        Section::Start if last_line == 0 => Err(err(1, "empty output".to_owned())),
        Section::Start => Err(err(last_line, "no `NPU Name | Health | …` table header".to_owned())),
        Section::DeviceHeader => Err(err(last_line, "the `Chip | Bus-Id | …` header row is missing".to_owned())),
        Section::Devices | Section::Processes => Ok(info),
    }
}

fn title_version(title: &str) -> Option<String> {
    let (_, rest) = title.split_once("Version:")?;
    rest.split_whitespace().next().map(str::to_owned)
}

fn first_row(cells: &[&str], labels: &[&str], line: usize) -> Result<NpuChip, String> {
    let mut tokens = cells[0].split_whitespace();
    let npu = whole(tokens.next().ok_or("the NPU cell is empty")?, "NPU id")?;
    let name = tokens.collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return Err(format!("NPU {npu} has no name"));
    }
    if cells[1].is_empty() {
        return Err(format!("NPU {npu} has no health"));
    }
    let mut chip = NpuChip { npu, name, health: cells[1].to_owned(), line, ..NpuChip::default() };
    read_values(&mut chip, labels, cells[2])?;
    Ok(chip)
}

fn second_row(chip: &mut NpuChip, cells: &[&str], labels: &[&str]) -> Result<(), String> {
    chip.chip = whole(cells[0], "chip")?;
    if cells[1].is_empty() {
        return Err(format!("NPU {} has no bus id", chip.npu));
    }
    chip.bus_id = cells[1].to_owned();
    read_values(chip, labels, cells[2])
}

fn read_values(chip: &mut NpuChip, labels: &[&str], cell: &str) -> Result<(), String> {
    let values = cell_values(cell).map_err(|reason| format!("{reason}: {}", quote(cell)))?;
    if values.len() != labels.len() {
        let expected = labels.join(" ");
        return Err(format!(
            "expected {} values under `{expected}`, found {}: {}",
            labels.len(),
            values.len(),
            quote(cell)
        ));
    }
    for (label, value) in labels.iter().zip(values) {
        match *label {
            "Power(W)" => chip.power_w = Some(number(one(label, value)?, label)?),
            "Temp(C)" => chip.temperature_c = Some(number(one(label, value)?, label)?),
            "AICore(%)" => chip.aicore_pct = Some(number(one(label, value)?, label)?),
            "Hugepages-Usage(page)" => (chip.hugepages_used, chip.hugepages_total) = pair(label, value)?,
            "Memory-Usage(MB)" => (chip.memory_used_mib, chip.memory_total_mib) = pair(label, value)?,
            "HBM-Usage(MB)" => (chip.hbm_used_mib, chip.hbm_total_mib) = pair(label, value)?,
            _ => {}
        }
    }
    Ok(())
}

fn process_row(cells: &[&str]) -> Result<Option<NpuProcess>, String> {
    if cells.len() == 1 && cells[0].starts_with("No running processes found") {
        return Ok(None);
    }
    if cells.len() != 4 {
        return Err(format!("expected 4 cells in a process row, found {}", cells.len()));
    }
    let ids: Vec<&str> = cells[0].split_whitespace().collect();
    let [npu, chip] = ids.as_slice() else {
        return Err("expected `NPU Chip` in the first cell".to_owned());
    };
    Ok(Some(NpuProcess {
        npu: whole(npu, "NPU id")?,
        chip: whole(chip, "chip")?,
        pid: whole(cells[1], "process id")?,
        name: cells[2].to_owned(),
        memory_mib: whole(cells[3], "process memory")?,
    }))
}

fn one<'a>(label: &str, value: CellValue<'a>) -> Result<&'a str, String> {
    match value {
        CellValue::One(text) => Ok(text),
        CellValue::Pair(used, total) => Err(format!("{label} should be one value, found `{used} / {total}`")),
    }
}

fn pair(label: &str, value: CellValue<'_>) -> Result<(Option<u64>, Option<u64>), String> {
    match value {
        CellValue::Pair(used, total) => Ok((Some(whole(used, label)?), Some(whole(total, label)?))),
        CellValue::One(text) => Err(format!("{label} should be `used / total`, found `{text}`")),
    }
}

fn number(text: &str, what: &str) -> Result<f64, String> {
    text.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("{what} is not a number: `{text}`"))
}

fn whole<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse::<T>().map_err(|_| format!("{what} is not a whole number: `{text}`"))
}

#[cfg(test)]
mod tests;
