//! The ranked kernel summary of a [`Timeline`]: the body of `prof breakdown`.
//!
//! Per op name: calls, total, mean, min, max and share of device time; totals per
//! [`Family`]; and per device the busy time (the union of its op intervals, so kernels
//! overlapping on several streams count once) against its wall time (first op start to last
//! op end). "Device time", the denominator of every share, is the sum of op durations, as
//! nsys' `Time (%)` counts it. Times are nanoseconds. One pass over the ops, keyed by
//! [`NameId`]; families are looked up once per distinct name, using the name and, if it
//! matches no rule, the framework op type of the first op of that name.

use crate::families::{Families, Family};
use prof_timeline::intern::{FxHashMap, NameId};
use prof_timeline::intervals::SortedUnion;
use prof_timeline::timeline::{DeviceOp, OpKind, Timeline};
use serde::Serialize;

/// One row of the ranked summary: every op of one name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KernelRow {
    /// Op name.
    pub name: String,
    /// Its id in the timeline's interner.
    #[serde(skip)]
    pub name_id: NameId,
    /// Op kind of the first op of that name.
    pub kind: OpKind,
    /// Family.
    pub family: Family,
    /// Number of ops.
    pub calls: u64,
    /// Sum of durations, ns.
    pub total_ns: u64,
    /// Mean duration, ns.
    pub mean_ns: f64,
    /// Shortest op, ns.
    pub min_ns: u64,
    /// Longest op, ns.
    pub max_ns: u64,
    /// Share of device time, percent.
    pub share_pct: f64,
}

/// Totals of one family.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FamilyRow {
    /// Family.
    pub family: Family,
    /// Distinct op names in it.
    pub kernels: usize,
    /// Number of ops.
    pub calls: u64,
    /// Sum of durations, ns.
    pub total_ns: u64,
    /// Share of device time, percent.
    pub share_pct: f64,
}

/// Busy against wall time of one device.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviceTime {
    /// Device index.
    pub device: u32,
    /// Ops on it.
    pub ops: u64,
    /// Sum of op durations, ns (overlapping streams count twice).
    pub op_ns: u64,
    /// Union of op intervals, ns.
    pub busy_ns: u64,
    /// First op start, ns on the source clock.
    pub first_start_ns: u64,
    /// Last op end, ns on the source clock.
    pub last_end_ns: u64,
    /// `last_end_ns - first_start_ns`.
    pub wall_ns: u64,
    /// `busy_ns / wall_ns`, percent (100 for a zero-length wall).
    pub busy_pct: f64,
}

impl DeviceTime {
    /// The row of `device` from its totals: the wall time and busy share follow from them.
    pub fn from_totals(device: u32, ops: u64, op_ns: u64, busy_ns: u64, first_start_ns: u64, last_end_ns: u64) -> Self {
        let wall_ns = last_end_ns.saturating_sub(first_start_ns);
        let busy_pct = if wall_ns == 0 { 100.0 } else { busy_ns as f64 * 100.0 / wall_ns as f64 };
        Self { device, ops, op_ns, busy_ns, first_start_ns, last_end_ns, wall_ns, busy_pct }
    }
}

/// The ranked summary of a timeline (`prof breakdown --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KernelSummary {
    /// Where the timeline came from.
    pub source: String,
    /// Device ops summarised.
    pub ops: u64,
    /// Device time: sum of all op durations, ns.
    pub device_ns: u64,
    /// Host spans and device ops together: last end minus first start, ns (0 when empty).
    pub span_ns: u64,
    /// Rows, longest total first (ties by name).
    pub kernels: Vec<KernelRow>,
    /// Families with at least one op, longest total first.
    pub families: Vec<FamilyRow>,
    /// Per device, by index.
    pub devices: Vec<DeviceTime>,
    /// Set when the timeline was cut short (copied from the timeline).
    pub partial: Option<String>,
    /// The accelerator the source names (copied from the timeline, or set by a totals
    /// reader); reports print it once, at the top level.
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub recorded_on: Option<String>,
}

impl KernelSummary {
    /// The `n` longest rows.
    pub fn top(&self, n: usize) -> &[KernelRow] {
        &self.kernels[..n.min(self.kernels.len())]
    }

    /// Total ns of `family` (0 when absent).
    pub fn family_ns(&self, family: Family) -> u64 {
        self.families.iter().find(|f| f.family == family).map_or(0, |f| f.total_ns)
    }

    /// Calls of `family` (0 when absent).
    pub fn family_calls(&self, family: Family) -> u64 {
        self.families.iter().find(|f| f.family == family).map_or(0, |f| f.calls)
    }

    /// The family of every op name, for per-op look-ups.
    pub fn family_map(&self) -> FxHashMap<NameId, Family> {
        self.kernels.iter().map(|k| (k.name_id, k.family)).collect()
    }

    /// The device with the most busy time (ties: lowest index).
    pub fn busiest_device(&self) -> Option<&DeviceTime> {
        self.devices.iter().max_by(|a, b| a.busy_ns.cmp(&b.busy_ns).then(b.device.cmp(&a.device)))
    }
}

/// Per-name running totals (calls, total, min, max) while ops stream by: one accumulator for
/// the timeline summary and for summaries aggregated straight from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelAcc {
    /// What the ops under this name do.
    pub kind: OpKind,
    /// Their framework op type, where the source has one.
    pub op_type: Option<NameId>,
    /// Ops counted.
    pub calls: u64,
    /// Summed duration, ns.
    pub total: u64,
    /// Shortest duration, ns (`u64::MAX` before the first op).
    pub min: u64,
    /// Longest duration, ns.
    pub max: u64,
}

impl KernelAcc {
    /// An empty accumulator for ops of `kind` and `op_type`.
    pub fn new(kind: OpKind, op_type: Option<NameId>) -> Self {
        Self { kind, op_type, calls: 0, total: 0, min: u64::MAX, max: 0 }
    }

    /// Counts one op of `dur_ns`.
    pub fn add(&mut self, dur_ns: u64) {
        self.calls += 1;
        self.total = self.total.saturating_add(dur_ns);
        self.min = self.min.min(dur_ns);
        self.max = self.max.max(dur_ns);
    }

    /// Adds the totals of `other` (the same name counted elsewhere, e.g. another part of a file).
    pub fn merge(&mut self, other: &KernelAcc) {
        self.calls += other.calls;
        self.total = self.total.saturating_add(other.total);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The ranked-table row of these totals under `name`, its share given by `share`.
    pub fn row(&self, name: &str, name_id: NameId, family: Family, share: &dyn Fn(u64) -> f64) -> KernelRow {
        KernelRow {
            name: name.to_owned(),
            name_id,
            kind: self.kind,
            family,
            calls: self.calls,
            total_ns: self.total,
            mean_ns: self.total as f64 / self.calls as f64,
            min_ns: self.min,
            max_ns: self.max,
            share_pct: share(self.total),
        }
    }
}

/// Running sums of a totals report's rows (calls and ns), checked as each row is read: a file
/// whose counts or times sum past 2^64 cannot be real, and a saturated or wrapped sum would
/// make every share wrong. The readers of per-kernel totals feed every row through it, so the
/// sums [`summary_from_totals`] takes afterwards cannot overflow.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CheckedTotals {
    /// Calls summed so far.
    pub calls: u64,
    /// Time summed so far, ns.
    pub ns: u64,
}

impl CheckedTotals {
    /// Adds one row's `calls` and `ns`; the error says which sum passed 2^64.
    pub fn add(&mut self, calls: u64, ns: u64) -> Result<(), String> {
        let too_big =
            |what: &str| format!("the {what} summed up to this row pass 2^64: the file's numbers cannot be real");
        self.calls = self.calls.checked_add(calls).ok_or_else(|| too_big("call counts"))?;
        self.ns = self.ns.checked_add(ns).ok_or_else(|| too_big("times"))?;
        Ok(())
    }
}

/// Orders kernel rows as every summary lists them: longest total first, ties by name.
pub fn rank_kernels(kernels: &mut [KernelRow]) {
    kernels.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
}

/// A summary from per-kernel totals alone (nsys `stats`, rocprof `*_stats.csv`, Ascend
/// `op_statistic.csv`): shares of the rows' summed time, family totals, kernels ranked by
/// total time. Such reports carry no per-op times, so `span_ns` is 0 and `devices` empty.
pub fn summary_from_totals(source: String, mut kernels: Vec<KernelRow>) -> KernelSummary {
    let device_ns = kernels.iter().fold(0u64, |sum, k| sum.saturating_add(k.total_ns));
    let share = |ns: u64| if device_ns == 0 { 0.0 } else { ns as f64 * 100.0 / device_ns as f64 };
    for k in &mut kernels {
        k.share_pct = share(k.total_ns);
    }
    rank_kernels(&mut kernels);
    let families = family_rows(&kernels, &share);
    KernelSummary {
        source,
        ops: kernels.iter().map(|k| k.calls).sum(),
        device_ns,
        span_ns: 0,
        kernels,
        families,
        devices: Vec::new(),
        partial: None,
        recorded_on: None,
    }
}

/// Family totals of ranked kernel rows (longest first, ties by family), each family's share
/// given by `share` of its total ns: one definition for every summary path.
pub fn family_rows(kernels: &[KernelRow], share: &dyn Fn(u64) -> f64) -> Vec<FamilyRow> {
    let mut rows: FxHashMap<Family, FamilyRow> = FxHashMap::default();
    for k in kernels {
        let row = rows.entry(k.family).or_insert(FamilyRow {
            family: k.family,
            kernels: 0,
            calls: 0,
            total_ns: 0,
            share_pct: 0.0,
        });
        row.kernels += 1;
        row.calls += k.calls;
        row.total_ns = row.total_ns.saturating_add(k.total_ns);
    }
    let mut rows: Vec<FamilyRow> = rows.into_values().collect();
    for row in &mut rows {
        row.share_pct = share(row.total_ns);
    }
    rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.family.cmp(&b.family)));
    rows
}

/// Summarises `timeline` with `families`.
pub fn summarize_kernels(timeline: &Timeline, families: &Families) -> KernelSummary {
    summarize_kernels_of(timeline, &timeline.ops, timeline.span_ns(), families)
}

/// [`summarize_kernels`] of `ops`, some of `timeline`'s ops in its order, whose timeline
/// spans `span` (its ops' and host spans' first start and last end): the summary of a
/// timeline cut to those ops.
pub fn summarize_kernels_of(
    timeline: &Timeline,
    ops: &[DeviceOp],
    span: Option<(u64, u64)>,
    families: &Families,
) -> KernelSummary {
    // Per name, in the order names first come: its totals. A name's place among them is read
    // from a table by name id (ids are dense), not hashed per op (9 ns an op at 10 M ops).
    let mut by_name: Vec<(NameId, KernelAcc)> = Vec::new();
    let mut slot_of: Vec<u32> = vec![u32::MAX; timeline.names.len()];
    // Per device: ops, op time, first start, last end and the busy time merged on the fly
    // while starts come in order (the intervals are gathered only when they do not).
    // Ops of one device come in runs: the device is looked up when it changes.
    let mut on_the_fly: prof_timeline::run_map::RunMap<u32, DeviceAcc> = prof_timeline::run_map::RunMap::new();
    let mut device_ns = 0u64;
    for op in ops {
        let slot = match slot_of.get(op.name().0 as usize) {
            Some(&slot) if slot != u32::MAX => slot as usize,
            _ => first_of_name(timeline, op, &mut by_name, &mut slot_of),
        };
        by_name[slot].1.add(op.dur_ns());
        device_ns = device_ns.saturating_add(op.dur_ns());
        let device = on_the_fly.get(op.device());
        device.0 += 1;
        device.1 = device.1.saturating_add(op.end_ns() - op.start_ns);
        device.2 = device.2.min(op.start_ns);
        device.3 = device.3.max(op.end_ns());
        device.4.add(op.start_ns, op.end_ns());
    }
    let on_the_fly = on_the_fly.into_map();
    let share = |ns: u64| if device_ns == 0 { 0.0 } else { ns as f64 * 100.0 / device_ns as f64 };
    let mut kernels: Vec<KernelRow> = by_name
        .into_iter()
        .map(|(name_id, acc)| {
            let name = timeline.name(name_id);
            let family = families.classify_op(acc.kind, name, acc.op_type.map(|t| timeline.name(t)));
            acc.row(name, name_id, family, &share)
        })
        .collect();
    rank_kernels(&mut kernels);
    let families_out = family_rows(&kernels, &share);
    let mut devices: Vec<DeviceTime> = if on_the_fly.values().all(|d| d.4.total_ns().is_some()) {
        on_the_fly
            .into_iter()
            .map(|(device, DeviceAcc(ops, op_ns, first_start, last_end, union))| {
                DeviceTime::from_totals(device, ops, op_ns, union.total_ns().unwrap_or(0), first_start, last_end)
            })
            .collect()
    } else {
        let mut intervals: FxHashMap<u32, Vec<(u64, u64)>> = FxHashMap::default();
        for op in ops {
            intervals.entry(op.device()).or_default().push((op.start_ns, op.end_ns()));
        }
        intervals.into_iter().map(|(device, spans)| device_time(device, spans)).collect()
    };
    devices.sort_by_key(|d| d.device);
    let span_ns = span.map_or(0, |(lo, hi)| hi - lo);
    KernelSummary {
        source: timeline.source.clone(),
        ops: ops.len() as u64,
        device_ns,
        span_ns,
        kernels,
        families: families_out,
        devices,
        partial: timeline.partial.clone(),
        recorded_on: timeline.recorded_on.clone(),
    }
}

/// The place in `by_name` of the name of `op`, met for the first time (its kind and op type
/// are the first op's): added there and in `slot_of`. A name id past the timeline's names (no
/// loader gives one) is found by a walk of `by_name`.
#[cold]
#[inline(never)]
fn first_of_name(
    timeline: &Timeline,
    op: &DeviceOp,
    by_name: &mut Vec<(NameId, KernelAcc)>,
    slot_of: &mut [u32],
) -> usize {
    let name = op.name();
    if let Some(at) = by_name.iter().position(|(known, _)| *known == name) {
        return at;
    }
    let at = by_name.len();
    by_name.push((name, KernelAcc::new(op.kind(), timeline.details_of(op).and_then(|d| d.op_type))));
    if let Some(slot) = slot_of.get_mut(name.0 as usize) {
        *slot = u32::try_from(at).unwrap_or(u32::MAX);
    }
    at
}

/// A device's ops, op time, first start, last end and busy time merged on the fly.
struct DeviceAcc(u64, u64, u64, u64, SortedUnion);

impl Default for DeviceAcc {
    fn default() -> Self {
        DeviceAcc(0, 0, u64::MAX, 0, SortedUnion::default())
    }
}

fn device_time(device: u32, mut spans: Vec<(u64, u64)>) -> DeviceTime {
    if !spans.windows(2).all(|w| w[0].0 <= w[1].0) {
        spans.sort_unstable();
    }
    let op_ns = spans.iter().fold(0u64, |sum, (s, e)| sum.saturating_add(e - s));
    let mut union = SortedUnion::default();
    let mut last_end = 0u64;
    for &(start, end) in &spans {
        last_end = last_end.max(end);
        union.add(start, end);
    }
    let first_start = spans.first().map_or(0, |s| s.0);
    // Sorted, so the union is known.
    let busy = union.total_ns().unwrap_or(0);
    DeviceTime::from_totals(device, spans.len() as u64, op_ns, busy, first_start, last_end)
}

#[cfg(test)]
mod tests;
