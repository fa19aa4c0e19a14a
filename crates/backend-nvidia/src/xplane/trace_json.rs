//! The Chrome trace JSON that XLA's converter (`xplane_to_trace_events.cc`) writes beside an
//! XSpace: `*.trace.json.gz` (TensorBoard's profile plugin, `jax.profiler.trace`) and
//! `perfetto_trace.json.gz` (`create_perfetto_trace=True`). The same planes as events: a
//! process per plane (`process_name` metadata `/device:GPU:N`, `/device:TPU:N`, `/host:CPU`),
//! a thread per line (`thread_name` `Stream #14(Compute,Memset)`, `XLA Ops`, `Host Threads/N`),
//! complete events (`"ph": "X"`, `ts`/`dur` in µs) with the XSpace stats as `args`
//! (`correlation_id`, `kernel_details`, `hlo_op`, `hlo_module`). Read as [`super::space`] reads
//! the XSpace: a GPU's `Stream #N` lines as its ops, a TPU's `XLA Ops` line, the host's threads
//! as host spans; events carry no `cat` (which is how it differs from a Kineto trace).

use super::names::{hlo_name, host_category, kernel_details, numbering_dropped, op_kind};
use prof_core::{DeviceOp, Error, HostSpan, OpDetails, Result, Timeline};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

/// A number or a string holding one (`"correlation_id": "2"`).
#[derive(Deserialize)]
#[serde(untagged)]
enum Num<'a> {
    N(u64),
    S(&'a str),
    #[allow(dead_code)]
    Other(serde::de::IgnoredAny),
}

impl Num<'_> {
    fn get(&self) -> Option<u64> {
        match self {
            Num::N(n) => Some(*n),
            Num::S(s) => s.parse().ok(),
            Num::Other(_) => None,
        }
    }
}

#[derive(Deserialize, Default)]
struct Args<'a> {
    #[serde(borrow)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    correlation_id: Option<Num<'a>>,
    #[serde(borrow)]
    kernel_details: Option<std::borrow::Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Event<'a> {
    ph: Option<&'a str>,
    #[serde(borrow)]
    name: Option<std::borrow::Cow<'a, str>>,
    pid: Option<u64>,
    tid: Option<u64>,
    ts: Option<f64>,
    dur: Option<f64>,
    #[serde(borrow, default)]
    args: Option<Args<'a>>,
}

#[derive(Deserialize)]
struct Document<'a> {
    #[serde(borrow, rename = "traceEvents")]
    events: Vec<Event<'a>>,
}

/// True when the head of a JSON document looks like XLA's converter wrote it: trace events
/// whose processes are named after XSpace planes.
pub(crate) fn looks_like_xla_trace(head: &[u8]) -> bool {
    let has = |needle: &[u8]| memchr::memmem::find(head, needle).is_some();
    has(b"\"traceEvents\"")
        && has(b"\"process_name\"")
        && (has(b"\"/device:GPU:") || has(b"\"/device:TPU:") || has(b"\"/host:CPU\""))
        && !has(b"\"cat\"")
}

fn ns(micros: f64) -> Option<u64> {
    (micros.is_finite() && micros >= 0.0).then(|| (micros * 1000.0).round() as u64)
}

/// Reads the converter's JSON `bytes` (the file `path`, unzipped) into a timeline.
pub(crate) fn read(bytes: &[u8], path: &Path) -> Result<Timeline> {
    let doc: Document = serde_json::from_slice(bytes).map_err(|e| {
        Error::artifact(path, e.line(), format!("column {}: {e} (expected XLA's trace events JSON)", e.column()))
    })?;
    // Planes and lines, from the metadata events.
    let mut planes: HashMap<u64, String> = HashMap::new();
    let mut lines: HashMap<(u64, u64), String> = HashMap::new();
    for e in doc.events.iter().filter(|e| e.ph == Some("M")) {
        let name = e.args.as_ref().and_then(|a| a.name.as_deref()).unwrap_or_default().to_owned();
        match (e.name.as_deref(), e.pid, e.tid) {
            (Some("process_name"), Some(pid), _) => drop(planes.insert(pid, name)),
            (Some("thread_name"), Some(pid), Some(tid)) => drop(lines.insert((pid, tid), name)),
            _ => {}
        }
    }
    if !planes.values().any(|p| p.starts_with("/device:") || p == "/host:CPU") {
        return Err(Error::artifact(path, 1, "no process named after an XSpace plane (/device:…, /host:CPU)"));
    }
    let mut timeline = Timeline::new(path.display().to_string());
    let mut skipped: u64 = 0;
    for (i, e) in doc.events.iter().enumerate().filter(|(_, e)| e.ph == Some("X")) {
        let (Some(pid), Some(tid)) = (e.pid, e.tid) else { continue };
        let Some(plane) = planes.get(&pid) else { continue };
        let line = lines.get(&(pid, tid)).map_or("", String::as_str);
        let name = e.name.as_deref().unwrap_or_default();
        let (Some(start), Some(dur)) = (e.ts.and_then(ns), e.dur.and_then(ns)) else {
            return Err(Error::artifact(path, 1, format!("event {i} (`{name}`) has no ts/dur in µs")));
        };
        let args = e.args.as_ref();
        let correlation = args.and_then(|a| a.correlation_id.as_ref()).and_then(Num::get);
        let device = |prefix: &str| plane.strip_prefix(prefix).and_then(|n| n.parse::<u32>().ok());
        match (device("/device:GPU:"), device("/device:TPU:")) {
            (Some(device), _) if line.starts_with("Stream #") => {
                let mut op = DeviceOp::new(op_kind(line, name), timeline.intern(name), device, tid, start, dur);
                op.correlation = correlation.into();
                match args.and_then(|a| a.kernel_details.as_deref()).and_then(kernel_details) {
                    Some(details) => timeline.push_op_with(op, details),
                    None => timeline.push_op(op),
                }
            }
            (_, Some(device)) if line == "XLA Ops" => {
                let op_name = hlo_name(name);
                let op_type = Some(timeline.intern(numbering_dropped(op_name)));
                let op = DeviceOp::new(op_kind(line, op_name), timeline.intern(op_name), device, tid, start, dur);
                timeline.push_op_with(op, OpDetails { op_type, ..OpDetails::default() });
            }
            (Some(_), _) | (_, Some(_)) => skipped += 1, // derived views: XLA Modules, Steps, …
            _ if plane == "/host:CPU" => {
                let label = timeline.intern(name);
                timeline.push_host(HostSpan::new(label, host_category(name), (0, tid), start, dur, correlation.into()));
            }
            _ => {}
        }
        if timeline.is_full() {
            timeline.partial.get_or_insert_with(|| "the memory budget was reached while reading the trace".to_owned());
            break;
        }
    }
    if timeline.ops.is_empty() && timeline.host.is_empty() {
        return Err(Error::artifact(
            path,
            1,
            format!(
                "XLA trace events with no device stream or host thread event ({skipped} events of derived views \
                 only); the .xplane.pb beside it holds the same run"
            ),
        ));
    }
    Ok(timeline)
}
