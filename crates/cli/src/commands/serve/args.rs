//! The flags of `prof serve`.

use crate::durations::parse_duration;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `prof serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The server command, one string split like a shell would (quotes, backslashes), run
    /// directly without a shell.
    #[arg(long)]
    pub(super) server: String,
    /// The server's health URL (http://), polled until it answers 200.
    #[arg(long)]
    pub(super) health: String,
    /// Limit from the server's start until it is healthy.
    #[arg(long, default_value = "120s", value_parser = parse_duration)]
    pub(super) ready_timeout: Duration,
    /// Longest wait for one response of the warm-up or the built-in load (an endpoint that takes
    /// the request and never answers is an error after it, and a warm-up without one good answer
    /// stops the run).
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub(super) request_timeout: Duration,
    /// A benchmark command to run in the capture window instead of the built-in load.
    #[arg(long, conflicts_with_all = ["requests", "concurrency", "payload"])]
    pub(super) bench: Option<String>,
    /// Limit of the benchmark command.
    #[arg(long, default_value = "10m", value_parser = parse_duration)]
    pub(super) bench_timeout: Duration,
    /// Built-in load: most requests to send in the window.
    #[arg(long, default_value_t = 100)]
    pub(super) requests: u64,
    /// Built-in load: requests in flight at once.
    #[arg(long, default_value_t = 1)]
    pub(super) concurrency: usize,
    /// Capture window: the built-in load stops issuing requests after it.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub(super) window: Duration,
    /// Endpoint of the built-in load and the warm-up (default: the health URL).
    #[arg(long)]
    pub(super) endpoint: Option<String>,
    /// Body to POST to the endpoint (JSON); without it the load sends GET.
    #[arg(long)]
    pub(super) payload: Option<PathBuf>,
    /// Unprofiled requests sent before the window opens.
    #[arg(long, default_value_t = 5)]
    pub(super) warmup_requests: u64,
    /// Capture: `util` (prof's recorder), `none` (load only), or a breakdown tool
    /// (`cupti`, `nsys`, `rocprofv3`, …).
    #[arg(long, default_value = "util")]
    pub(super) tool: String,
    /// Kernels to list in the breakdown.
    #[arg(long, default_value_t = 20)]
    pub(super) top: usize,
    /// Directory for the server's log and the artifacts.
    #[arg(long, default_value = "prof-out/serve")]
    pub(super) out: PathBuf,
    /// Run the plan without asking.
    #[arg(long)]
    pub(super) yes: bool,
    /// Print the `prof.serve.v1` JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// Which part of the capture the breakdown (or utilization summary) describes: `steady`
    /// (the repeating steps; for utilization, the active phase), `all`, `load`, `warmup`,
    /// `tail`, or `START..END`.
    #[arg(long, default_value = "steady", value_parser = crate::phases_view::parse_phase)]
    pub(super) phase: prof_core::phases::PhaseChoice,
}
