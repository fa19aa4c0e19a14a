//! Import of PyTorch profiler (Kineto) Chrome traces, plain or gzip-compressed
//! (`*.pt.trace.json.gz`), into a [`Timeline`].
//!
//! The file is read in large chunks by a byte-level scanner that walks the top-level object
//! (its other keys, `deviceProperties`, `distributedInfo`, … may come before or after
//! `traceEvents`, and are skipped) and reads each event of `traceEvents`, picking the few
//! keys it needs; memory stays at the buffer plus the timeline. A top-level array of events
//! (the Chrome "array format") is read too.
//!
//! Only complete events (`"ph": "X"`) are imported, by `cat` (any case; PyTorch 1.8/1.9 wrote
//! `Kernel`, `Memcpy`, `Memset`, `Runtime`, `Operator` for the names below):
//! - `kernel` → [`OpKind::Kernel`] (a name containing `nccl` → [`OpKind::Communication`]),
//!   `gpu_memcpy` → [`OpKind::Memcpy`], `gpu_memset` → [`OpKind::Memset`]; device from
//!   `args.device` (else `pid`), stream from `args.stream` (else `tid`), correlation from
//!   `args.correlation`, grid/block/registers/shared memory from `args.grid`, `args.block`,
//!   `args."registers per thread"`, `args."shared memory"`, bytes from `args.bytes` (for NCCL
//!   kernels, `args."In msg nelems"` × the size of `args.dtype`; a kernel with
//!   `args."Collective name"` is a communication op whatever its name);
//! - `cuda_runtime` / `cuda_driver` → host [`HostCategory::Runtime`] / [`HostCategory::Driver`]
//!   (with `args.correlation`), `cpu_op` → [`HostCategory::Framework`], `user_annotation` →
//!   [`HostCategory::Annotation`]. A negative `tid` (Kineto prints some thread ids as
//!   negative 32-bit integers) is kept as its unsigned 32-bit value.
//!
//! Everything else (flows `ac2g`/`fwdbwd`, `cuda_sync`, `gpu_user_annotation`, `overhead`,
//! metadata) is skipped. `ts`/`dur` are microseconds written as decimals; they are converted
//! to integer nanoseconds from their digits, without float drift (a number written as a
//! string is read the same way). Events stay in file order (Kineto does not sort them).
//!
//! Bad input: an empty file, a file that is not a JSON object or array, a missing or
//! non-array `traceEvents`, or malformed JSON anywhere is an [`Error::Artifact`] with the
//! line and byte offset. A file cut short (or a gzip stream that ends early) **after at
//! least one complete event** gives a partial timeline: every event before the cut (the
//! event the cut falls in is dropped whole), with [`Timeline::partial`] saying where it
//! stopped; a file cut before its first complete event is an error. So is a file whose
//! complete events are all of categories prof does not read (an empty report would be wrong).

mod event;
mod inputs;
mod scan;
mod sniff;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod versions_tests;

use crate::cupti_trace::GZIP_MAGIC;
use event::{parse_event, Importer};
use prof_core::{Error, Result, Timeline};
#[cfg(doc)]
use prof_core::{HostCategory, OpKind};
use scan::{expect, peek, skip, string, ws, Stop};
pub use sniff::{distributed_rank, looks_like_torch_trace, torch_trace_evidence};
use std::fs::File;
use std::io::{ErrorKind, Read, Seek};
use std::path::Path;

/// Bytes read per chunk; the buffer grows when one event is larger.
const CHUNK: usize = 8 << 20;

/// The largest single JSON value (one event, or one top-level value that is skipped) the
/// reader holds: beyond it the file is refused, so a small crafted `.json.gz` that inflates
/// to one endless string cannot take gigabytes.
const MAX_VALUE_BYTES: usize = 64 << 20;

/// Loads the Kineto trace at `path` (gzip is recognised by its magic bytes).
pub fn load_torch_trace(path: &Path) -> Result<Timeline> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut magic = [0u8; 2];
    let gz = file.read_exact(&mut magic).is_ok() && magic == GZIP_MAGIC;
    file.rewind().map_err(|e| Error::io(path, e))?;
    if gz {
        read_torch_trace(flate2::read::MultiGzDecoder::new(std::io::BufReader::with_capacity(1 << 20, file)), path)
    } else {
        read_torch_trace(file, path)
    }
}

/// Reads until `buf` is full or the input ends; an error after some bytes ends the read.
pub(crate) fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(buf.get_mut(filled..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) if filled > 0 => break,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads a Kineto trace (uncompressed JSON) from `reader`; `path` names it in errors and
/// becomes the timeline's source.
pub fn read_torch_trace(reader: impl Read, path: &Path) -> Result<Timeline> {
    read_chunked(reader, path, CHUNK)
}

/// [`read_torch_trace`] with the first buffer `chunk` bytes long (tests use tiny ones).
fn read_chunked(reader: impl Read, path: &Path, chunk: usize) -> Result<Timeline> {
    let mut scanner = Scanner::new(reader, chunk.max(1));
    let mut timeline = Timeline::new(path.display().to_string());
    let mut importer = Importer::default();
    let read = scanner.document(&mut timeline, &mut importer);
    std::mem::take(&mut importer.calls).finish(&mut timeline);
    let mut unread: Vec<(String, u64)> =
        importer.unknown_categories.iter().filter(|(c, _)| !event::is_bookkeeping(c.as_bytes())).cloned().collect();
    unread.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    timeline.recorded_on = sniff::recorded_on(&scanner.device, &unread);
    timeline.unread = unread;
    match read {
        Ok(()) if timeline.ops.is_empty() && timeline.host.is_empty() && importer.unknown_complete > 0 => {
            // Complete events of categories prof does not know, and nothing else: reporting an
            // empty run would be a wrong answer.
            Err(Error::artifact(
                path,
                1,
                format!(
                    "holds {} complete events but none in a category prof reads (categories seen: {}); \
                     it reads kernel, gpu_memcpy, gpu_memset, cuda_runtime, cuda_driver, cpu_op and \
                     user_annotation, in any case, and the PyTorch 1.8/1.9 names Kernel, Memcpy, Memset, \
                     Runtime, Operator",
                    importer.unknown_complete,
                    importer.unknown_categories.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>().join(", ")
                ),
            ))
        }
        Ok(()) | Err(Fail::Full) => Ok(timeline),
        Err(Fail::Cut { at, inside_events, reason }) if scanner.events > 0 => {
            let (line, offset) = scanner.locate(at);
            let place = if inside_events { "inside traceEvents" } else { "after traceEvents" };
            timeline.partial = Some(format!(
                "{reason} at line {line} (byte offset {offset}) {place}; kept the {} complete events before it",
                scanner.events
            ));
            Ok(timeline)
        }
        Err(Fail::Cut { at, reason, .. }) => {
            let (line, offset) = scanner.locate(at);
            Err(Error::artifact(path, line, format!("byte offset {offset}: {reason} before any complete trace event")))
        }
        Err(Fail::Bad { at, reason }) => {
            let (line, offset) = scanner.locate(at);
            Err(Error::artifact(path, line, format!("byte offset {offset}: {reason}")))
        }
        Err(Fail::Io(e)) => Err(Error::io(path, e)),
    }
}

enum Fail {
    /// The memory budget is spent: the timeline says so and keeps what it holds.
    Full,
    Cut {
        at: usize,
        inside_events: bool,
        reason: &'static str,
    },
    Bad {
        at: usize,
        reason: String,
    },
    Io(std::io::Error),
}

/// Newlines in `bytes`, counted in 32 byte-wide lanes that the compiler vectorises (each lane
/// takes at most 255 blocks before it is added up, so it cannot overflow).
fn newlines(bytes: &[u8]) -> usize {
    let mut total = 0;
    for block in bytes.chunks(255 * 32) {
        let mut lanes = [0u8; 32];
        let mut chunks = block.chunks_exact(32);
        for chunk in &mut chunks {
            for (lane, &byte) in lanes.iter_mut().zip(chunk) {
                *lane += u8::from(byte == b'\n');
            }
        }
        total += lanes.iter().map(|&l| usize::from(l)).sum::<usize>();
        total += chunks.remainder().iter().filter(|&&b| b == b'\n').count();
    }
    total
}

/// The chunked reader and the walk over the document's structure.
struct Scanner<R> {
    reader: R,
    chunk: usize,
    buf: Vec<u8>,
    end: usize,
    eof: bool,
    gzip_cut: bool,
    base: u64,
    lines_before: usize,
    inside_events: bool,
    events: usize,
    max_value: usize,
    /// What the top-level keys say of the device (`deviceProperties` names, ROCm versions).
    device: sniff::DeviceKeys,
}

impl<R: Read> Scanner<R> {
    fn new(reader: R, chunk: usize) -> Self {
        Self {
            reader,
            chunk,
            buf: Vec::new(),
            end: 0,
            eof: false,
            gzip_cut: false,
            base: 0,
            lines_before: 0,
            inside_events: false,
            events: 0,
            max_value: MAX_VALUE_BYTES,
            device: sniff::DeviceKeys::default(),
        }
    }

    /// 1-based line and absolute byte offset of buffer position `at`.
    fn locate(&self, at: usize) -> (usize, u64) {
        let at = at.min(self.end);
        (self.lines_before + newlines(self.buf.get(..at).unwrap_or_default()) + 1, self.base + at as u64)
    }

    /// Drops `buf[..keep]` and reads more after what is left; false when nothing more came.
    fn refill(&mut self, keep: usize) -> Result<bool, Fail> {
        if self.eof {
            return Ok(false);
        }
        let keep = keep.min(self.end);
        self.lines_before += newlines(self.buf.get(..keep).unwrap_or_default());
        self.base += keep as u64;
        self.buf.copy_within(keep..self.end, 0);
        self.end -= keep;
        if self.buf.is_empty() || self.end * 2 > self.buf.len() {
            let target = (self.buf.len() * 2).max(self.chunk);
            if self.end >= self.max_value {
                let reason = format!("one JSON value runs past {} MiB: refused", self.max_value >> 20);
                return Err(Fail::Bad { at: 0, reason });
            }
            self.buf.resize(target.min(self.max_value.max(self.chunk) * 2), 0);
        }
        let before = self.end;
        while self.end < self.buf.len() {
            match self.reader.read(self.buf.get_mut(self.end..).unwrap_or_default()) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
                    self.eof = true;
                    self.gzip_cut = true;
                    break;
                }
                Err(e) => return Err(Fail::Io(e)),
            }
        }
        Ok(self.end > before)
    }

    /// Runs `f` on the buffer from `*pos`; while it needs more, reads more and retries.
    fn step<T>(
        &mut self,
        pos: &mut usize,
        mut f: impl FnMut(&[u8], usize) -> Result<(T, usize), Stop>,
    ) -> Result<T, Fail> {
        loop {
            match f(self.buf.get(..self.end).unwrap_or_default(), *pos) {
                Ok((value, next)) => {
                    *pos = next;
                    return Ok(value);
                }
                Err(Stop::Bad(at, reason)) => return Err(Fail::Bad { at, reason }),
                Err(Stop::More) => {
                    if !self.refill(*pos)? {
                        let reason = if self.gzip_cut { "the gzip stream ends early" } else { "the file ends" };
                        return Err(Fail::Cut { at: self.end, inside_events: self.inside_events, reason });
                    }
                    *pos = 0;
                }
            }
        }
    }

    fn document(&mut self, timeline: &mut Timeline, importer: &mut Importer) -> Result<(), Fail> {
        let mut pos = 0;
        let first = match self.step(&mut pos, |b, i| {
            let i = ws(b, i)?;
            Ok((peek(b, i)?, i))
        }) {
            Err(Fail::Cut { .. }) => {
                let reason = "the file is empty or blank (expected a JSON object with traceEvents)".into();
                return Err(Fail::Bad { at: self.end, reason });
            }
            other => other?,
        };
        match first {
            b'[' => self.events(&mut pos, timeline, importer)?,
            b'{' => self.object(&mut pos, timeline, importer)?,
            _ => {
                let reason = format!("expected a JSON object with traceEvents, found {}", scan::shown(&self.buf, pos));
                return Err(Fail::Bad { at: pos, reason });
            }
        }
        self.trailing(pos)
    }

    fn object(&mut self, pos: &mut usize, timeline: &mut Timeline, importer: &mut Importer) -> Result<(), Fail> {
        *pos += 1;
        let mut saw_events = false;
        let mut first = true;
        loop {
            let key = self.step(pos, |b, i| {
                let i = ws(b, i)?;
                if first && peek(b, i)? == b'}' {
                    return Ok((None, i + 1));
                }
                let (key, next) = string(b, i)?;
                let next = ws(b, expect(b, next, b':', "`:` after a key")?)?;
                Ok((Some(sniff::Key::of(key.raw)), next))
            })?;
            first = false;
            match key {
                None => break,
                Some(sniff::Key::Events) if saw_events => {
                    // JSON leaves duplicate keys undefined; reading both would double every op.
                    let reason = "a second traceEvents key: the trace is ambiguous (duplicate keys), refused".into();
                    return Err(Fail::Bad { at: *pos, reason });
                }
                Some(sniff::Key::Events) => {
                    self.events(pos, timeline, importer)?;
                    saw_events = true;
                }
                Some(sniff::Key::DeviceProperties) => {
                    let names = self.step(pos, |b, i| {
                        let end = skip(b, i)?;
                        Ok((sniff::device_names(b.get(i..end).unwrap_or_default()), end))
                    })?;
                    self.device.names = names;
                }
                Some(key) => {
                    self.device.rocm |= key == sniff::Key::Rocm;
                    self.step(pos, |b, i| Ok(((), skip(b, i)?)))?
                }
            }
            let done = self.step(pos, |b, i| {
                let i = ws(b, i)?;
                match peek(b, i)? {
                    b',' => Ok((false, i + 1)),
                    b'}' => Ok((true, i + 1)),
                    _ => scan::bad(
                        i,
                        format!("expected `,` or `}}` after a top-level value, found {}", scan::shown(b, i)),
                    ),
                }
            })?;
            if done {
                break;
            }
        }
        if saw_events {
            Ok(())
        } else {
            Err(Fail::Bad { at: *pos, reason: "the top-level object has no traceEvents".into() })
        }
    }

    fn events(&mut self, pos: &mut usize, timeline: &mut Timeline, importer: &mut Importer) -> Result<(), Fail> {
        self.step(pos, |b, i| {
            let i = ws(b, i)?;
            if peek(b, i)? == b'[' {
                Ok(((), i + 1))
            } else {
                scan::bad(i, format!("traceEvents is not an array: found {}", scan::shown(b, i)))
            }
        })?;
        self.inside_events = true;
        let mut done = self.step(pos, |b, i| {
            let i = ws(b, i)?;
            Ok(if peek(b, i)? == b']' { (true, i + 1) } else { (false, i) })
        })?;
        while !done {
            self.step(pos, |b, i| {
                let (event, next) = parse_event(b, i)?;
                importer.apply(&event, timeline).map_err(|reason| Stop::Bad(ws(b, i).unwrap_or(i), reason))?;
                Ok(((), next))
            })?;
            self.events += 1;
            if timeline.is_full() {
                return Err(Fail::Full);
            }
            done = self.step(pos, |b, i| {
                let i = ws(b, i)?;
                match peek(b, i)? {
                    b',' => Ok((false, i + 1)),
                    b']' => Ok((true, i + 1)),
                    _ => scan::bad(i, format!("expected `,` or `]` after an event, found {}", scan::shown(b, i))),
                }
            })?;
        }
        self.inside_events = false;
        Ok(())
    }

    fn trailing(&mut self, mut pos: usize) -> Result<(), Fail> {
        loop {
            match ws(self.buf.get(..self.end).unwrap_or_default(), pos) {
                Ok(at) => return Err(Fail::Bad { at, reason: "unexpected data after the top-level value".into() }),
                Err(_) if self.refill(pos)? => pos = 0,
                Err(_) => return Ok(()),
            }
        }
    }
}
