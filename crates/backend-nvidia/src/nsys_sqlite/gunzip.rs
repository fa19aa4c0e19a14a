//! An nsys export attached gzipped (`report.sqlite.gz`, as exports are attached to issues): an
//! SQLite file under a gzip stream, whose schema names the nsys tables. It is read from a copy
//! unzipped into the temporary directory ([`prof_timeline::gz_copy`]); errors name the `.gz` file.

use super::{CUDA_TABLES, METADATA_TABLES, SQLITE_MAGIC};
use prof_core::{Error, Result};
use prof_timeline::gz_copy::{gzipped_with_magic, head_names_any, GzCopy};
use std::path::Path;

#[cfg(test)]
pub(crate) use prof_timeline::gz_copy::{remove_orphans, COPY_PREFIX};

/// Unzipped bytes looked at to recognise an export: its schema (the `CREATE TABLE` texts in
/// the first pages) names the nsys tables.
const HEAD_BYTES: u64 = 4 << 20;

/// True when `path` is a gzip stream of an nsys SQLite export: a gzipped SQLite file, and an
/// nsys table named in the first [`HEAD_BYTES`] unzipped (for choosing a loader).
pub(crate) fn is_gzipped_export(path: &Path) -> bool {
    let Some((stream, head)) = gzipped_with_magic(path, SQLITE_MAGIC) else { return false };
    let tables: Vec<&str> = METADATA_TABLES.iter().chain(&CUDA_TABLES).copied().collect();
    head_names_any(stream, head, HEAD_BYTES, &tables)
}

/// True when `path` is a gzip stream of an SQLite file: what a loader asks before reading the
/// unzipped copy (which [`read_unzipped`] checks to be an export), without the recognition's
/// unzipping of the schema again.
pub(crate) fn is_gzipped_sqlite(path: &Path) -> bool {
    gzipped_with_magic(path, SQLITE_MAGIC).is_some()
}

/// `read` of the unzipped copy of `gz`, its errors naming `gz` (and the copy they came from).
pub(crate) fn read_unzipped<T>(gz: &Path, read: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    let copy = GzCopy::of(gz, "the .sqlite")?;
    if !super::is_nsys_export(copy.path()) {
        return Err(Error::artifact(gz, 0, "a gzipped SQLite database, but not an nsys export (no nsys tables)"));
    }
    copy.read(gz, read)
}
