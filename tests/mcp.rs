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

async fn call<C: ClientHandler>(
    service: &RunningService<RoleClient, C>,
    name: &'static str,
    arguments: Value,
) -> CallToolResult {
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
        // Annotations (#53): the tools that start nothing are read-only and closed-world; the
        // ones that run the user's command are open-world and not destructive.
        let hints = tool.annotations.as_ref().unwrap_or_else(|| panic!("{} has annotations", tool.name));
        assert_eq!(hints.read_only_hint, Some(!runs_command), "{}", tool.name);
        assert_eq!(hints.open_world_hint, Some(runs_command), "{}", tool.name);
        if runs_command {
            assert_eq!(hints.destructive_hint, Some(false), "{}", tool.name);
        }
        // Output schemas are the documents' own, except analyze's (its document depends on the file).
        let output = tool.output_schema.as_ref().map(|s| Value::Object((**s).clone()));
        match tool.name.as_ref() {
            "analyze" => assert!(output.is_none()),
            name => {
                let schema = output.unwrap_or_else(|| panic!("{name} declares an output schema"));
                let expected = name.replace('_', "-");
                assert!(
                    schema["title"].as_str().is_some_and(|t| t.contains(&expected))
                        || schema.to_string().contains(&format!("prof.{expected}.v1")),
                    "{name}: {schema}"
                );
            }
        }
    }

    // detect: the fakes' NVIDIA machine, as `prof detect --json` sees it.
    let detect = call(&service, "detect", json!({})).await;
    let expected = direct(scratch.path(), &["detect", "--json"]);
    let got = structured(&detect);
    assert_eq!(got["schema"], "prof.detect.v1");
    // The text beside it is one line, not the document again.
    let said = text(&detect);
    assert!(said.len() < 400 && said.contains("prof.detect.v1") && !said.contains('{'), "{said}");
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
    // (Copied into the served directory: prof mcp reads only under it.)
    for name in ["eager.json", "graph.json"] {
        std::fs::copy(fixture_arg(&format!("nvidia/h200-diff/{name}")), scratch.path().join(name)).unwrap();
    }
    let (a, b) = ("eager.json", "graph.json");
    let diff = call(&service, "diff", json!({"before": a, "after": b, "detail": "full"})).await;
    let expected = direct(scratch.path(), &["diff", a, b, "--json"]);
    assert_eq!(structured(&diff)["schema"], "prof.diff.v1");
    assert_eq!(structured(&diff)["timeline"], expected["timeline"]);

    // A file that is not there: an error result carrying prof.error.v1.
    let missing = call(&service, "analyze", json!({"path": "traces/missing.json"})).await;
    assert_eq!(missing.is_error, Some(true));
    let error = missing.structured_content.as_ref().unwrap();
    assert_eq!(error["schema"], "prof.error.v1");
    support::schema_check::assert_valid(error);
    assert!(error["message"].as_str().unwrap().contains("traces/missing.json"), "{error}");
    // A file outside the served directory is refused unopened: its first line (a system file's
    // content) never reaches the client; `..` and links out of it likewise.
    std::fs::write(scratch.path().join("../mcp-secret.txt"), "root:secret-hash:19000\n").unwrap();
    for outside in ["/etc/hostname", "../mcp-secret.txt"] {
        let refused = call(&service, "analyze", json!({"path": outside})).await;
        assert_eq!(refused.is_error, Some(true));
        let said = text(&refused);
        assert!(said.contains("is outside the directory prof mcp serves"), "{said}");
        assert!(!said.contains("secret-hash"), "{said}");
    }
    // A misspelt parameter is refused, never ignored (`pth` once analysed the embedded profile
    // and reported success); the input schemas say so (additionalProperties: false).
    let Value::Object(typo) = json!({"pth": "eager.json"}) else { unreachable!() };
    let refused = service.call_tool(CallToolRequestParams::new("analyze").with_arguments(typo)).await;
    let said = match refused {
        Err(error) => error.to_string(),
        Ok(result) => {
            assert_eq!(result.is_error, Some(true), "{result:?}");
            text(&result)
        }
    };
    assert!(said.contains("unknown field `pth`"), "{said}");
    std::os::unix::fs::symlink("../mcp-secret.txt", scratch.path().join("link.txt")).unwrap();
    let refused = call(&service, "analyze", json!({"path": "link.txt"})).await;
    assert!(text(&refused).contains("is outside the directory"), "{}", text(&refused));

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
    assert!(progress.iter().any(|line| line.contains("utilization pre-pass")), "{progress:?}");
    assert!(progress.iter().any(|line| line.contains("1. capture")), "{progress:?}");

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
    for name in ["eager.json", "graph.json"] {
        std::fs::copy(fixture_arg(&format!("nvidia/h200-diff/{name}")), scratch.path().join(name)).unwrap();
    }
    let (a, b) = ("eager.json", "graph.json");
    let output = std::process::Command::new("python3")
        .arg(&script)
        .args([env!("CARGO_BIN_EXE_prof"), a, b])
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
        got["progress"].as_array().unwrap().iter().any(|l| l.as_str().unwrap_or("").contains("utilization pre-pass")),
        "{}",
        got["progress"]
    );
    assert_eq!(got["refused"]["error"], true);
    assert!(got["refused"]["text"].as_str().unwrap().contains("confirm: true"));
}

/// True while `pid` runs (a zombie awaiting its reaper counts as gone).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
        .unwrap_or(false)
}

/// `prof mcp ARGS` spoken to in plain JSON-RPC lines over its stdio, as any client sends them:
/// started in `dir` with the NVIDIA fakes (nvidia-smi under load), initialised (its answer
/// checked), the `initialized` notification sent.
fn raw_server(
    dir: &std::path::Path,
    args: &[&str],
) -> (std::process::Child, std::process::ChildStdin, std::io::BufReader<std::process::ChildStdout>) {
    use std::io::{BufRead, Write};
    let mut server = hermetic(path_with(&fakes("nvidia")))
        .arg("mcp")
        .args(args)
        .env("FAKE_NVIDIA_SMI", "busy")
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut input = server.stdin.take().unwrap();
    let mut output = std::io::BufReader::new(server.stdout.take().unwrap());
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    writeln!(input, "{initialize}").unwrap();
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    assert!(line.contains("\"result\""), "{line}");
    writeln!(input, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
    (server, input, output)
}

/// The `tools/call` (id 2) of `util` with a workload that writes its pid to `pidfile`, then
/// sleeps 60 s.
fn util_call_writing_its_pid(pidfile: &std::path::Path) -> Value {
    let script = format!("echo $$ > {}; exec sleep 60", pidfile.display());
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "util",
        "arguments": {"command": ["sh", "-c", script], "confirm": true}}})
}

/// True once `pid` is gone, waiting up to 15 s.
fn gone_within_15_s(pid: i32) -> bool {
    let stopping = Instant::now();
    while alive(pid) && stopping.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(50));
    }
    !alive(pid)
}

/// A signal to `prof mcp` in the middle of a `util` call that runs a workload: TERM, INT and
/// HUP end prof mcp (128 + the signal), KILL ends it too; in every case the workload the call
/// started is gone within seconds (it once ran on, re-parented to init, and INT and HUP were
/// ignored). Plain JSON-RPC lines over stdin, as any client sends them.
#[test]
fn a_signal_to_prof_mcp_stops_the_workload_of_the_call_in_flight() {
    use std::io::Write;
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGKILL] {
        let scratch = Scratch::new(&format!("mcp-signal-{signal}"));
        let pidfile = scratch.path().join("workload.pid");
        let (mut server, mut input, _output) = raw_server(scratch.path(), &[]);
        writeln!(input, "{}", util_call_writing_its_pid(&pidfile)).unwrap();
        let started = Instant::now();
        let workload = loop {
            if let Some(pid) = std::fs::read_to_string(&pidfile).ok().and_then(|t| t.trim().parse::<i32>().ok()) {
                break pid;
            }
            assert!(started.elapsed() < Duration::from_secs(20), "the workload never started");
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(alive(workload));
        // SAFETY: kill(2) on the prof mcp this test started.
        unsafe { libc::kill(server.id() as i32, signal) };
        let status = server.wait().unwrap();
        if signal != libc::SIGKILL {
            assert_eq!(status.code(), Some(128 + signal), "signal {signal}");
        }
        assert!(gone_within_15_s(workload), "signal {signal}: the workload {workload} outlived prof mcp");
        drop(input);
    }
}

/// A tool call that runs past `prof mcp --call-limit` is stopped like a cancelled one: its
/// workload is gone, the result is an error that names the limit, and the server serves on.
#[test]
fn a_call_past_its_limit_is_stopped_and_says_so() {
    use std::io::{BufRead, Write};
    let scratch = Scratch::new("mcp-call-limit");
    let pidfile = scratch.path().join("workload.pid");
    let (mut server, mut input, mut output) = raw_server(scratch.path(), &["--call-limit", "2s"]);
    writeln!(input, "{}", util_call_writing_its_pid(&pidfile)).unwrap();
    let started = Instant::now();
    let answer = loop {
        let mut line = String::new();
        assert!(output.read_line(&mut line).unwrap() > 0, "prof mcp closed its output");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            break message;
        }
    };
    assert!(started.elapsed() < Duration::from_secs(20), "stopped at the limit, not at the workload's end");
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    let said = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(said.contains("ran past its limit of 2s (prof mcp --call-limit)"), "{said}");
    let workload: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    assert!(gone_within_15_s(workload), "the workload {workload} outlived its call");
    let detect =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "detect", "arguments": {}}});
    writeln!(input, "{detect}").unwrap();
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    assert!(line.contains("\"id\":3") && line.contains("prof.detect.v1"), "the server serves on: {line}");
    drop(input);
    let _ = server.wait();
}

/// A client that declares one root (MCP `roots/list`).
#[derive(Clone)]
struct RootsClient {
    root: std::path::PathBuf,
}

#[allow(deprecated)] // roots are deprecated by SEP-2577, still what clients declare
impl ClientHandler for RootsClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.roots = Some(Default::default());
        ClientConfig::new(capabilities, Implementation::new("prof-test-roots", "0"))
    }

    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        let uri = format!("file://{}", self.root.display().to_string().replace(' ', "%20"));
        Ok(rmcp::model::ListRootsResult::new(vec![rmcp::model::Root::new(uri)]))
    }
}

/// With roots declared, analyze reads under them (a path with a space, percent-encoded in the
/// URI) and nowhere else: not even the server's working directory.
#[tokio::test]
async fn analyze_reads_only_under_the_roots_the_client_declares() {
    let scratch = Scratch::new("mcp-roots");
    let root = scratch.path().join("my project");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::copy(fixture_arg("nvidia/h200-diff/eager.json"), root.join("eager.json")).unwrap();
    let served = scratch.path().join("served");
    std::fs::create_dir_all(&served).unwrap();
    std::fs::copy(fixture_arg("nvidia/h200-diff/graph.json"), served.join("graph.json")).unwrap();
    let std_command = hermetic(path_with(&fakes("nvidia")));
    let mut command = tokio::process::Command::from(std_command);
    command.arg("mcp").current_dir(&served);
    let transport = TokioChildProcess::new(command).expect("start prof mcp");
    let service = RootsClient { root: root.clone() }.serve(transport).await.expect("MCP handshake");
    let path = root.join("eager.json");
    let read = call(&service, "analyze", json!({"path": path.to_str().unwrap()})).await;
    assert_eq!(structured(&read)["schema"], "prof.breakdown.v1");
    let refused = call(&service, "analyze", json!({"path": "graph.json"})).await;
    assert_eq!(refused.is_error, Some(true));
    let said = text(&refused);
    assert!(said.contains("is outside the directory prof mcp serves") && said.contains("my project"), "{said}");
    service.cancel().await.unwrap();
}
