//! The tracer's settings, read from the environment of the traced process.
//!
//! | variable | meaning |
//! | --- | --- |
//! | `PROF_CUPTI_OUT` | directory for per-process traces (created if needed; a path ending in `/` or naming a directory), or one file path (a child process that starts CUDA while another writes it writes `<stem>-<pid>.pcupti` beside it); default `.` |
//! | `PROF_CUPTI_LIBRARY` | libcupti to load instead of searching |
//! | `PROF_CUPTI_START_AFTER_MS` | keep only records that start this long after injection (skip warm-up) |
//! | `PROF_CUPTI_DURATION_MS` | stop recording this long after the window opened |
//! | `PROF_CUPTI_SIGNAL` | `toggle`: SIGUSR1 closes the window; `paused`: the first SIGUSR1 opens it, the second closes it |
//! | `PROF_CUPTI_START_ON` | open the window at an event instead of a time ([`StartOn`]): `profiler` (`cudaProfilerStart`, closed by the stop), `nvtx:NAME` (a range, closed at its end), `kernel:TEXT@N` (the Nth launch of a kernel whose name contains TEXT), `auto` (after the load) |
//! | `PROF_CUPTI_API` | which runtime/driver API calls are recorded: `launch` (default; the calls that launch or move work, [`crate::cbid`]), `all`, or `none` (kernels, copies and sets keep their correlation ids) |
//! | `PROF_CUPTI_LAUNCH_RECORDS` | how `launch` records its calls: `activity` (CUPTI API activity records switched on per function), `callbacks` (the tracer's own CUPTI callbacks, [`crate::callbacks::launch_calls`]), or `auto` (default: `activity` where CUPTI can switch single functions, else `callbacks` rather than recording every call) |
//! | `PROF_CUPTI_FLUSH_MS` | forced flush period while the window is open (default 1000; `0`: records are written as buffers fill and at the end) |
//! | `PROF_CUPTI_DEVICE_BUFFER_MB` | device memory CUPTI reserves per buffer for kernel, copy and set records (CUPTI's default when unset) |
//! | `PROF_CUPTI_API_TOGGLE` | `1`: each SIGUSR2 pauses or resumes the API records (device records go on), to measure their cost inside one process (`scripts/device/decode_overhead.sh`'s `launch-toggle`) |
//! | `PROF_CUPTI_STATS` | `1`: the exit line adds buffer, drain and flush counters |
//! | `RANK`, `LOCAL_RANK` | put into the file name and header so each rank has its own trace |

use crate::format::{env, trace_file_name};
pub use crate::format::{ApiMode, StartOn};
use std::ffi::OsString;
use std::path::PathBuf;

/// How SIGUSR1 controls the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalMode {
    /// No handler is installed.
    Off,
    /// Recording starts as configured; SIGUSR1 closes the window.
    Toggle,
    /// Recording waits for a first SIGUSR1; a second closes the window.
    Paused,
}

/// How `PROF_CUPTI_API=launch` records its calls (`PROF_CUPTI_LAUNCH_RECORDS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LaunchRecords {
    /// [`Self::Activity`] where CUPTI can switch single API functions, else [`Self::Callbacks`].
    #[default]
    Auto,
    /// From the tracer's own callbacks.
    Callbacks,
    /// As CUPTI API activity records, switched on per callback id.
    Activity,
}

/// Everything the tracer reads from its environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `PROF_CUPTI_LIBRARY`.
    pub library: Option<PathBuf>,
    /// `CUDA_HOME`, for the libcupti search.
    pub cuda_home: Option<PathBuf>,
    /// The trace file this process writes.
    pub output: PathBuf,
    /// `PROF_CUPTI_START_AFTER_MS` (0 when unset).
    pub start_after_ms: u64,
    /// `PROF_CUPTI_DURATION_MS`.
    pub duration_ms: Option<u64>,
    /// `PROF_CUPTI_SIGNAL`.
    pub signal: SignalMode,
    /// `PROF_CUPTI_API` ([`ApiMode::Launch`] when unset).
    pub api: ApiMode,
    /// `PROF_CUPTI_START_ON`: the event that opens the window (`START_AFTER_MS` is ignored).
    pub start_on: Option<StartOn>,
    /// `PROF_CUPTI_LAUNCH_RECORDS`.
    pub launch_records: LaunchRecords,
    /// `PROF_CUPTI_FLUSH_MS` (1000 when unset; 0 = no periodic flush).
    pub flush_ms: u64,
    /// `PROF_CUPTI_DEVICE_BUFFER_MB`.
    pub device_buffer_mb: Option<u64>,
    /// `PROF_CUPTI_STATS`.
    pub stats: bool,
    /// `PROF_CUPTI_API_TOGGLE`.
    pub api_toggle: bool,
    /// `RANK`.
    pub rank: Option<i32>,
    /// `LOCAL_RANK`.
    pub local_rank: Option<i32>,
    /// One line per variable that was set but could not be used (it is ignored).
    pub warnings: Vec<String>,
}

impl Config {
    /// Reads the settings of process `pid` through `lookup` (normally `std::env::var_os`).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>, pid: u32) -> Self {
        let mut warnings = Vec::new();
        let text = |name: &str| lookup(name).map(|v| v.to_string_lossy().trim().to_owned()).filter(|v| !v.is_empty());
        let mut number = |name: &str| -> Option<u64> {
            let value = text(name)?;
            match value.parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    warnings.push(format!("{name}={value} is not a whole number of milliseconds; ignored"));
                    None
                }
            }
        };
        let start_after_ms = number(env::START_AFTER_MS).unwrap_or(0);
        let duration_ms = number(env::DURATION_MS);
        let flush_ms = number(env::FLUSH_MS).unwrap_or(1000);
        let device_buffer_mb = number(env::DEVICE_BUFFER_MB).filter(|mb| *mb > 0);
        let mut rank_of = |name: &str| -> Option<i32> {
            let value = text(name)?;
            let parsed = value.parse::<i32>().ok().filter(|r| *r >= 0);
            if parsed.is_none() {
                warnings.push(format!("{name}={value} is not a rank; ignored"));
            }
            parsed
        };
        let rank = rank_of("RANK");
        let local_rank = rank_of("LOCAL_RANK");
        let signal = match text(env::SIGNAL).as_deref() {
            None | Some("0" | "off" | "no") => SignalMode::Off,
            Some("1" | "on" | "toggle" | "usr1" | "SIGUSR1") => SignalMode::Toggle,
            Some("paused") => SignalMode::Paused,
            Some(other) => {
                warnings.push(format!("{}={other} is not toggle or paused; ignored", env::SIGNAL));
                SignalMode::Off
            }
        };
        let api = match text(env::API) {
            None => ApiMode::default(),
            Some(value) => ApiMode::parse(&value).unwrap_or_else(|| {
                warnings.push(format!("{}={value} is not launch, all or none; using launch", env::API));
                ApiMode::default()
            }),
        };
        let start_on = text(env::START_ON).and_then(|value| match StartOn::parse(&value) {
            Ok(start_on) => Some(start_on),
            Err(error) => {
                warnings.push(format!("{}: {error}; the window opens at the start", env::START_ON));
                None
            }
        });
        let launch_records = match text(env::LAUNCH_RECORDS).as_deref() {
            None | Some("auto") => LaunchRecords::Auto,
            Some("callbacks") => LaunchRecords::Callbacks,
            Some("activity") => LaunchRecords::Activity,
            Some(other) => {
                warnings
                    .push(format!("{}={other} is not auto, activity or callbacks; using auto", env::LAUNCH_RECORDS));
                LaunchRecords::Auto
            }
        };
        let yes = |name: &str| matches!(text(name).as_deref(), Some("1" | "on" | "yes" | "true"));
        let (stats, api_toggle) = (yes(env::STATS), yes(env::API_TOGGLE));
        let name = trace_file_name(pid, rank, local_rank);
        let output = match lookup(env::OUT).filter(|v| !v.is_empty()) {
            None => PathBuf::from(".").join(name),
            Some(value) => {
                let ends_with_slash = value.to_string_lossy().ends_with('/');
                let path = PathBuf::from(value);
                if ends_with_slash || path.is_dir() {
                    path.join(name)
                } else {
                    path
                }
            }
        };
        Self {
            library: lookup(env::LIBRARY).filter(|v| !v.is_empty()).map(PathBuf::from),
            cuda_home: lookup("CUDA_HOME").filter(|v| !v.is_empty()).map(PathBuf::from),
            output,
            start_after_ms,
            duration_ms,
            signal,
            api,
            start_on,
            launch_records,
            flush_ms,
            device_buffer_mb,
            stats,
            api_toggle,
            rank,
            local_rank,
            warnings,
        }
    }

    /// The settings of this process.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var_os(name), std::process::id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::is_trace_file;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Config {
        let map: HashMap<String, OsString> = vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect();
        Config::from_lookup(|name| map.get(name).cloned(), 4242)
    }

    #[test]
    fn a_directory_gets_one_file_per_process_and_rank() {
        let dir = std::env::temp_dir();
        let c = config(&[(env::OUT, dir.to_str().unwrap()), ("RANK", "3"), ("LOCAL_RANK", "1")]);
        assert_eq!(c.output, dir.join("prof-cupti-4242-rank3-local1.pcupti"));
        let c = config(&[(env::OUT, "/nonexistent-prof-dir/traces/")]);
        assert_eq!(c.output, PathBuf::from("/nonexistent-prof-dir/traces/prof-cupti-4242.pcupti"));
        let c = config(&[(env::OUT, "/tmp/one-file.pcupti")]);
        assert_eq!(c.output, PathBuf::from("/tmp/one-file.pcupti"));
        assert_eq!(config(&[]).output, PathBuf::from("./prof-cupti-4242.pcupti"));
        assert!(is_trace_file(&c.output.with_file_name("prof-cupti-1-rank0.pcupti")));
        assert!(!is_trace_file(&c.output));
    }

    #[test]
    fn window_and_signal_settings_parse_and_bad_values_are_reported() {
        let c = config(&[(env::START_AFTER_MS, "1500"), (env::DURATION_MS, "250"), (env::SIGNAL, "paused")]);
        assert_eq!((c.start_after_ms, c.duration_ms, c.signal), (1500, Some(250), SignalMode::Paused));
        assert!(c.warnings.is_empty());
        let c = config(&[(env::DURATION_MS, "ten"), (env::SIGNAL, "sometimes"), ("RANK", "-2")]);
        assert_eq!((c.duration_ms, c.signal, c.rank), (None, SignalMode::Off, None));
        assert_eq!(c.warnings.len(), 3, "{:?}", c.warnings);
        assert!(c.warnings[0].contains("PROF_CUPTI_DURATION_MS=ten"));
        assert_eq!(config(&[(env::SIGNAL, "toggle")]).signal, SignalMode::Toggle);
        assert_eq!(config(&[(env::LIBRARY, "/x/libcupti.so")]).library, Some(PathBuf::from("/x/libcupti.so")));
    }

    #[test]
    fn buffer_settings_default_and_parse() {
        let c = config(&[]);
        assert_eq!((c.flush_ms, c.device_buffer_mb, c.stats), (1000, None, false));
        let c = config(&[(env::FLUSH_MS, "0"), (env::DEVICE_BUFFER_MB, "32"), (env::STATS, "1")]);
        assert_eq!((c.flush_ms, c.device_buffer_mb, c.stats), (0, Some(32), true));
        assert!(!c.api_toggle && config(&[(env::API_TOGGLE, "1")]).api_toggle);
        assert_eq!(config(&[]).launch_records, LaunchRecords::Auto);
        assert_eq!(config(&[(env::LAUNCH_RECORDS, "activity")]).launch_records, LaunchRecords::Activity);
        assert_eq!(config(&[(env::LAUNCH_RECORDS, "callbacks")]).launch_records, LaunchRecords::Callbacks);
        let c = config(&[(env::LAUNCH_RECORDS, "hooks")]);
        assert_eq!((c.launch_records, c.warnings.len()), (LaunchRecords::Auto, 1));
        let c = config(&[(env::FLUSH_MS, "soon")]);
        assert_eq!(c.flush_ms, 1000);
        assert_eq!(c.warnings, ["PROF_CUPTI_FLUSH_MS=soon is not a whole number of milliseconds; ignored"]);
    }

    #[test]
    fn api_mode_defaults_to_launch_and_bad_values_warn() {
        assert_eq!(config(&[]).api, ApiMode::Launch);
        assert_eq!(config(&[(env::API, "")]).api, ApiMode::Launch);
        assert_eq!(config(&[(env::API, "all")]).api, ApiMode::All);
        assert_eq!(config(&[(env::API, " NONE ")]).api, ApiMode::None);
        assert_eq!(config(&[(env::API, "Launch")]).api, ApiMode::Launch);
        assert!(config(&[(env::API, "none")]).warnings.is_empty());
        let c = config(&[(env::API, "launches")]);
        assert_eq!(c.api, ApiMode::Launch);
        assert_eq!(c.warnings, ["PROF_CUPTI_API=launches is not launch, all or none; using launch"]);
    }

    #[test]
    fn start_on_is_read_and_a_bad_value_opens_at_the_start_with_a_warning() {
        assert_eq!(config(&[]).start_on, None);
        assert_eq!(config(&[(env::START_ON, "profiler")]).start_on, Some(StartOn::ProfilerApi));
        let c = config(&[(env::START_ON, "kernel:gemm@0")]);
        assert_eq!(c.start_on, None);
        assert!(c.warnings[0].starts_with("PROF_CUPTI_START_ON: `0` in `kernel:gemm@0`"), "{:?}", c.warnings);
    }
}
