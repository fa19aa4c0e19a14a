//! The general `nvidia-smi --query-… --format=csv` table: a header of field names with
//! optional units (`memory.total [MiB]`), then one comma-separated row per GPU or process.
//!
//! Values keep their text; typed accessors strip the unit and treat `[N/A]`-style markers
//! as absent. Rows are bound to the header by field name, never by position.

use crate::error::{quote, NvidiaError};
use crate::values;
use std::collections::BTreeMap;

/// One column of the header: `memory.total [MiB]` → name `memory.total`, unit `MiB`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryField {
    /// Field name as passed to `--query-gpu=` (`memory.total`).
    pub name: String,
    /// Unit from the header's brackets, where it has one.
    pub unit: Option<String>,
}

/// A parsed `--format=csv` table.
#[derive(Debug, Clone)]
pub struct QueryTable {
    tool: String,
    header_line: usize,
    fields: Vec<QueryField>,
    rows: Vec<QueryRow>,
}

#[derive(Debug, Clone)]
struct QueryRow {
    line: usize,
    values: Vec<Option<String>>,
}

impl QueryTable {
    /// Parses `text`, the standard output of `tool` (used in error messages). Errors: empty
    /// output, a header that is not a list of field names, a row with a different number of
    /// fields than the header.
    pub fn parse(tool: &str, text: &str) -> Result<Self, NvidiaError> {
        let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line)).filter(|(_, l)| !l.trim().is_empty());
        let Some((header_line, header)) = lines.next() else {
            return Err(NvidiaError::output(tool, 1, "empty output, expected a CSV header"));
        };
        let fields = parse_header(header).map_err(|reason| NvidiaError::output(tool, header_line, reason))?;
        let mut rows = Vec::new();
        for (line, row) in lines {
            let cells: Vec<&str> = row.split(',').collect();
            if cells.len() != fields.len() {
                let reason = format!("expected {} fields, found {}: {}", fields.len(), cells.len(), quote(row));
                return Err(NvidiaError::output(tool, line, reason));
            }
            let values = cells.iter().map(|cell| values::text(cell).map(str::to_owned)).collect();
            rows.push(QueryRow { line, values });
        }
        Ok(Self { tool: tool.to_owned(), header_line, fields, rows })
    }

    /// The header's columns, in order.
    pub fn fields(&self) -> &[QueryField] {
        &self.fields
    }

    /// True when the header has a column called `name`.
    pub fn has(&self, name: &str) -> bool {
        self.column(name).is_some()
    }

    /// Errors (naming the header line) unless every one of `names` is a column.
    pub fn require(&self, names: &[&str]) -> Result<(), NvidiaError> {
        let missing: Vec<&str> = names.iter().copied().filter(|name| !self.has(name)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        let reason = format!("missing column(s) {} in the header", missing.join(", "));
        Err(NvidiaError::output(&self.tool, self.header_line, reason))
    }

    /// The data rows, in output order.
    pub fn rows(&self) -> impl Iterator<Item = QueryRowRef<'_>> {
        self.rows.iter().map(move |row| QueryRowRef { table: self, row })
    }

    /// Number of data rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when the table has a header but no rows (no GPU, no process).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|field| field.name == name)
    }
}

/// One row, read by field name.
#[derive(Debug, Clone, Copy)]
pub struct QueryRowRef<'a> {
    table: &'a QueryTable,
    row: &'a QueryRow,
}

impl<'a> QueryRowRef<'a> {
    /// 1-based line of this row in the tool's output.
    pub fn line(&self) -> usize {
        self.row.line
    }

    /// The value of `field` as text; `None` when the column is absent or the value is `[N/A]`-like.
    pub fn text(&self, field: &str) -> Option<&'a str> {
        let column = self.table.column(field)?;
        self.row.values.get(column).and_then(|value| value.as_deref())
    }

    /// Every column with its value, `None` for "no value".
    pub fn to_map(&self) -> BTreeMap<&'a str, Option<&'a str>> {
        self.table
            .fields
            .iter()
            .zip(&self.row.values)
            .map(|(field, value)| (field.name.as_str(), value.as_deref()))
            .collect()
    }

    /// `field` as a number in `unit` (`MiB`, `W`, `%`, or `""` for none). `None` when the column
    /// is absent or has no value; an error when the header declares another unit or the value
    /// is not a number.
    pub fn number(&self, field: &str, unit: &str) -> Result<Option<f64>, NvidiaError> {
        self.typed(field, unit, values::number)
    }

    /// `field` as a non-negative whole number in `unit`; see [`QueryRowRef::number`].
    pub fn whole(&self, field: &str, unit: &str) -> Result<Option<u64>, NvidiaError> {
        self.typed(field, unit, values::whole)
    }

    /// `field` as a whole number that fits in `u32`; see [`QueryRowRef::number`].
    pub fn whole_u32(&self, field: &str, unit: &str) -> Result<Option<u32>, NvidiaError> {
        self.typed(field, unit, values::whole_u32)
    }

    /// `field` as a `0x…` bitmask (`clocks_event_reasons.active`).
    pub fn bitmask(&self, field: &str) -> Result<Option<u64>, NvidiaError> {
        self.typed(field, "", |raw, _| values::bitmask(raw))
    }

    fn typed<T>(
        &self,
        field: &str,
        unit: &str,
        parse: impl Fn(&str, &str) -> Result<Option<T>, String>,
    ) -> Result<Option<T>, NvidiaError> {
        let Some(column) = self.table.column(field) else { return Ok(None) };
        if let Some(declared) = self.table.fields.get(column).and_then(|f| f.unit.as_deref()) {
            if declared != unit {
                let reason = format!("column {field} is in {declared}, expected {}", display_unit(unit));
                return Err(NvidiaError::output(&self.table.tool, self.row.line, reason));
            }
        }
        match self.text(field) {
            None => Ok(None),
            Some(raw) => parse(raw, unit)
                .map_err(|reason| NvidiaError::output(&self.table.tool, self.row.line, format!("{field}: {reason}"))),
        }
    }
}

fn display_unit(unit: &str) -> &str {
    if unit.is_empty() {
        "no unit"
    } else {
        unit
    }
}

fn parse_header(header: &str) -> Result<Vec<QueryField>, String> {
    header
        .split(',')
        .map(|cell| {
            let cell = cell.trim();
            let (name, unit) = match cell.strip_suffix(']').and_then(|c| c.split_once(" [")) {
                Some((name, unit)) => (name, Some(unit.to_owned())),
                None => (cell, None),
            };
            let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            if valid {
                Ok(QueryField { name: name.to_owned(), unit })
            } else {
                Err(format!("expected a CSV header of field names, found {}", quote(header)))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
