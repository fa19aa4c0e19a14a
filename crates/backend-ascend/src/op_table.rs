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

use crate::csv_parts;
use crate::csv_table::{CsvReader, CsvTable, Header, Row};
use crate::error::AscendError;
use crate::op_checks::OpChecks;
use crate::task_type;
use prof_core::{DeviceOp, NameId, OpDetails, Timeline};
use prof_timeline::intern::NextGuess;
use std::path::Path;

/// The stream of an op whose source says `N/A` (HCCL rows of `kernel_details.csv`).
pub const UNKNOWN_STREAM: u64 = u64::MAX;

use crate::op_columns as columns;

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
    pub(crate) types: Option<usize>,
}

impl Layout {
    /// The columns read (the rest of a row is only counted).
    fn columns(&self) -> impl Iterator<Item = usize> + Clone {
        let optional = [self.op_type, self.core, self.stream, self.device, self.block_dim, self.shapes, self.types];
        optional.into_iter().flatten().chain([self.name, self.start, self.duration])
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
            types: table.column(columns::INPUT_TYPES),
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
    let mut guesses = Guesses::default();
    for row in table.rows() {
        if let Some(kind) = task_type::runtime_task(row.get(layout.core).unwrap_or("")) {
            timeline.note_unread(&kind, 1);
            continue;
        }
        let (op, details) = row_op(&row, &layout, timeline, &mut guesses)?;
        push(timeline, op, details);
    }
    crate::op_inputs::attach(timeline);
    Ok(())
}

/// Loads the op table at `path` into a new timeline, streaming it row by row (a
/// 10-million-row `kernel_details.csv` is 2 GB of text but only its ops stay in memory).
pub fn load(path: &Path) -> Result<Timeline, AscendError> {
    load_table(path, false)
}

/// [`load`], with the Ascend op checks ([`crate::ascend_analysis`]) summed in the same pass
/// and put on the timeline as its section: the file is read once. A large file is read in
/// parts, one thread each ([`crate::csv_parts`]); when a part fails (a bad row, a budget
/// spent, a check that cannot read its column) the file is read again by one thread, so an
/// error or a cut names the right line.
pub fn load_with_checks(path: &Path) -> Result<Timeline, AscendError> {
    load_table(path, true)
}

fn load_table(path: &Path, with_checks: bool) -> Result<Timeline, AscendError> {
    let reader = CsvReader::open(path)?;
    let layout = Layout::of(reader.header())?;
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let parts = csv_parts::parts_for(size);
    let reader = if parts > 1 {
        match load_in_parts(reader, &layout, size, parts, with_checks) {
            Some(read) => return Ok(read.finish()),
            // A part failed: one reader again, from the start.
            None => CsvReader::open(path)?,
        }
    } else {
        reader
    };
    Ok(load_whole(reader, &layout, size, with_checks)?.finish())
}

/// The table of `reader` read by one thread.
fn load_whole(reader: CsvReader, layout: &Layout, size: u64, with_checks: bool) -> Result<Read, AscendError> {
    let checks = with_checks.then(|| OpChecks::new(reader.header()));
    let timeline = Timeline::new(reader.header().path().display().to_string());
    read_rows(reader, layout, timeline, checks, size, false)
}

/// The table of `first` (a reader just past the header) read in `parts` parts at once, each
/// on a share of the memory budget; `None` when a part failed, filled its share or could not
/// sum its checks.
fn load_in_parts(first: CsvReader, layout: &Layout, size: u64, parts: usize, with_checks: bool) -> Option<Read> {
    let budget = prof_timeline::load_budget::memory_budget() / parts as u64;
    let source = first.header().path().display().to_string();
    let read = |part: CsvReader, later: bool| {
        let checks = if with_checks { Some(Ok(OpChecks::new(part.header()).ok()?)) } else { None };
        let timeline = Timeline::with_memory_budget(source.as_str(), budget);
        let read = read_rows(part, layout, timeline, checks, size, later).ok()?;
        (!read.timeline.is_full() && read.checks.as_ref().is_none_or(Result::is_ok)).then_some(read)
    };
    let join = |whole: &mut Option<Read>, part: Read| match whole {
        None => {
            // Onto the process's budget: into a timeline that holds nothing, the part moves
            // uncopied.
            let mut first = part;
            let held = std::mem::replace(&mut first.timeline, Timeline::new(source.as_str()));
            first.timeline.append(held);
            *whole = Some(first);
        }
        Some(whole) => {
            let ids = whole.timeline.append(part.timeline);
            if let (Some(Ok(checks)), Some(Ok(later))) = (&mut whole.checks, part.checks) {
                checks.absorb(later, &ids);
            }
        }
    };
    csv_parts::in_parts(first, size, parts, read, None, join)?
}

/// Rows read before the op vector is sized from the bytes they took (so a large file's ops
/// are allocated once, not doubled and copied).
const RESERVE_AFTER: usize = 4096;

/// What one reader read: the ops, and the checks (or the error that stopped them).
struct Read {
    timeline: Timeline,
    header: Header,
    checks: Option<Result<OpChecks, AscendError>>,
}

impl Read {
    /// The timeline, with the checks' section when they were asked for.
    fn finish(self) -> Timeline {
        let mut timeline = self.timeline;
        crate::op_inputs::attach(&mut timeline);
        if let Some(checks) = self.checks {
            let report = checks.map(|c| c.report(&self.header, &timeline.names));
            timeline.sections.push(crate::ascend_report::checks_section(report));
        }
        timeline
    }
}

/// Reads every row of `reader` into `timeline` (and `checks`). Past the memory budget the
/// ops stop and the checks go on; a check that fails stops the checks, not the ops. A later
/// part cut short is an error (its line counts from the part's start).
fn read_rows(
    mut reader: CsvReader,
    layout: &Layout,
    mut timeline: Timeline,
    mut checks: Option<Result<OpChecks, AscendError>>,
    size: u64,
    later: bool,
) -> Result<Read, AscendError> {
    let checked = checks.as_ref().and_then(|c| c.as_ref().ok()).map(OpChecks::columns).unwrap_or_default();
    reader.split_only(layout.columns().chain(checked));
    let start = reader.consumed();
    let mut guesses = Guesses::default();
    while let Some(row) = reader.next_row()? {
        if timeline.is_full() {
            // Past the budget the ops stop and the checks go on.
            let Some(Ok(c)) = &mut checks else { break };
            let added = c.op_of(&row).map(|op| timeline.intern(op)).and_then(|key| c.add(&row, c.duration(&row)?, key));
            if let Err(error) = added {
                checks = Some(Err(error));
            }
            continue;
        }
        if let Some(kind) = task_type::runtime_task(row.get(layout.core).unwrap_or("")) {
            timeline.note_unread(&kind, 1);
            continue;
        }
        let (op, details) = row_op(&row, layout, &mut timeline, &mut guesses)?;
        if let Some(Ok(c)) = &mut checks {
            // The checks group by op type, else name: the ids the op has already.
            let key = match details.op_type {
                Some(op_type) => Ok(op_type),
                None => c.op_of(&row).map(|_| op.name()),
            };
            if let Err(error) = key.and_then(|key| c.add(&row, op.dur_ns(), key)) {
                checks = Some(Err(error));
            }
        }
        push(&mut timeline, op, details);
        if timeline.ops.len() == RESERVE_AFTER {
            let read = reader.consumed().saturating_sub(start).max(1);
            let expected =
                (size.min(reader.range_end()).saturating_sub(start)) as f64 / read as f64 * RESERVE_AFTER as f64;
            timeline.ops.reserve(((expected * 1.01) as usize).saturating_sub(RESERVE_AFTER));
        }
    }
    if let Some(note) = reader.cut_note() {
        if later {
            return Err(AscendError::file(reader.header().path(), 0, "cut short inside a later part"));
        }
        timeline.note_partial(note);
    }
    Ok(Read { timeline, header: reader.header().clone(), checks })
}

/// The name of a row's task: its name, else (a runtime task without one) its task type.
pub(crate) fn task_name<'a>(row: &Row<'a>, layout: &Layout) -> Result<&'a str, AscendError> {
    match row.get(Some(layout.name)).or_else(|| row.get(layout.core)) {
        Some(name) => Ok(name),
        None => row.text(layout.name),
    }
}

/// The ids a row's texts mostly have, each confirmed by one comparison instead of a look-up:
/// its name, the one that followed the last row's name before (a step's ops come back in
/// order); per name, the op type and shapes its last row had (the same graph node, step
/// after step).
#[derive(Default)]
struct Guesses {
    names: NextGuess,
    by_name: Vec<[Option<NameId>; 3]>,
}

impl Guesses {
    fn of(&mut self, name: NameId) -> &mut [Option<NameId>; 3] {
        let slot = name.0 as usize;
        if slot >= self.by_name.len() {
            self.by_name.resize(slot + 1, [None; 3]);
        }
        &mut self.by_name[slot]
    }
}

/// The op of a row, and its details (default when it has none).
fn row_op(
    row: &Row<'_>,
    layout: &Layout,
    timeline: &mut Timeline,
    guesses: &mut Guesses,
) -> Result<(DeviceOp, OpDetails), AscendError> {
    let name = task_name(row, layout)?;
    let start = row.micros_ns(Some(layout.start))?.ok_or_else(|| row.error(layout.start, "is empty or N/A"))?;
    let dur = row.micros_ns(Some(layout.duration))?.ok_or_else(|| row.error(layout.duration, "is empty or N/A"))?;
    let core = row.get(layout.core).unwrap_or("");
    let device = match row.integer(layout.device)? {
        Some(d) => u32::try_from(d).map_err(|_| row.error(layout.device.unwrap_or(0), "is out of range"))?,
        None => 0,
    };
    let stream = row.integer(layout.stream)?.unwrap_or(UNKNOWN_STREAM);
    let name_id = guesses.names.intern(&mut timeline.names, name);
    let op = DeviceOp::new(task_type::op_kind(core, name), name_id, device, stream, start, dur);
    let block_dim = match row.integer(layout.block_dim)? {
        Some(b) => Some(u32::try_from(b).map_err(|_| row.error(layout.block_dim.unwrap_or(0), "is out of range"))?),
        None => None,
    };
    let [type_guess, shapes_guess, types_guess] = guesses.of(name_id);
    let op_type = row.get(layout.op_type).map(|t| timeline.intern_guess(t, type_guess));
    let shapes = row.get(layout.shapes).map(|s| timeline.intern_guess(unquote(s), shapes_guess));
    let dtypes = row.get(layout.types).map(|s| timeline.intern_guess(unquote(s), types_guess));
    let core_type = task_type::core_type(core);
    Ok((op, OpDetails { block_dim, op_type, shapes, dtypes, core_type, ..OpDetails::default() }))
}

/// Pushes `op` with its `details`, or without any when the row had none.
fn push(timeline: &mut Timeline, op: DeviceOp, details: OpDetails) {
    if details == OpDetails::default() {
        timeline.push_op(op);
    } else {
        timeline.push_op_with(op, details);
    }
}

/// `"512,16"` → `512,16`: the inner quotes the exporters add so spreadsheets keep shapes as text.
fn unquote(shapes: &str) -> &str {
    shapes.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(shapes)
}

#[cfg(test)]
mod tests;
