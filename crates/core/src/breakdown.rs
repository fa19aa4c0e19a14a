//! The [`BreakdownTool`] trait: question 2, "where does the device time go?".
//!
//! A tool *plans* a capture as data ([`CapturePlan`]); the core supervisor runs the plan;
//! the tool then *loads* the artifacts into a [`Timeline`]. Loading is a pure function of
//! the files, tested on recorded real artifacts.

use crate::families::Families;
use crate::kernel_summary::KernelSummary;
use crate::recognition::{Certainty, Recognition};
use crate::run_plan::RunPlan;
use prof_timeline::error::{Error, Result};
use prof_timeline::timeline::Timeline;
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
    /// What opens the window when it is not a time (`skip`).
    pub range: CaptureRange,
    /// Hard limit for each step.
    pub timeout: Duration,
}

/// What opens a capture's window, when it is not a time after the start.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CaptureRange {
    /// `skip` after the workload starts (the default).
    #[default]
    Time,
    /// After the load: once launches go on without bulk host-to-device copies (`--skip auto`).
    Auto,
    /// Between the program's profiler start and stop calls (`cudaProfilerStart/Stop`).
    ProfilerApi,
    /// The first annotation range with this name (NVTX; a trailing `*` matches a prefix).
    Range {
        /// The range's name.
        name: String,
    },
    /// From the `nth` launch of a kernel whose name contains `pattern`.
    KernelLaunch {
        /// Text the kernel's name contains.
        pattern: String,
        /// Which matching launch (1-based).
        nth: u64,
    },
}

impl CaptureRange {
    /// Parses `--capture-range`: `profiler`, `range:NAME` (or `nvtx:NAME`), `kernel:TEXT[@N]`.
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let text = text.trim();
        let (head, rest) = text.split_once(':').unwrap_or((text, ""));
        match head {
            "profiler" | "cudaProfilerApi" if rest.is_empty() => Ok(Self::ProfilerApi),
            "range" | "nvtx" if !rest.is_empty() => Ok(Self::Range { name: rest.to_owned() }),
            "kernel" if !rest.is_empty() => {
                let (pattern, nth) = match rest.rsplit_once('@') {
                    Some((pattern, n)) => (
                        pattern,
                        n.parse::<u64>()
                            .ok()
                            .filter(|n| *n >= 1)
                            .ok_or_else(|| format!("`{n}` in `{text}` is not a launch number (1, 2, ...)"))?,
                    ),
                    None => (rest, 1),
                };
                if pattern.is_empty() {
                    return Err(format!("`{text}` names no kernel text"));
                }
                Ok(Self::KernelLaunch { pattern: pattern.to_owned(), nth })
            }
            _ => Err(format!("`{text}` is not profiler, range:NAME or kernel:TEXT[@N]")),
        }
    }

    /// A few words for plans and errors.
    pub fn describe(&self) -> String {
        match self {
            Self::Time => "a time after the start".to_owned(),
            Self::Auto => {
                "the work (--skip auto: the program's cudaProfilerStart or second step range, else the end of the load)"
                    .to_owned()
            }
            Self::ProfilerApi => "the profiler start/stop calls".to_owned(),
            Self::Range { name } => format!("the range `{name}`"),
            Self::KernelLaunch { pattern, nth } => format!("launch {nth} of a kernel named like `{pattern}`"),
        }
    }

    /// The error of a tool that has no equivalent of this range.
    pub fn unsupported(&self, tool: &str, supported: &str) -> Error {
        Error::Unsupported(format!(
            "{tool} cannot open its window at {}: it supports {supported}; --tool cupti supports them all",
            self.describe()
        ))
    }
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExpectedArtifact {
    /// Where it will be (a path, or a glob-free directory for per-process files).
    pub path: PathBuf,
    /// Smallest size in bytes that can be a real artifact.
    pub min_bytes: u64,
}

/// A capture expressed as data: the steps to run in order and what they must produce.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// How the window is opened and closed from outside while the workload runs, for a
    /// long-lived workload such as a server (`prof serve`).
    pub control: WindowControl,
}

/// How a running capture's window is opened and closed from outside, as data: `prof serve`
/// drives it without knowing which tool it is.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WindowControl {
    /// No outside control: the window is what the request fixed, and a server's whole run
    /// is recorded.
    #[default]
    Fixed,
    /// SIGUSR1 to each process of the capture step that handles it opens the window and a
    /// second one closes it; `env`, added to the capture step, makes the tool wait for the first.
    Usr1 {
        /// Environment for the capture step.
        env: Vec<(String, String)>,
    },
    /// Commands: `launch` runs the workload in place of the capture step, `start` opens the
    /// window, `stop` closes it, and `shutdown` always runs at the end (what `launch` started
    /// outside the workload's process group).
    Commands {
        /// Runs the workload (its argv ends with the workload's own).
        launch: Box<RunPlan>,
        /// Opens the window.
        start: Box<RunPlan>,
        /// Closes the window.
        stop: Box<RunPlan>,
        /// Clean-up, whatever happened.
        shutdown: Box<RunPlan>,
    },
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
    /// For artifacts whose kernel summary can be folded while they stream (a multi-GB trace):
    /// the summary of `path` alone (`prof analyze --summary-only`), equal to the summary of
    /// what [`Self::load`] gives; `None` where the tool only loads.
    fn stream_summary(&self, path: &Path, families: &Families) -> Option<Result<StreamedSummary>> {
        let _ = (path, families);
        None
    }
    /// True when this tool can load the artifact at `path` (by name or content).
    fn recognizes(&self, path: &Path) -> bool;
    /// How sure this tool is that it reads `path`, and why ([`crate::Registry::recognize`]
    /// takes the surest reader). By default: [`Self::recognizes`], as content.
    fn recognize(&self, path: &Path) -> Option<Recognition> {
        self.recognizes(path).then(|| Recognition::new(Certainty::Content, format!("{} output", self.name())))
    }
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
    /// How sure this importer is that `path` is in its format, and why. By default:
    /// [`Self::recognizes`], as content.
    fn recognize(&self, path: &Path) -> Option<Recognition> {
        self.recognizes(path).then(|| Recognition::new(Certainty::Content, format!("a {} file", self.name())))
    }
    /// Loads it into a timeline.
    fn load(&self, path: &Path) -> Result<Timeline>;
    /// For formats that hold only per-kernel totals (nsys `stats` CSV), not a timeline: the
    /// ranked summary itself. `None` for timeline formats.
    fn load_summary(&self, path: &Path, families: &Families) -> Option<Result<KernelSummary>> {
        let _ = (path, families);
        None
    }
    /// Reads the format from memory (an artifact embedded in the binary); `None` when the
    /// format is read from files only.
    fn read_bytes(&self, bytes: &[u8], name: &Path) -> Option<Result<Timeline>> {
        let _ = (bytes, name);
        None
    }
    /// For formats that can be ranked while they stream, without a timeline (a multi-GB op
    /// table, a database's device tables): the summary alone (`prof analyze --summary-only`).
    fn stream_summary(&self, path: &Path, families: &Families) -> Option<Result<StreamedSummary>> {
        let _ = (path, families);
        None
    }
}

/// A kernel summary computed while the artifact streamed, with the per-op-type totals the
/// format keeps (Ascend op tables).
#[derive(Debug, Clone)]
pub struct StreamedSummary {
    /// The ranked kernels and families.
    pub summary: KernelSummary,
    /// Tasks and time per op type, longest first, where the format has op types.
    pub op_types: Option<Vec<OpTypeTotal>>,
}

/// Tasks and time of one op type.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OpTypeTotal {
    /// The op type (`MatMul`).
    #[serde(rename = "type")]
    pub op_type: String,
    /// Tasks of it.
    pub calls: u64,
    /// Their total device time, ns.
    pub total_ns: u64,
    /// Share of all op time, %.
    pub share_pct: f64,
}

#[cfg(test)]
mod tests {
    use super::CaptureRange;

    #[test]
    fn capture_ranges_parse_and_bad_ones_say_why() {
        assert_eq!(CaptureRange::parse("profiler"), Ok(CaptureRange::ProfilerApi));
        assert_eq!(
            CaptureRange::parse("nvtx:ProfilerStep#4"),
            Ok(CaptureRange::Range { name: "ProfilerStep#4".into() })
        );
        assert_eq!(CaptureRange::parse("range:a:b"), Ok(CaptureRange::Range { name: "a:b".into() }));
        assert_eq!(
            CaptureRange::parse("kernel:flash_fwd@12"),
            Ok(CaptureRange::KernelLaunch { pattern: "flash_fwd".into(), nth: 12 })
        );
        assert_eq!(
            CaptureRange::parse("kernel:gemm"),
            Ok(CaptureRange::KernelLaunch { pattern: "gemm".into(), nth: 1 })
        );
        for bad in ["", "range", "range:", "kernel:@3", "kernel:gemm@0", "kernel:gemm@two", "auto", "later"] {
            let error = CaptureRange::parse(bad).unwrap_err();
            assert!(error.starts_with('`'), "{bad}: {error}");
        }
        let refusal = CaptureRange::Auto.unsupported("msprof", "a time (--skip) only").to_string();
        assert!(refusal.contains("msprof cannot open its window at the work (--skip auto"), "{refusal}");
    }
}
