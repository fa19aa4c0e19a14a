//! `prof`: one profiler front end for NVIDIA, AMD and Huawei Ascend accelerators.
//!
//! The binary only wires things together: clap parses the verb, [`registry`] lists the
//! compiled-in backends, and each module under [`commands`] runs one verb and renders it.

#[macro_use]
mod render;
mod breakdown_view;
mod chrome_trace;
mod commands;
mod deep_dive_view;
mod durations;
mod failure;
mod html_report;
mod outputs;
mod phases_view;
mod progress;
mod registry;
mod sections;
mod serve;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Is my accelerator busy, where does its time go, and why is this kernel slow?
#[derive(Debug, Parser)]
#[command(name = "prof", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Most memory a loaded timeline may hold (e.g. 512M, 4G): a larger artifact is read up to
    /// it and reported as partial. Default: PROF_MEMORY_BUDGET, else half of this machine's memory.
    #[arg(long, global = true, value_name = "SIZE", value_parser = prof_core::load_budget::parse_size)]
    memory_budget: Option<u64>,
    /// With --json: every row of every list. Without it a list keeps its first 100 rows (the
    /// largest first where the list is ranked) and the document's `truncated` says what was cut,
    /// so any input gives a document of bounded size.
    #[arg(long, global = true)]
    json_full: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Find accelerators, drivers and profiling tools on this machine.
    Detect(commands::detect::DetectArgs),
    /// Is the accelerator busy? Sample utilization while a command runs, for a while, or once.
    Util(commands::util::UtilArgs),
    /// Where does the device time go? Capture a kernel breakdown of a command.
    Breakdown(commands::breakdown::BreakdownArgs),
    /// Why is this kernel slow? Profile one kernel of a command in depth.
    DeepDive(commands::deep_dive::DeepDiveArgs),
    /// Read an artifact a profiler already wrote (default: the embedded H200 profile).
    Analyze(commands::analyze::AnalyzeArgs),
    /// Compare two profiles: per-family and per-kernel deltas, idle time and gaps.
    Diff(commands::diff::DiffArgs),
    /// Profile a model server under a short benchmark (plan, fail fast, warm up, capture, clean up).
    Serve(commands::serve::ServeArgs),
}

impl Command {
    /// True when the verb was asked for JSON: a failure is then also a `prof.error.v1` document.
    fn json(&self) -> bool {
        match self {
            Command::Detect(args) => args.json,
            Command::Util(args) => args.json,
            Command::Breakdown(args) => args.json,
            Command::DeepDive(args) => args.json,
            Command::Analyze(args) => args.json,
            Command::Diff(args) => args.json,
            Command::Serve(args) => args.json,
        }
    }
}

/// The hidden argument that runs prof as its own guard ([`prof_core::guard`]).
const GUARD_ARG: &str = "__guard";

/// The command line, with `analyze --help` listing the registry's readers (so the list cannot
/// drift from what the binary reads).
fn parse(registry: &prof_core::Registry) -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let mut formats = String::from("Formats read (recognised by content; the surest reader wins):\n");
    for (vendor, names) in registry.formats_by_vendor() {
        formats.push_str(&format!("  {vendor}: {}\n", names.join(", ")));
    }
    let command = Cli::command().mut_subcommand("analyze", |analyze| analyze.after_help(formats));
    let matches = command.get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
}

fn main() -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|arg| arg == GUARD_ARG) {
        prof_core::guard::run_guard();
        return ExitCode::SUCCESS;
    }
    // Whatever prof starts is stopped by the guard if prof dies without cleaning up.
    if let Ok(exe) = std::env::current_exe() {
        prof_core::guard::install(exe, vec![GUARD_ARG.into()]);
    }
    let registry = registry::build();
    let cli = parse(&registry);
    render::set_json_full(cli.json_full);
    if let Some(bytes) = cli.memory_budget {
        prof_core::load_budget::set_memory_budget(bytes);
    }
    let json = cli.command.json();
    let result = match cli.command {
        Command::Detect(args) => commands::detect::run(&registry, &args),
        Command::Util(args) => commands::util::run(&registry, &args),
        Command::Breakdown(args) => commands::breakdown::run(&registry, &args),
        Command::DeepDive(args) => commands::deep_dive::run(&registry, &args),
        Command::Analyze(args) => commands::analyze::run(&registry, &args),
        Command::Diff(args) => commands::diff::run(&registry, &args),
        Command::Serve(args) => commands::serve::run(&registry, &args),
    };
    match result {
        Ok(code) => code,
        Err(failure) => failure.report(json),
    }
}
