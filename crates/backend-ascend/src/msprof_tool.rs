//! `prof breakdown --tool msprof`: captures the workload under msprof and loads the profile
//! directory it writes with [`crate::profile_dir`].
//!
//! The plan, flag by flag, as Huawei's CANN profiling guide gives them ("General Profiling
//! Command", "Delayed Profiling", atlasprofiling_16_0010 / 16_0017): `--application=<app>`
//! passes the program and its arguments as one string (the guide quotes it:
//! `--application="/home/projects/main parameter1 parameter2"`), so every argument is
//! shell-quoted with [`shell_quote`] and joined, never pasted raw (the guide warns that
//! arguments with unusual symbols may not be recognised there and suggests wrapping such a
//! command in a script); `--output=<path>` is where
//! the data goes (the guide forbids `\n \f \r \b \t \v DEL " ' \ % > < | & $ ; `` ` `` in it,
//! checked before anything runs); `--ai-core=on` with `--aic-metrics=PipeUtilization` (the
//! default metric set, whose `aic_*_ratio` / `aiv_*_ratio` columns the compute-bound check
//! reads) and `--task-time=on` (op_summary, op_statistic, task_time); `--delay=N` and
//! `--duration=N`, whole seconds from 1, are the skip and the window of the request (rounded
//! up). msprof writes `PROF_<n>_<timestamp>_<id>/` under the output path and, once it has
//! parsed it, `mindstudio_profiler_output/` (CANN 8) or `device_<n>/` data inside.
//!
//! None of this has run on Ascend hardware: the flags follow the documentation, the loader is
//! tested on recorded profile directories, and the end-to-end test uses a fake msprof that
//! copies one of them.

use crate::profile_dir::ProfileFiles;
use crate::tools::{SearchPaths, MSPROF, TOOLKIT_INSTALL};
use prof_core::process_group::log_tail;
use prof_core::run_plan::shell_quote;
use prof_core::tools::find_program;
use prof_core::{BreakdownTool, CapturePlan, CaptureRequest, Error, ExpectedArtifact, Result, RunPlan, Timeline};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Sub-directory of the capture's output directory given to `--output`.
pub const OUTPUT_DIR: &str = "msprof";
/// Log of the capture step.
pub const CAPTURE_LOG: &str = "msprof.log";
/// Collection flags of the capture.
pub const COLLECT_FLAGS: &[&str] = &["--ai-core=on", "--aic-metrics=PipeUtilization", "--task-time=on"];
/// A profile directory below this many bytes holds no parsed data.
pub const MIN_OUTPUT_BYTES: u64 = 1024;
/// Characters the guide forbids in the `--output` path.
const FORBIDDEN_IN_OUTPUT: &[char] =
    &['\n', '\u{c}', '\r', '\u{8}', '\t', '\u{b}', '\u{7f}', '"', '\'', '\\', '%', '>', '<', '|', '&', '$', ';', '`'];

/// The msprof breakdown tool.
#[derive(Debug, Clone)]
pub struct MsprofTool {
    paths: SearchPaths,
}

impl MsprofTool {
    /// The tool, finding `msprof` on `PATH`, then under the CANN toolkit roots of `paths`.
    pub fn with_paths(paths: SearchPaths) -> Self {
        Self { paths }
    }

    /// The `msprof` to run, or an error carrying the CANN toolkit's install line.
    pub fn program(&self) -> Result<PathBuf> {
        find_program(MSPROF, &self.paths.msprof_dirs)
            .ok_or_else(|| Error::ToolMissing { tool: MSPROF.to_owned(), install: TOOLKIT_INSTALL.to_owned() })
    }

    /// Where a capture into `out_dir` leaves msprof's `PROF_*` directories.
    pub fn output_dir(out_dir: &Path) -> PathBuf {
        out_dir.join(OUTPUT_DIR)
    }
}

/// The `--application` value: each argument shell-quoted, joined by spaces. Arguments that are
/// not UTF-8 cannot be passed in one string and are an error.
pub fn application_string(command: &[OsString]) -> Result<String> {
    let words = command
        .iter()
        .map(|word| {
            word.to_str().map(shell_quote).ok_or_else(|| {
                Error::Unsupported(format!("msprof --application takes text; this argument is not UTF-8: {word:?}"))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(words.join(" "))
}

/// Whole seconds for `--delay` / `--duration` (rounded up, at least 1), or `None` for zero.
fn whole_seconds(duration: Duration) -> Option<u64> {
    (!duration.is_zero()).then(|| duration.as_secs() + u64::from(duration.subsec_nanos() > 0))
}

/// The `PROF_<digits>…` directories under `dir` (itself, its children, or its grandchildren), sorted
/// by name, which starts with the collection time.
pub fn find_profiles(dir: &Path) -> Vec<PathBuf> {
    let is_prof = |p: &Path| p.is_dir() && p.file_name().and_then(|n| n.to_str()).is_some_and(is_profile_name);
    if is_prof(dir) {
        return vec![dir.to_owned()];
    }
    let children = |d: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(d).map(|e| e.filter_map(|e| e.ok()).map(|e| e.path()).collect()).unwrap_or_default()
    };
    let mut found: Vec<PathBuf> = Vec::new();
    for child in children(dir) {
        if is_prof(&child) {
            found.push(child);
        } else if child.is_dir() {
            found.extend(children(&child).into_iter().filter(|p| is_prof(p)));
        }
    }
    found.sort();
    found
}

/// `PROF_<digits>…`, msprof's own profile directory names (not a `PROF_GROUP_…` or
/// `PROF_PipeUtilization` a harness made around them).
fn is_profile_name(name: &str) -> bool {
    name.strip_prefix("PROF_").is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// True when `profile` holds parsed data: `mindstudio_profiler_output/` or a `device_*/`.
fn has_parsed_data(profile: &Path) -> bool {
    std::fs::read_dir(profile).is_ok_and(|entries| {
        entries.filter_map(|e| e.ok()).any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            e.path().is_dir() && (name == "mindstudio_profiler_output" || name.starts_with("device_"))
        })
    })
}

/// Loads the one parsed `PROF_*` directory under `dir`. Several (a multi-process workload,
/// or a reused output directory) are an error listing them, so profiles are never mixed up.
pub fn load_output(dir: &Path) -> Result<Timeline> {
    let profiles = find_profiles(dir);
    let parsed: Vec<&PathBuf> = profiles.iter().filter(|p| has_parsed_data(p)).collect();
    let profile = match parsed.as_slice() {
        [one] => *one,
        [] => {
            let reason = match profiles.last() {
                None => "msprof wrote no PROF_* directory here".to_owned(),
                Some(raw) => format!(
                    "{} has neither mindstudio_profiler_output/ nor device_*/ data (msprof did not parse it; try \
                     `msprof --export=on --output={}`)",
                    raw.display(),
                    raw.display()
                ),
            };
            return Err(Error::ArtifactInvalid { path: dir.to_owned(), reason });
        }
        many => {
            let list: Vec<String> = many.iter().map(|p| p.display().to_string()).collect();
            let reason = format!("several profiles here ({}); give one profile directory", list.join(", "));
            return Err(Error::ArtifactInvalid { path: dir.to_owned(), reason });
        }
    };
    Ok(ProfileFiles::find(profile)?.load()?)
}

impl BreakdownTool for MsprofTool {
    fn name(&self) -> &'static str {
        "msprof"
    }

    fn check(&self) -> Result<()> {
        self.program().map(|_| ())
    }

    fn plan(&self, request: &CaptureRequest) -> Result<CapturePlan> {
        prof_core::breakdown::require_command(&request.command)?;
        if request.range != prof_core::CaptureRange::Time {
            return Err(request.range.unsupported("msprof", "a time (--skip) only"));
        }
        let program = OsString::from(self.program()?);
        let output = Self::output_dir(&request.out_dir);
        let output_text = output.to_str().filter(|p| !p.contains(FORBIDDEN_IN_OUTPUT)).ok_or_else(|| {
            Error::Unsupported(format!(
                "msprof refuses output paths with quotes, `\\`, `%<>|&$;` or control characters: {}",
                output.display()
            ))
        })?;
        if !find_profiles(&output).is_empty() {
            return Err(Error::Unsupported(format!(
                "{} already holds msprof profiles; give a fresh --out so this capture is not mixed with them",
                output.display()
            )));
        }
        let mut argv = vec![program, format!("--application={}", application_string(&request.command)?).into()];
        argv.push(format!("--output={output_text}").into());
        argv.extend(COLLECT_FLAGS.iter().map(OsString::from));
        if let Some(delay) = whole_seconds(request.skip) {
            argv.push(format!("--delay={delay}").into());
        }
        if let Some(duration) = whole_seconds(request.window) {
            argv.push(format!("--duration={duration}").into());
        }
        let mut steps = request.warmup_steps();
        let mut capture = RunPlan::new("capture", argv, request.out_dir.join(CAPTURE_LOG));
        capture.timeout = Some(request.timeout);
        steps.push(capture);
        Ok(CapturePlan {
            steps,
            artifacts: vec![ExpectedArtifact { path: output.clone(), min_bytes: MIN_OUTPUT_BYTES }],
            how_to_open: format!(
                "open the PROF_* directory under {} in MindStudio Insight; `prof analyze {}` reads it again",
                output.display(),
                output.display()
            ),
            ..CapturePlan::default()
        })
    }

    fn load(&self, artifacts: &[PathBuf]) -> Result<Timeline> {
        match artifacts {
            [one] => load_output(one),
            [] => Err(Error::Unsupported("msprof: no artifact to load".to_owned())),
            _ => Err(Error::Unsupported("msprof: give one output directory".to_owned())),
        }
    }

    /// A directory holding exactly one parsed `PROF_*` profile (several are left to the
    /// profile-directory importer, which names them).
    fn recognizes(&self, path: &Path) -> bool {
        path.is_dir() && find_profiles(path).iter().filter(|p| has_parsed_data(p)).count() == 1
    }

    fn explain_failure(&self, out_dir: &Path) -> Option<String> {
        let output = Self::output_dir(out_dir);
        if find_profiles(&output).iter().any(|p| has_parsed_data(p)) {
            return None;
        }
        let log = out_dir.join(CAPTURE_LOG);
        let tail = log_tail(&log, 15);
        let said =
            if tail.is_empty() { "it is empty or missing".to_owned() } else { format!("its last lines:\n{tail}") };
        Some(format!(
            "msprof wrote no parsed PROF_* directory under {}; see the capture log {} ({said})",
            output.display(),
            log.display()
        ))
    }
}

#[cfg(test)]
mod tests;
