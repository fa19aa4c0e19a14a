//! Reader of rocprofv3's counter-collection CSV (`<prefix>_counter_collection.csv`, written by
//! `rocprofv3 --pmc … --output-format csv`): one row per dispatch and counter, grouped here into
//! one [`CounterDispatch`] per `Dispatch_Id` with its counters as name → value.
//!
//! Columns are found by header name, so the 19-column layout of rocprofiler-sdk 1.0
//! (`tests/fixtures/amd/rocprofv3/sdk1.0_counter_collection.csv`) and layouts without
//! `Kernel_Id` / `Accum_VGPR_Count` read the same way.

use crate::error::AmdError;
use prof_timeline::csv_record::split_line;
use std::collections::BTreeMap;
use std::io::BufRead;

/// Tool name used in parse errors.
pub const TOOL: &str = "rocprofv3 counter_collection.csv";

/// Columns the reader cannot do without.
pub const REQUIRED_COLUMNS: [&str; 6] =
    ["Dispatch_Id", "Kernel_Name", "Counter_Name", "Counter_Value", "Start_Timestamp", "End_Timestamp"];

/// One kernel dispatch with every counter recorded for it.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterDispatch {
    /// `Dispatch_Id` (per process: a second pass numbers its dispatches from 1 again).
    pub dispatch_id: u64,
    /// `Kernel_Name` as written (demangled unless `-M`, truncated with `-T`).
    pub kernel: String,
    /// `Agent_Id` as written (`Agent 1` in sdk 1.0, a bare number earlier): an HSA agent, not a GPU index.
    pub agent: Option<String>,
    /// `Grid_Size`, work-items.
    pub grid_size: Option<u64>,
    /// `Workgroup_Size`, work-items.
    pub workgroup_size: Option<u64>,
    /// `LDS_Block_Size`, bytes.
    pub lds_block_size: Option<u64>,
    /// `Scratch_Size`, bytes per work-item.
    pub scratch_size: Option<u64>,
    /// `VGPR_Count`.
    pub vgpr_count: Option<u64>,
    /// `Accum_VGPR_Count` (absent before sdk 1.0).
    pub accum_vgpr_count: Option<u64>,
    /// `SGPR_Count`.
    pub sgpr_count: Option<u64>,
    /// `Start_Timestamp`, ns.
    pub start_ns: u64,
    /// `End_Timestamp`, ns.
    pub end_ns: u64,
    /// Counter name → value, in name order.
    pub counters: BTreeMap<String, f64>,
}

impl CounterDispatch {
    /// Kernel duration, ns.
    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

const OPTIONAL_COLUMNS: [&str; 8] = [
    "Agent_Id",
    "Grid_Size",
    "Workgroup_Size",
    "LDS_Block_Size",
    "Scratch_Size",
    "VGPR_Count",
    "Accum_VGPR_Count",
    "SGPR_Count",
];

struct Columns {
    required: [usize; 6],
    optional: [Option<usize>; 8],
    width: usize,
}

impl Columns {
    fn from_header(fields: &[String]) -> Result<Self, AmdError> {
        let find = |name: &str| fields.iter().position(|f| f == name);
        let mut required = [0; 6];
        for (slot, name) in required.iter_mut().zip(REQUIRED_COLUMNS) {
            *slot = find(name).ok_or_else(|| {
                AmdError::output(TOOL, 1, format!("no `{name}` column in the header (found: {})", fields.join(",")))
            })?;
        }
        Ok(Self { required, optional: OPTIONAL_COLUMNS.map(find), width: fields.len() })
    }
}

/// Reads a whole counter-collection CSV from `reader`, line by line, into dispatches in the
/// order their first row appears. Errors name the 1-based line.
pub fn parse_counter_csv(mut reader: impl BufRead) -> Result<Vec<CounterDispatch>, AmdError> {
    let mut line = String::new();
    let columns = match next_line(&mut reader, &mut line, 1)? {
        None => return Err(AmdError::output(TOOL, 1, "empty file: no header line")),
        Some(_) if line.trim().is_empty() => {
            return Err(AmdError::output(TOOL, 1, "first line is empty, expected the CSV header"))
        }
        Some(_) => Columns::from_header(&split_csv(&line, 1)?)?,
    };
    let mut dispatches: Vec<CounterDispatch> = Vec::new();
    let mut index_of: BTreeMap<u64, usize> = BTreeMap::new();
    let mut number = 1;
    loop {
        number += 1;
        let Some(ended) = next_line(&mut reader, &mut line, number)? else { break };
        if line.trim().is_empty() {
            continue;
        }
        if !ended {
            // rocprofv3 ends every row with a line break: this one was cut while the file was
            // written, and its value or timestamps may have lost digits.
            let reason = "the last row has no line break (the file was cut short): rerun or copy the whole file";
            return Err(AmdError::output(TOOL, number, reason));
        }
        let row = split_csv(&line, number)?;
        if row.len() != columns.width {
            let reason = format!("{} fields, the header has {} (truncated or malformed row)", row.len(), columns.width);
            return Err(AmdError::output(TOOL, number, reason));
        }
        let dispatch = read_row(&row, &columns, number)?;
        let (name, value) = counter(&row, &columns, number)?;
        let slot = match index_of.get(&dispatch.dispatch_id) {
            Some(&slot) => slot,
            None => {
                index_of.insert(dispatch.dispatch_id, dispatches.len());
                dispatches.push(dispatch.clone());
                dispatches.len() - 1
            }
        };
        let Some(existing) = dispatches.get_mut(slot) else { continue };
        if existing.kernel != dispatch.kernel {
            let reason = format!(
                "dispatch {} is {:?} here but {:?} on an earlier line",
                dispatch.dispatch_id, dispatch.kernel, existing.kernel
            );
            return Err(AmdError::output(TOOL, number, reason));
        }
        if existing.counters.insert(name.clone(), value).is_some() {
            let reason = format!("counter `{name}` appears twice for dispatch {}", dispatch.dispatch_id);
            return Err(AmdError::output(TOOL, number, reason));
        }
    }
    Ok(dispatches)
}

/// Longest line read: a file without line breaks is refused, not held whole.
const MAX_LINE_BYTES: u64 = 16 << 20;

/// Reads the next line of `reader` into `line` (without its line break): `None` at the end,
/// else whether it ended with a line break.
fn next_line(reader: &mut impl BufRead, line: &mut String, number: usize) -> Result<Option<bool>, AmdError> {
    line.clear();
    let read = std::io::Read::take(&mut *reader, MAX_LINE_BYTES + 1)
        .read_line(line)
        .map_err(|e| AmdError::output(TOOL, number, format!("unreadable: {e}")))?;
    if read as u64 > MAX_LINE_BYTES {
        let reason = format!("the line runs past {} MiB without a line break", MAX_LINE_BYTES >> 20);
        return Err(AmdError::output(TOOL, number, reason));
    }
    if read == 0 {
        return Ok(None);
    }
    let ended = line.ends_with('\n');
    let kept = line.trim_end_matches(['\n', '\r']).len();
    line.truncate(kept);
    Ok(Some(ended))
}

fn read_row(row: &[String], columns: &Columns, line: usize) -> Result<CounterDispatch, AmdError> {
    let [dispatch, kernel, _, _, start, end] = columns.required.map(|i| row.get(i).map(String::as_str).unwrap_or(""));
    let optional = columns.optional.map(|i| i.and_then(|i| row.get(i)).map(String::as_str));
    let number = |index: usize| -> Result<Option<u64>, AmdError> {
        match optional.get(index).copied().flatten() {
            None => Ok(None),
            Some(text) => integer(text, OPTIONAL_COLUMNS.get(index).copied().unwrap_or("?"), line).map(Some),
        }
    };
    let (start_ns, end_ns) = (integer(start, "Start_Timestamp", line)?, integer(end, "End_Timestamp", line)?);
    if end_ns < start_ns {
        let reason = format!("`End_Timestamp` {end_ns} is before `Start_Timestamp` {start_ns}");
        return Err(AmdError::output(TOOL, line, reason));
    }
    Ok(CounterDispatch {
        dispatch_id: integer(dispatch, "Dispatch_Id", line)?,
        kernel: kernel.to_owned(),
        agent: optional.first().copied().flatten().map(str::to_owned),
        grid_size: number(1)?,
        workgroup_size: number(2)?,
        lds_block_size: number(3)?,
        scratch_size: number(4)?,
        vgpr_count: number(5)?,
        accum_vgpr_count: number(6)?,
        sgpr_count: number(7)?,
        start_ns,
        end_ns,
        counters: BTreeMap::new(),
    })
}

fn counter(row: &[String], columns: &Columns, line: usize) -> Result<(String, f64), AmdError> {
    let [_, _, name, value, _, _] = columns.required.map(|i| row.get(i).map(String::as_str).unwrap_or(""));
    if name.is_empty() {
        return Err(AmdError::output(TOOL, line, "empty `Counter_Name`"));
    }
    let parsed =
        value.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
            AmdError::output(TOOL, line, format!("`Counter_Value` {value:?} of {name} is not a number"))
        })?;
    Ok((name.to_owned(), parsed))
}

fn integer(text: &str, column: &str, line: usize) -> Result<u64, AmdError> {
    text.parse::<u64>()
        .map_err(|_| AmdError::output(TOOL, line, format!("`{column}` {text:?} is not a non-negative integer")))
}

/// Splits one CSV line ([`prof_timeline::csv_record::split_line`]); a malformed line (a quote
/// left open, text after a closing quote) is an error at `line`.
pub fn split_csv(text: &str, line: usize) -> Result<Vec<String>, AmdError> {
    split_line(text).map_err(|reason| AmdError::output(TOOL, line, reason.to_string()))
}

#[cfg(test)]
mod tests;
