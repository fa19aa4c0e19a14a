//! Per-task op tables into [`Timeline`] device ops: torch_npu's `kernel_details.csv`, msprof's
//! `op_summary_*.csv` and msprof's `task_time_*.csv` (every task of the device, kernels and
//! runtime bookkeeping alike, without op types).
//!
//! Column names by producer, from the recorded headers:
//!
//! | field | torch_npu `kernel_details.csv` (2023-11) | msprof `op_summary_*.csv` (CANN 8.x) | msprof `task_time_*.csv` (CANN 8.x) |
//! |---|---|---|---|
//! | name | `Name` | `Op Name` | `kernel_name` |
//! | op type | `Type` | `OP Type` | — |
//! | core | `Accelerator Core` | `Task Type` | `kernel_type` |
//! | start | `Start Time(us)` | `Task Start Time(us)` (tab-padded) | `task_start(us)` (tab-padded) |
//! | duration | `Duration(us)` | `Task Duration(us)` | `task_time(us)` |
//! | blocks | `Block Dim`, `Mix Block Dim` | `Block Num`, `Mix Block Num` | — |
//! | device | — (one file per rank) | `Device_id` | `Device_id` (older msprof: none) |
//!
//! The first two have `Stream ID`, `Task ID`, `Input Shapes` and the per-metric-set `aic_*` /
//! `aiv_*` columns; task_time has `stream_id` and `task_id`. A value of `N/A` is absent: an
//! HCCL row's `Stream ID` is `N/A`, so the op gets [`UNKNOWN_STREAM`]; a task without a name
//! (task_time's `PROFILING_ENABLE`, `TASK_TIMEOUT_SET` rows) is named by its task type; a file
//! without a device column puts every op on device 0.

use crate::csv_table::{CsvReader, CsvTable, Header, Row};
use crate::error::AscendError;
use crate::task_type;
use prof_core::{DeviceOp, Timeline};

/// The stream of an op whose source says `N/A` (HCCL rows of `kernel_details.csv`).
pub const UNKNOWN_STREAM: u64 = u64::MAX;

/// Names of each column across producers, torch_npu first.
pub mod columns {
    /// Op (kernel) name.
    pub const NAME: &[&str] = &["Name", "Op Name", "kernel_name"];
    /// Framework op type.
    pub const OP_TYPE: &[&str] = &["Type", "OP Type"];
    /// Core / task type.
    pub const CORE: &[&str] = &["Accelerator Core", "Task Type", "kernel_type"];
    /// Start, µs.
    pub const START: &[&str] = &["Start Time(us)", "Task Start Time(us)", "task_start(us)"];
    /// Duration, µs.
    pub const DURATION: &[&str] = &["Duration(us)", "Task Duration(us)", "task_time(us)"];
    /// Stream.
    pub const STREAM: &[&str] = &["Stream ID", "stream_id"];
    /// Device.
    pub const DEVICE: &[&str] = &["Device_id"];
    /// Blocks (cores) the op was spread over.
    pub const BLOCK_DIM: &[&str] = &["Block Dim", "Block Num"];
    /// Input shapes.
    pub const INPUT_SHAPES: &[&str] = &["Input Shapes"];
}

/// Where an op table's columns are (the streaming summary reads the same ones).
pub(crate) struct Layout {
    pub(crate) name: usize,
    pub(crate) start: usize,
    pub(crate) duration: usize,
    pub(crate) op_type: Option<usize>,
    pub(crate) core: Option<usize>,
    pub(crate) stream: Option<usize>,
    pub(crate) device: Option<usize>,
    pub(crate) block_dim: Option<usize>,
    pub(crate) shapes: Option<usize>,
}

impl Layout {
    /// The last column read (the rest of a row is only counted).
    fn last(&self) -> usize {
        let optional = [self.op_type, self.core, self.stream, self.device, self.block_dim, self.shapes];
        optional.into_iter().flatten().chain([self.name, self.start, self.duration]).max().unwrap_or(0)
    }

    /// The columns of `table`: name, start and duration are required.
    pub(crate) fn of(table: &Header) -> Result<Self, AscendError> {
        Ok(Self {
            name: table.require(columns::NAME)?,
            start: table.require(columns::START)?,
            duration: table.require(columns::DURATION)?,
            op_type: table.column(columns::OP_TYPE),
            core: table.column(columns::CORE),
            stream: table.column(columns::STREAM),
            device: table.column(columns::DEVICE),
            block_dim: table.column(columns::BLOCK_DIM),
            shapes: table.column(columns::INPUT_SHAPES),
        })
    }
}

/// True when `header` is an op table this module reads (name, start and duration columns).
pub fn is_op_table_header(header: &[String]) -> bool {
    let has = |names: &[&str]| names.iter().any(|n| header.iter().any(|h| h == n));
    has(columns::NAME) && has(columns::START) && has(columns::DURATION) && has(columns::CORE)
}

/// Appends one device op per row of `table` to `timeline`.
pub fn append_ops(table: &CsvTable, timeline: &mut Timeline) -> Result<(), AscendError> {
    let layout = Layout::of(table.columns())?;
    timeline.ops.reserve(table.len());
    for row in table.rows() {
        let op = row_op(&row, &layout, timeline)?;
        timeline.push_op(op);
    }
    Ok(())
}

/// Loads the op table at `path` into a new timeline, streaming it row by row (a
/// 10-million-row `kernel_details.csv` is 2 GB of text but only its ops stay in memory).
pub fn load(path: &std::path::Path) -> Result<Timeline, AscendError> {
    let mut reader = CsvReader::open(path)?;
    let layout = Layout::of(reader.header())?;
    reader.split_only_up_to(layout.last());
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut timeline = Timeline::new(path.display().to_string());
    while let Some(row) = reader.next_row()? {
        let op = row_op(&row, &layout, &mut timeline)?;
        timeline.push_op(op);
        if timeline.is_full() {
            break;
        }
        if timeline.ops.len() == RESERVE_AFTER {
            let expected = size as f64 / reader.consumed().max(1) as f64 * RESERVE_AFTER as f64;
            timeline.ops.reserve(((expected * 1.01) as usize).saturating_sub(RESERVE_AFTER));
        }
    }
    if let Some(note) = reader.cut_note() {
        timeline.note_partial(note);
    }
    Ok(timeline)
}

/// Rows read before the op vector is sized from the bytes they took (so a large file's ops
/// are allocated once, not doubled and copied).
const RESERVE_AFTER: usize = 4096;

/// The name of a row's task: its name, else (a runtime task without one) its task type.
pub(crate) fn task_name<'a>(row: &Row<'a>, layout: &Layout) -> Result<&'a str, AscendError> {
    match row.get(Some(layout.name)).or_else(|| row.get(layout.core)) {
        Some(name) => Ok(name),
        None => row.text(layout.name),
    }
}

fn row_op(row: &Row<'_>, layout: &Layout, timeline: &mut Timeline) -> Result<DeviceOp, AscendError> {
    let name = task_name(row, layout)?;
    let start = row.micros_ns(Some(layout.start))?.ok_or_else(|| row.error(layout.start, "is empty or N/A"))?;
    let dur = row.micros_ns(Some(layout.duration))?.ok_or_else(|| row.error(layout.duration, "is empty or N/A"))?;
    let core = row.get(layout.core).unwrap_or("");
    let device = match row.integer(layout.device)? {
        Some(d) => u32::try_from(d).map_err(|_| row.error(layout.device.unwrap_or(0), "is out of range"))?,
        None => 0,
    };
    let stream = row.integer(layout.stream)?.unwrap_or(UNKNOWN_STREAM);
    let name_id = timeline.intern(name);
    let mut op = DeviceOp::new(task_type::op_kind(core, name), name_id, device, stream, start, dur);
    let block_dim = match row.integer(layout.block_dim)? {
        Some(b) => Some(u32::try_from(b).map_err(|_| row.error(layout.block_dim.unwrap_or(0), "is out of range"))?),
        None => None,
    };
    let op_type = row.get(layout.op_type).map(|t| timeline.intern(t));
    let shapes = row.get(layout.shapes).map(|s| timeline.intern(unquote(s)));
    let core_type = task_type::core_type(core);
    if block_dim.is_some() || op_type.is_some() || shapes.is_some() || core_type.is_some() {
        let details = op.details_mut();
        details.block_dim = block_dim;
        details.op_type = op_type;
        details.shapes = shapes;
        details.core_type = core_type;
    }
    Ok(op)
}

/// `"512,16"` → `512,16`: the inner quotes the exporters add so spreadsheets keep shapes as text.
fn unquote(shapes: &str) -> &str {
    shapes.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(shapes)
}

#[cfg(test)]
#[path = "op_table_tests.rs"]
mod tests;
