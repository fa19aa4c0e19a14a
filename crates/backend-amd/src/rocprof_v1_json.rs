//! Legacy rocprof's (rocprofiler v1, ROCm ≤ 6.1) Chrome trace `results.json`, written by
//! `rocprof --hip-trace` / `--sys-trace` beside `results.csv`, into a [`Timeline`].
//!
//! The layout, from the recorded Kokkos run (fixture `kokkos2021_results.json`, ROCm 4.0 era):
//! `{"traceEvents": [...], "otherData": {rocminfo}}`. Lanes are processes named by `M`
//! (`process_name`) events: `GPU<n>` holds device `n`'s kernel dispatches, `COPY` its copies
//! (`CopyHostToDevice`, `CopyDeviceToHost`, `FillBuffer`, …; `args.dev-id` names the device),
//! `CPU HIP API` (and the HSA/KFD API lanes) the host's API calls, `Markers and Ranges` the
//! roctx ranges. Every `X` event carries `args.BeginNs`/`args.EndNs` (nanoseconds, as strings)
//! beside the microsecond `ts`/`dur`; the nanoseconds are read, `ts`/`dur` only where they are
//! missing. `pid`, `tid`, `ts` and `dur` are strings in `X` events and numbers elsewhere: both
//! are read. The `s`/`t` DataFlow pairs sit at the device op's start on both ends, so they do
//! not say which API call launched it: no correlation is made (the launch analyses then read
//! the API lane as host time only). `<barrier packet>` dispatches are queue barriers, not
//! kernels: they are left out and counted in [`Timeline::partial`], as are events of lanes
//! prof does not know; `Unknown command type` packets stay, as device ops of kind `other`.
//!
//! A file whose events hold no dispatch and no copy is an error (an empty report would be
//! wrong), as is an `X` event whose end is before its start.

use prof_core::{DeviceOp, Error, HostCategory, HostSpan, OpKind, Result, Timeline};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// The name legacy rocprof gives the queue barriers it traces among the dispatches.
pub const BARRIER: &str = "<barrier packet>";

/// The name legacy rocprof gives a traced packet of no type it knows (0 ns in the recorded
/// run): a device op, not a kernel.
pub const UNKNOWN_PACKET: &str = "Unknown command type";

/// The kind of a legacy rocprof copy-lane op named `name`: its fills (`FillBuffer`) are sets,
/// the rest copies.
pub fn copy_kind(name: &str) -> OpKind {
    if name.starts_with("Fill") {
        OpKind::Memset
    } else {
        OpKind::Memcpy
    }
}

/// True when the head of the file at `path` is a Chrome trace with rocprof v1's lanes or its
/// `BeginNs` arguments.
pub fn is_rocprof_v1_json(path: &Path) -> bool {
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(8192).read_to_end(&mut head));
    read.is_ok() && looks_like(&head)
}

fn looks_like(head: &[u8]) -> bool {
    let has = |needle: &str| head.windows(needle.len()).any(|w| w == needle.as_bytes());
    head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
        && has("\"traceEvents\"")
        && (has("\"BeginNs\"") || has("\"name\":\"CPU HIP API\"") || has("\"name\":\"COPY\""))
}

/// Loads the rocprof v1 `results.json` at `path`.
pub fn load(path: &Path) -> Result<Timeline> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    read(std::io::BufReader::with_capacity(1 << 20, file), path)
}

/// Reads a rocprof v1 Chrome trace from `reader` (named `path` in errors).
pub fn read(reader: impl Read, path: &Path) -> Result<Timeline> {
    let mut timeline = Timeline::new(path.display().to_string());
    let mut events = Events { timeline: &mut timeline, lanes: HashMap::new(), spans: Vec::new(), error: None };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let parsed = DocumentSeed { events: &mut events }.deserialize(&mut de);
    if let Some(error) = events.error.take() {
        return Err(Error::artifact(path, 0, error));
    }
    parsed.map_err(|e| {
        let what = if e.is_eof() { "the file ends inside its JSON (cut short?)" } else { "is not a rocprof v1 trace" };
        Error::artifact(path, e.line(), format!("{what}: {e}"))
    })?;
    let Events { lanes, spans, .. } = events;
    place(spans, &lanes, &mut timeline, path)?;
    Ok(timeline)
}

/// What a lane (a trace process) holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Lane {
    Kernels(u32),
    Copies,
    Host(HostCategory),
    Unknown,
}

fn lane_of(name: &str) -> Lane {
    if let Some(n) = name.strip_prefix("GPU").and_then(|n| n.parse().ok()) {
        return Lane::Kernels(n);
    }
    match name {
        "COPY" => Lane::Copies,
        "Markers and Ranges" => Lane::Host(HostCategory::Annotation),
        _ if name.contains("API") => Lane::Host(HostCategory::Runtime),
        _ => Lane::Unknown,
    }
}

/// One `X` event, its lane still a process id (lanes may be named after their events).
struct Span {
    pid: u64,
    tid: u64,
    name: prof_core::NameId,
    start: u64,
    end: u64,
    device: Option<u32>,
    queue: u64,
}

fn place(spans: Vec<Span>, lanes: &HashMap<u64, Lane>, timeline: &mut Timeline, path: &Path) -> Result<()> {
    let barrier = timeline.names.get(BARRIER);
    let (mut barriers, mut unknown) = (0usize, 0usize);
    let mut unnamed = Vec::new();
    for span in spans {
        let lane = lanes.get(&span.pid).copied().unwrap_or_else(|| {
            unnamed.push(span.pid);
            Lane::Unknown
        });
        let duration = span.end - span.start;
        match lane {
            Lane::Kernels(_) | Lane::Copies if Some(span.name) == barrier => barriers += 1,
            Lane::Kernels(device) => {
                let kind = if timeline.name(span.name) == UNKNOWN_PACKET { OpKind::Other } else { OpKind::Kernel };
                let op =
                    DeviceOp::new(kind, span.name, span.device.unwrap_or(device), span.queue, span.start, duration);
                timeline.push_op(op);
            }
            Lane::Copies => {
                let kind = copy_kind(timeline.name(span.name));
                timeline.push_op(DeviceOp::new(
                    kind,
                    span.name,
                    span.device.unwrap_or(0),
                    span.queue,
                    span.start,
                    duration,
                ));
            }
            Lane::Host(category) => {
                timeline.push_host(HostSpan::new(
                    span.name,
                    category,
                    (0, span.tid),
                    span.start,
                    duration,
                    None.into(),
                ));
            }
            Lane::Unknown => unknown += 1,
        }
        if timeline.is_full() {
            break;
        }
    }
    if timeline.ops.is_empty() {
        return Err(Error::artifact(
            path,
            1,
            "its traceEvents hold no kernel dispatch (a GPU<n> lane) and no copy (the COPY lane): was it recorded \
             with --hip-trace or --sys-trace?",
        ));
    }
    if barriers > 0 {
        timeline.note_partial(format!("{barriers} {BARRIER} events (queue barriers, not kernels) were left out"));
    }
    if unknown > 0 {
        unnamed.sort_unstable();
        unnamed.dedup();
        let which = if unnamed.is_empty() { String::new() } else { format!(" (unnamed pids {unnamed:?})") };
        timeline.note_partial(format!("{unknown} events on lanes prof does not read were left out{which}"));
    }
    Ok(())
}

/// The sink the streaming visitor fills: lane names, spans, and the first bad event.
struct Events<'t> {
    timeline: &'t mut Timeline,
    lanes: HashMap<u64, Lane>,
    spans: Vec<Span>,
    error: Option<String>,
}

/// A number that rocprof v1 writes as a JSON string in `X` events and as a number elsewhere.
#[derive(Deserialize)]
#[serde(untagged)]
enum Num {
    Int(u64),
    Text(String),
}

impl Num {
    fn get(&self) -> Option<u64> {
        match self {
            Num::Int(n) => Some(*n),
            Num::Text(t) => t.trim().parse().ok(),
        }
    }
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(default, borrow)]
    ph: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    pid: Option<Num>,
    #[serde(default)]
    tid: Option<Num>,
    #[serde(default)]
    ts: Option<Num>,
    #[serde(default)]
    dur: Option<Num>,
    #[serde(default, borrow)]
    args: Option<Args<'a>>,
}

#[derive(Deserialize, Default)]
struct Args<'a> {
    #[serde(default, rename = "BeginNs")]
    begin: Option<Num>,
    #[serde(default, rename = "EndNs")]
    end: Option<Num>,
    #[serde(default, rename = "dev-id")]
    device: Option<Num>,
    #[serde(default, rename = "queue-id")]
    queue: Option<Num>,
    /// The lane's name in `process_name` metadata.
    #[serde(default, borrow)]
    name: Option<std::borrow::Cow<'a, str>>,
}

impl Events<'_> {
    fn take(&mut self, at: usize, event: Event) {
        let ph = event.ph.as_deref().unwrap_or("");
        let pid = event.pid.as_ref().and_then(Num::get);
        if ph == "M" && event.name.as_deref() == Some("process_name") {
            if let (Some(pid), Some(name)) = (pid, event.args.as_ref().and_then(|a| a.name.as_deref())) {
                self.lanes.insert(pid, lane_of(name));
            }
            return;
        }
        if ph != "X" || self.error.is_some() {
            return;
        }
        let args = event.args.unwrap_or_default();
        let micros = |n: &Option<Num>| n.as_ref().and_then(Num::get).map(|v| v.saturating_mul(1000));
        let start = args.begin.as_ref().and_then(Num::get).or_else(|| micros(&event.ts));
        let end = match args.end.as_ref().and_then(Num::get) {
            Some(end) => Some(end),
            None => start.zip(micros(&event.dur)).map(|(s, d)| s.saturating_add(d)),
        };
        let name = event.name.as_deref().unwrap_or("");
        let (Some(pid), Some(start), Some(end)) = (pid, start, end) else {
            self.error = Some(format!("traceEvents[{at}] ({name}): an X event without pid, BeginNs/ts or EndNs/dur"));
            return;
        };
        if end < start {
            self.error = Some(format!("traceEvents[{at}] ({name}): EndNs {end} is before BeginNs {start}"));
            return;
        }
        let name = self.timeline.intern(name);
        let device = args.device.as_ref().and_then(Num::get).and_then(|d| u32::try_from(d).ok());
        let queue = args.queue.as_ref().and_then(Num::get).unwrap_or(0);
        let tid = event.tid.as_ref().and_then(Num::get).unwrap_or(0);
        self.spans.push(Span { pid, tid, name, start, end, device, queue });
    }
}

struct DocumentSeed<'e, 't> {
    events: &'e mut Events<'t>,
}

impl<'de> serde::de::DeserializeSeed<'de> for DocumentSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> std::result::Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for DocumentSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object with traceEvents")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let mut seen = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<str>>()? {
            if key == "traceEvents" {
                map.next_value_seed(EventsSeed { events: &mut *self.events })?;
                seen = true;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !seen {
            return Err(serde::de::Error::custom("no traceEvents key"));
        }
        Ok(())
    }
}

struct EventsSeed<'e, 't> {
    events: &'e mut Events<'t>,
}

impl<'de> serde::de::DeserializeSeed<'de> for EventsSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> std::result::Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EventsSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of trace events")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        let mut at = 0;
        while let Some(event) = seq.next_element::<Event>()? {
            self.events.take(at, event);
            at += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
