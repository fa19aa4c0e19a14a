//! A large rocprofv3 `kernel_trace.csv` read in parts at once, one thread each: the file is
//! split just after line ends ([`prof_timeline::text_parts`]), each part is loaded into its own
//! timeline by [`load_kernel_trace`], and the parts are joined in file order
//! ([`Timeline::append`]), which gives the timeline one reader would have built. When a part
//! fails (a bad row, a split inside a quoted field, a cut last row, its share of the memory
//! budget spent), the file is read again by one thread, so an error or a cut names the right
//! line.

use crate::rocprof_csv::CsvReader;
use crate::rocprofv3_rows::{load_kernel_trace, AgentMap};
use prof_core::op_totals::OpTotals;
use prof_core::part_buffers::PartBuffers;
use prof_core::{Result, Timeline};
use prof_timeline::text_parts::{parts_for, run_parts_joined, split_points};
use std::path::Path;

/// Appends the kernel dispatches of the kernel trace at `path` to `timeline` (a timeline
/// with the process's memory budget), as [`load_kernel_trace`] does; returns how many.
pub fn load_kernel_file(
    path: &Path,
    agents: Option<&AgentMap>,
    corr_base: u64,
    timeline: &mut Timeline,
) -> Result<usize> {
    let csv = CsvReader::open(path)?;
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let parts = parts_for(size);
    if parts > 1 {
        if let Some((read, added)) = in_parts(&csv, size, parts, agents, corr_base) {
            // Into a timeline that holds nothing yet, the parts move without a copy.
            timeline.append(read);
            return Ok(added);
        }
    }
    load_kernel_trace(csv, agents, corr_base, timeline)
}

/// The kernel-summary totals of the kernel trace at `path` (`prof analyze --summary-only`):
/// the file's parts are loaded on every core as [`load_kernel_file`] loads them, but each
/// part is folded into its totals and dropped, so what is held is a part per core and the
/// totals, not the whole timeline. A file read by one thread (small, or a part failed) is
/// loaded whole and folded.
pub fn fold_kernel_file(path: &Path, agents: Option<&AgentMap>, corr_base: u64) -> Result<OpTotals> {
    let csv = CsvReader::open(path)?;
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let parts = parts_for(size);
    if parts > 1 {
        let buffers = PartBuffers::default();
        let fold = |part: Timeline| buffers.fold(part);
        let join = |all: &mut OpTotals, part| all.absorb(part);
        let context = (agents, corr_base, &buffers);
        if let Some(totals) = in_parts_with(&csv, size, parts, context, fold, OpTotals::default(), join) {
            return Ok(totals);
        }
    }
    let mut whole = Timeline::new(path.display().to_string());
    load_kernel_trace(csv, agents, corr_base, &mut whole)?;
    Ok(OpTotals::of_timeline(&whole))
}

/// The parts of the file of `csv` (a reader just past its header), loaded on every core
/// ([`run_parts_joined`]), each on a share of the memory budget, and joined in file order
/// while later ones are read, with the dispatches added; `None` when the file could not be
/// split or a part failed, was cut or filled its share.
fn in_parts(
    csv: &CsvReader<impl Sync>,
    size: u64,
    parts: usize,
    agents: Option<&AgentMap>,
    corr_base: u64,
) -> Option<(Timeline, usize)> {
    let joined = (Timeline::new(csv.path().display().to_string()), 0);
    let buffers = PartBuffers::default();
    in_parts_with(
        csv,
        size,
        parts,
        (agents, corr_base, &buffers),
        |part| part,
        joined,
        |(whole, added), part: Timeline| {
            *added += part.ops.len();
            buffers.append(whole, part);
        },
    )
}

/// The parts of the file of `csv`, each loaded into its own timeline (with `agents` and the
/// correlation base of [`load_kernel_trace`], on an op vector from `buffers` when one is
/// free) on a share of the memory budget, made into what `each` makes of it on the thread
/// that read it, and handed to `join` (onto `init`) in file order; `None` when the file could
/// not be split or a part failed, was cut or filled its share.
fn in_parts_with<T: Send, J: Send>(
    csv: &CsvReader<impl Sync>,
    size: u64,
    parts: usize,
    (agents, corr_base, buffers): (Option<&AgentMap>, u64, &PartBuffers),
    each: impl Fn(Timeline) -> T + Sync,
    init: J,
    join: impl Fn(&mut J, T) + Sync,
) -> Option<J> {
    let mut bounds = vec![header_end(csv.path())?];
    bounds.extend(split_points(csv.path(), size, parts)?);
    bounds.push(size);
    if bounds.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    let budget = prof_timeline::load_budget::memory_budget() / (bounds.len() - 1) as u64;
    let source = csv.path().display().to_string();
    let work = |k: usize| {
        let mut part = buffers.timeline(source.as_str(), budget);
        load_kernel_trace(csv.part(bounds[k], bounds[k + 1]).ok()?, agents, corr_base, &mut part).ok()?;
        (!part.is_full() && part.partial.is_none()).then(|| each(part))
    };
    run_parts_joined(bounds.len() - 1, work, init, join)
}

/// The byte just after the header line of the file at `path`.
fn header_end(path: &Path) -> Option<u64> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path).ok()?.take(1 << 20).read_to_end(&mut head).ok()?;
    head.iter().position(|&b| b == b'\n').map(|at| at as u64 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::fixture_path;

    /// Every op as text, names resolved, in order.
    fn ops_text(t: &Timeline) -> Vec<String> {
        t.ops
            .iter()
            .map(|op| {
                let d = t.details_of(op).map(|d| (d.grid, d.block, d.registers_per_thread, d.shared_memory_bytes));
                let name = t.name(op.name());
                format!(
                    "{:?} {name} {} {} {} {} {:?} {d:?}",
                    op.kind(),
                    op.device(),
                    op.stream(),
                    { op.start_ns },
                    { op.dur_ns() },
                    { op.correlation }
                )
            })
            .collect()
    }

    #[test]
    fn parts_joined_equal_one_reader_and_a_bad_part_reads_again() {
        let path = fixture_path("rocprofv3/sdk1.0_kernel_trace.csv");
        let mut whole = Timeline::new("t");
        let added = load_kernel_trace(CsvReader::open(&path).unwrap(), None, 5 << 32, &mut whole).unwrap();
        let size = std::fs::metadata(&path).unwrap().len();
        for parts in [2, 3, 4] {
            let csv = CsvReader::open(&path).unwrap();
            let (joined, n) = in_parts(&csv, size, parts, None, 5 << 32).expect("splits at line ends");
            assert_eq!(n, added);
            assert_eq!(ops_text(&joined), ops_text(&whole), "{parts} parts");
            assert_eq!(joined.names.iter().collect::<Vec<_>>(), whole.names.iter().collect::<Vec<_>>());
        }
        // A bad value in the last part: that part fails, the parts give nothing.
        let text = std::fs::read_to_string(&path).unwrap();
        let last_row = text.trim_end().rsplit('\n').next().unwrap().to_owned();
        let bad = text.replacen(&last_row, &last_row.replacen(',', ",x", 1), 1);
        let dir = std::env::temp_dir().join(format!("prof-rocprofv3-parts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad_path = dir.join("bad_kernel_trace.csv");
        std::fs::write(&bad_path, &bad).unwrap();
        let csv = CsvReader::open(&bad_path).unwrap();
        assert!(in_parts(&csv, bad.len() as u64, 2, None, 0).is_none());
        // One reader then names the line.
        let lines = bad.trim_end().lines().count();
        let error = load_kernel_file(&bad_path, None, 0, &mut Timeline::new("t")).unwrap_err().to_string();
        assert!(error.contains(&format!(":{lines}")), "{error}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn parts_folded_give_the_whole_files_totals() {
        let path = fixture_path("rocprofv3/sdk1.0_kernel_trace.csv");
        let families = prof_core::Families::builtin();
        let mut whole = Timeline::new("t");
        load_kernel_trace(CsvReader::open(&path).unwrap(), None, 0, &mut whole).unwrap();
        let want = OpTotals::of_timeline(&whole).finish("t", &families);
        assert_eq!(fold_kernel_file(&path, None, 0).unwrap().finish("t", &families), want);
        let size = std::fs::metadata(&path).unwrap().len();
        for parts in [2, 3, 4] {
            let csv = CsvReader::open(&path).unwrap();
            let fold = |part: Timeline| OpTotals::of_timeline(&part);
            let join = |all: &mut OpTotals, part| all.absorb(part);
            let context = (None, 0, &PartBuffers::default());
            let folded = in_parts_with(&csv, size, parts, context, fold, OpTotals::default(), join).unwrap();
            assert_eq!(folded.finish("t", &families), want, "{parts} parts");
        }
    }
}
