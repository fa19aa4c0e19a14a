//! What prof reads from `npu-smi info -t usages -i <npu>`: the NPU's `Key : value` lines (`NPU ID`,
//! `Chip Count`), then per chip its usage rates (AI Core, AI CPU, control CPU, HBM and DDR
//! occupancy and bandwidth), each chip's lines closed by its `Chip ID` line. The utilization probe
//! fills AI Core %, memory bandwidth % and the other rates from it.
//!
//! The layout follows two public samples (tests/fixtures/ascend/SOURCES.md): a MindCluster guide's
//! example (npu-smi 23.0.5) and telegraf's npu_smi test data (25.5.1, 910B). Unlike `-t common`,
//! the `Chip ID` line comes after the chip's rates. Indentation and the padding before `:` vary
//! (8 spaces in both pastes), so keys and values are trimmed. A rate that is not a number (`NA`)
//! is left out with a note, never read as 0; unknown keys are kept in `other`.

use crate::error::{quote, AscendError};

/// Tool label for `npu-smi info -t usages` output in error messages.
pub const USAGES_TOOL: &str = "npu-smi info -t usages";

/// The arguments of a `-t usages` query for NPU `npu`.
pub fn usages_args(npu: u32) -> Vec<String> {
    vec!["info".to_owned(), "-t".to_owned(), "usages".to_owned(), "-i".to_owned(), npu.to_string()]
}

/// One NPU's `-t usages` report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsagesInfo {
    /// `NPU ID`.
    pub npu: u32,
    /// `Chip Count`, where printed (checked against the chips read).
    pub chip_count: Option<u32>,
    /// One entry per `Chip ID` line, in printed order.
    pub chips: Vec<UsagesChip>,
    /// Values that were left out because they are not numbers, with their line.
    pub notes: Vec<String>,
}

/// One chip's rates. A key the chip does not print, or prints with a value that is not a
/// number, stays `None`. npu-smi's `MB` are MiB, as in `npu-smi info`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsagesChip {
    /// `Chip ID`.
    pub chip: u32,
    /// `DDR Capacity(MB)`.
    pub ddr_capacity_mib: Option<u64>,
    /// `DDR Usage Rate(%)`: share of the DDR in use.
    pub ddr_usage_pct: Option<f64>,
    /// `DDR Hugepages Total(page)`.
    pub ddr_hugepages_total: Option<u64>,
    /// `DDR Hugepages Usage Rate(%)`.
    pub ddr_hugepages_usage_pct: Option<f64>,
    /// `HBM Capacity(MB)`.
    pub hbm_capacity_mib: Option<u64>,
    /// `HBM Usage Rate(%)`: share of the HBM in use (occupancy, not traffic).
    pub hbm_usage_pct: Option<f64>,
    /// `Aicore Usage Rate(%)`.
    pub aicore_usage_pct: Option<f64>,
    /// `Aivector Usage Rate(%)`.
    pub aivector_usage_pct: Option<f64>,
    /// `Aicube Usage Rate(%)`.
    pub aicube_usage_pct: Option<f64>,
    /// `Aicpu Usage Rate(%)`: the AI CPU that runs AI CPU operators.
    pub aicpu_usage_pct: Option<f64>,
    /// `Ctrlcpu Usage Rate(%)`: the device's control CPU.
    pub ctrlcpu_usage_pct: Option<f64>,
    /// `DDR Bandwidth Usage Rate(%)`.
    pub ddr_bandwidth_usage_pct: Option<f64>,
    /// `HBM Bandwidth Usage Rate(%)`: memory traffic, the nearest to a memory-busy share.
    pub hbm_bandwidth_usage_pct: Option<f64>,
    /// `NPU Utilization(%)`.
    pub npu_utilization_pct: Option<f64>,
    /// Any other `key : value` of the chip, in printed order.
    pub other: Vec<(String, String)>,
    /// 1-based line of the chip's `Chip ID`.
    pub line: usize,
}

/// Parses the standard output of `npu-smi info -t usages -i N`. Errors name the line: empty
/// output, a line with no `:`, output that does not start with `NPU ID`, an id or count that is
/// not a whole number, a key repeated within one chip, rates after the last `Chip ID`
/// (truncated output), fewer or more chips than `Chip Count`. A rate that is not a number is
/// not an error: it stays `None` and a note names it.
pub fn parse_usages(text: &str) -> Result<UsagesInfo, AscendError> {
    let err = |line: usize, reason: String| AscendError::output(USAGES_TOOL, line, reason);
    let mut info = UsagesInfo::default();
    let mut seen_npu = false;
    let mut chip = UsagesChip::default();
    let mut chip_keys: Vec<&str> = Vec::new();
    let mut first_open_line = None;
    let mut last_line = 0;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        last_line = line;
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(err(line, format!("expected `key : value`: {}", quote(raw))));
        };
        let (key, value) = (key.trim(), value.trim());
        if !seen_npu {
            if key != "NPU ID" {
                return Err(err(line, format!("expected `NPU ID`, found `{key}`")));
            }
            info.npu = whole(value, key).map_err(|r| err(line, r))?;
            seen_npu = true;
            continue;
        }
        match key {
            "NPU ID" => return Err(err(line, "`NPU ID` repeated".to_owned())),
            "Chip Count" if info.chip_count.is_none() && info.chips.is_empty() && chip_keys.is_empty() => {
                info.chip_count = Some(whole(value, key).map_err(|r| err(line, r))?);
            }
            "Chip Count" => return Err(err(line, "`Chip Count` after a chip's rates".to_owned())),
            "Chip ID" => {
                chip.chip = whole(value, key).map_err(|r| err(line, r))?;
                chip.line = line;
                info.chips.push(std::mem::take(&mut chip));
                chip_keys.clear();
                first_open_line = None;
            }
            _ => {
                if chip_keys.contains(&key) {
                    return Err(err(line, format!("`{key}` repeated before its chip's `Chip ID`")));
                }
                chip_keys.push(key);
                first_open_line.get_or_insert(line);
                if let Some(note) = read_rate(&mut chip, key, value) {
                    info.notes.push(format!("line {line}: {note}"));
                }
            }
        }
    }
    if !seen_npu {
        return Err(err(1, "empty output".to_owned()));
    }
    if let Some(open) = first_open_line {
        let reason = format!("the rates from line {open} on have no `Chip ID` line after them (truncated output?)");
        return Err(err(last_line, reason));
    }
    if let Some(count) = info.chip_count {
        if info.chips.len() != count as usize {
            let reason = format!("Chip Count is {count} but {} chips follow", info.chips.len());
            return Err(err(last_line, reason));
        }
    }
    if info.chips.is_empty() {
        return Err(err(last_line, "no `Chip ID` line: no chip's rates".to_owned()));
    }
    Ok(info)
}

/// Stores one rate; returns a note when its value is not a number (the field stays `None`).
fn read_rate(chip: &mut UsagesChip, key: &str, value: &str) -> Option<String> {
    let percent = |slot: &mut Option<f64>| match number(value) {
        Some(v) => {
            *slot = Some(v);
            None
        }
        None => Some(format!("{key} is not a number: `{value}`; left out")),
    };
    let count = |slot: &mut Option<u64>| match value.parse::<u64>() {
        Ok(v) => {
            *slot = Some(v);
            None
        }
        Err(_) => Some(format!("{key} is not a whole number: `{value}`; left out")),
    };
    match key {
        "DDR Capacity(MB)" => count(&mut chip.ddr_capacity_mib),
        "DDR Usage Rate(%)" => percent(&mut chip.ddr_usage_pct),
        "DDR Hugepages Total(page)" => count(&mut chip.ddr_hugepages_total),
        "DDR Hugepages Usage Rate(%)" => percent(&mut chip.ddr_hugepages_usage_pct),
        "HBM Capacity(MB)" => count(&mut chip.hbm_capacity_mib),
        "HBM Usage Rate(%)" => percent(&mut chip.hbm_usage_pct),
        "Aicore Usage Rate(%)" => percent(&mut chip.aicore_usage_pct),
        "Aivector Usage Rate(%)" => percent(&mut chip.aivector_usage_pct),
        "Aicube Usage Rate(%)" => percent(&mut chip.aicube_usage_pct),
        "Aicpu Usage Rate(%)" => percent(&mut chip.aicpu_usage_pct),
        "Ctrlcpu Usage Rate(%)" => percent(&mut chip.ctrlcpu_usage_pct),
        "DDR Bandwidth Usage Rate(%)" => percent(&mut chip.ddr_bandwidth_usage_pct),
        "HBM Bandwidth Usage Rate(%)" => percent(&mut chip.hbm_bandwidth_usage_pct),
        "NPU Utilization(%)" => percent(&mut chip.npu_utilization_pct),
        _ => {
            chip.other.push((key.to_owned(), value.to_owned()));
            None
        }
    }
}

fn number(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

fn whole<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse::<T>().map_err(|_| format!("{what} is not a whole number: `{text}`"))
}

#[cfg(test)]
mod tests;
