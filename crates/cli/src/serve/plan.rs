//! The plan of one `prof serve` run, as data: how the server is started under the chosen
//! capture, how the capture window is opened and closed around the load, what runs after
//! the server stopped (exports), and which artifacts must exist.
//!
//! The breakdown tool's own plan is the source of truth: prof asks it to plan a capture of
//! the server command and takes the capture step (its argv and environment) as the server,
//! then adds what a long-lived server needs, from the plan's own [`prof_core::WindowControl`]:
//! a signal (CUPTI: `PROF_CUPTI_SIGNAL=paused`, then SIGUSR1), commands (nsys: the server
//! under `nsys launch`, the window `nsys start` / `nsys stop`), or nothing, and then the
//! whole server run is recorded. No tool is named here.

use prof_core::run_plan::RunPlan;
use prof_core::{BreakdownTool, CaptureRequest, ExpectedArtifact};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// The server's log, in the output directory.
pub const SERVER_LOG: &str = "server.log";
/// The benchmark command's log, in the output directory.
pub const BENCH_LOG: &str = "bench.log";
/// Utilization samples of the window (`--tool util`), in the output directory.
pub const UTIL_CSV: &str = "serve-util.csv";

/// How the capture window is opened and closed around the load.
#[derive(Debug, Clone)]
pub enum ServeWindow {
    /// No capture: only the load runs (`--tool none`).
    LoadOnly,
    /// prof's utilization recorder samples during the window (`--tool util`).
    Utilization,
    /// SIGUSR1 to the server's processes that handle it opens the window, a second closes it.
    Signal,
    /// A command opens the window (`nsys start` of the `nsys launch` session), another closes it.
    Commands {
        /// Opens the window.
        start: Box<RunPlan>,
        /// Closes the window.
        stop: Box<RunPlan>,
    },
    /// The tool records the server's whole life (no start/stop control): warm-up included.
    WholeRun,
    /// The server's own profiler: an HTTP request opens the window, another closes it, and the
    /// server then writes its traces into `traces` (`--tool server`).
    Http {
        /// Opens the window.
        start: Box<super::profiler_call::Call>,
        /// Closes it.
        stop: Box<super::profiler_call::Call>,
        /// Where the server writes its traces.
        traces: PathBuf,
    },
}

/// What the user asked for, as far as the plan is concerned.
#[derive(Debug, Clone)]
pub struct PlanRequest {
    /// The server command.
    pub server: Vec<OsString>,
    /// The benchmark command, when one replaces the built-in load.
    pub bench: Option<Vec<OsString>>,
    /// Limit of the benchmark command.
    pub bench_timeout: Duration,
    /// Output directory.
    pub out_dir: PathBuf,
    /// Capture window.
    pub window: Duration,
    /// Echo the benchmark's output to stderr.
    pub echo: bool,
}

/// One `prof serve` run as data.
#[derive(Debug, Clone)]
pub struct ServePlan {
    /// `none`, `util`, or the breakdown tool's name.
    pub tool: String,
    /// The server, started in its own process group.
    pub server: RunPlan,
    /// The benchmark command, when given.
    pub bench: Option<RunPlan>,
    /// How the window is opened and closed.
    pub window: ServeWindow,
    /// Steps run after the server stopped (exports).
    pub after: Vec<RunPlan>,
    /// Clean-up steps run once the server stopped, whatever happened (the nsys session's
    /// `nsys shutdown`, which the group kill cannot reach); empty for most tools.
    pub cleanup: Vec<RunPlan>,
    /// What the capture must leave behind.
    pub artifacts: Vec<ExpectedArtifact>,
    /// How a person opens the artifact.
    pub how_to_open: Option<String>,
    /// What the user should know about this combination.
    pub notes: Vec<String>,
}

/// Environment a known server needs to be profiled, from prof's table of servers
/// ([`prof_core::servers`]): MAX (`max serve`, also behind a launcher such as
/// `pixi run max serve`) only emits kernel names and detailed timing with
/// `MODULAR_ENABLE_PROFILING=detailed`.
pub fn server_env(server: &[OsString]) -> Vec<(String, String)> {
    super::known::server_env(server)
}

/// The model a server command names, for the plan: the value of `--model`, `--model-path`
/// or `--model-name` (also as `--flag=value`), else the word after `serve` when it is not
/// a flag (`vllm serve Qwen/Qwen2.5-0.5B`).
pub fn model_of(server: &[OsString]) -> Option<String> {
    let words: Vec<String> = server.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    const FLAGS: [&str; 3] = ["--model", "--model-path", "--model-name"];
    for (index, word) in words.iter().enumerate() {
        if let Some((flag, value)) = word.split_once('=') {
            if FLAGS.contains(&flag) {
                return Some(value.to_owned());
            }
        } else if FLAGS.contains(&word.as_str()) {
            return words.get(index + 1).cloned();
        }
    }
    let serve = words.iter().position(|w| w == "serve")?;
    words.get(serve + 1).filter(|w| !w.starts_with('-')).cloned()
}

pub(super) fn base_server(request: &PlanRequest, argv: Vec<OsString>) -> RunPlan {
    // Not echoed: a server logs every request; its log file is named in the plan and the
    // report, and its last lines are shown when it fails.
    let mut server = RunPlan::new("server", argv, request.out_dir.join(SERVER_LOG));
    server.env = server_env(&request.server);
    server
}

pub(super) fn bench(request: &PlanRequest) -> Option<RunPlan> {
    request.bench.as_ref().map(|argv| {
        let mut step = RunPlan::new("bench", argv.clone(), request.out_dir.join(BENCH_LOG));
        step.timeout = Some(request.bench_timeout);
        step.echo = request.echo;
        step
    })
}

/// The plan without a breakdown tool: `none` (load only) or `util` (recorder in the window).
pub fn without_tool(request: &PlanRequest, utilization: bool) -> ServePlan {
    let (window, artifacts, how_to_open) = if utilization {
        let csv = request.out_dir.join(UTIL_CSV);
        let open = format!("{} holds one row per device and sample (any spreadsheet)", csv.display());
        (ServeWindow::Utilization, vec![ExpectedArtifact { path: csv, min_bytes: 1 }], Some(open))
    } else {
        (ServeWindow::LoadOnly, Vec::new(), None)
    };
    ServePlan {
        tool: if utilization { "util" } else { "none" }.to_owned(),
        server: base_server(request, request.server.clone()),
        bench: bench(request),
        window,
        after: Vec::new(),
        cleanup: Vec::new(),
        artifacts,
        how_to_open,
        notes: Vec::new(),
    }
}

/// The plan with breakdown tool `tool`, from the tool's own capture plan of the server.
pub fn with_tool(request: &PlanRequest, tool: &dyn BreakdownTool) -> Result<ServePlan, String> {
    let capture_request = CaptureRequest {
        command: request.server.clone(),
        out_dir: request.out_dir.clone(),
        warmup_runs: 0,
        skip: Duration::ZERO,
        window: request.window,
        range: prof_core::CaptureRange::Time,
        timeout: Duration::from_secs(24 * 3600),
    };
    let plan = tool.plan(&capture_request).map_err(|e| e.to_string())?;
    let index = plan
        .steps
        .iter()
        .position(|s| s.label == "capture")
        .or_else(|| plan.steps.iter().position(|s| s.argv.ends_with(&request.server)))
        .ok_or_else(|| format!("{}'s plan has no capture step for the server", tool.name()))?;
    let capture = &plan.steps[index];
    let after: Vec<RunPlan> = plan.steps[index + 1..].to_vec();
    let mut notes = Vec::new();
    let mut cleanup = plan.cleanup;
    let (server, window) = match plan.control {
        prof_core::WindowControl::Usr1 { env } => {
            let mut server = base_server(request, capture.argv.clone());
            server.env.extend(capture.env.iter().cloned());
            server.env.extend(env);
            notes.push(
                "the window is opened and closed by SIGUSR1 to the server's processes that loaded the tracer; \
                 the server must initialise CUDA before it reports healthy"
                    .to_owned(),
            );
            (server, ServeWindow::Signal)
        }
        prof_core::WindowControl::Commands { launch, start, stop, shutdown } => {
            let mut server = base_server(request, launch.argv);
            server.env.extend(launch.env);
            cleanup = vec![*shutdown];
            (server, ServeWindow::Commands { start, stop })
        }
        prof_core::WindowControl::Fixed => {
            let mut server = base_server(request, capture.argv.clone());
            server.env.extend(capture.env.iter().cloned());
            notes.push(format!(
                "{} has no start/stop control here: it records the server's whole run, warm-up included",
                tool.name()
            ));
            (server, ServeWindow::WholeRun)
        }
    };
    Ok(ServePlan {
        tool: tool.name().to_owned(),
        server,
        bench: bench(request),
        window,
        after,
        cleanup,
        artifacts: plan.artifacts,
        how_to_open: Some(plan.how_to_open),
        notes,
    })
}

impl ServePlan {
    /// The plan as a person reads it, one line per step, with `load` describing the load.
    pub fn describe(&self, health: &str, ready_timeout: Duration, warmup: &str, load: &str) -> String {
        let mut out = format!("prof serve with --tool {}:\n", self.tool);
        let server = &self.server;
        if let Some(name) = super::known::server_name(&self.server.argv) {
            out.push_str(&format!("  server recognised: {name}\n"));
        }
        if let Some(model) = model_of(&self.server.argv) {
            out.push_str(&format!("  model: {model}\n"));
        }
        out.push_str(&format!(
            "  server (own process group, log {}):\n    {}\n",
            server.log.display(),
            server.display_command()
        ));
        out.push_str(&format!(
            "  ready: alive with no early error in its log, then GET {health} until 200 (limit {:.0} s)\n",
            ready_timeout.as_secs_f64()
        ));
        out.push_str(&format!("  warm-up (unprofiled): {warmup}\n"));
        let window = match &self.window {
            ServeWindow::LoadOnly => "no capture, the load only".to_owned(),
            ServeWindow::Utilization => "prof's utilization recorder samples the devices".to_owned(),
            ServeWindow::Signal => "SIGUSR1 to the server opens the window, a second closes it".to_owned(),
            ServeWindow::Commands { start, stop } => {
                format!("\n    {}\n    … load …\n    {}", start.display_command(), stop.display_command())
            }
            ServeWindow::WholeRun => "the whole server run is recorded".to_owned(),
            ServeWindow::Http { start, stop, traces } => format!(
                "the server's own profiler\n    {}\n    … load …\n    {} (the server then writes its traces into {})",
                start.describe(),
                stop.describe(),
                traces.display()
            ),
        };
        out.push_str(&format!("  capture window: {window}\n"));
        match &self.bench {
            Some(bench) => out.push_str(&format!(
                "  load: {} (log {}, limit {:.0} s)\n",
                bench.display_command(),
                bench.log.display(),
                bench.timeout.unwrap_or_default().as_secs_f64()
            )),
            None => out.push_str(&format!("  load: {load}\n")),
        }
        out.push_str("  then: the server's process group is stopped (SIGINT, then SIGKILL)\n");
        for step in &self.after {
            out.push_str(&format!("  after: {}: {}\n", step.label, step.display_command()));
        }
        for step in &self.cleanup {
            out.push_str(&format!("  always at the end, {}: {}\n", step.label, step.display_command()));
        }
        for artifact in &self.artifacts {
            out.push_str(&format!("  artifact: {}\n", artifact.path.display()));
        }
        for note in &self.notes {
            out.push_str(&format!("  note: {note}\n"));
        }
        out
    }
}

#[cfg(test)]
mod tests;
