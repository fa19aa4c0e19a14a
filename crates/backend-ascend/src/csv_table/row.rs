//! Reading one row of [`super::CsvTable`] or [`super::CsvReader`] by column: values cleaned
//! of msprof's blanks and `N/A`, microsecond decimals, integers, and errors that name the file,
//! line and column.

use super::Row;
use crate::error::{quote, AscendError};

impl<'a> Row<'a> {
    /// The 1-based line the row starts on.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The raw (unescaped, untrimmed) text of field `col`.
    #[inline]
    pub(super) fn field(&self, col: usize) -> Option<&'a str> {
        let &(start, end) = self.fields.get(col)?;
        self.text.get(start..end)
    }

    /// The raw text of field `col` (unescaped, untrimmed), for the benchmark against the `csv`
    /// crate (`scripts/bench/csv_split`).
    #[doc(hidden)]
    pub fn raw_text(&self, col: usize) -> Option<&'a str> {
        self.field(col)
    }

    /// The raw bytes of field `col` (for a quick look before [`Row::get`]).
    #[inline]
    pub(crate) fn raw(&self, col: usize) -> Option<&'a [u8]> {
        let &(start, end) = self.fields.get(col)?;
        self.text.as_bytes().get(start..end)
    }

    /// The cleaned value of column `col`: trimmed of spaces and tabs; `None` when the column
    /// is absent (`col` is `None`) or the value is empty or `N/A`.
    #[inline]
    pub fn get(&self, col: Option<usize>) -> Option<&'a str> {
        let value = trim_blanks(self.field(col?)?);
        (!value.is_empty() && value != "N/A").then_some(value)
    }

    /// The value of a required column, or an error naming the file, line and column.
    #[inline]
    pub fn text(&self, col: usize) -> Result<&'a str, AscendError> {
        self.get(Some(col)).ok_or_else(|| self.error(col, "is empty or N/A"))
    }

    /// A decimal microsecond value in nanoseconds (`None` when absent or `N/A`); anything
    /// else that is not a plain decimal is an error.
    #[inline]
    pub fn micros_ns(&self, col: Option<usize>) -> Result<Option<u64>, AscendError> {
        match (col, self.get(col)) {
            (Some(col), Some(text)) => crate::micros::micros_to_ns(text)
                .map(Some)
                .ok_or_else(|| self.error(col, &format!("{} is not a microsecond value", quote(text)))),
            _ => Ok(None),
        }
    }

    /// An unsigned integer (`None` when absent or `N/A`); anything else is an error.
    #[inline]
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
        let name = self.header.names.get(col).map_or("?", String::as_str);
        AscendError::file(&self.header.path, self.line, format!("column {name} {what}"))
    }
}

/// `text` without leading and trailing spaces and tabs (msprof's tab-padded timestamps).
#[inline]
fn trim_blanks(text: &str) -> &str {
    let bytes = text.as_bytes();
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    if !bytes.first().is_some_and(blank) && !bytes.last().is_some_and(blank) {
        return text;
    }
    let start = bytes.iter().position(|b| !blank(b)).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|b| !blank(b)).map_or(start, |i| i + 1);
    &text[start..end]
}
