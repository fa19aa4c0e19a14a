//! The analysis sections `prof analyze` (and `prof breakdown`) print after the kernel
//! breakdown: one module per analysis, each turning a core analysis of the timeline into a
//! titled text block and a JSON value (the `analyses` object of `prof.breakdown.v1`, keyed by
//! [`Section::key`]). A section with nothing to say (no host spans, one stream, no counters)
//! is left out rather than printed empty.

pub(crate) mod comm;
mod counters;
mod gaps;
mod launch;
mod layers;
mod overlap;
mod streams;
mod temporal;
mod vendor;
pub use vendor::VendorPrefetch;

use prof_core::families::Families;
use prof_core::kernel_summary::KernelSummary;
use prof_core::Timeline;
use std::path::Path;

/// One analysis, rendered.
pub struct Section {
    /// Key in the JSON `analyses` object.
    pub key: &'static str,
    /// Heading of the text block.
    pub title: String,
    /// The text block (tables, findings), ending in a newline.
    pub text: String,
    /// The same facts for `--json`.
    pub json: serde_json::Value,
}

/// What every section may use besides the timeline.
pub struct SectionContext<'a> {
    /// The family table in use.
    pub families: &'a Families,
    /// The kernel summary already computed.
    pub summary: &'a KernelSummary,
    /// The artifact's path, when it came from a file (vendor-specific sections re-read
    /// columns the timeline does not keep).
    pub path: Option<&'a Path>,
    /// The backends' own sections, started before the timeline was loaded.
    pub vendor: &'a VendorPrefetch,
    /// The backends, for the vendor tables a section reads beside the artifact.
    pub registry: &'a prof_core::Registry,
}

/// Every section that has something to say about `timeline`, in reading order.
pub fn all(timeline: &Timeline, context: &SectionContext) -> Vec<Section> {
    let builders: [fn(&Timeline, &SectionContext) -> Option<Section>; 8] = [
        temporal::section,
        streams::section,
        gaps::section,
        overlap::section,
        launch::section,
        layers::section,
        counters::section,
        comm::section,
    ];
    let mut sections: Vec<Section> = builders.iter().filter_map(|build| build(timeline, context)).collect();
    sections.extend(context.vendor.take());
    sections
}

/// The sections as one text block, each under its title.
pub fn render_text(sections: &[Section]) -> String {
    let mut out = String::new();
    for section in sections {
        out.push_str(&format!("\n{}\n{}", section.title, section.text));
    }
    out
}

/// The sections as the JSON `analyses` object.
pub fn to_json(sections: &[Section]) -> serde_json::Value {
    serde_json::Value::Object(sections.iter().map(|s| (s.key.to_owned(), s.json.clone())).collect())
}
