//! Loads rocprofv3's CSV traces (`--output-format csv`) into a [`Timeline`]: kernel
//! dispatches from `*_kernel_trace.csv`, copies from `*_memory_copy_trace.csv`, HIP API calls
//! from `*_hip_api_trace.csv`, all linked by rocprofv3's `Correlation_Id`.
//!
//! Columns are read by name, as the recorded files of two releases show (fixtures
//! `sdk1.0_*.csv`, `sdk0.5_kernel_trace.csv`):
//! - rocprofiler-sdk 1.0 (ROCm 7.0): `Agent_Id` is text (`"Agent 4"`), there is a `Stream_Id`
//!   (the HIP stream) beside `Queue_Id`, and resources are `LDS_Block_Size`, `Scratch_Size`,
//!   `VGPR_Count`, `Accum_VGPR_Count`, `SGPR_Count`.
//! - rocprofiler-sdk 0.5 (ROCm 6.2): `Agent_Id` is an integer, no `Stream_Id`, and
//!   `Private_Segment_Size` / `Group_Segment_Size` instead of scratch / LDS; no registers.
//!
//! Mapping decisions:
//! - device: `Agent_Id` is rocprofv3's agent number, which counts CPU agents too (`Agent 0` is
//!   the host in the recorded copies). With an `agent_info.csv` beside the trace, the agent
//!   whose `Logical_Node_Id` (else `Node_Id`) is that number is looked up and the device is its
//!   rank among the GPU agents (the MI300A recording: agents 4..7 are GPUs 0..3). Without it,
//!   the agent number itself is kept as the device index.
//! - stream: `Stream_Id` when the file has it, else `Queue_Id`.
//! - grid: HSA grid sizes count work-items; [`OpDetails::grid`] counts workgroups, so each
//!   dimension is `ceil(Grid_Size / Workgroup_Size)`.
//! - registers: `VGPR_Count` (architectural VGPRs) into `registers_per_thread`; `SGPR_Count` and
//!   `Accum_VGPR_Count` have no field in [`OpDetails`] and are not kept. LDS (`LDS_Block_Size` or
//!   `Group_Segment_Size`) into `shared_memory_bytes`.
//! - kernels whose name contains `rccl` or `nccl` (any case) are [`OpKind::Communication`].
//! - copies are named by their `Direction` (`MEMORY_COPY_HOST_TO_DEVICE`); the recorded file
//!   has no byte count, so `bytes` is set only when a `Bytes`/`Size` column exists.
//! - HIP API rows (`HIP_RUNTIME_API*`, `HIP_COMPILER_API*` domains) are
//!   [`HostCategory::Runtime`] host spans; other domains are [`HostCategory::Other`].
//!
//! When several processes' files are loaded into one timeline, correlation ids are made unique
//! per process as `(process index << 32) | id`.

use crate::rocprof_csv::CsvReader;
use prof_core::{DeviceOp, Error, HostSpan, Result, Timeline};
use std::path::{Path, PathBuf};

pub use crate::rocprofv3_hip::{load_hip_api, HIP_COLUMNS};
pub use crate::rocprofv3_rows::{
    load_kernel_trace, load_memory_copies, AgentMap, AGENT_COLUMNS, COPY_COLUMNS, KERNEL_COLUMNS,
};

/// The files of one rocprofv3 process (one output prefix): `<prefix>_kernel_trace.csv` and
/// its companions, any of which may be absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceFiles {
    /// `*_kernel_trace.csv`.
    pub kernel: Option<PathBuf>,
    /// `*_memory_copy_trace.csv`.
    pub memory_copy: Option<PathBuf>,
    /// `*_hip_api_trace.csv`.
    pub hip_api: Option<PathBuf>,
    /// `*_agent_info.csv`.
    pub agent_info: Option<PathBuf>,
}

/// Loads every process's files into one timeline named `source`.
pub fn load_processes(groups: &[TraceFiles], source: &str) -> Result<Timeline> {
    let mut timeline = Timeline::new(source);
    let many = groups.len() > 1;
    for (index, files) in groups.iter().enumerate() {
        let base = if many { u64::try_from(index).unwrap_or(u64::MAX) << 32 } else { 0 };
        let agents = files.agent_info.as_deref().map(AgentMap::from_file).transpose()?;
        let before = timeline.ops.len();
        if let Some(path) = &files.kernel {
            // A large file in parts on every core ([`crate::rocprofv3_parts`]).
            crate::rocprofv3_parts::load_kernel_file(path, agents.as_ref(), base, &mut timeline)?;
        }
        let kernels_end = timeline.ops.len();
        if let Some(path) = &files.memory_copy {
            load_memory_copies(CsvReader::open(path)?, agents.as_ref(), base, &mut timeline)?;
        }
        if let (Some(kernels), Some(copies)) = (&files.kernel, &files.memory_copy) {
            let spans = (span(&timeline.ops[before..kernels_end]), span(&timeline.ops[kernels_end..]));
            if let (Some(k), Some(c)) = spans {
                if let Some(apart) = different_runs(kernels, k, c) {
                    // The file the user named is read; its sibling of another run is left out,
                    // and the answer says so (joined, they would make one long idle "run").
                    if named(source, copies) {
                        timeline.ops.drain(before..kernels_end);
                        let apart = different_runs(copies, c, k).unwrap_or(apart);
                        timeline.note_partial(left_out(kernels, &apart, copies));
                    } else {
                        timeline.ops.truncate(kernels_end);
                        timeline.note_partial(left_out(copies, &apart, kernels));
                    }
                }
            }
        }
        if let Some(path) = &files.hip_api {
            let host_before = timeline.host.len();
            load_hip_api(CsvReader::open(path)?, base, &mut timeline)?;
            let calls = host_span(&timeline.host[host_before..]);
            if let (Some(kernels), Some(k), Some(h)) = (&files.kernel, span(&timeline.ops[before..]), calls) {
                if let Some(apart) = different_runs(kernels, k, h) {
                    // Kernels launched by calls of another run would link by id and measure
                    // launch delays across days: the calls are left out, and the answer says so.
                    timeline.host.truncate(host_before);
                    timeline.note_partial(format!("{}: {apart}; its HIP calls were left out", path.display()));
                }
            }
        }
    }
    Ok(timeline)
}

/// Whether `path` is the file the user named (the timeline's source).
pub(crate) fn named(source: &str, path: &Path) -> bool {
    Path::new(source) == path
}

/// The note for a file of another run left out in favour of `kept`.
pub(crate) fn left_out(dropped: &Path, apart: &str, kept: &Path) -> String {
    format!("{}: {apart}; it was left out and {} read alone", dropped.display(), kept.display())
}

/// First start and last end of host `spans`, ns.
pub(crate) fn host_span(spans: &[HostSpan]) -> Option<(u64, u64)> {
    let start = spans.iter().map(|s| s.start_ns).min()?;
    Some((start, spans.iter().map(|s| s.start_ns.saturating_add(s.dur_ns())).max().unwrap_or(start)))
}

/// First start and last end of `ops`, ns.
fn span(ops: &[DeviceOp]) -> Option<(u64, u64)> {
    let start = ops.iter().map(|op| op.start_ns).min()?;
    Some((start, ops.iter().map(|op| op.end_ns()).max().unwrap_or(start)))
}

/// Why a file whose times span `(b0, b1)` cannot come from the run of `first` (spanning
/// `(a0, a1)`), if it cannot: spans that do not overlap and lie further apart than
/// [`SAME_RUN_GAP_NS`] and ten times their own length (joined, they would make one long idle
/// "run").
pub(crate) fn different_runs(first: &Path, (a0, a1): (u64, u64), (b0, b1): (u64, u64)) -> Option<String> {
    let gap = b0.saturating_sub(a1).max(a0.saturating_sub(b1));
    let lengths = (a1 - a0).saturating_add(b1 - b0);
    (gap > SAME_RUN_GAP_NS && gap / 10 > lengths).then(|| {
        format!(
            "its times lie {:.0} s away from those of {} (each file spans {:.3} s and {:.3} s): the two come from \
             different runs",
            gap as f64 / 1e9,
            first.display(),
            (a1 - a0) as f64 / 1e9,
            (b1 - b0) as f64 / 1e9
        )
    })
}

/// Two files of one run may lie this far apart (ns) before [`different_runs`] looks closer.
const SAME_RUN_GAP_NS: u64 = 60_000_000_000;

/// The error for a directory or file that holds no rocprofv3 CSV trace.
pub fn no_trace(path: &Path) -> Error {
    Error::ArtifactInvalid {
        path: path.to_owned(),
        reason: "holds no rocprofv3 *_kernel_trace.csv, *_memory_copy_trace.csv or *_hip_api_trace.csv".to_owned(),
    }
}

#[cfg(test)]
mod tests;
