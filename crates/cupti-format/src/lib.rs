//! `prof-cupti-format`: what prof's CUPTI tracer (`libprof_cupti.so`, crate
//! `prof-cupti-tracer`) and its loader (`prof-backend-nvidia`'s `cupti_trace`) must agree on:
//! the trace file's layout, its file names, and the environment variables prof sets for the
//! tracer. It has no dependencies beyond `thiserror`, so the injected library stays lean.
//!
//! A trace is one file per process, little-endian binary:
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
//!
//! ```
//! use prof_cupti_format::{read_record, Header, Kernel, Record, HEADER_LEN};
//!
//! let mut file = Vec::new();
//! Header { pid: 7, rank: -1, local_rank: -1, t0: 0 }.encode(&mut file);
//! Kernel { start: 10, end: 20, ..Kernel::default() }.encode(&mut file);
//! assert_eq!(Header::decode(&file).unwrap().pid, 7);
//! let (record, next) = read_record(&file, HEADER_LEN).unwrap().unwrap();
//! assert!(matches!(record, Record::Kernel(k) if k.end == 20));
//! assert_eq!(next, file.len());
//! ```

pub mod env;
mod error;
mod fields;
mod files;
mod frame;
mod layout;
mod records;

pub use env::{ApiMode, StartOn};
pub use error::FormatError;
pub use files::{is_trace_file, trace_file_name, FILE_EXTENSION, FILE_PREFIX};
pub use frame::{read_record, Record, MAX_STRING_READ};
pub use layout::{body, domain, tag, HEADER_LEN, MAGIC, MAX_STRING, VERSION};
pub use records::{clip, encode_end, encode_string, encode_u64_record, Api, Header, Kernel, Memcpy, MemoryOp, Memset};

#[cfg(test)]
mod tests;
