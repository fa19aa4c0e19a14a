//! One trace event: the few keys the importer needs, picked from its object, then turned
//! into a [`DeviceOp`] or [`HostSpan`].

use super::inputs::{CallInputs, RawInputs};
use super::scan::{bad, expect, peek, scalar, skip, string, triple, ws, Lex, Scalar, Str};
use prof_core::{DeviceOp, HostCategory, HostSpan, NameId, OpDetails, OpKind, Timeline};
use std::borrow::Cow;

/// What an event's `cat` makes of it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    Device(OpKind),
    Host(HostCategory),
    Ignored,
}

/// The role of a `cat`. Kineto before PyTorch 1.10 wrote `Kernel`, `Memcpy`, `Memset`,
/// `Runtime` and `Operator`; case never matters.
fn role(cat: &[u8]) -> Role {
    let lower = |name: &[u8]| cat.eq_ignore_ascii_case(name);
    if lower(b"kernel") {
        Role::Device(OpKind::Kernel)
    } else if lower(b"gpu_memcpy") || lower(b"memcpy") {
        Role::Device(OpKind::Memcpy)
    } else if lower(b"gpu_memset") || lower(b"memset") {
        Role::Device(OpKind::Memset)
    } else if lower(b"cuda_runtime") || lower(b"runtime") {
        Role::Host(HostCategory::Runtime)
    } else if lower(b"cuda_driver") {
        Role::Host(HostCategory::Driver)
    } else if lower(b"cpu_op") || lower(b"operator") {
        Role::Host(HostCategory::Framework)
    } else if lower(b"user_annotation") {
        Role::Host(HostCategory::Annotation)
    } else {
        Role::Ignored
    }
}

/// True for Kineto's own categories that hold no work of the run's devices (its `Trace` span,
/// profiler overhead, Python frames, instant events, flows, annotations drawn on the device's
/// lanes, stream syncs): skipped on purpose, so not reported as unread.
pub(crate) fn is_bookkeeping(cat: &[u8]) -> bool {
    const SKIPPED: [&[u8]; 10] = [
        b"trace",
        b"overhead",
        b"python_function",
        b"cpu_instant_event",
        b"gpu_user_annotation",
        b"cuda_sync",
        b"cuda_profiler_range",
        b"ac2g",
        b"fwdbwd",
        b"(none)",
    ];
    SKIPPED.iter().any(|s| cat.eq_ignore_ascii_case(s))
}

/// True when `cat` is a category the importer reads.
pub(crate) fn is_known_category(cat: &[u8]) -> bool {
    role(cat) != Role::Ignored
}

/// True when `cat` is a category only a CUDA trace has (device work or CUDA API calls):
/// `cpu_op` and `user_annotation` alone are not enough (torch_npu writes them too).
pub(crate) fn is_cuda_category(cat: &[u8]) -> bool {
    matches!(role(cat), Role::Device(_) | Role::Host(HostCategory::Runtime | HostCategory::Driver))
}

#[derive(Debug, Default)]
struct Args<'a> {
    device: Option<Scalar<'a>>,
    stream: Option<Scalar<'a>>,
    correlation: Option<Scalar<'a>>,
    registers: Option<Scalar<'a>>,
    shared_memory: Option<Scalar<'a>>,
    bytes: Option<Scalar<'a>>,
    /// NCCL kernels: `"In msg nelems"` and `"dtype"` (PyTorch ≥ 2.1 copies the collective's
    /// `record_param_comms` metadata onto its kernel), whether `"Collective name"` is there and
    /// its text (`allreduce`, `_reduce_scatter_base`, …).
    in_msg_nelems: Option<Scalar<'a>>,
    dtype: Option<Str<'a>>,
    collective: bool,
    collective_name: Option<Str<'a>>,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    /// The op a kernel was launched by, or an op's own id (`External id`).
    external: Option<Scalar<'a>>,
    /// An op's recorded inputs (`record_shapes=True`).
    inputs: RawInputs<'a>,
}

/// The picked keys of one event, borrowing the buffer.
#[derive(Debug, Default)]
pub(crate) struct RawEvent<'a> {
    ph: Option<Str<'a>>,
    cat: Option<Str<'a>>,
    name: Option<Str<'a>>,
    pid: Option<Scalar<'a>>,
    tid: Option<Scalar<'a>>,
    ts: Option<Scalar<'a>>,
    dur: Option<Scalar<'a>>,
    args: Args<'a>,
}

/// Reads the event object starting at `i`.
pub(crate) fn parse_event(b: &[u8], i: usize) -> Lex<RawEvent<'_>> {
    let mut event = RawEvent::default();
    let mut j = expect(b, i, b'{', "`{` starting an event")?;
    if peek(b, ws(b, j)?)? == b'}' {
        return Ok((event, ws(b, j)? + 1));
    }
    loop {
        j = ws(b, j)?;
        let (key, next) = string(b, j)?;
        j = ws(b, expect(b, next, b':', "`:` after a key")?)?;
        j = match key.raw {
            b"ph" | b"cat" | b"name" => {
                let (value, next) = string(b, j)?;
                *match key.raw {
                    b"ph" => &mut event.ph,
                    b"cat" => &mut event.cat,
                    _ => &mut event.name,
                } = Some(value);
                next
            }
            b"pid" | b"tid" | b"ts" | b"dur" => {
                let (value, next) = scalar(b, j)?;
                *match key.raw {
                    b"pid" => &mut event.pid,
                    b"tid" => &mut event.tid,
                    b"ts" => &mut event.ts,
                    _ => &mut event.dur,
                } = value;
                next
            }
            b"args" if peek(b, j)? == b'{' && !event.cat.is_some_and(|c| role(c.raw) == Role::Ignored) => {
                let (args, next) = parse_args(b, j)?;
                event.args = args;
                next
            }
            _ => skip(b, j)?,
        };
        j = ws(b, j)?;
        match peek(b, j)? {
            b',' => j += 1,
            b'}' => return Ok((event, j + 1)),
            _ => return bad(j, format!("expected `,` or `}}` in an event, found {}", super::scan::shown(b, j))),
        }
    }
}

fn parse_args(b: &[u8], i: usize) -> Lex<Args<'_>> {
    let mut args = Args::default();
    let mut j = expect(b, i, b'{', "`{` starting args")?;
    if peek(b, ws(b, j)?)? == b'}' {
        return Ok((args, ws(b, j)? + 1));
    }
    loop {
        j = ws(b, j)?;
        let (key, next) = string(b, j)?;
        j = ws(b, expect(b, next, b':', "`:` after a key")?)?;
        let slot = match key.raw {
            b"device" => Some(&mut args.device),
            b"stream" => Some(&mut args.stream),
            b"correlation" => Some(&mut args.correlation),
            b"registers per thread" => Some(&mut args.registers),
            b"shared memory" => Some(&mut args.shared_memory),
            b"bytes" => Some(&mut args.bytes),
            // Optional metadata: only a plain number is taken; anything else is skipped.
            b"In msg nelems" if peek(b, j)?.is_ascii_digit() => Some(&mut args.in_msg_nelems),
            // PyTorch 1.9 wrote a kernel's link as `external id`.
            b"External id" | b"external id" if peek(b, j)?.is_ascii_digit() => Some(&mut args.external),
            _ => None,
        };
        j = match (slot, key.raw) {
            (Some(slot), _) => {
                let (value, next) = scalar(b, j)?;
                *slot = value;
                next
            }
            (None, b"dtype") if peek(b, j)? == b'"' => {
                let (value, next) = string(b, j)?;
                args.dtype = Some(value);
                next
            }
            (None, b"Collective name") if peek(b, j)? == b'"' => {
                let (value, next) = string(b, j)?;
                args.collective = true;
                args.collective_name = Some(value);
                next
            }
            (None, b"Input Dims" | b"Input type" | b"Concrete Inputs") if peek(b, j)? == b'[' => {
                let end = skip(b, j)?;
                let raw = b.get(j..end);
                match key.raw {
                    b"Input Dims" => args.inputs.dims = raw,
                    b"Input type" => args.inputs.types = raw,
                    _ => args.inputs.concrete = raw,
                }
                end
            }
            (None, b"Collective name") => {
                args.collective = true;
                skip(b, j)?
            }
            // Inductor's Triton launch records (cpu_op) write the launch grid as text
            // (`"grid": "grid(100,)"`): not a kernel's shape, skipped like any other argument.
            (None, b"grid" | b"block") if peek(b, j)? != b'[' => skip(b, j)?,
            (None, b"grid" | b"block") => {
                let (value, next) = triple(b, j)?;
                *if key.raw == b"grid" { &mut args.grid } else { &mut args.block } = Some(value);
                next
            }
            (None, _) => skip(b, j)?,
        };
        j = ws(b, j)?;
        match peek(b, j)? {
            b',' => j += 1,
            b'}' => return Ok((args, j + 1)),
            _ => return bad(j, format!("expected `,` or `}}` in args, found {}", super::scan::shown(b, j))),
        }
    }
}

/// Per-import state kept across events: which names are NCCL kernels.
#[derive(Debug, Default)]
pub(crate) struct Importer {
    nccl: Vec<u8>,
    /// Complete events of a category no role covers, and such categories with their counts
    /// (the first 16 distinct ones).
    pub(crate) unknown_complete: usize,
    pub(crate) unknown_categories: Vec<(String, u64)>,
    /// Ops' recorded inputs, joined to their kernels.
    pub(crate) calls: CallInputs,
}

impl Importer {
    /// Adds `event` to `timeline`; an error names the field at fault.
    pub(crate) fn apply(&mut self, event: &RawEvent<'_>, timeline: &mut Timeline) -> Result<(), String> {
        let role = event.cat.map_or(Role::Ignored, |c| role(c.raw));
        if event.ph.map(|p| p.raw) != Some(b"X") {
            return Ok(());
        }
        if role == Role::Ignored {
            self.unknown_complete += 1;
            let cat = event.cat.map_or(Cow::Borrowed("(none)"), |c| String::from_utf8_lossy(c.raw));
            let seen = self.unknown_categories.len();
            match self.unknown_categories.iter_mut().find(|(c, _)| *c == cat) {
                Some((_, n)) => *n += 1,
                None if seen < 16 => self.unknown_categories.push((cat.into_owned(), 1)),
                None => {}
            }
            return Ok(());
        }
        let name = event.name.ok_or("event without a `name`")?;
        let start = event.ts.and_then(|t| super::scan::micros_to_ns(t.text())).ok_or("`ts` missing or not a time")?;
        let dur = event.dur.and_then(|t| super::scan::micros_to_ns(t.text())).ok_or("`dur` missing or not a time")?;
        let name = timeline.intern(&decode(name)?);
        match role {
            Role::Device(kind) => {
                let args = &event.args;
                let collective = args.collective || self.is_nccl(name, timeline);
                let kind = if kind == OpKind::Kernel && collective { OpKind::Communication } else { kind };
                let device = uint(args.device.or(event.pid), "args.device")?.ok_or("device op without a device")?;
                let stream = uint(args.stream.or(event.tid), "args.stream")?.ok_or("device op without a stream")?;
                let device = u32::try_from(device).map_err(|_| "args.device out of range")?;
                let mut op = DeviceOp::new(kind, name, device, stream, start, dur);
                op.correlation = uint(args.correlation, "args.correlation")?.into();
                let registers = uint(args.registers, "args.registers per thread")?;
                let shared = uint(args.shared_memory, "args.shared memory")?;
                let bytes = match uint(args.bytes, "args.bytes")? {
                    Some(bytes) => Some(bytes),
                    None => message_bytes(uint(args.in_msg_nelems, "args.In msg nelems")?, args.dtype),
                };
                // The collective a communication kernel runs (its op type), as PyTorch names it.
                let op_type = match args.collective_name.filter(|_| kind == OpKind::Communication) {
                    Some(collective) => Some(timeline.intern(&decode(collective)?)),
                    None => None,
                };
                let pushed_at = timeline.ops.len();
                if args.grid.is_some()
                    || args.block.is_some()
                    || registers.is_some()
                    || shared.is_some()
                    || bytes.is_some()
                    || op_type.is_some()
                {
                    let details = OpDetails {
                        grid: args.grid,
                        block: args.block,
                        registers_per_thread: registers.and_then(|r| u32::try_from(r).ok()),
                        shared_memory_bytes: shared,
                        bytes,
                        op_type,
                        ..OpDetails::default()
                    };
                    timeline.push_op_with(op, details);
                } else {
                    timeline.push_op(op);
                }
                if kind == OpKind::Kernel && self.calls.any() && timeline.ops.len() > pushed_at {
                    if let Some(external) = uint(args.external, "args.External id")? {
                        self.calls.kernel(pushed_at, external);
                    }
                }
            }
            Role::Host(category) => {
                let pid =
                    uint(event.pid, "pid")?.and_then(|p| u32::try_from(p).ok()).ok_or("host span without a pid")?;
                let tid = thread_id(event.tid)?.ok_or("host span without a tid")?;
                let correlation = uint(event.args.correlation, "args.correlation")?;
                if category == HostCategory::Framework && event.args.inputs.dims.is_some() {
                    if let Some(external) = uint(event.args.external, "args.External id")? {
                        self.calls.op(timeline.name(name), external, event.args.inputs);
                    }
                }
                timeline.push_host(HostSpan::new(name, category, (pid, tid), start, dur, correlation.into()));
            }
            Role::Ignored => {}
        }
        Ok(())
    }

    fn is_nccl(&mut self, name: NameId, timeline: &Timeline) -> bool {
        let index = name.0 as usize;
        if self.nccl.len() <= index {
            self.nccl.resize(index + 1, 0);
        }
        let Some(state) = self.nccl.get_mut(index) else { return false };
        if *state == 0 {
            let found = timeline.name(name).as_bytes().windows(4).any(|w| w.eq_ignore_ascii_case(b"nccl"));
            *state = if found { 1 } else { 2 };
        }
        *state == 1
    }
}

fn uint(value: Option<Scalar<'_>>, field: &str) -> Result<Option<u64>, String> {
    match value {
        None => Ok(None),
        Some(v) => super::scan::parse_uint(v.text()).map(Some).ok_or_else(|| {
            format!("{field}: expected an unsigned integer, found `{}`", String::from_utf8_lossy(v.text()))
        }),
    }
}

/// A thread id; Kineto prints some as negative 32-bit integers (a truncated pthread id, as
/// in the HTA ResNet trace), kept here as their unsigned 32-bit value.
fn thread_id(value: Option<Scalar<'_>>) -> Result<Option<u64>, String> {
    let Some(negative) = value.and_then(|v| v.text().strip_prefix(b"-")) else { return uint(value, "tid") };
    match super::scan::parse_uint(negative).filter(|n| (1..=1 << 31).contains(n)) {
        Some(n) => Ok(Some((1u64 << 32) - n)),
        None => Err(format!("tid: expected a 32-bit integer, found `-{}`", String::from_utf8_lossy(negative))),
    }
}

/// The text of a JSON string, unescaped; invalid UTF-8 becomes U+FFFD.
/// Bytes of a collective's input message: element count × the size of PyTorch's scalar type
/// (c10 `ScalarType` names as the trace prints them); absent for a type not listed.
fn message_bytes(nelems: Option<u64>, dtype: Option<Str<'_>>) -> Option<u64> {
    let size: u64 = match dtype?.raw {
        b"Double" | b"Long" | b"ComplexFloat" => 8,
        b"Float" | b"Int" => 4,
        b"Half" | b"BFloat16" | b"Short" => 2,
        b"Byte" | b"Char" | b"Bool" | b"Float8_e4m3fn" | b"Float8_e5m2" | b"Float8_e4m3fnuz" | b"Float8_e5m2fnuz" => 1,
        b"ComplexDouble" => 16,
        _ => return None,
    };
    nelems?.checked_mul(size)
}

fn decode(s: Str<'_>) -> Result<Cow<'_, str>, String> {
    if !s.escaped {
        return Ok(std::str::from_utf8(s.raw).map_or_else(|_| String::from_utf8_lossy(s.raw), Cow::Borrowed));
    }
    let text = String::from_utf8_lossy(s.raw);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('/') => out.push('/'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let unit = u32::from_str_radix(&hex, 16).map_err(|_| format!("bad escape `\\u{hex}` in a string"))?;
                out.push(char::from_u32(unit).unwrap_or('\u{fffd}'));
            }
            other => return Err(format!("bad escape `\\{}` in a string", other.map_or(String::new(), String::from))),
        }
    }
    Ok(Cow::Owned(out))
}
