//! Streams the activity tables of an nsys export into a [`Timeline`], one row at a time,
//! resolving `StringIds` once per distinct id.

use super::cells::{At, Cells, TextCells};
use super::kernel_cells::KernelCells;
use super::pages::TablePages;
use super::raw::RawRows;
use super::record::Record;
use super::{sql_error, Export, KERNEL_TABLE, MEMCPY_TABLE, MEMSET_TABLE, NVTX_TABLE, RUNTIME_TABLE};
use crate::copy_names::CopyEnums;
use crate::cupti_trace::strip_runtime_version;
use prof_core::{DeviceOp, Error, HostCategory, HostSpan, NameId, OpDetails, OpKind, Result, Timeline};
use prof_timeline::intern::FxHashMap;
use rusqlite::{OptionalExtension, Statement};

const KERNEL_SQL: &str = "SELECT start, \"end\", deviceId, streamId, correlationId, demangledName, shortName, \
     gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory \
     FROM CUPTI_ACTIVITY_KIND_KERNEL";
const MEMCPY_SQL: &str =
    "SELECT start, \"end\", deviceId, streamId, correlationId, bytes, copyKind, srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY";
const MEMSET_SQL: &str =
    "SELECT start, \"end\", deviceId, streamId, correlationId, bytes FROM CUPTI_ACTIVITY_KIND_MEMSET";
const RUNTIME_SQL: &str =
    "SELECT start, \"end\", eventClass, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME";
/// Event types 59 (`NvtxPushPopRange`) and 60 (`NvtxStartEndRange`) of `ENUM_NSYS_EVENT_TYPE`.
const NVTX_SQL: &str = "SELECT start, \"end\", text, textId, globalTid FROM NVTX_EVENTS \
     WHERE eventType IN (59, 60) AND \"end\" IS NOT NULL AND start >= 0";

/// The NVTX ranges' columns read from the file's pages: those of [`NVTX_SQL`], then the one
/// its condition reads besides them ([`nvtx_kept`] applies it).
const NVTX_PAGE_COLUMNS: [&str; 6] = ["start", "end", "text", "textId", "globalTid", "eventType"];

/// The columns the query of `table` reads, in its order (for the NVTX ranges, with the column
/// its condition reads after them); `None` for a table not read here.
pub(super) fn columns(table: &str) -> Option<Vec<&'static str>> {
    let sql = match table {
        KERNEL_TABLE => KERNEL_SQL,
        MEMCPY_TABLE => MEMCPY_SQL,
        MEMSET_TABLE => MEMSET_SQL,
        RUNTIME_TABLE => RUNTIME_SQL,
        NVTX_TABLE => return Some(NVTX_PAGE_COLUMNS.to_vec()),
        _ => return None,
    };
    let list = sql.strip_prefix("SELECT ")?.split(" FROM ").next()?;
    Some(list.split(", ").map(|column| column.trim_matches('"')).collect())
}

/// Copy kinds by `ENUM_CUDA_MEMCPY_OPER` id (0–13 in nsys 2024.6), abbreviated as CUPTI and
/// older `nsys stats` reports spell them (`[CUDA memcpy HtoD]`); memory kinds by
/// `ENUM_CUDA_MEM_KIND` id (the same 0–7 from nsys 2021 to 2026.1, pageable first).
const COPY_ENUMS: CopyEnums = CopyEnums {
    kinds: &[
        "Unknown",
        "HtoD",
        "DtoH",
        "HtoA",
        "AtoH",
        "AtoA",
        "AtoD",
        "DtoA",
        "DtoD",
        "HtoH",
        "PtoP",
        "Unified HtoD",
        "Unified DtoH",
        "Unified DtoD",
    ],
    memory: &["Pageable", "Pinned", "Device", "Array", "Managed", "Device", "Managed", "Unknown"],
    pageable: 0,
};

/// The name of a copy ([`crate::copy_names`]) from its ids in the export.
pub(super) fn copy_name(copy_kind: i64, src: i64, dst: i64) -> String {
    COPY_ENUMS.name(copy_kind, src, dst)
}

/// nsys packs a thread's ids into `globalTid`: the tid in the low 24 bits, the pid in the next 24.
const ID_MASK: i64 = 0xFF_FFFF;

/// Reads the tables of one export.
pub(super) struct Reader<'e> {
    export: &'e Export,
    strings: Statement<'e>,
    names: FxHashMap<i64, NameId>,
    api_names: FxHashMap<i64, NameId>,
    copy_names: FxHashMap<(i64, i64, i64), NameId>,
    nccl: FxHashMap<NameId, bool>,
    /// The name ids, name and kind of the last kernel read.
    last_kernel: Option<([Option<i64>; 2], NameId, OpKind)>,
}

impl<'e> Reader<'e> {
    pub(super) fn new(export: &'e Export) -> Result<Self> {
        let strings = export
            .conn
            .prepare("SELECT value FROM StringIds WHERE id = ?1")
            .map_err(|e| sql_error(&export.path, "reading StringIds", &e))?;
        Ok(Self {
            export,
            strings,
            names: FxHashMap::default(),
            api_names: FxHashMap::default(),
            copy_names: FxHashMap::default(),
            nccl: FxHashMap::default(),
            last_kernel: None,
        })
    }

    /// Appends every row of `table` (one of the module's tables) to `timeline`.
    pub(super) fn read(&mut self, table: &'static str, timeline: &mut Timeline) -> Result<()> {
        self.read_rows(table, None, timeline)
    }

    /// [`Reader::read`] of the rows whose rowid is in `rowids` (all when `None`), in rowid
    /// order; rows are counted from the first read (so a part's errors name rows of the part).
    pub(super) fn read_rows(
        &mut self,
        table: &'static str,
        rowids: Option<(i64, i64)>,
        timeline: &mut Timeline,
    ) -> Result<()> {
        let export = self.export;
        let path = export.path.as_path();
        let sql = match table {
            KERNEL_TABLE => KERNEL_SQL,
            MEMCPY_TABLE => MEMCPY_SQL,
            MEMSET_TABLE => MEMSET_SQL,
            RUNTIME_TABLE => RUNTIME_SQL,
            _ => NVTX_SQL,
        };
        let ranged;
        let sql = match rowids {
            Some((from, to)) => {
                let joint = if sql.contains(" WHERE ") { " AND" } else { " WHERE" };
                ranged = format!("{sql}{joint} rowid BETWEEN {from} AND {to}");
                ranged.as_str()
            }
            None => sql,
        };
        if table == KERNEL_TABLE {
            return self.read_kernels(sql, timeline);
        }
        let mut statement = export.conn.prepare(sql).map_err(|e| unprepared(export, table, sql, &e))?;
        let mut rows = statement.query([]).map_err(|e| sql_error(path, &format!("reading {table}"), &e))?;
        let mut at = At { path, table, row: 0 };
        while let Some(row) = rows.next().map_err(|e| sql_error(path, &format!("reading {table}"), &e))? {
            if timeline.is_full() {
                break;
            }
            at.row += 1;
            self.push_row(row, &at, timeline)?;
        }
        Ok(())
    }

    /// The rows of `table` on the leaves `leaves` of its `pages`, in rowid order: false when
    /// a row could not be read this way or the timeline filled (SQLite reads the table again,
    /// to name the row or to stop where the budget does).
    pub(super) fn read_pages(
        &mut self,
        table: &'static str,
        pages: &TablePages,
        leaves: std::ops::Range<usize>,
        timeline: &mut Timeline,
    ) -> bool {
        let export = self.export;
        let mut at = At { path: export.path.as_path(), table, row: 0 };
        let read = pages.scan(leaves, |record| {
            at.row += 1;
            if table == NVTX_TABLE && !nvtx_kept(record, &at)? {
                return Ok(());
            }
            self.push_row(record, &at, timeline)?;
            if timeline.is_full() {
                return Err(at.error("the memory budget is spent"));
            }
            Ok(())
        });
        read.is_ok()
    }

    /// One row of an activity table (`at.table`) onto `timeline`.
    fn push_row<C: TextCells>(&mut self, row: &C, at: &At, timeline: &mut Timeline) -> Result<()> {
        match at.table {
            KERNEL_TABLE => {
                let (op, details) = self.kernel(row, at, timeline)?;
                timeline.push_op_with(op, details);
            }
            MEMCPY_TABLE | MEMSET_TABLE => {
                let (op, details) = self.copy_or_set(row, at, timeline)?;
                timeline.push_op_with(op, details);
            }
            RUNTIME_TABLE => {
                let span = self.api_call(row, at, timeline)?;
                timeline.push_host(span);
            }
            NVTX_TABLE => {
                let span = self.nvtx_range(row, at, timeline)?;
                timeline.push_host(span);
            }
            other => return Err(at.error(format_args!("{other} is not an activity table prof reads"))),
        }
        Ok(())
    }

    /// The kernel table's rows of `sql`, stepped through SQLite's C calls ([`RawRows`]).
    fn read_kernels(&mut self, sql: &str, timeline: &mut Timeline) -> Result<()> {
        let export = self.export;
        let path = export.path.as_path();
        let mut rows = RawRows::prepare(&export.conn, sql).map_err(|e| unprepared(export, KERNEL_TABLE, sql, &e))?;
        let mut at = At { path, table: KERNEL_TABLE, row: 0 };
        while rows.step().map_err(|e| sql_error(path, &format!("reading {KERNEL_TABLE}"), &e))? {
            if timeline.is_full() {
                break;
            }
            at.row += 1;
            let (op, details) = self.kernel(&rows, &at, timeline)?;
            timeline.push_op_with(op, details);
        }
        Ok(())
    }

    fn kernel<C: Cells>(&mut self, row: &C, at: &At, timeline: &mut Timeline) -> Result<(DeviceOp, OpDetails)> {
        let cells = match row.ints::<16>().and_then(KernelCells::of_ints) {
            Some(cells) => cells,
            None => KernelCells::read(row, at)?,
        };
        // Kernels come in runs of one name: the last one's name and kind, without a look-up.
        let (name, kind) = match self.last_kernel {
            Some((last, name, kind)) if last == cells.ids => (name, kind),
            _ => {
                let name = self.kernel_name(cells.ids, at, timeline)?;
                let kind = if self.is_nccl(name, timeline) { OpKind::Communication } else { OpKind::Kernel };
                self.last_kernel = Some((cells.ids, name, kind));
                (name, kind)
            }
        };
        let mut op = DeviceOp::new(kind, name, cells.device, cells.stream, cells.start, cells.dur);
        op.correlation = cells.correlation.into();
        let details = OpDetails {
            grid: Some(cells.grid),
            block: Some(cells.block),
            registers_per_thread: Some(cells.registers),
            shared_memory_bytes: Some(cells.shared),
            ..OpDetails::default()
        };
        Ok((op, details))
    }

    /// The name of a kernel whose `demangledName` and `shortName` ids are `ids`.
    fn kernel_name(&mut self, ids: [Option<i64>; 2], at: &At, timeline: &mut Timeline) -> Result<NameId> {
        for id in ids.into_iter().flatten() {
            let name = self.string(id, at, timeline)?;
            if !timeline.name(name).is_empty() {
                return Ok(name);
            }
        }
        Err(at.error("neither demangledName nor shortName gives the kernel a name"))
    }

    fn is_nccl(&mut self, name: NameId, timeline: &Timeline) -> bool {
        *self
            .nccl
            .entry(name)
            .or_insert_with(|| timeline.name(name).as_bytes().windows(4).any(|w| w.eq_ignore_ascii_case(b"nccl")))
    }

    fn copy_or_set<C: Cells>(&mut self, row: &C, at: &At, timeline: &mut Timeline) -> Result<(DeviceOp, OpDetails)> {
        let (start, dur) = at.times(row)?;
        let (kind, name) = if at.table == MEMCPY_TABLE {
            let key: (i64, i64, i64) =
                (at.req(row, 6, "copyKind")?, at.req(row, 7, "srcKind")?, at.req(row, 8, "dstKind")?);
            let name = *self.copy_names.entry(key).or_insert_with(|| timeline.intern(&copy_name(key.0, key.1, key.2)));
            (OpKind::Memcpy, name)
        } else {
            (OpKind::Memset, timeline.intern("CUDA memset"))
        };
        let mut op = DeviceOp::new(kind, name, at.req(row, 2, "deviceId")?, at.req(row, 3, "streamId")?, start, dur);
        op.correlation = at.opt(row, 4, "correlationId")?.into();
        Ok((op, OpDetails { bytes: Some(at.req(row, 5, "bytes")?), ..OpDetails::default() }))
    }

    fn api_call<C: Cells>(&mut self, row: &C, at: &At, timeline: &mut Timeline) -> Result<HostSpan> {
        // A row of integers in one call (the hot loop of a run's launches), else cell by cell.
        let (start, dur, class, global_tid, correlation, name_id) = match row.ints::<6>() {
            Some([start, end, class, global_tid, correlation, name_id])
                if start >= 0 && end >= start && correlation >= 0 =>
            {
                (start as u64, (end - start) as u64, class, Some(global_tid), Some(correlation as u64), name_id)
            }
            _ => {
                let (start, dur) = at.times(row)?;
                let class = at.req::<i64>(row, 2, "eventClass")?;
                let global_tid = at.opt(row, 3, "globalTid")?;
                let (correlation, name_id) = (at.opt(row, 4, "correlationId")?, at.req(row, 5, "nameId")?);
                (start, dur, class, global_tid, correlation, name_id)
            }
        };
        let category = match class {
            0 => HostCategory::Runtime,
            1 => HostCategory::Driver,
            _ => HostCategory::Other,
        };
        let (pid, tid) = split_global_tid(global_tid);
        let name = match self.api_names.get(&name_id) {
            Some(&name) => name,
            None => {
                let raw = self.string(name_id, at, timeline)?;
                let name = if category == HostCategory::Runtime {
                    let plain = strip_runtime_version(timeline.name(raw)).to_owned();
                    timeline.intern(&plain)
                } else {
                    raw
                };
                self.api_names.insert(name_id, name);
                name
            }
        };
        Ok(HostSpan::new(name, category, (pid, tid), start, dur, correlation.into()))
    }

    fn nvtx_range<C: TextCells>(&mut self, row: &C, at: &At, timeline: &mut Timeline) -> Result<HostSpan> {
        let (start, dur) = at.times(row)?;
        let name = match (row.text(at, 2, "text")?, at.opt::<i64>(row, 3, "textId")?) {
            (Some(text), _) => timeline.intern(text),
            (None, Some(id)) => self.string(id, at, timeline)?,
            (None, None) => timeline.intern("(unnamed NVTX range)"),
        };
        let (pid, tid) = split_global_tid(at.opt(row, 4, "globalTid")?);
        Ok(HostSpan::new(name, HostCategory::Annotation, (pid, tid), start, dur, None.into()))
    }

    fn string(&mut self, id: i64, at: &At, timeline: &mut Timeline) -> Result<NameId> {
        if let Some(&name) = self.names.get(&id) {
            return Ok(name);
        }
        let value: Option<String> = self
            .strings
            .query_row([id], |row| row.get(0))
            .optional()
            .map_err(|e| sql_error(at.path, "reading StringIds", &e))?;
        let Some(value) = value else {
            return Err(at.error(format_args!("refers to StringIds id {id}, which the export does not have")));
        };
        let name = timeline.intern(&value);
        self.names.insert(id, name);
        Ok(name)
    }
}

/// The error of a query of `table` that SQLite would not prepare: the export's schema and the
/// columns prof reads (a newer or older nsys may lack one).
fn unprepared(export: &Export, table: &str, sql: &str, error: &rusqlite::Error) -> Error {
    let schema = &export.info.schema_version;
    sql_error(
        &export.path,
        &format!("reading {table} (export schema {schema}; prof reads the columns of `{sql}`)"),
        error,
    )
}

/// [`NVTX_SQL`]'s condition on a record read from the pages: `eventType IN (59, 60) AND
/// "end" IS NOT NULL AND start >= 0`, as SQLite evaluates it on integers and NULLs; an error
/// for any other value in those columns (SQLite would compare a REAL 59.0 equal to 59: such a
/// table is read through SQLite).
fn nvtx_kept(record: &Record, at: &At) -> Result<bool> {
    use super::raw::Cell;
    let [start, end, event] = [0, 1, 5].map(|index| record.cell(index));
    let mut kept = true;
    for (cell, column) in [(event, "eventType"), (start, "start")] {
        kept &= match cell {
            Cell::Int(value) if column == "eventType" => matches!(value, 59 | 60),
            Cell::Int(value) => value >= 0,
            Cell::Null => false,
            Cell::Other(what) => return Err(at.error(format_args!("column {column} holds {what}"))),
        };
    }
    Ok(kept && end != Cell::Null)
}

/// Pid and tid from an nsys `globalTid` (`globalTid / 0x1000000 % 0x1000000` and
/// `globalTid % 0x1000000`); 0 and 0 when the row has none.
pub fn split_global_tid(global: Option<i64>) -> (u32, u64) {
    let global = global.unwrap_or(0);
    (((global >> 24) & ID_MASK) as u32, (global & ID_MASK) as u64)
}
