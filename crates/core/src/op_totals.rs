//! A kernel summary gathered part by part: each part of an artifact (a run of an nsys table's
//! pages, say) is loaded as its own small [`Timeline`], folded into totals and dropped, and
//! the totals of the parts are joined in file order. What is kept is per name its sums and per
//! device the merged busy intervals (16 bytes each, and fewer where ops touch or overlap), not
//! the ops: for `prof analyze --summary-only` of a table too large to hold as a timeline.
//!
//! [`OpTotals::finish`] gives exactly what [`summarize_kernels`](crate::summarize_kernels)
//! gives over the timeline of all the parts joined in the same order: the same names in the
//! same first-seen order, each name's kind and op type from its first op, the same busy time
//! (unions of intervals do not depend on the order they come in).

use crate::families::Families;
use crate::kernel_summary::{family_rows, rank_kernels, DeviceTime, KernelAcc, KernelRow, KernelSummary};
use prof_timeline::intern::{Interner, NameId};
use prof_timeline::intervals::IntervalSet;
use prof_timeline::timeline::Timeline;

/// The totals of one device.
#[derive(Debug, Clone)]
struct DeviceTotals {
    device: u32,
    ops: u64,
    op_ns: u64,
    first_start: u64,
    last_end: u64,
    /// The union of its op intervals.
    busy: IntervalSet,
}

impl DeviceTotals {
    fn absorb(&mut self, later: DeviceTotals) {
        self.ops += later.ops;
        self.op_ns = self.op_ns.saturating_add(later.op_ns);
        self.first_start = self.first_start.min(later.first_start);
        self.last_end = self.last_end.max(later.last_end);
        self.busy = std::mem::take(&mut self.busy).joined(later.busy);
    }
}

/// Kernel-summary totals of the parts folded so far (see the module's documentation).
#[derive(Debug, Clone, Default)]
pub struct OpTotals {
    /// Op names and op types, in first-seen order.
    names: Interner,
    /// Per name id: its sums (their op types are ids in `names`).
    by_name: Vec<Option<KernelAcc>>,
    /// Per device, in order of first sight.
    devices: Vec<DeviceTotals>,
    ops: u64,
    device_ns: u64,
    /// The partial notes of the parts (a cut row, a spent budget).
    partial: Option<String>,
}

impl OpTotals {
    /// The totals of `part`'s device ops (in its order; its host spans are not counted).
    pub fn of_timeline(part: &Timeline) -> Self {
        let mut totals = OpTotals::default();
        // Per name id of `part`: its id here.
        let mut ids: Vec<Option<NameId>> = vec![None; part.names.len()];
        let mut spans: Vec<(u32, Vec<(u64, u64)>)> = Vec::new();
        for op in &part.ops {
            let slot = op.name().0 as usize;
            let id = match ids.get(slot).copied().flatten() {
                Some(id) => id,
                None => {
                    let id = totals.names.intern(part.name(op.name()));
                    let op_type =
                        part.details_of(op).and_then(|d| d.op_type).map(|t| totals.names.intern(part.name(t)));
                    totals.set_first(id, KernelAcc::new(op.kind(), op_type));
                    if let Some(entry) = ids.get_mut(slot) {
                        *entry = Some(id);
                    }
                    id
                }
            };
            let (start, end, dur) = (op.start_ns, op.end_ns(), op.dur_ns());
            if let Some(Some(acc)) = totals.by_name.get_mut(id.0 as usize) {
                acc.add(dur);
            }
            totals.ops += 1;
            totals.device_ns = totals.device_ns.saturating_add(dur);
            let device = op.device();
            let at = match spans.iter().position(|(d, _)| *d == device) {
                Some(at) => at,
                None => {
                    spans.push((device, Vec::new()));
                    totals.devices.push(DeviceTotals {
                        device,
                        ops: 0,
                        op_ns: 0,
                        first_start: u64::MAX,
                        last_end: 0,
                        busy: IntervalSet::default(),
                    });
                    spans.len() - 1
                }
            };
            spans[at].1.push((start, end));
            let d = &mut totals.devices[at];
            d.ops += 1;
            d.op_ns = d.op_ns.saturating_add(end - start);
            d.first_start = d.first_start.min(start);
            d.last_end = d.last_end.max(end);
        }
        for ((_, spans), device) in spans.into_iter().zip(&mut totals.devices) {
            device.busy = IntervalSet::from_unsorted(spans);
        }
        totals.partial = part.partial.clone();
        totals
    }

    fn set_first(&mut self, id: NameId, acc: KernelAcc) {
        let slot = id.0 as usize;
        if slot >= self.by_name.len() {
            self.by_name.resize(slot + 1, None);
        }
        self.by_name[slot].get_or_insert(acc);
    }

    /// Adds the totals of the part right after the ones folded so far.
    pub fn absorb(&mut self, later: OpTotals) {
        // Per name id of `later`: its id here (op types included).
        let ids: Vec<NameId> =
            (0..later.names.len()).map(|i| self.names.intern(later.names.resolve(NameId(i as u32)))).collect();
        for (slot, acc) in later.by_name.into_iter().enumerate() {
            let Some(acc) = acc else { continue };
            let id = ids[slot];
            match self.by_name.get_mut(id.0 as usize).and_then(Option::as_mut) {
                Some(mine) => mine.merge(&acc),
                None => self.set_first(id, KernelAcc { op_type: acc.op_type.map(|t| ids[t.0 as usize]), ..acc }),
            }
        }
        for device in later.devices {
            match self.devices.iter_mut().find(|d| d.device == device.device) {
                Some(mine) => mine.absorb(device),
                None => self.devices.push(device),
            }
        }
        self.ops += later.ops;
        self.device_ns = self.device_ns.saturating_add(later.device_ns);
        self.partial = match (self.partial.take(), later.partial) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        };
    }

    /// Adds a note on what was left out, after the notes so far (as [`Timeline::note_partial`]).
    pub fn note(&mut self, reason: String) {
        self.partial = Some(match self.partial.take() {
            Some(earlier) => format!("{earlier}; {reason}"),
            None => reason,
        });
    }

    /// The notes alone, the ops dropped (a file of another run left out, its notes kept).
    pub fn notes_only(self) -> Self {
        Self { partial: self.partial, ..Self::default() }
    }

    /// The first start and last end of the ops folded so far, if any.
    pub fn span(&self) -> Option<(u64, u64)> {
        self.devices.iter().filter(|d| d.ops > 0).fold(None, |span, d| {
            Some(span.map_or((d.first_start, d.last_end), |(lo, hi)| (lo.min(d.first_start), hi.max(d.last_end))))
        })
    }

    /// The ranked kernel summary of `source` (its `span_ns` is [`OpTotals::span`]'s: a caller
    /// whose host calls reach further widens it).
    pub fn finish(self, source: &str, families: &Families) -> KernelSummary {
        let device_ns = self.device_ns;
        let share = |ns: u64| if device_ns == 0 { 0.0 } else { ns as f64 * 100.0 / device_ns as f64 };
        let mut kernels: Vec<KernelRow> = self
            .by_name
            .iter()
            .enumerate()
            .filter_map(|(slot, acc)| Some((NameId(slot as u32), acc.as_ref()?)))
            .map(|(id, acc)| {
                let name = self.names.resolve(id);
                let family = families.classify_op(acc.kind, name, acc.op_type.map(|t| self.names.resolve(t)));
                acc.row(name, id, family, &share)
            })
            .collect();
        rank_kernels(&mut kernels);
        let families_out = family_rows(&kernels, &share);
        let span = self.span();
        let mut devices: Vec<DeviceTime> = self
            .devices
            .into_iter()
            .map(|d| DeviceTime::from_totals(d.device, d.ops, d.op_ns, d.busy.total_ns(), d.first_start, d.last_end))
            .collect();
        devices.sort_by_key(|d| d.device);
        KernelSummary {
            source: source.to_owned(),
            ops: self.ops,
            device_ns,
            span_ns: span.map_or(0, |(lo, hi)| hi - lo),
            kernels,
            families: families_out,
            devices,
            partial: self.partial,
            recorded_on: None,
        }
    }
}

#[cfg(test)]
mod tests;
