//! Decoding CUPTI activity records from the raw bytes of an activity buffer.
//!
//! Every offset below was taken from the CUPTI headers of CUDA 13.0 (`cupti_activity.h`,
//! `CUPTI_API_VERSION 130001`, shipped in the `nvidia-cuda-cupti` 13.0.85 wheel, whose
//! `libcupti.so.13` is the same 4,152,208-byte library as the H200's
//! `/usr/local/cuda/lib64/libcupti.so.2025.3.1`) and checked with `offsetof` on that header;
//! the field lists agree with cudarc's bindgen output for `cuda-13000`
//! (coreylowman/cudarc `src/cupti/sys/mod.rs`). The structs are
//! `__attribute__((packed, aligned(8)))` and every field sits at its natural alignment,
//! so the offsets are plain C offsets.
//!
//! CUDA 13.0 emits `CUpti_ActivityKernel10` for `CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL` and
//! `KERNEL`. Only the common prefix (bytes 0..112) is read: its offsets are identical in
//! `CUpti_ActivityKernel4` through `Kernel10`, so an older or newer record of the same kind
//! decodes the same. Likewise `CUpti_ActivityMemcpy6` (prefix shared with Memcpy3-5),
//! `CUpti_ActivityMemset4` (prefix shared with Memset2-3) and `CUpti_ActivityAPI`.

use crate::format::{domain, Api, Kernel, Memcpy, MemoryOp, Memset};

/// Oldest `CUPTI_API_VERSION` whose kernel record is `CUpti_ActivityKernel4` or later (CUDA 9).
pub const OLDEST_API_VERSION: u32 = 10;
/// Newest known: CUDA 13.x numbers its API versions `13xxxx` (13.0 is 130001); a 14.x CUPTI
/// may change the records and is refused until checked.
pub const NEWEST_API_VERSION: u32 = 139_999;

/// True when the record prefixes this module reads hold for a libcupti of `version`: CUDA 9
/// to 12 count 10 to about 30, CUDA 13 counts `13xxxx` (checked on the H200 with CUPTI 12.1,
/// 12.9 and 13.0: scripts/device/cupti_cu12.sh).
pub fn known_api_version(version: u32) -> bool {
    (OLDEST_API_VERSION..=NEWEST_API_VERSION).contains(&version)
}

/// `CUpti_ActivityKind` values (cupti_activity.h, CUDA 13.0).
pub mod kind {
    /// `CUPTI_ACTIVITY_KIND_MEMCPY`, record `CUpti_ActivityMemcpy6`.
    pub const MEMCPY: u32 = 1;
    /// `CUPTI_ACTIVITY_KIND_MEMSET`, record `CUpti_ActivityMemset4`.
    pub const MEMSET: u32 = 2;
    /// `CUPTI_ACTIVITY_KIND_KERNEL`, record `CUpti_ActivityKernel10`.
    pub const KERNEL: u32 = 3;
    /// `CUPTI_ACTIVITY_KIND_DRIVER`, record `CUpti_ActivityAPI`.
    pub const DRIVER: u32 = 4;
    /// `CUPTI_ACTIVITY_KIND_RUNTIME`, record `CUpti_ActivityAPI`.
    pub const RUNTIME: u32 = 5;
    /// `CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL`, record `CUpti_ActivityKernel10`.
    pub const CONCURRENT_KERNEL: u32 = 10;
}

/// Byte offsets in `CUpti_ActivityKernel10` (sizeof 216; prefix shared with Kernel4-9).
pub mod kernel10 {
    /// `uint16_t registersPerThread`.
    pub const REGISTERS_PER_THREAD: usize = 6;
    /// `uint64_t start`.
    pub const START: usize = 16;
    /// `uint64_t end`.
    pub const END: usize = 24;
    /// `uint32_t deviceId`.
    pub const DEVICE_ID: usize = 40;
    /// `uint32_t contextId`.
    pub const CONTEXT_ID: usize = 44;
    /// `uint32_t streamId`.
    pub const STREAM_ID: usize = 48;
    /// `int32_t gridX` (gridY at +4, gridZ at +8).
    pub const GRID_X: usize = 52;
    /// `int32_t blockX` (blockY at +4, blockZ at +8).
    pub const BLOCK_X: usize = 64;
    /// `int32_t staticSharedMemory`.
    pub const STATIC_SHARED_MEMORY: usize = 76;
    /// `int32_t dynamicSharedMemory`.
    pub const DYNAMIC_SHARED_MEMORY: usize = 80;
    /// `uint32_t correlationId`.
    pub const CORRELATION_ID: usize = 92;
    /// `const char *name`.
    pub const NAME: usize = 104;
    /// Bytes read.
    pub const PREFIX: usize = 112;
}

/// Byte offsets of the fields `CUpti_ActivityMemcpy6` and `CUpti_ActivityMemset4` share:
/// both place them at the same offsets (8..48).
pub mod memory_op {
    /// `uint64_t bytes`.
    pub const BYTES: usize = 8;
    /// `uint64_t start`.
    pub const START: usize = 16;
    /// `uint64_t end`.
    pub const END: usize = 24;
    /// `uint32_t deviceId`.
    pub const DEVICE_ID: usize = 32;
    /// `uint32_t contextId`.
    pub const CONTEXT_ID: usize = 36;
    /// `uint32_t streamId`.
    pub const STREAM_ID: usize = 40;
    /// `uint32_t correlationId`.
    pub const CORRELATION_ID: usize = 44;
}

/// Byte offsets in `CUpti_ActivityMemcpy6` (sizeof 96) besides [`memory_op`]'s.
pub mod memcpy6 {
    /// `uint8_t copyKind` (srcKind +1, dstKind +2, flags +3).
    pub const COPY_KIND: usize = 4;
    /// Bytes read.
    pub const PREFIX: usize = 48;
}

/// Byte offsets in `CUpti_ActivityMemset4` (sizeof 88) besides [`memory_op`]'s.
pub mod memset4 {
    /// `uint32_t value`.
    pub const VALUE: usize = 4;
    /// `uint16_t flags`.
    pub const FLAGS: usize = 48;
    /// `uint16_t memoryKind`.
    pub const MEMORY_KIND: usize = 50;
    /// Bytes read.
    pub const PREFIX: usize = 52;
}

/// Byte offsets in `CUpti_ActivityAPI` (sizeof 40).
pub mod api {
    /// `CUpti_CallbackId cbid`.
    pub const CBID: usize = 4;
    /// `uint64_t start`.
    pub const START: usize = 8;
    /// `uint64_t end`.
    pub const END: usize = 16;
    /// `uint32_t processId`.
    pub const PROCESS_ID: usize = 24;
    /// `uint32_t threadId`.
    pub const THREAD_ID: usize = 28;
    /// `uint32_t correlationId`.
    pub const CORRELATION_ID: usize = 32;
    /// Bytes read.
    pub const PREFIX: usize = 40;
}

/// One decoded activity record; names are still CUPTI pointers or callback ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// A kernel; `kernel.name` is 0 until the name at `name_ptr` is interned.
    Kernel {
        /// The record with `name` unset.
        kernel: Kernel,
        /// Address of the NUL-terminated name, valid for the life of the process (0 = none).
        name_ptr: usize,
    },
    /// A memory copy.
    Memcpy(Memcpy),
    /// A memory set.
    Memset(Memset),
    /// A runtime or driver call; `name` is 0 until interned from (`domain`, `cbid`).
    Api(Api),
    /// A kind this tracer does not read.
    Other(u32),
}

fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(off..off + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(off..off + 4)?.try_into().ok()?))
}
fn i32_at(b: &[u8], off: usize) -> Option<i32> {
    Some(i32::from_le_bytes(b.get(off..off + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(off..off + 8)?.try_into().ok()?))
}
fn dims(b: &[u8], off: usize) -> Option<[i32; 3]> {
    Some([i32_at(b, off)?, i32_at(b, off + 4)?, i32_at(b, off + 8)?])
}

/// The record's `CUpti_ActivityKind` (its first 4 bytes).
pub fn record_kind(record: &[u8]) -> Option<u32> {
    u32_at(record, 0)
}

/// Decodes the record at the start of `record` (the bytes from the record to the end of the
/// valid part of the buffer). `None` when too few bytes remain for the fields read.
pub fn decode(record: &[u8]) -> Option<Activity> {
    let kind = record_kind(record)?;
    match kind {
        kind::KERNEL | kind::CONCURRENT_KERNEL => decode_kernel(record),
        kind::MEMCPY => decode_memcpy(record).map(Activity::Memcpy),
        kind::MEMSET => decode_memset(record).map(Activity::Memset),
        kind::DRIVER => decode_api(record, domain::DRIVER).map(Activity::Api),
        kind::RUNTIME => decode_api(record, domain::RUNTIME).map(Activity::Api),
        other => Some(Activity::Other(other)),
    }
}

fn decode_kernel(b: &[u8]) -> Option<Activity> {
    use kernel10 as k;
    if b.len() < k::PREFIX {
        return None;
    }
    let kernel = Kernel {
        start: u64_at(b, k::START)?,
        end: u64_at(b, k::END)?,
        device: u32_at(b, k::DEVICE_ID)?,
        context: u32_at(b, k::CONTEXT_ID)?,
        stream: u32_at(b, k::STREAM_ID)?,
        correlation: u32_at(b, k::CORRELATION_ID)?,
        name: 0,
        grid: dims(b, k::GRID_X)?,
        block: dims(b, k::BLOCK_X)?,
        registers: u16_at(b, k::REGISTERS_PER_THREAD)?,
        static_shared: i32_at(b, k::STATIC_SHARED_MEMORY)?,
        dynamic_shared: i32_at(b, k::DYNAMIC_SHARED_MEMORY)?,
    };
    let name_ptr = usize::try_from(u64_at(b, k::NAME)?).ok()?;
    Some(Activity::Kernel { kernel, name_ptr })
}

fn decode_memory_op(b: &[u8]) -> Option<MemoryOp> {
    use memory_op as m;
    Some(MemoryOp {
        start: u64_at(b, m::START)?,
        end: u64_at(b, m::END)?,
        bytes: u64_at(b, m::BYTES)?,
        device: u32_at(b, m::DEVICE_ID)?,
        context: u32_at(b, m::CONTEXT_ID)?,
        stream: u32_at(b, m::STREAM_ID)?,
        correlation: u32_at(b, m::CORRELATION_ID)?,
    })
}

fn decode_memcpy(b: &[u8]) -> Option<Memcpy> {
    use memcpy6 as m;
    if b.len() < m::PREFIX {
        return None;
    }
    let &[copy_kind, src_kind, dst_kind, flags] = b.get(m::COPY_KIND..)?.first_chunk()?;
    Some(Memcpy { op: decode_memory_op(b)?, copy_kind, src_kind, dst_kind, flags })
}

fn decode_memset(b: &[u8]) -> Option<Memset> {
    use memset4 as m;
    if b.len() < m::PREFIX {
        return None;
    }
    Some(Memset {
        op: decode_memory_op(b)?,
        value: u32_at(b, m::VALUE)?,
        memory_kind: u16_at(b, m::MEMORY_KIND)?,
        flags: u16_at(b, m::FLAGS)?,
    })
}

fn decode_api(b: &[u8], api_domain: u8) -> Option<Api> {
    use api as a;
    if b.len() < a::PREFIX {
        return None;
    }
    Some(Api {
        start: u64_at(b, a::START)?,
        end: u64_at(b, a::END)?,
        pid: u32_at(b, a::PROCESS_ID)?,
        tid: u32_at(b, a::THREAD_ID)?,
        correlation: u32_at(b, a::CORRELATION_ID)?,
        cbid: u32_at(b, a::CBID)?,
        domain: api_domain,
        name: 0,
    })
}

#[cfg(test)]
mod tests;
