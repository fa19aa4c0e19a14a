//! The pages reader against SQLite's own reading of the same rows: on the real nsys exports
//! (every activity table prof reads), and on tables built by SQLite itself to reach every
//! case of the file format (page sizes, serial types, overflow chains, deep trees, freed
//! cells, columns added later), plus the files it must leave to SQLite.

use super::super::activity::{columns, Reader};
use super::super::raw::{Cell, RawRows};
use super::super::{Export, CUDA_TABLES, NVTX_TABLE};
use super::*;
use crate::test_fixtures::Scratch;
use prof_core::Timeline;

/// Every op and span as text, names resolved, in order.
fn text(t: &Timeline) -> Vec<String> {
    let ops = t.ops.iter().map(|op| {
        let d = t.details_of(op);
        let (name, corr) = (t.name(op.name()), op.correlation);
        format!("{:?} {name} {} {} {} {} {corr:?} {d:?}", op.kind(), op.device(), op.stream(), { op.start_ns }, {
            op.dur_ns()
        })
    });
    let host = t.host.iter().map(|s| {
        let name = t.name(s.name);
        format!("{name} {:?} {} {} {} {} {:?}", s.category, s.pid, { s.tid }, { s.start_ns }, { s.dur_ns() }, {
            s.correlation
        })
    });
    ops.chain(host).collect()
}

/// Each cell of every row of `sql` as SQLite gives it, and as the pages give it.
fn both(path: &Path, table: &str, names: &[&str]) -> (Vec<Vec<Cell>>, Option<Vec<Vec<Cell>>>) {
    let conn = Connection::open(path).unwrap();
    let list: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let sql = format!("SELECT {} FROM {table}", list.join(", "));
    let mut rows = RawRows::prepare(&conn, &sql).unwrap();
    let mut sqlite = Vec::new();
    while rows.step().unwrap() {
        sqlite.push((0..names.len()).map(|i| rows.cell(i)).collect());
    }
    let pages = TablePages::open(path, &conn, table, names).map(|pages| {
        let mut seen = Vec::new();
        pages
            .scan(0..pages.leaves(), |record| {
                seen.push((0..names.len()).map(|i| record.cell(i)).collect());
                Ok::<(), ()>(())
            })
            .unwrap();
        seen
    });
    (sqlite, pages)
}

#[test]
fn every_real_export_reads_the_same_from_its_pages_as_through_sqlite() {
    let mut read = 0;
    let scratch = Scratch::new("pages-exports");
    for path in crate::test_fixtures::nsys_exports(&scratch) {
        let export = Export::open(&path).unwrap();
        for table in CUDA_TABLES.into_iter().chain([NVTX_TABLE]).filter(|t| export.has(t)) {
            let names = columns(table).unwrap();
            let pages = TablePages::open(&path, &export.conn, table, &names)
                .unwrap_or_else(|| panic!("{} {table}: not read from its pages", path.display()));
            let mut sqlite = Timeline::new("t");
            Reader::new(&export).unwrap().read(table, &mut sqlite).unwrap();
            let mut direct = Timeline::new("t");
            assert!(Reader::new(&export).unwrap().read_pages(table, &pages, 0..pages.leaves(), &mut direct));
            assert_eq!(text(&direct), text(&sqlite), "{} {table}", path.display());
            assert!(!text(&sqlite).is_empty() || table == NVTX_TABLE);
            read += 1;
        }
    }
    assert!(read >= 8, "the four exports' kernel and runtime tables at least: {read}");
}

/// A scratch database written by SQLite with `page_size` and the statements `sql`.
fn built(scratch: &Scratch, name: &str, page_size: u32, sql: &str) -> std::path::PathBuf {
    let path = scratch.0.join(name);
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(&format!("PRAGMA page_size = {page_size}; {sql}")).unwrap();
    path
}

#[test]
fn every_serial_type_overflow_chain_and_tree_depth_reads_as_sqlite_reads_it() {
    let scratch = Scratch::new("nsys-pages");
    let mut random = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        random
    };
    for (round, page_size) in [512u32, 1024, 4096, 65536].into_iter().enumerate() {
        let mut sql = String::from(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, big BLOB, a INTEGER, b INT, c, note TEXT, r REAL); BEGIN;",
        );
        for row in 0..3000u64 {
            // Values of every width: 0, 1, and 1..8-byte magnitudes of both signs.
            let bits = next() % 64;
            let magnitude = (next() >> (63 - bits)) as i64;
            let a = if next() % 2 == 0 { magnitude } else { -magnitude };
            let b = ["NULL", "0", "1", "-1", "9223372036854775807", "-9223372036854775808"][(next() % 6) as usize];
            let c = if next() % 5 == 0 { "'text'".to_owned() } else { (next() % 300).to_string() };
            // Some rows far larger than a page: their tail overflows.
            let big = match next() % 8 {
                0 => format!("randomblob({})", next() % (u64::from(page_size) * 3)),
                1 => "NULL".to_owned(),
                _ => format!("randomblob({})", next() % 40),
            };
            sql += &format!("INSERT INTO t VALUES ({}, {big}, {a}, {b}, {c}, 'n{row}', 1.5);", row * 3 + next() % 3);
        }
        sql += "COMMIT; DELETE FROM t WHERE id % 7 = 0; ALTER TABLE t ADD COLUMN later INTEGER;";
        sql += "UPDATE t SET later = id WHERE id % 5 = 0; ALTER TABLE t ADD COLUMN fixed INTEGER DEFAULT 5;";
        let path = built(&scratch, &format!("t{round}.sqlite"), page_size, &sql);
        let (sqlite, pages) = both(&path, "t", &["a", "b", "c", "id", "later", "note"]);
        assert_eq!(pages.as_ref(), Some(&sqlite), "page size {page_size}");
        assert!(sqlite.len() > 2000);
        // A row's integers in one call: those SQLite gives when every cell is one, else none.
        let conn = Connection::open(&path).unwrap();
        let pages = TablePages::open(&path, &conn, "t", &["a", "b", "c", "id", "later"]).unwrap();
        let (mut whole, mut rows) = (0, 0);
        pages
            .scan(0..pages.leaves(), |record| {
                let cells: Vec<Cell> = (0..5).map(|i| record.cell(i)).collect();
                let ints = |n: usize| -> Option<Vec<i64>> {
                    cells[..n].iter().map(|c| if let Cell::Int(v) = c { Some(*v) } else { None }).collect()
                };
                assert_eq!(record.ints::<5>().map(Vec::from), ints(5), "{cells:?}");
                assert_eq!(record.ints::<2>().map(Vec::from), ints(2), "{cells:?}");
                whole += usize::from(ints(5).is_some());
                rows += 1;
                Ok::<(), ()>(())
            })
            .unwrap();
        assert!(whole > 100 && whole < rows, "rows of integers and rows with a NULL or text: {whole} of {rows}");
        // A column added with a default other than NULL is read as stored, never guessed:
        // rows written before it say so.
        let (sqlite, pages) = both(&path, "t", &["fixed"]);
        let pages = pages.unwrap();
        assert_eq!(pages.len(), sqlite.len());
        assert!(pages.iter().all(|row| row == &[Cell::Other("a default value")]));
        assert!(sqlite.iter().all(|row| row == &[Cell::Int(5)]));
    }
}

#[test]
fn files_it_cannot_read_exactly_are_left_to_sqlite() {
    let scratch = Scratch::new("nsys-pages-left");
    let leave = |name: &str, sql: &str, columns: &[&str]| {
        let path = built(&scratch, name, 4096, sql);
        let conn = Connection::open(&path).unwrap();
        assert!(TablePages::open(&path, &conn, "t", columns).is_none(), "{name}");
    };
    leave("wal.sqlite", "PRAGMA journal_mode = WAL; CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);", &["a"]);
    leave("norowid.sqlite", "CREATE TABLE t (a INTEGER PRIMARY KEY, b) WITHOUT ROWID;", &["a"]);
    leave("real.sqlite", "CREATE TABLE t (a REAL, b INTEGER);", &["a"]);
    leave("generated.sqlite", "CREATE TABLE t (a INTEGER, b INTEGER AS (a + 1));", &["a"]);
    leave("missing.sqlite", "CREATE TABLE t (a INTEGER);", &["nope"]);
    leave("notable.sqlite", "CREATE TABLE u (a INTEGER);", &["a"]);
}

#[test]
fn damaged_pages_are_refused_or_read_without_a_panic() {
    let scratch = Scratch::new("nsys-pages-damaged");
    let mut sql = String::from("CREATE TABLE t (a INTEGER, b BLOB, c INTEGER); BEGIN;");
    for row in 0..2000 {
        sql += &format!("INSERT INTO t VALUES ({row}, randomblob({}), -{row});", (row * 37) % 900);
    }
    sql += "COMMIT;";
    let good = std::fs::read(built(&scratch, "good.sqlite", 1024, &sql)).unwrap();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for round in 0..300 {
        let mut bytes = good.clone();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        if round % 10 == 0 {
            bytes.truncate(100 + (seed as usize % (good.len() - 100)));
        } else {
            for k in 0..(1 + seed % 8) {
                let at = 1024 + (seed.rotate_left(k as u32 * 7) as usize % (good.len() - 1024));
                bytes[at] = (seed >> (k * 8)) as u8;
            }
        }
        let path = scratch.file("bad.sqlite", &bytes);
        let Ok(conn) = Connection::open(&path) else { continue };
        if let Some(pages) = TablePages::open(&path, &conn, "t", &["a", "c"]) {
            let _ = pages.scan(0..pages.leaves(), |record| {
                let _ = (record.cell(0), record.cell(1));
                Ok::<(), ()>(())
            });
        }
    }
}

#[test]
fn varints_read_as_the_format_writes_them() {
    assert_eq!(varint(&[0x05]), Some((5, 1)));
    assert_eq!(varint(&[0x81, 0x00]), Some((128, 2)));
    assert_eq!(varint(&[0xFF; 9]), Some((u64::MAX, 9)));
    assert_eq!(varint(&[0x81]), None, "cut short");
    assert_eq!(varint(&[]), None);
}

/// A copy, named `name` in `scratch`, of the real nsys 2024.6 export the tests below change.
fn learncuda_copy(scratch: &Scratch, name: &str) -> std::path::PathBuf {
    let report = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/nvidia/nsys/sqlite/learncuda_rtx4060-laptop_nsys2024.6.2_report1.sqlite"
    );
    scratch.file(name, &std::fs::read(report).unwrap())
}

/// NVTX ranges read from the pages: the query's condition (`eventType IN (59, 60) AND "end"
/// IS NOT NULL AND start >= 0`) applied in Rust as SQLite applies it, the text or its
/// `textId`; a value SQLite would compare otherwise (a REAL eventType) sends the table back
/// to SQLite, and the load still gives SQLite's ranges.
#[test]
fn nvtx_ranges_from_the_pages_are_those_sqlite_selects() {
    let scratch = Scratch::new("nsys-pages-nvtx");
    let path = learncuda_copy(&scratch, "nvtx.sqlite");
    let conn = Connection::open(&path).unwrap();
    let mut sql = String::from("BEGIN;");
    for row in 0..4000i64 {
        let event = ["59", "60", "34", "35"][(row % 7 % 4) as usize];
        let start = if row % 11 == 0 { -row } else { row * 1000 };
        let end = if row % 13 == 0 { "NULL".to_owned() } else { (row * 1000 + 500 + row % 3).to_string() };
        let text = match row % 5 {
            0 => "NULL".to_owned(),
            1 => format!("'range {row} \u{e9}'"),
            _ => format!("'{}'", "x".repeat((row % 700) as usize)),
        };
        let text_id = if row % 5 == 0 { "(SELECT min(id) FROM StringIds)" } else { "NULL" };
        sql += &format!(
            "INSERT INTO NVTX_EVENTS (start, \"end\", eventType, text, textId, globalTid) \
             VALUES ({start}, {end}, {event}, {text}, {text_id}, 281799951403946);"
        );
    }
    // A range at time 0 is kept (`start >= 0`).
    sql += "INSERT INTO NVTX_EVENTS (start, \"end\", eventType, text) VALUES (0, 10, 60, 'at zero');";
    conn.execute_batch(&(sql + "COMMIT;")).unwrap();
    let export = Export::open(&path).unwrap();
    let names = columns(NVTX_TABLE).unwrap();
    let pages = TablePages::open(&path, &export.conn, NVTX_TABLE, &names).unwrap();
    assert!(pages.leaves() > 10, "ranges over many leaves, some overflowing");
    let mut sqlite = Timeline::new("t");
    Reader::new(&export).unwrap().read(NVTX_TABLE, &mut sqlite).unwrap();
    let mut direct = Timeline::new("t");
    assert!(Reader::new(&export).unwrap().read_pages(NVTX_TABLE, &pages, 0..pages.leaves(), &mut direct));
    assert_eq!(text(&direct), text(&sqlite));
    assert!(sqlite.host.iter().any(|s| sqlite.name(s.name) == "at zero"));
    assert!(sqlite.host.len() > 1000 && sqlite.host.len() < 3000, "{} kept of 4006", sqlite.host.len());
    // A REAL eventType (INTEGER affinity keeps 59.0 as the integer 59, not 59.5): the pages
    // leave the table to SQLite, whose condition drops the row.
    conn.execute_batch("INSERT INTO NVTX_EVENTS (start, \"end\", eventType, text) VALUES (5, 9, 59.5, 'real');")
        .unwrap();
    let export = Export::open(&path).unwrap();
    let pages = TablePages::open(&path, &export.conn, NVTX_TABLE, &names).unwrap();
    let mut direct = Timeline::new("t");
    assert!(!Reader::new(&export).unwrap().read_pages(NVTX_TABLE, &pages, 0..pages.leaves(), &mut direct));
    let loaded = super::super::load(&path).unwrap();
    let mut sqlite = Timeline::new("t");
    Reader::new(&export).unwrap().read(NVTX_TABLE, &mut sqlite).unwrap();
    let ranges = |t: &Timeline| t.host.iter().filter(|s| s.category == prof_core::HostCategory::Annotation).count();
    assert_eq!(ranges(&loaded), ranges(&sqlite));
    assert!(!loaded.host.iter().any(|s| loaded.name(s.name) == "real"));
}

/// Kernel and runtime rows whose cells are integers out of their columns' range (a grid past
/// 2^32, a negative stream, an end before the start): the pages' one-call reading of a row
/// leaves them to the cell-by-cell reading, which refuses each as SQLite's reading does,
/// naming the row and column.
#[test]
fn cells_out_of_range_are_refused_as_sqlite_reads_them() {
    let scratch = Scratch::new("nsys-pages-kernel-range");
    let (kernels, calls) = (super::super::KERNEL_TABLE, super::super::RUNTIME_TABLE);
    let cases = [
        (kernels, "gridX = 4294967296", "column gridX holds 4294967296, out of range"),
        (kernels, "streamId = -1", "column streamId holds -1, out of range"),
        (kernels, "\"end\" = start - 1", "before its start"),
        (kernels, "correlationId = -5", "column correlationId holds -5, out of range"),
        (kernels, "staticSharedMemory = -1", "column staticSharedMemory holds -1, out of range"),
        (calls, "\"end\" = start - 1", "before its start"),
        (calls, "correlationId = -5", "column correlationId holds -5, out of range"),
        (calls, "start = -3", "column start holds -3, out of range"),
    ];
    for (k, (table, set, said)) in cases.into_iter().enumerate() {
        let path = learncuda_copy(&scratch, &format!("k{k}.sqlite"));
        let conn = Connection::open(&path).unwrap();
        let rowid: i64 = conn.query_row(&format!("SELECT max(rowid) FROM {table}"), [], |r| r.get(0)).unwrap();
        conn.execute_batch(&format!("UPDATE {table} SET {set} WHERE rowid = {rowid}")).unwrap();
        let export = Export::open(&path).unwrap();
        let names = columns(table).unwrap();
        let pages = TablePages::open(&path, &export.conn, table, &names).unwrap();
        let mut direct = Timeline::new("t");
        assert!(!Reader::new(&export).unwrap().read_pages(table, &pages, 0..pages.leaves(), &mut direct), "{set}");
        let mut sqlite = Timeline::new("t");
        let from_sqlite = Reader::new(&export).unwrap().read(table, &mut sqlite).unwrap_err().to_string();
        let loaded = super::super::load(&path).unwrap_err().to_string();
        assert!(from_sqlite.contains(said), "{set}: {from_sqlite}");
        assert_eq!(loaded, from_sqlite, "{set}");
    }
}
