//! `amd-smi monitor -ptumv`: a header of one-word column names (`GPU POWER GPU_TEMP …
//! VRAM_TOTAL`), then one row per GPU whose values carry their unit as a separate word
//! (`171 W`, `32 °C`, `0 %`, `196300 MB`).
//!
//! A row is read as a sequence of values, each a number (or `N/A`) optionally followed by one
//! unit word; after that every row has one value per column.

use crate::error::{quote, AmdError};
use prof_core::DeviceInfo;

/// One value of a row: the number as printed and its unit, where it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The number, `None` for `N/A`.
    pub value: Option<f64>,
    /// The unit word that followed it (`W`, `°C`, `%`, `MHz`, `MB`).
    pub unit: Option<String>,
}

/// One GPU row.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorRow {
    /// 1-based line of the tool's output.
    pub line: usize,
    /// The `GPU` column: amd-smi's GPU index.
    pub gpu: u32,
    /// `VRAM_TOTAL` in MiB (amd-smi's "MB" is bytes / 2^20 in amdsmi's `vram_total`).
    pub vram_total_mib: Option<u64>,
    /// Every value, in column order.
    pub readings: Vec<Reading>,
}

impl MonitorRow {
    /// The vendor-neutral device record; `monitor` prints no product name.
    pub fn to_device_info(&self) -> DeviceInfo {
        DeviceInfo {
            index: self.gpu,
            name: "AMD GPU".to_owned(),
            memory_total_mib: self.vram_total_mib,
            ..Default::default()
        }
    }
}

/// A parsed `amd-smi monitor` table.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorTable {
    /// The header's column names.
    pub columns: Vec<String>,
    /// The GPU rows, in output order.
    pub rows: Vec<MonitorRow>,
}

impl MonitorTable {
    /// The reading of `row` in column `name`.
    pub fn reading<'a>(&self, row: &'a MonitorRow, name: &str) -> Option<&'a Reading> {
        let at = self.columns.iter().position(|c| c == name)?;
        row.readings.get(at)
    }
}

/// Parses the standard output of `tool` (named in errors). Errors: empty output, a header
/// without `GPU` first, a row with a different number of values than the header, a word that
/// is neither a number nor a unit, a `GPU` that is not an index, a `VRAM_TOTAL` not in MB.
pub fn parse(tool: &str, text: &str) -> Result<MonitorTable, AmdError> {
    let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line)).filter(|(_, l)| !l.trim().is_empty());
    let Some((header_line, header)) = lines.next() else {
        return Err(AmdError::output(tool, 1, "empty output, expected a header line starting with `GPU`"));
    };
    let columns: Vec<String> = header.split_whitespace().map(str::to_owned).collect();
    if columns.first().map(String::as_str) != Some("GPU") {
        let reason = format!("expected a header line starting with `GPU`, found {}", quote(header));
        return Err(AmdError::output(tool, header_line, reason));
    }
    let vram_at = columns.iter().position(|c| c == "VRAM_TOTAL");
    let mut rows = Vec::new();
    for (number, line) in lines {
        let readings = readings(line).map_err(|reason| AmdError::output(tool, number, reason))?;
        if readings.len() != columns.len() {
            let reason = format!(
                "expected {} values ({}), found {}: {}",
                columns.len(),
                columns.join(" "),
                readings.len(),
                quote(line)
            );
            return Err(AmdError::output(tool, number, reason));
        }
        let gpu = match readings.first() {
            Some(Reading { value: Some(v), unit: None })
                if v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(v) =>
            {
                *v as u32
            }
            _ => return Err(AmdError::output(tool, number, format!("`GPU` is not a GPU index: {}", quote(line)))),
        };
        let vram_total_mib = match vram_at.and_then(|at| readings.get(at)) {
            None | Some(Reading { value: None, .. }) => None,
            Some(Reading { value: Some(v), unit })
                if unit.as_deref() == Some("MB") && v.fract() == 0.0 && *v >= 0.0 =>
            {
                Some(*v as u64)
            }
            Some(other) => {
                let reason = format!("`VRAM_TOTAL` should be a whole number of MB, found {other:?} in {}", quote(line));
                return Err(AmdError::output(tool, number, reason));
            }
        };
        rows.push(MonitorRow { line: number, gpu, vram_total_mib, readings });
    }
    Ok(MonitorTable { columns, rows })
}

/// The row's values: a number or `N/A` starts a value, one non-numeric word after a number is its unit.
fn readings(line: &str) -> Result<Vec<Reading>, String> {
    let mut readings: Vec<Reading> = Vec::new();
    for token in line.split_whitespace() {
        if token == "N/A" {
            readings.push(Reading { value: None, unit: None });
        } else if let Ok(value) = token.parse::<f64>() {
            readings.push(Reading { value: Some(value), unit: None });
        } else {
            match readings.last_mut() {
                Some(Reading { value: Some(_), unit: unit @ None }) => *unit = Some(token.to_owned()),
                _ => return Err(format!("`{token}` is neither a number nor the unit of one, in {}", quote(line))),
            }
        }
    }
    Ok(readings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::fixture;

    const TOOL: &str = "amd-smi monitor -ptumv";

    #[test]
    fn reads_eight_gpus_from_the_changelog_recording() {
        let table = parse(TOOL, &fixture("smi/amdsmi-changelog_monitor_ptumv.txt")).unwrap();
        assert_eq!(table.columns.len(), 10);
        let gpus: Vec<u32> = table.rows.iter().map(|r| r.gpu).collect();
        assert_eq!(gpus, [0, 1, 2, 3, 4, 5, 6, 7]);
        assert!(table.rows.iter().all(|r| r.vram_total_mib == Some(196_300)));
        let power: Vec<f64> = table.rows.iter().map(|r| table.reading(r, "POWER").unwrap().value.unwrap()).collect();
        assert_eq!(power, [171.0, 175.0, 177.0, 172.0, 178.0, 176.0, 176.0, 175.0]);
        let used: Vec<f64> = table.rows.iter().map(|r| table.reading(r, "VRAM_USED").unwrap().value.unwrap()).collect();
        assert_eq!(used, [283.0, 283.0, 283.0, 283.0, 284.0, 283.0, 283.0, 283.0]);
        let temp = table.reading(&table.rows[0], "MEM_TEMP").unwrap();
        assert_eq!((temp.value, temp.unit.as_deref()), (Some(33.0), Some("°C")));
        let device = table.rows[5].to_device_info();
        assert_eq!((device.index, device.memory_total_mib), (5, Some(196_300)));
    }

    #[test]
    fn a_row_missing_a_column_names_its_line() {
        let text = fixture("smi/amdsmi-changelog_monitor_ptumv.txt").replace("284 MB   196300 MB", "284 MB");
        let err = parse(TOOL, &text).unwrap_err().to_string();
        assert!(err.starts_with("amd-smi monitor -ptumv: unexpected output at line 6: expected 10 values"), "{err}");
        assert!(err.contains("found 9"), "{err}");
    }

    #[test]
    fn empty_garbage_and_bad_values_are_errors() {
        let err = parse(TOOL, "\n\n").unwrap_err().to_string();
        assert!(err.contains("line 1: empty output"), "{err}");
        let err = parse(TOOL, "\nTraceback (most recent call last):\n").unwrap_err().to_string();
        assert!(err.contains("line 2: expected a header line starting with `GPU`, found `Traceback"), "{err}");
        let err = parse(TOOL, "GPU  POWER\n  0  W W\n").unwrap_err().to_string();
        assert!(err.contains("line 2: `W` is neither a number nor the unit of one"), "{err}");
        let err = parse(TOOL, "GPU  POWER\n  0.5  171 W\n").unwrap_err().to_string();
        assert!(err.contains("line 2: `GPU` is not a GPU index"), "{err}");
        let err = parse(TOOL, "GPU  VRAM_TOTAL\n  0  192 GB\n").unwrap_err().to_string();
        assert!(err.contains("line 2: `VRAM_TOTAL` should be a whole number of MB"), "{err}");
        let table = parse(TOOL, "GPU  VRAM_TOTAL\n  0  N/A\n").unwrap();
        assert_eq!(table.rows[0].vram_total_mib, None, "N/A is absent, not 0");
    }
}
