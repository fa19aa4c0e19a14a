//! `prof profile -- CMD…`: the three questions in one command, in the order the method asks
//! them. Utilization first, on the steady phase: a device that mostly waits is answered there
//! (the host is the bottleneck; a kernel trace won't help). Else a kernel breakdown, which is
//! usually the answer: it stops there unless one kernel dominates. Only then a deep dive of that
//! one kernel, past its warm-up launches; a deep dive replays the kernel and is slow, so prof
//! asks first unless `--yes`. One report: each step's headline, evidence, artifacts with how
//! to open them, and the command that reruns the step alone (`prof.profile.v1`, see
//! [`view`]).

use super::{breakdown, deep_dive, util};
use crate::durations::parse_duration;
use crate::failure::{Failure, Kind};
mod view;

use crate::render::print_json;
use clap::Args;
use prof_core::run_plan::{shell_join, shell_quote};
use prof_core::{Registry, VerdictKind};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
pub(crate) use view::ProfileReport;
use view::{Depth, Step};

/// Arguments of `prof profile`.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// Run every step the answers call for without asking (the deep dive is slow: by default
    /// prof asks before it, and skips it when it cannot ask).
    #[arg(long)]
    pub(crate) yes: bool,
    /// Go no deeper than this step: `util`, `breakdown` or `deep-dive`.
    #[arg(long, default_value = "deep-dive", value_parser = Depth::parse)]
    max_depth: Depth,
    /// Utilization sampling interval.
    #[arg(long, default_value = "100ms", value_parser = parse_duration)]
    pub(crate) interval: Duration,
    /// Breakdown capture tool (`cupti`, `nsys`, …); default: the first that can run here.
    #[arg(long)]
    pub(crate) tool: Option<String>,
    /// Breakdown capture window.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub(crate) window: Duration,
    #[command(flatten)]
    pub(crate) report: crate::report_args::ReportArgs,
    #[command(flatten)]
    pub(crate) run: crate::report_args::RunArgs,
    /// Print the `prof.profile.v1` JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the report as a self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The workload, after `--`.
    #[arg(last = true, required = true)]
    command: Vec<OsString>,
}

impl ProfileArgs {
    /// Under a job launcher each rank writes into its own `--out`/`rank<R>` (its breakdown step
    /// leaves the rank summary there).
    pub fn per_rank(mut self) -> Self {
        self.run.out = crate::report_args::per_rank(self.run.out);
        self
    }
}

/// Runs `prof profile`.
pub fn run(registry: &Registry, args: &ProfileArgs) -> Result<ExitCode, Failure> {
    if let Some(page) = &args.html {
        crate::output_file::check(page).map_err(|e| Failure::new(Kind::Usage, e))?;
    }
    // Detected once: the breakdown uses this vendor, the deep dive this checked tool.
    let vendor = super::present_vendor(registry, "an existing artifact")?;
    let cmd = shell_join(&args.command);
    let deep_dive_tool = vendor.deep_dive().map(|tool| {
        let check = tool.check().map_err(|e| e.to_string());
        (tool, check)
    });
    let _lock = crate::out_lock::OutLock::take(&args.run.out).map_err(|e| Failure::new(Kind::Usage, e))?;
    let mut report = ProfileReport::new(&args.command, vendor.name(), args.max_depth);
    let plan_tool = deep_dive_tool.as_ref().map(|(tool, check)| (tool.name(), check));
    eprintln!("{}", view::plan_text(&report, args, plan_tool));

    // 1. Is the device busy?
    let util_args = util::UtilArgs::for_command(
        args.command.clone(),
        args.interval,
        Some(args.run.timeout),
        args.run.out.join("util"),
    );
    let measured = util::measure(registry, &util_args)?;
    if let super::util_record::Ended::Exited(Some(code)) = measured.ended {
        if code != 0 {
            let log = args.run.out.join("util").join("util-workload.log");
            let message = format!(
                "the command failed (exit status {code}) during the utilization run; its output is in {}",
                log.display()
            );
            return Err(Failure::new(Kind::WorkloadFailed, message));
        }
    }
    if let Some(stopped) = measured.ended.stopped_by() {
        eprintln!("prof profile: {stopped} ended the utilization run; no further step was started");
        return Ok(super::util_record::exit_status(measured.ended));
    }
    let verdict = &measured.verdict;
    let rerun = format!("prof util -- {cmd}");
    let mut step = Step::ran("util", &verdict.headline, verdict.evidence.clone(), rerun);
    step.text = util::text(&measured);
    step.document = Some(util::document(&util_args, &measured)?);
    report.steps.push(step);
    let busy = match verdict.kind {
        VerdictKind::HostBound | VerdictKind::Idle => false,
        VerdictKind::Busy => true,
        // Utilization could not tell: the kernel trace can.
        VerdictKind::TooShort | VerdictKind::NoData | VerdictKind::Snapshot => true,
    };
    if !busy {
        let why = if verdict.kind == VerdictKind::Idle {
            "the device did no work: a kernel trace would be empty"
        } else {
            "the device mostly waited: the host side is the bottleneck, and a kernel trace won't show it"
        };
        report.stop("util", &verdict.headline, why);
        return finish(args, &report);
    }
    if args.max_depth == Depth::Util {
        report.stop("util", &verdict.headline, "--max-depth util");
        return finish(args, &report);
    }

    // 2. Where does the device time go?
    let settings = breakdown::ForCommand {
        tool: args.tool.clone(),
        window: args.window,
        timeout: args.run.timeout,
        top: args.report.top,
        out: args.run.out.join("breakdown"),
        families: args.report.families.clone(),
        json: args.json,
        // Where the utilization run found the work: the window opens there for a tool that
        // cannot open it on the work itself.
        fallback_skip: active_start(&measured),
    };
    let breakdown_args = breakdown::BreakdownArgs::for_command(args.command.clone(), settings);
    let tool_flag = args.tool.as_ref().map(|t| format!("--tool {} ", shell_quote(t))).unwrap_or_default();
    let rerun = format!("prof breakdown {tool_flag}-- {cmd}");
    let measured = match breakdown::measure(registry, &breakdown_args, Some(vendor)) {
        Ok(measured) => measured,
        Err(failure) => return failed(args, report, "breakdown", rerun, failure),
    };
    let (headline, evidence) = view::breakdown_headline(&measured);
    let mut step = Step::ran("breakdown", &headline, evidence, rerun);
    step.tool = Some(measured.tool.clone());
    step.artifacts = view::artifacts(&measured.artifacts, &measured.how_to_open);
    step.text = measured.text.clone();
    step.document = Some(measured.document.clone());
    report.steps.push(step);
    let Some(target) = measured.answer.target.clone() else {
        let why = view::no_dominant_kernel(&measured);
        report.stop("breakdown", &headline, &why);
        return finish(args, &report);
    };
    let dive_command = target.command(&args.command);
    let dominant = format!(
        "one kernel dominates: {} takes {:.1} % of device time",
        crate::render::display_name(&target.kernel),
        target.share_pct
    );
    if args.max_depth == Depth::Breakdown {
        report.skip("deep-dive", "--max-depth breakdown", dive_command);
        report.stop("breakdown", &headline, &dominant);
        return finish(args, &report);
    }
    let cannot_run = match &deep_dive_tool {
        None => Some(format!("{} has no deep-dive tool", vendor.name())),
        Some((tool, Err(error))) => Some(format!("{} cannot run here: {error}", tool.name())),
        Some((_, Ok(()))) => None,
    };
    if let Some(why) = cannot_run {
        report.skip("deep-dive", &why, dive_command);
        report.stop("breakdown", &headline, &format!("{dominant}; {why}"));
        return finish(args, &report);
    }
    if !args.yes {
        let asked = crate::confirm::ask(
            &format!("{dominant}. Run the deep dive (slow: the kernel is replayed once per metric pass)?"),
            "stdin is not a terminal, so prof could not ask; rerun with --yes, or run the command below",
        );
        if let Err(why) = asked {
            report.skip("deep-dive", &why, dive_command);
            report.stop("breakdown", &headline, &dominant);
            return finish(args, &report);
        }
    }

    // 3. Why is this kernel slow?
    let skip = u32::try_from(target.launch_skip).unwrap_or(u32::MAX);
    let dive_args = deep_dive::DeepDiveArgs::for_command(
        args.command.clone(),
        target.regex.clone(),
        skip,
        args.run.timeout,
        args.run.out.join("deep-dive"),
    );
    let measured = match deep_dive::measure(registry, &dive_args, deep_dive_tool.map(|(tool, _)| tool)) {
        Ok(measured) => measured,
        Err(failure) => return failed(args, report, "deep-dive", dive_command, failure),
    };
    let (headline, evidence) = view::deep_dive_headline(&measured, &target);
    let mut step = Step::ran("deep-dive", &headline, evidence, dive_command);
    step.tool = Some(measured.tool.clone());
    step.artifacts = view::artifacts(&measured.artifacts, &measured.how_to_open);
    step.text = crate::deep_dive_view::render_text(&measured.reports);
    step.document = Some(measured.document()?);
    report.steps.push(step);
    report.stop("deep-dive", &headline, &dominant);
    finish(args, &report)
}

/// The start of the active phase the utilization run found, from the command's start (zero
/// when it found none).
fn active_start(measured: &util::Measured) -> Duration {
    let start = measured.phases.as_ref().and_then(|p| p.window_ns).map_or(0, |(start, _)| start);
    Duration::from_nanos(start)
}

/// A step that failed after earlier steps answered: the report keeps their answers, records
/// the failed step with its cause, and prof exits with the failure's status.
fn failed(
    args: &ProfileArgs,
    mut report: ProfileReport,
    name: &'static str,
    rerun: String,
    failure: Failure,
) -> Result<ExitCode, Failure> {
    if failure.kind == Kind::Interrupted {
        return Err(failure);
    }
    let last = report.steps.last().map_or("", |s| s.name);
    let answer = report.steps.last().map(|s| s.headline.clone()).unwrap_or_default();
    let mut step = Step::ran(name, "failed", Vec::new(), rerun);
    step.ran = false;
    step.failed = Some(failure.clone());
    report.steps.push(step);
    let cause = failure.message.lines().next().unwrap_or("");
    let why = format!("the {name} step failed ({cause}); the answers of the steps before it stand");
    report.stop(last, &answer, &why);
    eprintln!("prof profile: the {name} step failed: {}", failure.message);
    finish(args, &report)?;
    Ok(ExitCode::from(failure.exit_code))
}

/// Prints the report (and writes its page).
fn finish(args: &ProfileArgs, report: &ProfileReport) -> Result<ExitCode, Failure> {
    let text = view::render_text(report);
    if let Some(page) = &args.html {
        crate::html_report::write_markup_page(page, "prof profile", view::render_html(report))?;
        eprintln!("wrote {} (open in a browser)", page.display());
    }
    if args.json {
        print_json(report)?;
    } else {
        out!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}
