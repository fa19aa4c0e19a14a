//! msprof's `op_statistic_*.csv` (one row per op type and core type, per device: count and
//! total/min/avg/max µs) into a ranked [`KernelSummary`], for profiles that hold totals but
//! no per-task table. Rows of one op type on several devices or core types are merged.
//!
//! Recorded header (CANN 8.x): `Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),
//! Avg Time(us),Max Time(us),Ratio(%)`. Shares are recomputed from the totals, not copied from
//! `Ratio(%)`, so they match the other summaries.

use crate::csv_table::CsvTable;
use crate::error::AscendError;
use crate::task_type;
use prof_core::kernel_summary::{summary_from_totals, CheckedTotals};
use prof_core::{Families, KernelRow, KernelSummary, NameId};
use std::path::Path;

/// True when `header` is an `op_statistic` table.
pub fn is_op_statistic_header(header: &[String]) -> bool {
    ["OP Type", "Count", "Total Time(us)"].iter().all(|n| header.iter().any(|h| h == n))
}

/// Reads the `op_statistic` file at `path` into a summary.
pub fn load(path: &Path, families: &Families) -> Result<KernelSummary, AscendError> {
    summarize(&CsvTable::read(path)?, families)
}

/// The ranked summary of one `op_statistic` table.
pub fn summarize(table: &CsvTable, families: &Families) -> Result<KernelSummary, AscendError> {
    let op_type = table.require(&["OP Type"])?;
    let count = table.require(&["Count"])?;
    let total = table.require(&["Total Time(us)"])?;
    let core = table.column(&["Core Type"]);
    let min = table.column(&["Min Time(us)"]);
    let max = table.column(&["Max Time(us)"]);
    let mut rows: Vec<KernelRow> = Vec::new();
    let mut sums = CheckedTotals::default();
    for row in table.rows() {
        let name = row.text(op_type)?;
        let calls = row.integer(Some(count))?.ok_or_else(|| row.error(count, "is empty or N/A"))?;
        let total_ns = row.micros_ns(Some(total))?.ok_or_else(|| row.error(total, "is empty or N/A"))?;
        let min_ns = row.micros_ns(min)?.unwrap_or(0);
        let max_ns = row.micros_ns(max)?.unwrap_or(0);
        sums.add(calls, total_ns).map_err(|reason| AscendError::file(table.path(), row.line(), reason))?;
        if let Some(k) = rows.iter_mut().find(|k| k.name == name) {
            k.calls += calls;
            k.total_ns += total_ns;
            k.min_ns = k.min_ns.min(min_ns);
            k.max_ns = k.max_ns.max(max_ns);
            continue;
        }
        let kind = task_type::op_kind(row.get(core).unwrap_or(""), name);
        rows.push(KernelRow {
            name: name.to_owned(),
            name_id: NameId(u32::try_from(rows.len()).unwrap_or(u32::MAX)),
            kind,
            family: families.classify_op(kind, name, None),
            calls,
            total_ns,
            mean_ns: 0.0,
            min_ns,
            max_ns,
            share_pct: 0.0,
        });
    }
    if rows.is_empty() {
        return Err(AscendError::file(table.path(), 0, "op_statistic has no op rows"));
    }
    for k in &mut rows {
        k.mean_ns = if k.calls == 0 { 0.0 } else { k.total_ns as f64 / k.calls as f64 };
    }
    let mut summary = summary_from_totals(table.path().display().to_string(), rows);
    summary.partial = table.cut_note();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::{fixture_path, CANN8_PIPE};
    use prof_core::Family;

    /// python: `[(r["OP Type"], r["Count"], r["Total Time(us)"]) for r in csv.DictReader(f)]` gives
    /// GroupedMatmul 1 × 26.66 µs and OnesLike 2 × 12.66 µs.
    #[test]
    fn cann8_op_statistic() {
        let path = fixture_path(CANN8_PIPE).join("op_statistic_20260823165335.csv");
        let s = load(&path, &Families::builtin()).unwrap();
        assert_eq!((s.ops, s.device_ns, s.kernels.len()), (3, 39_320, 2));
        let top = &s.kernels[0];
        assert_eq!(
            (top.name.as_str(), top.calls, top.total_ns, top.family),
            ("GroupedMatmul", 1, 26_660, Family::GroupedMatmul)
        );
        assert_eq!((s.kernels[1].min_ns, s.kernels[1].max_ns), (4_600, 8_060));
    }

    #[test]
    fn bad_op_statistic_names_file_and_column() {
        let p = Path::new("op_statistic_1.csv");
        let t = CsvTable::parse("OP Type,Count\nAdd,1\n", p).unwrap();
        let err = summarize(&t, &Families::builtin()).unwrap_err().to_string();
        assert!(err.contains("op_statistic_1.csv") && err.contains("Total Time(us)"), "{err}");
        let t = CsvTable::parse("OP Type,Count,Total Time(us)\nAdd,x,1\n", p).unwrap();
        assert!(summarize(&t, &Families::builtin()).unwrap_err().to_string().contains("Count"));
        let t = CsvTable::parse("OP Type,Count,Total Time(us)\n", p).unwrap();
        assert!(summarize(&t, &Families::builtin()).unwrap_err().to_string().contains("no op rows"));
    }
}
