//! The two `ncu --csv` pages prof reads.
//!
//! `--page details` has one row per launch × section × metric (`"Section Name"`, `"Metric
//! Name"`, `"Metric Unit"`, `"Metric Value"`, with a trailing empty field) and one row per rule
//! result (`"Rule Name"`, `"Rule Type"` OPT/WRN/INF, `"Rule Description"`, `"Estimated Speedup
//! Type"`, `"Estimated Speedup"`). `--page raw` has one row per launch and one column per
//! metric, the second line holding the units.

use crate::error::{quote, NvidiaError};
use crate::ncu_csv::{header_position, read_records, Columns, LaunchInfo, Record};
use crate::ncu_units::{impossible_time, parse_number, parse_quantity, Quantity};
use serde::Serialize;
use std::collections::BTreeMap;

/// The tool name in details-page errors.
pub const DETAILS_TOOL: &str = "ncu --csv --page details";
/// The tool name in raw-page errors.
pub const RAW_TOOL: &str = "ncu --csv --page raw";
/// The launch columns of the raw page (2019: up to `Stream`, with `Kernel Time`; 2025: up to
/// `CC`); every other column is a metric, `inst_executed` included.
pub const LAUNCH_COLUMNS: [&str; 12] = [
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
];

/// Which page a CSV holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Page {
    /// `--page details`: sections, metrics and rule results.
    Details,
    /// `--page raw`: every metric by its raw name.
    Raw,
}

/// The page of ncu CSV `text`, from its header; `None` when it has no ncu header.
pub fn detect_page(text: &str) -> Option<Page> {
    let (_, offset) = header_position(text)?;
    let header = text[offset..].lines().next()?;
    let records = read_records("ncu --csv", header).ok()?;
    let names = &records.first()?.fields;
    Some(if names.iter().any(|f| f == "Metric Value") { Page::Details } else { Page::Raw })
}

/// One metric of the details page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metric {
    /// The section's display name (`GPU Speed Of Light Throughput`).
    pub section: String,
    /// The metric's label (`Duration`).
    pub name: String,
    /// The unit as printed (`us`), empty when none.
    pub unit: String,
    /// The value as printed (`8.99`, `PolicySpread`).
    pub text: String,
    /// The value in its base unit, when it is a number.
    pub value: Option<Quantity>,
}

/// One rule result of the details page (or of the console output).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rule {
    /// The section identifier (`WarpStateStats`) or, in console output, its display name.
    pub section: String,
    /// The rule identifier (`CPIStall`); console output does not print it.
    pub name: Option<String>,
    /// `OPT`, `WRN` or `INF`.
    pub kind: String,
    /// The rule's message.
    pub message: String,
    /// `local` or `global`, where the rule estimates a speedup.
    pub speedup_kind: Option<String>,
    /// Estimated speedup, percent.
    pub speedup_pct: Option<f64>,
}

/// Everything the details page holds about one launch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DetailsLaunch {
    /// Which launch.
    pub launch: LaunchInfo,
    /// Its metrics, in page order.
    pub metrics: Vec<Metric>,
    /// Its rule results, in page order.
    pub rules: Vec<Rule>,
}

impl DetailsLaunch {
    /// The first metric named one of `names` in a section whose name starts with one of `sections`.
    pub fn metric(&self, sections: &[&str], names: &[&str]) -> Option<&Metric> {
        names.iter().find_map(|name| {
            self.metrics.iter().find(|m| m.name == *name && sections.iter().any(|s| m.section.starts_with(s)))
        })
    }
}

/// ncu ends its output with a line break: a page without one was cut while it was written
/// (a metric value may have lost digits, a finding its speedup), so it is refused, naming the
/// cut line.
fn refuse_cut(tool: &str, text: &str) -> Result<(), NvidiaError> {
    if text.is_empty() || text.ends_with('\n') {
        return Ok(());
    }
    let line = text.matches('\n').count() + 1;
    Err(NvidiaError::output(tool, line, "the last row has no line break (the output was cut short); capture it again"))
}

/// Parses `ncu --csv --page details` output (preamble allowed) into one entry per launch, in
/// page order.
pub fn parse_details(text: &str) -> Result<Vec<DetailsLaunch>, NvidiaError> {
    refuse_cut(DETAILS_TOOL, text)?;
    let records = read_records(DETAILS_TOOL, text)?;
    let (header, rows) = split_header(DETAILS_TOOL, &records)?;
    let columns = Columns::new(header);
    for name in ["ID", "Kernel Name", "Section Name", "Metric Name", "Metric Unit"] {
        columns.require(DETAILS_TOOL, header.line, name)?;
    }
    let value_at = columns.require(DETAILS_TOOL, header.line, "Metric Value")?;
    let mut launches: Vec<DetailsLaunch> = Vec::new();
    for row in rows {
        check_width(DETAILS_TOOL, row, header.fields.len(), None)?;
        let launch = LaunchInfo::from_record(&columns, row, DETAILS_TOOL)?;
        let entry = match launches.iter().position(|l| l.launch.id == launch.id) {
            Some(at) if launches[at].launch.kernel != launch.kernel => {
                let reason = format!("launch ID {} names two kernels: {}", launch.id, quote(&launch.kernel));
                return Err(NvidiaError::output(DETAILS_TOOL, row.line, reason));
            }
            Some(at) => &mut launches[at],
            None => {
                launches.push(DetailsLaunch { launch, metrics: Vec::new(), rules: Vec::new() });
                let last = launches.len() - 1;
                &mut launches[last]
            }
        };
        let section = columns.get(row, "Section Name").unwrap_or("").to_owned();
        let rule_kind = columns.get(row, "Rule Type");
        if let Some(kind) = rule_kind {
            entry.rules.push(rule_row(&columns, row, section, kind)?);
            continue;
        }
        check_width(DETAILS_TOOL, row, header.fields.len(), Some(value_at + 1))?;
        let name = columns.get(row, "Metric Name").ok_or_else(|| {
            NvidiaError::output(DETAILS_TOOL, row.line, "a row with neither a metric name nor a rule type")
        })?;
        let unit = columns.get(row, "Metric Unit").unwrap_or("").to_owned();
        let text = row.fields.get(value_at).cloned().unwrap_or_default();
        if text.is_empty() {
            let reason = format!("the metric {} has no value: the row is truncated", quote(name));
            return Err(NvidiaError::output(DETAILS_TOOL, row.line, reason));
        }
        let value = parse_quantity(&text, &unit);
        if let Some(reason) = impossible_time(name, value.as_ref()) {
            return Err(NvidiaError::output(DETAILS_TOOL, row.line, reason));
        }
        entry.metrics.push(Metric { section, name: name.to_owned(), unit, text, value });
    }
    Ok(launches)
}

fn rule_row(columns: &Columns, row: &Record, section: String, kind: &str) -> Result<Rule, NvidiaError> {
    let speedup_pct = match columns.get(row, "Estimated Speedup") {
        None => None,
        Some(text) => Some(parse_number(text).ok_or_else(|| {
            NvidiaError::output(DETAILS_TOOL, row.line, format!("expected an estimated speedup, found {}", quote(text)))
        })?),
    };
    Ok(Rule {
        section,
        name: columns.get(row, "Rule Name").map(str::to_owned),
        kind: kind.to_owned(),
        message: columns.get(row, "Rule Description").unwrap_or("").to_owned(),
        speedup_kind: columns.get(row, "Estimated Speedup Type").map(str::to_owned),
        speedup_pct,
    })
}

/// A value of the raw page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RawValue {
    /// As printed.
    pub text: String,
    /// In its base unit, when it is a number.
    pub value: Option<Quantity>,
}

/// One launch of the raw page: every metric by its raw name (`gpu__time_duration.sum`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RawLaunch {
    /// Which launch.
    pub launch: LaunchInfo,
    /// Metric name to value; empty cells are left out.
    pub metrics: BTreeMap<String, RawValue>,
}

impl RawLaunch {
    /// The first of `names` that has a numeric value.
    pub fn first(&self, names: &[&str]) -> Option<&Quantity> {
        names.iter().find_map(|n| self.metrics.get(*n).and_then(|v| v.value.as_ref()))
    }

    /// The numeric value of `name` in its base unit.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.first(&[name]).map(|q| q.value)
    }
}

/// Parses `ncu --csv --page raw` output (preamble allowed; the units row is required) into one
/// entry per launch, in page order.
pub fn parse_raw(text: &str) -> Result<Vec<RawLaunch>, NvidiaError> {
    refuse_cut(RAW_TOOL, text)?;
    let records = read_records(RAW_TOOL, text)?;
    let (header, rows) = split_header(RAW_TOOL, &records)?;
    let columns = Columns::new(header);
    columns.require(RAW_TOOL, header.line, "ID")?;
    columns.require(RAW_TOOL, header.line, "Kernel Name")?;
    let (units, rows) = rows.split_first().unwrap_or((header, &[]));
    check_width(RAW_TOOL, units, header.fields.len(), Some(header.fields.len()))?;
    if columns.get(units, "ID").is_some() || columns.get(units, "Kernel Name").is_some() {
        let reason = "expected the units row (empty launch columns, then one unit per metric) after the header, \
                      found a launch row";
        return Err(NvidiaError::output(RAW_TOOL, units.line, reason));
    }
    if rows.is_empty() {
        return Err(NvidiaError::output(RAW_TOOL, units.line, "the page has a header and units but no launch rows"));
    }
    let mut launches = Vec::with_capacity(rows.len());
    for row in rows {
        check_width(RAW_TOOL, row, header.fields.len(), Some(header.fields.len()))?;
        let launch = LaunchInfo::from_record(&columns, row, RAW_TOOL)?;
        let mut metrics = BTreeMap::new();
        for ((name, unit), text) in header.fields.iter().zip(&units.fields).zip(&row.fields) {
            if !LAUNCH_COLUMNS.contains(&name.as_str()) && !text.is_empty() {
                let value = parse_quantity(text, unit);
                if let Some(reason) = impossible_time(name, value.as_ref()) {
                    return Err(NvidiaError::output(RAW_TOOL, row.line, reason));
                }
                metrics.insert(name.clone(), RawValue { text: text.clone(), value });
            }
        }
        let mut raw = RawLaunch { launch, metrics };
        let device = raw.first(&["launch__device_id", "device__attribute_device_index"]).map(|q| q.value as u32);
        raw.launch.device = raw.launch.device.or(device);
        if raw.launch.compute_capability.is_none() {
            let major = raw.number("device__attribute_compute_capability_major");
            let minor = raw.number("device__attribute_compute_capability_minor");
            raw.launch.compute_capability = major.zip(minor).map(|(major, minor)| format!("{major}.{minor}"));
        }
        launches.push(raw);
    }
    Ok(launches)
}

fn split_header<'r>(tool: &str, records: &'r [Record]) -> Result<(&'r Record, &'r [Record]), NvidiaError> {
    let (header, rows) = records.split_first().ok_or_else(|| NvidiaError::output(tool, 1, "no CSV header"))?;
    if rows.is_empty() {
        return Err(NvidiaError::output(
            tool,
            header.line,
            "the page has a header but no rows: no launch was profiled",
        ));
    }
    Ok((header, rows))
}

/// Rows may be shorter than the header (details metric rows stop after `Metric Value`) but
/// never longer, and at least `min` fields long when given.
fn check_width(tool: &str, row: &Record, header: usize, min: Option<usize>) -> Result<(), NvidiaError> {
    let have = row.fields.len();
    if have > header {
        return Err(NvidiaError::output(tool, row.line, format!("{have} fields, but the header has {header}")));
    }
    if let Some(min) = min.filter(|min| have < *min) {
        let reason = format!("{have} fields where {min} are needed: the row is truncated or not `,`-separated");
        return Err(NvidiaError::output(tool, row.line, reason));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
