//! `prof diff A B`: compare two profiles (e.g. eager vs graph mode, before vs after a
//! change): wall, busy and free time, gaps, device time, and per-family and per-kernel deltas,
//! with a one-line verdict. Each side is any artifact `prof analyze` reads; a side holding
//! per-kernel totals only (nsys stats) still diffs per kernel, and the report says what was
//! skipped (core's [`diff_profiles`]).
//!
//! `--json` prints `prof.diff.v1`: `schema`, `before` / `after` (sources), `device_time`,
//! `timeline` (null for a totals-only side: per-side `before` / `after` numbers — ops,
//! device_ns, wall_ns, busy_ns, idle_ns, gap_count, gap_ns, launches — and the deltas `wall`,
//! `busy`, `idle`, `gaps`, `gap_time`, `launches_per_op`), `skipped` (lines), `families` and
//! `kernels` (rows with `calls`, `total`, `mean` deltas, by absolute total delta),
//! `only_before` / `only_after` (name, calls, total_ns) and `verdict`. Every delta is
//! `{before, after, delta, change_pct}` (`change_pct` null when `before` is 0); times are ns.

use super::analyze::{families, load_any, Loaded};
use crate::blocks::Blocks;
use crate::progress;
use crate::render::{ellipsize, human_ns, print_json};
use clap::Args;
use prof_core::analysis::diff::{diff_profiles, signed_pct, Delta, OneSided, ProfileDiff, RowDiff, Side};
use prof_core::kernel_summary::{summarize_kernels, KernelSummary};
use prof_core::{Registry, Timeline};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `prof diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The baseline artifact (A).
    before: PathBuf,
    /// The artifact to compare with it (B).
    after: PathBuf,
    /// Kernels (and one-sided kernels) to list.
    #[arg(long, default_value_t = 20)]
    top: usize,
    /// Extra kernel-family rules (`family pattern` per line), tried before the built-ins.
    #[arg(long)]
    families: Option<PathBuf>,
    /// Print the `prof.diff.v1` JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Also write the comparison as a self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// The `--json` document.
#[derive(Serialize, schemars::JsonSchema)]
struct DiffDocument<'a> {
    /// Always `prof.diff.v1`.
    schema: &'static str,
    /// The diff.
    #[serde(flatten)]
    diff: &'a ProfileDiff,
}

/// One side, loaded: its timeline when it has one, and its kernel summary.
struct SideData {
    timeline: Option<Timeline>,
    summary: KernelSummary,
    steps: Option<usize>,
}

fn load_side(
    registry: &Registry,
    path: &Path,
    families: &prof_core::Families,
) -> Result<SideData, crate::failure::Failure> {
    let _loading = progress::loading(path);
    match load_any(registry, path, families)? {
        Loaded::Timeline(timeline) => {
            let summary = summarize_kernels(&timeline, families);
            // The steps the diagnosis finds (annotations, a repeating sequence or kernel).
            let steps = prof_core::diagnosis::steps::count(&timeline);
            Ok(SideData { timeline: Some(*timeline), summary, steps })
        }
        Loaded::Summary(summary) => Ok(SideData { timeline: None, summary, steps: None }),
        Loaded::Kernels(_) => Err(crate::failure::Failure::new(
            crate::failure::Kind::Usage,
            format!(
                "{}: a single-kernel deep-dive report (ncu), not a timeline or kernel totals; prof diff compares \
                 profiles",
                path.display()
            ),
        )),
    }
}

/// Runs `prof diff`.
pub fn run(registry: &Registry, args: &DiffArgs) -> Result<ExitCode, crate::failure::Failure> {
    if let Some(page) = &args.html {
        crate::output_file::check(page).map_err(|e| crate::failure::Failure::new(crate::failure::Kind::Usage, e))?;
    }
    let families = families(args.families.as_deref())?;
    let a = load_side(registry, &args.before, &families)?;
    let b = load_side(registry, &args.after, &families)?;
    let diff = diff_profiles(
        &Side { summary: &a.summary, timeline: a.timeline.as_ref(), steps: a.steps },
        &Side { summary: &b.summary, timeline: b.timeline.as_ref(), steps: b.steps },
        &families,
    );
    let blocks = render(&diff, args.top);
    let text = blocks.text();
    if let Some(page) = &args.html {
        let title = format!("prof diff: {} → {}", args.before.display(), args.after.display());
        crate::html_report::write_blocks_page(page, &title, &blocks)?;
        eprintln!("wrote {} (open in a browser)", page.display());
    }
    if args.json {
        print_json(&DiffDocument { schema: "prof.diff.v1", diff: &diff })?;
    } else {
        out!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}

fn change(delta: &Delta) -> String {
    delta.change_pct.map_or_else(|| "new".to_owned(), signed_pct)
}

fn time_row(label: &str, delta: &Delta) -> Vec<String> {
    vec![
        label.to_owned(),
        human_ns(delta.before),
        human_ns(delta.after),
        format!("{}{}", if delta.delta < 0.0 { "-" } else { "+" }, human_ns(delta.delta.abs())),
        change(delta),
    ]
}

fn count_row(label: &str, delta: &Delta, decimals: usize) -> Vec<String> {
    vec![
        label.to_owned(),
        format!("{:.*}", decimals, delta.before),
        format!("{:.*}", decimals, delta.after),
        format!("{:+.*}", decimals, delta.delta),
        change(delta),
    ]
}

fn rows_table(rows: &[RowDiff], top: usize, name_width: usize) -> Blocks {
    if rows.is_empty() {
        return Blocks::from("  (none)\n".to_owned());
    }
    let mut out = vec![["name", "calls A", "calls B", "total A", "total B", "delta", "mean A", "mean B"]
        .map(String::from)
        .to_vec()];
    for r in rows.iter().take(top) {
        out.push(vec![
            ellipsize(&crate::render::display_name(&r.name), name_width),
            format!("{:.0}", r.calls.before),
            format!("{:.0}", r.calls.after),
            human_ns(r.total.before),
            human_ns(r.total.after),
            format!(
                "{}{} ({})",
                if r.total.delta < 0.0 { "-" } else { "+" },
                human_ns(r.total.delta.abs()),
                change(&r.total)
            ),
            human_ns(r.mean.before),
            human_ns(r.mean.after),
        ]);
    }
    Blocks::from_table(out)
}

fn one_sided(label: &str, rows: &[OneSided], top: usize) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!("\n{label} ({}):\n", rows.len());
    for r in rows.iter().take(top) {
        out.push_str(&format!("  {}  {} calls  {}\n", ellipsize(&r.name, 70), r.calls, human_ns(r.total_ns as f64)));
    }
    out
}

/// Walls and op counts both further apart than this ratio get a note that totals do not compare.
const WINDOWS_DIFFER: f64 = 1.5;

/// The diff as blocks of text and tables: sources, timeline table, families, kernels,
/// one-sided kernels, verdict.
fn render(diff: &ProfileDiff, top: usize) -> Blocks {
    let mut out = Blocks::from(format!("A: {}\nB: {}\n\n", diff.before, diff.after));
    let mut rows = vec![["", "A", "B", "delta", "change"].map(String::from).to_vec()];
    rows.push(time_row("device time (sum of ops)", &diff.device_time));
    if let Some(t) = &diff.timeline {
        rows.push(count_row("ops", &Delta::new(t.before.ops as f64, t.after.ops as f64), 0));
        rows.push(time_row("wall", &t.wall));
        rows.push(time_row("busy", &t.busy));
        rows.push(time_row("free (idle)", &t.idle));
        // Windows of different lengths: the shares compare, the totals do not.
        let share = |part: u64, wall: u64| if wall == 0 { 0.0 } else { part as f64 * 100.0 / wall as f64 };
        let (a, b) = (share(t.before.idle_ns, t.before.wall_ns), share(t.after.idle_ns, t.after.wall_ns));
        rows.push(vec![
            "free share of wall".to_owned(),
            format!("{a:.1} %"),
            format!("{b:.1} %"),
            format!("{:+.1} points", b - a),
            String::new(),
        ]);
        // Where both windows hold repeating steps, per step is the fair comparison.
        if let (Some(a), Some(b)) = (t.before.steps, t.after.steps) {
            let per = |total: u64, steps: usize| total as f64 / steps as f64;
            rows.push(count_row("steps", &Delta::new(a as f64, b as f64), 0));
            rows.push(time_row("wall per step", &Delta::new(per(t.before.wall_ns, a), per(t.after.wall_ns, b))));
            rows.push(time_row("busy per step", &Delta::new(per(t.before.busy_ns, a), per(t.after.busy_ns, b))));
            rows.push(time_row("free per step", &Delta::new(per(t.before.idle_ns, a), per(t.after.idle_ns, b))));
        }
        rows.push(count_row("gaps", &t.gaps, 0));
        rows.push(time_row("gap time", &t.gap_time));
        if let Some(l) = &t.launches_per_op {
            rows.push(count_row("launches per op", l, 2));
        }
    }
    out.push_table(rows);
    if let Some(t) = &diff.timeline {
        // The same work in a shorter window is the improvement itself; different amounts of
        // work (ops) in windows of different lengths make the totals incomparable.
        let ratio = |a: f64, b: f64| a.max(b) / a.min(b).max(1.0);
        let (a, b) = (t.before.wall_ns as f64, t.after.wall_ns as f64);
        if ratio(a, b) > WINDOWS_DIFFER && ratio(t.before.ops as f64, t.after.ops as f64) > WINDOWS_DIFFER {
            out.push_str(&format!(
                "note: the windows hold different amounts of work ({} against {} ops over {} against {}): compare \
                 the shares and per-op numbers, not the totals\n",
                t.before.ops,
                t.after.ops,
                human_ns(a),
                human_ns(b)
            ));
        }
    }
    for line in &diff.skipped {
        out.push_str(&format!("skipped: {line}\n"));
    }
    out.push_str("\nfamilies (by absolute change of total time):\n");
    out.append(rows_table(&diff.families, usize::MAX, 24));
    out.push_str(&format!("\nkernels in both (by absolute change of total time, top {top}):\n"));
    out.append(rows_table(&diff.kernels, top, 60));
    out.push_str(&one_sided("only in A", &diff.only_before, top));
    out.push_str(&one_sided("only in B", &diff.only_after, top));
    out.push_str(&format!("\nverdict: {}\n", diff.verdict));
    out
}

/// The JSON Schema of the `prof.diff.v1` document.
pub fn json_schema() -> schemars::Schema {
    schemars::schema_for!(DiffDocument<'static>)
}
