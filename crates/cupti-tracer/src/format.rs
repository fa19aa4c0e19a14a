//! The trace file the tracer writes: one file per process, little-endian binary.
//!
//! ```text
//! header, 32 bytes
//!   0  magic        8 bytes  b"PROFCUPT"
//!   8  version      u32      1
//!  12  pid          u32
//!  16  rank         i32      $RANK, -1 when unset
//!  20  local_rank   i32      $LOCAL_RANK, -1 when unset
//!  24  t0           u64      CUPTI timestamp (ns) when the tracer started
//! records, each a 1-byte tag followed by a body of a fixed size per tag
//!   1 STRING      u32 id, u32 len, len bytes of UTF-8        (8 + len)
//!   2 KERNEL      u64 start, u64 end, u32 device, u32 context, u32 stream,
//!                 u32 correlation, u32 name, i32 grid[3], i32 block[3],
//!                 u16 registers, u16 0, i32 static_shared, i32 dynamic_shared   (72)
//!   3 MEMCPY      u64 start, u64 end, u64 bytes, u32 device, u32 context, u32 stream,
//!                 u32 correlation, u8 copy_kind, u8 src_kind, u8 dst_kind, u8 flags, u32 0   (48)
//!   4 MEMSET      u64 start, u64 end, u64 bytes, u32 device, u32 context, u32 stream,
//!                 u32 correlation, u32 value, u16 memory_kind, u16 flags         (48)
//!   5 API         u64 start, u64 end, u32 pid, u32 tid, u32 correlation, u32 cbid,
//!                 u8 domain (1 driver, 2 runtime), u8[3] 0, u32 name               (40)
//!   6 DROPPED     u64 count: records CUPTI dropped for lack of buffer space        (8)
//!   7 WINDOW_END  u64 t: the capture window closed; nothing later is recorded      (8)
//!   8 END         u64 records (KERNEL+MEMCPY+MEMSET+API written), u64 untimed     (16)
//! ```
//!
//! Times are CUPTI timestamps in nanoseconds. A `name` is the id of an earlier STRING
//! record. END is written only by a clean exit, so a file without END (and without
//! WINDOW_END) was cut short; a reader keeps what is complete. Correlation 0 means none.

/// First 8 bytes of every trace file.
pub const MAGIC: [u8; 8] = *b"PROFCUPT";
/// Format version written in the header.
pub const VERSION: u32 = 1;
/// Size of the file header in bytes.
pub const HEADER_LEN: usize = 32;
/// File name prefix of per-process traces (`prof-cupti-<pid>[-rank<R>][-local<L>].pcupti`).
pub const FILE_PREFIX: &str = "prof-cupti-";
/// File name extension of traces.
pub const FILE_EXTENSION: &str = "pcupti";
/// Longest string the writer stores; longer names are cut at a character boundary.
pub const MAX_STRING: usize = 64 * 1024;

/// Record tags.
pub mod tag {
    /// An interned string.
    pub const STRING: u8 = 1;
    /// A kernel execution.
    pub const KERNEL: u8 = 2;
    /// A memory copy.
    pub const MEMCPY: u8 = 3;
    /// A memory set.
    pub const MEMSET: u8 = 4;
    /// A runtime or driver API call.
    pub const API: u8 = 5;
    /// Records CUPTI dropped.
    pub const DROPPED: u8 = 6;
    /// The capture window closed.
    pub const WINDOW_END: u8 = 7;
    /// Clean end of the trace.
    pub const END: u8 = 8;
}

/// Body sizes (after the tag byte) of the fixed-size records.
pub mod body {
    /// STRING header (id, len) before the bytes.
    pub const STRING_HEAD: usize = 8;
    /// KERNEL.
    pub const KERNEL: usize = 72;
    /// MEMCPY.
    pub const MEMCPY: usize = 48;
    /// MEMSET.
    pub const MEMSET: usize = 48;
    /// API.
    pub const API: usize = 40;
    /// DROPPED.
    pub const DROPPED: usize = 8;
    /// WINDOW_END.
    pub const WINDOW_END: usize = 8;
    /// END.
    pub const END: usize = 16;
}

/// The API layer of an [`Api`] record, numbered as CUPTI's `CUpti_CallbackDomain`.
pub mod domain {
    /// `CUPTI_CB_DOMAIN_DRIVER_API`.
    pub const DRIVER: u8 = 1;
    /// `CUPTI_CB_DOMAIN_RUNTIME_API`.
    pub const RUNTIME: u8 = 2;
}

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

/// One memory copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memcpy {
    /// Start, CUPTI ns.
    pub start: u64,
    /// End, CUPTI ns.
    pub end: u64,
    /// Bytes copied.
    pub bytes: u64,
    /// CUDA device id.
    pub device: u32,
    /// CUDA context id.
    pub context: u32,
    /// CUDA stream id.
    pub stream: u32,
    /// Correlation id.
    pub correlation: u32,
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
    /// Start, CUPTI ns.
    pub start: u64,
    /// End, CUPTI ns.
    pub end: u64,
    /// Bytes set.
    pub bytes: u64,
    /// CUDA device id.
    pub device: u32,
    /// CUDA context id.
    pub context: u32,
    /// CUDA stream id.
    pub stream: u32,
    /// Correlation id.
    pub correlation: u32,
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
    /// [`domain::DRIVER`] or [`domain::RUNTIME`].
    pub domain: u8,
    /// Name (STRING id).
    pub name: u32,
}

fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

impl Header {
    /// Appends the 32-byte header.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&MAGIC);
        put_u32(out, VERSION);
        put_u32(out, self.pid);
        put_i32(out, self.rank);
        put_i32(out, self.local_rank);
        put_u64(out, self.t0);
    }
}

/// Appends a STRING record.
pub fn encode_string(out: &mut Vec<u8>, id: u32, text: &str) {
    out.push(tag::STRING);
    put_u32(out, id);
    put_u32(out, text.len() as u32);
    out.extend_from_slice(text.as_bytes());
}

impl Kernel {
    /// Appends the KERNEL record.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(tag::KERNEL);
        put_u64(out, self.start);
        put_u64(out, self.end);
        for v in [self.device, self.context, self.stream, self.correlation, self.name] {
            put_u32(out, v);
        }
        for v in self.grid.iter().chain(&self.block) {
            put_i32(out, *v);
        }
        put_u16(out, self.registers);
        put_u16(out, 0);
        put_i32(out, self.static_shared);
        put_i32(out, self.dynamic_shared);
    }
}

impl Memcpy {
    /// Appends the MEMCPY record.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(tag::MEMCPY);
        for v in [self.start, self.end, self.bytes] {
            put_u64(out, v);
        }
        for v in [self.device, self.context, self.stream, self.correlation] {
            put_u32(out, v);
        }
        out.extend_from_slice(&[self.copy_kind, self.src_kind, self.dst_kind, self.flags]);
        put_u32(out, 0);
    }
}

impl Memset {
    /// Appends the MEMSET record.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(tag::MEMSET);
        for v in [self.start, self.end, self.bytes] {
            put_u64(out, v);
        }
        for v in [self.device, self.context, self.stream, self.correlation, self.value] {
            put_u32(out, v);
        }
        put_u16(out, self.memory_kind);
        put_u16(out, self.flags);
    }
}

impl Api {
    /// Appends the API record.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(tag::API);
        put_u64(out, self.start);
        put_u64(out, self.end);
        for v in [self.pid, self.tid, self.correlation, self.cbid] {
            put_u32(out, v);
        }
        out.extend_from_slice(&[self.domain, 0, 0, 0]);
        put_u32(out, self.name);
    }
}

/// Appends a record made of a tag and one u64 (DROPPED, WINDOW_END).
pub fn encode_u64_record(out: &mut Vec<u8>, record_tag: u8, value: u64) {
    out.push(record_tag);
    put_u64(out, value);
}

/// Appends the END record.
pub fn encode_end(out: &mut Vec<u8>, records: u64, untimed: u64) {
    out.push(tag::END);
    put_u64(out, records);
    put_u64(out, untimed);
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

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
