//! `prof breakdown -- CMD…`: where does the device time go? Follows the durable capture
//! algorithm: detect the vendor, check the tool (or print its install line), show the plan,
//! warm up unprofiled, capture a small window under the supervisor, verify the artifact,
//! then load it and report the ranked kernels, families and diagnosis (`prof.breakdown.v1`).

use super::breakdown_prepass;
use super::breakdown_window::{capture_window, fall_back, window_hint};
pub use super::breakdown_window::{parse_skip, Skip};
use crate::answer_view::AnswerView;
use crate::breakdown_view::{render_text, BreakdownReport};
use crate::commands::analyze::families;
use crate::deep_dive_target::{deep_dive_available, DeepDiveContext};
use crate::durations::parse_duration;
use crate::failure::{Failure, Kind};
use crate::outputs::{self, OutputArgs};
use crate::progress;
use crate::render::print_json;
use crate::sections;
use clap::Args;
use prof_capture::capture::{describe_plan, run_capture};
use prof_core::{BreakdownTool, CaptureRange, CaptureRequest, Registry, Vendor};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `prof breakdown`.
#[derive(Debug, Args)]
pub struct BreakdownArgs {
    /// Capture tool (`cupti`, `nsys`, …); default: the first tool of the vendor found that can run
    /// here (a missing one is skipped for the next, and prof says so on stderr).
    #[arg(long)]
    tool: Option<String>,
    /// Unprofiled warm-up runs of the command before the capture.
    #[arg(long, default_value_t = 1)]
    warmup: u32,
    /// Skip this much of the profiled run before recording (in-process warm-up; cupti, nsys,
    /// rocprofv3, msprof), or `auto`: open on the work (cupti): the program's own
    /// cudaProfilerStart (closed by its stop), the start of its second NVTX step range
    /// (`ProfilerStep#N`, `step N`, `iteration N`, …), or the end of the load (launches go on
    /// without bulk host-to-device copies), whichever comes first. Default: `auto` where the
    /// tool has it (a window that never opens is captured once more from the start, and prof
    /// says so); other tools open where a utilization pre-pass (the warm-up run, sampled) saw
    /// the device start working.
    #[arg(long, value_parser = parse_skip)]
    skip: Option<Skip>,
    /// Where a time window opens when neither --skip nor --capture-range is given and the tool
    /// has no `auto` (`prof profile` sets the start of the active phase its utilization run
    /// found).
    #[arg(skip)]
    fallback_skip: Duration,
    /// Open the window at an event instead: `profiler` (the program's cudaProfilerStart, closed
    /// by its stop; cupti, nsys), `range:NAME` (the first NVTX range NAME, `NAME*` for a prefix,
    /// closed at its end; cupti, nsys), `kernel:TEXT[@N]` (the Nth launch of a kernel whose name
    /// contains TEXT; cupti).
    #[arg(long, value_parser = CaptureRange::parse, conflicts_with = "skip")]
    capture_range: Option<CaptureRange>,
    /// Capture window once the workload runs.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    window: Duration,
    #[command(flatten)]
    pub(crate) report: crate::report_args::ReportArgs,
    #[command(flatten)]
    pub(crate) run: crate::report_args::RunArgs,
    /// Print the `prof.breakdown.v1` JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Which part of the captured run the answers describe: `steady` (the repeating steps,
    /// after the load and warm-up), `all`, `load`, `warmup`, `tail`, or `START..END`.
    #[arg(long, default_value = "steady", value_parser = crate::phases_view::parse_phase)]
    phase: prof_core::phases::PhaseChoice,
    /// Output files.
    #[command(flatten)]
    outputs: OutputArgs,
    /// The workload, after `--`.
    #[arg(last = true, required = true)]
    command: Vec<OsString>,
}

impl BreakdownArgs {
    /// Under a job launcher (see [`prof_core::launcher`]) each rank writes into its own
    /// `--out`/`rank<R>`, where its rank summary lands beside the capture.
    pub fn per_rank(mut self) -> Self {
        self.run.out = crate::report_args::per_rank(self.run.out);
        self
    }
}

/// Picks a tool that passed its check: by name across every backend (its check's failure is
/// the error), else the first tool of `vendor` (by default the first vendor present) that can
/// run here (a missing tracer or profiler is skipped for the next, and prof says so).
fn choose_tool(
    registry: &Registry,
    name: Option<&str>,
    vendor: Option<&dyn Vendor>,
) -> Result<Box<dyn BreakdownTool>, Failure> {
    if let Some(name) = name {
        let mut known = Vec::new();
        for vendor in registry.vendors() {
            for tool in vendor.breakdown_tools() {
                if tool.name() == name {
                    tool.check()?;
                    return Ok(tool);
                }
                known.push(tool.name());
            }
        }
        let message = format!("no breakdown tool `{name}` in this build (have: {})", known.join(", "));
        return Err(Failure::new(Kind::Usage, message));
    }
    let vendor = match vendor {
        Some(vendor) => vendor,
        None => super::present_vendor(registry, "an existing artifact")?,
    };
    let tools = vendor.breakdown_tools();
    if tools.is_empty() {
        return Err(Failure::new(Kind::ToolMissing, format!("{} has no breakdown tool yet", vendor.name())));
    }
    // The first tool that can run here; a missing one is skipped, and the skip is said.
    let mut skipped: Vec<String> = Vec::new();
    for tool in tools {
        match tool.check() {
            Ok(()) => {
                if !skipped.is_empty() {
                    eprintln!("prof: using {} ({})", tool.name(), skipped.join("; "));
                }
                return Ok(tool);
            }
            Err(error) => skipped.push(format!("{} cannot run here: {error}", tool.name())),
        }
    }
    let message = format!("no {} breakdown tool can run here: {}", vendor.name(), skipped.join("; "));
    Err(Failure::new(Kind::ToolMissing, message))
}

impl BreakdownArgs {
    /// The arguments `prof breakdown -- COMMAND` has, with these settings (for `prof profile`).
    pub fn for_command(command: Vec<OsString>, settings: ForCommand) -> Self {
        Self {
            tool: settings.tool,
            warmup: 1,
            skip: None,
            fallback_skip: settings.fallback_skip,
            capture_range: None,
            window: settings.window,
            report: crate::report_args::ReportArgs { top: settings.top, families: settings.families },
            run: crate::report_args::RunArgs { timeout: settings.timeout, out: settings.out },
            json: settings.json,
            phase: prof_core::phases::PhaseChoice::Steady,
            outputs: OutputArgs::default(),
            command,
        }
    }
}

/// What [`BreakdownArgs::for_command`] sets.
pub struct ForCommand {
    /// `--tool`.
    pub tool: Option<String>,
    /// `--window`.
    pub window: Duration,
    /// `--timeout`.
    pub timeout: Duration,
    /// `--top`.
    pub top: usize,
    /// `--out`.
    pub out: PathBuf,
    /// `--families`.
    pub families: Option<PathBuf>,
    /// `--json` (the workload's output is then not echoed).
    pub json: bool,
    /// Where a time window opens for a tool without `auto` (the active phase's start).
    pub fallback_skip: Duration,
}

/// What one breakdown capture found, rendered both ways.
pub struct Measured {
    /// The `--html`/`--chrome-trace` files written, or lost (reported after the report).
    pub written: outputs::Written,
    /// The capture tool used.
    pub tool: String,
    /// The report a person reads (phases, kernels, diagnosis, sections, artifacts).
    pub text: String,
    /// The `prof.breakdown.v1` document.
    pub document: serde_json::Value,
    /// Ranked kernels and families of the steady window.
    pub summary: prof_core::kernel_summary::KernelSummary,
    /// The findings.
    pub diagnosis: prof_core::DiagnosisReport,
    /// The answer of the capture.
    pub answer: AnswerView,
    /// Artifact files and their sizes.
    pub artifacts: Vec<(PathBuf, u64)>,
    /// How to open them.
    pub how_to_open: String,
}

/// Runs `prof breakdown`.
pub fn run(registry: &Registry, args: &BreakdownArgs) -> Result<ExitCode, Failure> {
    let measured = measure(registry, args, None)?;
    if args.json {
        print_json(&measured.document)?;
    } else {
        out!("{}", measured.text);
    }
    Ok(measured.written.finish())
}

/// Captures as `args` asks, loads and analyses the capture, and renders it both ways; the
/// tool is `vendor`'s (detected here when `None`) unless `--tool` names one.
pub fn measure(registry: &Registry, args: &BreakdownArgs, vendor: Option<&dyn Vendor>) -> Result<Measured, Failure> {
    args.outputs.check().map_err(|e| Failure::new(Kind::Usage, e))?;
    let families = families(args.report.families.as_deref())?;
    let tool = choose_tool(registry, args.tool.as_deref(), vendor)?;
    // Two runs into one --out would overwrite each other's artifacts.
    let _lock = crate::out_lock::OutLock::take(&args.run.out).map_err(|e| Failure::new(Kind::Usage, e))?;
    let mut request = CaptureRequest {
        command: args.command.clone(),
        out_dir: args.run.out.clone(),
        warmup_runs: args.warmup,
        skip: match args.skip {
            Some(Skip::Time(skip)) => skip,
            Some(Skip::Auto) | None => Duration::ZERO,
        },
        window: args.window,
        range: match (&args.capture_range, args.skip) {
            (Some(range), _) => range.clone(),
            (None, Some(Skip::Auto) | None) => CaptureRange::Auto,
            (None, Some(Skip::Time(_))) => CaptureRange::Time,
        },
        timeout: args.run.timeout,
    };
    // Neither --skip nor --capture-range: the window opens on the work where the tool can.
    // Else (a tool without it, or a window that never opened) the time window the default falls
    // back to.
    let defaulted = args.skip.is_none() && args.capture_range.is_none();
    let mut fallback_skip = args.fallback_skip;
    let mut opened_by = None;
    let mut plan = match tool.plan(&request) {
        Err(prof_core::Error::Unsupported(_)) if defaulted => {
            // The tool cannot open on the work: where `prof profile` found no start for it, the
            // first warm-up run is sampled and the window opens where the work began.
            if fallback_skip.is_zero() && request.warmup_runs > 0 {
                let found = breakdown_prepass::run(registry, &args.command, args.run.timeout, &args.run.out)?;
                if let Some(skip) = found.skip() {
                    request.warmup_runs -= 1;
                    fallback_skip = skip;
                }
                eprintln!("prof: {}", found.describe());
                opened_by = Some(found.describe());
            }
            fall_back(tool.as_ref(), &mut request, fallback_skip)?
        }
        planned => planned.map_err(|e| Failure::from(e).or_kind(Kind::Usage))?,
    };
    let mut started;
    let captured = loop {
        for step in &mut plan.steps {
            step.echo = !args.json;
        }
        let opens = match &request.range {
            CaptureRange::Time if request.skip.is_zero() => String::new(),
            CaptureRange::Time => format!(", opened {:.1} s after the start", request.skip.as_secs_f64()),
            range => format!(", opened at {}", range.describe()),
        };
        eprintln!(
            "prof breakdown with {} (window {:.0} s{opens}):\n{}",
            tool.name(),
            args.window.as_secs_f64(),
            describe_plan(&plan)
        );
        // The steps echo the workload's output unless --json; a spinner would garble it.
        let capturing = progress::spinner(format!("capturing with {}", tool.name()), args.json);
        started = std::time::Instant::now();
        match run_capture(&plan) {
            Ok(captured) => {
                capturing.finish();
                break captured;
            }
            // The default window never opened at the end of the load: once more as a time window
            // (then the range is a time, so this happens once).
            Err(prof_core::Error::ArtifactInvalid { .. }) if defaulted && request.range == CaptureRange::Auto => {
                capturing.finish();
                eprintln!(
                    "prof: the window never opened at {} (the run's launches and copies never settled); capturing \
                     once more with the window {:.1} s after the start (--skip {:.1}s)",
                    CaptureRange::Auto.describe(),
                    fallback_skip.as_secs_f64(),
                    fallback_skip.as_secs_f64()
                );
                plan = fall_back(tool.as_ref(), &mut request, fallback_skip)?;
                opened_by = Some("the retry after the window never opened at the work".to_owned());
            }
            Err(error) => {
                let explained = tool.explain_failure(&args.run.out);
                let empty = matches!(error, prof_core::Error::ArtifactInvalid { .. });
                let mut failure = Failure::from(error);
                if let Some(explained) = explained {
                    failure.message = format!("{}\n{explained}", failure.message);
                }
                if empty && request.range == CaptureRange::Time {
                    failure.message = format!("{}\n{}", failure.message, window_hint(&request, started.elapsed()));
                }
                return Err(failure);
            }
        }
    };
    let ran = started.elapsed();
    let paths: Vec<PathBuf> = captured.artifacts.iter().map(|(path, _)| path.clone()).collect();
    let vendor = prof_core::report::VendorPrefetch::start(paths.first().map(PathBuf::as_path), crate::registry::build);
    let loading = progress::spinner("loading the capture".to_owned(), true);
    let timeline = tool.load(&paths).map_err(|e| {
        let mut failure = Failure::from(e).or_kind(Kind::BadInput);
        if request.range == CaptureRange::Time {
            failure.message = format!("{}\n{}", failure.message, window_hint(&request, ran));
        }
        failure
    })?;
    let timeline = super::analyze::checked(timeline)?;
    loading.finish();
    let path = paths.first().map(PathBuf::as_path);
    let options = prof_core::report::Options::new(&families, registry, &vendor).at(path).phase(args.phase);
    let report = prof_core::report::analyze(timeline, &options)?;
    // Under a launcher, the rank's summary beside its capture: `prof analyze` of the directory
    // of every rank's merges them.
    let mut rank_summary = None;
    if let Some(launched) = prof_core::launcher::from_env() {
        let file = args.run.out.join(prof_core::rank_summary::file_name(launched.rank));
        let source = path.map_or_else(String::new, |p| p.display().to_string());
        let summary =
            prof_core::rank_summary::RankSummary::of(&report, &families, launched.rank, launched.world_size, &source);
        super::analyze_job::write_summary(&file, &summary)?;
        rank_summary = Some(file);
    }
    let prof_core::report::Report { timeline, phases, summary, diagnosis, analyses, answer } = report;
    let dive = DeepDiveContext {
        available: deep_dive_available(registry, None, Some(tool.name())),
        launches_before: Some(&phases.launches_before),
    };
    let sections = sections::render(&analyses, &summary);
    let origin = crate::answer_view::Origin { command: &args.command, path: None };
    let answer = AnswerView::new(answer, &summary, &dive, &origin);
    let deep_dive = answer.deep_dive_command();
    let page = crate::html_report::Answer { diagnosis: Some(&diagnosis), answer: Some(&answer), top: args.report.top };
    let written = outputs::write(&args.outputs, Some(&timeline), &summary, &sections, &page)?;
    let artifacts = paths.iter().map(|p| p.display().to_string()).collect();
    let mut report = BreakdownReport::new(&summary, &diagnosis, artifacts, Some(&plan.how_to_open), deep_dive.clone());
    report.analyses = Some(sections::to_json(&sections));
    report.phases = Some(&phases);
    report.answer = Some(&answer);
    report.capture_window = Some(capture_window(&request, opened_by, args.fallback_skip));
    report.rank_summary = rank_summary.as_ref().map(|f| f.display().to_string());
    let document = serde_json::to_value(&report).map_err(|e| format!("cannot encode JSON: {e}"))?;
    let mut text = answer.render_text();
    text.push('\n');
    text.push_str(&crate::phases_view::render_text(&phases));
    text.push_str(&render_text(&summary, &diagnosis, args.report.top));
    text.push_str(&sections::render_text(&sections));
    for (path, size) in &captured.artifacts {
        text.push_str(&format!("\nartifact: {} ({size} bytes)\n", path.display()));
    }
    text.push_str(&format!("open: {}\n", plan.how_to_open));
    if let Some(file) = &rank_summary {
        text.push_str(&format!("rank summary: {} (merge every rank's: prof analyze DIR)\n", file.display()));
    }
    Ok(Measured {
        written,
        tool: tool.name().to_owned(),
        text,
        document,
        summary,
        diagnosis,
        answer,
        artifacts: captured.artifacts.clone(),
        how_to_open: plan.how_to_open.clone(),
    })
}
