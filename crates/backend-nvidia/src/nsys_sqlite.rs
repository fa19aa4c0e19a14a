//! Loads an Nsight Systems SQLite export (`nsys export --type sqlite`, or the `.sqlite` that
//! `nsys profile --stats=true` leaves beside its report) into a [`Timeline`].
//!
//! What is read, all times in nanoseconds on the export's clock:
//! - `CUPTI_ACTIVITY_KIND_KERNEL`: one [`DeviceOp`](prof_core::DeviceOp) per kernel with
//!   device, stream, correlation id, grid, block, registers per thread and static + dynamic
//!   shared memory. The name is the `demangledName` string (the full signature with template
//!   arguments, as `nsys stats` prints it in `cuda_gpu_kern_sum` and as prof's CUPTI tracer
//!   names kernels), falling back to `shortName` where that is empty. Kernels whose name
//!   contains `nccl` are [`OpKind::Communication`](prof_core::OpKind).
//! - `CUPTI_ACTIVITY_KIND_MEMCPY` and `CUPTI_ACTIVITY_KIND_MEMSET`: copies (`CUDA memcpy HtoD`…)
//!   and sets (`CUDA memset`) with their bytes.
//! - `CUPTI_ACTIVITY_KIND_RUNTIME`: host spans of CUDA runtime calls (event class 0, named
//!   without CUPTI's `_v7000` suffix) and driver calls (class 1), with pid and tid decoded from
//!   `globalTid` as the nsys exporter documents it (`globalTid / 0x1000000 % 0x1000000` is the
//!   pid, `globalTid % 0x1000000` the tid).
//! - `NVTX_EVENTS`: push/pop and start/end ranges (event types 59 and 60) as annotation spans.
//!   Ranges without an end (still open when the capture stopped) or starting before the
//!   export's time zero are left out: they have no interval on the capture's clock.
//!
//! Names are resolved through `StringIds` once per distinct id. Rows are streamed from SQLite
//! straight into the timeline. The database is opened read-only. Its metadata table says
//! which export schema it has: `META_DATA_EXPORT` since nsys 2023.3 (schema 3.4), before it
//! `EXPORT_META_DATA` (nsys 2022.1–2023.1: schema 2.9.1, 3.0.0, 3.1.2); nsys 2021 exports
//! have none and are read by their tables alone (their activity columns are the ones read
//! here). Schema majors 2 and 3 are read; any other is refused. Files that are not a whole SQLite database (an `.nsys-rep`
//! or `.qdstrm` given by mistake, a text file, a truncated copy) are refused before SQLite
//! opens them, with the command that makes the export.

mod activity;
mod cells;
mod gunzip;
mod kernel_cells;
mod pages;
mod parts;
mod raw;
mod record;
mod sniff;

pub use sniff::{export_command, extension, SQLITE_MAGIC};

use prof_core::op_totals::OpTotals;
use prof_core::{Error, Families, KernelSummary, Result, Timeline};
use rusqlite::{Connection, OpenFlags};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The export schema major versions this loader reads (nsys 2022.1 writes 2.9.1, 2024.6.2
/// writes 3.16.1).
pub const SUPPORTED_SCHEMA_MAJORS: [u32; 2] = [2, 3];
/// Tables every nsys export has and this loader needs.
pub const REQUIRED_TABLES: [&str; 1] = ["StringIds"];
/// The metadata table, by its name since nsys 2023.3 and before.
pub const METADATA_TABLES: [&str; 2] = ["META_DATA_EXPORT", "EXPORT_META_DATA"];
/// Kernel executions.
pub const KERNEL_TABLE: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
/// Memory copies.
pub const MEMCPY_TABLE: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
/// Memory sets.
pub const MEMSET_TABLE: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
/// CUDA runtime and driver API calls.
pub const RUNTIME_TABLE: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
/// NVTX markers and ranges.
pub const NVTX_TABLE: &str = "NVTX_EVENTS";
/// The tables that hold CUDA activity; nsys creates a table only when it has rows, so an
/// export with none of them recorded no CUDA work.
pub const CUDA_TABLES: [&str; 4] = [KERNEL_TABLE, MEMCPY_TABLE, MEMSET_TABLE, RUNTIME_TABLE];

/// What an export says about itself in its metadata table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportInfo {
    /// `EXPORT_PRODUCT_VERSION`: the nsys that wrote it (`2024.6.2.225`).
    pub product_version: Option<String>,
    /// `EXPORT_SCHEMA_VERSION` (`3.16.1`).
    pub schema_version: String,
    /// Its major number.
    pub schema_major: u32,
}

/// Loads the nsys SQLite export at `path` (or a gzip stream of one, [`gunzip`]).
pub fn load(path: &Path) -> Result<Timeline> {
    if gunzip::is_gzipped_sqlite(path) {
        let mut timeline = gunzip::read_unzipped(path, load)?;
        timeline.source = path.display().to_string();
        return Ok(timeline);
    }
    let export = Export::open(path)?;
    let mut timeline = Timeline::new(path.display().to_string());
    for table in CUDA_TABLES.into_iter().chain([NVTX_TABLE]).filter(|table| export.has(table)) {
        parts::read_table(&export, table, &mut timeline)?;
    }
    let lost = nsys_said(&export.conn, &export.tables, |text| {
        let text = text.to_ascii_lowercase();
        ["dropped", "lost", "overflow", "incomplete"].iter().any(|w| text.contains(w))
    });
    if !lost.is_empty() {
        timeline.note_partial(format!("nsys reported lost trace data: {}", lost.join("; ")));
    }
    Ok(timeline)
}

/// The kernel summary of the export at `path`, equal to [`prof_core::summarize_kernels`] over [`load`]
/// but reading only the device ops (kernels, copies, sets), each part of a table folded into
/// totals as it is read ([`prof_core::op_totals`]), so no table is held whole: the runtime
/// calls and NVTX ranges, often the larger half of an export, are asked inside SQLite for their
/// time range alone, which the summary's span needs. For `prof analyze --summary-only`.
pub fn summarize_device_ops(path: &Path, families: &Families) -> Result<KernelSummary> {
    if gunzip::is_gzipped_sqlite(path) {
        let mut summary = gunzip::read_unzipped(path, |copy| summarize_device_ops(copy, families))?;
        summary.source = path.display().to_string();
        return Ok(summary);
    }
    let export = Export::open(path)?;
    let mut totals = OpTotals::default();
    for table in [KERNEL_TABLE, MEMCPY_TABLE, MEMSET_TABLE].into_iter().filter(|table| export.has(table)) {
        totals.absorb(parts::fold_table(&export, table)?);
    }
    let device = totals.span();
    let mut summary = totals.finish(&path.display().to_string(), families);
    let span = match (device, host_bounds(&export)?) {
        (Some((lo, hi)), Some((l, h))) => Some((lo.min(l), hi.max(h))),
        (device, host) => device.or(host),
    };
    summary.span_ns = span.map_or(0, |(lo, hi)| hi - lo);
    Ok(summary)
}

/// `min(start)`, `max(end)` of the runtime calls and the NVTX ranges that [`load`] keeps.
fn host_bounds(export: &Export) -> Result<Option<(u64, u64)>> {
    let queries = [
        (RUNTIME_TABLE, "SELECT min(start), max(\"end\") FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
        (
            NVTX_TABLE,
            "SELECT min(start), max(\"end\") FROM NVTX_EVENTS \
             WHERE eventType IN (59, 60) AND \"end\" IS NOT NULL AND start >= 0",
        ),
    ];
    let mut bounds: Option<(u64, u64)> = None;
    for (table, sql) in queries.into_iter().filter(|(table, _)| export.has(table)) {
        let fail = |e: rusqlite::Error| sql_error(&export.path, &format!("reading the time range of {table}"), &e);
        let (lo, hi): (Option<i64>, Option<i64>) =
            export.conn.query_row(sql, [], |row| Ok((row.get(0)?, row.get(1)?))).map_err(fail)?;
        if let (Some(lo), Some(hi)) = (lo.and_then(|v| u64::try_from(v).ok()), hi.and_then(|v| u64::try_from(v).ok())) {
            bounds = Some(bounds.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
        }
    }
    Ok(bounds)
}

/// The `META_DATA_EXPORT` facts of the export at `path`, after the same checks as [`load`].
#[cfg(test)]
pub fn export_info(path: &Path) -> Result<ExportInfo> {
    Export::open(path).map(|export| export.info)
}

/// True for a gzip stream of an nsys export (`report.sqlite.gz`), which [`load`] reads too.
pub fn is_gzipped_nsys_export(path: &Path) -> bool {
    gunzip::is_gzipped_export(path)
}

/// True when `path` is an SQLite database with the tables of an nsys export (`StringIds`
/// and a metadata table or a CUDA activity table): a cheap check (the file's first bytes and
/// the table list) for choosing a loader.
pub fn is_nsys_export(path: &Path) -> bool {
    let mut magic = [0u8; 16];
    let is_sqlite = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok_and(|()| &magic == SQLITE_MAGIC);
    is_sqlite
        && open_read_only(path).and_then(|conn| table_names(&conn)).is_ok_and(|tables| {
            REQUIRED_TABLES.iter().all(|t| tables.contains(*t))
                && METADATA_TABLES.iter().chain(&CUDA_TABLES).any(|t| tables.contains(*t))
        })
}

/// An open, checked export.
pub(crate) struct Export {
    path: PathBuf,
    conn: Connection,
    tables: BTreeSet<String>,
    info: ExportInfo,
}

impl Export {
    fn open(path: &Path) -> Result<Self> {
        sniff::check_file(path)?;
        let conn = open_read_only(path).map_err(|e| sql_error(path, "opening the database", &e))?;
        let tables = table_names(&conn).map_err(|e| sql_error(path, "listing its tables", &e))?;
        let missing: Vec<&str> = REQUIRED_TABLES.iter().copied().filter(|t| !tables.contains(*t)).collect();
        if !missing.is_empty() {
            let reason = format!(
                "is an SQLite database without the table(s) {} that every nsys export has: not an nsys \
                 export; export the report with `nsys export --type sqlite`",
                missing.join(", ")
            );
            return Err(Error::artifact(path, 0, reason));
        }
        let info = match METADATA_TABLES.iter().find(|t| tables.contains(**t)) {
            Some(table) => read_info(&conn, path, table)?,
            None if CUDA_TABLES.iter().any(|t| tables.contains(*t)) => ExportInfo {
                product_version: None,
                schema_version: "unrecorded (no metadata table: nsys 2021 or older)".to_owned(),
                schema_major: 0,
            },
            None => {
                let reason = format!(
                    "is an SQLite database with StringIds but neither a metadata table ({}) nor CUDA \
                     activity: not an nsys export",
                    METADATA_TABLES.join(" or ")
                );
                return Err(Error::artifact(path, 0, reason));
            }
        };
        if !CUDA_TABLES.iter().any(|t| tables.contains(*t)) {
            let said = nsys_said(&conn, &tables, |_| true);
            let said = if said.is_empty() { String::new() } else { format!("; nsys itself said: {}", said.join("; ")) };
            let reason = format!(
                "has none of the tables {}: the capture recorded no CUDA work (was it traced with \
                 --trace=cuda, and did the workload use the GPU inside the capture window?){said}",
                CUDA_TABLES.join(", ")
            );
            return Err(Error::artifact(path, 0, reason));
        }
        Ok(Self { path: path.to_owned(), conn, tables, info })
    }

    fn has(&self, table: &str) -> bool {
        self.tables.contains(table)
    }
}

/// nsys's own diagnostics (`DIAGNOSTIC_EVENT`) of warning or error severity that bear on the
/// device trace (not those about NVTX, OpenGL, Vulkan, OS runtime or CPU sampling), each
/// quoted once, at most four, those `keep` accepts.
pub(crate) fn nsys_said(conn: &Connection, tables: &BTreeSet<String>, keep: impl Fn(&str) -> bool) -> Vec<String> {
    const ELSEWHERE: [&str; 6] = ["NVTX", "OpenGL", "Vulkan", "OS runtime", "paranoid", "CPU "];
    if !tables.contains("DIAGNOSTIC_EVENT") {
        return Vec::new();
    }
    let query = "SELECT text FROM DIAGNOSTIC_EVENT WHERE severity >= 2 ORDER BY timestamp";
    let Ok(mut statement) = conn.prepare(query) else { return Vec::new() };
    let Ok(rows) = statement.query_map([], |row| row.get::<_, Option<String>>(0)) else { return Vec::new() };
    let mut said: Vec<String> = Vec::new();
    for text in rows.flatten().flatten() {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !ELSEWHERE.iter().any(|w| text.contains(w)) && keep(&text) && !said.contains(&format!("\"{text}\"")) {
            said.push(format!("\"{text}\""));
        }
        if said.len() == 4 {
            break;
        }
    }
    said
}

fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
}

fn table_names(conn: &Connection) -> rusqlite::Result<BTreeSet<String>> {
    let mut statement = conn.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")?;
    let names = statement.query_map([], |row| row.get::<_, String>(0))?;
    names.collect()
}

fn read_info(conn: &Connection, path: &Path, table: &str) -> Result<ExportInfo> {
    let fail = |e: rusqlite::Error| sql_error(path, &format!("reading {table}"), &e);
    let mut statement = conn
        .prepare(&format!(
            "SELECT name, value FROM {table} WHERE name IN \
             ('EXPORT_PRODUCT_VERSION', 'EXPORT_SCHEMA_VERSION', 'EXPORT_SCHEMA_VERSION_MAJOR')"
        ))
        .map_err(fail)?;
    let mut rows = statement.query([]).map_err(fail)?;
    let (mut product, mut version, mut major) = (None, None, None);
    while let Some(row) = rows.next().map_err(fail)? {
        let name: String = row.get(0).map_err(fail)?;
        let value: Option<String> = row.get(1).map_err(fail)?;
        match name.as_str() {
            "EXPORT_PRODUCT_VERSION" => product = value,
            "EXPORT_SCHEMA_VERSION" => version = value,
            _ => major = value,
        }
    }
    let Some(schema_version) = version.or_else(|| major.clone()) else {
        let reason = format!("{table} has no EXPORT_SCHEMA_VERSION, so the export schema is unknown");
        return Err(Error::artifact(path, 0, reason));
    };
    let major_text = major.unwrap_or_else(|| schema_version.split('.').next().unwrap_or("").to_owned());
    let schema_major = major_text.trim().parse::<u32>().ok().filter(|m| SUPPORTED_SCHEMA_MAJORS.contains(m));
    let Some(schema_major) = schema_major else {
        let writer = product.as_deref().map(|p| format!(" (written by nsys {p})")).unwrap_or_default();
        let reason = format!(
            "export schema version {schema_version}{writer} is not supported: prof reads export schemas \
             2.x and 3.x (nsys 2022.1 writes 2.9.1, nsys 2024.6.2 writes 3.16.1)"
        );
        return Err(Error::artifact(path, 0, reason));
    };
    Ok(ExportInfo { product_version: product, schema_version, schema_major })
}

/// An SQLite failure on `path` while doing `what`, worded for a person.
pub(crate) fn sql_error(path: &Path, what: &str, error: &rusqlite::Error) -> Error {
    use rusqlite::ErrorCode;
    let reason = match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => format!("is not an SQLite database ({what}: {error})"),
        Some(ErrorCode::DatabaseCorrupt) => {
            format!("is a damaged or truncated SQLite database ({what}: {error}); copy or export it again")
        }
        _ => format!("SQLite failed {what}: {error}"),
    };
    Error::artifact(path, 0, reason)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_gzip;
#[cfg(test)]
mod tests_steps;
