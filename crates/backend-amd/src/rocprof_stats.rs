//! Reads per-kernel totals: rocprofv3 `--stats` `*_kernel_stats.csv` (`Name, Calls,
//! TotalDurationNs, AverageNs, Percentage, MinNs, MaxNs, StdDev`) and legacy rocprof
//! `results.stats.csv` (`Name, Calls, TotalDurationNs, AverageNs, Percentage`). They hold no
//! timeline, so they become a [`KernelSummary`] directly (`span_ns` 0, no per-device rows).
//!
//! rocprof from the ROCm 4 era writes kernel names unquoted even when they contain commas
//! (fixture `kokkos2021_results.stats.csv`): a row with more fields than the header has its
//! leading fields joined back into the name, since the numeric columns are the last ones.
//! Without `MinNs`/`MaxNs` (legacy), min and max are the mean.
//!
//! Copy stats share the header (legacy `results.copy_stats.csv`, rocprofv3
//! `*_memory_copy_stats.csv`): their rows are copies, so a run that spent its device time
//! copying shows it (a directory's kernel and copy stats are read together by
//! [`load_all`]). HIP/HSA API stats share it too but count host time: they are refused with
//! a sentence ([`api_stats_refusal`]). Legacy rocprof lists queue barriers as
//! `<barrier packet>` rows among the kernels; they are not kernels (on a recorded MI300 job
//! they were the top row), so they are left out and counted in the summary's `partial`.

use crate::rocprof_csv::CsvReader;
use prof_core::families::Families;
use prof_core::kernel_summary::{summary_from_totals, CheckedTotals, KernelRow, KernelSummary};
use prof_core::{NameId, OpKind, Result};
use std::path::Path;

/// The columns both releases have, in this order, first.
pub const COLUMNS: &[&str] = &["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage"];

const EXPECTED: &str = "a kernel stats header (Name, Calls, TotalDurationNs, AverageNs, Percentage[, MinNs, MaxNs, \
     StdDev])";

/// What a stats file counts, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stats {
    /// Kernel dispatches (`*kernel_stats.csv`, legacy `results.stats.csv`).
    Kernels,
    /// Memory copies (`*copy_stats.csv`, `*_memory_copy_stats.csv`).
    Copies,
    /// Host API calls (`*hip_stats.csv`, `*_hip_api_stats.csv`, `*hsa_stats.csv`, …).
    Api,
}

/// What the file named `name` counts, when it is named like a stats file.
pub fn stats_kind(name: &str) -> Option<Stats> {
    if !name.ends_with("stats.csv") {
        return None;
    }
    let stem = name.trim_end_matches("stats.csv");
    if stem.ends_with("copy_") {
        Some(Stats::Copies)
    } else if ["hip_", "hsa_", "api_", "kfd_", "marker_"].iter().any(|s| stem.ends_with(s)) {
        Some(Stats::Api)
    } else if stem.ends_with("kernel_") || stem.ends_with('.') {
        Some(Stats::Kernels)
    } else {
        None
    }
}

/// What the file at `path` counts, when it is named like a stats file and starts with the
/// stats header.
pub fn stats_file_kind(path: &Path) -> Option<Stats> {
    let kind = stats_kind(path.file_name()?.to_str()?)?;
    let headed =
        path.is_file() && CsvReader::open(path).is_ok_and(|csv| csv.header().iter().take(5).eq(COLUMNS.iter()));
    headed.then_some(kind)
}

/// True when `path` is named like a kernel (or copy) stats file and starts with the stats header.
pub fn is_kernel_stats(path: &Path) -> bool {
    matches!(stats_file_kind(path), Some(Stats::Kernels | Stats::Copies))
}

/// The refusal for an API stats file: what it holds and what to read instead.
pub fn api_stats_refusal(path: &Path) -> prof_core::Error {
    prof_core::Error::Unsupported(format!(
        "{}: HIP/HSA API stats count host time per API call, not device time; read the run's kernel trace instead          (legacy rocprof: results.json or results.csv beside it, from `rocprof --hip-trace --stats`; rocprofv3:          its kernel_trace.csv)",
        path.display()
    ))
}

/// Reads the stats file at `path` as a ranked summary.
pub fn load(path: &Path, families: &Families) -> Result<KernelSummary> {
    load_all(&[path.to_owned()], families)
}

/// Reads kernel and copy stats files together (one run's directory) as one ranked summary,
/// named after the first.
pub fn load_all(paths: &[std::path::PathBuf], families: &Families) -> Result<KernelSummary> {
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|e| prof_core::Error::io(path, e))?;
        let kind = match path.file_name().and_then(|n| n.to_str()).and_then(stats_kind) {
            Some(Stats::Api) => return Err(api_stats_refusal(path)),
            Some(Stats::Copies) => OpKind::Memcpy,
            _ => OpKind::Kernel,
        };
        let (read, note) = read_rows(&text, path, kind, families)?;
        rows.extend(read);
        notes.extend(note);
    }
    for (at, row) in rows.iter_mut().enumerate() {
        row.name_id = NameId(u32::try_from(at).unwrap_or(u32::MAX));
    }
    let name = paths.first().map_or_else(String::new, |p| p.display().to_string());
    let mut summary = summary_from_totals(name, rows);
    summary.partial = (!notes.is_empty()).then(|| notes.join("; "));
    Ok(summary)
}

/// Reads stats `text` (from `path`, for errors) as a ranked summary of kernels.
pub fn read(text: &str, path: &Path, families: &Families) -> Result<KernelSummary> {
    let (rows, note) = read_rows(text, path, OpKind::Kernel, families)?;
    let mut summary = summary(path, rows);
    summary.partial = note;
    Ok(summary)
}

/// The rows of stats `text` as ops of `kind`, and what was left out or cut.
fn read_rows(text: &str, path: &Path, kind: OpKind, families: &Families) -> Result<(Vec<KernelRow>, Option<String>)> {
    let mut csv = CsvReader::from_reader(text.as_bytes(), path)?;
    let header_ok = csv.header().iter().take(COLUMNS.len()).eq(COLUMNS.iter());
    if !header_ok {
        let missing = COLUMNS.iter().find(|c| csv.find(c).is_none()).unwrap_or(&"Name");
        csv.require(missing, EXPECTED)?;
        return Err(prof_core::Error::artifact(path, 1, format!("the columns are not in the order of {EXPECTED}")));
    }
    let (min, max) = (csv.find("MinNs"), csv.find("MaxNs"));
    let width = csv.header().len();
    let lines: Vec<&str> = text.lines().collect();
    let mut kernels = Vec::new();
    let mut sums = CheckedTotals::default();
    let (mut barriers, mut barrier_ns) = (0u64, 0u64);
    loop {
        let record = match csv.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(error) => match unquoted_name_row(&lines, width, &error) {
                Some(r) => r,
                None => return Err(error),
            },
        };
        let calls = csv.u64(&record, 1)?;
        let total = csv.u64(&record, 2)?;
        let mean = csv.f64(&record, 3)?;
        let name = csv.text(&record, 0).to_owned();
        if name.trim() == crate::rocprof_v1_json::BARRIER {
            barriers = barriers.saturating_add(calls);
            barrier_ns = barrier_ns.saturating_add(total);
            continue;
        }
        sums.add(calls, total).map_err(|reason| csv.error(&record, reason))?;
        let kind = if kind == OpKind::Memcpy { crate::rocprof_v1_json::copy_kind(&name) } else { kind };
        let family = families.classify_op(kind, &name, None);
        kernels.push(KernelRow {
            name,
            name_id: NameId(u32::try_from(kernels.len()).unwrap_or(u32::MAX)),
            kind,
            family,
            calls,
            total_ns: total,
            mean_ns: if calls == 0 { 0.0 } else { total as f64 / calls as f64 },
            min_ns: csv.opt_u64(&record, min)?.unwrap_or(mean.round() as u64),
            max_ns: csv.opt_u64(&record, max)?.unwrap_or(mean.round() as u64),
            share_pct: 0.0,
        });
    }
    let mut notes: Vec<String> = csv.cut_note().into_iter().collect();
    if barriers > 0 {
        notes.push(format!(
            "{}: {barriers} {} dispatches ({} ns; queue barriers, not kernels) were left out",
            path.display(),
            crate::rocprof_v1_json::BARRIER,
            barrier_ns
        ));
    }
    Ok((kernels, (!notes.is_empty()).then(|| notes.join("; "))))
}

/// A row of the ROCm 4 kind: the name unquoted, with commas; rebuilt from the raw line the
/// error names when it has more fields than the header and no quotes.
fn unquoted_name_row(lines: &[&str], width: usize, error: &prof_core::Error) -> Option<crate::rocprof_csv::Record> {
    let prof_core::Error::Artifact { line, .. } = error else { return None };
    let raw = lines.get(line.checked_sub(1)?)?.trim_end_matches('\r');
    let parts: Vec<&str> = raw.split(',').collect();
    if raw.contains('"') || parts.len() <= width || width == 0 {
        return None;
    }
    let cut = parts.len() - (width - 1);
    let mut fields = vec![parts.get(..cut)?.join(",")];
    fields.extend(parts.get(cut..)?.iter().map(|s| (*s).to_owned()));
    Some(crate::rocprof_csv::Record::from_fields(*line, fields))
}

fn summary(path: &Path, kernels: Vec<KernelRow>) -> KernelSummary {
    summary_from_totals(path.display().to_string(), kernels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::fixture_path;
    use prof_core::Family;

    fn load_fixture(path: &str) -> KernelSummary {
        let path = fixture_path(path);
        assert!(is_kernel_stats(&path), "{}", path.display());
        load(&path, &Families::builtin()).unwrap()
    }

    #[test]
    fn rocprofv3_kernel_stats() {
        let s = load_fixture("rocprofv3/hpctrain-jacobi_kernel_stats.csv");
        // python csv module: 7 rows, sum(TotalDurationNs) = 1,267,306,899; top
        // JacobiIterationKernel, 1000 calls, 545,275,480 ns, MinNs 526082, MaxNs 709763.
        assert_eq!((s.kernels.len(), s.device_ns), (7, 1_267_306_899));
        let top = &s.kernels[0];
        assert!(top.name.starts_with("JacobiIterationKernel(int"));
        assert_eq!((top.calls, top.total_ns, top.min_ns, top.max_ns), (1000, 545_275_480, 526_082, 709_763));
        assert!(s.family_ns(Family::Memcpy) >= 7_823_550, "__amd_rocclr_copyBuffer is a copy by name");
    }

    #[test]
    fn legacy_stats_quoted_and_unquoted_names() {
        let s = load_fixture("rocprof-v1/hpctrain-laplacian_results.stats.csv");
        // python: 4 rows, sum(TotalDurationNs) = 2,610,787,312 (equal to results.csv's dispatch sum).
        assert_eq!((s.kernels.len(), s.device_ns), (4, 2_610_787_312));
        assert_eq!((s.kernels[0].calls, s.kernels[0].total_ns), (1001, 2_608_618_986));
        let k = load_fixture("rocprof-v1/kokkos2021_results.stats.csv");
        // python, each line rsplit(',', 4): 8 rows, total 1,644,640 ns; top row 1 call, 533,600 ns,
        // its name holding commas (`scatter_view_loop(Kokkos::View<int**>, Kokkos::View<int*>)`).
        assert_eq!((k.kernels.len(), k.device_ns), (8, 1_644_640));
        assert_eq!((k.kernels[0].calls, k.kernels[0].total_ns), (1, 533_600));
        assert!(k.kernels[0].name.contains("scatter_view_loop(Kokkos::View<int**>, Kokkos::View<int*>)"));
        let hip = fixture_path("rocprof-v1/kokkos2021_results.hip_stats.csv");
        assert!(!is_kernel_stats(&hip));
        assert_eq!(stats_file_kind(&hip), Some(Stats::Api));
        let refused = load(&hip, &Families::builtin()).unwrap_err().to_string();
        assert!(refused.contains("host time per API call") && refused.contains("results.json"), "{refused}");
    }

    #[test]
    fn stats_names() {
        let kinds: Vec<_> = [
            "results.stats.csv",
            "1234_kernel_stats.csv",
            "results.copy_stats.csv",
            "run_memory_copy_stats.csv",
            "results.hip_stats.csv",
            "run_hip_api_stats.csv",
            "results.hsa_stats.csv",
            "notes.csv",
            "mystats.csv",
        ]
        .iter()
        .map(|n| stats_kind(n))
        .collect();
        use Stats::*;
        let expected =
            [Some(Kernels), Some(Kernels), Some(Copies), Some(Copies), Some(Api), Some(Api), Some(Api), None, None];
        assert_eq!(kinds, expected);
    }

    #[test]
    fn a_real_mi300_training_run_keeps_its_barrier_packets_out() {
        let s = load_fixture("rocprof-v1/saltfish_mi300_torch_train_barrier_results.stats.csv");
        // python csv: 98 rows; without the `<barrier packet>` one (85112 calls, 142,976,988,030
        // ns, the top row at 35.76 %), 97 rows and 256,890,748,967 ns.
        assert_eq!((s.kernels.len(), s.device_ns), (97, 256_890_748_967));
        assert!(s.kernels.iter().all(|k| k.name != "<barrier packet>"));
        let note = s.partial.unwrap();
        assert!(note.contains("85112 <barrier packet> dispatches (142976988030 ns"), "{note}");
    }

    #[test]
    fn copy_stats_are_copies_and_sets() {
        let path = fixture_path("rocprof-v1/stejpet_llamacpp_results.copy_stats.csv");
        assert_eq!(stats_file_kind(&path), Some(Stats::Copies));
        let s = load(&path, &Families::builtin()).unwrap();
        // python csv: 4 rows, 387,953,826 ns.
        assert_eq!((s.kernels.len(), s.device_ns), (4, 387_953_826));
        let kind = |name: &str| s.kernels.iter().find(|k| k.name == name).unwrap().kind;
        assert_eq!((kind("CopyHostToDevice"), kind("FillBuffer")), (OpKind::Memcpy, OpKind::Memset));
    }

    #[test]
    fn barrier_rows_are_left_out_and_counted() {
        let text = "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\
                    \"<barrier packet>\",10,9000,900,90.0\n\"k(int)\",2,1000,500,10.0\n";
        let s = read(text, Path::new("results.stats.csv"), &Families::builtin()).unwrap();
        assert_eq!((s.kernels.len(), s.device_ns), (1, 1000));
        let note = s.partial.unwrap();
        assert!(note.contains("10 <barrier packet> dispatches (9000 ns"), "{note}");
    }

    #[test]
    fn bad_stats_are_errors() {
        let p = Path::new("x_kernel_stats.csv");
        let f = Families::builtin();
        let e = read("\"Name\",\"Calls\"\n", p, &f).unwrap_err().to_string();
        assert!(e.contains("x_kernel_stats.csv:1") && e.contains("`TotalDurationNs`"), "{e}");
        let e = read("Name,Calls,TotalDurationNs,AverageNs,Percentage\n\"k\",x,1,1,1\n", p, &f).unwrap_err();
        assert!(e.to_string().contains(":2") && e.to_string().contains("`Calls` is `x`"), "{e}");
        assert!(read("", p, &f).is_err());
    }
}
