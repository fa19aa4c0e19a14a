//! A CSV reader by header name for the tables that msprof and torch_npu write.
//!
//! The quirks it handles are the recorded files' own: msprof (CANN 8) pads timestamps with a
//! trailing tab (`1787504007005868.315\t`) so spreadsheets keep them as text; missing values
//! are `N/A`; shapes are quoted twice (`"""512,16"""`, i.e. the text `"512,16"`); and, for
//! files that went through Windows tools, a UTF-8 BOM and CRLF line ends. Column names differ
//! across producers, so every lookup takes the list of known names (see [`crate::op_table`]).
//! A row with a different field count than the header, or an unterminated quote, is an error
//! naming the file and line (a truncated export), never a silently short row.

use crate::error::{quote, AscendError};
use std::path::{Path, PathBuf};

/// One parsed CSV file: its header and its data rows, each with its 1-based line number.
#[derive(Debug, Clone)]
pub struct CsvTable {
    path: PathBuf,
    header: Vec<String>,
    rows: Vec<(usize, Vec<String>)>,
}

/// One data row, read through its table's header.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    table: &'a CsvTable,
    line: usize,
    fields: &'a [String],
}

impl CsvTable {
    /// Reads and parses the file at `path`.
    pub fn read(path: &Path) -> Result<Self, AscendError> {
        let bytes = std::fs::read(path).map_err(|e| AscendError::file(path, 0, format!("cannot read: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|e| AscendError::file(path, 0, format!("not UTF-8: {e}")))?;
        Self::parse(&text, path)
    }

    /// Parses `text`, naming `path` in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, AscendError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut records = records(text).map_err(|line| AscendError::file(path, line, "unterminated quoted field"))?;
        if records.is_empty() {
            return Err(AscendError::file(path, 0, "empty file: no header line"));
        }
        let (_, header) = records.remove(0);
        let header: Vec<String> = header.iter().map(|h| h.trim().to_owned()).collect();
        for (line, fields) in &records {
            if fields.len() != header.len() {
                return Err(AscendError::file(
                    path,
                    *line,
                    format!(
                        "{} fields where the header has {} (truncated or malformed row)",
                        fields.len(),
                        header.len()
                    ),
                ));
            }
        }
        Ok(Self { path: path.to_owned(), header, rows: records })
    }

    /// The file this table came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header's column names, trimmed.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The index of the first of `names` that the header has.
    pub fn column(&self, names: &[&str]) -> Option<usize> {
        names.iter().find_map(|name| self.header.iter().position(|h| h == name))
    }

    /// Like [`CsvTable::column`], but a missing column is an error naming the file and column.
    pub fn require(&self, names: &[&str]) -> Result<usize, AscendError> {
        self.column(names)
            .ok_or_else(|| AscendError::file(&self.path, 1, format!("no column {} in the header", names.join(" / "))))
    }

    /// The data rows in file order.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.rows.iter().map(move |(line, fields)| Row { table: self, line: *line, fields })
    }

    /// Number of data rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when the file has a header and no data rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

impl<'a> Row<'a> {
    /// The 1-based line the row starts on.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The cleaned value of column `col`: trimmed of spaces and tabs; `None` when the column
    /// is absent (`col` is `None`) or the value is empty or `N/A`.
    pub fn get(&self, col: Option<usize>) -> Option<&'a str> {
        let value = self.fields.get(col?)?.trim_matches(|c: char| c == ' ' || c == '\t');
        (!value.is_empty() && value != "N/A").then_some(value)
    }

    /// The value of a required column, or an error naming the file, line and column.
    pub fn text(&self, col: usize) -> Result<&'a str, AscendError> {
        self.get(Some(col)).ok_or_else(|| self.error(col, "is empty or N/A"))
    }

    /// A decimal microsecond value in nanoseconds (`None` when absent or `N/A`); anything
    /// else that is not a plain decimal is an error.
    pub fn micros_ns(&self, col: Option<usize>) -> Result<Option<u64>, AscendError> {
        match (col, self.get(col)) {
            (Some(col), Some(text)) => crate::micros::micros_to_ns(text)
                .map(Some)
                .ok_or_else(|| self.error(col, &format!("{} is not a microsecond value", quote(text)))),
            _ => Ok(None),
        }
    }

    /// An unsigned integer (`None` when absent or `N/A`); anything else is an error.
    pub fn integer(&self, col: Option<usize>) -> Result<Option<u64>, AscendError> {
        match (col, self.get(col)) {
            (Some(col), Some(text)) => text
                .parse::<u64>()
                .map(Some)
                .map_err(|_| self.error(col, &format!("{} is not an unsigned integer", quote(text)))),
            _ => Ok(None),
        }
    }

    /// An error about column `col` of this row.
    pub fn error(&self, col: usize, what: &str) -> AscendError {
        let name = self.table.header.get(col).map_or("?", String::as_str);
        AscendError::file(&self.table.path, self.line, format!("column {name} {what}"))
    }
}

/// Splits CSV text into records of fields, each with the line it starts on. `Err(line)` for a
/// quote left open at the end of the text.
fn records(text: &str) -> Result<Vec<(usize, Vec<String>)>, usize> {
    let mut out = Vec::new();
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    let mut line = 1;
    let mut start_line = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes && chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => fields.push(std::mem::take(&mut field)),
            '\r' if !in_quotes && chars.peek() == Some(&'\n') => {}
            '\n' if !in_quotes => {
                fields.push(std::mem::take(&mut field));
                if !(fields.len() == 1 && fields[0].is_empty()) {
                    out.push((start_line, std::mem::take(&mut fields)));
                }
                fields.clear();
                line += 1;
                start_line = line;
            }
            '\n' => {
                line += 1;
                field.push(c);
            }
            _ => field.push(c),
        }
    }
    if in_quotes {
        return Err(start_line);
    }
    if !field.is_empty() || !fields.is_empty() {
        fields.push(field);
        out.push((start_line, fields));
    }
    Ok(out)
}

#[cfg(test)]
#[path = "csv_table_tests.rs"]
mod tests;
