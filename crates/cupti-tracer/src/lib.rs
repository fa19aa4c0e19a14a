//! `prof-cupti-tracer`: the CUPTI activity tracer `prof breakdown --tool cupti` injects into
//! a CUDA process, built as `libprof_cupti.so`.
//!
//! CUDA loads the library named by `CUDA_INJECTION64_PATH` during `cuInit` and calls its
//! [`InitializeInjection`]. The tracer then loads libcupti at run time (nothing is linked,
//! so it builds and loads on machines without CUDA), enables activity records for
//! concurrent kernels, memory copies and sets, and the runtime and driver API calls that
//! `PROF_CUPTI_API` selects (by default those that launch or move work, [`cbid`]), and writes
//! them to one compact binary file per process ([`format`](mod@format), the crate
//! `prof-cupti-format` it shares with the loader) that `prof` loads into its timeline.
//! Settings come from the environment ([`config`]):
//!
//! ```text
//! CUDA_INJECTION64_PATH=/abs/path/libprof_cupti.so PROF_CUPTI_OUT=traces/ \
//!   PROF_CUPTI_START_AFTER_MS=2000 PROF_CUPTI_DURATION_MS=10000 python3 train.py
//! ```
//!
//! When libcupti cannot be loaded the tracer prints one `prof-cupti: warning: ...; tracing
//! disabled` line and the program runs untraced. The rlib exposes the format, the CUPTI
//! record decoding and the writer so they can be tested without a GPU.

pub mod activity;
pub mod buffers;
mod callbacks;
pub mod cbid;
pub mod config;
pub mod demangle;
pub mod enable;
pub mod error;
pub mod ffi;
mod injection;
mod messages;
mod output;
pub mod recorder;
pub mod signals;
pub mod trigger;
pub mod window;
pub mod writer;

pub use error::TracerError;
/// The trace file format, shared with the loader in `prof-backend-nvidia`.
pub use prof_cupti_format as format;

/// The entry point CUDA calls after loading this library through `CUDA_INJECTION64_PATH`.
/// Starts tracing (once per process) and returns 1, also when tracing could not start, so
/// the traced program is never stopped by its profiler.
#[no_mangle]
#[allow(non_snake_case)]
pub extern "C" fn InitializeInjection() -> std::ffi::c_int {
    injection::initialize_injection()
}
