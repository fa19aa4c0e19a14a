//! The [`DeepDive`] trait and [`KernelReport`]: question 3, "why is this kernel slow?".

use crate::breakdown::CapturePlan;
use prof_timeline::error::Result;
use serde::Serialize;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the user asked to examine.
#[derive(Debug, Clone)]
pub struct DeepDiveRequest {
    /// The workload: program and arguments.
    pub command: Vec<OsString>,
    /// Regular expression selecting the kernel by name.
    pub kernel_regex: String,
    /// Launches of the matching kernel to skip first (warm-up).
    pub launch_skip: u32,
    /// Launches to capture.
    pub launch_count: u32,
    /// Directory for logs and artifacts.
    pub out_dir: PathBuf,
    /// Hard limit for the capture.
    pub timeout: Duration,
}

/// A single-kernel profiler (ncu, rocprofv3 counters).
pub trait DeepDive: Send + Sync {
    /// Short name (`ncu`).
    fn name(&self) -> &'static str;
    /// Checks the tool is usable here; the error carries the install line.
    fn check(&self) -> Result<()>;
    /// Plans the capture.
    fn plan(&self, request: &DeepDiveRequest) -> Result<CapturePlan>;
    /// Loads the captured (or pre-existing) artifact into one report per kernel launch.
    fn load(&self, artifacts: &[PathBuf]) -> Result<Vec<KernelReport>>;
    /// True when this tool can load the artifact at `path`.
    fn recognizes(&self, path: &Path) -> bool;
    /// How sure this tool is that it reads `path`, and why. By default: [`Self::recognizes`],
    /// as content.
    fn recognize(&self, path: &Path) -> Option<crate::recognition::Recognition> {
        self.recognizes(path).then(|| {
            crate::recognition::Recognition::new(
                crate::recognition::Certainty::Content,
                format!("{} output", self.name()),
            )
        })
    }
    /// What the capture's logs in `out_dir` say went wrong, with the fix, when the tool knows.
    /// Asked after a failed capture and after a successful one that produced no report
    /// (ncu exits 0 when the kernel filter matched nothing).
    fn explain_failure(&self, out_dir: &Path) -> Option<String> {
        let _ = out_dir;
        None
    }
}

/// Severity of a profiler rule finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Information.
    Info,
    /// An optimisation opportunity.
    Opportunity,
    /// A warning.
    Warning,
}

/// One rule finding (ncu's OPT/WRN), with its estimated speedup where given.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Finding {
    /// How serious.
    pub severity: Severity,
    /// Which rule or section.
    pub rule: String,
    /// What it says.
    pub message: String,
    /// Estimated speedup in percent, where the tool estimates one.
    pub estimated_speedup_pct: Option<f64>,
}

/// Achieved against theoretical occupancy and what limits it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Occupancy {
    /// Achieved occupancy, percent.
    pub achieved_pct: Option<f64>,
    /// Theoretical occupancy, percent.
    pub theoretical_pct: Option<f64>,
    /// The limiter (`registers`, `shared_memory`, `warps`, `blocks`, `barriers`; ties joined with `+`).
    pub limiter: Option<String>,
}

/// Where a kernel sits against the roofline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Roofline {
    /// FLOP per byte of DRAM traffic.
    pub arithmetic_intensity: f64,
    /// Intensity at which the device turns compute-bound.
    pub ridge_point: f64,
    /// True when the kernel is left of the ridge.
    pub memory_bound: bool,
    /// Achieved performance as a share of the bound at this intensity, percent.
    pub achieved_pct_of_bound: Option<f64>,
}

/// Everything a deep dive learned about one kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KernelReport {
    /// Kernel name.
    pub kernel: String,
    /// Device index.
    pub device: Option<u32>,
    /// Duration, nanoseconds.
    pub duration_ns: Option<f64>,
    /// Compute throughput, percent of peak.
    pub compute_throughput_pct: Option<f64>,
    /// Memory throughput, percent of peak.
    pub memory_throughput_pct: Option<f64>,
    /// Occupancy and its limiter.
    pub occupancy: Option<Occupancy>,
    /// Top warp stall reasons with their share, percent, largest first.
    pub stalls: Vec<(String, f64)>,
    /// Roofline position.
    pub roofline: Option<Roofline>,
    /// Rule findings, ranked by estimated speedup.
    pub findings: Vec<Finding>,
    /// One-line verdict.
    pub verdict: Option<String>,
    /// The pipes and memory levels against their peaks and what bounds the launch, where the
    /// tool records them (added in 0.6.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
}

/// What bounds a launch, read from its pipes and memory levels against their peaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// A compute pipe and a memory level both near their peaks: the kernel runs at the
    /// hardware's limit; the lever is less work, not this kernel.
    AtRoofline,
    /// A compute pipe (tensor or FP) near its peak.
    ComputeBound,
    /// DRAM bandwidth near its peak.
    DramBound,
    /// L2 bandwidth near its peak.
    L2Bound,
    /// L1 / shared-memory bandwidth near its peak.
    L1SharedBound,
    /// Fewer blocks than SMs, under one wave: part of the device idles.
    GridTooSmall,
    /// Nothing near its peak: the warps wait (latency, dependencies, occupancy).
    LatencyBound,
    /// Between: no unit near its peak, some above the latency line.
    Mixed,
}

/// A launch's pipes and memory levels against their peaks, percent, and its grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Limits {
    /// Tensor-core pipe, percent of peak over the elapsed cycles.
    pub tensor_pipe_pct: Option<f64>,
    /// The busiest FP pipe (FMA, FP64), percent of peak over the elapsed cycles.
    pub fp_pipe_pct: Option<f64>,
    /// DRAM throughput, percent of peak.
    pub dram_pct: Option<f64>,
    /// L2 throughput, percent of peak.
    pub l2_pct: Option<f64>,
    /// L1 / shared-memory throughput, percent of peak.
    pub l1_pct: Option<f64>,
    /// Blocks in the grid.
    pub grid_blocks: Option<f64>,
    /// SMs (compute units) on the device.
    pub sms: Option<f64>,
    /// Waves of blocks per SM.
    pub waves_per_sm: Option<f64>,
    /// The SM clock during the replay as a share of its maximum, percent.
    pub sm_clock_pct_of_max: Option<f64>,
    /// What bounds the launch.
    pub bound: Bound,
}
