//! The tools' parameters: typed, and their JSON Schemas (the tools' input schemas) derived
//! from these structs; field docs become the properties' descriptions.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;

/// How much of the document a call returns.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// The headline parts: long detail dropped, lists cut to `rows` (default).
    #[default]
    Summary,
    /// The whole document, each list cut to 100 rows.
    Full,
}

/// What every tool takes about its answer (each tool's parameters carry `detail` and `rows`
/// themselves, so that an unknown parameter, a typo such as `pth`, is refused rather than
/// ignored: serde cannot deny unknown fields beside a flattened struct).
#[derive(Debug, Default, Clone, Copy)]
pub struct Shape {
    /// `summary` (default) or `full`.
    pub detail: Detail,
    /// Rows per list in a summary (default 10).
    pub rows: Option<usize>,
}

/// The shape of a tool's answer, from its own `detail` and `rows`.
macro_rules! shaped {
    ($($params:ident),*) => {$(
        impl $params {
            /// The answer's shape asked for.
            pub fn shape(&self) -> Shape {
                Shape { detail: self.detail, rows: self.rows }
            }
        }
    )*};
}
shaped!(DetectParams, UtilParams, BreakdownParams, DeepDiveParams, AnalyzeParams, DiffParams, ProfileParams);

/// No parameters but the answer's shape.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DetectParams {
    /// `summary` (default) or `full`.
    #[serde(default)]
    pub detail: Detail,
    /// Rows per list in a summary (default 10).
    pub rows: Option<usize>,
}

/// `prof util`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UtilParams {
    /// The workload to observe (program and arguments, not a shell string). Without it, and
    /// without `duration_s`, one snapshot of the machine.
    #[serde(default)]
    pub command: Vec<String>,
    /// Sample the machine for this many seconds instead of running a command.
    pub duration_s: Option<f64>,
    /// Sampling interval in milliseconds (default 100).
    pub interval_ms: Option<u64>,
    /// Stop the command after this many seconds.
    pub timeout_s: Option<u64>,
    /// Must be true when `command` or `duration_s` is given: the call runs for that long.
    #[serde(default)]
    pub confirm: bool,
    /// `summary` (default) or `full`.
    #[serde(default)]
    pub detail: Detail,
    /// Rows per list in a summary (default 10).
    pub rows: Option<usize>,
}

/// `prof breakdown`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BreakdownParams {
    /// The workload (program and arguments, not a shell string).
    pub command: Vec<String>,
    /// Capture tool (`cupti`, `nsys`, `rocprofv3`, `msprof`); default: the first that can run.
    pub tool: Option<String>,
    /// Capture window in seconds (default 10).
    pub window_s: Option<u64>,
    /// Skip into the run before recording: a duration (`20s`) or `auto` (after the load).
    pub skip: Option<String>,
    /// Unprofiled warm-up runs first (default 1).
    pub warmup: Option<u32>,
    /// Hard limit for each run, seconds (default 600).
    pub timeout_s: Option<u64>,
    /// Which part of the run: `steady` (default), `all`, `load`, `warmup`, `tail`.
    pub phase: Option<String>,
    /// Must be true: the command runs (warm-up + capture).
    #[serde(default)]
    pub confirm: bool,
    /// `summary` (default) or `full`.
    #[serde(default)]
    pub detail: Detail,
    /// Rows per list in a summary (default 10).
    pub rows: Option<usize>,
}

/// `prof deep-dive`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeepDiveParams {
    /// The workload (program and arguments, not a shell string).
    pub command: Vec<String>,
    /// Regular expression for the kernel's function name (`^name$`, as breakdown suggests).
    pub kernel: String,
    /// Matching launches to skip first (warm-up).
    pub launch_skip: Option<u32>,
    /// Launches to profile (default 1).
    pub launch_count: Option<u32>,
    /// Hard limit, seconds (default 600).
    pub timeout_s: Option<u64>,
    /// Must be true: the command runs under the kernel profiler, which replays the kernel (slow).
    #[serde(default)]
    pub confirm: bool,
    /// `summary` (default) or `full`.
    #[serde(default)]
    pub detail: Detail,
    /// Rows per list in a summary (default 10).
    pub rows: Option<usize>,
}

/// `prof analyze`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeParams {
    /// The artifact (a trace, an export, a profiler's output directory, a directory of
    /// per-rank traces); default: the embedded H200 profile.
    pub path: Option<String>,
    /// Which part of the run: `steady` (default), `all`, `load`, `warmup`, `tail`.
    pub phase: Option<String>,
    /// Only the kernel and family tables (fast on multi-GB exports).
    #[serde(default)]
    pub summary_only: bool,
    /// `summary` (default) or `full`.
    #[serde(default)]
    pub detail: Detail,
    /// Rows per list in a summary (default 10).
    pub rows: Option<usize>,
}

/// `prof diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffParams {
    /// The profile before the change.
    pub before: String,
    /// The profile after it.
    pub after: String,
    /// `summary` (default) or `full`.
    #[serde(default)]
    pub detail: Detail,
    /// Rows per list in a summary (default 10).
    pub rows: Option<usize>,
}

/// `prof profile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileParams {
    /// The workload (program and arguments, not a shell string).
    pub command: Vec<String>,
    /// Deepest step: `util`, `breakdown` or `deep-dive` (default).
    pub max_depth: Option<String>,
    /// Breakdown capture tool; default: the first that can run.
    pub tool: Option<String>,
    /// Hard limit for each run, seconds (default 600).
    pub timeout_s: Option<u64>,
    /// Must be true: the command runs up to four times, the last under a kernel profiler (slow).
    #[serde(default)]
    pub confirm: bool,
    /// `summary` (default) or `full`.
    #[serde(default)]
    pub detail: Detail,
    /// Rows per list in a summary (default 10).
    pub rows: Option<usize>,
}
