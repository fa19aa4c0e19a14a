//! What can be wrong with a trace file's bytes. Each message reads after the file's name
//! (`trace.pcupti: is not a prof-cupti trace ...`).

use crate::layout::{HEADER_LEN, VERSION};

/// A trace that is not in this format, or corrupted (a file merely cut short is not an error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The file is shorter than the header.
    #[error("is {len} bytes, shorter than the {HEADER_LEN}-byte prof-cupti header")]
    ShortHeader {
        /// The file's length.
        len: usize,
    },
    /// The file does not start with [`crate::MAGIC`].
    #[error("is not a prof-cupti trace (no PROFCUPT magic)")]
    NoMagic,
    /// The header names a version other than [`crate::VERSION`].
    #[error("is prof-cupti format version {0}; this prof reads {VERSION}")]
    Version(u32),
    /// A record starts with a byte that is no [`crate::tag`].
    #[error("unknown record tag 0x{tag:02x} at byte {at}: not a prof-cupti trace or corrupted")]
    UnknownTag {
        /// The byte found.
        tag: u8,
        /// Its offset in the file.
        at: usize,
    },
    /// A STRING record claims more than [`crate::MAX_STRING_READ`] bytes.
    #[error("string of {len} bytes at byte {at} is not a kernel name")]
    StringTooLong {
        /// The length it claims.
        len: usize,
        /// The record's offset in the file.
        at: usize,
    },
}
