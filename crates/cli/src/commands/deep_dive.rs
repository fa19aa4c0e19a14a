//! `prof deep-dive --kernel REGEX -- CMD…`: why is this one kernel slow? Runs the vendor's
//! single-kernel profiler on the matching launch only (after `--launch-skip` warm-up
//! launches), keeps its report, and shows speed-of-light, occupancy, stalls, roofline and the
//! profiler's own findings (`prof.deep-dive.v1`). A deep dive replays the kernel: it is slow.

use crate::deep_dive_view::{render_text, DeepDiveReport};
use crate::failure::{Failure, Kind};
use crate::render::print_json;
use clap::Args;
use prof_capture::capture::{describe_plan, run_capture};
use prof_core::{DeepDive, DeepDiveRequest, Registry};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `prof deep-dive`.
#[derive(Debug, Args)]
pub struct DeepDiveArgs {
    /// Regular expression matching the kernel's name.
    #[arg(long)]
    kernel: String,
    /// Matching launches to skip first (warm-up).
    #[arg(long, default_value_t = 0)]
    launch_skip: u32,
    /// Launches to profile.
    #[arg(long, default_value_t = 1)]
    launch_count: u32,
    #[command(flatten)]
    run: crate::report_args::RunArgs,
    /// Print the `prof.deep-dive.v1` JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the report as a self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The workload, after `--`.
    #[arg(last = true, required = true)]
    command: Vec<OsString>,
}

/// The deep-dive tool of the first vendor found on this machine.
fn choose_tool(registry: &Registry) -> Result<Box<dyn DeepDive>, Failure> {
    let vendor = super::present_vendor(registry, "an existing ncu CSV")?;
    let tool = vendor.deep_dive();
    tool.ok_or_else(|| Failure::new(Kind::ToolMissing, format!("{} has no deep-dive tool yet", vendor.name())))
}

impl DeepDiveArgs {
    /// The arguments of `prof deep-dive --kernel REGEX --launch-skip N -- COMMAND` (for `prof profile`).
    pub fn for_command(
        command: Vec<OsString>,
        kernel: String,
        launch_skip: u32,
        timeout: Duration,
        out: PathBuf,
    ) -> Self {
        Self {
            kernel,
            launch_skip,
            launch_count: 1,
            run: crate::report_args::RunArgs { timeout, out },
            json: false,
            html: None,
            command,
        }
    }
}

/// What one deep dive found.
pub struct Measured {
    /// The tool that ran.
    pub tool: String,
    /// One report per profiled launch.
    pub reports: Vec<prof_core::deepdive::KernelReport>,
    /// Where the report is kept.
    pub out: PathBuf,
    /// How to open it.
    pub how_to_open: String,
    /// The report files.
    pub artifacts: Vec<(PathBuf, u64)>,
}

impl Measured {
    /// The `prof.deep-dive.v1` document.
    pub fn document(&self) -> Result<serde_json::Value, Failure> {
        let report = DeepDiveReport {
            schema: "prof.deep-dive.v1",
            source: self.out.display().to_string(),
            kernels: &self.reports,
        };
        Ok(serde_json::to_value(&report).map_err(|e| format!("cannot encode JSON: {e}"))?)
    }
}

/// Runs the deep dive `args` asks for and loads its report, with `checked` (a tool whose
/// check passed) or the present vendor's tool, checked here.
pub fn measure(
    registry: &Registry,
    args: &DeepDiveArgs,
    checked: Option<Box<dyn DeepDive>>,
) -> Result<Measured, Failure> {
    let tool = match checked {
        Some(tool) => tool,
        None => {
            let tool = choose_tool(registry)?;
            tool.check()?;
            tool
        }
    };
    let _lock =
        crate::out_lock::OutLock::take(&args.run.out).map_err(|e| Failure::new(crate::failure::Kind::Usage, e))?;
    let request = DeepDiveRequest {
        command: args.command.clone(),
        kernel_regex: args.kernel.clone(),
        launch_skip: args.launch_skip,
        launch_count: args.launch_count,
        out_dir: args.run.out.clone(),
        timeout: args.run.timeout,
    };
    let plan = tool.plan(&request).map_err(|e| Failure::from(e).or_kind(Kind::Usage))?;
    eprintln!(
        "prof deep-dive with {} (slow: the kernel is replayed once per metric pass):\n{}",
        tool.name(),
        describe_plan(&plan)
    );
    let captured = run_capture(&plan).map_err(|error| {
        let explained = tool.explain_failure(&args.run.out);
        let mut failure = Failure::from(error);
        if let Some(explained) = explained {
            failure.message = explained;
        }
        failure
    })?;
    let paths: Vec<PathBuf> = captured.artifacts.iter().map(|(path, _)| path.clone()).collect();
    let reports = tool.load(&paths).map_err(|e| Failure::from(e).or_kind(Kind::BadInput))?;
    Ok(Measured {
        tool: tool.name().to_owned(),
        reports,
        out: args.run.out.clone(),
        how_to_open: plan.how_to_open.clone(),
        artifacts: captured.artifacts.clone(),
    })
}

/// Runs `prof deep-dive`.
pub fn run(registry: &Registry, args: &DeepDiveArgs) -> Result<ExitCode, Failure> {
    let measured = measure(registry, args, None)?;
    if let Some(page) = &args.html {
        // The report is running text (no tables): each line a paragraph of the page.
        let blocks = crate::blocks::Blocks::from(render_text(&measured.reports));
        crate::html_report::write_blocks_page(page, &format!("prof deep-dive: {}", args.kernel), &blocks)?;
        eprintln!("wrote {} (open in a browser)", page.display());
    }
    if args.json {
        print_json(&measured.document()?)?;
    } else {
        out!("{}", render_text(&measured.reports));
        outln!("report kept in {} ({})", args.run.out.display(), measured.how_to_open);
    }
    Ok(ExitCode::SUCCESS)
}
