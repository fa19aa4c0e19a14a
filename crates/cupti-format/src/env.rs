//! The environment variables through which prof configures the tracer in the traced
//! process, and the values of `PROF_CUPTI_API`.

/// Names the library CUDA loads and initialises during `cuInit` (the tracer).
pub const INJECTION: &str = "CUDA_INJECTION64_PATH";
/// Output location: a directory for per-process traces, or one file.
pub const OUT: &str = "PROF_CUPTI_OUT";
/// Explicit libcupti path.
pub const LIBRARY: &str = "PROF_CUPTI_LIBRARY";
/// Warm-up skip, milliseconds.
pub const START_AFTER_MS: &str = "PROF_CUPTI_START_AFTER_MS";
/// Window length, milliseconds.
pub const DURATION_MS: &str = "PROF_CUPTI_DURATION_MS";
/// Signal control (`toggle` or `paused`).
pub const SIGNAL: &str = "PROF_CUPTI_SIGNAL";
/// Which API calls are recorded ([`ApiMode`]).
pub const API: &str = "PROF_CUPTI_API";

/// Which runtime and driver API calls become records (`PROF_CUPTI_API`). Every recorded call
/// costs the traced thread time inside CUPTI, and PyTorch makes many cheap ones
/// (`cudaGetDevice` above all), so the default keeps only the calls that launch or move
/// work; kernels, copies and sets are recorded in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApiMode {
    /// Kernel and graph launches, memcpy/memset calls, and synchronize calls.
    #[default]
    Launch,
    /// Every runtime and driver call (`CUPTI_ACTIVITY_KIND_RUNTIME` and `DRIVER`).
    All,
    /// No API records at all (device records keep their correlation ids).
    None,
}

impl ApiMode {
    /// Parses `launch`, `all` or `none` (any case, surrounding blanks ignored).
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "launch" => Some(Self::Launch),
            "all" => Some(Self::All),
            "none" => Some(Self::None),
            _ => None,
        }
    }

    /// The value as written in `PROF_CUPTI_API`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Launch => "launch",
            Self::All => "all",
            Self::None => "none",
        }
    }
}
