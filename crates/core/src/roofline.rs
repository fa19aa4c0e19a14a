//! How close to the hardware each op runs, from the trace alone: where the source recorded
//! the framework calls' inputs (PyTorch `record_shapes=True`), each call's FLOPs and bytes
//! ([`model`]) over the device time of the kernels it launched give its achieved FLOP/s and
//! bytes/s, and against the accelerator's published peaks ([`peaks`]) its roofline bound: the
//! time the work needs at the compute peak of its element type or at the DRAM bandwidth,
//! whichever is longer. Efficiency is bound ÷ time; time lost is time − bound.
//!
//! Each call's work is shared among the kernels it launched, so sums over kernels count each
//! call once (its layout transposes and other helper kernels are charged to it). A device the
//! peak table does not know gets achieved rates and no efficiency.

mod model;
mod op_names;
mod peaks;
#[cfg(test)]
mod tests;

pub use model::{work_of, OpClass, Work};
pub use peaks::{known, peaks_of, Peaks};

use crate::{DType, OpKind, Timeline};
use serde::Serialize;
use std::collections::HashMap;

/// Calls with a model needed for a verdict…
pub const ENOUGH_CALLS: u64 = 10;
/// …and kernel time they must cover, ns (0.1 ms)…
pub const ENOUGH_NS: u64 = 100_000;
/// …unless they cover this much, ns (1 ms: a few long calls are timed well enough).
pub const ENOUGH_LONG_NS: u64 = 1_000_000;
/// Ops (by op, shape and type) kept, worst first; a text report shows the first 8.
pub const WORST: usize = 32;

/// Per class, or per op shape: work, time and how close to the bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Row {
    /// The class.
    pub class: OpClass,
    /// The op (`aten::addmm`); empty on a class row.
    pub op: String,
    /// Its shape in words; empty on a class row.
    pub shape: String,
    /// Element type the FLOPs run at.
    pub dtype: Option<DType>,
    /// Calls.
    pub calls: u64,
    /// Device time of their kernels, ns.
    pub time_ns: u64,
    /// FLOPs done.
    pub flops: f64,
    /// Bytes moved (at least).
    pub bytes: f64,
    /// Achieved TFLOP/s (0 for memory-bound classes).
    pub tflops: f64,
    /// Achieved TB/s.
    pub tbps: f64,
    /// Roofline time of the work on this device, ns (absent without peaks).
    pub bound_ns: Option<u64>,
    /// True when compute (not bandwidth) sets the bound.
    pub compute_bound: Option<bool>,
    /// bound ÷ time, percent.
    pub efficiency_pct: Option<f64>,
    /// time − bound, ns.
    pub lost_ns: Option<u64>,
    /// The kernel with the most time among the op's (a row of ops only).
    pub kernel: String,
}

/// The roofline of one window.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Roofline {
    /// The accelerator the trace names.
    pub device: Option<String>,
    /// Its peaks, where the table knows it.
    pub peaks: Option<Peaks>,
    /// Kernel time of the window, ns.
    pub kernel_ns: u64,
    /// Kernel time of calls a model covers, ns.
    pub covered_ns: u64,
    /// Calls a model covers.
    pub calls: u64,
    /// Roofline time of the covered work, ns (absent without peaks).
    pub bound_ns: Option<u64>,
    /// Covered time above the bound, ns.
    pub lost_ns: Option<u64>,
    /// bound ÷ covered time, percent.
    pub efficiency_pct: Option<f64>,
    /// Per class, most time first.
    pub classes: Vec<Row>,
    /// The ops (by op, shape and type) with the most time lost against their bound (most
    /// time, without peaks), at most [`WORST`].
    pub worst: Vec<Row>,
    /// Per kernel name, the time lost against the bound of the calls that launched it, most
    /// first (at most [`WORST`]): (kernel, time ns, lost ns).
    pub kernels: Vec<(String, u64, u64)>,
    /// Ops with recorded shapes that no model covers (or whose inputs do not fit it: a
    /// convolution without its stride and padding), by their kernels' time, most first (at most
    /// [`WORST`]).
    pub uncovered: Vec<(String, u64)>,
    /// True when it rests on at least [`ENOUGH_CALLS`] calls and [`ENOUGH_NS`] of kernel time,
    /// or on [`ENOUGH_LONG_NS`].
    pub enough: bool,
}

impl Roofline {
    /// The fraction of its bound a kernel's calls reach (bound ÷ time of its rows), percent.
    pub fn kernel_efficiency(&self, kernel: &str) -> Option<f64> {
        let &(_, time, lost) = self.kernels.iter().find(|(k, ..)| k == kernel)?;
        (time > 0).then(|| time.saturating_sub(lost) as f64 * 100.0 / time as f64)
    }
}

#[derive(Default)]
struct Acc {
    calls: f64,
    time_ns: u64,
    flops: f64,
    bytes: f64,
    tf32: bool,
    kernels: HashMap<crate::NameId, u64>,
}

/// The roofline of `timeline`'s kernels; `None` when no kernel carries a call a model covers.
pub fn roofline(timeline: &Timeline) -> Option<Roofline> {
    if !timeline.details_pool().any(|d| d.inputs.is_some()) {
        return None;
    }
    let mut works: HashMap<usize, Option<(Work, u32)>> = HashMap::new();
    let mut groups: HashMap<(OpClass, String, String, Option<DType>), Acc> = HashMap::new();
    let mut uncovered: HashMap<&str, u64> = HashMap::new();
    let mut kernel_ns = 0u64;
    for op in timeline.ops.iter().filter(|op| op.kind() == OpKind::Kernel) {
        kernel_ns += op.dur_ns();
        let Some(id) = op.details() else { continue };
        let Some(inputs) = timeline.details_of(op).and_then(|d| d.inputs.as_deref()) else { continue };
        let work = works.entry(id.index()).or_insert_with(|| Some((work_of(inputs)?, inputs.kernels.max(1))));
        let Some((work, kernels)) = work else {
            *uncovered.entry(inputs.op.as_str()).or_default() += op.dur_ns();
            continue;
        };
        let inputs_op = inputs.op.as_str();
        let acc = groups.entry((work.class, inputs_op.to_owned(), work.shape.clone(), work.dtype)).or_default();
        let share = 1.0 / f64::from(*kernels);
        acc.calls += share;
        acc.time_ns += op.dur_ns();
        acc.flops += work.flops * share;
        acc.bytes += work.bytes * share;
        let name = timeline.name(op.name());
        acc.tf32 |= name.to_ascii_lowercase().contains("tf32");
        *acc.kernels.entry(op.name()).or_default() += op.dur_ns();
    }
    if groups.is_empty() {
        return None;
    }
    let device = timeline.recorded_on.clone();
    let peaks = device.as_deref().and_then(peaks_of);
    let mut rows: Vec<(Row, HashMap<crate::NameId, u64>)> = groups
        .into_iter()
        .map(|((class, op, shape, dtype), acc)| {
            let kernel = acc.kernels.iter().max_by_key(|(_, &t)| t).map(|(&n, _)| timeline.name(n).to_owned());
            let row = rate_row(class, op, shape, dtype, &acc, peaks.as_ref(), kernel.unwrap_or_default());
            (row, acc.kernels)
        })
        .collect();
    rows.sort_by(|a, b| b.0.lost_ns.cmp(&a.0.lost_ns).then(b.0.time_ns.cmp(&a.0.time_ns)).then(a.0.op.cmp(&b.0.op)));
    let covered_ns: u64 = rows.iter().map(|(r, _)| r.time_ns).sum();
    let calls = rows.iter().map(|(r, _)| r.calls).sum();
    let bound_ns = peaks.map(|_| rows.iter().filter_map(|(r, _)| r.bound_ns).sum::<u64>());
    let rated_ns: u64 = rows.iter().filter(|(r, _)| r.bound_ns.is_some()).map(|(r, _)| r.time_ns).sum();
    let lost_ns = bound_ns.map(|b| rated_ns.saturating_sub(b));
    let efficiency_pct = bound_ns.filter(|_| rated_ns > 0).map(|b| b as f64 * 100.0 / rated_ns as f64);
    let classes = class_rows(&rows);
    let kernels = kernel_losses(timeline, &rows);
    let worst = rows.into_iter().take(WORST).map(|(r, _)| r).collect();
    let mut uncovered: Vec<(String, u64)> = uncovered.into_iter().map(|(op, t)| (op.to_owned(), t)).collect();
    uncovered.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    uncovered.truncate(WORST);
    Some(Roofline {
        device,
        peaks,
        kernel_ns,
        covered_ns,
        calls,
        bound_ns,
        lost_ns,
        efficiency_pct,
        classes,
        worst,
        kernels,
        uncovered,
        enough: covered_ns >= ENOUGH_NS && (calls >= ENOUGH_CALLS || covered_ns >= ENOUGH_LONG_NS),
    })
}

/// A row's rates and bound from its sums.
fn rate_row(
    class: OpClass,
    op: String,
    shape: String,
    dtype: Option<DType>,
    acc: &Acc,
    peaks: Option<&Peaks>,
    kernel: String,
) -> Row {
    let secs = acc.time_ns as f64 / 1e9;
    let tflops = if secs > 0.0 { acc.flops / secs / 1e12 } else { 0.0 };
    let tbps = if secs > 0.0 { acc.bytes / secs / 1e12 } else { 0.0 };
    let bound = peaks.and_then(|p| {
        let memory = acc.bytes / p.bytes_per_s();
        if !class.matrix() {
            return Some((memory, false));
        }
        let dtype = dtype?;
        // An fp32 matrix op faster than the FP32 pipe ran on the tensor pipe (TF32).
        let tf32 = dtype == DType::F32 && (acc.tf32 || tflops * 1e12 > p.fp32 * 1e12 * 1.05);
        let compute = acc.flops / p.matrix_flops(dtype, tf32)?;
        Some((compute.max(memory), compute >= memory))
    });
    let bound_ns = bound.map(|(s, _)| (s * 1e9).round() as u64);
    Row {
        class,
        op,
        shape,
        dtype,
        calls: acc.calls.round() as u64,
        time_ns: acc.time_ns,
        flops: acc.flops,
        bytes: acc.bytes,
        tflops,
        tbps,
        bound_ns,
        compute_bound: bound.map(|(_, c)| c),
        efficiency_pct: bound_ns.filter(|_| acc.time_ns > 0).map(|b| b as f64 * 100.0 / acc.time_ns as f64),
        lost_ns: bound_ns.map(|b| acc.time_ns.saturating_sub(b)),
        kernel,
    }
}

/// The classes' sums, most time first.
fn class_rows(rows: &[(Row, HashMap<crate::NameId, u64>)]) -> Vec<Row> {
    let mut by: HashMap<OpClass, Row> = HashMap::new();
    for (r, _) in rows {
        let c = by.entry(r.class).or_insert_with(|| Row {
            class: r.class,
            op: String::new(),
            shape: String::new(),
            dtype: None,
            calls: 0,
            time_ns: 0,
            flops: 0.0,
            bytes: 0.0,
            tflops: 0.0,
            tbps: 0.0,
            bound_ns: None,
            compute_bound: None,
            efficiency_pct: None,
            lost_ns: None,
            kernel: String::new(),
        });
        c.calls += r.calls;
        c.time_ns += r.time_ns;
        c.flops += r.flops;
        c.bytes += r.bytes;
        if let Some(b) = r.bound_ns {
            c.bound_ns = Some(c.bound_ns.unwrap_or(0) + b);
            c.lost_ns = Some(c.lost_ns.unwrap_or(0) + r.lost_ns.unwrap_or(0));
        }
    }
    let mut out: Vec<Row> = by.into_values().collect();
    for c in &mut out {
        let secs = c.time_ns as f64 / 1e9;
        if secs > 0.0 {
            c.tflops = c.flops / secs / 1e12;
            c.tbps = c.bytes / secs / 1e12;
        }
        let rated = c.bound_ns.map(|b| b + c.lost_ns.unwrap_or(0));
        c.efficiency_pct = c.bound_ns.zip(rated).filter(|(_, r)| *r > 0).map(|(b, r)| b as f64 * 100.0 / r as f64);
    }
    out.sort_by(|a, b| b.time_ns.cmp(&a.time_ns).then(a.class.cmp(&b.class)));
    out
}

/// Time lost per kernel name: each op row's loss shared among its kernels by their time.
fn kernel_losses(timeline: &Timeline, rows: &[(Row, HashMap<crate::NameId, u64>)]) -> Vec<(String, u64, u64)> {
    let mut by: HashMap<crate::NameId, (u64, f64)> = HashMap::new();
    for (row, kernels) in rows {
        let Some(lost) = row.lost_ns else { continue };
        for (&name, &t) in kernels {
            let e = by.entry(name).or_default();
            e.0 += t;
            e.1 += lost as f64 * t as f64 / row.time_ns.max(1) as f64;
        }
    }
    let mut out: Vec<(String, u64, u64)> =
        by.into_iter().map(|(n, (t, l))| (timeline.name(n).to_owned(), t, l.round() as u64)).collect();
    out.sort_by(|a, b| b.2.cmp(&a.2).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
    out.truncate(WORST);
    out
}
