//! Plain `rocm-smi`: the "Concise Info" table framed by `=` rules, one header line of
//! one-word column names (`Device Node IDs Temp … GPU%`), a second header line of sub-captions
//! (`(DID, GUID)`, `(Mem, Compute, ID)`), then one row per device.
//!
//! A cell holding several values prints them joined by `, ` (`0x74a0,   50375`,
//! `NPS1, SPX, 0`), so a token ending in a comma is joined with the next one; after that every
//! row has exactly one cell per column.

use crate::error::{quote, AmdError};
use prof_core::DeviceInfo;

/// One device row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConciseRow {
    /// 1-based line of the tool's output.
    pub line: usize,
    /// The `Device` column: rocm-smi's device index.
    pub device: u32,
    /// The first value of `IDs`: the PCI device id (`0x74a0`).
    pub device_id: String,
    /// The second value of `IDs`: the KFD GUID (`50375`).
    pub guid: String,
    /// Every cell as printed, in column order.
    pub cells: Vec<String>,
}

impl ConciseRow {
    /// The vendor-neutral device record; the table carries no product name or memory size,
    /// so the name is the PCI device id.
    pub fn to_device_info(&self) -> DeviceInfo {
        DeviceInfo { index: self.device, name: format!("AMD GPU (device id {})", self.device_id), ..Default::default() }
    }
}

/// A parsed concise table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConciseTable {
    /// The column names of the header line.
    pub columns: Vec<String>,
    /// The device rows, in output order.
    pub rows: Vec<ConciseRow>,
}

impl ConciseTable {
    /// The cell of `row` in column `name`.
    pub fn cell<'a>(&self, row: &'a ConciseRow, name: &str) -> Option<&'a str> {
        let at = self.columns.iter().position(|c| c == name)?;
        row.cells.get(at).map(String::as_str)
    }
}

/// Parses the standard output of `tool` (named in errors). Errors: empty output, no
/// `Device … IDs …` header, a row with a different number of cells than the header, a
/// `Device` that is not an index, `IDs` that are not `0x<DID>, <GUID>`.
pub fn parse(tool: &str, text: &str) -> Result<ConciseTable, AmdError> {
    let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line));
    let mut first_content = None;
    let (header_line, columns) = loop {
        let Some((number, line)) = lines.next() else {
            let (line, reason) = match first_content {
                None => (1, "empty output, expected the concise table".to_owned()),
                Some((n, l)) => (n, format!("expected a header line starting with `Device`, found {}", quote(l))),
            };
            return Err(AmdError::output(tool, line, reason));
        };
        if is_decoration(line) {
            continue;
        }
        let columns: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        if columns.first().map(String::as_str) == Some("Device") {
            break (number, columns);
        }
        first_content.get_or_insert((number, line));
    };
    let ids_at = columns.iter().position(|c| c == "IDs").ok_or_else(|| {
        AmdError::output(tool, header_line, format!("missing column `IDs` in the header {}", quote(&columns.join(" "))))
    })?;
    let mut rows = Vec::new();
    for (number, line) in lines {
        if is_decoration(line) || (rows.is_empty() && line.trim_start().starts_with('(')) {
            continue;
        }
        let cells = cells(line);
        if cells.len() != columns.len() {
            let reason = format!(
                "expected {} cells ({}), found {}: {}",
                columns.len(),
                columns.join(" "),
                cells.len(),
                quote(line)
            );
            return Err(AmdError::output(tool, number, reason));
        }
        let device = cells.first().and_then(|c| c.parse::<u32>().ok()).ok_or_else(|| {
            AmdError::output(tool, number, format!("`Device` is not a device index: {}", quote(line)))
        })?;
        let ids = cells.get(ids_at).map(String::as_str).unwrap_or_default();
        let (device_id, guid) = ids
            .split_once(',')
            .map(|(did, guid)| (did.trim(), guid.trim()))
            .filter(|(did, guid)| did.starts_with("0x") && !guid.is_empty())
            .ok_or_else(|| {
                AmdError::output(tool, number, format!("`IDs` should be `0x<DID>, <GUID>`, found {}", quote(ids)))
            })?;
        rows.push(ConciseRow { line: number, device, device_id: device_id.to_owned(), guid: guid.to_owned(), cells });
    }
    Ok(ConciseTable { columns, rows })
}

/// Blank lines and the `=` rules and banners (`=== Concise Info ===`).
fn is_decoration(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || line.starts_with('=')
}

/// The row's cells: whitespace-separated tokens, a token ending in `,` joined with the next.
fn cells(line: &str) -> Vec<String> {
    let mut cells: Vec<String> = Vec::new();
    let mut open = false;
    for token in line.split_whitespace() {
        match cells.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(token);
            }
            _ => cells.push(token.to_owned()),
        }
        open = token.ends_with(',');
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::fixture;

    const TOOL: &str = "rocm-smi";

    #[test]
    fn reads_four_mi300a_rows_from_the_recorded_table() {
        let table = parse(TOOL, &fixture("smi/rocm-smi_concise_mi300a.txt")).unwrap();
        assert_eq!(table.columns.len(), 13);
        let summary: Vec<(usize, u32, &str, &str)> =
            table.rows.iter().map(|r| (r.line, r.device, r.device_id.as_str(), r.guid.as_str())).collect();
        assert_eq!(
            summary,
            [
                (6, 0, "0x74a0", "50375"),
                (7, 1, "0x74a0", "20890"),
                (8, 2, "0x74a0", "44670"),
                (9, 3, "0x74a0", "15139")
            ]
        );
        let third = &table.rows[2];
        assert_eq!(table.cell(third, "Node"), Some("6"));
        assert_eq!(table.cell(third, "Partitions"), Some("NPS1, SPX, 0"));
        assert_eq!(table.cell(third, "Power"), Some("125.0W"));
        assert_eq!(table.cell(third, "GPU%"), Some("0%"));
        let device = third.to_device_info();
        assert_eq!((device.index, device.name.as_str()), (2, "AMD GPU (device id 0x74a0)"));
        assert_eq!(device.memory_total_mib, None, "the table has no memory size");
    }

    #[test]
    fn a_row_missing_a_column_names_its_line() {
        let text = fixture("smi/rocm-smi_concise_mi300a.txt")
            .replace("1300Mhz  0%   auto  550.0W  0%     0%\n1", "1300Mhz  0%   auto  550.0W  0%\n1");
        let err = parse(TOOL, &text).unwrap_err().to_string();
        assert!(err.starts_with("rocm-smi: unexpected output at line 6: expected 13 cells"), "{err}");
        assert!(err.contains("found 12"), "{err}");
    }

    #[test]
    fn empty_garbage_and_bad_cells_are_errors() {
        let err = parse(TOOL, "").unwrap_err().to_string();
        assert!(err.contains("line 1: empty output"), "{err}");
        let err = parse(TOOL, "====\nSegmentation fault\nmore\n").unwrap_err().to_string();
        assert!(
            err.contains("line 2: expected a header line starting with `Device`, found `Segmentation fault`"),
            "{err}"
        );
        let err = parse(TOOL, "Device Node Temp\n0 4 40C\n").unwrap_err().to_string();
        assert!(err.contains("line 1: missing column `IDs`"), "{err}");
        let err = parse(TOOL, "Device IDs Temp\nx 0x74a0, 1 40C\n").unwrap_err().to_string();
        assert!(err.contains("line 2: `Device` is not a device index"), "{err}");
        let err = parse(TOOL, "Device IDs Temp\n0 74a0 40C\n").unwrap_err().to_string();
        assert!(err.contains("line 2: `IDs` should be `0x<DID>, <GUID>`, found `74a0`"), "{err}");
    }
}
