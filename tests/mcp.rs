//! `prof mcp` end to end with a real MCP client: rmcp's client (the official Rust SDK)
//! starts `prof mcp` as a child process, speaks the protocol over its stdio, lists the tools
//! and calls every one on fixtures and the vendors' fakes (tests/fakes), as an agent would.
//! Each answer is checked against what the same verb prints directly (`prof VERB --json`).

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ClientRequest, Implementation,
    ProgressNotificationParam, Request,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[path = "support/mod.rs"]
mod support;

use support::{fakes, fixture_arg, hermetic, path_with, success_json, Scratch};

/// Collects the progress notifications the server sends.
#[derive(Clone, Default)]
struct Client {
    progress: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Client {
    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.lock().unwrap().push(params.message.unwrap_or_default());
    }
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::default(), Implementation::new("prof-test", "0"))
    }
}

/// `prof mcp` with the NVIDIA fakes on PATH (nvidia-smi under load), run from `dir`.
async fn connect(dir: &std::path::Path) -> (RunningService<RoleClient, Client>, Client) {
    let std_command = hermetic(path_with(&fakes("nvidia")));
    let mut command = tokio::process::Command::from(std_command);
    command.arg("mcp").env("FAKE_NVIDIA_SMI", "busy").current_dir(dir);
    let transport = TokioChildProcess::new(command).expect("start prof mcp");
    let client = Client::default();
    let service = client.clone().serve(transport).await.expect("MCP handshake");
    (service, client)
}

async fn call(service: &RunningService<RoleClient, Client>, name: &'static str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else { panic!("arguments must be an object") };
    let params = CallToolRequestParams::new(name).with_arguments(arguments);
    service.call_tool(params).await.unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The structured content of a successful call, which matches its document's schema (a
/// summary too: it only drops optional detail and cuts lists).
fn structured(result: &CallToolResult) -> &Value {
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let document = result.structured_content.as_ref().expect("structured content");
    support::schema_check::assert_valid(document);
    document
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect()
}

/// `prof ARGS` directly, as JSON, with the same fakes.
fn direct(dir: &std::path::Path, args: &[&str]) -> Value {
    let output = hermetic(path_with(&fakes("nvidia")))
        .args(args)
        .env("FAKE_NVIDIA_SMI", "busy")
        .current_dir(dir)
        .output()
        .unwrap();
    success_json(&output)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_a_real_client_as_the_verb_does() {
    let scratch = Scratch::new("mcp-tools");
    let (service, client) = connect(scratch.path()).await;
    let info = service.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().map(|i| i.name.as_str()), Some("prof"));

    let tools = service.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(names, ["analyze", "breakdown", "deep_dive", "detect", "diff", "profile", "util"]);
    for tool in &tools {
        let description = tool.description.as_deref().unwrap_or_default();
        let schema = Value::Object((*tool.input_schema).clone());
        let runs_command = ["breakdown", "deep_dive", "profile", "util"].contains(&tool.name.as_ref());
        assert_eq!(description.contains("needs confirm: true"), runs_command, "{}: {description}", tool.name);
        assert!(schema["properties"]["detail"].is_object(), "{}: {schema}", tool.name);
        if ["breakdown", "deep_dive", "profile"].contains(&tool.name.as_ref()) {
            let required = schema["required"].as_array().unwrap();
            assert!(required.contains(&json!("command")), "{}: {schema}", tool.name);
        }
    }

    // detect: the fakes' NVIDIA machine, as `prof detect --json` sees it.
    let detect = call(&service, "detect", json!({})).await;
    let expected = direct(scratch.path(), &["detect", "--json"]);
    let got = structured(&detect);
    assert_eq!(got["schema"], "prof.detect.v1");
    assert_eq!(got["vendors"][0]["devices"], expected["vendors"][0]["devices"]);

    // analyze (the embedded profile): a summary by default, the whole document on request.
    let summary = call(&service, "analyze", json!({"rows": 3})).await;
    let summary = structured(&summary).clone();
    let expected = direct(scratch.path(), &["analyze", "--json"]);
    assert_eq!(summary["schema"], "prof.breakdown.v1");
    assert_eq!(summary["detail"], "summary");
    assert_eq!(summary["summary"]["kernels"].as_array().unwrap().len(), 3);
    assert_eq!(summary["summary"]["kernels"][0], expected["summary"]["kernels"][0]);
    assert_eq!(summary["diagnosis"], expected["diagnosis"]);
    assert!(summary.get("analyses").is_none() && summary["omitted"] == json!(["analyses"]));
    let full = call(&service, "analyze", json!({"detail": "full"})).await;
    let full = structured(&full);
    assert_eq!(full["analyses"], expected["analyses"]);
    assert_eq!(full["summary"]["kernels"], expected["summary"]["kernels"]);
    let bytes = serde_json::to_vec(full).unwrap().len();
    assert!(bytes < 1_000_000, "a full answer stays bounded: {bytes} bytes");

    // diff of two fixtures.
    let (a, b) = (fixture_arg("nvidia/h200-diff/eager.json"), fixture_arg("nvidia/h200-diff/graph.json"));
    let diff = call(&service, "diff", json!({"before": a, "after": b, "detail": "full"})).await;
    let expected = direct(scratch.path(), &["diff", &a, &b, "--json"]);
    assert_eq!(structured(&diff)["schema"], "prof.diff.v1");
    assert_eq!(structured(&diff)["timeline"], expected["timeline"]);

    // A file that is not there: an error result carrying prof.error.v1.
    let missing = call(&service, "analyze", json!({"path": "/nonexistent/trace.json"})).await;
    assert_eq!(missing.is_error, Some(true));
    let error = missing.structured_content.as_ref().unwrap();
    assert_eq!(error["schema"], "prof.error.v1");
    support::schema_check::assert_valid(error);
    assert!(error["message"].as_str().unwrap().contains("/nonexistent/trace.json"), "{error}");

    // util: a snapshot starts nothing; with a command it needs confirm: true.
    let snapshot = call(&service, "util", json!({})).await;
    assert_eq!(
        (structured(&snapshot)["schema"].as_str(), structured(&snapshot)["mode"].as_str()),
        (Some("prof.util.v1"), Some("snapshot"))
    );
    let refused = call(&service, "util", json!({"command": ["sleep", "1"]})).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("confirm: true"), "{}", text(&refused));

    // breakdown with the fake nsys: report1.sqlite's one kernel (python sqlite3: 2,523,567 ns),
    // and the plan's lines came as progress.
    let refused = call(&service, "breakdown", json!({"command": ["true"], "tool": "nsys"})).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(!scratch.path().join("prof-out").exists(), "nothing ran without confirm");
    let breakdown = call(&service, "breakdown", json!({"command": ["true"], "tool": "nsys", "confirm": true})).await;
    let top = &structured(&breakdown)["summary"]["kernels"][0];
    assert_eq!(
        (top["name"].as_str(), top["total_ns"].as_u64()),
        (Some("matrixMulKernel(float *, float *, float *, int)"), Some(2_523_567))
    );
    let progress = client.progress.lock().unwrap().clone();
    assert!(progress.iter().any(|line| line.contains("1. warm-up")), "{progress:?}");

    // deep_dive with the fake ncu: h200-verify/deep-dive-ncu-details.csv's 90.32 %.
    let args = json!({"command": ["true"], "kernel": "^nvjet$", "confirm": true});
    let dive = call(&service, "deep_dive", args).await;
    assert_eq!(structured(&dive)["kernels"][0]["compute_throughput_pct"], 90.32);

    // profile: util busy → breakdown (one dominant kernel) → deep dive, each step summarised.
    let profile = call(&service, "profile", json!({"command": ["sleep", "1"], "tool": "nsys", "confirm": true})).await;
    let profile = structured(&profile);
    assert_eq!(
        (profile["schema"].as_str(), profile["stopped_after"].as_str()),
        (Some("prof.profile.v1"), Some("deep-dive"))
    );
    let steps: Vec<&str> = profile["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(steps, ["util", "breakdown", "deep-dive"]);
    assert_eq!(profile["omitted"], json!(["steps.0.document", "steps.1.document", "steps.2.document"]));
    service.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_stops_the_run_and_its_workload() {
    let scratch = Scratch::new("mcp-cancel");
    let (service, _client) = connect(scratch.path()).await;
    let pid_file = scratch.path().join("workload.pid");
    let script = format!("echo $$ > {}; exec sleep 60", pid_file.display());
    let Value::Object(arguments) = json!({"command": ["sh", "-c", script], "confirm": true, "interval_ms": 50}) else {
        unreachable!()
    };
    let request =
        ClientRequest::CallToolRequest(Request::new(CallToolRequestParams::new("util").with_arguments(arguments)));
    let handle = service.send_cancellable_request(request, PeerRequestOptions::no_options()).await.unwrap();
    let started = Instant::now();
    while !pid_file.exists() {
        assert!(started.elapsed() < Duration::from_secs(20), "the workload never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    handle.cancel(Some("test".into())).await.unwrap();
    // prof got a Ctrl-C and stopped the workload it started.
    let gone = Instant::now();
    while std::path::Path::new(&format!("/proc/{pid}")).exists() && !is_zombie(pid) {
        assert!(gone.elapsed() < Duration::from_secs(15), "workload {pid} still runs after the cancel");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(started.elapsed() < Duration::from_secs(40), "stopped well before the workload's 60 s");
    // The server still answers.
    let detect = call(&service, "detect", json!({})).await;
    assert_eq!(structured(&detect)["schema"], "prof.detect.v1");
    service.cancel().await.unwrap();
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')))
        .unwrap_or(true)
}

/// The official Python SDK as a second client (`pip install mcp`; CI installs it and sets
/// PROF_REQUIRE_PYTHON_MCP=1, elsewhere the test says it was skipped).
#[test]
fn the_python_sdk_client_gets_the_same_answers() {
    let python_path = std::env::var("PROF_PYTHON_MCP_PATH").unwrap_or_default();
    let has_sdk = std::process::Command::new("python3")
        .args(["-c", "import mcp.client.stdio"])
        .env("PYTHONPATH", &python_path)
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_sdk {
        assert!(std::env::var_os("PROF_REQUIRE_PYTHON_MCP").is_none(), "the Python MCP SDK is required here");
        eprintln!("skipped: the Python MCP SDK is not installed (pip install mcp)");
        return;
    }
    let scratch = Scratch::new("mcp-python");
    let script = support::fixtures().join("../mcp_python_client.py");
    let (a, b) = (fixture_arg("nvidia/h200-diff/eager.json"), fixture_arg("nvidia/h200-diff/graph.json"));
    let output = std::process::Command::new("python3")
        .arg(&script)
        .args([env!("CARGO_BIN_EXE_prof"), &a, &b])
        .env("PATH", format!("{}:{}", fakes("nvidia").display(), std::env::var("PATH").unwrap_or_default()))
        .env("PYTHONPATH", &python_path)
        .env("PROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1")
        .env("CUDA_HOME", support::NOWHERE)
        .env("LD_LIBRARY_PATH", support::NOWHERE)
        .env("XDG_CACHE_HOME", scratch.path())
        .env("FAKE_NVIDIA_SMI", "busy")
        .current_dir(scratch.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let got: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(got["server"], "prof");
    assert_eq!(got["tools"], json!(["analyze", "breakdown", "deep_dive", "detect", "diff", "profile", "util"]));
    assert_eq!(got["required"]["deep_dive"], json!(["command", "kernel"]));
    for call in ["detect", "analyze", "diff", "breakdown"] {
        assert_eq!(got[call]["error"], false, "{call}: {}", got[call]);
        support::schema_check::assert_valid(&got[call]["doc"]);
    }
    let direct = direct(scratch.path(), &["analyze", "--json"]);
    assert_eq!(got["analyze"]["doc"]["summary"]["kernels"][0], direct["summary"]["kernels"][0]);
    assert_eq!(got["analyze"]["doc"]["summary"]["kernels"].as_array().unwrap().len(), 2);
    assert_eq!(got["breakdown"]["doc"]["summary"]["kernels"][0]["total_ns"], 2_523_567);
    assert!(
        got["progress"].as_array().unwrap().iter().any(|l| l.as_str().unwrap_or("").contains("1. warm-up")),
        "{}",
        got["progress"]
    );
    assert_eq!(got["refused"]["error"], true);
    assert!(got["refused"]["text"].as_str().unwrap().contains("confirm: true"));
}
