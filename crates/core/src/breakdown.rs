//! The [`BreakdownTool`] trait: question 2, "where does the device time go?".
//!
//! A tool *plans* a capture as data ([`CapturePlan`]); the core supervisor runs the plan;
//! the tool then *loads* the artifacts into a [`Timeline`]. Loading is a pure function of
//! the files, tested on recorded real artifacts.

use crate::error::{Error, Result};
use crate::families::Families;
use crate::kernel_summary::KernelSummary;
use crate::supervisor::RunPlan;
use crate::timeline::Timeline;
use serde::Serialize;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the user asked to capture.
#[derive(Debug, Clone)]
pub struct CaptureRequest {
    /// The workload: program and arguments.
    pub command: Vec<OsString>,
    /// Directory for logs and artifacts.
    pub out_dir: PathBuf,
    /// Unprofiled warm-up runs before the capture (0 = none).
    pub warmup_runs: u32,
    /// In-process warm-up skip: activity in the first `skip` of the profiled run is not
    /// recorded, for tools that can start late (CUPTI start-after, nsys `--delay`).
    pub skip: Duration,
    /// Capture window once the workload runs.
    pub window: Duration,
    /// Hard limit for each step.
    pub timeout: Duration,
}

/// Refuses a capture or deep-dive plan with nothing to run: every tool's first check.
pub fn require_command(command: &[OsString]) -> Result<()> {
    if command.is_empty() {
        return Err(Error::Unsupported("no command to profile".to_owned()));
    }
    Ok(())
}

impl CaptureRequest {
    /// The unprofiled warm-up runs every capture plan starts with: the command as it is,
    /// `warmup_runs` times, each logged to `warmup-N.log` in the output directory.
    pub fn warmup_steps(&self) -> Vec<RunPlan> {
        (0..self.warmup_runs)
            .map(|run| {
                let mut step =
                    RunPlan::new("warm-up", self.command.clone(), self.out_dir.join(format!("warmup-{run}.log")));
                step.timeout = Some(self.timeout);
                step
            })
            .collect()
    }
}

/// A file a capture must leave behind.
#[derive(Debug, Clone, Serialize)]
pub struct ExpectedArtifact {
    /// Where it will be (a path, or a glob-free directory for per-process files).
    pub path: PathBuf,
    /// Smallest size in bytes that can be a real artifact.
    pub min_bytes: u64,
}

/// A capture expressed as data: the steps to run in order and what they must produce.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CapturePlan {
    /// Steps, run in order by the supervisor (warm-up, capture, export).
    pub steps: Vec<RunPlan>,
    /// Artifacts checked after the last step.
    pub artifacts: Vec<ExpectedArtifact>,
    /// How a person opens the artifact (`nsys-ui report.nsys-rep`).
    pub how_to_open: String,
    /// Clean-up steps, run after the steps whatever happened (success, a failed step, a time
    /// limit, Ctrl-C): for what a tool starts outside the step's process group, which the
    /// group kill cannot reach (the `nsys` agent of a named session). Each must stop only
    /// what this capture started. Most tools leave it empty.
    pub cleanup: Vec<RunPlan>,
    /// What the user should know about this plan (a flag left out for an older tool version).
    pub notes: Vec<String>,
}

/// A kernel-breakdown tool (nsys, the built-in CUPTI tracer, rocprofv3, msprof).
pub trait BreakdownTool: Send + Sync {
    /// Short name used by `--tool` (`cupti`, `nsys`).
    fn name(&self) -> &'static str;
    /// Checks the tool is usable here; the error carries the install line.
    fn check(&self) -> Result<()>;
    /// Plans a capture of `request`.
    fn plan(&self, request: &CaptureRequest) -> Result<CapturePlan>;
    /// Loads the artifacts a capture (or the tool itself, earlier) wrote.
    fn load(&self, artifacts: &[PathBuf]) -> Result<Timeline>;
    /// True when this tool can load the artifact at `path` (by name or content).
    fn recognizes(&self, path: &Path) -> bool;
    /// After a failed capture into `out_dir`: what the tool's own logs say went wrong and
    /// how to fix it, when the tool knows (a report that was never finished, a permission).
    fn explain_failure(&self, out_dir: &Path) -> Option<String> {
        let _ = out_dir;
        None
    }
}

/// Reads an artifact that a vendor tool (or a framework profiler) already wrote, with no
/// capture of prof's own: a PyTorch profiler trace, an nsys export, an msprof directory.
pub trait Importer: Send + Sync {
    /// Short name of the format (`torch-trace`), for reports.
    fn name(&self) -> &'static str;
    /// True when the file or directory at `path` is in this format (by name or content; cheap).
    fn recognizes(&self, path: &Path) -> bool;
    /// Loads it into a timeline.
    fn load(&self, path: &Path) -> Result<Timeline>;
    /// For formats that hold only per-kernel totals (nsys `stats` CSV), not a timeline: the
    /// ranked summary itself. `None` for timeline formats.
    fn load_summary(&self, path: &Path, families: &Families) -> Option<Result<KernelSummary>> {
        let _ = (path, families);
        None
    }
}
