//! Files a person opens rather than reads: `--chrome-trace FILE` (the timeline as Chrome
//! trace JSON, for ui.perfetto.dev or chrome://tracing; see [`chrome_trace`]) and `--html FILE`
//! (one self-contained page with SVG plots; see [`html_report`]). Shared by `prof analyze` and
//! `prof breakdown`.

use crate::failure::{Failure, Kind};
use crate::sections::RenderedSection;
use crate::{chrome_trace, html_report};
use clap::Args;
use prof_core::kernel_summary::KernelSummary;
use prof_core::Timeline;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// The output-file flags.
#[derive(Debug, Args, Default)]
pub struct OutputArgs {
    /// Also write the timeline as Chrome trace JSON (opens in ui.perfetto.dev); an existing
    /// file is replaced.
    #[arg(long, value_name = "FILE")]
    pub chrome_trace: Option<PathBuf>,
    /// Also write a self-contained HTML report with plots; an existing file is replaced.
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

/// What [`write`] did: one "wrote …" line per file written, and each file lost to a failed
/// write (a full disk), which the verb reports after the report itself, exiting 74.
#[derive(Debug, Default)]
pub struct Written {
    /// One line per file written.
    pub lines: Vec<String>,
    /// The outputs lost, each as a failure.
    pub lost: Vec<Failure>,
}

impl Written {
    /// Prints the lines on stderr; then the lost output's line, returning its exit status
    /// (the report on stdout is whole: only the file is lost).
    pub fn finish(self) -> ExitCode {
        for line in self.lines {
            eprintln!("{line}");
        }
        for lost in &self.lost {
            eprintln!("prof: {} (the report above is complete; only this file is lost)", lost.message);
        }
        self.lost.first().map_or(ExitCode::SUCCESS, |lost| ExitCode::from(lost.exit_code))
    }
}

/// Writes the files asked for. A Chrome trace needs a timeline: an artifact that holds only
/// per-kernel totals (nsys stats) cannot give one (a usage error, before any file is written).
pub fn write(
    outputs: &OutputArgs,
    timeline: Option<&Timeline>,
    summary: &KernelSummary,
    sections: &[RenderedSection],
    answer: &html_report::Answer,
) -> Result<Written, Failure> {
    let mut written = Written::default();
    if let Some(path) = &outputs.chrome_trace {
        let timeline = timeline.ok_or_else(|| {
            let message = format!(
                "--chrome-trace {}: {} holds per-kernel totals only, no timeline to write",
                path.display(),
                summary.source
            );
            Failure::new(Kind::Usage, message)
        })?;
        let started = Instant::now();
        match chrome_trace::write_file(timeline, path) {
            Ok(events) => written.lines.push(format!(
                "wrote {} ({events} trace events in {:.2} s; open in ui.perfetto.dev)",
                path.display(),
                started.elapsed().as_secs_f64()
            )),
            Err(error) => written.lost.push(Failure::from(error)),
        }
    }
    if let Some(path) = &outputs.html {
        match html_report::write_breakdown(path, timeline, summary, sections, answer) {
            Ok(()) => written.lines.push(format!("wrote {} (open in a browser)", path.display())),
            Err(error) => written.lost.push(Failure::from(error)),
        }
    }
    Ok(written)
}
