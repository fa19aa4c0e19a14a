//! Files a person opens rather than reads: `--chrome-trace FILE` (the timeline as Chrome
//! trace JSON, for ui.perfetto.dev or chrome://tracing) and `--html FILE` (one self-contained
//! page with SVG plots). Shared by `prof analyze` and `prof breakdown`.

use crate::sections::Section;
use clap::Args;
use prof_core::kernel_summary::KernelSummary;
use prof_core::Timeline;
use std::path::PathBuf;

/// The output-file flags.
#[derive(Debug, Args, Default)]
pub struct OutputArgs {
    /// Also write the timeline as Chrome trace JSON (opens in ui.perfetto.dev).
    #[arg(long, value_name = "FILE")]
    pub chrome_trace: Option<PathBuf>,
    /// Also write a self-contained HTML report with plots.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// Writes the files asked for; returns one "wrote …" line per file.
pub fn write(
    outputs: &OutputArgs,
    _timeline: Option<&Timeline>,
    _summary: &KernelSummary,
    _sections: &[Section],
) -> Result<Vec<String>, String> {
    if outputs.chrome_trace.is_some() || outputs.html.is_some() {
        return Err("--chrome-trace and --html are being written".to_owned());
    }
    Ok(Vec::new())
}
