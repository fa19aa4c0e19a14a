//! `prof deepdive --tool rocprofv3-counters`: hardware counters of the selected kernel's
//! launches with `rocprofv3 --pmc`, one rocprofv3 run per counter pass, loaded into one
//! [`KernelReport`] per launch (AMD extras in [`AmdKernelCounters`]).
//!
//! Flags, as documented in rocprofiler-sdk `source/docs/how-to/using-rocprofv3.rst`
//! (ROCm/rocm-systems, `projects/rocprofiler-sdk/…`, commit 054a6172): `--pmc [PMC ...]`
//! ("the job fails if the entire set of counters can't be collected in single pass"),
//! `--kernel-include-regex REGULAR_EXPRESSION`, `--kernel-iteration-range
//! KERNEL_ITERATION_RANGE` ("[start-stop]"), `-f`/`--output-format {csv,…}`,
//! `-d`/`--output-directory`, `-o`/`--output-file`, then `--` and the application.
//! The docs give no per-pass counter count (it depends on the GPU's counter blocks), so the
//! passes are the groups of the docs' own multi-pass example: `SQ_WAVES GRBM_COUNT
//! GRBM_GUI_ACTIVE`, then `FETCH_SIZE WRITE_SIZE`.

use crate::rocprofv3_counter_report::{merge_passes, AmdKernelCounters};
use crate::rocprofv3_counters::{parse_counter_csv, split_csv, CounterDispatch, REQUIRED_COLUMNS, TOOL};
use crate::tools::{self, SearchPaths};
use crate::AmdError;
use prof_core::process_group::log_tail;
use prof_core::{CapturePlan, DeepDive, DeepDiveRequest, Error, ExpectedArtifact, KernelReport, Result, RunPlan};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Counter passes of the default plan, one rocprofv3 run each.
pub const DEFAULT_PASSES: [&[&str]; 2] =
    [&["SQ_WAVES", "GRBM_COUNT", "GRBM_GUI_ACTIVE"], &["FETCH_SIZE", "WRITE_SIZE"]];
/// `-o` prefix of every pass; rocprofv3 writes `<prefix>_counter_collection.csv`.
pub const OUTPUT_PREFIX: &str = "prof";
/// File-name ending of rocprofv3's counter CSV.
pub const COUNTER_FILE_SUFFIX: &str = "_counter_collection.csv";
/// How deep below a pass directory the counter CSV is looked for (`pass_1/`, `<host>/<pid>/`).
const SEARCH_DEPTH: usize = 4;
/// How much of a file [`Rocprofv3CounterTool::recognizes`] reads for the header.
const HEADER_BYTES: u64 = 64 * 1024;

/// The rocprofv3 counter deep dive.
#[derive(Debug, Clone)]
pub struct Rocprofv3CounterTool {
    program: Option<PathBuf>,
    paths: SearchPaths,
    passes: Vec<Vec<String>>,
}

impl Default for Rocprofv3CounterTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Rocprofv3CounterTool {
    /// The tool, finding `rocprofv3` on `PATH`, in `/opt/rocm/bin` or `/opt/rocm-*/bin`.
    pub fn new() -> Self {
        let passes = DEFAULT_PASSES.iter().map(|p| p.iter().map(|c| (*c).to_owned()).collect()).collect();
        Self { program: None, paths: SearchPaths::rocm_default(), passes }
    }

    /// Uses the `rocprofv3` at `path` instead of searching for it.
    #[cfg(test)]
    pub fn with_program(mut self, path: impl Into<PathBuf>) -> Self {
        self.program = Some(path.into());
        self
    }

    /// Searches `paths` instead of the ROCm defaults.
    pub fn with_search_paths(mut self, paths: SearchPaths) -> Self {
        self.paths = paths;
        self
    }

    /// Collects these counter passes instead of [`DEFAULT_PASSES`] (each must fit one pass).
    #[cfg(test)]
    pub fn with_passes(mut self, passes: Vec<Vec<String>>) -> Self {
        self.passes = passes;
        self
    }

    /// The `rocprofv3` this tool runs; missing, the error carries the install line.
    pub fn program(&self) -> Result<PathBuf> {
        let found = match &self.program {
            Some(path) => path.is_file().then(|| path.clone()),
            None => tools::locate(&tools::ROCPROFV3, &self.paths).path,
        };
        found.ok_or_else(|| Error::ToolMissing {
            tool: tools::ROCPROFV3.display.to_owned(),
            install: tools::ROCPROFV3.install.to_owned(),
        })
    }

    /// Loads the artifacts into launches with the AMD extras. A directory is one pass (every
    /// counter CSV below it); a file is one pass.
    pub fn load_kernels(&self, artifacts: &[PathBuf]) -> Result<Vec<AmdKernelCounters>> {
        let mut passes = Vec::new();
        for artifact in artifacts {
            let files = if artifact.is_dir() { counter_files(artifact) } else { vec![artifact.clone()] };
            if files.is_empty() {
                let reason = format!("no *{COUNTER_FILE_SUFFIX} below this directory (rocprofv3 wrote no counters)");
                return Err(Error::artifact(artifact, 0, reason));
            }
            let mut pass = Vec::new();
            for file in files {
                pass.extend(read_counter_file(&file)?);
            }
            passes.push(pass);
        }
        let launches = merge_passes(&passes);
        if launches.is_empty() {
            return Err(Error::Unsupported("the rocprofv3 counter CSVs hold no kernel dispatch".to_owned()));
        }
        Ok(launches)
    }
}

/// Parses one counter CSV, errors naming the file and line.
pub fn read_counter_file(path: &Path) -> Result<Vec<CounterDispatch>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    parse_counter_csv(BufReader::new(file)).map_err(|e| match e {
        AmdError::Output { tool, line, reason } => Error::artifact(path, line, format!("{tool}: {reason}")),
    })
}

/// Every `*_counter_collection.csv` below `dir` (up to a few levels), in path order.
pub fn counter_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.filter_map(|e| e.ok()) {
            let path = entry.path();
            if path.is_dir() && depth > 0 {
                walk(&path, depth - 1, out);
            } else if path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(COUNTER_FILE_SUFFIX)) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, SEARCH_DEPTH, &mut out);
    out.sort();
    out
}

fn looks_like_counter_csv(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else { return false };
    let mut header = String::new();
    if BufReader::new(file.take(HEADER_BYTES)).read_line(&mut header).is_err() {
        return false;
    }
    split_csv(header.trim_end(), 1).is_ok_and(|fields| REQUIRED_COLUMNS.iter().all(|c| fields.iter().any(|f| f == c)))
}

fn os(text: impl Into<OsString>) -> OsString {
    text.into()
}

/// `--kernel-iteration-range` for skipping `skip` launches then taking `count`: rocprofv3
/// numbers a kernel's launches from 1 (`[1]` is the first), ranges are `[start-stop]`.
pub fn iteration_range(skip: u32, count: u32) -> String {
    let first = u64::from(skip) + 1;
    let last = u64::from(skip) + u64::from(count);
    if count <= 1 {
        format!("[{first}]")
    } else {
        format!("[{first}-{last}]")
    }
}

/// Directory of pass `index` (1-based) under `out`.
pub fn pass_dir(out: &Path, index: usize) -> PathBuf {
    out.join(format!("rocprofv3-pmc-{index}"))
}

/// Log of pass `index` (1-based) under `out`.
pub fn pass_log(out: &Path, index: usize) -> PathBuf {
    out.join(format!("rocprofv3-pmc-{index}.log"))
}

impl DeepDive for Rocprofv3CounterTool {
    fn name(&self) -> &'static str {
        "rocprofv3-counters"
    }

    fn check(&self) -> Result<()> {
        self.program().map(|_| ())
    }

    fn plan(&self, request: &DeepDiveRequest) -> Result<CapturePlan> {
        let program = self.program()?;
        prof_core::breakdown::require_command(&request.command)?;
        if request.kernel_regex.is_empty() {
            return Err(Error::Unsupported(
                "rocprofv3-counters needs a kernel name regular expression to select the kernel".to_owned(),
            ));
        }
        if request.launch_count == 0 {
            return Err(Error::Unsupported("rocprofv3-counters needs a launch count of at least 1".to_owned()));
        }
        if self.passes.is_empty() || self.passes.iter().any(|p| p.is_empty()) {
            return Err(Error::Unsupported("rocprofv3-counters needs at least one counter in every pass".to_owned()));
        }
        let out = &request.out_dir;
        let (mut steps, mut artifacts) = (Vec::new(), Vec::new());
        for (index, counters) in self.passes.iter().enumerate().map(|(i, c)| (i + 1, c)) {
            let dir = pass_dir(out, index);
            let mut argv = vec![program.clone().into_os_string(), os("--pmc")];
            argv.extend(counters.iter().map(os));
            argv.extend([
                os("--kernel-include-regex"),
                os(request.kernel_regex.as_str()),
                os("--kernel-iteration-range"),
                os(iteration_range(request.launch_skip, request.launch_count)),
                os("--output-format"),
                os("csv"),
                os("-d"),
                dir.clone().into_os_string(),
                os("-o"),
                os(OUTPUT_PREFIX),
                os("--"),
            ]);
            argv.extend(request.command.iter().cloned());
            let mut step = RunPlan::new(format!("counters pass {index}"), argv, pass_log(out, index));
            step.timeout = Some(request.timeout);
            steps.push(step);
            artifacts.push(ExpectedArtifact { path: dir, min_bytes: 64 });
        }
        Ok(CapturePlan {
            steps,
            artifacts,
            how_to_open: format!(
                "prof reads {}/rocprofv3-pmc-*/**/{OUTPUT_PREFIX}{COUNTER_FILE_SUFFIX} ({TOOL}, one row per dispatch and counter)",
                out.display()
            ),
            ..CapturePlan::default()
        })
    }

    fn load(&self, artifacts: &[PathBuf]) -> Result<Vec<KernelReport>> {
        Ok(self.load_kernels(artifacts)?.into_iter().map(|k| k.report).collect())
    }

    fn recognizes(&self, path: &Path) -> bool {
        if path.is_dir() {
            return !counter_files(path).is_empty();
        }
        let named = path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(COUNTER_FILE_SUFFIX));
        named || looks_like_counter_csv(path)
    }

    fn explain_failure(&self, out_dir: &Path) -> Option<String> {
        let mut text = String::new();
        for index in 1..=self.passes.len() {
            let dir = pass_dir(out_dir, index);
            if !counter_files(&dir).is_empty() {
                continue;
            }
            let log = pass_log(out_dir, index);
            let counters = self.passes.get(index - 1).map(|p| p.join(" ")).unwrap_or_default();
            text.push_str(&format!(
                "counters pass {index} ({counters}): rocprofv3 wrote no *{COUNTER_FILE_SUFFIX} under {}\n  \
                 fix: check that the kernel regex matches a kernel name and the launch range exists, and that this \
                 GPU supports every counter of the pass (`rocprofv3 --list-avail`); a pass with more counters than the \
                 hardware collects at once makes rocprofv3 abort (SIGABRT, ROCm/rocm-systems#8331): split it\n  last lines of {}:\n{}\n",
                dir.display(),
                log.display(),
                indent(&log_tail(&log, 15))
            ));
        }
        (!text.is_empty()).then(|| text.trim_end().to_owned())
    }
}

fn indent(text: &str) -> String {
    if text.is_empty() {
        return "    (log empty or missing)".to_owned();
    }
    text.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests;
