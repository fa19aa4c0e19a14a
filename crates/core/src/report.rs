//! The analysis pipeline every timeline verb runs, as one call: the phases of a run and the
//! window chosen, the kernel summary, the diagnosis, the timeline analyses and the answer of
//! that window ([`analyze`]). What comes out is data ([`Report`]); the text, JSON and HTML a
//! front end prints are renderings of it. `prof analyze`, `prof breakdown`, `prof profile`,
//! `prof serve` and the MCP tools run it; so may an embedder that reads a trace.
//!
//! ```no_run
//! # fn registry() -> prof_core::Registry { unimplemented!() }
//! use prof_core::report::{analyze, Options, VendorPrefetch};
//! let registry = registry();
//! let families = prof_core::Families::builtin();
//! let path = std::path::Path::new("trace.json");
//! let timeline = match registry.load(path, &families).unwrap().0 {
//!     prof_core::Loaded::Timeline(t) => *t,
//!     _ => return,
//! };
//! let vendor = VendorPrefetch::default();
//! let options = Options::new(&families, &registry, &vendor).at(Some(path));
//! let report = analyze(timeline, &options).unwrap();
//! println!("{}", report.answer.headline);
//! ```

mod analyses;
mod comm;
mod context;
mod phases;
mod vendor;

pub use analyses::Analyses;
pub use comm::{report_of, transport_rows, vendor_report, CommReport, TransportRow};
pub use context::Context;
pub use phases::{apply, apply_summarized, judge_util, PhaseView, Summarized};
pub use vendor::VendorPrefetch;

use crate::analysis::streams::DeviceStreams;
use crate::answer::Answer;
use crate::diagnosis::{diagnose_with_sequence, DiagnosisReport};
use crate::phases::PhaseChoice;
use crate::{Families, KernelSummary, Registry, Timeline};
use std::path::Path;
use std::sync::OnceLock;

/// How to analyse a timeline.
pub struct Options<'a> {
    /// The family table.
    pub families: &'a Families,
    /// The window the answers are taken on (steady state by default).
    pub phase: PhaseChoice,
    /// The artifact's path, when the timeline came from a file: the vendor's tables beside it
    /// (communication) are read too.
    pub path: Option<&'a Path>,
    /// The backends.
    pub registry: &'a Registry,
    /// The backends' own sections of the artifact, started beside the load.
    pub vendor: &'a VendorPrefetch,
    /// Whether to work out the timeline analyses (`prof serve` shows only the answer).
    pub analyses: bool,
}

impl<'a> Options<'a> {
    /// The steady state, analyses on, no artifact path.
    pub fn new(families: &'a Families, registry: &'a Registry, vendor: &'a VendorPrefetch) -> Self {
        Self { families, phase: PhaseChoice::Steady, path: None, registry, vendor, analyses: true }
    }

    /// The same, reading the vendor's tables beside `path`.
    pub fn at(self, path: Option<&'a Path>) -> Self {
        Self { path, ..self }
    }

    /// The same, on `phase`'s window.
    pub fn phase(self, phase: PhaseChoice) -> Self {
        Self { phase, ..self }
    }
}

/// A timeline's report: everything a front end renders.
pub struct Report {
    /// The timeline cut to the window the answers describe.
    pub timeline: Timeline,
    /// The phases of the run and the window chosen.
    pub phases: PhaseView,
    /// The window's kernel summary.
    pub summary: KernelSummary,
    /// The window's diagnosis.
    pub diagnosis: DiagnosisReport,
    /// The window's timeline analyses (empty when [`Options::analyses`] is off).
    pub analyses: Analyses,
    /// The answer.
    pub answer: Answer,
}

/// The report of `timeline`: its phases, cut to `options.phase`'s window, then the summary,
/// diagnosis, analyses and answer of that window (`Err`: the window asked for is not in the
/// run).
pub fn analyze(timeline: Timeline, options: &Options) -> Result<Report, String> {
    let (timeline, phases, summary, roles) = apply_summarized(timeline, options.phase, options.families)?;
    Ok(analyze_window(timeline, phases, summary, roles, options))
}

/// The report of a timeline already cut to its window (`phases` found it), whose kernel
/// summary is `summary` and stream roles `roles` where known (empty: worked out here).
pub fn analyze_window(
    timeline: Timeline,
    mut phases: PhaseView,
    summary: KernelSummary,
    roles: OnceLock<Vec<DeviceStreams>>,
    options: &Options,
) -> Report {
    let context = Context::new(options.families, &summary, options.path, options.registry, roles);
    // The run's repeating sequence, when the phases found it on this timeline.
    let known = phases.take_sequence();
    let diagnose = || diagnose_with_sequence(&timeline, &summary, known);
    let (mut analyses, diagnosis) = if options.analyses {
        analyses::compute_beside(&timeline, &context, diagnose)
    } else {
        (Analyses::default(), diagnose())
    };
    let roofline = crate::roofline::roofline(&timeline);
    let answer = context.answer(Some(&timeline), Some(&diagnosis), roofline.as_ref());
    let (roles, gaps, launch) = context.into_parts();
    if options.analyses {
        analyses.streams = roles.unwrap_or_default();
        analyses.gaps = gaps.unwrap_or_default();
        analyses.launch = launch;
        analyses.roofline = roofline;
        analyses.vendor.extend(options.vendor.take());
    }
    Report { timeline, phases, summary, diagnosis, analyses, answer }
}
