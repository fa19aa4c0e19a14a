//! `prof serve`: profile a model server under a short benchmark, the durable way: show the
//! plan and ask, start the server in its own process group under the chosen capture, fail
//! fast (death or an early error in its log), wait for health, warm up unprofiled, open a
//! small capture window around the benchmark or the built-in load, stop the server's group,
//! verify the artifact, and report it with the headline numbers (`prof.serve.v1`, see
//! `crate::serve::report`). Ctrl-C stops the server's group and exits 130.

use crate::breakdown_view::{render_text as render_breakdown, BreakdownReport};
use crate::commands::analyze::families;
use crate::failure::{Failure, Kind};
use crate::render::print_json;
use crate::serve::health::Readiness;
use crate::serve::http::Url;
use crate::serve::load::{LoadResult, LoadSpec};
use crate::serve::plan::{self, PlanRequest, ServePlan, ServeWindow};
use crate::serve::report::{ArtifactPart, BenchPart, LoadPart, ServeReport, ServerPart, UtilPart};
use crate::serve::session::{self, Load, SessionInput, SessionReport};
use prof_capture::supervisor::{self, verify_artifact};
use prof_core::recorder::DEFAULT_INTERVAL;
use prof_core::{BreakdownTool, Registry, UtilizationProbe};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

mod args;
pub use args::ServeArgs;

/// `text` split into argv as a POSIX shell would for quotes and backslashes (the
/// `shell-words` crate: no variables, no globbing, no pipes); run directly, never through
/// `sh -c`.
fn words(flag: &str, text: &str) -> Result<Vec<OsString>, String> {
    let argv = shell_words::split(text).map_err(|e| format!("--{flag}: {e}"))?;
    if argv.is_empty() {
        return Err(format!("--{flag} is empty"));
    }
    Ok(argv.into_iter().map(OsString::from).collect())
}

fn find_tool(registry: &Registry, name: &str) -> Result<Box<dyn BreakdownTool>, String> {
    let mut known = vec!["util".to_owned(), "none".to_owned()];
    for vendor in registry.vendors() {
        for tool in vendor.breakdown_tools() {
            if tool.name() == name {
                return Ok(tool);
            }
            known.push(tool.name().to_owned());
        }
    }
    Err(format!("no capture tool `{name}` in this build (have: {})", known.join(", ")))
}

/// The first utilization probe that opens, or the vendors tried (`prof util` says why each failed).
fn open_probe(registry: &Registry) -> Result<Box<dyn UtilizationProbe>, String> {
    let mut tried = Vec::new();
    for vendor in registry.vendors() {
        if let Some(Ok(probe)) = vendor.utilization_probe() {
            return Ok(probe);
        }
        tried.push(vendor.name());
    }
    Err(tried.join(", "))
}

/// Asks before starting the server; refuses when stdin is not a terminal.
fn confirm() -> Result<(), String> {
    crate::confirm::ask(
        "Start the server and run this plan?",
        "stdin is not a terminal, so prof cannot ask before starting the server; \
         read the plan above and rerun with --yes to run it",
    )
}

/// Runs `prof serve`.
pub fn run(registry: &Registry, args: &ServeArgs) -> Result<ExitCode, Failure> {
    let server = words("server", &args.server)?;
    let bench = args.bench.as_deref().map(|b| words("bench", b)).transpose()?;
    let health = Url::parse(&args.health).map_err(|e| format!("--health: {e}"))?;
    let endpoint = match &args.endpoint {
        Some(text) => Url::parse(text).map_err(|e| format!("--endpoint: {e}"))?,
        None => health.clone(),
    };
    let body = match &args.payload {
        Some(path) => Some(Arc::new(std::fs::read(path).map_err(|e| format!("--payload {}: {e}", path.display()))?)),
        None => None,
    };
    if args.concurrency == 0 || args.requests == 0 {
        return Err(Failure::new(Kind::Usage, "--requests and --concurrency must be at least 1"));
    }
    let request = PlanRequest {
        server,
        bench,
        bench_timeout: args.bench_timeout,
        out_dir: args.out.clone(),
        window: args.window,
        echo: !args.json,
    };
    let mut probe = None;
    let mut tool = None;
    let mut plan = match args.tool.as_str() {
        "none" => plan::without_tool(&request, false),
        "util" => {
            let mut plan = plan::without_tool(&request, true);
            match open_probe(registry) {
                Ok(opened) => probe = Some(opened),
                Err(reasons) => {
                    plan.artifacts.clear();
                    plan.how_to_open = None;
                    plan.notes.push(format!(
                        "no device: no utilization probe opened (tried {reasons}; `prof util` says why); \
                         only the load is measured"
                    ));
                }
            }
            plan
        }
        "server" => crate::serve::server_profiler::plan(&request, &health)?,
        name => {
            let found = find_tool(registry, name)?;
            found.check().map_err(|e| e.to_string())?;
            let plan = plan::with_tool(&request, found.as_ref())?;
            tool = Some(found);
            plan
        }
    };
    let method = if body.is_some() { "POST" } else { "GET" };
    let spec = |requests: u64, concurrency: usize, window: Duration| LoadSpec {
        url: endpoint.clone(),
        body: body.clone(),
        requests,
        concurrency,
        window,
        request_limit: args.request_timeout,
    };
    let warmup = (args.warmup_requests > 0).then(|| spec(args.warmup_requests, 1, Duration::from_secs(120)));
    let load_text = format!(
        "built-in, {method} {} at concurrency {}, up to {} requests in {:.0} s{}",
        endpoint.text,
        args.concurrency,
        args.requests,
        args.window.as_secs_f64(),
        args.payload.as_ref().map(|p| format!(", body {}", p.display())).unwrap_or_default()
    );
    let warmup_text = match &warmup {
        Some(w) => format!("{} {method} requests to {}", w.requests, endpoint.text),
        None => "none".to_owned(),
    };
    eprint!("{}", plan.describe(&health.text, args.ready_timeout, &warmup_text, &load_text));
    if !args.yes {
        confirm()?;
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let _lock = crate::out_lock::OutLock::take(&args.out).map_err(|e| Failure::new(Kind::Usage, e))?;
    let load = match plan.bench {
        Some(_) => Load::Bench,
        None => Load::Builtin(spec(args.requests, args.concurrency, args.window)),
    };
    let input = SessionInput {
        readiness: Readiness { url: health.clone(), timeout: args.ready_timeout },
        warmup,
        load: load.clone(),
        probe,
        interval: DEFAULT_INTERVAL,
    };
    let runtime = supervisor::runtime().map_err(|e| e.to_string())?;
    let outcome = runtime.block_on(session::run(&plan, input));
    drop(runtime);
    for problem in prof_capture::capture::run_cleanup(&plan.cleanup) {
        eprintln!("prof serve: clean-up: {problem}");
    }
    let session = match outcome {
        Ok(session) => session,
        Err(failure) => {
            let left = if failure.server_left.is_empty() {
                String::new()
            } else {
                format!("\nwarning: processes {:?} of the server's group are still running", failure.server_left)
            };
            let explained = match failure.exit_status() {
                None => crate::serve::known::explain(&plan.server.argv, &plan.server.log),
                Some(_) => None,
            };
            let why = explained.as_ref().map(crate::serve::known::render_explained).unwrap_or_default();
            let message = format!("{}{why}{left}", failure.message);
            return Err(match failure.exit_status() {
                Some(status) => Failure::interrupted(i32::from(status) - 128, message),
                None => Failure { hint: explained.map(|e| e.remedy), ..Failure::from(message) },
            });
        }
    };
    finish(args, registry, &mut plan, tool.as_deref(), session, &load, &health, method)
}

/// After the server stopped: export steps, artifact checks, loading, the report.
#[allow(clippy::too_many_arguments)]
fn finish(
    args: &ServeArgs,
    registry: &Registry,
    plan: &mut ServePlan,
    tool: Option<&dyn BreakdownTool>,
    session: SessionReport,
    load: &Load,
    health: &Url,
    method: &'static str,
) -> Result<ExitCode, Failure> {
    for step in &plan.after {
        let outcome = supervisor::run(step).map_err(|e| e.to_string())?;
        if !outcome.success() {
            return Err(Failure::new(
                Kind::NoArtifact,
                format!(
                    "`{}` exited {}; last lines of {}:\n{}",
                    step.display_command(),
                    outcome.describe(),
                    step.log.display(),
                    prof_core::process_group::log_tail(&step.log, 15)
                ),
            ));
        }
    }
    let mut utilization = None;
    if let Some(recording) = &session.recording {
        let path = args.out.join(plan::UTIL_CSV);
        let mut file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        prof_core::write_csv(&recording.ticks, &mut file).map_err(|e| format!("{}: {e}", path.display()))?;
        let (phases, devices, _) = prof_core::report::judge_util(&recording.ticks, args.phase, &plan.server.argv)?;
        utilization = Some(UtilPart {
            source: recording.source.clone(),
            samples: recording.ticks.len(),
            devices,
            phases: Some(phases),
        });
    }
    let mut artifacts = Vec::new();
    for artifact in &plan.artifacts {
        let bytes = verify_artifact(artifact).map_err(|e| match tool.and_then(|t| t.explain_failure(&args.out)) {
            Some(explained) => format!("{e}\n{explained}"),
            None => e.to_string(),
        })?;
        artifacts.push(ArtifactPart { path: artifact.path.display().to_string(), bytes });
    }
    let mut breakdown = None;
    let mut breakdown_text = None;
    let timeline = match (tool, &plan.window) {
        (Some(tool), _) => {
            let paths: Vec<PathBuf> = plan.artifacts.iter().map(|a| a.path.clone()).collect();
            Some(tool.load(&paths).map_err(|e| e.to_string())?)
        }
        (None, ServeWindow::Http { traces, .. }) => {
            crate::serve::server_profiler::load_traces(registry, traces, &mut plan.notes)?
        }
        _ => None,
    };
    if let Some(mut timeline) = timeline {
        timeline.finish_loading()?;
        let families = families(None)?;
        // The answer leads, as in `prof breakdown`, worked out the same way (serve prints no
        // sections).
        let vendor = prof_core::report::VendorPrefetch::default();
        let options = prof_core::report::Options {
            analyses: false,
            ..prof_core::report::Options::new(&families, registry, &vendor).phase(args.phase)
        };
        let prof_core::report::Report { phases, summary, diagnosis, answer: found, .. } =
            prof_core::report::analyze(timeline, &options)?;
        let dive = crate::deep_dive_target::DeepDiveContext {
            available: crate::deep_dive_target::deep_dive_available(registry, None, Some(&plan.tool)),
            launches_before: Some(&phases.launches_before),
        };
        let origin = crate::answer_view::Origin { command: &[], path: None };
        let view = crate::answer_view::AnswerView::new(found, &summary, &dive, &origin);
        let names = artifacts.iter().map(|a| a.path.clone()).collect();
        let deep_dive = view.deep_dive_command();
        let mut document = BreakdownReport::new(&summary, &diagnosis, names, plan.how_to_open.as_deref(), deep_dive);
        document.phases = Some(&phases);
        document.answer = Some(&view);
        breakdown = Some(serde_json::to_value(&document).map_err(|e| e.to_string())?);
        let text = render_breakdown(&summary, &diagnosis, args.top);
        breakdown_text = Some(format!("{}\n{}{text}", view.render_text(), crate::phases_view::render_text(&phases)));
    }
    let report = ServeReport {
        schema: "prof.serve.v1",
        tool: plan.tool.clone(),
        server: ServerPart {
            command: plan.server.argv.iter().map(|a| a.to_string_lossy().into_owned()).collect(),
            model: plan::model_of(&plan.server.argv),
            env: plan.server.env.clone(),
            pgid: session.server_pgid,
            log: plan.server.log.display().to_string(),
            ready_after_ms: session.ready_after.as_secs_f64() * 1e3,
            left_running: session.server_left.clone(),
        },
        health_url: health.text.clone(),
        warmup: session.warmup.as_ref().map(LoadResult::stats),
        load: match (load, &session.load) {
            (Load::Builtin(spec), Some(result)) => Some(LoadPart {
                endpoint: spec.url.text.clone(),
                method,
                concurrency: spec.concurrency,
                requests_asked: spec.requests,
                window_ns: u64::try_from(spec.window.as_nanos()).unwrap_or(u64::MAX),
                stats: result.stats(),
            }),
            _ => None,
        },
        bench: session.bench.as_ref().map(|outcome| {
            let summary = plan.bench.as_ref().and_then(|b| crate::serve::known::bench_summary(&b.argv, &outcome.log));
            BenchPart {
                command: plan
                    .bench
                    .iter()
                    .flat_map(|b| b.argv.iter())
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect(),
                exit_code: outcome.exit_code,
                signal: outcome.signal,
                elapsed_ns: u64::try_from(outcome.elapsed.as_nanos()).unwrap_or(u64::MAX),
                log: outcome.log.display().to_string(),
                summary_missing: summary.as_ref().and_then(|s| s.as_ref().err().cloned()),
                summary: summary.and_then(Result::ok),
            }
        }),
        artifacts,
        how_to_open: plan.how_to_open.clone(),
        breakdown,
        utilization,
        notes: std::mem::take(&mut plan.notes),
    };
    if args.json {
        print_json(&report)?;
    } else {
        out!("{}", report.render_text(breakdown_text.as_deref()));
    }
    let bench_failed = session.bench.as_ref().is_some_and(|b| !b.success());
    let left = !session.server_left.is_empty();
    // A window in which no request succeeded measured nothing: not a success.
    let nothing_served = matches!((load, &session.load), (Load::Builtin(_), Some(result)) if result.ok == 0);
    if nothing_served {
        let first = session.load.as_ref().and_then(|r| r.first_error.clone()).unwrap_or_else(|| "none".to_owned());
        eprintln!(
            "prof serve: no request of the window succeeded (first error: {first}); the numbers above measure nothing"
        );
    }
    Ok(if bench_failed || left || nothing_served { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

#[cfg(test)]
mod tests;
