//! Legacy rocprof's (rocprofiler v1, ROCm ≤ 6.1) SQLite database `results.db`, written by
//! `rocprof --hip-trace` beside `results.json`, into a [`Timeline`].
//!
//! The layout, from the recorded MI300A run (fixture `hipprog_mi300a_vecadd_results.db`, its
//! `results.json` and stats files beside it): tables `OPS` (the device's kernel dispatches)
//! and `COPY` (its copies and fills), each row `BeginNs`, `EndNs`, `dev-id`, `queue-id`,
//! `Name`, `pid`, `tid`, `stream-id` (newer rocprof only), `Index`; `HIP` (the API calls:
//! `BeginNs`, `EndNs`, `pid`, `tid`, `Name`, `args`, `Index`); `KERN` (`Index`,
//! `KernelName`, empty in the recorded runs). `Index` is the API call's number and the same
//! number on the op it started (`hipLaunchKernel` 8 → `vector_add` 8), so it is read as the
//! correlation id. Stream = `stream-id` where the table has it, else `queue-id`. As in the
//! JSON ([`crate::rocprof_v1_json`]), `<barrier packet>` rows are queue barriers: left out and
//! counted in [`Timeline::partial`]; copies named `Fill…` are sets.
//!
//! A database with neither an `OPS` nor a `COPY` row is an error (an empty report would be
//! wrong), as is a row whose end is before its start.

use crate::rocprof_v1_json::BARRIER;
use prof_core::{DeviceOp, Error, HostCategory, HostSpan, OpKind, Result, Timeline};
use prof_timeline::sniff::SQLITE_MAGIC;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

/// The tables of device ops, and the kind their rows are.
const DEVICE_TABLES: [(&str, OpKind); 2] = [("OPS", OpKind::Kernel), ("COPY", OpKind::Memcpy)];

fn open(path: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
}

fn columns(conn: &Connection, table: &str) -> Vec<String> {
    let Ok(mut statement) = conn.prepare(&format!("SELECT name FROM pragma_table_info('{table}')")) else {
        return Vec::new();
    };
    statement.query_map([], |row| row.get::<_, String>(0)).map(|rows| rows.flatten().collect()).unwrap_or_default()
}

fn has_times(conn: &Connection, table: &str) -> bool {
    let columns = columns(conn, table);
    ["BeginNs", "EndNs", "Name"].iter().all(|c| columns.iter().any(|have| have == c))
}

/// True when `path` is an SQLite database with rocprof v1's `OPS` or `COPY` table (with their
/// `BeginNs`/`EndNs`/`Name` columns) and its `HIP` or `KERN` table.
pub fn is_rocprof_v1_db(path: &Path) -> bool {
    let mut magic = [0u8; 16];
    let sqlite = std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic)).is_ok();
    sqlite
        && &magic == SQLITE_MAGIC
        && open(path).is_ok_and(|conn| {
            DEVICE_TABLES.iter().any(|(t, _)| has_times(&conn, t))
                && ["HIP", "KERN"].iter().any(|t| !columns(&conn, t).is_empty())
        })
}

/// Loads the rocprof v1 database at `path`.
pub fn load(path: &Path) -> Result<Timeline> {
    let sql = |what: &str, e: rusqlite::Error| Error::artifact(path, 0, format!("{what}: {e}"));
    let conn = open(path).map_err(|e| sql("opening the database", e))?;
    let mut timeline = Timeline::new(path.display().to_string());
    let mut barriers = 0usize;
    for (table, kind) in DEVICE_TABLES.into_iter().filter(|(t, _)| has_times(&conn, t)) {
        let stream =
            if columns(&conn, table).iter().any(|c| c == "stream-id") { "\"stream-id\"" } else { "\"queue-id\"" };
        let query =
            format!("SELECT Name, BeginNs, EndNs, \"dev-id\", {stream}, \"Index\" FROM \"{table}\" ORDER BY BeginNs");
        let mut statement = conn.prepare(&query).map_err(|e| sql(&format!("reading {table}"), e))?;
        let mut rows = statement.query([]).map_err(|e| sql(&format!("reading {table}"), e))?;
        let mut at = 0usize;
        while let Some(row) = rows.next().map_err(|e| sql(&format!("reading {table}"), e))? {
            at += 1;
            let cell = |i: usize| row.get::<_, Option<i64>>(i).ok().flatten().and_then(|v| u64::try_from(v).ok());
            let name: String = row.get::<_, Option<String>>(0).ok().flatten().unwrap_or_default();
            let fail = |why: String| Error::artifact(path, 0, format!("{table} row {at} ({name}): {why}"));
            if name == BARRIER {
                barriers += 1;
                continue;
            }
            let (Some(begin), Some(end)) = (cell(1), cell(2)) else {
                return Err(fail("BeginNs or EndNs is missing or negative".to_owned()));
            };
            let duration =
                end.checked_sub(begin).ok_or_else(|| fail(format!("EndNs {end} is before BeginNs {begin}")))?;
            let kind = if kind == OpKind::Memcpy { crate::rocprof_v1_json::copy_kind(&name) } else { kind };
            let device = cell(3).and_then(|d| u32::try_from(d).ok()).unwrap_or(0);
            let id = timeline.intern(&name);
            let mut op = DeviceOp::new(kind, id, device, cell(4).unwrap_or(0), begin, duration);
            op.correlation = cell(5).into();
            timeline.push_op(op);
            if timeline.is_full() {
                break;
            }
        }
    }
    if timeline.ops.is_empty() {
        return Err(Error::artifact(
            path,
            0,
            "its OPS and COPY tables hold no row: the run traced no kernel and no copy (was it recorded with \
             --hip-trace, and did the workload reach the GPU?)",
        ));
    }
    if has_times(&conn, "HIP") {
        read_api(&conn, path, &mut timeline)?;
    }
    if barriers > 0 {
        timeline.note_partial(format!("{barriers} {BARRIER} rows (queue barriers, not kernels) were left out"));
    }
    Ok(timeline)
}

fn read_api(conn: &Connection, path: &Path, timeline: &mut Timeline) -> Result<()> {
    let sql = |e: rusqlite::Error| Error::artifact(path, 0, format!("reading HIP: {e}"));
    let mut statement =
        conn.prepare("SELECT Name, BeginNs, EndNs, pid, tid, \"Index\" FROM HIP ORDER BY BeginNs").map_err(sql)?;
    let mut rows = statement.query([]).map_err(sql)?;
    while let Some(row) = rows.next().map_err(sql)? {
        let cell = |i: usize| row.get::<_, Option<i64>>(i).ok().flatten().and_then(|v| u64::try_from(v).ok());
        let (Some(begin), Some(end)) = (cell(1), cell(2)) else { continue };
        let name: String = row.get::<_, Option<String>>(0).ok().flatten().unwrap_or_default();
        let id = timeline.intern(&name);
        let pid = cell(3).and_then(|p| u32::try_from(p).ok()).unwrap_or(0);
        let span = HostSpan::new(
            id,
            HostCategory::Runtime,
            (pid, cell(4).unwrap_or(0)),
            begin,
            end.saturating_sub(begin),
            cell(5).into(),
        );
        timeline.push_host(span);
        if timeline.is_full() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::fixture_path;

    #[test]
    fn mi300a_run_reads_its_kernel_copies_and_launch_links() {
        let path = fixture_path("rocprof-v1/hipprog_mi300a_vecadd_results.db");
        assert!(is_rocprof_v1_db(&path));
        assert!(!is_rocprof_v1_db(&fixture_path("rocpd/CONSTRUCTED_vcopy_MI300A_rocpd_schema3.db")));
        let timeline = load(&path).unwrap();
        // python sqlite3: OPS 1 row (vector_add, 3,431,611 ns), COPY 3 rows (92,212,447 +
        // 88,505,203 + 885,689,740 ns), HIP 13 rows; vector_add's Index 8 is hipLaunchKernel's.
        let sum = |kind: OpKind| -> (usize, u64) {
            let ops: Vec<_> = timeline.ops.iter().filter(|o| o.kind() == kind).collect();
            (ops.len(), ops.iter().map(|o| o.dur_ns()).sum())
        };
        assert_eq!(sum(OpKind::Kernel), (1, 3_431_611));
        assert_eq!(sum(OpKind::Memcpy), (3, 92_212_447 + 88_505_203 + 885_689_740));
        assert_eq!(timeline.host.len(), 13);
        let kernel = timeline.ops.iter().find(|o| o.kind() == OpKind::Kernel).unwrap();
        assert_eq!((kernel.device(), kernel.correlation.get()), (4, Some(8)));
        let launch = timeline.host.iter().find(|h| h.correlation.get() == Some(8)).unwrap();
        assert_eq!(timeline.name(launch.name), "hipLaunchKernel");
    }

    #[test]
    fn an_empty_run_and_backwards_rows_are_errors() {
        let dir = crate::test_fixtures::TempDir::new("v1-db");
        let path = dir.path().join("results.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE HIP (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"pid\" INTEGER, \"tid\" INTEGER, \"Name\" TEXT, \
             \"args\" TEXT, \"Index\" INTEGER);
             CREATE TABLE OPS (\"BeginNs\" INTEGER, \"EndNs\" INTEGER, \"dev-id\" INTEGER, \"queue-id\" INTEGER, \
             \"Name\" TEXT, \"Index\" INTEGER);",
        )
        .unwrap();
        assert!(is_rocprof_v1_db(&path));
        assert!(load(&path).unwrap_err().to_string().contains("hold no row"));
        conn.execute_batch("INSERT INTO OPS VALUES (200, 100, 0, 0, 'k', 1);").unwrap();
        let e = load(&path).unwrap_err().to_string();
        assert!(e.contains("OPS row 1 (k): EndNs 100 is before BeginNs 200"), "{e}");
    }
}
