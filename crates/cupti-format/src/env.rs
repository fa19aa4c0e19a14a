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
/// Milliseconds between the tracer's forced flushes (0: none, buffers are written as they fill).
pub const FLUSH_MS: &str = "PROF_CUPTI_FLUSH_MS";
/// Device memory CUPTI reserves per buffer for device records, MiB (CUPTI's default when unset).
pub const DEVICE_BUFFER_MB: &str = "PROF_CUPTI_DEVICE_BUFFER_MB";
/// How `PROF_CUPTI_API=launch` records its calls: `auto` (default), `activity` or `callbacks`.
pub const LAUNCH_RECORDS: &str = "PROF_CUPTI_LAUNCH_RECORDS";
/// `1`: SIGUSR2 pauses and resumes the API records (to measure their cost in one process).
pub const API_TOGGLE: &str = "PROF_CUPTI_API_TOGGLE";
/// `1`: the tracer's exit line adds its buffer and flush counters.
pub const STATS: &str = "PROF_CUPTI_STATS";

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

/// Event that opens the capture window (`PROF_CUPTI_START_ON`), instead of a time.
pub const START_ON: &str = "PROF_CUPTI_START_ON";

/// What opens (and may close) the tracer's window, as `PROF_CUPTI_START_ON` spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartOn {
    /// `profiler`: `cudaProfilerStart` / `cuProfilerStart` opens it, the matching stop closes it.
    ProfilerApi,
    /// `nvtx:NAME`: the first NVTX range whose message is `NAME` (or starts with it when
    /// `NAME` ends in `*`) opens it; the end of that range closes it.
    Nvtx(String),
    /// `kernel:TEXT@N`: the `N`th launch (1-based) of a kernel whose name, as CUDA gives it at
    /// launch (mangled for C++ kernels), contains `TEXT`.
    Kernel {
        /// Text the kernel's name contains.
        pattern: String,
        /// Which matching launch opens the window.
        nth: u64,
    },
    /// `auto`: after the load: once three blocks of launches in a row copy about the same
    /// host-to-device bytes (no bulk upload any more).
    Auto,
}

impl StartOn {
    /// Parses the variable's value; `Err` says what is wrong with it.
    pub fn parse(value: &str) -> Result<Self, String> {
        let value = value.trim();
        let (head, rest) = value.split_once(':').unwrap_or((value, ""));
        match head.to_ascii_lowercase().as_str() {
            "profiler" | "cudaprofilerapi" if rest.is_empty() => Ok(Self::ProfilerApi),
            "auto" if rest.is_empty() => Ok(Self::Auto),
            "nvtx" | "range" if !rest.is_empty() => Ok(Self::Nvtx(rest.to_owned())),
            "kernel" if !rest.is_empty() => {
                let (pattern, nth) = match rest.rsplit_once('@') {
                    Some((pattern, n)) => {
                        let nth = n.parse::<u64>().ok().filter(|n| *n >= 1);
                        (pattern, nth.ok_or_else(|| format!("`{n}` in `{value}` is not a launch number (1, 2, ...)"))?)
                    }
                    None => (rest, 1),
                };
                if pattern.is_empty() {
                    return Err(format!("`{value}` names no kernel text"));
                }
                Ok(Self::Kernel { pattern: pattern.to_owned(), nth })
            }
            _ => Err(format!("`{value}` is not profiler, auto, nvtx:NAME or kernel:TEXT[@N]")),
        }
    }

    /// The value as written in `PROF_CUPTI_START_ON`.
    pub fn to_env(&self) -> String {
        match self {
            Self::ProfilerApi => "profiler".to_owned(),
            Self::Auto => "auto".to_owned(),
            Self::Nvtx(name) => format!("nvtx:{name}"),
            Self::Kernel { pattern, nth } => format!("kernel:{pattern}@{nth}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::StartOn;

    #[test]
    fn start_on_values_round_trip_and_bad_ones_are_named() {
        for text in ["profiler", "auto", "nvtx:ProfilerStep#3", "nvtx:step*", "kernel:gemm@5", "kernel:a@b@2"] {
            assert_eq!(StartOn::parse(text).unwrap().to_env(), text);
        }
        assert_eq!(StartOn::parse("kernel:flash").unwrap(), StartOn::Kernel { pattern: "flash".into(), nth: 1 });
        assert_eq!(StartOn::parse(" range:step ").unwrap(), StartOn::Nvtx("step".into()));
        for bad in ["", "nvtx", "kernel:", "kernel:gemm@0", "kernel:gemm@x", "later", "auto:3"] {
            let error = StartOn::parse(bad).unwrap_err();
            assert!(error.contains('`'), "{bad}: {error}");
        }
    }
}
