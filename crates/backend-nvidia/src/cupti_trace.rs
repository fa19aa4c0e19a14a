//! Loads the traces written by prof's built-in CUPTI tracer (`libprof_cupti.so`, crate
//! `prof-cupti-tracer`) into a [`Timeline`]: kernels with grid, block, registers and shared
//! memory; memory copies and sets with their bytes; runtime and driver API calls as host
//! spans; all linked by CUPTI's correlation id.
//!
//! The format (version 1) is specified, encoded and decoded in crate `prof-cupti-format`,
//! which the tracer writes with: a 32-byte header (`PROFCUPT`, version, pid, rank, local
//! rank, t0) and then records, each a tag byte and a fixed-size little-endian body. This
//! module turns the decoded records into the timeline; its tests build traces byte by byte
//! from the format table, and the recorded H200 traces are checked against a separate
//! Python walker, so a decoding mistake shared with the writer still fails a test.
//!
//! A file cut short (the process crashed, was killed, or left through `os._exit`) keeps what
//! is complete and marks the timeline [`Timeline::partial`]; garbage is an error naming the
//! file and the record. When several files are loaded, correlation ids are made unique per
//! file as `(file index << 32) | id`.

use crate::copy_names::CopyEnums;
use prof_core::{DeviceOp, Error, HostCategory, HostSpan, NameId, OpDetails, OpKind, Result, Timeline};
use prof_cupti_format::{
    domain, is_trace_file, read_record, tag, Api, Header, Kernel, MemoryOp, Record, FILE_EXTENSION, FILE_PREFIX,
    HEADER_LEN,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

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

/// The traces at `path`: the file itself, or the `prof-cupti-*.pcupti` files of a directory
/// in name order.
pub fn trace_files(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let entries = std::fs::read_dir(path).map_err(|e| Error::io(path, e))?;
    let mut files: Vec<PathBuf> =
        entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file() && is_trace_file(p)).collect();
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
        if timeline.is_full() {
            break;
        }
        let bytes = read_maybe_gzipped(file)?;
        let index = u32::try_from(index).map_err(|_| Error::Unsupported("too many CUPTI traces".to_owned()))?;
        let loaded = load_bytes(&bytes, file, index, &mut timeline)?;
        partial.extend(loaded.partial.map(|reason| format!("{}: {reason}", file.display())));
    }
    if !partial.is_empty() {
        partial.extend(timeline.partial.take());
        timeline.partial = Some(partial.join("; "));
    }
    Ok(timeline)
}

/// The gzip magic: a trace compressed with `gzip` (`.pcupti.gz`) is read through it.
pub use prof_timeline::sniff::GZIP_MAGIC;
/// A gzipped trace may not inflate beyond this many times its compressed size (plus 64 MiB):
/// a bomb is refused instead of filling memory. Real traces compress 4–6×.
const MAX_INFLATION: u64 = 64;

/// The bytes of one trace file, inflated when it is gzipped. The first bytes are checked
/// before the rest is read: a large file that is not a trace (zeros) is refused at once.
pub fn read_maybe_gzipped(file: &Path) -> Result<Vec<u8>> {
    let mut head = Vec::with_capacity(8);
    std::fs::File::open(file)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 8), &mut head))
        .map_err(|e| Error::io(file, e))?;
    if head.len() == 8 && head != prof_cupti_format::MAGIC && !head.starts_with(&GZIP_MAGIC) {
        return Err(Error::artifact(file, 0, "does not start with the prof CUPTI trace magic `PROFCUPT` (nor gzip)"));
    }
    let bytes = std::fs::read(file).map_err(|e| Error::io(file, e))?;
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok(bytes);
    }
    let limit = (bytes.len() as u64).saturating_mul(MAX_INFLATION).saturating_add(64 << 20);
    let mut out = Vec::new();
    let mut reader = std::io::Read::take(flate2::read::MultiGzDecoder::new(bytes.as_slice()), limit + 1);
    std::io::Read::read_to_end(&mut reader, &mut out)
        .map_err(|e| Error::artifact(file, 0, format!("is gzipped but does not inflate: {e}")))?;
    if out.len() as u64 > limit {
        return Err(Error::artifact(
            file,
            0,
            format!("inflates beyond {limit} bytes ({MAX_INFLATION}× its size): refused"),
        ));
    }
    Ok(out)
}

/// True when `file` is a gzipped prof CUPTI trace (its inflated first bytes are the magic).
pub fn is_gzipped_trace(file: &Path) -> bool {
    let Ok(f) = std::fs::File::open(file) else { return false };
    let mut head = [0u8; 8];
    let mut decoder = flate2::read::MultiGzDecoder::new(std::io::Read::take(f, 1 << 16));
    std::io::Read::read_exact(&mut decoder, &mut head).is_ok() && head == prof_cupti_format::MAGIC
}

/// What loading one file found besides its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedFile {
    /// The header.
    pub header: TraceHeader,
    /// Kernel, memcpy, memset and API records added.
    pub records: u64,
    /// Why the file is incomplete, if it is.
    pub partial: Option<String>,
}

/// Appends the records of one trace (`bytes`, read from `path`, the `index`-th file of a
/// load) to `timeline`.
pub fn load_bytes(bytes: &[u8], path: &Path, index: u32, timeline: &mut Timeline) -> Result<LoadedFile> {
    let header = Header::decode(bytes).map_err(|e| Error::artifact(path, 0, e.to_string()))?;
    let rank = |r: i32| u32::try_from(r).ok();
    let header =
        TraceHeader { pid: header.pid, rank: rank(header.rank), local_rank: rank(header.local_rank), t0: header.t0 };
    let mut reader =
        Reader { path, record: 0, names: HashMap::new(), api_names: HashMap::new(), corr_base: u64::from(index) << 32 };
    let mut pos = HEADER_LEN;
    let mut records = 0u64;
    let mut dropped = 0u64;
    let mut window_closed = false;
    let mut ended = false;
    let mut truncated = None;
    while pos < bytes.len() && !timeline.is_full() {
        reader.record += 1;
        if ended {
            return Err(reader.error(format!("data after the END record at byte {pos}")));
        }
        let Some((record, next)) = read_record(bytes, pos).map_err(|e| reader.error(e.to_string()))? else {
            truncated = Some(format!(
                "record {} ({}) at byte {pos} is cut short: the file ends at byte {}",
                reader.record,
                tag::name(bytes[pos]),
                bytes.len()
            ));
            break;
        };
        pos = next;
        match record {
            Record::String { id, text } => reader.string(id, text, timeline)?,
            Record::Kernel(kernel) => {
                let (op, details) = reader.kernel(&kernel)?;
                timeline.push_op_with(op, details);
            }
            Record::Memcpy(copy) => {
                let name = timeline.intern(&memcpy_name(copy.copy_kind, copy.src_kind, copy.dst_kind));
                let (op, details) = reader.memory_op(OpKind::Memcpy, name, &copy.op)?;
                timeline.push_op_with(op, details);
            }
            Record::Memset(set) => {
                let name = timeline.intern("CUDA memset");
                let (op, details) = reader.memory_op(OpKind::Memset, name, &set.op)?;
                timeline.push_op_with(op, details);
            }
            Record::Api(api) => {
                let span = reader.api(&api, timeline)?;
                timeline.push_host(span);
            }
            Record::Dropped(count) => dropped = dropped.saturating_add(count),
            Record::WindowEnd(_) => window_closed = true,
            Record::End { records: written, .. } => {
                if written != records {
                    return Err(
                        reader.error(format!("END says {written} records were written, the file holds {records}"))
                    );
                }
                ended = true;
            }
        }
        if matches!(record, Record::Kernel(_) | Record::Memcpy(_) | Record::Memset(_) | Record::Api(_)) {
            records += 1;
        }
    }
    let mut reasons: Vec<String> = truncated.into_iter().collect();
    if !ended && !window_closed && reasons.is_empty() && !timeline.is_full() {
        reasons.push(format!(
            "no END record after {records} records: the process stopped without flushing (crash, kill or os._exit)"
        ));
    }
    if dropped > 0 {
        reasons.push(format!("CUPTI dropped {dropped} records for lack of buffer space"));
    }
    Ok(LoadedFile { header, records, partial: (!reasons.is_empty()).then(|| reasons.join("; ")) })
}

/// Turns one file's decoded records into timeline entries: names, correlation ids, checks.
struct Reader<'a> {
    path: &'a Path,
    record: usize,
    names: HashMap<u32, NameId>,
    api_names: HashMap<NameId, NameId>,
    corr_base: u64,
}

impl Reader<'_> {
    fn error(&self, reason: String) -> Error {
        Error::artifact(self.path, self.record, reason)
    }

    fn string(&mut self, id: u32, text: &[u8], timeline: &mut Timeline) -> Result<()> {
        let name = timeline.intern(&String::from_utf8_lossy(text));
        if self.names.insert(id, name).is_some() {
            return Err(self.error(format!("string id {id} is defined twice")));
        }
        Ok(())
    }

    fn name(&self, id: u32) -> Result<NameId> {
        self.names.get(&id).copied().ok_or_else(|| self.error(format!("refers to string id {id}, never defined")))
    }

    /// Start and duration; an error when the record ends before it starts.
    fn times(&self, start: u64, end: u64) -> Result<(u64, u64)> {
        if end < start {
            return Err(self.error(format!("ends at {end} ns, before its start at {start} ns")));
        }
        Ok((start, end - start))
    }

    fn correlation(&self, id: u32) -> Option<u64> {
        (id != 0).then(|| self.corr_base | u64::from(id))
    }

    fn kernel(&self, k: &Kernel) -> Result<(DeviceOp, OpDetails)> {
        let (start, dur) = self.times(k.start, k.end)?;
        let dims = |values: [i32; 3]| -> Result<[u32; 3]> {
            let mut out = [0u32; 3];
            for (slot, v) in out.iter_mut().zip(values) {
                *slot = u32::try_from(v).map_err(|_| self.error(format!("negative launch dimension {v}")))?;
            }
            Ok(out)
        };
        let shared = |v: i32| u64::try_from(v).map_err(|_| self.error(format!("negative shared memory size {v}")));
        let mut op = DeviceOp::new(OpKind::Kernel, self.name(k.name)?, k.device, u64::from(k.stream), start, dur);
        op.correlation = self.correlation(k.correlation).into();
        let details = OpDetails {
            grid: Some(dims(k.grid)?),
            block: Some(dims(k.block)?),
            registers_per_thread: Some(u32::from(k.registers)),
            shared_memory_bytes: Some(shared(k.static_shared)? + shared(k.dynamic_shared)?),
            ..OpDetails::default()
        };
        Ok((op, details))
    }

    fn memory_op(&self, kind: OpKind, name: NameId, m: &MemoryOp) -> Result<(DeviceOp, OpDetails)> {
        let (start, dur) = self.times(m.start, m.end)?;
        let mut op = DeviceOp::new(kind, name, m.device, u64::from(m.stream), start, dur);
        op.correlation = self.correlation(m.correlation).into();
        Ok((op, OpDetails { bytes: Some(m.bytes), ..OpDetails::default() }))
    }

    fn api(&mut self, api: &Api, timeline: &mut Timeline) -> Result<HostSpan> {
        let (start, dur) = self.times(api.start, api.end)?;
        let category = match api.domain {
            domain::DRIVER => HostCategory::Driver,
            domain::RUNTIME => HostCategory::Runtime,
            other => return Err(self.error(format!("API domain {other} is neither driver (1) nor runtime (2)"))),
        };
        let raw = self.name(api.name)?;
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
        let correlation = self.correlation(api.correlation).into();
        Ok(HostSpan::new(name, category, (api.pid, u64::from(api.tid)), start, dur, correlation))
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

/// `CUDA memcpy HtoD` and so on, from `CUpti_ActivityMemcpyKind`; a copy from or to pageable
/// host memory says so as torch.profiler does (`CUDA memcpy HtoD (Pageable -> Device)`), with
/// the memory kinds of `CUpti_ActivityMemoryKind`.
fn memcpy_name(copy_kind: u8, src_kind: u8, dst_kind: u8) -> String {
    const CUPTI: CopyEnums = CopyEnums {
        kinds: &["Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"],
        memory: &["Unknown", "Pageable", "Pinned", "Device", "Array", "Managed", "Device", "Managed"],
        pageable: 1,
    };
    CUPTI.name(copy_kind.into(), src_kind.into(), dst_kind.into())
}

#[cfg(test)]
mod tests;
