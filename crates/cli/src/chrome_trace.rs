//! `--chrome-trace FILE`: the [`Timeline`] as Chrome Trace Event Format JSON, which
//! ui.perfetto.dev and chrome://tracing open.
//!
//! Layout: one process per device (`pid` = device index, named `device N`) with one thread per
//! stream (`tid` = stream id, named `stream S`); host spans under their own `pid`/`tid`; device
//! ops and host spans are complete events (`"ph": "X"`, `ts`/`dur` in microseconds written with
//! three decimals, so nanoseconds survive exactly); counters are `"C"` events; each device op
//! whose correlation id matches a host span gets a flow (`"s"` at the launch, `"f"` at the op).
//! Categories and argument names follow PyTorch's Kineto traces (`kernel`, `gpu_memcpy`,
//! `cuda_runtime`, `args.device`, `args.stream`, `args.correlation`, `args.grid`, …), and the
//! top level carries an empty Kineto `deviceProperties` list, so Kineto readers, `prof analyze`
//! included, load the file back as a timeline.
//!
//! The file is streamed through a `BufWriter`; names are JSON-escaped once per interned name.

use prof_core::{CoreType, DeviceOp, HostCategory, HostSpan, OpDetails, OpKind, Timeline};
use prof_timeline::intern::{FxHashMap, NameId};
use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::Path;

/// `pid` of counter series that belong to no device (above any Linux pid, within `i32`).
const GLOBAL_COUNTERS_PID: u32 = i32::MAX as u32;
/// Sort index of host processes: after every device.
const HOST_SORT_INDEX: u32 = 1 << 20;

/// Writes `timeline` to the file at `path`; returns how many events were written.
pub fn write_file(timeline: &Timeline, path: &Path) -> Result<u64, crate::output_file::WriteError> {
    crate::output_file::write(path, |mut out| write(timeline, &mut out))
}

/// Writes `timeline` as one Chrome trace JSON document to `out`; returns the event count.
pub fn write(timeline: &Timeline, out: &mut impl Write) -> io::Result<u64> {
    let names: Vec<String> = (0..timeline.names.len()).map(|i| json_string(timeline.name(NameId(i as u32)))).collect();
    let name = |id: NameId| names.get(id.0 as usize).map_or("\"?\"", String::as_str);
    let mut w = EventWriter { out, events: 0 };
    w.out.write_all(b"{\"displayTimeUnit\":\"ns\",\"deviceProperties\":[],\"otherData\":{\"producer\":\"prof\"")?;
    write!(w.out, ",\"source\":{}", json_string(&timeline.source))?;
    if let Some(partial) = &timeline.partial {
        write!(w.out, ",\"partial\":{}", json_string(partial))?;
    }
    w.out.write_all(b"},\"traceEvents\":[")?;
    metadata(timeline, &mut w)?;
    for op in &timeline.ops {
        device_op(op, timeline.details_of(op), name(op.name()), &names, &mut w)?;
    }
    for span in &timeline.host {
        host_span(span, name(span.name), &mut w)?;
    }
    flows(timeline, &mut w)?;
    for series in &timeline.counters {
        let label = match series.unit {
            Some(unit) => json_string(&format!("{} ({})", timeline.name(series.name), timeline.name(unit))),
            None => name(series.name).to_owned(),
        };
        let pid = series.device.unwrap_or(GLOBAL_COUNTERS_PID);
        for &(t_ns, value) in series.points.iter().filter(|(_, v)| v.is_finite()) {
            w.begin()?;
            write!(w.out, "{{\"ph\":\"C\",\"name\":{label},\"pid\":{pid},\"ts\":")?;
            micros(w.out, t_ns)?;
            write!(w.out, ",\"args\":{{\"value\":{value}}}}}")?;
        }
    }
    w.out.write_all(b"\n]}\n")?;
    Ok(w.events)
}

/// Counts events and puts the separators between them.
struct EventWriter<'a, W: Write> {
    out: &'a mut W,
    events: u64,
}

impl<W: Write> EventWriter<'_, W> {
    fn begin(&mut self) -> io::Result<()> {
        self.events += 1;
        self.out.write_all(if self.events == 1 { b"\n" } else { b",\n" })
    }
}

/// Process and thread names (and an order that puts devices first).
fn metadata<W: Write>(timeline: &Timeline, w: &mut EventWriter<W>) -> io::Result<()> {
    let streams: BTreeSet<(u32, u64)> = timeline.ops.iter().map(|op| (op.device(), op.stream())).collect();
    let devices: BTreeSet<u32> = streams.iter().map(|&(device, _)| device).collect();
    let threads: BTreeSet<(u32, u64)> = timeline.host.iter().map(|s| (s.pid, s.tid)).collect();
    let processes: BTreeSet<u32> = threads.iter().map(|&(pid, _)| pid).filter(|p| !devices.contains(p)).collect();
    for &device in &devices {
        name_process(w, device, &format!("device {device}"), device)?;
    }
    for &(device, stream) in &streams {
        name_thread(w, device, stream, &format!("stream {stream}"))?;
    }
    for &pid in &processes {
        name_process(w, pid, &format!("host process {pid}"), HOST_SORT_INDEX)?;
    }
    for &(pid, tid) in &threads {
        name_thread(w, pid, tid, &format!("host thread {tid}"))?;
    }
    if timeline.counters.iter().any(|c| c.device.is_none()) {
        name_process(w, GLOBAL_COUNTERS_PID, "counters", HOST_SORT_INDEX + 1)?;
    }
    Ok(())
}

fn name_process<W: Write>(w: &mut EventWriter<W>, pid: u32, name: &str, sort: u32) -> io::Result<()> {
    w.begin()?;
    write!(
        w.out,
        "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{pid},\"args\":{{\"name\":{}}}}}",
        json_string(name)
    )?;
    w.begin()?;
    write!(w.out, "{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{pid},\"args\":{{\"sort_index\":{sort}}}}}")
}

fn name_thread<W: Write>(w: &mut EventWriter<W>, pid: u32, tid: u64, name: &str) -> io::Result<()> {
    w.begin()?;
    write!(
        w.out,
        "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":{}}}}}",
        json_string(name)
    )
}

/// Kineto's category for a device op (collectives are `kernel`s there too; `args.kind` says which).
fn op_category(kind: OpKind) -> &'static str {
    match kind {
        OpKind::Kernel | OpKind::Communication => "kernel",
        OpKind::Memcpy => "gpu_memcpy",
        OpKind::Memset => "gpu_memset",
        OpKind::Other => "gpu_other",
    }
}

fn kind_name(kind: OpKind) -> &'static str {
    match kind {
        OpKind::Kernel => "kernel",
        OpKind::Memcpy => "memcpy",
        OpKind::Memset => "memset",
        OpKind::Communication => "communication",
        OpKind::Other => "other",
    }
}

fn core_type_name(core: CoreType) -> &'static str {
    match core {
        CoreType::Cube => "cube",
        CoreType::Vector => "vector",
        CoreType::Mix => "mix",
        CoreType::Cpu => "cpu",
        CoreType::Dma => "dma",
    }
}

fn device_op<W: Write>(
    op: &DeviceOp,
    op_details: Option<&OpDetails>,
    name: &str,
    names: &[String],
    w: &mut EventWriter<W>,
) -> io::Result<()> {
    w.begin()?;
    let out = &mut *w.out;
    raw(out, "{\"ph\":\"X\",\"cat\":\"")?;
    raw(out, op_category(op.kind()))?;
    raw(out, "\",\"name\":")?;
    raw(out, name)?;
    field(out, ",\"pid\":", op.device().into())?;
    field(out, ",\"tid\":", op.stream())?;
    raw(out, ",\"ts\":")?;
    micros(out, op.start_ns)?;
    raw(out, ",\"dur\":")?;
    micros(out, op.dur_ns())?;
    raw(out, ",\"args\":{\"kind\":\"")?;
    raw(out, kind_name(op.kind()))?;
    field(out, "\",\"device\":", op.device().into())?;
    field(out, ",\"stream\":", op.stream())?;
    if let Some(correlation) = op.correlation.get() {
        field(out, ",\"correlation\":", correlation)?;
    }
    if let Some(d) = op_details {
        details(out, d, names)?;
    }
    raw(out, "}}")
}

/// The optional facts of a device op, as Kineto names them where it has them.
fn details(out: &mut impl Write, d: &OpDetails, names: &[String]) -> io::Result<()> {
    let name_of = |id: NameId| names.get(id.0 as usize).map_or("\"?\"", String::as_str);
    for (key, dims) in [(",\"grid\":[", d.grid), (",\"block\":[", d.block)] {
        if let Some([x, y, z]) = dims {
            field(out, key, x.into())?;
            field(out, ",", y.into())?;
            field(out, ",", z.into())?;
            raw(out, "]")?;
        }
    }
    if let Some(registers) = d.registers_per_thread {
        field(out, ",\"registers per thread\":", registers.into())?;
    }
    if let Some(shared) = d.shared_memory_bytes {
        field(out, ",\"shared memory\":", shared)?;
    }
    if let Some(core) = d.core_type {
        write!(out, ",\"core type\":\"{}\"", core_type_name(core))?;
    }
    if let Some(block_dim) = d.block_dim {
        field(out, ",\"block dim\":", block_dim.into())?;
    }
    if let Some(shapes) = d.shapes {
        write!(out, ",\"shapes\":{}", name_of(shapes))?;
    }
    if let Some(bytes) = d.bytes {
        field(out, ",\"bytes\":", bytes)?;
    }
    if let Some(op_type) = d.op_type {
        write!(out, ",\"op type\":{}", name_of(op_type))?;
    }
    Ok(())
}

/// Kineto's category for a host span.
fn host_category(category: HostCategory) -> &'static str {
    match category {
        HostCategory::Runtime => "cuda_runtime",
        HostCategory::Driver => "cuda_driver",
        HostCategory::Framework => "cpu_op",
        HostCategory::Annotation => "user_annotation",
        HostCategory::Other => "host",
    }
}

fn host_span<W: Write>(span: &HostSpan, name: &str, w: &mut EventWriter<W>) -> io::Result<()> {
    w.begin()?;
    let out = &mut *w.out;
    raw(out, "{\"ph\":\"X\",\"cat\":\"")?;
    raw(out, host_category(span.category))?;
    raw(out, "\",\"name\":")?;
    raw(out, name)?;
    field(out, ",\"pid\":", span.pid.into())?;
    field(out, ",\"tid\":", span.tid)?;
    raw(out, ",\"ts\":")?;
    micros(out, span.start_ns)?;
    raw(out, ",\"dur\":")?;
    micros(out, span.dur_ns())?;
    match span.correlation.get() {
        Some(correlation) => {
            field(out, ",\"args\":{\"correlation\":", correlation)?;
            raw(out, "}}")
        }
        None => raw(out, "}"),
    }
}

/// One flow per device op whose correlation id matches a host span: launch → op. Flow ids are
/// the op's index, unique even where one launch started several ops.
fn flows<W: Write>(timeline: &Timeline, w: &mut EventWriter<W>) -> io::Result<()> {
    if timeline.host.is_empty() {
        return Ok(());
    }
    let launches: FxHashMap<u64, usize> = timeline.host_by_correlation();
    for (id, op) in timeline.ops.iter().enumerate() {
        let Some(span) = op.correlation.get().and_then(|c| launches.get(&c)).and_then(|&i| timeline.host.get(i)) else {
            continue;
        };
        for (phase, pid, tid, ts) in [
            ("{\"ph\":\"s\"", span.pid, span.tid, span.start_ns),
            ("{\"ph\":\"f\",\"bp\":\"e\"", op.device(), op.stream(), op.start_ns),
        ] {
            w.begin()?;
            raw(w.out, phase)?;
            field(w.out, ",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":", id as u64)?;
            field(w.out, ",\"pid\":", pid.into())?;
            field(w.out, ",\"tid\":", tid)?;
            raw(w.out, ",\"ts\":")?;
            micros(w.out, ts)?;
            raw(w.out, "}")?;
        }
    }
    Ok(())
}

/// Nanoseconds as microseconds with exactly three decimals (no float rounding).
fn micros(out: &mut impl Write, ns: u64) -> io::Result<()> {
    uint(out, ns / 1000)?;
    let frac = ns % 1000;
    out.write_all(&[b'.', b'0' + (frac / 100) as u8, b'0' + (frac / 10 % 10) as u8, b'0' + (frac % 10) as u8])
}

/// `text` as it is (already JSON).
fn raw(out: &mut impl Write, text: &str) -> io::Result<()> {
    out.write_all(text.as_bytes())
}

/// `prefix` then `value`.
fn field(out: &mut impl Write, prefix: &str, value: u64) -> io::Result<()> {
    raw(out, prefix)?;
    uint(out, value)
}

/// An unsigned integer in decimal, without the formatting machinery (this is the hot path).
fn uint(out: &mut impl Write, mut value: u64) -> io::Result<()> {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.write_all(&digits[at..])
}

/// `text` as a JSON string literal, quotes included.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
