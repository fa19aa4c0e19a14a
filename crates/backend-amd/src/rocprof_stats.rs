//! Reads per-kernel totals: rocprofv3 `--stats` `*_kernel_stats.csv` (`Name, Calls,
//! TotalDurationNs, AverageNs, Percentage, MinNs, MaxNs, StdDev`) and legacy rocprof
//! `results.stats.csv` (`Name, Calls, TotalDurationNs, AverageNs, Percentage`). They hold no
//! timeline, so they become a [`KernelSummary`] directly (`span_ns` 0, no per-device rows).
//!
//! rocprof from the ROCm 4 era writes kernel names unquoted even when they contain commas
//! (fixture `kokkos2021_results.stats.csv`): a row with more fields than the header has its
//! leading fields joined back into the name, since the numeric columns are the last ones.
//! Without `MinNs`/`MaxNs` (legacy), min and max are the mean. HIP API stats files share the
//! header but count host time, so only `*kernel_stats.csv` and `*.stats.csv` names are read.

use crate::rocprof_csv::CsvReader;
use prof_core::families::Families;
use prof_core::kernel_summary::{summary_from_totals, CheckedTotals, KernelRow, KernelSummary};
use prof_core::{NameId, OpKind, Result};
use std::path::Path;

/// The columns both releases have, in this order, first.
pub const COLUMNS: &[&str] = &["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage"];

const EXPECTED: &str = "a kernel stats header (Name, Calls, TotalDurationNs, AverageNs, Percentage[, MinNs, MaxNs, \
     StdDev])";

/// True when `path` is named like a kernel stats file and starts with the stats header.
pub fn is_kernel_stats(path: &Path) -> bool {
    let named = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        n.ends_with("kernel_stats.csv") || (n.ends_with(".stats.csv") && !n.ends_with("hip_stats.csv"))
    });
    named && path.is_file() && CsvReader::open(path).is_ok_and(|csv| csv.header().iter().take(5).eq(COLUMNS.iter()))
}

/// Reads the stats file at `path` as a ranked summary.
pub fn load(path: &Path, families: &Families) -> Result<KernelSummary> {
    let text = std::fs::read_to_string(path).map_err(|e| prof_core::Error::io(path, e))?;
    read(&text, path, families)
}

/// Reads stats `text` (from `path`, for errors) as a ranked summary.
pub fn read(text: &str, path: &Path, families: &Families) -> Result<KernelSummary> {
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
        sums.add(calls, total).map_err(|reason| csv.error(&record, reason))?;
        let name = csv.text(&record, 0).to_owned();
        let family = families.classify_op(OpKind::Kernel, &name, None);
        kernels.push(KernelRow {
            name,
            name_id: NameId(u32::try_from(kernels.len()).unwrap_or(u32::MAX)),
            kind: OpKind::Kernel,
            family,
            calls,
            total_ns: total,
            mean_ns: if calls == 0 { 0.0 } else { total as f64 / calls as f64 },
            min_ns: csv.opt_u64(&record, min)?.unwrap_or(mean.round() as u64),
            max_ns: csv.opt_u64(&record, max)?.unwrap_or(mean.round() as u64),
            share_pct: 0.0,
        });
    }
    let mut summary = summary(path, kernels);
    summary.partial = csv.cut_note();
    Ok(summary)
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
        assert!(!is_kernel_stats(&fixture_path("rocprof-v1/kokkos2021_results.hip_stats.csv")));
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
