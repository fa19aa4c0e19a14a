//! Chrome-trace JSON from Ascend profilers into a [`Timeline`]: torch_npu's `trace_view.json`
//! and msprof's `msprof_*.json` (CANN 8 `mindstudio_profiler_output`, and the older per-device
//! `timeline/msprof_<dev>_<model>_<iter>.json`).
//!
//! What the recordings hold, and what becomes what:
//! - `ts` is a string of decimal µs in torch_npu and CANN 8 (`"1704161511422904.204"`), a JSON
//!   number in the older msprof export; `dur` is a number. Both go to ns digit by digit.
//! - `X` events of the process named `Ascend Hardware` that carry `args."Task Type"` are device
//!   ops: stream from `args."Stream Id"` (or `"Physic Stream Id"`, else `tid`), correlation from
//!   `args.connection_id` (which the `CANN` process's API spans share in msprof exports), device
//!   from the process label `NPU <n>` (0 when the label has no number). Step-trace slices of
//!   that process (no `Task Type`) are skipped.
//! - `X` events of `Overlap Analysis` (derived compute/free slices) and `HCCL` (the same
//!   hardware tasks again, grouped per collective) are skipped so nothing counts twice.
//! - Other `X` events are host spans: `AscendCL@…`, `Node@…`, `GE@…`, `Runtime@…` runtime;
//!   torch_npu's `cpu_op` framework; the rest other.
//! - `C` events are counter series, one per (process, name, argument), e.g. `AI Core Freq` in
//!   `MHz`.
//! - `s`/`f` flow events of `HostToDevice` and `async_npu` set the correlation ids of the host
//!   span and device op they link ([`crate::trace_flows`]).

use crate::error::AscendError;
use crate::micros::micros_to_ns;
use crate::task_type;
use crate::trace_flows::{Flows, Target};
use prof_core::{CounterSeries, DeviceOp, HostCategory, HostSpan, OpDetails, Timeline};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// Loads the trace at `path`.
pub fn load(path: &Path) -> Result<Timeline, AscendError> {
    let bytes = std::fs::read(path).map_err(|e| AscendError::file(path, 0, format!("cannot read: {e}")))?;
    read(&bytes, path)
}

/// Parses trace `bytes`, naming `path` in errors.
pub fn read(bytes: &[u8], path: &Path) -> Result<Timeline, AscendError> {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| AscendError::file(path, e.line(), format!("not valid trace JSON: {e}")))?;
    let events = match &value {
        Value::Array(events) => events,
        Value::Object(map) => match map.get("traceEvents") {
            Some(Value::Array(events)) => events,
            _ => return Err(AscendError::file(path, 0, "a JSON object without a traceEvents array")),
        },
        _ => return Err(AscendError::file(path, 0, "neither a JSON array of events nor a traceEvents object")),
    };
    let processes = Processes::of(events);
    let mut timeline = Timeline::new(path.display().to_string());
    let mut counters: HashMap<(u64, String, String), usize> = HashMap::new();
    let mut flows = Flows::default();
    for (index, event) in events.iter().enumerate() {
        let at = |what: &str| AscendError::file(path, 0, format!("event {}: {what}", index + 1));
        let ph = event.get("ph").and_then(Value::as_str).unwrap_or("");
        let pid = event.get("pid").and_then(Value::as_u64).unwrap_or(0);
        match ph {
            "X" => {
                let process = processes.name(pid);
                if matches!(process, "Overlap Analysis" | "HCCL") {
                    continue;
                }
                let args = event.get("args");
                let task_type = args.and_then(|a| a.get("Task Type")).and_then(Value::as_str);
                if process == "Ascend Hardware" && task_type.is_none() {
                    continue;
                }
                let name = event.get("name").and_then(Value::as_str).ok_or_else(|| at("no name"))?;
                let start = micros(event.get("ts")).ok_or_else(|| at("ts is missing or not a µs value"))?;
                let dur = micros(event.get("dur")).ok_or_else(|| at("dur is missing or not a µs value"))?;
                let tid = event.get("tid").and_then(Value::as_u64).unwrap_or(0);
                let correlation = args.and_then(|a| a.get("connection_id")).and_then(Value::as_u64);
                // The runtime's bookkeeping tasks are counted, not read as ops (task_type.rs).
                let hardware = task_type.filter(|_| process == "Ascend Hardware");
                if let Some(kind) = hardware.and_then(task_type::runtime_task) {
                    timeline.note_unread(&kind, 1);
                    continue;
                }
                let name_id = timeline.intern(name);
                match task_type {
                    Some(task) if process == "Ascend Hardware" => {
                        let stream = args
                            .and_then(|a| a.get("Stream Id").or_else(|| a.get("Physic Stream Id")))
                            .and_then(Value::as_u64)
                            .unwrap_or(tid);
                        let device = processes.device(pid);
                        let mut op = DeviceOp::new(task_type::op_kind(task, name), name_id, device, stream, start, dur);
                        op.correlation = correlation.into();
                        flows.slice(pid, tid, start, dur, Target::Op(timeline.ops.len()));
                        let core_type = task_type::core_type(task);
                        let op_type = task_type::op_type_in_name(name).map(|t| timeline.intern(t));
                        match (core_type, op_type) {
                            (None, None) => timeline.push_op(op),
                            _ => timeline.push_op_with(op, OpDetails { core_type, op_type, ..OpDetails::default() }),
                        }
                    }
                    _ => {
                        flows.slice(pid, tid, start, dur, Target::Host(timeline.host.len()));
                        let category = host_category(name, event.get("cat").and_then(Value::as_str));
                        let pid = u32::try_from(pid).unwrap_or(u32::MAX);
                        let correlation = if process == "CANN" { correlation } else { None }.into();
                        timeline.push_host(HostSpan::new(name_id, category, (pid, tid), start, dur, correlation))
                    }
                }
            }
            "s" | "f" => {
                let ts = micros(event.get("ts")).ok_or_else(|| at("flow ts is missing or not a µs value"))?;
                let tid = event.get("tid").and_then(Value::as_u64).unwrap_or(0);
                flows.end(event, pid, tid, ts);
            }
            "C" => {
                let name = event.get("name").and_then(Value::as_str).ok_or_else(|| at("counter without a name"))?;
                let ts = micros(event.get("ts")).ok_or_else(|| at("ts is missing or not a µs value"))?;
                let Some(Value::Object(args)) = event.get("args") else { continue };
                for (key, value) in args {
                    let Some(value) = value.as_f64().or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
                    else {
                        return Err(at(&format!("counter {name} value {key} is not a number")));
                    };
                    let slot = *counters.entry((pid, name.to_owned(), key.clone())).or_insert_with(|| {
                        let series = CounterSeries {
                            name: timeline.names.intern(name),
                            device: processes.label_device(pid),
                            unit: Some(timeline.names.intern(key)),
                            points: Vec::new(),
                        };
                        timeline.counters.push(series);
                        timeline.counters.len() - 1
                    });
                    if let Some(series) = timeline.counters.get_mut(slot) {
                        series.points.push((ts, value));
                    }
                }
            }
            _ => {}
        }
    }
    for series in &mut timeline.counters {
        series.points.sort_by_key(|p| p.0);
    }
    flows.apply(&mut timeline);
    Ok(timeline)
}

/// The µs value of a `ts`/`dur` field, a string or a number, in ns.
fn micros(value: Option<&Value>) -> Option<u64> {
    match value? {
        Value::String(text) => micros_to_ns(text.trim()),
        Value::Number(number) => micros_to_ns(&number.to_string()),
        _ => None,
    }
}

fn host_category(name: &str, cat: Option<&str>) -> HostCategory {
    let runtime = ["AscendCL@", "Node@", "GE@", "Runtime@", "HCCL@"].iter().any(|p| name.starts_with(p));
    match cat {
        _ if runtime => HostCategory::Runtime,
        Some("cpu_op") => HostCategory::Framework,
        Some("user_annotation") => HostCategory::Annotation,
        _ => HostCategory::Other,
    }
}

/// Process names and labels from the `M` metadata events.
struct Processes<'a> {
    names: HashMap<u64, &'a str>,
    labels: HashMap<u64, &'a str>,
}

impl<'a> Processes<'a> {
    fn of(events: &'a [Value]) -> Self {
        let mut names = HashMap::new();
        let mut labels = HashMap::new();
        for event in events.iter().filter(|e| e.get("ph").and_then(Value::as_str) == Some("M")) {
            let (Some(pid), Some(kind)) =
                (event.get("pid").and_then(Value::as_u64), event.get("name").and_then(Value::as_str))
            else {
                continue;
            };
            let args = event.get("args");
            match kind {
                "process_name" => {
                    if let Some(name) = args.and_then(|a| a.get("name")).and_then(Value::as_str) {
                        names.insert(pid, name);
                    }
                }
                "process_labels" => {
                    if let Some(label) = args.and_then(|a| a.get("labels")).and_then(Value::as_str) {
                        labels.insert(pid, label);
                    }
                }
                _ => {}
            }
        }
        Self { names, labels }
    }

    fn name(&self, pid: u64) -> &str {
        self.names.get(&pid).copied().unwrap_or("")
    }

    /// The device number in a `NPU <n>` label.
    fn label_device(&self, pid: u64) -> Option<u32> {
        self.labels.get(&pid)?.strip_prefix("NPU")?.trim().parse().ok()
    }

    fn device(&self, pid: u64) -> u32 {
        self.label_device(pid).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests;
