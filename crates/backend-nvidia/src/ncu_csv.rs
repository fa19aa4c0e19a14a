//! The CSV layer under `ncu --csv`: finding the header after ncu's `==PROF==` lines, warnings
//! and the profiled application's own stdout, splitting quoted records, and the launch columns
//! (`"ID"`, `"Kernel Name"`, `"Device"` …) that both the details and the raw page start with.

use crate::error::{quote, NvidiaError};
use crate::ncu_units::parse_number;
use prof_timeline::csv_record::split_record;
use serde::Serialize;

/// How every ncu CSV header starts (2019 and 2025 versions alike).
pub const HEADER_START: &str = r#""ID","Process ID""#;

/// One CSV record and the 1-based line of the input it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based line number in the whole input.
    pub line: usize,
    /// The fields, unquoted.
    pub fields: Vec<String>,
}

/// Reads the records of ncu CSV `text`, header first. Lines before the header are skipped, as
/// are ncu's `==PROF==`/`==WARNING==` lines and blank lines between records; an `==ERROR==`
/// line, a record cut inside a quoted field or a stray quote is an error naming `tool` and the
/// line.
pub fn read_records(tool: &str, text: &str) -> Result<Vec<Record>, NvidiaError> {
    if text.trim().is_empty() {
        return Err(NvidiaError::output(tool, 1, "the output is empty: no CSV header and no rows"));
    }
    let (mut line, offset) = header_position(text).ok_or_else(|| {
        NvidiaError::output(
            tool,
            1,
            format!(
                "no ncu CSV header found (a line starting with {HEADER_START}); \
                 is this `ncu --csv` output, with `,` as the delimiter?"
            ),
        )
    })?;
    let mut records = Vec::new();
    let mut rest = &text[offset..];
    while !rest.is_empty() {
        let physical = rest.split_inclusive('\n').next().unwrap_or(rest);
        let trimmed = physical.trim();
        if trimmed.starts_with("==ERROR==") {
            return Err(NvidiaError::output(tool, line, format!("ncu reported an error: {}", quote(trimmed))));
        }
        if trimmed.is_empty() || is_ncu_message(trimmed) {
            rest = &rest[physical.len()..];
            line += 1;
            continue;
        }
        let record = split_record(rest).map_err(|reason| NvidiaError::output(tool, line, reason.to_string()))?;
        records.push(Record { line, fields: record.fields });
        rest = &rest[record.consumed..];
        line += record.lines;
    }
    Ok(records)
}

/// The 1-based line and byte offset of the header line, if the text has one.
pub fn header_position(text: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    for (index, physical) in text.split_inclusive('\n').enumerate() {
        if physical.trim_start().starts_with(HEADER_START) {
            let indent = physical.len() - physical.trim_start().len();
            return Some((index + 1, offset + indent));
        }
        offset += physical.len();
    }
    None
}

/// True for ncu's own status lines (`==PROF== …`, `==WARNING== …`, `==INFO== …`).
pub fn is_ncu_message(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("==") else { return false };
    rest.split_once("==").is_some_and(|(tag, _)| !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_uppercase()))
}

/// The header's column names, looked up by name.
#[derive(Debug, Clone)]
pub struct Columns {
    names: Vec<String>,
}

impl Columns {
    /// The columns of a header record.
    pub fn new(header: &Record) -> Self {
        Self { names: header.fields.clone() }
    }

    /// All names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The index of column `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The index of column `name`, or an error naming the missing column.
    pub fn require(&self, tool: &str, line: usize, name: &str) -> Result<usize, NvidiaError> {
        self.index(name).ok_or_else(|| NvidiaError::output(tool, line, format!("the header has no \"{name}\" column")))
    }

    /// The field of `record` under column `name`, when both exist and it is not empty.
    pub fn get<'r>(&self, record: &'r Record, name: &str) -> Option<&'r str> {
        self.index(name).and_then(|i| record.fields.get(i)).map(String::as_str).filter(|s| !s.is_empty())
    }
}

/// Which kernel launch a row belongs to: the columns every ncu CSV page starts with.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LaunchInfo {
    /// ncu's launch ID within the report (`"ID"`).
    pub id: u64,
    /// The profiled process.
    pub process_id: Option<u32>,
    /// Its executable name.
    pub process_name: Option<String>,
    /// The kernel name as ncu printed it (demangled by default).
    pub kernel: String,
    /// CUDA device index.
    pub device: Option<u32>,
    /// Compute capability (`9.0`).
    pub compute_capability: Option<String>,
    /// Block size as printed (`(128, 1, 1)`).
    pub block_size: Option<String>,
    /// Grid size as printed (`(8, 32, 1)`).
    pub grid_size: Option<String>,
}

impl LaunchInfo {
    /// Reads the launch columns of `record`; `ID` must be a whole number and `Kernel Name` present.
    pub fn from_record(columns: &Columns, record: &Record, tool: &str) -> Result<Self, NvidiaError> {
        let whole = |name: &str| columns.get(record, name).and_then(parse_number).filter(|v| v.fract() == 0.0);
        let raw_id = columns.get(record, "ID").unwrap_or("");
        let id = whole("ID").filter(|v| *v >= 0.0).map(|v| v as u64).ok_or_else(|| {
            NvidiaError::output(tool, record.line, format!("expected a launch ID, found {}", quote(raw_id)))
        })?;
        let kernel = columns
            .get(record, "Kernel Name")
            .ok_or_else(|| NvidiaError::output(tool, record.line, format!("launch {id} has no kernel name")))?;
        let small = |name: &str| whole(name).and_then(|v| u32::try_from(v as u64).ok());
        let text = |name: &str| columns.get(record, name).map(str::to_owned);
        Ok(Self {
            id,
            process_id: small("Process ID"),
            process_name: text("Process Name"),
            kernel: kernel.to_owned(),
            device: small("Device"),
            compute_capability: text("CC"),
            block_size: text("Block Size"),
            grid_size: text("Grid Size"),
        })
    }
}

#[cfg(test)]
mod tests;
