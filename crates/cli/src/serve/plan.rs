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
mod tests {
    use super::*;

    fn request() -> PlanRequest {
        PlanRequest {
            server: vec!["max".into(), "serve".into(), "--model".into(), "m".into()],
            bench: None,
            bench_timeout: Duration::from_secs(600),
            out_dir: PathBuf::from("/tmp/out"),
            window: Duration::from_secs(10),
            echo: false,
        }
    }

    #[test]
    fn max_gets_detailed_profiling_and_others_nothing() {
        assert_eq!(server_env(&request().server), [("MODULAR_ENABLE_PROFILING".into(), "detailed".into())]);
        assert!(server_env(&["python3".into(), "serve.py".into()]).is_empty());
        assert!(server_env(&["max".into(), "generate".into()]).is_empty());
        let launched: Vec<OsString> = ["pixi", "run", "/opt/bin/max", "serve", "--model", "m"].map(Into::into).into();
        assert_eq!(server_env(&launched).len(), 1);
        assert!(server_env(&["serve".into(), "max".into()]).is_empty());
        let words = |text: &str| text.split(' ').map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            model_of(&words("max serve --model-path modularai/Llama-3.1-8B")).as_deref(),
            Some("modularai/Llama-3.1-8B")
        );
        assert_eq!(model_of(&words("vllm serve Qwen/Qwen2.5-0.5B --port 8000")).as_deref(), Some("Qwen/Qwen2.5-0.5B"));
        assert_eq!(model_of(&words("python3 -m sglang.launch_server --model=m1")).as_deref(), Some("m1"));
        assert_eq!(model_of(&words("python3 serve_model.py --port 8000")), None);
    }

    /// The registry's breakdown tool called `name` (tools are configured by their documented
    /// environment variables here, as a user would).
    #[cfg(feature = "nvidia")]
    fn registry_tool(name: &str) -> Box<dyn BreakdownTool> {
        let registry = crate::registry::build();
        let mut tools = registry.vendors().iter().flat_map(|v| v.breakdown_tools());
        tools.find(|t| t.name() == name).unwrap_or_else(|| panic!("no tool {name} in this build"))
    }

    #[cfg(feature = "nvidia")]
    #[test]
    fn cupti_runs_the_server_with_the_tracer_paused_until_sigusr1() {
        let dir = std::env::temp_dir().join(format!("prof-serve-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let tracer = dir.join("libprof_cupti_tracer.so");
        std::fs::write(&tracer, b"\x7fELF").unwrap();
        // No other unit test of this binary reads the variable.
        std::env::set_var("PROF_CUPTI_TRACER", &tracer);
        let tool = registry_tool("cupti");
        let mut request = request();
        request.server = vec!["python3".into(), "serve_model.py".into(), "--port".into(), "8000".into()];
        let plan = with_tool(&request, tool.as_ref()).unwrap();
        assert_eq!(plan.server.argv, request.server, "the server runs as it is, the tracer comes by environment");
        let env = |key: &str| plan.server.env.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        assert_eq!(env("PROF_CUPTI_SIGNAL"), Some("paused"));
        assert_eq!(env("PROF_CUPTI_DURATION_MS"), Some("10000"));
        assert!(env("CUDA_INJECTION64_PATH").is_some_and(|p| p.ends_with("libprof_cupti_tracer.so")));
        assert!(matches!(plan.window, ServeWindow::Signal));
        assert_eq!(plan.artifacts[0].path, PathBuf::from("/tmp/out/cupti"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(feature = "nvidia")]
    #[test]
    fn nsys_launches_the_server_and_opens_the_window_with_start_and_stop() {
        let fake = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fakes/nvidia/nsys");
        // No other unit test of this binary reads the variable.
        std::env::set_var("PROF_NSYS", &fake);
        let tool = registry_tool("nsys");
        let plan = with_tool(&request(), tool.as_ref()).unwrap();
        let words = |step: &RunPlan| step.argv.iter().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>();
        let session = format!("prof-launch-{}", std::process::id());
        let launch = words(&plan.server);
        assert_eq!(launch[1..3], ["launch".to_owned(), format!("--session-new={session}")]);
        assert!(launch.contains(&"--trace=cuda,nvtx,osrt".to_owned()), "{launch:?}");
        assert!(launch.ends_with(&["max", "serve", "--model", "m"].map(String::from)), "{launch:?}");
        assert_eq!(plan.server.env, [("MODULAR_ENABLE_PROFILING".into(), "detailed".into())]);
        let ServeWindow::Commands { start, stop } = &plan.window else { panic!("{:?}", plan.window) };
        assert_eq!(words(start)[1..3], ["start".to_owned(), format!("--session={session}")]);
        assert!(words(start).contains(&"--output=/tmp/out/prof-nsys".to_owned()), "{:?}", words(start));
        assert_eq!(words(stop)[1..], ["stop".to_owned(), format!("--session={session}")]);
        assert_eq!(plan.after.len(), 1, "the sqlite export runs after the server stopped");
        assert_eq!(words(&plan.after[0])[1], "export");
        assert_eq!(plan.cleanup.len(), 1, "only the serve session's shutdown, not breakdown's");
        assert_eq!(words(&plan.cleanup[0])[1..], ["shutdown".to_owned(), format!("--session={session}")]);
    }

    /// Each way a tool controls its window becomes serve's, with no vendor's tool in the build
    /// (`prof_core::testing::FakeTool`): a signal keeps the capture's environment on the server;
    /// commands launch the server and leave their shutdown as the one clean-up; a fixed window
    /// runs the capture step as the server.
    #[test]
    fn every_window_control_plans_a_server_without_a_vendor() {
        use prof_core::testing::FakeTool;
        use prof_core::WindowControl;
        let signal = FakeTool(WindowControl::Usr1 { env: vec![("FAKE_WAIT".into(), "1".into())] });
        let plan = with_tool(&request(), &signal).unwrap();
        assert!(matches!(plan.window, ServeWindow::Signal));
        assert!(plan.server.argv.starts_with(&["fake-tool".into(), "--window".into(), "10000".into()]));
        assert!(plan.server.argv.ends_with(&request().server), "{:?}", plan.server.argv);
        assert!(plan.server.env.contains(&("FAKE_WAIT".into(), "1".into())));
        assert!(plan.notes.iter().any(|n| n.contains("SIGUSR1")), "{:?}", plan.notes);
        assert_eq!(plan.artifacts[0].path, PathBuf::from("/tmp/out/fake.trace"));

        let step = |name: &str| Box::new(RunPlan::new(name, vec![name.into()], "/tmp/out/x.log"));
        let launch = RunPlan::new("launch", vec!["fake-launch".into(), "max".into()], "/tmp/out/l.log");
        let commands = FakeTool(WindowControl::Commands {
            launch: Box::new(launch),
            start: step("start"),
            stop: step("stop"),
            shutdown: step("shutdown"),
        });
        let plan = with_tool(&request(), &commands).unwrap();
        assert_eq!(plan.server.argv[0], OsString::from("fake-launch"));
        let ServeWindow::Commands { start, stop } = &plan.window else { panic!("{:?}", plan.window) };
        assert_eq!((start.label.as_str(), stop.label.as_str()), ("start", "stop"));
        assert_eq!(plan.cleanup.iter().map(|c| c.label.as_str()).collect::<Vec<_>>(), ["shutdown"]);

        let fixed = with_tool(&request(), &FakeTool(WindowControl::Fixed)).unwrap();
        assert!(fixed.server.argv.starts_with(&["fake-tool".into()]) && fixed.after.is_empty());
    }

    #[test]
    fn util_plans_a_csv_and_none_plans_nothing() {
        let util = without_tool(&request(), true);
        assert_eq!(util.server.log, PathBuf::from("/tmp/out/server.log"));
        assert_eq!(util.server.argv, request().server);
        assert_eq!(util.artifacts[0].path, PathBuf::from("/tmp/out/serve-util.csv"));
        let none = without_tool(&request(), false);
        assert!(none.artifacts.is_empty() && matches!(none.window, ServeWindow::LoadOnly));
        let text = none.describe("http://h/health", Duration::from_secs(120), "3 requests", "10 requests");
        assert!(text.contains("max serve --model m") && text.contains("GET http://h/health until 200"), "{text}");
    }
}
