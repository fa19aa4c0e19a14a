//! The fixed numbers of the format: magic, version, sizes, record tags and API domains.

/// First 8 bytes of every trace file.
pub const MAGIC: [u8; 8] = *b"PROFCUPT";
/// Format version written in the header, and the only one a reader accepts.
pub const VERSION: u32 = 1;
/// Size of the file header in bytes.
pub const HEADER_LEN: usize = 32;
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

    /// The record kind `tag` names, for messages (`"unknown"` for a tag the format lacks).
    pub fn name(tag: u8) -> &'static str {
        const NAMES: [&str; 9] =
            ["unknown", "string", "kernel", "memcpy", "memset", "api", "dropped", "window end", "end"];
        NAMES.get(usize::from(tag)).copied().unwrap_or("unknown")
    }
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

/// The API layer of an [`crate::Api`] record, numbered as CUPTI's `CUpti_CallbackDomain`.
pub mod domain {
    /// `CUPTI_CB_DOMAIN_DRIVER_API`.
    pub const DRIVER: u8 = 1;
    /// `CUPTI_CB_DOMAIN_RUNTIME_API`.
    pub const RUNTIME: u8 = 2;
}
