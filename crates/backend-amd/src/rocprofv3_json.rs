//! rocprofv3's JSON output (`rocprofv3 --kernel-trace --output-format json`, `*_results.json`),
//! which AMD's TraceLens reads, into a [`Timeline`].
//!
//! The layout, from the rocprofiler-compute test workload recorded on an MI300A (tests/fixtures/
//! amd/SOURCES.md): a top-level object whose `rocprofiler-sdk-tool` key holds one entry per
//! profiled process, each with `metadata` (`pid`, `command`), `agents` (`id.handle`, `type`: 2
//! is a GPU, `logical_node_id`), `kernel_symbols` (`kernel_id`, `formatted_kernel_name`,
//! `kernel_name`) and `buffer_records.kernel_dispatch[]`: `start_timestamp`, `end_timestamp`
//! (ns), `correlation_id.internal`, `dispatch_info` (`agent_id.handle`, `queue_id.handle`,
//! `kernel_id`, `group_segment_size`, `workgroup_size`, `grid_size` in work-items, turned into
//! workgroups). Each dispatch becomes a kernel op: device = the agent's rank among the GPU agents (ordered by `logical_node_id`, as
//! prof numbers rocprofv3 CSV agents with `agent_info.csv`), stream = `stream_id.handle` (the
//! CSV's `Stream_Id`; rocprofiler-sdk before 1.0 has none: the queue handle).
//!
//! The other record kinds (`memory_copy`, `hip_api`, …) are not read: when a file holds some,
//! the timeline says so in [`Timeline::partial`]. A file with no `rocprofiler-sdk-tool` entry,
//! or whose processes hold no kernel dispatch, is an error (an empty report would be wrong).
//! The file is deserialised into the few fields above only (unknown keys are skipped, not
//! kept), so memory stays near the size of the dispatch list.

use prof_core::{DeviceOp, Error, OpDetails, OpKind, Result, Timeline};
use serde::Deserialize;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// The key that marks the format.
pub const TOOL_KEY: &str = "rocprofiler-sdk-tool";

#[derive(Deserialize)]
struct Document {
    #[serde(rename = "rocprofiler-sdk-tool", default)]
    processes: Option<Vec<Process>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Process {
    agents: Vec<Agent>,
    kernel_symbols: Vec<Symbol>,
    buffer_records: Records,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Agent {
    id: Handle,
    #[serde(rename = "type")]
    kind: u64,
    logical_node_id: u64,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct Handle {
    handle: u64,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Symbol {
    kernel_id: u64,
    kernel_name: String,
    formatted_kernel_name: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Records {
    kernel_dispatch: Vec<Dispatch>,
    memory_copy: Vec<serde::de::IgnoredAny>,
    hip_api: Vec<serde::de::IgnoredAny>,
    hsa_api: Vec<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct Dispatch {
    start_timestamp: u64,
    end_timestamp: u64,
    #[serde(default)]
    correlation_id: Correlation,
    #[serde(default)]
    stream_id: Option<Handle>,
    dispatch_info: DispatchInfo,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Correlation {
    internal: u64,
}

#[derive(Deserialize)]
struct DispatchInfo {
    agent_id: Handle,
    #[serde(default)]
    queue_id: Handle,
    kernel_id: u64,
    #[serde(default)]
    group_segment_size: Option<u64>,
    #[serde(default)]
    workgroup_size: Option<Dim>,
    #[serde(default)]
    grid_size: Option<Dim>,
}

#[derive(Deserialize, Clone, Copy)]
struct Dim {
    x: u32,
    y: u32,
    z: u32,
}

/// True when the head of the file at `path` is a JSON object naming `rocprofiler-sdk-tool`.
pub fn is_rocprofv3_json(path: &Path) -> bool {
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    read.is_ok()
        && head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
        && memchr_find(&head, format!("\"{TOOL_KEY}\"").as_bytes())
}

fn memchr_find(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Loads the rocprofv3 JSON file at `path`.
pub fn load(path: &Path) -> Result<Timeline> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let document: Document = serde_json::from_reader(reader).map_err(|e| {
        let what = if e.is_eof() { "the file ends inside its JSON (cut short?)" } else { "is not rocprofv3 JSON" };
        Error::artifact(path, e.line(), format!("{what}: {e}"))
    })?;
    let processes = document
        .processes
        .ok_or_else(|| Error::artifact(path, 1, format!("has no `{TOOL_KEY}` key: not a rocprofv3 JSON output")))?;
    let mut timeline = Timeline::new(path.display().to_string());
    let mut unread = Vec::new();
    for process in &processes {
        add_process(process, &mut timeline, path)?;
        let records = &process.buffer_records;
        for (kind, count) in [
            ("memory_copy", records.memory_copy.len()),
            ("hip_api", records.hip_api.len()),
            ("hsa_api", records.hsa_api.len()),
        ] {
            if count > 0 {
                unread.push(format!("{count} {kind}"));
            }
        }
    }
    if timeline.ops.is_empty() {
        return Err(Error::artifact(
            path,
            1,
            format!(
                "its {} process(es) hold no kernel dispatch (buffer_records.kernel_dispatch is empty): was it \
                 recorded with --kernel-trace?",
                processes.len()
            ),
        ));
    }
    if !unread.is_empty() {
        timeline.note_partial(format!(
            "records prof does not read from rocprofv3 JSON were left out ({}): only kernel dispatches are shown; \
             the CSV output (--output-format csv) carries copies and API calls",
            unread.join(", ")
        ));
    }
    Ok(timeline)
}

fn add_process(process: &Process, timeline: &mut Timeline, path: &Path) -> Result<()> {
    let mut gpus: Vec<&Agent> = process.agents.iter().filter(|a| a.kind == 2).collect();
    gpus.sort_by_key(|a| a.logical_node_id);
    let device_of: HashMap<u64, u32> =
        gpus.iter().enumerate().map(|(rank, a)| (a.id.handle, u32::try_from(rank).unwrap_or(u32::MAX))).collect();
    let names: HashMap<u64, &str> = process
        .kernel_symbols
        .iter()
        .map(|s| {
            let name = if s.formatted_kernel_name.is_empty() { &s.kernel_name } else { &s.formatted_kernel_name };
            (s.kernel_id, name.as_str())
        })
        .collect();
    for (at, dispatch) in process.buffer_records.kernel_dispatch.iter().enumerate() {
        let info = &dispatch.dispatch_info;
        let fail = |why: String| Error::artifact(path, 0, format!("kernel_dispatch[{at}]: {why}"));
        let name = names
            .get(&info.kernel_id)
            .ok_or_else(|| fail(format!("kernel_id {} is not in kernel_symbols", info.kernel_id)))?;
        let device = *device_of
            .get(&info.agent_id.handle)
            .ok_or_else(|| fail(format!("agent {} is not a GPU agent of `agents`", info.agent_id.handle)))?;
        let duration = dispatch.end_timestamp.checked_sub(dispatch.start_timestamp).ok_or_else(|| {
            fail(format!(
                "end_timestamp {} is before start_timestamp {}",
                dispatch.end_timestamp, dispatch.start_timestamp
            ))
        })?;
        let name = timeline.intern(name);
        let stream = dispatch.stream_id.map_or(info.queue_id.handle, |s| s.handle);
        let mut op = DeviceOp::new(OpKind::Kernel, name, device, stream, dispatch.start_timestamp, duration);
        op.correlation = Some(dispatch.correlation_id.internal).into();
        let details = OpDetails {
            shared_memory_bytes: info.group_segment_size,
            block: info.workgroup_size.map(|d| [d.x, d.y, d.z]),
            // HSA grid sizes count work-items; the timeline's grid counts workgroups.
            grid: info
                .grid_size
                .zip(info.workgroup_size)
                .map(|(g, w)| [g.x.div_ceil(w.x.max(1)), g.y.div_ceil(w.y.max(1)), g.z.div_ceil(w.z.max(1))]),
            ..OpDetails::default()
        };
        timeline.push_op_with(op, details);
        if timeline.is_full() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
