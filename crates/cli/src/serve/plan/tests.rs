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
