//! The large tables of an nsys export read in parts at once, one thread and one read-only
//! connection each: from the table's own pages ([`TablePages`]: its leaves split into runs)
//! where the file allows, else the kernel table by rowid range through SQLite. The parts,
//! joined in rowid order ([`Timeline::append`]), give the timeline one reader gives. When a
//! part fails (a bad row, its share of the memory budget spent, a table without rowids), the
//! table is read again by one SQLite reader, so an error names the right row.

use super::activity::{columns, Reader};
use super::pages::TablePages;
use super::{open_read_only, Export, KERNEL_TABLE};
use prof_core::op_totals::OpTotals;
use prof_core::part_buffers::PartBuffers;
use prof_core::{Result, Timeline};

/// Kernel tables with fewer rows than this are read by one thread.
const PARALLEL_MIN_ROWS: i64 = 1 << 20;
/// Rows of a part.
const PART_ROWS: i64 = 1 << 20;
/// Leaf pages of a part read from the pages (64 MB of 4 KB pages: ~1 M kernels).
const PART_LEAVES: usize = 16384;

/// Appends the rows of `table` (a table of device ops or runtime calls) of `export` to
/// `timeline`.
pub(super) fn read_table(export: &Export, table: &'static str, timeline: &mut Timeline) -> Result<()> {
    let pages = columns(table).and_then(|names| TablePages::open(&export.path, &export.conn, table, &names));
    if let Some(joined) = pages.and_then(|pages| by_pages(export, table, &pages)) {
        timeline.append(joined);
        return Ok(());
    }
    read_table_without_pages(export, table, timeline)
}

/// [`read_table`] where the pages cannot give the table (or a part of it failed): the kernel
/// table by rowid range on every core, else one SQLite reader.
fn read_table_without_pages(export: &Export, table: &'static str, timeline: &mut Timeline) -> Result<()> {
    if table != KERNEL_TABLE {
        return Reader::new(export)?.read(table, timeline);
    }
    let parts = kernel_rowids(export).filter(|&(lo, hi)| hi - lo >= PARALLEL_MIN_ROWS).and_then(|(lo, hi)| {
        let workers = prof_timeline::text_parts::workers();
        // Parts of about a million rows each, joined one at a time, each copied once.
        let parts = usize::try_from((hi - lo) / PART_ROWS + 1).unwrap_or(usize::MAX).max(workers);
        (workers > 1).then(|| in_parts(export, (lo, hi), parts)).flatten()
    });
    if let Some(joined) = parts {
        // Into a timeline that holds nothing yet, the parts move without a copy.
        timeline.append(joined);
        return Ok(());
    }
    Reader::new(export)?.read(KERNEL_TABLE, timeline)
}

/// The rows of `table` read from its `pages` in runs of [`PART_LEAVES`] leaves on every core,
/// joined in order; `None` when a part failed.
fn by_pages(export: &Export, table: &'static str, pages: &TablePages) -> Option<Timeline> {
    let source = export.path.display().to_string();
    let buffers = PartBuffers::default();
    page_parts(
        (export, &buffers),
        table,
        pages,
        |part| part,
        Timeline::new(source.as_str()),
        |whole, part| {
            buffers.append(whole, part);
        },
    )
}

/// The kernel-summary totals of the device ops of `table` (kernels, copies or sets): read
/// like [`read_table`], but each part of the table's pages folded into totals and dropped as
/// soon as it is read, so the table is never held whole (`prof analyze --summary-only`).
/// A table the pages cannot give (or one of whose parts failed) is read whole without them,
/// as [`read_table`] then reads it, and folded.
pub(super) fn fold_table(export: &Export, table: &'static str) -> Result<OpTotals> {
    let pages = columns(table).and_then(|names| TablePages::open(&export.path, &export.conn, table, &names));
    let buffers = PartBuffers::default();
    let fold = |part: Timeline| buffers.fold(part);
    let folded = pages
        .and_then(|pages| page_parts((export, &buffers), table, &pages, fold, OpTotals::default(), OpTotals::absorb));
    if let Some(totals) = folded {
        return Ok(totals);
    }
    let mut timeline = Timeline::new(export.path.display().to_string());
    read_table_without_pages(export, table, &mut timeline)?;
    Ok(OpTotals::of_timeline(&timeline))
}

/// The runs of [`PART_LEAVES`] leaves of `table`'s `pages`, each read into its own timeline on
/// one of the cores, made into a `T` by `fold` and joined onto `init` in order; `None` when a
/// part failed.
fn page_parts<T: Send, J: Send>(
    export: (&Export, &PartBuffers),
    table: &'static str,
    pages: &TablePages,
    fold: impl Fn(Timeline) -> T + Sync,
    init: J,
    join: impl Fn(&mut J, T) + Sync,
) -> Option<J> {
    let leaves = pages.leaves();
    let parts = leaves.div_ceil(PART_LEAVES).max(1);
    let read = |reader: &mut Reader, k: usize, part: &mut Timeline| {
        let range = k * PART_LEAVES..((k + 1) * PART_LEAVES).min(leaves);
        reader.read_pages(table, pages, range, part)
    };
    run_parts(export, parts, read, fold, init, join)
}

/// `parts` timelines (on op vectors from the [`PartBuffers`] when one is free), part `k`
/// filled by `read` (false: it failed), read on every core with a share of the memory budget
/// each, each made into a `T` by `fold` and joined onto `init` in order while later ones are
/// read ([`prof_timeline::text_parts::run_parts_joined`]); `None` when a part failed.
fn run_parts<T: Send, J: Send>(
    (export, buffers): (&Export, &PartBuffers),
    parts: usize,
    read: impl Fn(&mut Reader, usize, &mut Timeline) -> bool + Sync,
    fold: impl Fn(Timeline) -> T + Sync,
    init: J,
    join: impl Fn(&mut J, T) + Sync,
) -> Option<J> {
    let budget = prof_timeline::load_budget::memory_budget() / parts as u64;
    let source = export.path.display().to_string();
    let (path, tables, info) = (&export.path, &export.tables, &export.info);
    let work = |k: usize| {
        // A connection is not shared between threads: each part opens its own (for StringIds).
        let own =
            Export { path: path.clone(), conn: open_read_only(path).ok()?, tables: tables.clone(), info: info.clone() };
        let mut part = buffers.timeline(source.as_str(), budget);
        let mut reader = Reader::new(&own).ok()?;
        read(&mut reader, k, &mut part).then(|| fold(part))
    };
    prof_timeline::text_parts::run_parts_joined(parts, work, init, join)
}

/// The first and last rowid of the kernel table; `None` when it is empty or has no rowids.
/// Two subqueries: SQLite reads a lone `min(rowid)` or `max(rowid)` from one end of the
/// table's b-tree, but `SELECT min(rowid), max(rowid)` scans every row (0.84 s at 10 M
/// kernels, before any part could start).
fn kernel_rowids(export: &Export) -> Option<(i64, i64)> {
    let sql = rowids_sql();
    let (lo, hi): (Option<i64>, Option<i64>) = export.conn.query_row(&sql, [], |r| Ok((r.get(0)?, r.get(1)?))).ok()?;
    lo.zip(hi).filter(|(lo, hi)| lo <= hi)
}

/// The query of [`kernel_rowids`].
fn rowids_sql() -> String {
    format!("SELECT (SELECT min(rowid) FROM {KERNEL_TABLE}), (SELECT max(rowid) FROM {KERNEL_TABLE})")
}

/// The kernel table's rowids `lo..=hi` in `parts` ranges, read on every core and joined in
/// rowid order while later ones are read ([`prof_timeline::text_parts::run_parts_joined`]);
/// `None` for fewer than two parts or when a part failed.
fn in_parts(export: &Export, (lo, hi): (i64, i64), parts: usize) -> Option<Timeline> {
    let rows = hi.checked_sub(lo)?.checked_add(1)?;
    if parts < 2 || rows < parts as i64 {
        return None;
    }
    let step = rows / parts as i64;
    let ranges: Vec<(i64, i64)> = (0..parts as i64)
        .map(|k| (lo + k * step, if k + 1 == parts as i64 { hi } else { lo + (k + 1) * step - 1 }))
        .collect();
    let read = |reader: &mut Reader, k: usize, part: &mut Timeline| {
        reader.read_rows(KERNEL_TABLE, Some(ranges[k]), part).is_ok() && !part.is_full()
    };
    let source = export.path.display().to_string();
    let buffers = PartBuffers::default();
    run_parts(
        (export, &buffers),
        ranges.len(),
        read,
        |part| part,
        Timeline::new(source.as_str()),
        |whole, part| {
            buffers.append(whole, part);
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every op as text, names resolved, in order.
    fn ops_text(t: &Timeline) -> Vec<String> {
        t.ops
            .iter()
            .map(|op| {
                let d = t.details_of(op).map(|d| (d.grid, d.block, d.registers_per_thread, d.shared_memory_bytes));
                let name = t.name(op.name());
                let (device, stream, start, dur, corr) =
                    (op.device(), op.stream(), op.start_ns, op.dur_ns(), op.correlation);
                format!("{:?} {name} {device} {stream} {start} {dur} {corr:?} {d:?}", op.kind())
            })
            .collect()
    }

    /// The first and last rowids are read from the ends of the kernel table, never by a scan
    /// of it (SQLite's plan for `SELECT min(rowid), max(rowid)`: 0.84 s at 10 M kernels), and
    /// are those of its rows; an empty table has none.
    #[test]
    fn kernel_rowids_are_read_from_the_ends_of_the_table() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(&format!("CREATE TABLE {KERNEL_TABLE} (start INTEGER, \"end\" INTEGER)")).unwrap();
        let plan: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", rowids_sql()))
            .unwrap()
            .query_map([], |row| row.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let (scans, searches) = (format!("SCAN {KERNEL_TABLE}"), format!("SEARCH {KERNEL_TABLE}"));
        assert!(!plan.iter().any(|step| step.starts_with(&scans)), "{plan:?}");
        assert_eq!(plan.iter().filter(|step| step.starts_with(&searches)).count(), 2, "{plan:?}");
        let both = format!("EXPLAIN QUERY PLAN SELECT min(rowid), max(rowid) FROM {KERNEL_TABLE}");
        let scan: String = conn.query_row(&both, [], |row| row.get(3)).unwrap();
        assert!(scan.starts_with(&scans), "the plan this avoids: {scan}");
        let rows = |conn: &rusqlite::Connection| -> (Option<i64>, Option<i64>) {
            conn.query_row(&rowids_sql(), [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap()
        };
        assert_eq!(rows(&conn), (None, None));
        for rowid in [7, 3, 12] {
            conn.execute(&format!("INSERT INTO {KERNEL_TABLE} (rowid, start, \"end\") VALUES (?1, 0, 1)"), [rowid])
                .unwrap();
        }
        assert_eq!(rows(&conn), (Some(3), Some(12)));
    }

    #[test]
    fn parts_by_rowid_join_into_the_timeline_of_one_reader() {
        // The real nsys 2022.1 export (schema 2.9.1): 505 kernels, the most of the fixtures.
        let path = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/nvidia/nsys/sqlite/hw5helper_nsys2022.1.3_schema2.9.1_EXPORT_META_DATA_report1.sqlite"
        ));
        let export = Export::open(&path).unwrap();
        let mut whole = Timeline::new("t");
        Reader::new(&export).unwrap().read(KERNEL_TABLE, &mut whole).unwrap();
        assert!(whole.ops.len() > 3, "a fixture with kernels to split");
        let rowids = kernel_rowids(&export).unwrap();
        for parts in [2, 3, 7] {
            let joined = in_parts(&export, rowids, parts).expect("parts read");
            assert_eq!(ops_text(&joined), ops_text(&whole), "{parts} parts");
        }
        assert!(in_parts(&export, rowids, 1).is_none());
        // Kernel 400 ending before it starts: its part fails, and one reader names its row.
        let scratch = crate::test_fixtures::Scratch::new("nsys-parts");
        let bad = scratch.file("bad.sqlite", &std::fs::read(&path).unwrap());
        let sql = format!("UPDATE {KERNEL_TABLE} SET \"end\" = start - 1 WHERE rowid = 400");
        rusqlite::Connection::open(&bad).unwrap().execute_batch(&sql).unwrap();
        let export = Export::open(&bad).unwrap();
        assert!(in_parts(&export, rowids, 2).is_none());
        let error = super::super::load(&bad).unwrap_err().to_string();
        assert!(error.contains("row 400"), "{error}");
    }
}
