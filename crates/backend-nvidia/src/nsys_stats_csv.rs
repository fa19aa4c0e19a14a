//! Reads the summary reports of `nsys stats --format csv` into a [`StatsTable`].
//!
//! These reports hold aggregate rows (one per kernel, API function, memory operation or NVTX
//! range: count, total, average, median, min, max, standard deviation), not individual ops,
//! so they are not loaded into a [`Timeline`](prof_core::Timeline): a timeline built from
//! them would invent start times. The device reports convert to the row shape of the core's
//! ranked kernel summary ([`KernelRow`], [`KernelSummary`]) so the CLI prints them the same way.
//!
//! The report is told from its header, which changed between nsys versions (the real files
//! read: nsys 2022.4.2 `cudaapisum`, `gpumemtimesum`, `kernexecsum`; a recent
//! `cuda_gpu_kern_sum` and `nvtx_sum`):
//! - `Instances` and `Name`: `cuda_gpu_kern_sum` (named `gpukernsum` before 2023);
//! - `Instances` and `Range`: `nvtx_sum`;
//! - `Num Calls` and `Name`: `cudaapisum` / `cuda_api_sum` (and `osrt_sum`, which has the same
//!   columns);
//! - `Count` and `Operation`: `gpumemtimesum` / `cuda_gpu_mem_time_sum`;
//! - `KAvg (ns)` and `Kernel Name`: `kernexecsum`, whose rows are per kernel *and* launching
//!   thread and which has no total column: its total is `Count × KAvg`, rounded, and so within
//!   `Count × 0.05` ns of the true total (KAvg has one decimal).
//!
//! Columns are found by name, never by position; time columns must be in nanoseconds (the
//! `(ns)` unit in the header, nsys' default). Kernel names with commas are quoted fields.

mod layout;
mod record;

use layout::Layout;
use prof_core::kernel_summary::{summary_from_totals, CheckedTotals};
use prof_core::{Error, Families, KernelRow, KernelSummary, NameId, OpKind, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Which `nsys stats` report a CSV holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StatsReport {
    /// `cuda_gpu_kern_sum` (old name `gpukernsum`): one row per kernel name.
    GpuKernels,
    /// `kernexecsum` (nsys 2022): kernel execution per kernel name and launching thread.
    KernelLaunchExec,
    /// `cudaapisum` / `cuda_api_sum`: one row per API function.
    ApiCalls,
    /// `gpumemtimesum` / `cuda_gpu_mem_time_sum`: one row per memory operation kind.
    GpuMemoryTime,
    /// `nvtx_sum` (old name `nvtxsum`): one row per NVTX range and style.
    NvtxRanges,
}

impl StatsReport {
    /// The report's names, new and old, as `nsys stats --report` takes them.
    pub fn report_names(self) -> &'static str {
        match self {
            StatsReport::GpuKernels => "cuda_gpu_kern_sum (gpukernsum)",
            StatsReport::KernelLaunchExec => "kernexecsum",
            StatsReport::ApiCalls => "cuda_api_sum (cudaapisum)",
            StatsReport::GpuMemoryTime => "cuda_gpu_mem_time_sum (gpumemtimesum)",
            StatsReport::NvtxRanges => "nvtx_sum (nvtxsum)",
        }
    }

    /// True for reports whose rows are device operations (kernels, copies, sets).
    pub fn is_device(self) -> bool {
        matches!(self, StatsReport::GpuKernels | StatsReport::KernelLaunchExec | StatsReport::GpuMemoryTime)
    }
}

/// One aggregate row. Times are nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsRow {
    /// 1-based line of the file the row starts on.
    pub line: usize,
    /// Kernel, function, operation (`[CUDA memcpy HtoD]`) or range name, as nsys prints it.
    pub name: String,
    /// `Instances`, `Num Calls` or `Count`.
    pub instances: u64,
    /// `Total Time (ns)`; derived as `round(Count × KAvg)` in `kernexecsum`.
    pub total_ns: u64,
    /// `Time (%)`: nsys' share of the report's total, where the report has it.
    pub time_pct: Option<f64>,
    /// `Avg (ns)` (`KAvg (ns)`).
    pub avg_ns: f64,
    /// `Med (ns)` (`KMed (ns)`), where present.
    pub med_ns: Option<f64>,
    /// `Min (ns)` (`KMin (ns)`).
    pub min_ns: u64,
    /// `Max (ns)` (`KMax (ns)`).
    pub max_ns: u64,
    /// `StdDev (ns)` (`KStdDev (ns)`), where present.
    pub stddev_ns: Option<f64>,
    /// NVTX range style (`PushPop`, `StartEnd`), in `nvtx_sum` only.
    pub style: Option<String>,
}

/// A parsed `nsys stats` summary report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsTable {
    /// The file it was read from.
    pub source: PathBuf,
    /// Which report it is.
    pub report: StatsReport,
    /// True when `total_ns` was derived from count × average (`kernexecsum`).
    pub totals_derived: bool,
    /// Rows in file order (nsys sorts them by total, longest first).
    pub rows: Vec<StatsRow>,
    /// Set when the file was cut inside its last row, which was left out; says where.
    pub partial: Option<String>,
}

impl StatsTable {
    /// Reads the CSV file at `path`.
    pub fn from_file(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        match String::from_utf8(bytes) {
            Ok(text) => Self::parse(&text, path),
            Err(e) => {
                // A parse error of the readable text says more (a table, a wrong delimiter).
                Self::parse(&String::from_utf8_lossy(e.as_bytes()), path)?;
                let at = e.utf8_error().valid_up_to();
                let line = e.as_bytes().get(..at).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count() + 1);
                Err(Error::artifact(path, line, format!("byte {at} is not UTF-8; nsys stats writes UTF-8 CSV")))
            }
        }
    }

    /// Parses `text`, the content of the file `source` (named in errors).
    pub fn parse(text: &str, source: &Path) -> Result<Self> {
        // nsys ends every row with a line break: a last row without one was cut while the file
        // was written (a time may have lost digits, a name its end), so it is left out.
        let (text, partial) = match text.rfind('\n') {
            Some(end) if end + 1 < text.len() && !text[end + 1..].trim().is_empty() => {
                let line = text.matches('\n').count() + 1;
                (&text[..=end], Some(prof_timeline::error::cut_last_row(source, line)))
            }
            _ => (text, None),
        };
        let records = record::records(text).map_err(|(line, reason)| Error::artifact(source, line, reason))?;
        let mut records = records.into_iter();
        let Some(header) = records.next() else {
            return Err(Error::artifact(source, 1, "is empty, expected an nsys stats CSV header"));
        };
        let layout =
            Layout::from_header(&header.fields).map_err(|reason| Error::artifact(source, header.line, reason))?;
        let mut sums = CheckedTotals::default();
        let rows = records
            .map(|r| {
                let row = layout.row(&r).map_err(|reason| Error::artifact(source, r.line, reason))?;
                sums.add(row.instances, row.total_ns).map_err(|reason| Error::artifact(source, r.line, reason))?;
                Ok(row)
            })
            .collect::<Result<Vec<_>>>()?;
        let totals_derived = layout.total.is_none();
        Ok(Self { source: source.to_owned(), report: layout.report, totals_derived, rows, partial })
    }

    /// Sum of the rows' totals, ns (checked when the rows were read).
    pub fn total_ns(&self) -> u64 {
        self.rows.iter().map(|r| r.total_ns).sum()
    }

    /// Sum of the rows' instance counts (checked when the rows were read).
    pub fn instances(&self) -> u64 {
        self.rows.iter().map(|r| r.instances).sum()
    }

    /// The rows of a device report as ranked-summary rows, one per name (a kernel that
    /// `kernexecsum` lists once per launching thread is merged), longest total first. Memory
    /// operation names lose nsys' brackets (`CUDA memcpy HtoD`, as timelines name copies).
    /// `name_id` numbers the distinct names in file order: there is no timeline interner.
    /// `None` for API and NVTX reports, whose rows are host time.
    pub fn kernel_rows(&self, families: &Families) -> Option<Vec<KernelRow>> {
        if !self.report.is_device() {
            return None;
        }
        let mut merged: Vec<KernelRow> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for row in &self.rows {
            let name = row.name.trim().trim_start_matches('[').trim_end_matches(']');
            if let Some(&at) = index.get(name) {
                if let Some(k) = merged.get_mut(at) {
                    k.calls += row.instances;
                    k.total_ns += row.total_ns;
                    k.min_ns = k.min_ns.min(row.min_ns);
                    k.max_ns = k.max_ns.max(row.max_ns);
                }
                continue;
            }
            let kind = op_kind(self.report, name);
            index.insert(name, merged.len());
            merged.push(KernelRow {
                name: name.to_owned(),
                name_id: NameId(u32::try_from(merged.len()).unwrap_or(u32::MAX)),
                kind,
                family: families.classify_op(kind, name, None),
                calls: row.instances,
                total_ns: row.total_ns,
                mean_ns: 0.0,
                min_ns: row.min_ns,
                max_ns: row.max_ns,
                share_pct: 0.0,
            });
        }
        let device_ns = self.total_ns();
        for k in &mut merged {
            k.mean_ns = if k.calls == 0 { 0.0 } else { k.total_ns as f64 / k.calls as f64 };
            k.share_pct = share(k.total_ns, device_ns);
        }
        merged.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
        Some(merged)
    }

    /// A device report as the core's [`KernelSummary`], so the CLI renders it like a
    /// timeline's breakdown. A summary has no per-op times: `span_ns` is 0 and `devices` is
    /// empty. `None` for API and NVTX reports.
    pub fn to_kernel_summary(&self, families: &Families) -> Option<KernelSummary> {
        let kernels = self.kernel_rows(families)?;
        let mut summary = summary_from_totals(self.source.display().to_string(), kernels);
        summary.partial.clone_from(&self.partial);
        Some(summary)
    }
}

/// True when the first line of the file at `path` is the header of a report this module
/// reads: a cheap check for choosing a loader.
pub fn is_stats_csv(path: &Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(file) = std::fs::File::open(path) else { return false };
    let mut first = String::new();
    if std::io::BufReader::new(file.take(64 * 1024)).read_line(&mut first).is_err() {
        return false;
    }
    record::records(&first)
        .ok()
        .and_then(|r| r.into_iter().next())
        .is_some_and(|header| Layout::from_header(&header.fields).is_ok())
}

fn op_kind(report: StatsReport, name: &str) -> OpKind {
    let nccl = name.as_bytes().windows(4).any(|w| w.eq_ignore_ascii_case(b"nccl"));
    match report {
        StatsReport::GpuMemoryTime if name.starts_with("CUDA memcpy") => OpKind::Memcpy,
        StatsReport::GpuMemoryTime if name.starts_with("CUDA memset") => OpKind::Memset,
        StatsReport::GpuMemoryTime => OpKind::Other,
        _ if nccl => OpKind::Communication,
        _ => OpKind::Kernel,
    }
}

fn share(ns: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        ns as f64 * 100.0 / of as f64
    }
}

#[cfg(test)]
mod tests;
