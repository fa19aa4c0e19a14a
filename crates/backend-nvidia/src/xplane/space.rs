//! An XSpace (`*.xplane.pb`, what `jax.profiler` and the TensorFlow profiler write) into a
//! [`Timeline`]. The layout, from openxla's `xplane.proto` and its converter
//! `xplane_to_trace_events.cc`:
//! - a plane per device (`/device:GPU:N`, `/device:TPU:N`) and one for the host threads
//!   (`/host:CPU`); each plane names its events and stats in two tables (`event_metadata`,
//!   `stat_metadata`) that events and stats point into by id;
//! - a line per stream or thread: an event's start is the line's `timestamp_ns` plus its
//!   `offset_ps`, its length `duration_ps` (picoseconds);
//! - a GPU's kernels and copies are on its `Stream #N(…)` lines; its `XLA Ops`, `XLA Modules`
//!   and `Steps` lines are views derived from them and are not read again. A TPU plane has no
//!   stream lines: its `XLA Ops` line holds the ops;
//! - a launch and its kernel share the `correlation_id` stat; `kernel_details` gives grid,
//!   block, registers and shared memory (NVIDIA: `regs:… static_shared:… dynamic_shared:…
//!   grid:… block:…`; ROCm: `grid:… block:… private_mem:… group_mem:…`).
//!
//! Times are rounded to whole nanoseconds, each start down and each length to the nearest.

use super::names::{hlo_name, host_category, kernel_details, numbering_dropped, op_kind};
use super::wire::{Fields, Value};
use prof_core::{DeviceOp, HostSpan, OpDetails, Result, Timeline};
use prof_timeline::intern::FxHashMap;
use std::path::Path;

/// One plane's name tables.
#[derive(Default)]
struct Tables<'a> {
    events: FxHashMap<i64, &'a str>,
    stats: FxHashMap<i64, &'a str>,
}

/// One stat of an event or plane: its name and value as text or number.
enum Stat<'a> {
    Int(i64),
    Text(&'a str),
    Other,
}

/// What kind of plane, and how its lines are read.
#[derive(Clone, Copy, PartialEq)]
enum PlaneKind {
    /// A GPU or TPU with its device index.
    Device(u32, bool),
    /// The host's threads.
    Host,
    /// Anything else (`/host:metadata`, `/device:CUSTOM:…`, `Task Environment`).
    Other,
}

fn plane_kind(name: &str) -> PlaneKind {
    let device = |prefix: &str| name.strip_prefix(prefix).and_then(|n| n.parse::<u32>().ok());
    match (device("/device:GPU:"), device("/device:TPU:")) {
        (Some(n), _) => PlaneKind::Device(n, false),
        (_, Some(n)) => PlaneKind::Device(n, true),
        _ if name == "/host:CPU" => PlaneKind::Host,
        _ => PlaneKind::Other,
    }
}

/// Reads the XSpace `bytes` (the file `path`) into a timeline.
pub(crate) fn read(bytes: &[u8], path: &Path) -> Result<Timeline> {
    let fail = |reason: String| prof_core::Error::artifact(path, 0, reason);
    let mut timeline = Timeline::new(path.display().to_string());
    let mut space = Fields::new(bytes, 0);
    let mut planes = 0usize;
    let mut device_planes = 0usize;
    let mut vendor: Option<String> = None;
    let mut unread: FxHashMap<String, u64> = FxHashMap::default();
    while let Some((number, value, at)) = space.next_field().map_err(fail)? {
        let (1, Value::Bytes(plane)) = (number, value) else { continue };
        planes += 1;
        let read = read_plane(plane, at, &mut timeline).map_err(fail)?;
        if let Some((kind, events)) = read.unread {
            *unread.entry(kind).or_default() += events;
        }
        if read.device {
            device_planes += 1;
            vendor = vendor.or(read.vendor);
        }
        if timeline.is_full() {
            break;
        }
    }
    if planes == 0 {
        return Err(fail("holds no XPlane: not an XSpace (a jax.profiler or TensorFlow *.xplane.pb)".to_owned()));
    }
    if timeline.ops.is_empty() && timeline.host.is_empty() {
        return Err(fail(format!("its {planes} planes hold no device op and no host event")));
    }
    timeline.recorded_on = (device_planes > 0).then(|| match vendor {
        Some(vendor) => format!("{vendor}, {device_planes} device planes"),
        None => format!("{device_planes} device planes"),
    });
    let mut unread: Vec<(String, u64)> = unread.into_iter().filter(|(_, n)| *n > 0).collect();
    unread.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    timeline.unread = unread;
    Ok(timeline)
}

/// What one plane gave besides its ops and spans.
struct PlaneRead {
    device: bool,
    vendor: Option<String>,
    /// A plane prof does not read, and its events.
    unread: Option<(String, u64)>,
}

fn read_plane(plane: &[u8], base: usize, timeline: &mut Timeline) -> std::result::Result<PlaneRead, String> {
    let mut name = "";
    let mut lines: Vec<(&[u8], usize)> = Vec::new();
    let mut stats: Vec<(&[u8], usize)> = Vec::new();
    let mut tables = Tables::default();
    let mut fields = Fields::new(plane, base);
    while let Some((number, value, at)) = fields.next_field()? {
        match (number, value) {
            (2, Value::Bytes(text)) => name = text_of(text, at)?,
            (3, Value::Bytes(line)) => lines.push((line, at)),
            (4, Value::Bytes(entry)) => {
                if let Some((id, name)) = metadata_entry(entry, at)? {
                    tables.events.insert(id, name);
                }
            }
            (5, Value::Bytes(entry)) => {
                if let Some((id, name)) = metadata_entry(entry, at)? {
                    tables.stats.insert(id, name);
                }
            }
            (6, Value::Bytes(stat)) => stats.push((stat, at)),
            _ => {}
        }
    }
    let kind = plane_kind(name);
    let mut read = PlaneRead { device: matches!(kind, PlaneKind::Device(..)), vendor: None, unread: None };
    for &(stat, at) in &stats {
        if let Some(("device_vendor", Stat::Text(vendor))) = stat_of(stat, at, &tables)? {
            read.vendor =
                Some(format!("{vendor} {}", if matches!(kind, PlaneKind::Device(_, true)) { "TPU" } else { "GPU" }));
        }
    }
    if read.vendor.is_none() && matches!(kind, PlaneKind::Device(_, true)) {
        read.vendor = Some("TPU".to_owned());
    }
    match kind {
        PlaneKind::Device(device, _) => {
            let streams: Vec<_> =
                lines.iter().filter(|(l, at)| line_name(l, *at).is_ok_and(|n| n.starts_with("Stream #"))).collect();
            let chosen: Vec<_> = if streams.is_empty() {
                lines.iter().filter(|(l, at)| line_name(l, *at).is_ok_and(|n| n == "XLA Ops")).collect()
            } else {
                streams
            };
            for &&(line, at) in &chosen {
                read_line(line, at, &tables, timeline, Some(device))?;
            }
        }
        PlaneKind::Host => {
            for &(line, at) in &lines {
                read_line(line, at, &tables, timeline, None)?;
            }
        }
        PlaneKind::Other => {
            let mut events = 0u64;
            for &(line, at) in &lines {
                events += count_events(line, at)?;
            }
            read.unread = Some((format!("plane {name}"), events));
        }
    }
    Ok(read)
}

fn text_of(bytes: &[u8], at: usize) -> std::result::Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|_| format!("a name at byte {at} is not UTF-8"))
}

/// `(id, name)` of one entry of an `event_metadata` or `stat_metadata` map.
fn metadata_entry(entry: &[u8], base: usize) -> std::result::Result<Option<(i64, &str)>, String> {
    let (mut id, mut name) = (None, "");
    let mut fields = Fields::new(entry, base);
    while let Some((number, value, at)) = fields.next_field()? {
        match (number, value) {
            (1, key) => id = key.int(),
            (2, Value::Bytes(meta)) => {
                let mut meta = Fields::new(meta, at);
                while let Some((number, value, at)) = meta.next_field()? {
                    if let (2, Value::Bytes(text)) = (number, value) {
                        name = text_of(text, at)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(id.map(|id| (id, name)))
}

fn line_name(line: &[u8], base: usize) -> std::result::Result<&str, String> {
    let mut fields = Fields::new(line, base);
    while let Some((number, value, at)) = fields.next_field()? {
        if let (2, Value::Bytes(text)) = (number, value) {
            return text_of(text, at);
        }
    }
    Ok("")
}

fn count_events(line: &[u8], base: usize) -> std::result::Result<u64, String> {
    let mut fields = Fields::new(line, base);
    let mut n = 0;
    while let Some((number, _, _)) = fields.next_field()? {
        n += u64::from(number == 4);
    }
    Ok(n)
}

/// A stat's name (from the plane's table) and value; a `ref_value` is the name of the stat
/// metadata it points to (how XSpace stores repeated strings).
fn stat_of<'a>(
    stat: &'a [u8],
    base: usize,
    tables: &Tables<'a>,
) -> std::result::Result<Option<(&'a str, Stat<'a>)>, String> {
    let (mut id, mut value) = (None, Stat::Other);
    let mut fields = Fields::new(stat, base);
    while let Some((number, field, at)) = fields.next_field()? {
        value = match (number, field) {
            (1, v) => {
                id = v.int();
                continue;
            }
            (3 | 4, v) => v.int().map_or(Stat::Other, Stat::Int),
            (5, Value::Bytes(text)) => Stat::Text(text_of(text, at)?),
            (7, v) => v.int().and_then(|r| tables.stats.get(&r)).map_or(Stat::Other, |s| Stat::Text(s)),
            _ => Stat::Other,
        };
    }
    Ok(id.and_then(|id| tables.stats.get(&id)).map(|name| (*name, value)))
}

/// Reads one line's events: device ops on `device`, else host spans of a thread.
fn read_line(
    line: &[u8],
    base: usize,
    tables: &Tables,
    timeline: &mut Timeline,
    device: Option<u32>,
) -> std::result::Result<(), String> {
    let (mut id, mut name, mut start_ns) = (0i64, "", 0i64);
    let mut events: Vec<(&[u8], usize)> = Vec::new();
    let mut fields = Fields::new(line, base);
    while let Some((number, value, at)) = fields.next_field()? {
        match (number, value) {
            (1, v) => id = v.int().unwrap_or(0),
            (2, Value::Bytes(text)) => name = text_of(text, at)?,
            (3, v) => start_ns = v.int().unwrap_or(0),
            (4, Value::Bytes(event)) => events.push((event, at)),
            _ => {}
        }
    }
    if start_ns < 0 {
        return Err(format!("line `{name}` (byte {base}) starts at a negative time, {start_ns} ns"));
    }
    // A TPU's `XLA Ops` events are named by their whole HLO instruction
    // (`%fusion.3 = f32[…] fusion(…), kind=kLoop, …`): the op is its name before ` = `, and its
    // type that name without XLA's `.N` numbering (`fusion`, `copy-done`).
    let hlo_ops = name == "XLA Ops";
    for (event, at) in events {
        let Some(e) = event_of(event, at, tables)? else { continue };
        let start_ps = (start_ns as u128) * 1000 + e.offset_ps as u128;
        let start = u64::try_from(start_ps / 1000).map_err(|_| format!("an event at byte {at} starts past 2^64 ns"))?;
        let dur = (e.duration_ps + 500) / 1000;
        let op = if hlo_ops { hlo_name(e.name) } else { e.name };
        let label = timeline.intern(op);
        let op_type = hlo_ops.then(|| timeline.intern(numbering_dropped(op)));
        match device {
            Some(device) => {
                let kind = op_kind(name, e.name);
                let mut op = DeviceOp::new(kind, label, device, id as u64, start, dur);
                op.correlation = e.correlation.into();
                match (e.details, op_type) {
                    (Some(details), op_type) => timeline.push_op_with(op, OpDetails { op_type, ..details }),
                    (None, Some(op_type)) => {
                        timeline.push_op_with(op, OpDetails { op_type: Some(op_type), ..OpDetails::default() })
                    }
                    (None, None) => timeline.push_op(op),
                }
            }
            None => {
                let category = host_category(e.name);
                timeline.push_host(HostSpan::new(label, category, (0, id as u64), start, dur, e.correlation.into()));
            }
        }
        if timeline.is_full() {
            timeline.partial.get_or_insert_with(|| "the memory budget was reached while reading the XSpace".to_owned());
            break;
        }
    }
    Ok(())
}

/// One event, read.
struct Event<'a> {
    name: &'a str,
    offset_ps: u64,
    duration_ps: u64,
    correlation: Option<u64>,
    details: Option<OpDetails>,
}

/// The event `bytes`; `None` for an aggregate (`num_occurrences`, no time of its own).
fn event_of<'a>(bytes: &'a [u8], base: usize, tables: &Tables<'a>) -> std::result::Result<Option<Event<'a>>, String> {
    let (mut metadata, mut offset, mut duration, mut aggregate) = (0i64, 0i64, 0i64, false);
    let mut stats = Vec::new();
    let mut fields = Fields::new(bytes, base);
    while let Some((number, value, at)) = fields.next_field()? {
        match (number, value) {
            (1, v) => metadata = v.int().unwrap_or(0),
            (2, v) => offset = v.int().unwrap_or(0),
            (3, v) => duration = v.int().unwrap_or(0),
            (5, _) => aggregate = true,
            (4, Value::Bytes(stat)) => stats.push((stat, at)),
            _ => {}
        }
    }
    if aggregate {
        return Ok(None);
    }
    if offset < 0 || duration < 0 {
        return Err(format!("an event at byte {base} has a negative offset or duration ({offset} ps, {duration} ps)"));
    }
    let name = tables.events.get(&metadata).copied().unwrap_or("(unnamed event)");
    let mut event =
        Event { name, offset_ps: offset as u64, duration_ps: duration as u64, correlation: None, details: None };
    for (stat, at) in stats {
        match stat_of(stat, at, tables)? {
            Some(("correlation_id", Stat::Int(id))) => event.correlation = u64::try_from(id).ok(),
            Some(("kernel_details", Stat::Text(text))) => event.details = kernel_details(text),
            _ => {}
        }
    }
    Ok(Some(event))
}
