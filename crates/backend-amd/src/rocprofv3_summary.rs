//! `prof analyze --summary-only` of rocprofv3 CSV traces: the ranked kernel summary of the
//! processes' files without holding their timeline. Each kernel trace is folded part by part
//! ([`crate::rocprofv3_parts::fold_kernel_file`]), the copies of each process are loaded and
//! folded, and the HIP calls count only for the run's span (each read and dropped); the checks are
//! [`load_processes`]'s (a sibling of another run is left out, saying so: the copies, or the
//! kernels when the copies file is the one named; the HIP calls), so the summary equals [`prof_core::summarize_kernels`] over
//! the timeline [`load_processes`] would build.

use crate::rocprof_csv::CsvReader;
use crate::rocprofv3_hip::read_hip_api;
use crate::rocprofv3_parts::fold_kernel_file;
use crate::rocprofv3_trace::{
    different_runs, left_out, load_memory_copies, load_processes, named, AgentMap, TraceFiles,
};
use prof_core::op_totals::OpTotals;
use prof_core::{Error, Families, KernelSummary, Result, Timeline};

/// The kernel summary of every process's files, named `source`.
pub fn summarize_processes(groups: &[TraceFiles], source: &str, families: &Families) -> Result<KernelSummary> {
    let mut totals = OpTotals::default();
    let mut host: Option<(u64, u64)> = None;
    let many = groups.len() > 1;
    for (index, files) in groups.iter().enumerate() {
        let base = if many { u64::try_from(index).unwrap_or(u64::MAX) << 32 } else { 0 };
        let agents = files.agent_info.as_deref().map(AgentMap::from_file).transpose()?;
        let mut process = OpTotals::default();
        if let Some(path) = &files.kernel {
            process.absorb(fold_kernel_file(path, agents.as_ref(), base)?);
        }
        let kernels = process.span();
        if let Some(path) = &files.memory_copy {
            let mut copies = Timeline::new(source);
            load_memory_copies(CsvReader::open(path)?, agents.as_ref(), base, &mut copies)?;
            let copied = OpTotals::of_timeline(&copies);
            let apart = match (&files.kernel, kernels, copied.span()) {
                (Some(kernel_file), Some(k), Some(c)) => {
                    different_runs(kernel_file, k, c).map(|a| (kernel_file, a, different_runs(path, c, k)))
                }
                _ => None,
            };
            match apart {
                // As the load: the named file is kept, its sibling of another run left out.
                Some((kernel_file, apart, from_copies)) if named(source, path) => {
                    process = process.notes_only();
                    process.absorb(copied);
                    process.note(left_out(kernel_file, &from_copies.unwrap_or(apart), path));
                }
                Some((kernel_file, apart, _)) => process.note(left_out(path, &apart, kernel_file)),
                None => process.absorb(copied),
            }
        }
        if let Some(path) = &files.hip_api {
            // Only the calls' span counts: each call is read and dropped.
            let mut calls = Timeline::new(source);
            let mut bounds = None;
            read_hip_api(CsvReader::open(path)?, base, &mut calls, |_, _, call| {
                bounds = join(bounds, Some((call.start_ns, call.start_ns.saturating_add(call.dur_ns()))));
            })?;
            let apart = match (&files.kernel, process.span(), bounds) {
                (Some(kernel_file), Some(k), Some(h)) => different_runs(kernel_file, k, h),
                _ => None,
            };
            match apart {
                Some(apart) => calls.note_partial(format!("{}: {apart}; its HIP calls were left out", path.display())),
                None => host = join(host, bounds),
            }
            // No ops: only its notes (a cut row, calls left out), in the loader's order.
            process.absorb(OpTotals::of_timeline(&calls));
        }
        totals.absorb(process);
    }
    if totals.span().is_none() {
        // No device op: the loaded timeline's answer (and its errors) are the right ones.
        let mut timeline = load_processes(groups, source)?;
        timeline.finish_loading().map_err(Error::Unsupported)?;
        return Ok(prof_core::summarize_kernels(&timeline, families));
    }
    let span = join(totals.span(), host);
    let mut summary = totals.finish(source, families);
    summary.span_ns = span.map_or(0, |(lo, hi)| hi - lo);
    Ok(summary)
}

/// The span covering both.
fn join(a: Option<(u64, u64)>, b: Option<(u64, u64)>) -> Option<(u64, u64)> {
    match (a, b) {
        (Some((lo, hi)), Some((l, h))) => Some((lo.min(l), hi.max(h))),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::{fixture_path, TempDir};
    use prof_core::NameId;

    /// The summary of the timeline `load_processes` builds, as `prof analyze` loads it.
    fn loaded(groups: &[TraceFiles]) -> Result<KernelSummary> {
        let mut timeline = load_processes(groups, "src")?;
        timeline.finish_loading().map_err(Error::Unsupported)?;
        Ok(prof_core::summarize_kernels(&timeline, &Families::builtin()))
    }

    fn same(groups: &[TraceFiles]) -> KernelSummary {
        let mut streamed = summarize_processes(groups, "src", &Families::builtin()).expect("summarises");
        let mut whole = loaded(groups).expect("loads");
        for k in streamed.kernels.iter_mut().chain(whole.kernels.iter_mut()) {
            k.name_id = NameId(0);
        }
        assert_eq!(streamed, whole);
        streamed
    }

    fn files(kernel: Option<PathBuf>, memory_copy: Option<PathBuf>, hip_api: Option<PathBuf>) -> TraceFiles {
        TraceFiles { kernel, memory_copy, hip_api, agent_info: None }
    }

    use std::path::PathBuf;

    #[test]
    fn the_streamed_summary_equals_the_loaded_timelines() {
        let kernel = || Some(fixture_path("rocprofv3/sdk1.0_kernel_trace.csv"));
        let hip = || Some(fixture_path("rocprofv3/sdk1.0_hip_api_trace.csv"));
        // python3 csv over the fixture: 9 dispatches, 4 kernel names, 96160 ns of End - Start.
        let alone = same(&[files(kernel(), None, None)]);
        assert_eq!((alone.ops, alone.kernels.len(), alone.device_ns), (9, 4, 96_160));
        same(&[files(Some(fixture_path("rocprofv3/sdk0.5_kernel_trace.csv")), None, None)]);
        // The HIP calls widen the span (or are left out, with a note, when from another run).
        let with_calls = same(&[files(kernel(), None, hip())]);
        assert!(with_calls.span_ns >= alone.span_ns);
        // Two processes: their ids apart, names shared, device time doubled.
        let two = same(&[files(kernel(), None, hip()), files(kernel(), None, None)]);
        assert_eq!((two.ops, two.device_ns), (18, 2 * alone.device_ns));
        // Copies only: no kernel file.
        same(&[files(None, Some(fixture_path("rocprofv3/sdk1.0_memory_copy_trace.csv")), None)]);
    }

    #[test]
    fn a_sibling_of_another_run_is_left_out_as_the_load_leaves_it() {
        // The recorded copies lie 492188 s from the recorded kernels: the copies are left out
        // (9 kernels, 96,160 ns), unless the copies file is the one named (its 4 copies).
        let (kernels, copies) =
            (fixture_path("rocprofv3/sdk1.0_kernel_trace.csv"), fixture_path("rocprofv3/sdk1.0_memory_copy_trace.csv"));
        let groups = [files(Some(kernels.clone()), Some(copies.clone()), None)];
        let streamed = same(&groups);
        assert_eq!((streamed.ops, streamed.device_ns), (9, 96_160));
        assert!(streamed.partial.as_deref().unwrap_or_default().contains("different runs; it was left out"));
        let named = copies.display().to_string();
        let streamed = summarize_processes(&groups, &named, &Families::builtin()).unwrap();
        let mut whole = load_processes(&groups, &named).unwrap();
        whole.finish_loading().unwrap();
        let whole = prof_core::summarize_kernels(&whole, &Families::builtin());
        assert_eq!((streamed.ops, whole.ops), (4, 4));
        assert_eq!(streamed.partial, whole.partial);
        let note = streamed.partial.unwrap_or_default();
        assert!(note.starts_with(&format!("{}: its times lie", kernels.display())), "{note}");
    }

    #[test]
    fn a_cut_last_row_and_a_header_only_file_read_as_the_load_reads_them() {
        let dir = TempDir::new("rocprofv3-summary");
        let text = std::fs::read_to_string(fixture_path("rocprofv3/sdk1.0_kernel_trace.csv")).unwrap();
        let cut = dir.file("cut_kernel_trace.csv", &text.trim_end()[..text.trim_end().len() - 3]);
        let streamed = same(&[files(Some(cut), None, None)]);
        assert_eq!(streamed.ops, 8);
        assert!(streamed.partial.as_deref().is_some_and(|p| p.contains("cut")), "{:?}", streamed.partial);
        let header = dir.file("empty_kernel_trace.csv", &format!("{}\n", text.lines().next().unwrap()));
        let groups = [files(Some(header), None, None)];
        let streamed = summarize_processes(&groups, "src", &Families::builtin()).map(|s| s.ops);
        assert_eq!(streamed.map_err(|e| e.to_string()), loaded(&groups).map(|s| s.ops).map_err(|e| e.to_string()));
    }
}
