//! `prof`: one profiler front end for NVIDIA, AMD and Huawei Ascend accelerators.
//!
//! The binary only wires things together: clap parses the verb, [`registry`] lists the
//! compiled-in backends, and each module under [`commands`] runs one verb and renders it.

#[macro_use]
mod stdout;
mod answer_view;
mod blocks;
mod breakdown_view;
mod chrome_trace;
mod commands;
mod confirm;
mod deep_dive_target;
mod deep_dive_view;
mod durations;
mod exposition;
mod failure;
mod html_report;
mod live_sampler;
mod mcp;
mod out_lock;
mod output_file;
mod outputs;
mod phases_view;
mod probes;
mod progress;
mod registry;
mod render;
mod report_args;
mod sections;
mod serve;
mod wrap;

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
    #[arg(
        long,
        global = true,
        value_name = "SIZE",
        value_parser = prof_timeline::load_budget::parse_size,
        help_heading = "Global options"
    )]
    memory_budget: Option<u64>,
    /// With --json: every row of every list. Without it a list keeps its first 100 rows (the
    /// largest first where the list is ranked) and the document's `truncated` says what was cut,
    /// so any input gives a document of bounded size.
    #[arg(long, global = true, help_heading = "Global options")]
    json_full: bool,
    /// Tables print kernel names whole instead of shortened to the terminal's width.
    #[arg(long, global = true, help_heading = "Global options")]
    wide: bool,
    /// Exit 6 (after printing the report) when the answer rests on partial input: a cut file, a
    /// spent memory budget, a file of another run left out (the report says PARTIAL).
    #[arg(long, global = true, help_heading = "Global options")]
    strict: bool,
}

/// The top-level help's closing lines: what the exit statuses mean.
const EXIT_STATUSES: &str = "Exit statuses:
  0 success   1 failed   2 usage   3 bad input   4 tool missing   5 no artifact
  6 partial input (with --strict)   74 output lost (full disk)   124 timed out
  127 cannot start   130/143/129 Ctrl-C/SIGTERM/SIGHUP   the workload's own status
  when it failed. With --json a failure is also a prof.error.v1 document.";

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
    /// All three in one: utilization, then a breakdown if busy, then a deep dive if one kernel dominates.
    Profile(commands::profile::ProfileArgs),
    /// The JSON Schema of each `--json` document (`prof schema prof.breakdown.v1`).
    Schema(commands::schema::SchemaArgs),
    /// Every device, live: utilization, SM activity, memory, power, clocks, processes, verdict.
    Top(commands::top::TopArgs),
    /// Serve every device's metrics and verdict to Prometheus (`/metrics`).
    Exporter(commands::exporter::ExporterArgs),
    /// Serve prof's verbs as Model Context Protocol tools over stdio (for AI coding agents).
    Mcp(mcp::McpArgs),
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
            Command::Profile(args) => args.json,
            Command::Mcp(_) | Command::Schema(_) | Command::Top(_) | Command::Exporter(_) => false,
        }
    }
}

const EXAMPLES_DETECT: &str = "Examples:
  prof detect                      what accelerators, drivers and profilers this machine has
  prof detect --json               the same as prof.detect.v1, for a program";
const EXAMPLES_UTIL: &str = "Examples:
  prof util -- python train.py     sample while the command runs; the verdict is on its steady phase
  prof util --duration 30s         sample the machine for 30 s (a job already running)
  prof util --watch --csv util.csv beside a long job, until Ctrl-C; rows appear as they are taken
  prof analyze util.csv            re-read a recording later";
const EXAMPLES_BREAKDOWN: &str = "Examples:
  prof breakdown -- python infer.py              kernel table, families and diagnosis of the steady state
  prof breakdown --skip auto -- python infer.py  record from the end of the model load on (cupti)
  prof breakdown --capture-range range:step -- python train.py   only the NVTX range `step`
  prof breakdown --tool nsys --html report.html -- ./app         with nsys, and an HTML report";
const EXAMPLES_DEEP_DIVE: &str = "Examples:
  prof deep-dive --kernel '^my_gemm$' --launch-skip 2 -- python bench.py
      one launch of the kernel whose function name is my_gemm, past two warm-up launches
      (prof breakdown and prof analyze print this command for a dominant kernel)";
const EXAMPLES_ANALYZE: &str = "Examples:
  prof analyze                                   the embedded H200 profile (a first look)
  prof analyze trace.json.gz                     a PyTorch profiler trace
  prof analyze report.nsys-rep --top 30          an nsys report (exported with the nsys found)
  prof analyze ./rocprof-out/ --json             a rocprofv3 output directory, as prof.breakdown.v1
  prof analyze ASCEND_PROFILER_OUTPUT/ --phase all   a torch_npu/msprof tree, the whole run
  prof analyze ./ranks/                          one trace per rank: per-rank table and stragglers";
const EXAMPLES_DIFF: &str = "Examples:
  prof diff eager.json graph.json                before and after: per-family and per-kernel deltas
  prof diff before.pcupti after.pcupti --json    the same as prof.diff.v1";
const EXAMPLES_PROFILE: &str = "Examples:
  prof profile -- python infer.py                util; if busy, breakdown; if one kernel dominates, deep dive
  prof profile --yes --json -- python train.py   every step without asking, as prof.profile.v1
  prof profile --max-depth breakdown -- ./app    never the (slow) deep dive";
const EXAMPLES_MCP: &str = "Examples:
  prof mcp                                       serve on stdin/stdout (an agent starts it)
  claude mcp add prof -- prof mcp                register it with Claude Code
  {\"mcpServers\": {\"prof\": {\"command\": \"prof\", \"args\": [\"mcp\"]}}}   in an MCP client's JSON config";
const EXAMPLES_SERVE: &str = "Examples:
  prof serve --server 'vllm serve facebook/opt-125m' --health http://localhost:8000/health
      start the server, wait until healthy, warm up, benchmark, capture a window, stop it
  prof serve --server 'python -m sglang.launch_server --model-path M' \\
             --health http://localhost:30000/health --tool server --yes
      with the server's own profiler endpoints, no confirmation prompt";

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
    formats.push('\n');
    formats.push_str(EXAMPLES_ANALYZE);
    let command = Cli::command()
        .after_help(EXIT_STATUSES)
        .mut_subcommand("analyze", |analyze| analyze.after_help(formats))
        .mut_subcommand("detect", |c| c.after_help(EXAMPLES_DETECT))
        .mut_subcommand("util", |c| c.after_help(EXAMPLES_UTIL))
        .mut_subcommand("breakdown", |c| c.after_help(EXAMPLES_BREAKDOWN))
        .mut_subcommand("deep-dive", |c| c.after_help(EXAMPLES_DEEP_DIVE))
        .mut_subcommand("diff", |c| c.after_help(EXAMPLES_DIFF))
        .mut_subcommand("serve", |c| c.after_help(EXAMPLES_SERVE))
        .mut_subcommand("profile", |c| c.after_help(EXAMPLES_PROFILE))
        .mut_subcommand("mcp", |c| c.after_help(EXAMPLES_MCP));
    let matches = command.get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
}

fn main() -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|arg| arg == GUARD_ARG) {
        prof_capture::guard::run_guard();
        return ExitCode::SUCCESS;
    }
    // Whatever prof starts is stopped by the guard if prof dies without cleaning up.
    if let Ok(exe) = std::env::current_exe() {
        prof_capture::guard::install(exe, vec![GUARD_ARG.into()]);
    }
    // A tool a reader runs (`nsys export` of an .nsys-rep) runs under the supervisor too.
    prof_core::step_runner::install(prof_capture::supervisor::run);
    let registry = registry::build();
    let cli = parse(&registry);
    render::set_json_full(cli.json_full);
    render::set_wide(cli.wide);
    if let Some(bytes) = cli.memory_budget {
        prof_timeline::load_budget::set_memory_budget(bytes);
    }
    let json = cli.command.json();
    let result = match cli.command {
        Command::Detect(args) => commands::detect::run(&registry, &args),
        Command::Util(args) => commands::util::run(&registry, &args.per_rank()),
        Command::Breakdown(args) => commands::breakdown::run(&registry, &args.per_rank()),
        Command::DeepDive(args) => commands::deep_dive::run(&registry, &args),
        Command::Analyze(args) => commands::analyze::run(&registry, &args),
        Command::Diff(args) => commands::diff::run(&registry, &args),
        Command::Serve(args) => commands::serve::run(&registry, &args),
        Command::Profile(args) => commands::profile::run(&registry, &args.per_rank()),
        Command::Mcp(args) => mcp::serve(&args),
        Command::Top(args) => commands::top::run(&registry, &args),
        Command::Exporter(args) => commands::exporter::run(&registry, &args),
        Command::Schema(args) => commands::schema::run(&args),
    };
    match result {
        Ok(code) if cli.strict && code == ExitCode::SUCCESS && render::was_partial() => {
            eprintln!("prof: the answer rests on partial input (see PARTIAL in the report); --strict exits 6");
            ExitCode::from(render::EXIT_PARTIAL)
        }
        Ok(code) => code,
        Err(failure) => failure.report(json),
    }
}
