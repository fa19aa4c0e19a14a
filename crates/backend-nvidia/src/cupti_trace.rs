//! Loads the traces written by prof's built-in CUPTI tracer (`libprof_cupti.so`, crate
//! `prof-cupti-tracer`) into a [`Timeline`]: kernels with grid, block, registers and shared
//! memory; memory copies and sets with their bytes; runtime and driver API calls as host
//! spans; all linked by CUPTI's correlation id.
//!
//! The format (version 1) is specified in `prof_cupti::format`: a 32-byte header
//! (`PROFCUPT`, version, pid, rank, local rank, t0) and then records, each a tag byte and a
//! fixed-size little-endian body (STRING 8+len, KERNEL 72, MEMCPY 48, MEMSET 48, API 40,
//! DROPPED 8, WINDOW_END 8, END 16). This reader is written separately from that writer, so
//! the round-trip tests check one against the other.
//!
//! A file cut short (the process crashed, was killed, or left through `os._exit`) keeps what
//! is complete and marks the timeline [`Timeline::partial`]; garbage is an error naming the
//! file and the record. When several files are loaded, correlation ids are made unique per
//! file as `(file index << 32) | id`.

use prof_core::{DeviceOp, Error, HostCategory, HostSpan, NameId, OpKind, Result, Timeline};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// First 8 bytes of a trace.
pub const MAGIC: [u8; 8] = *b"PROFCUPT";
/// The format version this reader understands.
pub const VERSION: u32 = 1;
/// Header size.
pub const HEADER_LEN: usize = 32;
/// Body size of a KERNEL record; a trace with one kernel is at least this plus the header.
pub const KERNEL_BODY: usize = 72;
/// File name prefix of traces.
pub const FILE_PREFIX: &str = "prof-cupti-";
/// File name extension of traces.
pub const FILE_EXTENSION: &str = "pcupti";
/// The longest STRING accepted; the writer stores at most 64 KiB.
const MAX_STRING: usize = 1 << 20;

const STRING: u8 = 1;
const KERNEL: u8 = 2;
const MEMCPY: u8 = 3;
const MEMSET: u8 = 4;
const API: u8 = 5;
const DROPPED: u8 = 6;
const WINDOW_END: u8 = 7;
const END: u8 = 8;

/// What the header of a trace says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceHeader {
    /// The traced process.
    pub pid: u32,
    /// `$RANK`, if it was set.
    pub rank: Option<u32>,
    /// `$LOCAL_RANK`, if it was set.
    pub local_rank: Option<u32>,
    /// CUPTI timestamp (ns) when tracing started.
    pub t0: u64,
}

/// True when `path` is named like a trace (`prof-cupti-*.pcupti`).
pub fn is_trace_file_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(FILE_PREFIX) && Path::new(n).extension().is_some_and(|e| e == FILE_EXTENSION))
}

/// The traces at `path`: the file itself, or the `prof-cupti-*.pcupti` files of a directory
/// in name order.
pub fn trace_files(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let entries = std::fs::read_dir(path).map_err(|e| Error::io(path, e))?;
    let mut files: Vec<PathBuf> =
        entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file() && is_trace_file_name(p)).collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::ArtifactInvalid {
            path: path.to_owned(),
            reason: format!("holds no {FILE_PREFIX}*.{FILE_EXTENSION} trace"),
        });
    }
    Ok(files)
}

/// Loads every trace at `paths` (files or directories of traces) into one timeline.
pub fn load_paths(paths: &[PathBuf]) -> Result<Timeline> {
    let mut files = Vec::new();
    for path in paths {
        files.extend(trace_files(path)?);
    }
    let source = match files.as_slice() {
        [] => return Err(Error::Unsupported("no CUPTI trace given".to_owned())),
        [one] => one.display().to_string(),
        [first, rest @ ..] => format!("{} and {} more CUPTI traces", first.display(), rest.len()),
    };
    let mut timeline = Timeline::new(source);
    let mut partial = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let bytes = std::fs::read(file).map_err(|e| Error::io(file, e))?;
        let index = u32::try_from(index).map_err(|_| Error::Unsupported("too many CUPTI traces".to_owned()))?;
        let loaded = load_bytes(&bytes, file, index, &mut timeline)?;
        partial.extend(loaded.partial.map(|reason| format!("{}: {reason}", file.display())));
    }
    if !partial.is_empty() {
        timeline.partial = Some(partial.join("; "));
    }
    Ok(timeline)
}

/// What loading one file found besides its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The header.
    pub header: TraceHeader,
    /// Kernel, memcpy, memset and API records added.
    pub records: u64,
    /// Why the file is incomplete, if it is.
    pub partial: Option<String>,
}

/// Appends the records of one trace (`bytes`, read from `path`, the `index`-th file of a
/// load) to `timeline`.
pub fn load_bytes(bytes: &[u8], path: &Path, index: u32, timeline: &mut Timeline) -> Result<Loaded> {
    let header = read_header(bytes, path)?;
    let mut reader = Reader {
        bytes,
        path,
        pos: HEADER_LEN,
        record: 0,
        names: HashMap::new(),
        api_names: HashMap::new(),
        corr_base: u64::from(index) << 32,
    };
    let mut records = 0u64;
    let mut dropped = 0u64;
    let mut window_closed = false;
    let mut ended = false;
    let mut truncated = None;
    while reader.pos < bytes.len() {
        reader.record += 1;
        if ended {
            return Err(reader.error(format!("data after the END record at byte {}", reader.pos)));
        }
        let start = reader.pos;
        let tag = bytes[start];
        let Some(body) = reader.body(tag)? else {
            truncated = Some(format!(
                "record {} ({}) at byte {start} is cut short: the file ends at byte {}",
                reader.record,
                tag_name(tag),
                bytes.len()
            ));
            break;
        };
        match tag {
            STRING => reader.string(body, timeline)?,
            KERNEL => {
                let op = reader.kernel(body)?;
                timeline.push_op(op);
                records += 1;
            }
            MEMCPY | MEMSET => {
                let op = reader.copy_or_set(tag, body, timeline)?;
                timeline.push_op(op);
                records += 1;
            }
            API => {
                let span = reader.api(body, timeline)?;
                timeline.host.push(span);
                records += 1;
            }
            DROPPED => dropped = dropped.saturating_add(u64_at(body, 0)),
            WINDOW_END => window_closed = true,
            _ => {
                let written = u64_at(body, 0);
                if written != records {
                    return Err(
                        reader.error(format!("END says {written} records were written, the file holds {records}"))
                    );
                }
                ended = true;
            }
        }
    }
    let mut reasons: Vec<String> = truncated.into_iter().collect();
    if !ended && !window_closed && reasons.is_empty() {
        reasons.push(format!(
            "no END record after {records} records: the process stopped without flushing (crash, kill or os._exit)"
        ));
    }
    if dropped > 0 {
        reasons.push(format!("CUPTI dropped {dropped} records for lack of buffer space"));
    }
    Ok(Loaded { header, records, partial: (!reasons.is_empty()).then(|| reasons.join("; ")) })
}

fn read_header(bytes: &[u8], path: &Path) -> Result<TraceHeader> {
    if bytes.len() < HEADER_LEN {
        return Err(Error::artifact(
            path,
            0,
            format!("is {} bytes, shorter than the {HEADER_LEN}-byte prof-cupti header", bytes.len()),
        ));
    }
    if bytes[..8] != MAGIC {
        return Err(Error::artifact(path, 0, "is not a prof-cupti trace (no PROFCUPT magic)"));
    }
    let version = u32_at(bytes, 8);
    if version != VERSION {
        return Err(Error::artifact(
            path,
            0,
            format!("is prof-cupti format version {version}; this prof reads {VERSION}"),
        ));
    }
    let rank = |off| u32::try_from(u32_at(bytes, off) as i32).ok();
    Ok(TraceHeader { pid: u32_at(bytes, 12), rank: rank(16), local_rank: rank(20), t0: u64_at(bytes, 24) })
}

fn tag_name(tag: u8) -> &'static str {
    const NAMES: [&str; 9] = ["unknown", "string", "kernel", "memcpy", "memset", "api", "dropped", "window end", "end"];
    NAMES.get(usize::from(tag)).copied().unwrap_or("unknown")
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap_or([0; 8]))
}

/// Walks one file's records. Bodies are sliced to full size first, so field offsets are in bounds.
struct Reader<'a> {
    bytes: &'a [u8],
    path: &'a Path,
    pos: usize,
    record: usize,
    names: HashMap<u32, NameId>,
    api_names: HashMap<NameId, NameId>,
    corr_base: u64,
}

impl<'a> Reader<'a> {
    fn error(&self, reason: String) -> Error {
        Error::artifact(self.path, self.record, reason)
    }

    /// The body of the record whose tag is at `pos` (advancing past it), `None` when the
    /// file ends inside it, an error for an unknown tag or an impossible length.
    fn body(&mut self, tag: u8) -> Result<Option<&'a [u8]>> {
        let start = self.pos + 1;
        let len = match tag {
            STRING => {
                let Some(head) = self.bytes.get(start..start + 8) else { return Ok(None) };
                let len = u32_at(head, 4) as usize;
                if len > MAX_STRING {
                    return Err(self.error(format!("string of {len} bytes at byte {} is not a kernel name", self.pos)));
                }
                8 + len
            }
            KERNEL => KERNEL_BODY,
            MEMCPY | MEMSET => 48,
            API => 40,
            DROPPED | WINDOW_END => 8,
            END => 16,
            other => {
                return Err(self.error(format!(
                    "unknown record tag 0x{other:02x} at byte {}: not a prof-cupti trace or corrupted",
                    self.pos
                )))
            }
        };
        let Some(body) = self.bytes.get(start..start + len) else { return Ok(None) };
        self.pos = start + len;
        Ok(Some(body))
    }

    fn string(&mut self, body: &[u8], timeline: &mut Timeline) -> Result<()> {
        let id = u32_at(body, 0);
        let text = String::from_utf8_lossy(&body[8..]);
        let name = timeline.intern(&text);
        if self.names.insert(id, name).is_some() {
            return Err(self.error(format!("string id {id} is defined twice")));
        }
        Ok(())
    }

    fn name(&self, id: u32) -> Result<NameId> {
        self.names.get(&id).copied().ok_or_else(|| self.error(format!("refers to string id {id}, never defined")))
    }

    fn times(&self, body: &[u8]) -> Result<(u64, u64)> {
        let (start, end) = (u64_at(body, 0), u64_at(body, 8));
        if end < start {
            return Err(self.error(format!("ends at {end} ns, before its start at {start} ns")));
        }
        Ok((start, end - start))
    }

    fn correlation(&self, id: u32) -> Option<u64> {
        (id != 0).then(|| self.corr_base | u64::from(id))
    }

    fn kernel(&self, body: &[u8]) -> Result<DeviceOp> {
        let (start, dur) = self.times(body)?;
        let dims = |off: usize| -> Result<[u32; 3]> {
            let mut out = [0u32; 3];
            for (i, slot) in out.iter_mut().enumerate() {
                let v = u32_at(body, off + 4 * i) as i32;
                *slot = u32::try_from(v).map_err(|_| self.error(format!("negative launch dimension {v}")))?;
            }
            Ok(out)
        };
        let shared = |off: usize| -> Result<u64> {
            let v = u32_at(body, off) as i32;
            u64::try_from(v).map_err(|_| self.error(format!("negative shared memory size {v}")))
        };
        let mut op = DeviceOp::new(OpKind::Kernel, self.name(u32_at(body, 32))?, u32_at(body, 16), 0, start, dur);
        op.stream = u64::from(u32_at(body, 24));
        op.correlation = self.correlation(u32_at(body, 28));
        let details = op.details_mut();
        details.grid = Some(dims(36)?);
        details.block = Some(dims(48)?);
        details.registers_per_thread = Some(u32::from(u16_at(body, 60)));
        details.shared_memory_bytes = Some(shared(64)? + shared(68)?);
        Ok(op)
    }

    fn copy_or_set(&self, tag: u8, body: &[u8], timeline: &mut Timeline) -> Result<DeviceOp> {
        let (start, dur) = self.times(body)?;
        let (kind, name) = if tag == MEMCPY {
            (OpKind::Memcpy, timeline.intern(&memcpy_name(body[40])))
        } else {
            (OpKind::Memset, timeline.intern("CUDA memset"))
        };
        let mut op = DeviceOp::new(kind, name, u32_at(body, 24), u64::from(u32_at(body, 32)), start, dur);
        op.correlation = self.correlation(u32_at(body, 36));
        op.details_mut().bytes = Some(u64_at(body, 16));
        Ok(op)
    }

    fn api(&mut self, body: &[u8], timeline: &mut Timeline) -> Result<HostSpan> {
        let (start, dur) = self.times(body)?;
        let category = match body[32] {
            1 => HostCategory::Driver,
            2 => HostCategory::Runtime,
            other => return Err(self.error(format!("API domain {other} is neither driver (1) nor runtime (2)"))),
        };
        let raw = self.name(u32_at(body, 36))?;
        let name = match category {
            HostCategory::Runtime => match self.api_names.get(&raw) {
                Some(&name) => name,
                None => {
                    let plain = strip_runtime_version(timeline.name(raw)).to_owned();
                    let name = timeline.intern(&plain);
                    self.api_names.insert(raw, name);
                    name
                }
            },
            _ => raw,
        };
        Ok(HostSpan {
            name,
            category,
            pid: u32_at(body, 16),
            tid: u64::from(u32_at(body, 20)),
            start_ns: start,
            dur_ns: dur,
            correlation: self.correlation(u32_at(body, 24)),
        })
    }
}

/// CUPTI names runtime calls with their version (`cudaLaunchKernel_v7000`); the timeline
/// uses the function's name (`cudaLaunchKernel`). Driver names (`cuMemcpyHtoD_v2`) are real
/// symbol names and are kept.
pub fn strip_runtime_version(name: &str) -> &str {
    match name.rsplit_once("_v") {
        Some((base, version)) if version.len() >= 4 && version.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

/// `CUDA memcpy HtoD` and so on, from `CUpti_ActivityMemcpyKind`.
fn memcpy_name(copy_kind: u8) -> String {
    const KINDS: [&str; 11] =
        ["Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"];
    match KINDS.get(usize::from(copy_kind)) {
        Some(kind) => format!("CUDA memcpy {kind}"),
        None => format!("CUDA memcpy kind {copy_kind}"),
    }
}

#[cfg(test)]
#[path = "cupti_trace_tests.rs"]
mod tests;
