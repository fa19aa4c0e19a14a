//! Files a person opens rather than reads: `--chrome-trace FILE` (the timeline as Chrome
//! trace JSON, for ui.perfetto.dev or chrome://tracing; see [`chrome_trace`]) and `--html FILE`
//! (one self-contained page with SVG plots; see [`html_report`]). Shared by `prof analyze` and
//! `prof breakdown`.

use crate::sections::RenderedSection;
use crate::{chrome_trace, html_report};
use clap::Args;
use prof_core::kernel_summary::KernelSummary;
use prof_core::Timeline;
use std::path::PathBuf;
use std::time::Instant;

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

impl OutputArgs {
    /// Refuses, before any work, a file that could not be written (see
    /// [`crate::output_file::check`]): a capture or an analysis is not thrown away at the end.
    pub fn check(&self) -> Result<(), String> {
        [&self.chrome_trace, &self.html].into_iter().flatten().try_for_each(|p| crate::output_file::check(p))
    }
}

/// Writes the files asked for; returns one "wrote …" line per file. A Chrome trace needs a
/// timeline: an artifact that holds only per-kernel totals (nsys stats) cannot give one.
pub fn write(
    outputs: &OutputArgs,
    timeline: Option<&Timeline>,
    summary: &KernelSummary,
    sections: &[RenderedSection],
    answer: &html_report::Answer,
) -> Result<Vec<String>, String> {
    let mut written = Vec::new();
    if let Some(path) = &outputs.chrome_trace {
        let timeline = timeline.ok_or_else(|| {
            format!(
                "--chrome-trace {}: {} holds per-kernel totals only, no timeline to write",
                path.display(),
                summary.source
            )
        })?;
        let started = Instant::now();
        let events = chrome_trace::write_file(timeline, path)?;
        written.push(format!(
            "wrote {} ({events} trace events in {:.2} s; open in ui.perfetto.dev)",
            path.display(),
            started.elapsed().as_secs_f64()
        ));
    }
    if let Some(path) = &outputs.html {
        html_report::write_breakdown(path, timeline, summary, sections, answer)?;
        written.push(format!("wrote {} (open in a browser)", path.display()));
    }
    Ok(written)
}
