//! `prof mcp`: prof as a Model Context Protocol server over stdio, for AI coding agents.
//!
//! Tools: `detect`, `util`, `breakdown`, `deep_dive`, `analyze`, `diff` and `profile`, with
//! typed input schemas (derived from the parameter structs below). Each call runs prof itself
//! with `--json` as a child in its own process group ([`run`]); its stderr lines (the plan, the
//! steps) come to the client as progress notifications when the call carries a progress
//! token, and a cancelled call stops the run (Ctrl-C, then a kill) and cleans up what it
//! started. Results are the verb's own `prof.*.v1` document as structured content: by default
//! a summary (long detail dropped, lists cut to `rows`, see [`summary`]), the whole bounded
//! document with `detail: "full"`. A tool that starts the user's command (a long-lived
//! process, possibly slow) says so in its description and runs only with `confirm: true`: the
//! durable method's confirmation, asked of the agent.

mod params;
mod paths;
mod run;
mod summary;

use params::{
    AnalyzeParams, BreakdownParams, DeepDiveParams, Detail, DetectParams, DiffParams, ProfileParams, Shape, UtilParams,
};

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ProgressNotificationParam, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::ffi::OsString;

/// The server.
#[derive(Clone)]
pub struct ProfServer {
    tool_router: ToolRouter<Self>,
    call_limit: std::time::Duration,
}

/// Arguments of `prof mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Longest one tool call may run, whatever it runs (a capture's warm-up, capture and
    /// export together; an analysis of a huge file): past it the run is stopped as a cancelled
    /// call is (Ctrl-C to it, which stops its workload; killed 10 s later), and the result says so.
    #[arg(long, default_value = "30m", value_parser = crate::durations::parse_duration)]
    pub call_limit: std::time::Duration,
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn push_opt(args: &mut Vec<OsString>, flag: &str, value: Option<impl ToString>) {
    if let Some(value) = value {
        args.push(flag.into());
        args.push(value.to_string().into());
    }
}

fn with_command(mut args: Vec<OsString>, command: &[String]) -> Vec<OsString> {
    args.push("--".into());
    args.extend(command.iter().map(OsString::from));
    args
}

/// The refusal of a call that would start `command` without `confirm: true`.
fn unconfirmed(what: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "not run: this {what}; read the tool's description and call again with confirm: true to run it"
    ))])
}

#[tool_router]
impl ProfServer {
    /// A server with every tool.
    pub fn new(call_limit: std::time::Duration) -> Self {
        Self { tool_router: Self::tool_router(), call_limit }
    }

    #[tool(
        description = "Which accelerators, drivers and profiling tools this machine has (prof.detect.v1). Fast, starts nothing.",
        annotations(read_only_hint = true, open_world_hint = false),
        output_schema = output_schema("prof.detect.v1")
    )]
    async fn detect(
        &self,
        Parameters(p): Parameters<DetectParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let shape = p.shape();
        call(os(&["detect", "--json"]), &shape, ctx, self.call_limit).await
    }

    #[tool(
        description = "Is the accelerator busy? Samples utilization while COMMAND runs (a long-lived process: needs confirm: true), for duration_s (needs confirm: true), or once (instant). The verdict (busy, host_bound, idle) is on the steady phase, after the model load (prof.util.v1).",
        annotations(read_only_hint = false, destructive_hint = false, open_world_hint = true),
        output_schema = output_schema("prof.util.v1")
    )]
    async fn util(
        &self,
        Parameters(p): Parameters<UtilParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let shape = p.shape();
        if (!p.command.is_empty() || p.duration_s.is_some()) && !p.confirm {
            return Ok(unconfirmed("call runs the command (or samples for duration_s) to its end"));
        }
        let mut args = os(&["util", "--json"]);
        push_opt(&mut args, "--interval", p.interval_ms.map(|ms| format!("{ms}ms")));
        push_opt(&mut args, "--duration", p.duration_s.map(|s| format!("{s}s")));
        push_opt(&mut args, "--timeout", p.timeout_s.map(|s| format!("{s}s")));
        push_opt(&mut args, "--phase", p.phase);
        if !p.command.is_empty() {
            args = with_command(args, &p.command);
        }
        call(args, &shape, ctx, self.call_limit).await
    }

    #[tool(
        description = "Where does the device time go? Runs COMMAND (a long-lived process: one warm-up run, then one run under the vendor's tracer; needs confirm: true) and returns ranked kernels, families, the diagnosis and, when one kernel dominates, the deep-dive command (prof.breakdown.v1).",
        annotations(read_only_hint = false, destructive_hint = false, open_world_hint = true),
        output_schema = output_schema("prof.breakdown.v1")
    )]
    async fn breakdown(
        &self,
        Parameters(p): Parameters<BreakdownParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let shape = p.shape();
        if !p.confirm {
            return Ok(unconfirmed("call runs the command twice (warm-up and capture)"));
        }
        let mut args = os(&["breakdown", "--json"]);
        push_opt(&mut args, "--tool", p.tool);
        push_opt(&mut args, "--window", p.window_s.map(|s| format!("{s}s")));
        push_opt(&mut args, "--skip", p.skip);
        push_opt(&mut args, "--warmup", p.warmup);
        push_opt(&mut args, "--timeout", p.timeout_s.map(|s| format!("{s}s")));
        push_opt(&mut args, "--phase", p.phase);
        push_opt(&mut args, "--capture-range", p.capture_range);
        call(with_command(args, &p.command), &shape, ctx, self.call_limit).await
    }

    #[tool(
        description = "Why is this kernel slow? Runs COMMAND under the kernel profiler (ncu, rocprofv3 counters), which replays the matching launch once per metric pass: slow, minutes; needs confirm: true. Returns speed-of-light, occupancy, stalls, roofline and the profiler's findings (prof.deep-dive.v1).",
        annotations(read_only_hint = false, destructive_hint = false, open_world_hint = true),
        output_schema = output_schema("prof.deep-dive.v1")
    )]
    async fn deep_dive(
        &self,
        Parameters(p): Parameters<DeepDiveParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let shape = p.shape();
        if !p.confirm {
            return Ok(unconfirmed("call runs the command under a kernel profiler (slow)"));
        }
        let mut args = os(&["deep-dive", "--json", "--kernel", &p.kernel]);
        push_opt(&mut args, "--launch-skip", p.launch_skip);
        push_opt(&mut args, "--launch-count", p.launch_count);
        push_opt(&mut args, "--timeout", p.timeout_s.map(|s| format!("{s}s")));
        call(with_command(args, &p.command), &shape, ctx, self.call_limit).await
    }

    #[tool(
        description = "Read an artifact a profiler already wrote (PyTorch/Kineto trace, nsys export or report, prof's CUPTI trace, rocprofv3/rocpd output, Ascend msprof/torch_npu output, ncu CSV, a directory of per-rank traces); default: the embedded H200 profile. Starts nothing (prof.breakdown.v1, prof.ranks.v1 for rank directories).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn analyze(
        &self,
        Parameters(p): Parameters<AnalyzeParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let shape = p.shape();
        let mut args = os(&["analyze", "--json"]);
        push_opt(&mut args, "--phase", p.phase);
        if p.summary_only {
            args.push("--summary-only".into());
        }
        if let Some(path) = p.path {
            let roots = match paths::readable_roots(&ctx).await {
                Ok(roots) => roots,
                Err(refused) => return Ok(refused),
            };
            match paths::inside_roots(&path, &roots) {
                Ok(path) => args.push(path),
                Err(refused) => return Ok(refused),
            }
        }
        call(args, &shape, ctx, self.call_limit).await
    }

    #[tool(
        description = "Compare two profiles (any format analyze reads): per-family and per-kernel deltas, idle time and gaps (prof.diff.v1). Starts nothing.",
        annotations(read_only_hint = true, open_world_hint = false),
        output_schema = output_schema("prof.diff.v1")
    )]
    async fn diff(
        &self,
        Parameters(p): Parameters<DiffParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let shape = p.shape();
        let mut args: Vec<OsString> = vec!["diff".into(), "--json".into()];
        let roots = match paths::readable_roots(&ctx).await {
            Ok(roots) => roots,
            Err(refused) => return Ok(refused),
        };
        for path in [&p.before, &p.after] {
            match paths::inside_roots(path, &roots) {
                Ok(path) => args.push(path),
                Err(refused) => return Ok(refused),
            }
        }
        call(args, &shape, ctx, self.call_limit).await
    }

    #[tool(
        description = "All three questions in one call, in the method's order: utilization (stop if the device waits: host-bound), then a kernel breakdown (stop unless one kernel dominates), then a deep dive of that kernel. Runs COMMAND up to four times, the last under a kernel profiler (slow): needs confirm: true. Returns each step's headline, evidence, artifacts and the command to rerun it alone (prof.profile.v1).",
        annotations(read_only_hint = false, destructive_hint = false, open_world_hint = true),
        output_schema = output_schema("prof.profile.v1")
    )]
    async fn profile(
        &self,
        Parameters(p): Parameters<ProfileParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let shape = p.shape();
        if !p.confirm {
            return Ok(unconfirmed("call runs the command up to four times, the last under a kernel profiler (slow)"));
        }
        let mut args = os(&["profile", "--json", "--yes"]);
        push_opt(&mut args, "--max-depth", p.max_depth);
        push_opt(&mut args, "--tool", p.tool);
        push_opt(&mut args, "--window", p.window_s.map(|s| format!("{s}s")));
        push_opt(&mut args, "--interval", p.interval_ms.map(|ms| format!("{ms}ms")));
        push_opt(&mut args, "--timeout", p.timeout_s.map(|s| format!("{s}s")));
        call(with_command(args, &p.command), &shape, ctx, self.call_limit).await
    }
}

impl Default for ProfServer {
    fn default() -> Self {
        Self::new(DEFAULT_CALL_LIMIT)
    }
}

/// The JSON Schema a tool's structured result follows: the document's own (`prof schema
/// NAME`). `analyze` declares none: it returns a breakdown, a rank job or a deep-dive page by
/// what the file is.
fn output_schema(name: &str) -> std::sync::Arc<rmcp::model::JsonObject> {
    let schema = crate::commands::schema::schema(name);
    let object = schema.and_then(|s| s.as_object().cloned()).unwrap_or_default();
    std::sync::Arc::new(object)
}

/// The text beside a structured result: its answer in one line (the document itself is the
/// structured content, sent once).
fn short_text(document: &serde_json::Value) -> String {
    let schema = document["schema"].as_str().unwrap_or("a document");
    let said = [&document["answer"]["headline"], &document["answer"], &document["verdict"]["headline"]]
        .into_iter()
        .find_map(|v| v.as_str());
    match said {
        Some(said) => format!("{said} (the whole {schema} document is the structured content)"),
        None => format!("{schema}: the document is the structured content"),
    }
}

/// `prof mcp --call-limit`'s default.
pub const DEFAULT_CALL_LIMIT: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// Runs prof with `args`, forwarding its stderr as progress and stopping it on cancellation,
/// and shapes its document.
async fn call(
    args: Vec<OsString>,
    shape: &Shape,
    ctx: RequestContext<RoleServer>,
    limit: std::time::Duration,
) -> Result<CallToolResult, ErrorData> {
    let token = ctx.meta.get_progress_token();
    let peer = ctx.peer.clone();
    let mut lines = 0u64;
    let progress = move |line: String| -> run::Sent {
        lines += 1;
        let (peer, token, step) = (peer.clone(), token.clone(), lines);
        Box::pin(async move {
            if let Some(token) = token {
                let param = ProgressNotificationParam::new(token, step as f64).with_message(line);
                let _ = peer.notify_progress(param).await;
            }
        })
    };
    let cancelled = ctx.ct.clone();
    let ran = run::run_prof(args, progress, async move { cancelled.cancelled().await }, limit)
        .await
        .map_err(|e| ErrorData::internal_error(e, None))?;
    match ran.stopped {
        Some(run::Stopped::Cancelled) => {
            return Ok(CallToolResult::error(vec![ContentBlock::text("cancelled: the run was stopped")]));
        }
        Some(run::Stopped::PastLimit) => {
            let message = format!(
                "stopped: the call ran past its limit of {} (prof mcp --call-limit); its workload was stopped. Ask \
                 for a shorter window, or start the server with a larger --call-limit",
                crate::durations::human(limit)
            );
            return Ok(CallToolResult::error(vec![ContentBlock::text(message)]));
        }
        None => {}
    }
    let document: Option<serde_json::Value> = serde_json::from_slice(&ran.stdout).ok();
    match document {
        Some(doc) if doc["schema"] != "prof.error.v1" => {
            let mut shaped = match shape.detail {
                Detail::Summary => summary::summary(doc, shape.rows.unwrap_or(10)),
                Detail::Full => summary::full(doc),
            };
            if ran.status != Some(0) {
                shaped["exit_status"] = ran.status.into();
            }
            let mut result = CallToolResult::structured(shaped);
            if let Some(document) = &result.structured_content {
                result.content = vec![ContentBlock::text(short_text(document))];
            }
            Ok(result)
        }
        Some(error) => Ok(CallToolResult::structured_error(error)),
        None => {
            let message = format!(
                "prof exited with status {:?} without a JSON document; its last lines:\n{}",
                ran.status,
                ran.stderr_tail.join("\n")
            );
            Ok(CallToolResult::error(vec![ContentBlock::text(message)]))
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ProfServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("prof", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "prof answers three questions about a model run on an accelerator: is the device busy (util), \
                 where does the device time go (breakdown), why is this kernel slow (deep_dive); profile asks them \
                 in order and stops when the answer is enough. analyze and diff read files that exist and start \
                 nothing. Tools that run a command need confirm: true. Results are summaries; pass detail: \"full\" \
                 for the whole document.",
            )
    }
}

/// Runs `prof mcp`: serves on stdin/stdout until the client closes them, or until a signal
/// (INT, TERM, HUP, QUIT) stops it: then it exits at once with 128 + the signal, and every run
/// in flight, linked to it by its parent-death signal (see [`run::run_prof`]), gets a Ctrl-C and
/// stops its workload as it would at a terminal.
pub fn serve(args: &McpArgs) -> Result<std::process::ExitCode, crate::failure::Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let signal = runtime.block_on(async {
        let mut stop = prof_capture::supervisor::StopSignals::listen().map_err(|e| e.to_string())?;
        let service = ProfServer::new(args.call_limit)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("MCP handshake failed: {e}"))?;
        tokio::select! {
            done = service.waiting() => done.map(|_| None).map_err(|e| format!("MCP server stopped: {e}")),
            signal = stop.recv() => Ok(Some(signal)),
        }
    })?;
    if let Some(signal) = signal {
        // Exit without dropping the runtime: dropping it would SIGKILL the runs in flight
        // (kill_on_drop) before they stop their workloads; their parent-death Ctrl-C does that.
        eprintln!("prof mcp: stopped by {}", prof_timeline::error::signal_name(signal));
        std::process::exit(128 + signal);
    }
    Ok(std::process::ExitCode::SUCCESS)
}
