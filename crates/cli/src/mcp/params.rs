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
    /// Which part of the recording the verdict describes: `steady` (default, the active
    /// phase), `all`, `load`, `tail`, or `START..END`.
    pub phase: Option<String>,
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
    /// Open the window at an event instead of `skip`: `profiler` (the program's
    /// cudaProfilerStart), `range:NAME` (its first NVTX range NAME), `kernel:TEXT[@N]`.
    pub capture_range: Option<String>,
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
    /// Breakdown capture window in seconds (default 10).
    pub window_s: Option<u64>,
    /// Utilization sampling interval in milliseconds (default 100).
    pub interval_ms: Option<u64>,
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

/// The tools' parameters against the verbs' flags. A tool call runs prof itself with flags
/// (`super::run`), so clap parses them once, in the same `Args` structs as at a terminal; these
/// structs only name them for agents, in their units (`timeout_s`, not `--timeout 10m`) and
/// with `confirm`. The test keeps the two from drifting: every parameter is a flag of its verb,
/// and every flag of the verb is a parameter or named here as the terminal's alone.
#[cfg(test)]
mod drift {
    use super::*;
    use clap::CommandFactory;
    use std::collections::BTreeSet;

    /// Parameters of the tools alone: the answer's shape, the confirmation, positionals.
    const TOOL_ONLY: [&str; 7] = ["detail", "rows", "confirm", "command", "path", "before", "after"];

    /// Flags of the terminal alone: outputs a tool call does not write (the document is the
    /// result: `--json`, `--csv`, `--html`, `--chrome-trace`, `--out`, the rank summaries and
    /// the rank they are of), `--watch` (it never ends), `--yes` (the tools' `confirm`),
    /// `--top` (the tools' `rows`), `--families` (a rules file) and `--vendor`.
    const TERMINAL_ONLY: [&str; 13] = [
        "json",
        "csv",
        "html",
        "chrome-trace",
        "out",
        "rank-summary",
        "rank-summaries",
        "rank",
        "watch",
        "yes",
        "top",
        "families",
        "vendor",
    ];

    fn properties<T: JsonSchema>() -> BTreeSet<String> {
        let schema = schemars::schema_for!(T);
        let value = serde_json::to_value(&schema).unwrap();
        value["properties"].as_object().unwrap().keys().cloned().collect()
    }

    fn flag_of(parameter: &str) -> String {
        let name = parameter.strip_suffix("_ms").or_else(|| parameter.strip_suffix("_s")).unwrap_or(parameter);
        name.replace('_', "-")
    }

    fn check(verb: &str, parameters: BTreeSet<String>, wrong: &mut Vec<String>) {
        let cli = crate::Cli::command();
        let command = cli.find_subcommand(verb).unwrap_or_else(|| panic!("no verb {verb}"));
        let flags: BTreeSet<String> = command.get_arguments().filter_map(|a| a.get_long().map(str::to_owned)).collect();
        let mut offered = BTreeSet::new();
        for parameter in parameters.iter().filter(|p| !TOOL_ONLY.contains(&p.as_str())) {
            let flag = flag_of(parameter);
            if !flags.contains(&flag) {
                wrong.push(format!("{verb}: the tool's `{parameter}` is no flag `--{flag}` of the verb"));
            }
            offered.insert(flag);
        }
        for flag in &flags {
            if !(offered.contains(flag) || TERMINAL_ONLY.contains(&flag.as_str()) || flag == "help") {
                wrong.push(format!(
                    "{verb}: `--{flag}` is neither a parameter of the tool nor named as the terminal's alone"
                ));
            }
        }
    }

    #[test]
    fn every_tool_parameter_is_a_flag_of_its_verb_and_every_flag_is_accounted_for() {
        let mut wrong = Vec::new();
        check("detect", properties::<DetectParams>(), &mut wrong);
        check("util", properties::<UtilParams>(), &mut wrong);
        check("breakdown", properties::<BreakdownParams>(), &mut wrong);
        check("deep-dive", properties::<DeepDiveParams>(), &mut wrong);
        check("analyze", properties::<AnalyzeParams>(), &mut wrong);
        check("diff", properties::<DiffParams>(), &mut wrong);
        check("profile", properties::<ProfileParams>(), &mut wrong);
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
