//! "Ascend op checks": the Ascend-only analyses of an msprof / torch_npu profile, from the
//! op-table columns the timeline does not keep ([`prof_backend_ascend::ascend_analysis`]):
//! per AI Core op type, compute-bound or which pipe limits it, and static vs dynamic ops.
//! Shown for an Ascend profile directory or op table; a profile without an op table gets the
//! section with what was skipped and why.

use super::{Section, SectionContext};
use prof_core::Timeline;
use std::path::Path;

/// The Ascend op checks, when the artifact is an Ascend profile.
pub fn section(_timeline: &Timeline, context: &SectionContext) -> Option<Section> {
    #[cfg(feature = "ascend")]
    {
        match context.ascend.take() {
            Some(prefetched) => prefetched,
            None => enabled::section(context.path.filter(|p| enabled::is_ascend(p))?),
        }
    }
    #[cfg(not(feature = "ascend"))]
    {
        let _ = context.ascend;
        None
    }
}

/// The Ascend op checks computed on their own thread from the moment the artifact's path is
/// known: they re-read the op table, so on a multi-GB export that read overlaps the timeline's
/// load instead of following it. Not started, the section is computed in line.
#[derive(Default)]
pub struct AscendPrefetch {
    #[cfg(feature = "ascend")]
    running: std::sync::Mutex<Option<std::thread::JoinHandle<Option<Section>>>>,
}

impl AscendPrefetch {
    /// Starts the checks of `path` when it is an Ascend profile; otherwise nothing.
    pub fn start(path: Option<&Path>) -> Self {
        #[cfg(feature = "ascend")]
        if let Some(path) = path.filter(|p| enabled::is_ascend(p)) {
            let path = path.to_owned();
            let handle = std::thread::spawn(move || enabled::section(&path));
            return Self { running: std::sync::Mutex::new(Some(handle)) };
        }
        let _ = path;
        Self::default()
    }

    /// The section computed on the thread, once; `None` when none was started.
    #[cfg(feature = "ascend")]
    fn take(&self) -> Option<Option<Section>> {
        let handle = self.running.lock().ok()?.take()?;
        // A panic on the thread is a bug; compute in line instead (it will show the same).
        handle.join().ok()
    }
}

#[cfg(feature = "ascend")]
mod enabled {
    use super::Section;
    use crate::render::{ellipsize, human_ns, table};
    use prof_backend_ascend::ascend_analysis::{analyze, AscendReport};
    use prof_backend_ascend::importers::OpTableImporter;
    use prof_backend_ascend::pipe_bound::COMPUTE_BOUND_PCT;
    use prof_backend_ascend::profile_dir::ProfileFiles;
    use prof_core::Importer;
    use std::path::Path;

    const KEY: &str = "ascend";
    const TITLE: &str = "Ascend op checks (compute-bound, static vs dynamic)";
    const NAME_WIDTH: usize = 36;

    /// True when `path` is something the Ascend analyses read (or can say they skip).
    pub(super) fn is_ascend(path: &Path) -> bool {
        if path.is_dir() {
            return ProfileFiles::find(path).is_ok();
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        OpTableImporter.recognizes(path)
            || name == "trace_view.json"
            || (name.starts_with("msprof") && name.ends_with(".json"))
    }

    /// The section of `path`, which [`is_ascend`] accepted.
    pub(super) fn section(path: &Path) -> Option<Section> {
        let (text, json) = match analyze(path) {
            Ok(Ok(report)) => (render(&report), serde_json::to_value(&report).ok()?),
            Ok(Err(skipped)) => (format!("skipped: {skipped}\n"), serde_json::json!({ "skipped": skipped })),
            Err(error) => {
                let error = prof_core::Error::from(error).to_string();
                (format!("could not read the op table: {error}\n"), serde_json::json!({ "error": error }))
            }
        };
        Some(Section { key: KEY, title: TITLE, text, json })
    }

    fn render(report: &AscendReport) -> String {
        let bound = &report.bound;
        let mut out = format!(
            "compute-bound check from {} (≥ {COMPUTE_BOUND_PCT:.0} % in the cube MAC or vector pipe = compute-bound; \
             otherwise the busiest pipe limits):\n",
            report.op_table.display()
        );
        let shares: Vec<String> = bound
            .by_verdict
            .iter()
            .map(|(verdict, ns)| {
                let pct = if bound.total_ns == 0 { 0.0 } else { *ns as f64 * 100.0 / bound.total_ns as f64 };
                format!("{} {} ({pct:.1} %)", verdict.describe(), human_ns(*ns as f64))
            })
            .collect();
        out.push_str(&format!("  task time by verdict: {}\n", shares.join(", ")));
        if !bound.top.is_empty() {
            let mut rows = vec![["op type", "task", "calls", "total", "share", "compute", "limiter", "verdict"]
                .map(String::from)
                .to_vec()];
            for op in &bound.top {
                rows.push(vec![
                    ellipsize(&op.op, NAME_WIDTH),
                    op.task_type.clone(),
                    op.calls.to_string(),
                    human_ns(op.total_ns as f64),
                    format!("{:.1} %", op.share_pct),
                    op.compute_pct.map_or("-".to_owned(), |c| format!("{c:.1} %")),
                    op.limiter.map_or("-".to_owned(), |(pipe, pct)| format!("{pipe} {pct:.1} %")),
                    op.verdict.describe().to_owned(),
                ]);
            }
            out.push_str(&table(&rows));
        }
        if let Some(states) = &report.op_state {
            let total: u64 = states.iter().map(|s| s.total_ns).sum();
            let parts: Vec<String> = states
                .iter()
                .map(|s| {
                    let pct = if total == 0 { 0.0 } else { s.total_ns as f64 * 100.0 / total as f64 };
                    format!(
                        "{} {} tasks of {} op types, {} ({pct:.1} %)",
                        s.state,
                        s.tasks,
                        s.op_types,
                        human_ns(s.total_ns as f64)
                    )
                })
                .collect();
            out.push_str(&format!("static vs dynamic (OP State): {}\n", parts.join("; ")));
        }
        for note in &report.notes {
            out.push_str(&format!("note: {note}\n"));
        }
        out
    }
}
