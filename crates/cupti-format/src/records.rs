//! The header and the records, with their encoding (the tracer's side) and decoding (the
//! loader's side) next to each other so the two cannot drift apart.

use crate::fields::{put_all, Field, Fields};
use crate::layout::{tag, MAGIC, MAX_STRING, VERSION};
use crate::FormatError;

/// Who wrote the file and when tracing started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Process id.
    pub pid: u32,
    /// `$RANK`, -1 when unset.
    pub rank: i32,
    /// `$LOCAL_RANK`, -1 when unset.
    pub local_rank: i32,
    /// CUPTI timestamp (ns) at injection.
    pub t0: u64,
}

/// One kernel execution.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Kernel {
    /// Start, CUPTI ns.
    pub start: u64,
    /// End, CUPTI ns.
    pub end: u64,
    /// CUDA device id.
    pub device: u32,
    /// CUDA context id.
    pub context: u32,
    /// CUDA stream id.
    pub stream: u32,
    /// Correlation id shared with the launching API call.
    pub correlation: u32,
    /// Name (STRING id).
    pub name: u32,
    /// Grid dimensions.
    pub grid: [i32; 3],
    /// Block dimensions.
    pub block: [i32; 3],
    /// Registers per thread.
    pub registers: u16,
    /// Static shared memory per block, bytes.
    pub static_shared: i32,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_shared: i32,
}

/// What a memory copy and a memory set have in common: the first 40 bytes of both records
/// (and the same fields at the same offsets in CUPTI's memcpy and memset activities).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryOp {
    /// Start, CUPTI ns.
    pub start: u64,
    /// End, CUPTI ns.
    pub end: u64,
    /// Bytes copied or set.
    pub bytes: u64,
    /// CUDA device id.
    pub device: u32,
    /// CUDA context id.
    pub context: u32,
    /// CUDA stream id.
    pub stream: u32,
    /// Correlation id.
    pub correlation: u32,
}

/// One memory copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memcpy {
    /// Where, when and how much.
    pub op: MemoryOp,
    /// `CUpti_ActivityMemcpyKind` (1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, ...).
    pub copy_kind: u8,
    /// `CUpti_ActivityMemoryKind` of the source.
    pub src_kind: u8,
    /// `CUpti_ActivityMemoryKind` of the destination.
    pub dst_kind: u8,
    /// `CUpti_ActivityFlag` bits (async or not).
    pub flags: u8,
}

/// One memory set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memset {
    /// Where, when and how much.
    pub op: MemoryOp,
    /// Value written.
    pub value: u32,
    /// `CUpti_ActivityMemoryKind` of the memory.
    pub memory_kind: u16,
    /// `CUpti_ActivityFlag` bits.
    pub flags: u16,
}

/// One runtime or driver API call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Api {
    /// Start, CUPTI ns.
    pub start: u64,
    /// End, CUPTI ns.
    pub end: u64,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Correlation id shared with the device work it launched.
    pub correlation: u32,
    /// CUPTI callback id of the function.
    pub cbid: u32,
    /// [`crate::domain::DRIVER`] or [`crate::domain::RUNTIME`].
    pub domain: u8,
    /// Name (STRING id).
    pub name: u32,
}

impl Header {
    /// Appends the 32-byte header.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&MAGIC);
        put_all(out, [VERSION, self.pid]);
        put_all(out, [self.rank, self.local_rank]);
        self.t0.put(out);
    }

    /// The header at the start of `file`: an error when the file is too short, lacks the
    /// magic or has another version.
    pub fn decode(file: &[u8]) -> Result<Self, FormatError> {
        let mut f = Fields::new(file);
        let fields = (|| {
            let (magic, version) = (f.take_array::<8>()?, f.take::<u32>()?);
            Some((magic, version, Self { pid: f.take()?, rank: f.take()?, local_rank: f.take()?, t0: f.take()? }))
        })();
        let Some((magic, version, header)) = fields else { return Err(FormatError::ShortHeader { len: file.len() }) };
        if magic != MAGIC {
            return Err(FormatError::NoMagic);
        }
        if version != VERSION {
            return Err(FormatError::Version(version));
        }
        Ok(header)
    }
}

/// Appends a STRING record.
pub fn encode_string(out: &mut Vec<u8>, id: u32, text: &str) {
    out.push(tag::STRING);
    put_all(out, [id, text.len() as u32]);
    out.extend_from_slice(text.as_bytes());
}

impl Kernel {
    /// Appends the KERNEL record.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(tag::KERNEL);
        put_all(out, [self.start, self.end]);
        put_all(out, [self.device, self.context, self.stream, self.correlation, self.name]);
        put_all(out, self.grid.into_iter().chain(self.block));
        put_all(out, [self.registers, 0]);
        put_all(out, [self.static_shared, self.dynamic_shared]);
    }

    /// Decodes a KERNEL body; `None` when it is cut short.
    pub(crate) fn decode(f: &mut Fields<'_>) -> Option<Self> {
        let (start, end) = (f.take()?, f.take()?);
        let (device, context, stream, correlation, name) = (f.take()?, f.take()?, f.take()?, f.take()?, f.take()?);
        let (grid, block, registers, _zero) = (f.take3()?, f.take3()?, f.take()?, f.take::<u16>()?);
        let (static_shared, dynamic_shared) = (f.take()?, f.take()?);
        Some(Self {
            start,
            end,
            device,
            context,
            stream,
            correlation,
            name,
            grid,
            block,
            registers,
            static_shared,
            dynamic_shared,
        })
    }
}

impl MemoryOp {
    fn encode(&self, out: &mut Vec<u8>) {
        put_all(out, [self.start, self.end, self.bytes]);
        put_all(out, [self.device, self.context, self.stream, self.correlation]);
    }

    fn decode(f: &mut Fields<'_>) -> Option<Self> {
        let (start, end, bytes) = (f.take()?, f.take()?, f.take()?);
        Some(Self {
            start,
            end,
            bytes,
            device: f.take()?,
            context: f.take()?,
            stream: f.take()?,
            correlation: f.take()?,
        })
    }
}

impl Memcpy {
    /// Appends the MEMCPY record.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(tag::MEMCPY);
        self.op.encode(out);
        out.extend_from_slice(&[self.copy_kind, self.src_kind, self.dst_kind, self.flags]);
        0u32.put(out);
    }

    /// Decodes a MEMCPY body; `None` when it is cut short.
    pub(crate) fn decode(f: &mut Fields<'_>) -> Option<Self> {
        let op = MemoryOp::decode(f)?;
        let [copy_kind, src_kind, dst_kind, flags] = f.take_array()?;
        f.take::<u32>()?;
        Some(Self { op, copy_kind, src_kind, dst_kind, flags })
    }
}

impl Memset {
    /// Appends the MEMSET record.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(tag::MEMSET);
        self.op.encode(out);
        self.value.put(out);
        put_all(out, [self.memory_kind, self.flags]);
    }

    /// Decodes a MEMSET body; `None` when it is cut short.
    pub(crate) fn decode(f: &mut Fields<'_>) -> Option<Self> {
        let op = MemoryOp::decode(f)?;
        Some(Self { op, value: f.take()?, memory_kind: f.take()?, flags: f.take()? })
    }
}

impl Api {
    /// Appends the API record.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(tag::API);
        put_all(out, [self.start, self.end]);
        put_all(out, [self.pid, self.tid, self.correlation, self.cbid]);
        out.extend_from_slice(&[self.domain, 0, 0, 0]);
        self.name.put(out);
    }

    /// Decodes an API body; `None` when it is cut short.
    pub(crate) fn decode(f: &mut Fields<'_>) -> Option<Self> {
        let (start, end) = (f.take()?, f.take()?);
        let (pid, tid, correlation, cbid) = (f.take()?, f.take()?, f.take()?, f.take()?);
        let [domain, _, _, _] = f.take_array()?;
        Some(Self { start, end, pid, tid, correlation, cbid, domain, name: f.take()? })
    }
}

/// Appends a record made of a tag and one u64 (DROPPED, WINDOW_END).
pub fn encode_u64_record(out: &mut Vec<u8>, record_tag: u8, value: u64) {
    out.push(record_tag);
    value.put(out);
}

/// Appends the END record.
pub fn encode_end(out: &mut Vec<u8>, records: u64, untimed: u64) {
    out.push(tag::END);
    put_all(out, [records, untimed]);
}

/// `text` cut to at most [`MAX_STRING`] bytes at a character boundary.
pub fn clip(text: &str) -> &str {
    if text.len() <= MAX_STRING {
        return text;
    }
    let mut end = MAX_STRING;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
