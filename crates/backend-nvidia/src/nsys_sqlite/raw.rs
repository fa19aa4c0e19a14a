//! A query stepped through SQLite's own C calls, for the kernel table's hot loop: a cell is
//! its type and its integer, without rusqlite's per-cell work (a column-count check, a
//! `FromSql` conversion and its error set-up: a sixth of a 10 M-kernel export's load, 16 cells
//! a row). Everything else reads through rusqlite.

use rusqlite::{ffi, Connection};
use std::ffi::{c_int, CStr, CString};
use std::marker::PhantomData;
use std::ptr::NonNull;

/// What a cell holds, as far as an integer column is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cell {
    Int(i64),
    Null,
    /// A REAL, TEXT or BLOB value (or a column the query does not have), named for errors.
    Other(&'static str),
}

/// A prepared query of one connection, stepped row by row; finalized when dropped.
pub(super) struct RawRows<'c> {
    stmt: NonNull<ffi::sqlite3_stmt>,
    db: *mut ffi::sqlite3,
    columns: usize,
    _conn: PhantomData<&'c Connection>,
}

impl<'c> RawRows<'c> {
    /// Prepares `sql` on `conn`; SQLite's error (code and message) when it cannot.
    pub(super) fn prepare(conn: &'c Connection, sql: &str) -> rusqlite::Result<Self> {
        let text = CString::new(sql).map_err(rusqlite::Error::NulError)?;
        // SAFETY: the handle is `conn`'s open database, which outlives `'c`; the statement is
        // used on this thread only (the struct is neither Send nor Sync: it holds raw pointers).
        let db = unsafe { conn.handle() };
        let mut stmt = std::ptr::null_mut();
        // SAFETY: `db` is open, `text` is NUL-terminated, `stmt` receives the statement.
        let rc = unsafe { ffi::sqlite3_prepare_v2(db, text.as_ptr(), -1, &mut stmt, std::ptr::null_mut()) };
        let Some(stmt) = NonNull::new(stmt).filter(|_| rc == ffi::SQLITE_OK) else {
            let error = error(db, rc);
            // SAFETY: finalizing a null pointer is a no-op; a non-null one is ours.
            unsafe { ffi::sqlite3_finalize(stmt) };
            return Err(error);
        };
        // SAFETY: `stmt` is a prepared statement of `db`.
        let columns = usize::try_from(unsafe { ffi::sqlite3_column_count(stmt.as_ptr()) }).unwrap_or(0);
        Ok(RawRows { stmt, db, columns, _conn: PhantomData })
    }

    /// Moves to the next row: true on a row, false past the last; SQLite's error on a failure.
    pub(super) fn step(&mut self) -> rusqlite::Result<bool> {
        // SAFETY: `stmt` is a live statement of this thread's connection.
        match unsafe { ffi::sqlite3_step(self.stmt.as_ptr()) } {
            ffi::SQLITE_ROW => Ok(true),
            ffi::SQLITE_DONE => Ok(false),
            rc => Err(error(self.db, rc)),
        }
    }

    /// Column `index` of the current row (only after [`RawRows::step`] gave a row).
    #[inline]
    pub(super) fn cell(&self, index: usize) -> Cell {
        if index >= self.columns {
            return Cell::Other("a column the query does not have");
        }
        let (stmt, at) = (self.stmt.as_ptr(), index as c_int);
        // SAFETY: `stmt` is on a row and `at` is one of its columns (checked above).
        match unsafe { ffi::sqlite3_column_type(stmt, at) } {
            // SAFETY: as above; the value is an integer.
            ffi::SQLITE_INTEGER => Cell::Int(unsafe { ffi::sqlite3_column_int64(stmt, at) }),
            ffi::SQLITE_NULL => Cell::Null,
            ffi::SQLITE_FLOAT => Cell::Other("a REAL"),
            ffi::SQLITE_TEXT => Cell::Other("TEXT"),
            _ => Cell::Other("a BLOB"),
        }
    }
}

impl Drop for RawRows<'_> {
    fn drop(&mut self) {
        // SAFETY: the statement is ours and finalized once.
        unsafe { ffi::sqlite3_finalize(self.stmt.as_ptr()) };
    }
}

/// SQLite's error for `rc` on `db`, as rusqlite words it (so callers classify it as for any
/// other query: a damaged database, say).
fn error(db: *mut ffi::sqlite3, rc: c_int) -> rusqlite::Error {
    // SAFETY: `db` is an open connection; the message is copied before any other call.
    let text = unsafe { ffi::sqlite3_errmsg(db) };
    let text = if text.is_null() {
        String::new()
    } else {
        // SAFETY: SQLite returns a NUL-terminated UTF-8 string.
        unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
    };
    rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_as_sqlite_holds_them_and_errors_as_it_words_them() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE k (a INTEGER, b); INSERT INTO k VALUES (7, NULL), (-3, 2.5), (9223372036854775807, 'x');",
        )
        .unwrap();
        let mut rows = RawRows::prepare(&conn, "SELECT a, b FROM k ORDER BY rowid").unwrap();
        let mut seen = Vec::new();
        while rows.step().unwrap() {
            seen.push((rows.cell(0), rows.cell(1), rows.cell(2)));
        }
        let missing = Cell::Other("a column the query does not have");
        assert_eq!(
            seen,
            [
                (Cell::Int(7), Cell::Null, missing),
                (Cell::Int(-3), Cell::Other("a REAL"), missing),
                (Cell::Int(i64::MAX), Cell::Other("TEXT"), missing),
            ]
        );
        let err = RawRows::prepare(&conn, "SELECT nope FROM k").err().unwrap().to_string();
        assert!(err.contains("no such column: nope"), "{err}");
    }
}
