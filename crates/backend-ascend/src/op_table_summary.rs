//! `prof analyze --summary-only` for an op table (`kernel_details.csv`, `op_summary_*.csv`):
//! the ranked kernel summary and per-op-type totals aggregated while the file streams past,
//! without building a [`prof_core::Timeline`]. A 10-million-row export costs one pass over
//! its text and memory for its distinct names only.
//!
//! The numbers are those of [`prof_core::summarize_kernels`] over [`crate::op_table::load`]:
//! per name the first row's op kind and op type pick the family; per device the busy time is
//! the union of the op intervals, merged as they come while the rows are in start order (as
//! the exporters write them); a file out of order is loaded whole instead. Only the leading
//! columns it needs are split ([`CsvReader::split_only`]), and a large file is read in
//! parts on all cores; every sum is an integer, so the parts merge to the same numbers.

use crate::csv_parts;
use crate::csv_table::CsvReader;
use crate::error::AscendError;
use crate::op_table::Layout;
use crate::task_type;
use prof_core::kernel_summary::{family_rows, rank_kernels, KernelAcc};
use prof_core::{DeviceTime, Families, Interner, KernelRow, KernelSummary, NameId};
use prof_timeline::intern::{FxHashMap, NextGuess};
use prof_timeline::intervals::SortedUnion;
use std::path::Path;

/// Tasks and time of one op type (`Type` / `OP Type`; rows without one count as `N/A`).
pub use prof_core::OpTypeTotal;

/// What one streaming pass over an op table yields.
#[derive(Debug, Clone, PartialEq)]
pub struct OpTableSummary {
    /// The ranked kernel summary (the same as over the loaded timeline).
    pub summary: KernelSummary,
    /// Per op type, longest total first (ties by type).
    pub op_types: Vec<OpTypeTotal>,
}

/// Busy time of one device, merged on the fly while its starts come in order.
#[derive(Default)]
struct DeviceAcc {
    ops: u64,
    op_ns: u64,
    first_start: u64,
    last_end: u64,
    /// The union of the op intervals (unknown once a start comes before the open span's).
    union: SortedUnion,
    /// The first merged intervals closed, kept by a later part of a file read in parts (the
    /// part before it may still reach into them), at most [`KEPT_SPANS`].
    closed: Option<Vec<(u64, u64)>>,
    /// Past those: where the first merged interval not kept starts, and the time of all of
    /// them (the part before reaches that far only when one of its ops outlasts thousands of
    /// this part's: then the file is read by one thread).
    rest: Option<(u64, u64)>,
}

/// Merged intervals a later part keeps for the part before it (1 MB a device): enough for any
/// op of that part to end among them, where a part's ops are those of seconds to minutes.
const KEPT_SPANS: usize = 1 << 16;

impl DeviceAcc {
    fn new(keep_closed: bool) -> Self {
        Self { closed: keep_closed.then(Vec::new), ..Self::default() }
    }

    fn add(&mut self, start: u64, end: u64) {
        if self.ops == 0 {
            self.first_start = start;
        }
        self.ops += 1;
        self.op_ns = self.op_ns.saturating_add(end - start);
        self.last_end = self.last_end.max(end);
        self.merge(start, end);
    }

    fn merge(&mut self, start: u64, end: u64) {
        if let (Some(span), Some(closed)) = (self.union.add_closing(start, end), &mut self.closed) {
            if closed.len() < KEPT_SPANS {
                closed.push(span);
            } else {
                let rest = self.rest.get_or_insert((span.0, 0));
                rest.1 += span.1 - span.0;
            }
        }
    }

    /// Whether the busy time is unknown (rows out of start order).
    fn out_of_order(&self) -> bool {
        self.union.total_ns().is_none()
    }

    /// Adds the ops of the same device from the part of the file right after this one; `None`
    /// when an op of this part reaches past the intervals the later part kept.
    fn absorb(&mut self, later: DeviceAcc) -> Option<()> {
        if later.ops == 0 {
            return Some(());
        }
        if self.ops == 0 {
            *self = later;
            return Some(());
        }
        self.ops += later.ops;
        self.op_ns = self.op_ns.saturating_add(later.op_ns);
        self.last_end = self.last_end.max(later.last_end);
        if later.out_of_order() {
            self.union.mark_out_of_order();
        }
        for (lo, hi) in later.closed.unwrap_or_default() {
            self.merge(lo, hi);
        }
        if let Some((from, ns)) = later.rest {
            self.union.add_merged_from(from, ns).then_some(())?;
        }
        if let Some((lo, hi)) = later.union.open_span() {
            self.merge(lo, hi);
        }
        Some(())
    }

    fn finish(self, device: u32) -> DeviceTime {
        let busy = self.union.total_ns().unwrap_or(0);
        DeviceTime::from_totals(device, self.ops, self.op_ns, busy, self.first_start, self.last_end)
    }
}

/// The totals of the rows of one part of the file (or all of it).
#[derive(Default)]
struct Partial {
    names: Interner,
    by_name: Vec<KernelAcc>,
    /// Op types, by id: rows and summed duration.
    types: Interner,
    by_type: Vec<(u64, u64)>,
    /// Per device id, in order of first sight.
    devices: Vec<(u32, DeviceAcc)>,
    /// Where each device id is in `devices`.
    device_index: FxHashMap<u32, usize>,
    ops: u64,
    device_ns: u64,
    span: Option<(u64, u64)>,
    /// The note of a last row cut short (left out).
    cut: Option<String>,
}

impl Partial {
    /// Adds the totals of the part of the file right after this one; `None` when the summed
    /// device time would pass 2^64 ns (so that the file is read again by one thread and the
    /// error names the row) or a device's busy time cannot be joined (an op reaching past the
    /// intervals the later part kept): the totals are then dropped and the file read again.
    fn absorb(&mut self, later: Partial) -> Option<()> {
        self.device_ns = self.device_ns.checked_add(later.device_ns)?;
        self.cut = later.cut;
        let type_ids: Vec<NameId> =
            (0..later.types.len()).map(|i| self.types.intern(later.types.resolve(NameId(i as u32)))).collect();
        for (id, acc) in later.by_name.into_iter().enumerate() {
            let name_id = self.names.intern(later.names.resolve(NameId(id as u32)));
            match self.by_name.get_mut(name_id.0 as usize) {
                Some(mine) => mine.merge(&acc),
                None => self.by_name.push(KernelAcc { op_type: acc.op_type.map(|t| type_ids[t.0 as usize]), ..acc }),
            }
        }
        self.by_type.resize(self.types.len().max(self.by_type.len()), (0, 0));
        for (id, (calls, total)) in later.by_type.into_iter().enumerate() {
            let slot = &mut self.by_type[type_ids[id].0 as usize];
            slot.0 += calls;
            slot.1 += total;
        }
        for (device, acc) in later.devices {
            match self.device_index.get(&device) {
                Some(&at) => self.devices[at].1.absorb(acc)?,
                None => {
                    self.device_index.insert(device, self.devices.len());
                    self.devices.push((device, acc));
                }
            }
        }
        self.ops += later.ops;
        self.span = match (self.span, later.span) {
            (Some((lo, hi)), Some((l, h))) => Some((lo.min(l), hi.max(h))),
            (a, b) => a.or(b),
        };
        Some(())
    }
}

/// Streams the op table at `path` into its kernel summary and per-op-type totals. A large
/// file is read in parts, one thread each ([`crate::csv_parts`]); when a part cannot be read
/// (a split inside a quoted field, a bad row) the file is read again by one thread, so an
/// error names the right line.
pub fn summarize(path: &Path, families: &Families) -> Result<OpTableSummary, AscendError> {
    let reader = CsvReader::open(path)?;
    let layout = Layout::of(reader.header())?;
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    // One part per core: a part's totals are small, and joining them copies nothing large.
    let parts = csv_parts::parts_for(size).min(prof_timeline::text_parts::workers());
    let partial = if parts > 1 {
        match in_parts(reader, &layout, size, parts) {
            Some(partial) => partial,
            None => scan(CsvReader::open(path)?, &layout, false)?,
        }
    } else {
        scan(reader, &layout, false)?
    };
    finish(partial, path, families)
}

/// Reads the file in `parts` parts at once; `None` when a part failed.
fn in_parts(first: CsvReader, layout: &Layout, size: u64, parts: usize) -> Option<Partial> {
    let scan_part = |part, later| scan(part, layout, later).ok();
    let read = csv_parts::in_parts(first, size, parts, scan_part, Vec::new(), |all, part| all.push(part))?;
    let mut read = read.into_iter();
    let first = read.next()?;
    read.try_fold(first, |mut total, part| total.absorb(part).map(|()| total))
}

/// Aggregates every row `reader` gives.
fn scan(mut reader: CsvReader, layout: &Layout, later_part: bool) -> Result<Partial, AscendError> {
    let columns =
        [Some(layout.name), Some(layout.start), Some(layout.duration), layout.op_type, layout.core, layout.device];
    reader.split_only(columns.into_iter().flatten());
    let mut p = Partial::default();
    // Per name id, the type id of its last row.
    let mut row_types: Vec<NameId> = Vec::new();
    let mut last_device = 0;
    let mut next_name = NextGuess::default();
    while let Some(row) = reader.next_row()? {
        // Runtime bookkeeping tasks are no device work: left out as the timeline leaves them.
        if crate::task_type::is_runtime_task(row.get(layout.core).unwrap_or("")) {
            continue;
        }
        let name = crate::op_table::task_name(&row, layout)?;
        let start = row.micros_ns(Some(layout.start))?.ok_or_else(|| row.error(layout.start, "is empty or N/A"))?;
        let dur = row.micros_ns(Some(layout.duration))?.ok_or_else(|| row.error(layout.duration, "is empty or N/A"))?;
        let device = match row.integer(layout.device)? {
            Some(d) => u32::try_from(d).map_err(|_| row.error(layout.device.unwrap_or(0), "is out of range"))?,
            None => 0,
        };
        let op_type = row.get(layout.op_type);
        let end = start
            .checked_add(dur)
            .ok_or_else(|| row.error(layout.duration, "takes the op's end past 2^64 ns: the times cannot be real"))?;
        let name_id = next_name.intern(&mut p.names, name);
        if name_id.0 as usize == p.by_name.len() {
            let kind = task_type::op_kind(row.get(layout.core).unwrap_or(""), name);
            let first_type = op_type.map(|t| p.types.intern(t));
            p.by_name.push(KernelAcc::new(kind, first_type));
            row_types.push(first_type.unwrap_or_else(|| p.types.intern("N/A")));
        }
        let op_type = op_type.unwrap_or("N/A");
        p.by_name[name_id.0 as usize].add(dur);
        // The rows of a name nearly always share one type: compare with the last one's before hashing.
        let cached = &mut row_types[name_id.0 as usize];
        if !p.types.is(*cached, op_type) {
            *cached = p.types.intern(op_type);
        }
        let type_id = cached.0 as usize;
        if type_id >= p.by_type.len() {
            p.by_type.resize(type_id + 1, (0, 0));
        }
        p.by_type[type_id].0 += 1;
        p.by_type[type_id].1 = p.by_type[type_id].1.saturating_add(dur);
        p.ops += 1;
        p.device_ns = p.device_ns.checked_add(dur).ok_or_else(|| {
            row.error(layout.duration, "takes the summed device time past 2^64 ns: the times cannot be real")
        })?;
        p.span = Some(p.span.map_or((start, end), |(lo, hi)| (lo.min(start), hi.max(end))));
        // Rows of one device come in runs: look the device up only when it changes.
        if p.devices.get(last_device).is_none_or(|(id, _)| *id != device) {
            last_device = *p.device_index.entry(device).or_insert_with(|| {
                p.devices.push((device, DeviceAcc::new(later_part)));
                p.devices.len() - 1
            });
        }
        p.devices[last_device].1.add(start, end);
    }
    p.cut = reader.cut_note();
    if later_part && p.cut.is_some() {
        // Its line counts from the part's start: the whole file is read again by one thread.
        return Err(AscendError::file(reader.header().path(), 0, "cut short inside a later part"));
    }
    Ok(p)
}

fn finish(p: Partial, path: &Path, families: &Families) -> Result<OpTableSummary, AscendError> {
    let device_ns = p.device_ns;
    let share = |ns: u64| if device_ns == 0 { 0.0 } else { ns as f64 * 100.0 / device_ns as f64 };
    let kernels = kernel_rows(&p.names, &p.types, p.by_name, families, &share);
    let mut op_types: Vec<OpTypeTotal> = p
        .by_type
        .iter()
        .enumerate()
        .filter(|(_, (calls, _))| *calls > 0)
        .map(|(id, &(calls, total_ns))| OpTypeTotal {
            op_type: p.types.resolve(NameId(id as u32)).to_owned(),
            calls,
            total_ns,
            share_pct: share(total_ns),
        })
        .collect();
    op_types.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.op_type.cmp(&b.op_type)));
    if p.devices.iter().any(|(_, d)| d.out_of_order()) {
        // Rows out of start order (not what the exporters write): the busy time needs every
        // interval, so take the summary of the loaded timeline.
        let timeline = crate::op_table::load(path)?;
        return Ok(OpTableSummary { summary: prof_core::summarize_kernels(&timeline, families), op_types });
    }
    let mut devices: Vec<DeviceTime> = p.devices.into_iter().map(|(device, acc)| acc.finish(device)).collect();
    devices.sort_by_key(|d| d.device);
    let families_out = family_rows(&kernels, &share);
    let summary = KernelSummary {
        source: path.display().to_string(),
        ops: p.ops,
        device_ns,
        span_ns: p.span.map_or(0, |(lo, hi)| hi - lo),
        kernels,
        families: families_out,
        devices,
        partial: p.cut,
        recorded_on: None,
    };
    Ok(OpTableSummary { summary, op_types })
}

fn kernel_rows(
    names: &Interner,
    types: &Interner,
    by_name: Vec<KernelAcc>,
    families: &Families,
    share: &dyn Fn(u64) -> f64,
) -> Vec<KernelRow> {
    let mut kernels: Vec<KernelRow> = by_name
        .into_iter()
        .enumerate()
        .map(|(id, acc)| {
            let name_id = NameId(id as u32);
            let name = names.resolve(name_id);
            let family = families.classify_op(acc.kind, name, acc.op_type.map(|t| types.resolve(t)));
            acc.row(name, name_id, family, share)
        })
        .collect();
    rank_kernels(&mut kernels);
    kernels
}

#[cfg(test)]
mod tests;
