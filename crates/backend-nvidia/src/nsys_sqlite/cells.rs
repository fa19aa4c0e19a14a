//! A row's cells as the activity readers take them, wherever the row comes from: rusqlite's
//! [`Row`], a [`RawRows`] on a row, or a [`Record`] read from the file's pages; and [`At`],
//! where a value came from, for errors.

use super::raw::{Cell, RawRows};
use super::record::{Record, TextCell};
use prof_core::{Error, Result};
use rusqlite::types::ValueRef;
use rusqlite::Row;
use std::fmt::Display;
use std::path::Path;

/// Where a value came from, for errors: file, table, 1-based row.
pub(super) struct At<'a> {
    pub(super) path: &'a Path,
    pub(super) table: &'static str,
    pub(super) row: usize,
}

impl At<'_> {
    pub(super) fn error(&self, reason: impl Display) -> Error {
        Error::artifact(self.path, self.row, format!("{} row {}: {reason}", self.table, self.row))
    }

    pub(super) fn opt<T: TryFrom<i64>>(&self, row: &impl Cells, index: usize, column: &str) -> Result<Option<T>> {
        row.int(self, index, column)?
            .map(|v| T::try_from(v).map_err(|_| self.error(format_args!("column {column} holds {v}, out of range"))))
            .transpose()
    }

    pub(super) fn req<T: TryFrom<i64>>(&self, row: &impl Cells, index: usize, column: &str) -> Result<T> {
        self.opt(row, index, column)?.ok_or_else(|| self.error(format_args!("column {column} is NULL")))
    }

    /// Start and duration from the `start` and `end` columns (0 and 1).
    pub(super) fn times(&self, row: &impl Cells) -> Result<(u64, u64)> {
        let start: u64 = self.req(row, 0, "start")?;
        let end: u64 = self.req(row, 1, "end")?;
        let dur = end
            .checked_sub(start)
            .ok_or_else(|| self.error(format_args!("ends at {end} ns, before its start {start} ns")))?;
        Ok((start, dur))
    }
}

/// A row whose integer cells can be read: rusqlite's, or a [`RawRows`] on a row.
pub(super) trait Cells {
    /// Cell `index` (named `column` in errors) as an integer, `None` for NULL; an error for
    /// anything else.
    fn int(&self, at: &At, index: usize, column: &str) -> Result<Option<i64>>;

    /// The first `N` cells as integers when every one holds an integer, in one call (a
    /// table's hot loop); `None` when one does not, or when the row cannot give them at once
    /// (the cells are then read one by one).
    #[inline]
    fn ints<const N: usize>(&self) -> Option<[i64; N]> {
        None
    }
}

impl Cells for Row<'_> {
    fn int(&self, at: &At, index: usize, column: &str) -> Result<Option<i64>> {
        // The value as SQLite holds it: an integer or NULL without rusqlite's conversion and
        // its error set-up; anything else through the conversion, for its error.
        match self.get_ref(index) {
            Ok(ValueRef::Integer(value)) => Ok(Some(value)),
            Ok(ValueRef::Null) => Ok(None),
            _ => self.get::<_, Option<i64>>(index).map_err(|e| at.error(format_args!("column {column}: {e}"))),
        }
    }
}

impl Cells for Record<'_> {
    #[inline]
    fn int(&self, at: &At, index: usize, column: &str) -> Result<Option<i64>> {
        int_of(self.cell(index), at, column)
    }

    #[inline]
    fn ints<const N: usize>(&self) -> Option<[i64; N]> {
        Record::ints(self)
    }
}

/// A cell read in place (a [`Record`]'s or a [`RawRows`]'s) as an integer, `None` for NULL.
#[inline]
fn int_of(cell: Cell, at: &At, column: &str) -> Result<Option<i64>> {
    match cell {
        Cell::Int(value) => Ok(Some(value)),
        Cell::Null => Ok(None),
        Cell::Other(what) => Err(at.error(format_args!("column {column} holds {what}, not an integer"))),
    }
}

/// A text cell's bytes as UTF-8, or an error naming the column.
fn utf8<'b>(bytes: &'b [u8], at: &At, column: &str) -> Result<&'b str> {
    std::str::from_utf8(bytes).map_err(|e| at.error(format_args!("column {column}: not UTF-8 text ({e})")))
}

/// A row whose text cells can be read too (the NVTX ranges' `text`).
pub(super) trait TextCells: Cells {
    /// Cell `index` (named `column` in errors) as text, `None` for NULL; an error for
    /// anything else and for text that is not UTF-8.
    fn text(&self, at: &At, index: usize, column: &str) -> Result<Option<&str>>;
}

impl TextCells for Row<'_> {
    fn text(&self, at: &At, index: usize, column: &str) -> Result<Option<&str>> {
        match self.get_ref(index) {
            Ok(ValueRef::Text(bytes)) => utf8(bytes, at, column).map(Some),
            Ok(ValueRef::Null) => Ok(None),
            // Anything else through rusqlite's conversion, for its error.
            _ => match self.get::<_, Option<String>>(index) {
                Ok(_) => Err(at.error(format_args!("column {column}: not text"))),
                Err(e) => Err(at.error(format_args!("column {column}: {e}"))),
            },
        }
    }
}

impl TextCells for Record<'_> {
    fn text(&self, at: &At, index: usize, column: &str) -> Result<Option<&str>> {
        match self.text(index) {
            TextCell::Text(bytes) => utf8(bytes, at, column).map(Some),
            TextCell::Null => Ok(None),
            TextCell::Other(what) => Err(at.error(format_args!("column {column} holds {what}, not text"))),
        }
    }
}

impl Cells for RawRows<'_> {
    #[inline]
    fn int(&self, at: &At, index: usize, column: &str) -> Result<Option<i64>> {
        int_of(self.cell(index), at, column)
    }
}
