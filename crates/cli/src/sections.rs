//! The analysis sections `prof analyze` (and `prof breakdown`) print after the kernel
//! breakdown: one module per analysis, each rendering a core analysis of the window
//! ([`prof_core::report::Analyses`], worked out by [`prof_core::report::analyze`]) as a
//! titled text block and a JSON value (the `analyses` object of `prof.breakdown.v1`, keyed by
//! [`RenderedSection::key`]). A section with nothing to say (no host spans, one stream, no counters)
//! is left out rather than printed empty.

pub(crate) mod comm;
mod counters;
mod gaps;
mod launch;
mod layers;
mod overlap;
mod roofline;
mod streams;
mod temporal;
mod vendor;

use prof_core::kernel_summary::KernelSummary;
use prof_core::report::Analyses;

/// One analysis, rendered.
pub struct RenderedSection {
    /// Key in the JSON `analyses` object.
    pub key: &'static str,
    /// Heading of the text block.
    pub title: String,
    /// The text block (tables, findings) as typed blocks, its text ending in a newline.
    pub text: crate::blocks::Blocks,
    /// The same facts for `--json`.
    pub json: serde_json::Value,
}

/// The sections of a report that have something to say, in reading order: the timeline
/// analyses, then the backends' own sections.
pub fn render(analyses: &Analyses, summary: &KernelSummary) -> Vec<RenderedSection> {
    let mut sections: Vec<RenderedSection> = [
        temporal::section(&analyses.temporal),
        streams::section(&analyses.streams),
        gaps::section(&analyses.gaps),
        overlap::section(&analyses.overlap),
        analyses.launch.as_ref().and_then(launch::section),
        analyses.layers.as_ref().and_then(|layers| layers::section(layers, summary)),
        counters::section(&analyses.counters),
        comm::section(analyses.comm.as_ref()),
        analyses.roofline.as_ref().and_then(roofline::section),
    ]
    .into_iter()
    .flatten()
    .collect();
    sections.extend(analyses.vendor.iter().map(vendor::render));
    sections
}

/// The sections as one text block, each under its title.
pub fn render_text(sections: &[RenderedSection]) -> String {
    let mut out = String::new();
    for section in sections {
        out.push_str(&format!("\n{}\n{}", section.title, section.text.text()));
    }
    out
}

/// The sections as the JSON `analyses` object.
/// The `analyses` object [`to_json`] writes, as its JSON Schema sees it: each built-in
/// section's own type; a vendor's sections (named by its backend) and a summary-only
/// artifact's `op_types` are open.
pub struct AnalysesSchema;

impl schemars::JsonSchema for AnalysesSchema {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Analyses".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        analyses_schema(generator)
    }
}

fn analyses_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use prof_core::analysis::{counters, gaps, launch, layers, overlap, streams, temporal};
    let mut properties = serde_json::Map::new();
    let mut add = |key: &str, schema: schemars::Schema| {
        properties.insert(key.to_owned(), schema.to_value());
    };
    add("counters", generator.subschema_for::<Vec<counters::SeriesDrops>>());
    add("gaps", generator.subschema_for::<Vec<gaps::DeviceGaps>>());
    add("launch", generator.subschema_for::<launch::LaunchStats>());
    add("layers", generator.subschema_for::<layers::Layers>());
    add("overlap", generator.subschema_for::<Vec<overlap::DeviceOverlap>>());
    add("roofline", generator.subschema_for::<prof_core::roofline::Roofline>());
    add("streams", generator.subschema_for::<Vec<streams::DeviceStreams>>());
    add("temporal", generator.subschema_for::<Vec<temporal::DeviceTemporal>>());
    let comm = generator.subschema_for::<prof_core::report::CommReport>().to_value();
    let failed =
        serde_json::json!({ "type": "object", "required": ["error"], "properties": { "error": { "type": "string" } } });
    properties.insert("comm".to_owned(), serde_json::json!({ "anyOf": [comm, failed] }));
    schemars::json_schema!({
        "type": "object",
        "description": "the timeline analyses, keyed by section; a section with nothing to say is absent",
        "properties": properties,
    })
}

pub fn to_json(sections: &[RenderedSection]) -> serde_json::Value {
    serde_json::Value::Object(sections.iter().map(|s| (s.key.to_owned(), s.json.clone())).collect())
}
