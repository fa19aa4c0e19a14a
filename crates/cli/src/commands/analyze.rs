//! `prof analyze [PATH]`: load an artifact another tool (or an earlier capture) wrote, and
//! show where the device time went. Each backend says which formats it reads; the first
//! that recognises the file loads it. With no PATH, the embedded default is analysed: a
//! real PyTorch profiler trace recorded on an H200 (tests/fixtures/nvidia/h200-probe).

use crate::answer_view::AnswerView;
use crate::breakdown_view::{render_text, BreakdownReport};
use crate::deep_dive_target::{deep_dive_available, DeepDiveContext};
use crate::deep_dive_view::{self, DeepDiveReport};
use crate::failure::{Failure, Kind};
use crate::outputs::{self, OutputArgs};
use crate::progress;
use crate::render::print_json;
use crate::sections;
use clap::Args;
use prof_core::diagnosis::DiagnosisReport;
use prof_core::families::Families;
use prof_core::kernel_summary::summarize_kernels;
use prof_core::report::{Options, VendorPrefetch};
use prof_core::{Registry, Timeline};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The embedded default profile: torch.profiler on the H200 running work.py (decode-shaped).
const EMBEDDED_TRACE: &[u8] = include_bytes!("../../../../tests/fixtures/nvidia/h200-probe/torch-trace.json");
/// How the embedded default is named in reports.
pub const EMBEDDED_NAME: &str = "embedded:h200-probe/torch-trace.json";

/// Arguments of `prof analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// The artifact, in any format listed below (NVIDIA, AMD and Ascend), or a directory: one
    /// holding a single artifact, a profile directory, or one artifact per rank.
    /// Omitted: the embedded H200 profile.
    path: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) report: crate::report_args::ReportArgs,
    /// Print a JSON document instead of tables: `prof.breakdown.v1` for a timeline or kernel
    /// table, `prof.ranks.v1` for a rank directory, `prof.deep-dive.v1` for an ncu report
    /// (`prof.error.v1` on failure).
    #[arg(long)]
    pub json: bool,
    /// Which part of the run the answers describe: `steady` (the repeating steps, after the
    /// load and warm-up), `all`, `load`, `warmup`, `tail`, or `START..END` from the run's start
    /// (`12s..20s`, `..500ms`).
    #[arg(long, default_value = "steady", value_parser = crate::phases_view::parse_phase)]
    phase: prof_core::phases::PhaseChoice,
    /// Only the kernel and family tables (and an Ascend op table's per-op-type totals): no
    /// diagnosis, no timeline analyses; an Ascend op table is aggregated while it streams,
    /// without building the timeline, for very large exports.
    #[arg(long)]
    summary_only: bool,
    /// Output files.
    #[command(flatten)]
    outputs: OutputArgs,
    /// Also write this window's rank summary (`prof.rank-summary.v1`: split, steps, families,
    /// top kernels, every collective) to FILE, named `*.rank-summary.json`; `prof analyze DIR`
    /// merges a directory of them in bounded memory (a job of a thousand ranks).
    #[arg(long, value_name = "FILE")]
    rank_summary: Option<PathBuf>,
    /// With a directory of ranks: write each rank's summary into DIR (`rank<R>.rank-summary.json`),
    /// for `prof analyze DIR` to merge (the same answers from a few KB a rank).
    #[arg(long, value_name = "DIR", conflicts_with = "rank_summary")]
    rank_summaries: Option<PathBuf>,
    /// The rank the summary is of; default: the launcher's (`RANK`, `SLURM_PROCID`,
    /// `OMPI_COMM_WORLD_RANK`, `PMI_RANK`), else the number in the artifact's name, else 0.
    #[arg(long, requires = "rank_summary")]
    rank: Option<u32>,
}

pub use prof_core::Loaded;

/// Loads `path` through the registry's one door ([`Registry::load`]): the reader that
/// recognises it best. Every failure is bad input (exit 3) naming the path.
pub fn load_any(registry: &Registry, path: &Path, families: &Families) -> Result<Loaded, Failure> {
    registry
        .load(path, families)
        .map(|(loaded, _)| loaded)
        .map_err(|error| Failure::from(error).or_kind(Kind::BadInput).at_path(path.display().to_string()))
}

/// `timeline` with its ops in start order, unless its durations sum past what any sum can
/// hold exactly (an error naming the op: a number from it would be wrong).
pub fn checked(mut timeline: Timeline) -> Result<Timeline, Failure> {
    timeline.finish_loading().map_err(|reason| Failure::new(Kind::BadInput, reason))?;
    Ok(timeline)
}

/// The embedded default, read by the registry's Kineto reader.
fn load_embedded(registry: &Registry) -> Result<Timeline, Failure> {
    registry
        .read_bytes("torch-trace", EMBEDDED_TRACE, Path::new(EMBEDDED_NAME))
        .map_err(|e| Failure::from(e).or_kind(Kind::BadInput))
}

/// Loads the family table: the built-ins, with the user's file in front.
pub fn families(path: Option<&Path>) -> Result<Families, Failure> {
    match path {
        Some(path) => Families::from_file(path).map_err(|e| Failure::from(e).or_kind(Kind::BadInput)),
        None => Ok(Families::builtin()),
    }
}

/// Runs `prof analyze`.
pub fn run(registry: &Registry, args: &AnalyzeArgs) -> Result<ExitCode, Failure> {
    args.outputs.check().map_err(|e| Failure::new(Kind::Usage, e))?;
    let families = families(args.report.families.as_deref())?;
    if args.summary_only {
        if let Some(trace) = &args.outputs.chrome_trace {
            return Err(Failure::new(
                Kind::Usage,
                format!(
                    "--chrome-trace {}: --summary-only builds no timeline to write; drop --summary-only for the trace",
                    trace.display()
                ),
            ));
        }
        let html = args.outputs.html.as_deref();
        return match &args.path {
            Some(path) => super::analyze_summary::run(registry, path, &families, args.json, args.report.top, html),
            None => super::analyze_summary::run_timeline(
                &load_embedded(registry)?,
                &families,
                args.json,
                args.report.top,
                html,
            ),
        };
    }
    if let Some(file) = &args.rank_summary {
        if !prof_core::rank_summary::is_rank_summary(file) {
            let why = format!("--rank-summary {}: name it `*{}`", file.display(), prof_core::rank_summary::SUFFIX);
            return Err(Failure::new(Kind::Usage, why));
        }
        crate::output_file::check(file).map_err(|e| Failure::new(Kind::Usage, format!("--rank-summary {e}")))?;
    }
    // A directory of rank summaries, or one summary (a job of one rank: its row, and too little
    // to tell which rank the job waits on).
    let summaries = args.path.as_deref().and_then(|p| {
        let one = prof_core::rank_summary::is_rank_summary(p) && p.is_file();
        Some((p, if one { vec![p.to_owned()] } else { super::analyze_job::summaries_in(p)? }))
    });
    if let Some((path, summaries)) = summaries {
        let trace_only = outputs::OutputArgs { chrome_trace: args.outputs.chrome_trace.clone(), html: None };
        refuse_outputs(&trace_only, "a directory of rank summaries holds no timeline to write")?;
        return super::analyze_job::run(path, &summaries, args.json, args.outputs.html.as_deref());
    }
    if let Some(path) = &args.path {
        let trace_only = outputs::OutputArgs { chrome_trace: args.outputs.chrome_trace.clone(), html: None };
        let refuse = || refuse_outputs(&trace_only, "a rank directory has one timeline per rank, not one to write");
        let html = args.outputs.html.as_deref();
        let summaries = args.rank_summaries.as_deref();
        if let Some(outcome) =
            super::analyze_ranks::try_run(registry, path, &families, args.json, html, refuse, summaries)
        {
            return outcome;
        }
    }
    if let Some(dir) = &args.rank_summaries {
        let why = format!("--rank-summaries {}: the path is not a directory of ranks", dir.display());
        return Err(Failure::new(Kind::Usage, why));
    }
    let vendor = VendorPrefetch::start(args.path.as_deref(), crate::registry::build);
    let (loaded, format) = match &args.path {
        Some(path) => {
            let _loading = progress::loading(path);
            let (loaded, format) = registry
                .load(path, &families)
                .map_err(|error| Failure::from(error).or_kind(Kind::BadInput).at_path(path.display().to_string()))?;
            (loaded, Some(format))
        }
        None => (Loaded::Timeline(Box::new(load_embedded(registry)?)), None),
    };
    let util_csv = args.path.as_deref().filter(|p| prof_core::util_csv::is_util_csv(p));
    let (mut util_verdict, mut util_ticks) = (None, None);
    let options = Options::new(&families, registry, &vendor).at(args.path.as_deref()).phase(args.phase);
    let (report, summary) = match loaded {
        Loaded::Timeline(timeline) => {
            let timeline = *timeline;
            let report = match util_csv {
                // A `prof util --csv` recording: the phases and verdict of the live run; its
                // counter analyses (clock drops, throttle reasons) cover the whole recording.
                Some(csv) => {
                    let ticks = prof_core::util_ticks::read_ticks(csv)?;
                    let (phases, _, verdict) = prof_core::report::judge_util(&ticks, args.phase, &["<your command>"])?;
                    util_verdict = Some(verdict);
                    util_ticks = Some(ticks);
                    let summary = summarize_kernels(&timeline, &families);
                    prof_core::report::analyze_window(timeline, phases, summary, Default::default(), &options)
                }
                None => prof_core::report::analyze(timeline, &options)?,
            };
            (Some(report), None)
        }
        Loaded::Summary(summary) => (None, Some(summary)),
        Loaded::Kernels(reports) => {
            refuse_outputs(&args.outputs, "an ncu report holds per-kernel metrics, no timeline or breakdown")?;
            let source = args.path.as_deref().map(|p| p.display().to_string()).unwrap_or_default();
            if args.json {
                print_json(&DeepDiveReport { schema: "prof.deep-dive.v1", source, kernels: &reports })?;
            } else {
                out!("{}", deep_dive_view::render_text(&reports));
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    if let (Some(file), Some(report)) = (&args.rank_summary, &report) {
        write_rank_summary(file, report, &families, args)?;
    }
    let no_diagnosis = DiagnosisReport { findings: Vec::new(), steps: None };
    let summary =
        report.as_ref().map(|r| &r.summary).or(summary.as_ref()).ok_or("no timeline and no summary loaded")?;
    let timeline = report.as_ref().map(|r| &r.timeline);
    let diagnosis = report.as_ref().map_or(&no_diagnosis, |r| &r.diagnosis);
    let phases = report.as_ref().map(|r| &r.phases);
    let sections = report.as_ref().map(|r| sections::render(&r.analyses, summary)).unwrap_or_default();
    let dive = DeepDiveContext {
        available: deep_dive_available(registry, dive_vendor(format.as_ref(), summary.recorded_on.as_deref()), None),
        launches_before: phases.map(|p| &p.launches_before),
    };
    let origin = crate::answer_view::Origin { command: &[], path: args.path.as_deref().and_then(Path::to_str) };
    let has_timeline = timeline.map(|_| diagnosis);
    let found = match (&util_verdict, &report) {
        // A `prof util --csv` recording: its own verdict is the answer (it has no kernels).
        (Some(verdict), _) => prof_core::answer::of_utilization(verdict),
        (None, Some(report)) => report.answer.clone(),
        (None, None) => prof_core::answer::answer(&prof_core::answer::Inputs::of_summary(summary)),
    };
    let view = AnswerView::new(found, summary, &dive, &origin);
    let next = view.deep_dive_command();
    let answer = crate::html_report::Answer { diagnosis: has_timeline, answer: Some(&view), top: args.report.top };
    // A `prof util --csv` recording is re-plotted as the utilization page `prof util --html` draws.
    let mut util_page = outputs::Written::default();
    let breakdown_outputs = match (util_csv.zip(util_ticks), &args.outputs.html) {
        (Some((csv, ticks)), Some(page)) => {
            let recording = prof_core::util_ticks::recording_of(&csv.display().to_string(), ticks);
            let report = util_verdict.as_ref().map(super::util::render_verdict).unwrap_or_default();
            match crate::html_report::write_util(page, &recording, &report) {
                Ok(()) => util_page
                    .lines
                    .push(format!("wrote {} (the recording re-plotted; open in a browser)", page.display())),
                Err(error) => util_page.lost.push(error.into()),
            }
            outputs::OutputArgs { chrome_trace: args.outputs.chrome_trace.clone(), html: None }
        }
        _ => outputs::OutputArgs { chrome_trace: args.outputs.chrome_trace.clone(), html: args.outputs.html.clone() },
    };
    let mut written = outputs::write(&breakdown_outputs, timeline, summary, &sections, &answer)?;
    written.lines.extend(util_page.lines);
    written.lost.splice(0..0, util_page.lost);
    if args.json {
        let artifacts = args.path.iter().map(|p| p.display().to_string()).collect();
        let mut report = BreakdownReport::new(summary, diagnosis, artifacts, None, next);
        report.analyses = timeline.map(|_| sections::to_json(&sections));
        report.phases = phases;
        report.util_verdict = util_verdict.as_ref();
        report.format = format.as_ref();
        report.recorded_on = summary.recorded_on.as_deref();
        report.unread = timeline.map_or(&[], |t| t.unread.as_slice());
        report.answer = Some(&view);
        print_json(&report)?;
    } else {
        outln!("{}", view.render_text());
        if let Some(phases) = phases {
            out!("{}", crate::phases_view::render_text(phases));
        }
        if let Some(verdict) = &util_verdict {
            outln!("{}", super::util::render_verdict(verdict).trim_start());
        }
        if let Some(format) = &format {
            let line = read_as_line(format, summary.recorded_on.as_deref(), timeline);
            out!("{}", crate::wrap::wrap(&format!("{line}\n"), crate::wrap::width()));
        }
        out!("{}", render_text(summary, diagnosis, args.report.top));
        out!("{}", sections::render_text(&sections));
    }
    Ok(written.finish())
}

/// Writes the rank summary of `report` to `file` (see `--rank-summary`).
fn write_rank_summary(
    file: &Path,
    report: &prof_core::report::Report,
    families: &Families,
    args: &AnalyzeArgs,
) -> Result<(), Failure> {
    let launched = prof_core::launcher::from_env();
    let source = args.path.as_deref().map_or_else(|| EMBEDDED_NAME.to_owned(), |p| p.display().to_string());
    let named = args.path.as_deref().and_then(|p| p.file_name()?.to_str()).and_then(prof_core::launcher::rank_in_name);
    let rank = args.rank.or(launched.map(|l| l.rank)).or(named).unwrap_or(0);
    let summary =
        prof_core::rank_summary::RankSummary::of(report, families, rank, launched.and_then(|l| l.world_size), &source);
    super::analyze_job::write_summary(file, &summary)
}

/// `read as: READER (DEVICE), by REASON`: the device the source names when it names one
/// (a ROCm or MTIA trace read by the Kineto reader is not an NVIDIA run), else the reader's
/// backend; then what the reader saw and did not read.
fn read_as_line(format: &prof_core::Format, on: Option<&str>, timeline: Option<&prof_core::Timeline>) -> String {
    let device = on.map_or_else(|| format.vendor.to_owned(), |d| format!("recorded on {d}"));
    let mut line = format!("read as: {} ({device}), by {}", format.name, format.recognition.reason);
    let unread = timeline.map_or(&[][..], |t| t.unread.as_slice());
    if !unread.is_empty() {
        let kinds: Vec<String> = unread.iter().take(4).map(|(kind, n)| format!("{kind} {n}")).collect();
        line.push_str(&format!("\nnot read: {}{}", kinds.join(", "), if unread.len() > 4 { ", …" } else { "" }));
    }
    line
}

/// The backend whose deep dive fits the run: the one the recorded device belongs to, else
/// the reader's (a ROCm trace read by the Kineto reader dives with AMD's tools; MTIA has none).
fn dive_vendor<'a>(format: Option<&'a prof_core::Format>, recorded_on: Option<&str>) -> Option<&'a str> {
    match recorded_on {
        Some(on) if on.starts_with("MTIA") => Some("MTIA"),
        Some(on) if on.contains("AMD") => Some("AMD"),
        _ => format.map(|f| f.vendor),
    }
}

/// `--html`/`--chrome-trace` asked of an input that cannot give them: refused with the reason,
/// never silently left unwritten.
fn refuse_outputs(outputs: &outputs::OutputArgs, why: &str) -> Result<(), Failure> {
    let asked = [("--html", &outputs.html), ("--chrome-trace", &outputs.chrome_trace)];
    match asked.iter().find_map(|(flag, path)| path.as_ref().map(|p| (flag, p))) {
        Some((flag, path)) => {
            Err(Failure::new(Kind::Usage, format!("{flag} {}: not written: {why}; drop {flag}", path.display())))
        }
        None => Ok(()),
    }
}
