//! The analysis sections `prof analyze` (and `prof breakdown`) print after the kernel
//! breakdown: one module per analysis, each turning a core analysis of the timeline into a
//! titled text block and a JSON value (the `analyses` object of `prof.breakdown.v1`, keyed by
//! [`RenderedSection::key`]). A section with nothing to say (no host spans, one stream, no counters)
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

use prof_core::analysis::streams::DeviceStreams;
use prof_core::families::Families;
use prof_core::kernel_summary::KernelSummary;
use prof_core::Timeline;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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
    /// The timeline's stream roles, worked out by the first section that asks (three read
    /// them): see [`SectionContext::stream_roles`].
    roles: std::sync::OnceLock<Vec<DeviceStreams>>,
    /// The timeline's launch calls by correlation id, built by the first section that asks
    /// (the launch and idle-gap sections, which run at once): see
    /// [`SectionContext::launch_index`].
    launches: std::sync::OnceLock<prof_timeline::launch_index::LaunchIndex>,
    /// The timeline's idle gaps, worked out by the idle-gap section, read again by the answer.
    gaps: std::sync::OnceLock<Vec<prof_core::analysis::gaps::DeviceGaps>>,
    /// The timeline's launch statistics, worked out by the launch section, read again by the
    /// answer.
    launch: std::sync::OnceLock<Option<prof_core::analysis::launch::LaunchStats>>,
}

impl<'a> SectionContext<'a> {
    /// The context of one timeline's sections; `roles` are its stream roles where the phases
    /// already worked them out (empty: worked out by the first section that asks).
    pub fn new(
        families: &'a Families,
        summary: &'a KernelSummary,
        path: Option<&'a Path>,
        vendor: &'a VendorPrefetch,
        registry: &'a prof_core::Registry,
        roles: std::sync::OnceLock<Vec<DeviceStreams>>,
    ) -> Self {
        Self {
            families,
            summary,
            path,
            vendor,
            registry,
            roles,
            launches: Default::default(),
            gaps: Default::default(),
            launch: Default::default(),
        }
    }

    /// The stream roles of `timeline` (the timeline the sections are built from), once.
    pub fn stream_roles(&self, timeline: &Timeline) -> &[DeviceStreams] {
        self.roles.get_or_init(|| prof_core::analysis::streams::stream_roles(timeline, self.families))
    }

    /// [`Timeline::launch_index`] of `timeline` (the timeline the sections are built from), once.
    pub fn launch_index(&self, timeline: &Timeline) -> &prof_timeline::launch_index::LaunchIndex {
        self.launches.get_or_init(|| timeline.launch_index())
    }

    /// The idle gaps of `timeline` (the timeline the sections are built from), once.
    pub fn idle_gaps(&self, timeline: &Timeline) -> &[prof_core::analysis::gaps::DeviceGaps] {
        self.gaps.get_or_init(|| {
            prof_core::analysis::gaps::idle_gaps_of_roles(
                timeline,
                self.stream_roles(timeline),
                self.launch_index(timeline),
            )
        })
    }

    /// The launch statistics of `timeline` (the timeline the sections are built from), once.
    pub fn launch_stats(&self, timeline: &Timeline) -> Option<&prof_core::analysis::launch::LaunchStats> {
        self.launch
            .get_or_init(|| prof_core::analysis::launch::launch_stats_of(timeline, self.launch_index(timeline)))
            .as_ref()
    }

    /// The answer of the window, from what the sections worked out (call after [`all_beside`]).
    pub fn answer(
        &self,
        timeline: Option<&Timeline>,
        diagnosis: Option<&prof_core::diagnosis::DiagnosisReport>,
    ) -> prof_core::answer::Answer {
        let (gaps, launch) = match timeline {
            Some(t) => (Some(self.idle_gaps(t)), self.launch_stats(t)),
            None => (None, None),
        };
        prof_core::answer::answer(&prof_core::answer::Inputs {
            timeline,
            summary: self.summary,
            diagnosis,
            gaps,
            launch,
        })
    }
}

/// Every section that has something to say about `timeline`, in reading order.
pub fn all(timeline: &Timeline, context: &SectionContext) -> Vec<RenderedSection> {
    all_beside(timeline, context, || ()).0
}

/// [`all`], with `beside` (the diagnosis) run too, on two threads that each take the next
/// job, costliest first (as measured at 10 M ops), so the two finish together.
pub fn all_beside<T: Send>(
    timeline: &Timeline,
    context: &SectionContext,
    beside: impl FnOnce() -> T + Send,
) -> (Vec<RenderedSection>, T) {
    type Builder = fn(&Timeline, &SectionContext) -> Option<RenderedSection>;
    // The sections in report order.
    let builders: [Builder; 8] = [
        temporal::section,
        streams::section,
        gaps::section,
        overlap::section,
        launch::section,
        layers::section,
        counters::section,
        comm::section,
    ];
    // The jobs, costliest first: `None` is `beside`, `Some(k)` builder k. `beside` (the
    // diagnosis) starts beside the layers: it lets go of the steps' bounds early, before the
    // layers hold their names and sums (at 10 M ops both are ~80 MB). Then by their time at
    // 10 M ops (rocprofv3, nsys, Ascend): gaps 0.14-0.21 s, temporal 0.14-0.15 s, overlap
    // 0.11-0.28 s, comm 0.03-0.12 s, launch 0.04 s (temporal before overlap: the two threads
    // end 0.04 s apart on the rocprofv3 file, not 0.1 s).
    const JOBS: [Option<usize>; 9] = [Some(5), None, Some(2), Some(0), Some(3), Some(7), Some(4), Some(1), Some(6)];
    let next = AtomicUsize::new(0);
    let built: Vec<Mutex<Option<RenderedSection>>> = builders.iter().map(|_| Mutex::new(None)).collect();
    let beside = Mutex::new(Some(beside));
    let besides = Mutex::new(None);
    let work = || {
        while let Some(&job) = JOBS.get(next.fetch_add(1, Ordering::Relaxed)) {
            match job {
                Some(k) => *lock(&built[k]) = builders[k](timeline, context),
                None => {
                    let beside = lock(&beside).take();
                    *lock(&besides) = beside.map(|f| f());
                }
            }
        }
    };
    std::thread::scope(|scope| {
        let second = scope.spawn(work);
        work();
        second.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    });
    let mut sections: Vec<RenderedSection> =
        built.into_iter().filter_map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner())).collect();
    sections.extend(timeline.sections.iter().cloned().map(vendor::render));
    sections.extend(context.vendor.take());
    let besides = besides.into_inner().unwrap_or_else(|e| e.into_inner());
    (sections, besides.expect("the jobs include beside, run once"))
}

/// The value behind `mutex`, also after a panic elsewhere (that panic is re-raised anyway).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
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
pub struct Analyses;

impl schemars::JsonSchema for Analyses {
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
    add("streams", generator.subschema_for::<Vec<streams::DeviceStreams>>());
    add("temporal", generator.subschema_for::<Vec<temporal::DeviceTemporal>>());
    let comm = generator.subschema_for::<comm::CommReport>().to_value();
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
