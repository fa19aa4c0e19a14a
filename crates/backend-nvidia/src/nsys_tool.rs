//! `prof breakdown --tool nsys`: captures the workload under Nsight Systems, exports the
//! report to SQLite and loads it with [`nsys_sqlite`](crate::nsys_sqlite); it also reads the
//! exports and `nsys stats` CSVs that nsys wrote earlier.
//!
//! The plan (flags checked against the Nsight Systems User Guide's "CLI Profile Command
//! Switch Options" and "CLI Export Command Switch Options" tables, docs.nvidia.com
//! nsight-systems/UserGuide): `--trace=cuda,nvtx,osrt`; `--sample=none` and
//! `--cpuctxsw=none` turn CPU sampling and context-switch tracing off (with sampling off,
//! context switches are still traced unless `--cpuctxsw=none`); `--delay=<s>` is the
//! collection start delay in seconds and `--duration=<s>` the collection length in seconds,
//! which must be greater than zero, after which nsys stops the launched process (`--kill`
//! defaults to sigterm); `--output=<base>` names the report `<base>.nsys-rep`;
//! `--force-overwrite=true` replaces earlier results. `nsys export --type sqlite
//! --output=<file> --force-overwrite=true <report>` writes the SQLite export.
//!
//! On our H200 machine the only nsys is the copy inside Nsight Compute
//! (`/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys`). It collects, but its
//! importer cannot start (`QdstrmImporter` there needs `libdw.so.1`, which is not installed),
//! so it leaves only `prof-nsys.qdstrm` (2 GB for a 4 s window of a PyTorch loop) and no
//! `.nsys-rep`, and the export step then finds no report. [`NsysTool::verify_report`] tells
//! that case apart after the capture step and points to `--tool cupti`. That nsys also
//! starts an `nsys --start-agent` process whose parent is init and whose process group is its
//! own (seen with `ps` 40 s into a capture), so stopping the capture's group does not stop it.
//! The plan therefore names the session, `--session-new=prof-<pid of prof>`, and its clean-up
//! step, which the supervisor runs after the steps on every exit path (success, failure, time
//! limit, Ctrl-C), is `nsys shutdown --session=<that name>`. The help of that nsys (2025.3.1,
//! recorded on the H200, see tests/fixtures/nvidia/SOURCES.md): `nsys --help` lists `shutdown`
//! as "Disconnect launched processes from the profiler and shutdown the profiler"; `nsys
//! shutdown --help`: `--session=` "Shutdown the given session. The option argument must
//! represent a valid session name or ID as reported by 'nsys sessions list'", and `--kill=`
//! defaults to `sigterm` to the target application's process group (ours, already stopped);
//! `nsys profile --help`: `--session-new=` "Start the collection in a new named session", the
//! name starting with a letter. Only that named session is shut down, never a process found by
//! name. After a capture that ran to its end the session is already gone: `nsys shutdown` then
//! prints "There are no active sessions." and exits 1 (recorded on the H200), a harmless
//! clean-up note.
//! When the window ends before the command does, nsys stops it (SIGTERM) and exits with its
//! status, 143; the report is written all the same (recorded on the H100, 2026-12-05: a
//! decode client stopped 10 s into a capture, `prof-nsys.nsys-rep` 974 kB), so the capture
//! step counts 143 as done ([`RunPlan::ok_codes`]).
//! Writing the stream is slow there: a run stopped 75 s after it started (a 2 s delay and a
//! 4 s window) was still "Generating" and left no stream at all, so give the capture step a
//! time limit of minutes.

use crate::nsys_sqlite::{self, export_command};
use crate::nsys_stats_csv::StatsTable;
use crate::tools;
use prof_core::tools::find_program;
use prof_core::{
    BreakdownTool, CapturePlan, CaptureRange, CaptureRequest, Error, ExpectedArtifact, Result, RunPlan, Timeline,
};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Base name of the report, export and capture stream in the output directory.
pub const OUTPUT_STEM: &str = "prof-nsys";
/// APIs traced.
pub const TRACE: &str = "cuda,nvtx,osrt";
/// Smallest export that can be real: an nsys 2024.6 export with no events still holds its
/// enum tables and schema (about 300 KiB), so anything below 64 KiB is a failed export.
pub const MIN_EXPORT_BYTES: u64 = 64 * 1024;
/// The environment variable that names the `nsys` to use (an install off `PATH`).
pub const PROGRAM_VAR: &str = "PROF_NSYS";
/// Log of the `nsys profile` step.
pub const PROFILE_LOG: &str = "nsys-profile.log";
/// Log of the `nsys export` step.
pub const EXPORT_LOG: &str = "nsys-export.log";
/// Log of the `nsys shutdown` clean-up step.
pub const SHUTDOWN_LOG: &str = "nsys-shutdown.log";
/// Time limit of the `nsys shutdown` clean-up step.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// The name of the nsys session a capture by this prof process runs in: `prof-<pid>`, so
/// the clean-up shuts down this capture's session and no one else's.
pub fn session_name() -> String {
    format!("prof-{}", std::process::id())
}

/// The clean-up step that shuts down nsys session `session` (and the agent it started).
pub fn shutdown_step(nsys: &OsString, session: &str, out_dir: &Path) -> RunPlan {
    let argv = vec![nsys.clone(), "shutdown".into(), flag(format!("--session={session}"))];
    let mut step = RunPlan::new("nsys shutdown", argv, out_dir.join(SHUTDOWN_LOG));
    step.timeout = Some(SHUTDOWN_TIMEOUT);
    step
}

/// The Nsight Systems breakdown tool.
#[derive(Debug, Clone, Default)]
pub struct NsysTool {
    program: Option<PathBuf>,
    delay: Duration,
}

impl NsysTool {
    /// The tool, finding `nsys` on `PATH` and in the usual install directories.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses the `nsys` at `path` instead of searching for it.
    #[cfg(test)]
    pub fn with_program(mut self, path: impl Into<PathBuf>) -> Self {
        self.program = Some(path.into());
        self
    }

    /// Starts collecting `delay` after the profiled run starts (`--delay`, whole seconds,
    /// rounded up): an in-process warm-up skip.
    #[cfg(test)]
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// The `nsys` to run: the configured one if it exists, else `$PROF_NSYS`, else the first
    /// found on `PATH`, in the CUDA toolkit, Nsight Systems installs, and last inside Nsight
    /// Compute.
    pub fn program(&self) -> Result<PathBuf> {
        let configured = self.program.clone().or_else(|| std::env::var_os(PROGRAM_VAR).map(PathBuf::from));
        let found = match configured {
            Some(path) => path.is_file().then_some(path),
            None => find_program(tools::name::NSYS, &tools::nsys_dirs()),
        };
        found.ok_or_else(|| Error::ToolMissing {
            tool: tools::name::NSYS.to_owned(),
            install: tools::install::NSYS.to_owned(),
        })
    }

    /// Where a capture into `out_dir` leaves its report.
    pub fn report_path(out_dir: &Path) -> PathBuf {
        out_dir.join(format!("{OUTPUT_STEM}.nsys-rep"))
    }

    /// Where a capture into `out_dir` leaves its SQLite export, the artifact prof loads.
    pub fn export_path(out_dir: &Path) -> PathBuf {
        out_dir.join(format!("{OUTPUT_STEM}.sqlite"))
    }

    /// Where nsys leaves its raw capture stream when it cannot finish a report.
    pub fn stream_path(out_dir: &Path) -> PathBuf {
        out_dir.join(format!("{OUTPUT_STEM}.qdstrm"))
    }

    /// Checks, after the capture step and before the export step, that nsys wrote its report
    /// into `out_dir`, and returns its path. A `.qdstrm` without a `.nsys-rep` (the nsys inside
    /// Nsight Compute), or neither, is an error saying why and what to use instead.
    pub fn verify_report(out_dir: &Path) -> Result<PathBuf> {
        let report = Self::report_path(out_dir);
        if report.is_file() {
            return Ok(report);
        }
        let log = out_dir.join(PROFILE_LOG);
        let log_text = std::fs::read_to_string(&log).unwrap_or_default();
        let said = |needle: &str| log_text.lines().map(str::trim).find(|l| l.contains(needle)).map(str::to_owned);
        let stream = Self::stream_path(out_dir);
        let reason = if stream.is_file() {
            let nsys_said = said("QDSTRM").map(|l| format!(" (nsys said: \"{l}\")")).unwrap_or_default();
            format!(
                "was not written: nsys left only the capture stream {} because it could not import it into a \
                 report{nsys_said}. The nsys inside Nsight Compute does this (its QdstrmImporter cannot start \
                 without libdw.so.1). Use `prof breakdown --tool cupti`, which needs only libcupti; or install \
                 Nsight Systems ({}) and run `QdstrmImporter -i {}`, then `{}`",
                stream.display(),
                tools::install::NSYS,
                stream.display(),
                export_command(&report)
            )
        } else if said("Generating '").is_some() && said("Generated:").is_none() {
            format!(
                "was not written: nsys was stopped while it was still writing its capture stream (see {}); a \
                 trace of a few seconds can take minutes to write: allow a longer --timeout or use a shorter \
                 window",
                log.display()
            )
        } else {
            format!("was not written: nsys left neither a report nor a capture stream (see {})", log.display())
        };
        Err(Error::ArtifactInvalid { path: report, reason })
    }

    /// Reads an `nsys stats --format csv` summary, which has totals but no timeline.
    pub fn load_stats(path: &Path) -> Result<StatsTable> {
        StatsTable::from_file(path)
    }

    fn load_one(&self, path: &Path) -> Result<Timeline> {
        if matches!(nsys_sqlite::extension(path).as_deref(), Some("nsys-rep" | "qdrep")) && path.is_file() {
            let export = report_export::export_of(self, path)?;
            return nsys_sqlite::load(&export);
        }
        if path.is_dir() {
            let export = Self::export_path(path);
            if !export.exists() {
                Self::verify_report(path)?;
            }
            return nsys_sqlite::load(&export);
        }
        if !path.exists() {
            if let Some(dir) = path.parent().filter(|d| Self::stream_path(d).is_file()) {
                Self::verify_report(dir)?;
            }
        }
        if nsys_sqlite::extension(path).as_deref() == Some("csv") {
            let table = StatsTable::from_file(path)?;
            return Err(Error::Unsupported(format!(
                "{} is an nsys stats summary ({}, {} rows): it has per-name totals but no individual ops, so \
                 it has no timeline; read it with NsysTool::load_stats (its device rows convert to the ranked \
                 kernel summary), or load the report's SQLite export instead",
                path.display(),
                table.report.report_names(),
                table.rows.len()
            )));
        }
        nsys_sqlite::load(path)
    }
}

/// Whole seconds for an nsys time switch, rounded up.
fn seconds(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

fn flag(text: String) -> OsString {
    OsString::from(text)
}

/// `--name=<path>` without a lossy round trip through `str`.
fn path_flag(name: &str, path: &Path) -> OsString {
    let mut arg = OsString::from(format!("--{name}="));
    arg.push(path);
    arg
}

/// The exit status of a command stopped by SIGTERM (128 + 15), which nsys passes on.
const SIGTERM_STATUS: i32 = 143;

impl BreakdownTool for NsysTool {
    fn name(&self) -> &'static str {
        "nsys"
    }

    fn check(&self) -> Result<()> {
        self.program().map(|_| ())
    }

    fn plan(&self, request: &CaptureRequest) -> Result<CapturePlan> {
        prof_core::breakdown::require_command(&request.command)?;
        let nsys = OsString::from(self.program()?);
        let out = &request.out_dir;
        let mut steps = request.warmup_steps();
        let session = session_name();
        let mut profile = vec![nsys.clone(), "profile".into(), flag(format!("--session-new={session}"))];
        profile.push(flag(format!("--trace={TRACE}")));
        profile.extend(["--sample=none".into(), "--cpuctxsw=none".into()]);
        let delay = self.delay.max(request.skip);
        if !delay.is_zero() {
            profile.push(flag(format!("--delay={}", seconds(delay))));
        }
        let mut env = Vec::new();
        match &request.range {
            CaptureRange::Time => {}
            CaptureRange::ProfilerApi => profile.push("--capture-range=cudaProfilerApi".into()),
            CaptureRange::Range { name } if !name.ends_with('*') => {
                profile.extend(["--capture-range=nvtx".into(), flag(format!("--nvtx-capture={name}"))]);
                // nsys matches only registered NVTX strings unless told otherwise (its docs:
                // "NSYS_NVTX_PROFILER_REGISTER_ONLY=0"); PyTorch's ranges are not registered.
                env.push(("NSYS_NVTX_PROFILER_REGISTER_ONLY".to_owned(), "0".to_owned()));
            }
            other => {
                return Err(
                    other.unsupported("nsys", "a time (--skip), profiler and range:NAME (an exact name, no `*`)")
                );
            }
        }
        profile.push(flag(format!("--duration={}", seconds(request.window).max(1))));
        profile.push(path_flag("output", &out.join(OUTPUT_STEM)));
        profile.push("--force-overwrite=true".into());
        profile.extend(request.command.iter().cloned());
        let mut capture = RunPlan::new("capture", profile, out.join(PROFILE_LOG));
        capture.timeout = Some(request.timeout);
        capture.env = env;
        // A command still running when the window ends is stopped by nsys with SIGTERM, and nsys
        // exits with its status (143, recorded on the H100): the report is written all the same,
        // and the export step and the artifact check still tell a capture that wrote none.
        capture.ok_codes = vec![SIGTERM_STATUS];
        steps.push(capture);
        let report = Self::report_path(out);
        let export = Self::export_path(out);
        let argv = vec![
            nsys.clone(),
            "export".into(),
            "--type".into(),
            "sqlite".into(),
            path_flag("output", &export),
            "--force-overwrite=true".into(),
            report.clone().into(),
        ];
        let mut step = RunPlan::new("export", argv, out.join(EXPORT_LOG));
        step.timeout = Some(request.timeout);
        steps.push(step);
        Ok(CapturePlan {
            steps,
            artifacts: vec![ExpectedArtifact { path: export.clone(), min_bytes: MIN_EXPORT_BYTES }],
            how_to_open: format!(
                "nsys-ui {} (the Nsight Systems GUI); prof reads {}",
                report.display(),
                export.display()
            ),
            cleanup: vec![shutdown_step(&nsys, &session, out)],
            notes: vec![format!(
                "nsys stops the command with SIGTERM when the {} s window ends; the capture's exit status \
                 {SIGTERM_STATUS} then means it finished",
                seconds(request.window).max(1)
            )],
            control: launch::control(&nsys, request),
        })
    }

    /// Loads one nsys SQLite export (or a capture's output directory holding one). A stats
    /// CSV is read and then refused, saying it has no timeline and how to read it.
    fn load(&self, artifacts: &[PathBuf]) -> Result<Timeline> {
        match artifacts {
            [one] => self.load_one(one),
            [] => Err(Error::Unsupported("nsys: no artifact to load".to_owned())),
            _ => Err(Error::Unsupported(format!("nsys: load one export at a time ({} given)", artifacts.len()))),
        }
    }

    fn recognizes(&self, path: &Path) -> bool {
        if path.is_dir() {
            return Self::export_path(path).is_file() || Self::stream_path(path).is_file();
        }
        match nsys_sqlite::extension(path).as_deref() {
            Some("nsys-rep" | "qdrep" | "qdstrm") => true,
            _ => nsys_sqlite::is_nsys_export(path),
        }
    }

    fn explain_failure(&self, out_dir: &Path) -> Option<String> {
        Self::verify_report(out_dir).err().map(|e| e.to_string())
    }
}

mod importers;
mod launch;
mod report_export;

pub use importers::{NsysExportImporter, NsysStatsImporter};

#[cfg(test)]
mod tests;
