//! rocprofv3's rocpd SQLite database (`--output-format rocpd`, the default output since ROCm 7)
//! into a [`Timeline`].
//!
//! rocprofiler-sdk creates each table with a per-run suffix (`rocpd_kernel_dispatch_<uuid>`)
//! and, over them, plain-named views for readers (`source/share/rocprofiler-sdk-rocpd/
//! data_views.sql`, schema version 3): prof reads `kernels` (one row per dispatch: `name`,
//! `agent_type_index` — the GPU's index among GPUs —, `stream_id`, `queue_id`, `start`, `end`,
//! `grid_*` in work-items, `workgroup_*`, `lds_size`, `vgpr_count`, `corr_id`) and
//! `memory_copies` (`name`, `start`, `end`, `size`, source and destination agent types and
//! GPU indices, `stream_id`, `corr_id`). `rocpd_metadata.schema_version` must be 3. The views
//! join each dispatch with its region name and event: a database whose `kernels` view shows
//! fewer rows than `rocpd_kernel_dispatch` holds is read as far as the view goes and marked
//! partial, never silently short.
//!
//! A database attached gzipped (`results.db.gz`) is read from a copy unzipped into the
//! temporary directory ([`prof_timeline::gz_copy`]), its errors naming the `.gz` file.
//!
//! No public rocprofv3 database was found; the test database was built by running the schema's
//! own SQL files (rocm-systems @ 1b1610fc) and inserting the dispatches of a real MI300A run
//! (tests/fixtures/amd/SOURCES.md).

use prof_core::{DeviceOp, Error, OpDetails, OpKind, Result, Timeline};
use prof_timeline::gz_copy::{gzipped_with_magic, head_names_any, GzCopy};
use prof_timeline::sniff::SQLITE_MAGIC;
use rusqlite::{Connection, OpenFlags, Row};
use std::path::Path;

/// The schema version this reader knows.
const SCHEMA_MAJOR: &str = "3";

const KERNELS: &str = "SELECT name, agent_type_index, stream_id, queue_id, start, \"end\", grid_x, grid_y, grid_z, \
     workgroup_x, workgroup_y, workgroup_z, lds_size, vgpr_count, corr_id FROM kernels ORDER BY start";
const COPIES: &str = "SELECT name, start, \"end\", size, src_agent_type, src_agent_type_index, dst_agent_type, \
     dst_agent_type_index, stream_id, corr_id FROM memory_copies ORDER BY start";

/// Unzipped bytes of a gzipped database looked at to recognise it: its schema (the `CREATE`
/// texts in the first pages) names rocpd's metadata table.
const HEAD_BYTES: u64 = 4 << 20;

/// True when `path` is an SQLite database with rocpd's metadata table and `kernels` view, or
/// a gzip stream of an SQLite database whose schema names rocpd's metadata table (the unzipped
/// copy is checked in full when it is loaded).
pub fn is_rocpd(path: &Path) -> bool {
    is_plain_rocpd(path) || is_gzipped_rocpd(path)
}

/// True when `path` is a gzip stream of an SQLite database whose schema names rocpd's
/// metadata table.
pub fn is_gzipped_rocpd(path: &Path) -> bool {
    gzipped_with_magic(path, SQLITE_MAGIC)
        .is_some_and(|(stream, head)| head_names_any(stream, head, HEAD_BYTES, &["rocpd_metadata"]))
}

/// True when `path` is an SQLite database (not gzipped) with rocpd's metadata table and
/// `kernels` view.
pub(crate) fn is_plain_rocpd(path: &Path) -> bool {
    let mut magic = [0u8; 16];
    let sqlite = std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic)).is_ok();
    sqlite && &magic == SQLITE_MAGIC && open(path).is_ok_and(|c| has(&c, "rocpd_metadata") && has(&c, "kernels"))
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
}

fn has(conn: &Connection, name: &str) -> bool {
    conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = ?1", [name], |r| r.get::<_, i64>(0))
        .is_ok_and(|n| n > 0)
}

/// Loads the rocpd database at `path` (or a gzip stream of one).
pub fn load(path: &Path) -> Result<Timeline> {
    if gzipped_with_magic(path, SQLITE_MAGIC).is_none() {
        return load_plain(path);
    }
    let copy = GzCopy::of(path, "the .db")?;
    if !is_plain_rocpd(copy.path()) {
        let why = "a gzipped SQLite database, but not a rocpd database (no rocpd_metadata table and kernels view)";
        return Err(Error::artifact(path, 0, why));
    }
    let mut timeline = copy.read(path, load_plain)?;
    timeline.source = path.display().to_string();
    Ok(timeline)
}

fn load_plain(path: &Path) -> Result<Timeline> {
    let sql = |what: &str, e: rusqlite::Error| Error::artifact(path, 0, format!("{what}: {e}"));
    let conn = open(path).map_err(|e| sql("opening the database", e))?;
    let version: String = conn
        .query_row("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'", [], |r| r.get(0))
        .map_err(|e| sql("reading rocpd_metadata.schema_version", e))?;
    if version.split('.').next() != Some(SCHEMA_MAJOR) {
        return Err(Error::artifact(
            path,
            0,
            format!("rocpd schema version {version} is not supported: prof reads schema {SCHEMA_MAJOR}.x (ROCm 7)"),
        ));
    }
    let mut timeline = Timeline::new(path.display().to_string());
    let kernels = read(&conn, KERNELS, &mut timeline, kernel).map_err(|e| sql("reading the kernels view", e))?;
    if has(&conn, "memory_copies") {
        read(&conn, COPIES, &mut timeline, copy).map_err(|e| sql("reading the memory_copies view", e))?;
    }
    let dispatches: i64 = conn
        .query_row("SELECT count(*) FROM rocpd_kernel_dispatch", [], |r| r.get(0))
        .map_err(|e| sql("counting rocpd_kernel_dispatch", e))?;
    if !timeline.is_full() && (kernels as i64) < dispatches {
        timeline.note_partial(format!(
            "the kernels view shows {kernels} of the {dispatches} dispatches in rocpd_kernel_dispatch (the others \
             lack the event or region name the view joins): only those are counted"
        ));
    }
    if timeline.ops.is_empty() {
        let why = if dispatches > 0 {
            format!(
                "its kernels view shows none of the {dispatches} dispatches in rocpd_kernel_dispatch (they lack the \
                 event or region name the view joins)"
            )
        } else {
            "holds no kernel dispatch or memory copy: was it recorded with --kernel-trace?".to_owned()
        };
        return Err(Error::artifact(path, 0, why));
    }
    Ok(timeline)
}

/// Runs `query`, turning each row into an op with `op`; returns how many were added.
fn read(
    conn: &Connection,
    query: &str,
    timeline: &mut Timeline,
    op: fn(&Row<'_>, &mut Timeline) -> rusqlite::Result<(DeviceOp, OpDetails)>,
) -> rusqlite::Result<usize> {
    let mut statement = conn.prepare(query)?;
    let mut rows = statement.query([])?;
    let mut added = 0;
    while let Some(row) = rows.next()? {
        let (op, details) = op(row, timeline)?;
        timeline.push_op_with(op, details);
        added += 1;
        if timeline.is_full() {
            break;
        }
    }
    Ok(added)
}

/// A span from `start`/`end` columns; an end before its start is an error naming the row.
fn span(row: &Row<'_>, start: usize) -> rusqlite::Result<(u64, u64)> {
    let (begin, end): (u64, u64) = (row.get(start)?, row.get(start + 1)?);
    let duration = end.checked_sub(begin).ok_or_else(|| {
        rusqlite::Error::InvalidColumnType(
            start + 1,
            format!("end {end} before start {begin}"),
            rusqlite::types::Type::Integer,
        )
    })?;
    Ok((begin, duration))
}

fn kernel(row: &Row<'_>, timeline: &mut Timeline) -> rusqlite::Result<(DeviceOp, OpDetails)> {
    let name: String = row.get(0)?;
    let device: u32 = row.get(1)?;
    let stream: Option<u64> = row.get(2)?;
    let queue: u64 = row.get(3)?;
    let (start, duration) = span(row, 4)?;
    let dims = |at: usize| -> rusqlite::Result<[u32; 3]> { Ok([row.get(at)?, row.get(at + 1)?, row.get(at + 2)?]) };
    let (grid, block) = (dims(6)?, dims(9)?);
    let name = timeline.intern(&name);
    let mut op = DeviceOp::new(OpKind::Kernel, name, device, stream.unwrap_or(queue), start, duration);
    op.correlation = row.get::<_, Option<u64>>(14)?.into();
    let details = OpDetails {
        block: Some(block),
        // HSA grid sizes count work-items; the timeline's grid counts workgroups.
        grid: Some([0, 1, 2].map(|i| grid[i].div_ceil(block[i].max(1)))),
        shared_memory_bytes: row.get(12)?,
        registers_per_thread: row.get(13)?,
        ..OpDetails::default()
    };
    Ok((op, details))
}

fn copy(row: &Row<'_>, timeline: &mut Timeline) -> rusqlite::Result<(DeviceOp, OpDetails)> {
    let name: String = row.get(0)?;
    let (start, duration) = span(row, 1)?;
    let size: Option<u64> = row.get(3)?;
    let (src_type, src_index): (String, u32) = (row.get(4)?, row.get(5)?);
    let (dst_type, dst_index): (String, u32) = (row.get(6)?, row.get(7)?);
    let device = if dst_type == "GPU" {
        dst_index
    } else if src_type == "GPU" {
        src_index
    } else {
        0
    };
    let stream: Option<u64> = row.get(8)?;
    let name = timeline.intern(&name);
    let mut op = DeviceOp::new(OpKind::Memcpy, name, device, stream.unwrap_or(0), start, duration);
    op.correlation = row.get::<_, Option<u64>>(9)?.into();
    Ok((op, OpDetails { bytes: size, ..OpDetails::default() }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::fixture_path;

    const DB: &str = "rocpd/CONSTRUCTED_vcopy_MI300A_rocpd_schema3.db";

    /// The database holds the dispatches of the run whose real CSV and JSON are fixtures too:
    /// python's sqlite3 on it gives `select count(*), sum(duration) from kernels` = (3, 19308),
    /// the same 8292 + 5528 + 5488 ns as the CSV.
    #[test]
    fn reads_the_kernels_view() {
        let path = fixture_path(DB);
        assert!(is_rocpd(&path));
        assert!(!is_rocpd(&fixture_path("rocprofv3/sdk1.0_kernel_trace.csv")));
        let t = load(&path).unwrap();
        assert_eq!(t.ops.iter().map(|o| o.dur_ns()).collect::<Vec<_>>(), [8292, 5528, 5488]);
        let first = &t.ops[0];
        assert_eq!(t.name(first.name()), "vecCopy(double*, double*, double*, int, int)");
        assert_eq!((first.device(), first.stream(), first.start_ns), (0, 0, 1_986_623_975_868_304));
        let details = t.details_of(first).unwrap();
        assert_eq!(
            (details.grid, details.block, details.registers_per_thread),
            (Some([4096, 1, 1]), Some([256, 1, 1]), Some(4))
        );
        assert_eq!(t.partial, None);
    }

    #[test]
    fn a_view_short_of_the_dispatch_table_is_partial_and_other_versions_refused() {
        let dir = std::env::temp_dir().join(format!("prof-rocpd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let altered = |name: &str, sql: &str| {
            let path = dir.join(name);
            std::fs::copy(fixture_path(DB), &path).unwrap();
            Connection::open(&path).unwrap().execute_batch(sql).unwrap();
            path
        };
        let table = |prefix: &str| -> String {
            Connection::open(fixture_path(DB))
                .unwrap()
                .query_row(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?1",
                    [format!("{prefix}_0%")],
                    |r| r.get(0),
                )
                .unwrap()
        };
        let (dispatch, strings) = (table("rocpd_kernel_dispatch"), table("rocpd_string"));
        // Dispatch 1 pointing at a region name that is not there: the view drops it.
        let short = altered(
            "short.db",
            &format!("PRAGMA foreign_keys = OFF; UPDATE {dispatch} SET region_name_id = 999999 WHERE id = 1;"),
        );
        let t = load(&short).unwrap();
        assert_eq!(t.ops.iter().map(|o| o.dur_ns()).collect::<Vec<_>>(), [5528, 5488]);
        assert!(
            t.partial.as_deref().unwrap().contains("of the 3 dispatches in rocpd_kernel_dispatch"),
            "{:?}",
            t.partial
        );
        let none = altered("none.db", &format!("PRAGMA foreign_keys = OFF; DELETE FROM {strings};"));
        let e = load(&none).unwrap_err().to_string();
        assert!(e.contains("its kernels view shows none of the 3 dispatches"), "{e}");
        let metadata = table("rocpd_metadata");
        let newer = altered("v4.db", &format!("UPDATE {metadata} SET value = '4' WHERE tag = 'schema_version';"));
        let e = load(&newer).unwrap_err().to_string();
        assert!(e.contains("rocpd schema version 4 is not supported"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `bytes` gzipped.
    fn gzipped(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    /// The unzipped copies of `<stem>` this process left in the temporary directory.
    fn copies_left(stem: &str) -> usize {
        let prefix = format!("{}{}-", prof_timeline::gz_copy::COPY_PREFIX, std::process::id());
        let names = std::fs::read_dir(std::env::temp_dir()).unwrap().flatten().map(|e| e.file_name());
        names.filter(|n| n.to_string_lossy().starts_with(&prefix) && n.to_string_lossy().ends_with(stem)).count()
    }

    #[test]
    fn a_gzipped_database_reads_as_the_database_does() {
        let dir = std::env::temp_dir().join(format!("prof-rocpd-gz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let plain = fixture_path(DB);
        let whole = gzipped(&std::fs::read(&plain).unwrap());
        let gz = dir.join("results.db.gz");
        std::fs::write(&gz, &whole).unwrap();
        assert!(is_rocpd(&gz) && is_gzipped_rocpd(&gz) && !is_gzipped_rocpd(&plain));
        let (from_gz, from_db) = (load(&gz).unwrap(), load(&plain).unwrap());
        let ops = |t: &Timeline| {
            t.ops.iter().map(|o| (t.name(o.name()).to_owned(), o.start_ns, o.dur_ns(), o.device())).collect::<Vec<_>>()
        };
        assert_eq!(ops(&from_gz), ops(&from_db));
        assert_eq!(from_gz.source, gz.display().to_string());
        // Cut short: recognised by its schema, refused naming the .gz.
        let cut = dir.join("cut.db.gz");
        std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
        assert!(is_rocpd(&cut));
        let e = load(&cut).unwrap_err().to_string();
        assert!(e.contains("cut.db.gz") && e.contains("cut short or corrupt"), "{e}");
        // Another SQLite database under gzip: not taken, and refused if read anyway.
        let other = dir.join("other.db");
        Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x INTEGER);").unwrap();
        let other_gz = dir.join("other.db.gz");
        std::fs::write(&other_gz, gzipped(&std::fs::read(&other).unwrap())).unwrap();
        assert!(!is_rocpd(&other_gz));
        let e = load(&other_gz).unwrap_err().to_string();
        assert!(e.contains("other.db.gz") && e.contains("not a rocpd database"), "{e}");
        assert_eq!(copies_left("-results.db") + copies_left("-cut.db") + copies_left("-other.db"), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
