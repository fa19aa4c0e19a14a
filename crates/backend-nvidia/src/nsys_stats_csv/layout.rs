//! Binds the columns of an `nsys stats` CSV header, by name, to the fields of a [`StatsRow`],
//! and parses each row through that binding.

use super::record::Record;
use super::{StatsReport, StatsRow};
use crate::error::quote;

/// Where each field of a row is, for one header.
#[derive(Debug)]
pub(super) struct Layout {
    pub(super) report: StatsReport,
    columns: Vec<String>,
    name: usize,
    count: usize,
    /// `None` for `kernexecsum`, whose total is count × average.
    pub(super) total: Option<usize>,
    pct: Option<usize>,
    avg: usize,
    med: Option<usize>,
    min: usize,
    max: usize,
    stddev: Option<usize>,
    style: Option<usize>,
}

/// A header cell split into name and unit: `Total Time (ns)` → `Total Time`, `ns`.
fn split(cell: &str) -> (&str, Option<&str>) {
    let cell = cell.trim();
    match cell.strip_suffix(')').and_then(|c| c.rsplit_once(" (")) {
        Some((base, unit)) => (base.trim(), Some(unit.trim())),
        None => (cell, None),
    }
}

impl Layout {
    /// The layout of `header`, or why it is not the header of a report this module reads.
    pub(super) fn from_header(header: &[String]) -> Result<Self, String> {
        let text = header.join(",");
        if header.len() == 1 && text.trim_start().starts_with("** ") {
            return Err(format!(
                "{} is the title nsys stats prints above a table (console or --format table output), \
                 not a CSV header; write the report as CSV with `nsys stats --format csv --report <name> \
                 --output <base> <report.nsys-rep>`",
                quote(&text)
            ));
        }
        if header.len() == 1 {
            if let Some(delimiter) = [';', '\t', '|'].into_iter().find(|d| text.contains(*d)) {
                return Err(format!(
                    "the header {} is not comma-separated (it splits on {delimiter:?}); nsys stats \
                     --format csv separates columns with commas",
                    quote(&text)
                ));
            }
        }
        let parts: Vec<(&str, Option<&str>)> = header.iter().map(|c| split(c)).collect();
        let find = |base: &str| parts.iter().position(|(b, _)| *b == base);
        let (report, count, name, prefix) = if find("KAvg").is_some() {
            (StatsReport::KernelLaunchExec, "Count", "Kernel Name", "K")
        } else if find("Instances").is_some() && find("Range").is_some() {
            (StatsReport::NvtxRanges, "Instances", "Range", "")
        } else if find("Instances").is_some() {
            (StatsReport::GpuKernels, "Instances", "Name", "")
        } else if find("Num Calls").is_some() {
            (StatsReport::ApiCalls, "Num Calls", "Name", "")
        } else if find("Count").is_some() {
            (StatsReport::GpuMemoryTime, "Count", "Operation", "")
        } else {
            return Err(format!(
                "no `Instances`, `Num Calls` or `Count` column: {} is not the header of an nsys stats summary",
                quote(&text)
            ));
        };
        let need = |base: &str| {
            find(base).ok_or_else(|| {
                format!(
                    "missing column `{base}` of an nsys {} report (the header is {})",
                    report.report_names(),
                    quote(&text)
                )
            })
        };
        let in_ns = |at: usize| match parts.get(at) {
            Some((_, Some("ns"))) => Ok(at),
            Some((base, unit)) => Err(format!(
                "column `{base}` is in {}, not ns: prof reads nsys stats reports in their default unit, nanoseconds",
                unit.unwrap_or("no unit")
            )),
            None => Err(format!("column {at} is missing")),
        };
        let timed = |base: &str| need(&format!("{prefix}{base}")).and_then(in_ns);
        let timed_opt = |base: &str| find(&format!("{prefix}{base}")).map(in_ns).transpose();
        let total = match report {
            StatsReport::KernelLaunchExec => None,
            _ => Some(need("Total Time").and_then(in_ns)?),
        };
        Ok(Self {
            report,
            columns: header.iter().map(|c| c.trim().to_owned()).collect(),
            name: need(name)?,
            count: need(count)?,
            total,
            pct: find("Time"),
            avg: timed("Avg")?,
            med: timed_opt("Med")?,
            min: timed("Min")?,
            max: timed("Max")?,
            stddev: timed_opt("StdDev")?,
            style: find("Style"),
        })
    }

    /// The row in `record`, or what is wrong with it.
    pub(super) fn row(&self, record: &Record) -> Result<StatsRow, String> {
        if record.fields.len() != self.columns.len() {
            return Err(format!(
                "expected {} fields as in the header, found {}: {}",
                self.columns.len(),
                record.fields.len(),
                quote(&record.fields.join(","))
            ));
        }
        let cell = |at: usize| record.fields.get(at).map(|f| f.trim()).unwrap_or("");
        let column = |at: usize| self.columns.get(at).map(String::as_str).unwrap_or("?");
        let whole = |at: usize| {
            cell(at)
                .parse::<u64>()
                .map_err(|_| format!("column `{}`: {} is not a whole number", column(at), quote(cell(at))))
        };
        let real = |at: usize| match cell(at).parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            _ => Err(format!("column `{}`: {} is not a number", column(at), quote(cell(at)))),
        };
        let optional = |at: Option<usize>| at.filter(|&a| !cell(a).is_empty()).map(real).transpose();
        let instances = whole(self.count)?;
        let avg_ns = real(self.avg)?;
        let total_ns = match self.total {
            Some(at) => whole(at)?,
            None => (instances as f64 * avg_ns).round() as u64,
        };
        Ok(StatsRow {
            line: record.line,
            name: record.fields.get(self.name).cloned().unwrap_or_default(),
            instances,
            total_ns,
            time_pct: optional(self.pct)?,
            avg_ns,
            med_ns: optional(self.med)?,
            min_ns: whole(self.min)?,
            max_ns: whole(self.max)?,
            stddev_ns: optional(self.stddev)?,
            style: self.style.map(|at| cell(at).to_owned()),
        })
    }
}
