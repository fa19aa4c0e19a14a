//! `prof breakdown --tool rocprofv3`: captures the workload under rocprofv3 with CSV output and
//! loads the traces with [`rocprofv3_trace`](crate::rocprofv3_trace).
//!
//! The plan, flag by flag, as the rocprofiler-sdk documentation gives them
//! (`source/docs/how-to/using-rocprofv3.rst`, "Command-line options", and
//! `rocprofv3-io-options.rst`, ROCm/rocprofiler-sdk and ROCm/rocm-systems):
//! `--kernel-trace` "collects kernel dispatch traces", `--memory-copy-trace` "collects memory
//! copy traces", `--hip-runtime-trace` "collects HIP Runtime API traces" (public `hip*`
//! functions), `--stats` "collects statistics of enabled tracing types" (the
//! `*_kernel_stats.csv` files); `--output-format csv` (since ROCm 7.0 the default is the rocpd
//! SQLite database, so CSV must be asked for; newer documentation marks direct CSV output
//! deprecated in favour of `rocpd convert`); `-d`/`--output-directory` "specifies the output
//! path", default `%hostname%/%pid%`; `-o`/`--output-file` the file name prefix, default the
//! process id. Without `-o`, `-d DIR` writes `DIR/<hostname>/<pid>_kernel_trace.csv`; with
//! `-o NAME` the files are `DIR/NAME_kernel_trace.csv`, `DIR/NAME_agent_info.csv`, … (the
//! rocprofiler-sdk test `tests/rocprofv3/tracing-hip-in-libraries/CMakeLists.txt` runs
//! `--stats --output-format csv -d <dir> -o out` and validates `<dir>/out_kernel_trace.csv`,
//! `out_memory_copy_trace.csv`, `out_hip_api_trace.csv`, `out_agent_info.csv`,
//! `out_kernel_stats.csv`). The loader searches the directory for either layout.
//!
//! With `-o prof`, every profiled process of a multi-process workload writes the same names;
//! the loader reads whatever is there. The request's skip and window become
//! `--collection-period <skip>:<window>:1` (see [`collection_period_args`]) where the ROCm
//! release has it (6.4 and later); on an older release the whole run is traced and the plan
//! says so. None of this has run on AMD hardware: the plan follows the documentation and
//! the loader is tested on recorded files only.

use crate::rocprofv3_trace::{self, no_trace, TraceFiles};
use crate::tools::{rocm_install_version, SearchPaths, INSTALL_ROCPROFV3, ROCPROFV3};
use prof_core::process_group::log_tail;
use prof_core::tools::find_program;
use prof_core::{
    BreakdownTool, CapturePlan, CaptureRequest, Error, ExpectedArtifact, Families, Result, RunPlan, StreamedSummary,
    Timeline,
};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Sub-directory of the capture's output directory that rocprofv3 writes into.
pub const OUTPUT_DIR: &str = "rocprofv3";
/// The `-o` file name prefix.
pub const OUTPUT_PREFIX: &str = "prof";
/// Log of the capture step.
pub const CAPTURE_LOG: &str = "rocprofv3.log";
/// Tracing flags of the capture.
pub const TRACE_FLAGS: &[&str] = &["--kernel-trace", "--memory-copy-trace", "--hip-runtime-trace", "--stats"];
/// A kernel trace header alone is about 300 bytes; an output directory below this holds none.
pub const MIN_OUTPUT_BYTES: u64 = 100;
/// How deep below a directory the loader looks for rocprofv3 CSV files (`<dir>/<host>/<pid>_…`).
const MAX_DEPTH: usize = 3;

/// The first ROCm release whose rocprofv3 has `--collection-period` and
/// `--collection-period-unit`: rocprofiler-sdk 0.6.0 "for ROCm release 6.4" (its CHANGELOG.md,
/// "Added": "`--collection-period` feature in `rocprofv3` to enable filtering using time").
pub const COLLECTION_PERIOD_SINCE: (u32, u32) = (6, 4);

/// The rocprofv3 arguments that delay collection by `skip` and bound it to `window`, once:
/// `--collection-period <start delay>:<collection time>:1`, in whole seconds, or with
/// `--collection-period-unit msec` when either is not a whole number of seconds.
///
/// The option as rocprofv3 defines it (ROCm/rocprofiler-sdk @
/// 01c4d37aab05eba11531b3478fdc3e289d0d1dd2, `source/bin/rocprofv3.py`, `parse_arguments`,
/// "Filtering options" group): `-P`/`--collection-period`, `nargs="+"`, metavar
/// `(START_DELAY_TIME):(COLLECTION_TIME):(REPEAT)`; "The times are specified in seconds by
/// default, but the unit can be changed using the `--collection-period-unit` option", "Start
/// Delay Time is the time in seconds before the collection begins, Collection Time is the
/// duration in seconds for which data is collected, and Rate is the number of times the cycle
/// is repeated. A repeat of 0 indicates that the cycle will repeat indefinitely";
/// `--collection-period-unit` takes one of `hour min sec msec usec nsec` (default `sec`). The
/// long name is used: ROCm 6.4's short form was `-p`, 7.0 moved it to `-P` (CHANGELOG.md,
/// rocprofiler-sdk 1.0.0 for ROCm 7.0, "Changed"). A zero window still collects one unit.
pub fn collection_period_args(skip: Duration, window: Duration) -> Vec<OsString> {
    let whole = |d: Duration| d.subsec_nanos() == 0;
    let (delay, time, unit) = if whole(skip) && whole(window) {
        (skip.as_secs(), window.as_secs(), None)
    } else {
        (skip.as_millis() as u64, window.as_millis() as u64, Some("msec"))
    };
    let mut args = vec![OsString::from("--collection-period"), OsString::from(format!("{delay}:{}:1", time.max(1)))];
    if let Some(unit) = unit {
        args.extend([OsString::from("--collection-period-unit"), OsString::from(unit)]);
    }
    args
}

/// Whether the rocprofv3 of ROCm `version` (as detection reads it: `6.3.1`) has
/// `--collection-period`; `None` when the version is unknown.
pub fn has_collection_period(version: Option<&str>) -> Option<bool> {
    let mut parts = version?.split('.').map(|p| p.parse::<u32>().ok());
    let major = parts.next().flatten()?;
    let minor = parts.next().flatten().unwrap_or(0);
    Some((major, minor) >= COLLECTION_PERIOD_SINCE)
}

/// File name endings of the traces a group holds.
const KERNEL_SUFFIX: &str = "kernel_trace.csv";
const COPY_SUFFIX: &str = "memory_copy_trace.csv";
const HIP_SUFFIX: &str = "hip_api_trace.csv";
const AGENT_SUFFIX: &str = "agent_info.csv";

/// The rocprofv3 breakdown tool.
#[derive(Debug, Clone)]
pub struct Rocprofv3Tool {
    paths: SearchPaths,
    program: Option<PathBuf>,
}

impl Default for Rocprofv3Tool {
    fn default() -> Self {
        Self::new()
    }
}

impl Rocprofv3Tool {
    /// The tool, finding `rocprofv3` on `PATH`, then in `/opt/rocm/bin` and `/opt/rocm-*/bin`.
    pub fn new() -> Self {
        Self::with_paths(SearchPaths::rocm_default())
    }

    /// The tool searching `paths` after `PATH`.
    pub fn with_paths(paths: SearchPaths) -> Self {
        Self { paths, program: None }
    }

    /// Uses the `rocprofv3` at `path` instead of searching for it.
    #[cfg(test)]
    pub fn with_program(mut self, path: impl Into<PathBuf>) -> Self {
        self.program = Some(path.into());
        self
    }

    /// The `rocprofv3` to run, or an error carrying its install line.
    pub fn program(&self) -> Result<PathBuf> {
        let found = match &self.program {
            Some(path) => path.is_file().then(|| path.clone()),
            None => find_program(ROCPROFV3.name, &self.paths.program_dirs),
        };
        found.ok_or_else(|| Error::ToolMissing {
            tool: ROCPROFV3.name.to_owned(),
            install: INSTALL_ROCPROFV3.to_owned(),
        })
    }

    /// Where a capture into `out_dir` leaves rocprofv3's files.
    pub fn output_dir(out_dir: &Path) -> PathBuf {
        out_dir.join(OUTPUT_DIR)
    }

    /// Loads the rocprofv3 CSV traces at `path` (a file of one, or a directory holding them).
    #[cfg(test)]
    pub fn load_path(path: &Path) -> Result<Timeline> {
        let groups = find_traces(path)?;
        if groups.is_empty() {
            return Err(no_trace(path));
        }
        rocprofv3_trace::load_processes(&groups, &path.display().to_string())
    }
}

/// The rocprofv3 CSV files at `path`, one [`TraceFiles`] per output prefix (process). A file
/// brings its siblings of the same prefix; a directory is searched a few levels deep.
pub fn find_traces(path: &Path) -> Result<Vec<TraceFiles>> {
    let mut found = Vec::new();
    if path.is_dir() {
        collect(path, 0, &mut found);
    } else {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let prefix = split_name(path).map(|(p, _)| p).ok_or_else(|| no_trace(path))?;
        let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
        found.extend(
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| split_name(p).is_some_and(|(q, _)| q == prefix)),
        );
    }
    let mut groups: BTreeMap<(PathBuf, String), TraceFiles> = BTreeMap::new();
    for file in found {
        let Some((prefix, suffix)) = split_name(&file) else { continue };
        let key = (file.parent().map(Path::to_owned).unwrap_or_default(), prefix);
        let group = groups.entry(key).or_default();
        let slot = match suffix {
            KERNEL_SUFFIX => &mut group.kernel,
            COPY_SUFFIX => &mut group.memory_copy,
            HIP_SUFFIX => &mut group.hip_api,
            _ => &mut group.agent_info,
        };
        *slot = Some(file);
    }
    Ok(groups.into_values().filter(|g| g.kernel.is_some() || g.memory_copy.is_some() || g.hip_api.is_some()).collect())
}

fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
        if path.is_dir() && depth < MAX_DEPTH {
            collect(&path, depth + 1, out);
        } else if path.is_file() && split_name(&path).is_some() {
            out.push(path);
        }
    }
}

/// `(prefix, suffix)` of a rocprofv3 CSV name: `prof_kernel_trace.csv` is `("prof_",
/// "kernel_trace.csv")`; `kernel_trace.csv` has an empty prefix. `memory_copy_trace.csv` is
/// not mistaken for a kernel trace (a prefix must end with `_` or be empty).
fn split_name(path: &Path) -> Option<(String, &'static str)> {
    let name = path.file_name()?.to_str()?;
    [COPY_SUFFIX, HIP_SUFFIX, AGENT_SUFFIX, KERNEL_SUFFIX].into_iter().find_map(|suffix| {
        let prefix = name.strip_suffix(suffix)?;
        (prefix.is_empty() || prefix.ends_with('_')).then(|| (prefix.to_owned(), suffix))
    })
}

impl BreakdownTool for Rocprofv3Tool {
    fn name(&self) -> &'static str {
        "rocprofv3"
    }

    fn check(&self) -> Result<()> {
        self.program().map(|_| ())
    }

    fn plan(&self, request: &CaptureRequest) -> Result<CapturePlan> {
        prof_core::breakdown::require_command(&request.command)?;
        if request.range != prof_core::CaptureRange::Time {
            return Err(request.range.unsupported("rocprofv3", "a time (--skip) only"));
        }
        let program_path = self.program()?;
        let version = rocm_install_version(&program_path);
        let out = &request.out_dir;
        let mut steps = request.warmup_steps();
        let output = Self::output_dir(out);
        let mut argv = vec![OsString::from(&program_path)];
        argv.extend(TRACE_FLAGS.iter().map(OsString::from));
        let (since_major, since_minor) = COLLECTION_PERIOD_SINCE;
        let mut notes = Vec::new();
        match has_collection_period(version.as_deref()) {
            Some(false) => notes.push(format!(
                "rocprofv3 of ROCm {} has no --collection-period (added in ROCm {since_major}.{since_minor}): it \
                 traces the whole run, so --skip and --window are not applied; the step's time limit bounds it",
                version.as_deref().unwrap_or("?")
            )),
            known => {
                if known.is_none() {
                    notes.push(format!(
                        "the ROCm release of {} is unknown; --collection-period needs ROCm {since_major}.{since_minor} \
                         or later, and an older rocprofv3 rejects it",
                        program_path.display()
                    ));
                }
                argv.extend(collection_period_args(request.skip, request.window));
            }
        }
        argv.extend(["--output-format".into(), "csv".into(), "-d".into(), output.clone().into_os_string()]);
        argv.extend(["-o".into(), OUTPUT_PREFIX.into(), "--".into()]);
        argv.extend(request.command.iter().cloned());
        let mut capture = RunPlan::new("capture", argv, out.join(CAPTURE_LOG));
        capture.timeout = Some(request.timeout);
        steps.push(capture);
        Ok(CapturePlan {
            steps,
            artifacts: vec![ExpectedArtifact { path: output.clone(), min_bytes: MIN_OUTPUT_BYTES }],
            how_to_open: format!(
                "the CSV files in {} ({OUTPUT_PREFIX}_kernel_trace.csv, {OUTPUT_PREFIX}_kernel_stats.csv, …) open in \
                 any spreadsheet; `prof analyze {}` reads them again",
                output.display(),
                output.display()
            ),
            notes,
            ..CapturePlan::default()
        })
    }

    fn load(&self, artifacts: &[PathBuf]) -> Result<Timeline> {
        let mut groups = Vec::new();
        for path in artifacts {
            groups.extend(find_traces(path)?);
        }
        match (artifacts, groups.is_empty()) {
            ([], _) => Err(Error::Unsupported("rocprofv3: no artifact to load".to_owned())),
            ([one], true) => Err(no_trace(one)),
            (_, true) => Err(Error::Unsupported("rocprofv3: none of the artifacts holds a CSV trace".to_owned())),
            ([one], false) => rocprofv3_trace::load_processes(&groups, &one.display().to_string()),
            (many, false) => rocprofv3_trace::load_processes(&groups, &format!("{} rocprofv3 outputs", many.len())),
        }
    }

    /// Kernels folded part by part, copies folded, HIP calls only for the span
    /// ([`crate::rocprofv3_summary`]).
    fn stream_summary(&self, path: &Path, families: &Families) -> Option<Result<StreamedSummary>> {
        let groups = match find_traces(path) {
            Ok(groups) if !groups.is_empty() => groups,
            // No trace, or an unreadable directory: `load` says so.
            _ => return None,
        };
        let source = path.display().to_string();
        Some(
            crate::rocprofv3_summary::summarize_processes(&groups, &source, families)
                .map(|summary| StreamedSummary { summary, op_types: None }),
        )
    }

    fn recognizes(&self, path: &Path) -> bool {
        if path.is_dir() {
            return find_traces(path).is_ok_and(|g| !g.is_empty());
        }
        split_name(path).is_some_and(|(_, suffix)| suffix != AGENT_SUFFIX)
    }

    fn explain_failure(&self, out_dir: &Path) -> Option<String> {
        let output = Self::output_dir(out_dir);
        if find_traces(&output).is_ok_and(|g| !g.is_empty()) {
            return None;
        }
        let log = out_dir.join(CAPTURE_LOG);
        let tail = log_tail(&log, 15);
        let said =
            if tail.is_empty() { "it is empty or missing".to_owned() } else { format!("its last lines:\n{tail}") };
        Some(format!(
            "rocprofv3 wrote no *_kernel_trace.csv under {}; see the capture log {} ({said})",
            output.display(),
            log.display()
        ))
    }
}

#[cfg(test)]
mod tests;
