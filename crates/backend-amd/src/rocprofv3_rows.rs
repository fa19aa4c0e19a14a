//! The rows of one rocprofv3 CSV trace file into a [`Timeline`]: kernel dispatches
//! (`*_kernel_trace.csv`), copies (`*_memory_copy_trace.csv`) and the agent table
//! (`*_agent_info.csv`) that maps rocprofv3's agent numbers to GPU indices. How the columns of
//! each release map to the timeline is told in [`crate::rocprofv3_trace`].

use crate::rocprof_csv::{CsvReader, Record};
use prof_core::{DeviceOp, OpKind, Result, Timeline};
use prof_timeline::timeline::OpDetails;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// The columns every kernel trace release has.
pub const KERNEL_COLUMNS: &[&str] = &[
    "Kind",
    "Agent_Id",
    "Queue_Id",
    "Kernel_Name",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
    "Workgroup_Size_X",
    "Workgroup_Size_Y",
    "Workgroup_Size_Z",
    "Grid_Size_X",
    "Grid_Size_Y",
    "Grid_Size_Z",
];
/// The columns of `*_memory_copy_trace.csv` this loader needs.
pub const COPY_COLUMNS: &[&str] = &[
    "Kind",
    "Direction",
    "Source_Agent_Id",
    "Destination_Agent_Id",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
];
/// The columns of `*_agent_info.csv` this loader needs.
pub const AGENT_COLUMNS: &[&str] = &["Node_Id", "Logical_Node_Id", "Agent_Type"];

const KERNEL_EXPECTED: &str = "a rocprofv3 kernel_trace.csv header (Kind, Agent_Id, Queue_Id, Kernel_Name, \
     Correlation_Id, Start_Timestamp, End_Timestamp, Workgroup_Size_X/Y/Z, Grid_Size_X/Y/Z; rocprofiler-sdk 1.0 adds \
     Stream_Id, LDS_Block_Size, Scratch_Size, VGPR_Count, Accum_VGPR_Count, SGPR_Count; 0.5 has \
     Private_Segment_Size, Group_Segment_Size)";
const COPY_EXPECTED: &str = "a rocprofv3 memory_copy_trace.csv header (Kind, Direction, Stream_Id, Source_Agent_Id, \
     Destination_Agent_Id, Correlation_Id, Start_Timestamp, End_Timestamp)";
const AGENT_EXPECTED: &str = "a rocprofv3 agent_info.csv header (Node_Id, Logical_Node_Id, Agent_Type, …)";

/// rocprofv3's agent numbers mapped to GPU indices, from `agent_info.csv`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentMap {
    gpus: HashMap<u64, u32>,
    agents: HashMap<u64, bool>,
}

impl AgentMap {
    /// Reads `agent_info.csv` at `path`.
    pub fn from_file(path: &Path) -> Result<Self> {
        Self::read(CsvReader::open(path)?)
    }

    fn read<R: BufRead>(mut csv: CsvReader<R>) -> Result<Self> {
        let [node, logical, kind] = columns(&csv, AGENT_COLUMNS, AGENT_EXPECTED)?;
        let mut rows = Vec::new();
        while let Some(record) = csv.next_record()? {
            let is_gpu = csv.text(&record, kind).trim() == "GPU";
            rows.push((csv.u64(&record, logical)?, csv.u64(&record, node)?, is_gpu));
        }
        rows.sort_unstable();
        let mut map = Self::default();
        let mut next_gpu = 0u32;
        for (logical, node, is_gpu) in rows {
            map.agents.entry(logical).or_insert(is_gpu);
            map.agents.entry(node).or_insert(is_gpu);
            if is_gpu {
                map.gpus.entry(logical).or_insert(next_gpu);
                map.gpus.entry(node).or_insert(next_gpu);
                next_gpu += 1;
            }
        }
        Ok(map)
    }

    /// The GPU index of agent `agent`, if it is a GPU agent in the file.
    pub fn gpu_index(&self, agent: u64) -> Option<u32> {
        self.gpus.get(&agent).copied()
    }

    /// True when the file lists agent `agent` as a GPU; `None` when it does not list it.
    pub fn is_gpu(&self, agent: u64) -> Option<bool> {
        self.agents.get(&agent).copied()
    }
}

/// Appends the kernel dispatches of `csv` (a `kernel_trace.csv`) to `timeline`.
pub fn load_kernel_trace<R: BufRead>(
    mut csv: CsvReader<R>,
    agents: Option<&AgentMap>,
    corr_base: u64,
    timeline: &mut Timeline,
) -> Result<usize> {
    let [kind, agent, queue, name, corr, start, end, wx, wy, wz, gx, gy, gz] =
        columns(&csv, KERNEL_COLUMNS, KERNEL_EXPECTED)?;
    let stream = csv.find("Stream_Id").unwrap_or(queue);
    let vgpr = csv.find("VGPR_Count");
    let lds = csv.find("LDS_Block_Size").or_else(|| csv.find("Group_Segment_Size"));
    let mut added = 0;
    let mut r = Record::default();
    let mut is_comm: Vec<Option<bool>> = Vec::new();
    // Kernel names come back in step order: each guessed from the one before, confirmed by one
    // comparison instead of a hash look-up.
    let mut names = prof_timeline::intern::NextGuess::default();
    // The detail cells, first to last column: parsed once per distinct text and kernel.
    let detail_columns = [wx, wy, wz, gx, gy, gz].into_iter().chain(vgpr).chain(lds);
    let cells = (detail_columns.clone().min().unwrap_or(0), detail_columns.max().unwrap_or(0));
    let mut seen = crate::rocprofv3_details::DetailsCache::default();
    while !timeline.is_full() && csv.next_record_into(&mut r)? {
        if csv.text(&r, kind) != "KERNEL_DISPATCH" {
            return Err(csv.error(
                &r,
                format!("`Kind` is {}, not KERNEL_DISPATCH", prof_timeline::error::quote(csv.text(&r, kind))),
            ));
        }
        let (start_ns, dur_ns) = interval(&csv, &r, start, end)?;
        let kernel = csv.text(&r, name);
        let device = device_of(&csv, &r, agent, agents)?;
        let name_id = names.intern(&mut timeline.names, kernel);
        // Whether a name is a collective, decided once per name (the names are long).
        let id = name_id.0 as usize;
        if id >= is_comm.len() {
            is_comm.resize(id + 1, None);
        }
        let comm = *is_comm[id]
            .get_or_insert_with(|| contains_ignoring_case(kernel, b"rccl") || contains_ignoring_case(kernel, b"nccl"));
        let op_kind = if comm { OpKind::Communication } else { OpKind::Kernel };
        let mut op = DeviceOp::new(op_kind, name_id, device, csv.u64(&r, stream)?, start_ns, dur_ns);
        op.correlation = Some(corr_base | csv.u64(&r, corr)?).into();
        let key = r.span(cells.0, cells.1);
        if let Some(id) = key.and_then(|key| seen.get(name_id, key)) {
            // False only when the budget is spent (the id is this timeline's), which ends the
            // loop: counted as `push_op_with` below is.
            timeline.push_op_shared(op, id);
            added += 1;
            continue;
        }
        let block = [csv.u64(&r, wx)?, csv.u64(&r, wy)?, csv.u64(&r, wz)?];
        let grid = [csv.u64(&r, gx)?, csv.u64(&r, gy)?, csv.u64(&r, gz)?];
        let details = OpDetails {
            block: dims(block),
            grid: dims([0, 1, 2].map(|i| grid[i].div_ceil(block[i].max(1)))),
            registers_per_thread: csv.opt_u64(&r, vgpr)?.and_then(|v| u32::try_from(v).ok()),
            shared_memory_bytes: csv.opt_u64(&r, lds)?,
            ..OpDetails::default()
        };
        let before = timeline.ops.len();
        timeline.push_op_with(op, details);
        if let (Some(key), Some(id)) = (key, timeline.ops.get(before).and_then(|op| op.details())) {
            seen.put(name_id, key, id);
        }
        added += 1;
    }
    csv.mark_cut(timeline);
    Ok(added)
}

/// Appends the copies of `csv` (a `memory_copy_trace.csv`) to `timeline`. The device is the
/// GPU end of the copy: the destination of a host-to-device copy, else the source.
pub fn load_memory_copies<R: BufRead>(
    mut csv: CsvReader<R>,
    agents: Option<&AgentMap>,
    corr_base: u64,
    timeline: &mut Timeline,
) -> Result<usize> {
    let [_, direction, source, dest, corr, start, end] = columns(&csv, COPY_COLUMNS, COPY_EXPECTED)?;
    let stream = csv.find("Stream_Id");
    let bytes = csv.find("Bytes").or_else(|| csv.find("Size"));
    let mut added = 0;
    let mut r = Record::default();
    while !timeline.is_full() && csv.next_record_into(&mut r)? {
        let (start_ns, dur_ns) = interval(&csv, &r, start, end)?;
        let dir = csv.text(&r, direction);
        let end_column = if dir.contains("HOST_TO_DEVICE") { dest } else { source };
        let device = device_of(&csv, &r, end_column, agents)?;
        let name = timeline.intern(dir);
        let mut op =
            DeviceOp::new(OpKind::Memcpy, name, device, csv.opt_u64(&r, stream)?.unwrap_or(0), start_ns, dur_ns);
        op.correlation = Some(corr_base | csv.u64(&r, corr)?).into();
        match csv.opt_u64(&r, bytes)? {
            Some(b) => timeline.push_op_with(op, OpDetails { bytes: Some(b), ..OpDetails::default() }),
            None => timeline.push_op(op),
        }
        added += 1;
    }
    csv.mark_cut(timeline);
    Ok(added)
}

/// The indices of `names` (all required), or an error naming the first missing one.
pub(crate) fn columns<R: BufRead, const N: usize>(
    csv: &CsvReader<R>,
    names: &[&str],
    expected: &str,
) -> Result<[usize; N]> {
    let mut out = [0usize; N];
    for (slot, name) in out.iter_mut().zip(names) {
        *slot = csv.require(name, expected)?;
    }
    Ok(out)
}

/// Start and duration from the start and end columns; an end before the start is an error.
pub(crate) fn interval<R: BufRead>(csv: &CsvReader<R>, r: &Record, start: usize, end: usize) -> Result<(u64, u64)> {
    let (s, e) = (csv.u64(r, start)?, csv.u64(r, end)?);
    if e < s {
        return Err(csv.error(r, format!("the end timestamp {e} is before the start timestamp {s}")));
    }
    Ok((s, e - s))
}

/// The device index of the agent in column `column` (`"Agent 4"` or `4`).
fn device_of<R: BufRead>(csv: &CsvReader<R>, r: &Record, column: usize, agents: Option<&AgentMap>) -> Result<u32> {
    let text = csv.text(r, column).trim();
    let number = text.strip_prefix("Agent ").unwrap_or(text).trim().parse::<u64>().map_err(|_| {
        csv.error(r, format!("agent id {} is neither `Agent <n>` nor a number", prof_timeline::error::quote(text)))
    })?;
    if let Some(gpu) = agents.and_then(|a| a.gpu_index(number)) {
        return Ok(gpu);
    }
    u32::try_from(number).map_err(|_| csv.error(r, format!("agent id {number} does not fit 32 bits")))
}

/// True when `text` contains `needle` (lowercase ASCII) in any letter case, without the
/// lowercase copy of every kernel name that `to_ascii_lowercase` would make.
fn contains_ignoring_case(text: &str, needle: &[u8]) -> bool {
    text.as_bytes().windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle))
}

fn dims(values: [u64; 3]) -> Option<[u32; 3]> {
    let [x, y, z] = values.map(|v| u32::try_from(v).ok());
    Some([x?, y?, z?])
}
