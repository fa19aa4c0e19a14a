//! The tracer's errors. None of them reaches the traced process: each becomes one
//! `prof-cupti: warning: ...` line on stderr and tracing is switched off.

use std::path::PathBuf;

/// What can stop the tracer from tracing.
#[derive(Debug, thiserror::Error)]
pub enum TracerError {
    /// No libcupti could be loaded from any searched place.
    #[error("libcupti not found (tried {tried}); set PROF_CUPTI_LIBRARY=/path/to/libcupti.so")]
    NotFound {
        /// The names and paths tried, comma-separated.
        tried: String,
    },
    /// The library named by `PROF_CUPTI_LIBRARY` could not be loaded.
    #[error("cannot load PROF_CUPTI_LIBRARY={}: {reason}", path.display())]
    Explicit {
        /// The path given.
        path: PathBuf,
        /// The loader's message.
        reason: String,
    },
    /// The library loaded but lacks a function the tracer needs.
    #[error("{library} has no {symbol}: {reason}")]
    Symbol {
        /// The library loaded.
        library: String,
        /// The missing function.
        symbol: &'static str,
        /// The loader's message.
        reason: String,
    },
    /// A CUPTI call failed.
    #[error("{call} failed: {message} (CUptiResult {code})")]
    Call {
        /// The function called.
        call: &'static str,
        /// The CUptiResult.
        code: u32,
        /// cuptiGetResultString's text.
        message: String,
    },
    /// The libcupti is of an API version whose record layouts the decoder does not know.
    #[error(
        "{library} is CUPTI API version {version}, newer than the record layouts prof decodes (CUDA 9 to 13: \
         API versions 10 to 139999); upgrade prof, or set PROF_CUPTI_LIBRARY to a CUDA 12 or 13 libcupti"
    )]
    UnknownVersion {
        /// The library loaded.
        library: String,
        /// Its `CUPTI_API_VERSION`.
        version: u32,
    },
    /// The trace file could not be created.
    #[error("cannot create {}: {source}", path.display())]
    Output {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}
