//! The vendor-neutral timeline: every backend loads its artifact into one [`Timeline`],
//! and every analysis is written once against it.

pub use crate::correlation::Correlation;
use crate::details_pool::{DetailsId, DetailsPool};
pub use crate::device_op::DeviceOp;
pub use crate::host_span::{HostCategory, HostSpan};
use crate::intern::{Interner, NameId};
use crate::load_budget::{LoadBudget, DETAILS_BYTES, HOST_BYTES, OP_BYTES};
pub use crate::op_kind::{CoreType, OpDetails, OpKind};
use serde::Serialize;

/// A sampled value over time (clock frequency, utilization, power).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CounterSeries {
    /// Counter name as the source calls it.
    pub name: NameId,
    /// Device it belongs to, if any.
    pub device: Option<u32>,
    /// Unit, if the source gives one.
    pub unit: Option<NameId>,
    /// (time ns, value) pairs in time order.
    pub points: Vec<(u64, f64)>,
}

/// Everything one artifact says about device and host activity.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Where it came from (path or tool name), for reports.
    pub source: String,
    /// All strings the timeline refers to.
    pub names: Interner,
    /// Device operations: in the order the source listed them while loading, in start order
    /// once [`Timeline::finish_loading`] (which `prof_core::Registry::load` calls) has run.
    pub ops: Vec<DeviceOp>,
    /// Host spans.
    pub host: Vec<HostSpan>,
    /// Counter series.
    pub counters: Vec<CounterSeries>,
    /// Set when the artifact was cut short and the timeline holds only what was read; says why.
    pub partial: Option<String>,
    /// What the reader found in the same pass beyond the ops (a vendor's checks over columns
    /// the timeline does not keep), reported beside the analyses; over the whole artifact,
    /// also after [`Timeline::window`].
    pub sections: Vec<crate::section::Section>,
    /// The accelerator the source says it was recorded on (`AMD Instinct MI300X`, `MTIA
    /// ARTEMIS`), read from the source itself (a trace's device properties), never assumed
    /// from the reader's backend.
    pub recorded_on: Option<String>,
    /// Events the reader saw but does not read, by kind (a trace category), with their counts,
    /// largest first: what the report cannot show.
    pub unread: Vec<(String, u64)>,
    /// Bytes held against the memory budget, and the checked device time.
    pub(crate) load: LoadBudget,
    /// The distinct details of the ops pushed, each kept once.
    pub(crate) details: DetailsPool,
}

impl Timeline {
    /// An empty timeline from `source`.
    pub fn new(source: impl Into<String>) -> Self {
        Self { source: source.into(), ..Self::default() }
    }

    /// Interns a name in this timeline.
    pub fn intern(&mut self, name: &str) -> NameId {
        self.names.intern(name)
    }

    /// [`Interner::intern_guess`] in this timeline.
    #[inline]
    pub fn intern_guess(&mut self, name: &str, guess: &mut Option<NameId>) -> NameId {
        self.names.intern_guess(name, guess)
    }

    /// The string behind an id of this timeline.
    pub fn name(&self, id: NameId) -> &str {
        self.names.resolve(id)
    }

    /// A timeline from `source` that holds at most `bytes` (instead of the process's budget).
    pub fn with_memory_budget(source: impl Into<String>, bytes: u64) -> Self {
        let mut timeline = Self::new(source);
        timeline.load.limit = Some(bytes);
        timeline
    }

    /// Appends a device op, unless the memory budget is spent: then the timeline is marked
    /// partial and takes no more (see [`Timeline::is_full`]). Its `details` must be none or
    /// an id of this timeline (an op with new details is pushed by [`Timeline::push_op_with`]).
    pub fn push_op(&mut self, op: DeviceOp) {
        self.push_counted(op, OP_BYTES);
    }

    /// The pool of distinct details of this timeline's ops.
    pub fn details_pool(&self) -> &DetailsPool {
        &self.details
    }

    /// The details of `op`, one of this timeline's ops.
    #[inline]
    pub fn details_of(&self, op: &DeviceOp) -> Option<&OpDetails> {
        self.details.get(op.details()?)
    }

    /// Gives the op at `index` these `details` (shared with equal ones); false when there is
    /// no op there.
    pub fn set_details(&mut self, index: usize, details: OpDetails) -> bool {
        let Some(name) = self.ops.get(index).map(|op| op.name()) else { return false };
        let (id, _) = self.details.share_named(name, details);
        self.ops[index].set_details(Some(id));
        true
    }

    /// Appends `op` with the details of `details`, an id this timeline's pool gave an earlier
    /// op ([`Timeline::push_op_with`] then `ops.last()`): for a reader that found the row's
    /// details cells equal to an earlier row's and did not parse them again. False (nothing
    /// pushed) for an id the pool does not hold, or when the memory budget is spent.
    pub fn push_op_shared(&mut self, mut op: DeviceOp, details: DetailsId) -> bool {
        if self.details.get(details).is_none() {
            return false;
        }
        op.set_details(Some(details));
        let before = self.ops.len();
        self.push_counted(op, OP_BYTES);
        self.ops.len() > before
    }

    pub(crate) fn push_counted(&mut self, op: DeviceOp, bytes: u64) {
        if !self.take(bytes) {
            return;
        }
        let sum = self.load.device_ns.checked_add(op.dur_ns());
        match sum.filter(|_| op.start_ns.checked_add(op.dur_ns()).is_some()) {
            Some(sum) => self.load.device_ns = sum,
            None => {
                self.load.overflow_at.get_or_insert(self.ops.len());
            }
        }
        self.ops.push(op);
    }

    /// [`Timeline::push_op`] for an op whose details the reader built on the stack: equal
    /// details already held are shared without allocating (a loader's hot loop).
    pub fn push_op_with(&mut self, mut op: DeviceOp, details: OpDetails) {
        let (shared, new) = self.details.share_named(op.name(), details);
        op.set_details(Some(shared));
        self.push_counted(op, OP_BYTES + if new { DETAILS_BYTES } else { 0 });
    }

    /// The end of a load: [`Timeline::check_loaded`], then the device ops in start order
    /// (stable: ties keep the source's order), for sources that list them table by table
    /// (kernels, then copies, then sets): every analysis that needs time order then finds it
    /// instead of sorting its own copy. A timeline that fails the check keeps the source's
    /// order, so the error names the right op.
    pub fn finish_loading(&mut self) -> Result<(), String> {
        self.check_loaded()?;
        // One walk finds the ascending runs (one: already in order, nothing moves).
        crate::op_order::sort_by_start(&mut self.ops);
        Ok(())
    }

    /// Appends a host span, unless the memory budget is spent (as [`Timeline::push_op`]).
    pub fn push_host(&mut self, span: HostSpan) {
        if self.take(HOST_BYTES) {
            self.host.push(span);
        }
    }

    /// True once the memory budget refused an op or span: a reader may stop reading.
    pub fn is_full(&self) -> bool {
        self.load.full
    }

    /// Counts `bytes` against the budget; the first refusal marks the timeline partial.
    fn take(&mut self, bytes: u64) -> bool {
        let was_full = self.load.full;
        if self.load.take(bytes) {
            return true;
        }
        if !was_full {
            self.note_partial(self.load.note(self.ops.len()));
        }
        false
    }

    /// Counts `count` events of `kind` the reader saw and does not read ([`Timeline::unread`]).
    pub fn note_unread(&mut self, kind: &str, count: u64) {
        match self.unread.iter_mut().find(|(k, _)| k == kind) {
            Some((_, n)) => *n += count,
            None => self.unread.push((kind.to_owned(), count)),
        }
        // Largest first, as the field promises.
        self.unread.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    }

    /// Marks the timeline partial for `reason`, after any reason noted before.
    pub fn note_partial(&mut self, reason: String) {
        self.partial = Some(match self.partial.take() {
            Some(earlier) => format!("{earlier}; {reason}"),
            None => reason,
        });
    }

    /// Whether what was loaded can be analysed: an error when the memory budget was spent
    /// before the first device op (an empty answer would be wrong), or naming the first op
    /// whose duration took the summed device time (or its own end) past 2^64 ns: durations no
    /// real trace has, which no sum can hold exactly.
    pub fn check_loaded(&self) -> Result<(), String> {
        if self.is_full() && self.ops.is_empty() {
            return Err(format!(
                "{}: the memory budget ({}) was spent before the first device op; raise it with --memory-budget \
                 or PROF_MEMORY_BUDGET",
                self.source,
                crate::load_budget::human_bytes(self.load.limit.unwrap_or_else(crate::load_budget::memory_budget))
            ));
        }
        let Some(index) = self.load.overflow_at else { return Ok(()) };
        let op = &self.ops[index];
        Err(format!(
            "{}: device op {} ({}, start {} ns, duration {} ns): the time summed to it passes 2^64 ns (584 years); \
             the file's durations cannot be real",
            self.source,
            index + 1,
            crate::error::quote(self.name(op.name())),
            { op.start_ns },
            { op.dur_ns() }
        ))
    }

    /// Earliest start and latest end over device ops and host spans, if any.
    pub fn span_ns(&self) -> Option<(u64, u64)> {
        let device = self.ops.iter().map(|op| (op.start_ns, op.end_ns()));
        let host = self.host.iter().map(|s| (s.start_ns, s.start_ns.saturating_add(s.dur_ns())));
        device.chain(host).fold(None, |acc, (start, end)| match acc {
            None => Some((start, end)),
            Some((lo, hi)) => Some((lo.min(start), hi.max(end))),
        })
    }

    /// Host spans indexed by correlation id, for linking device ops to their launches.
    pub fn host_by_correlation(&self) -> crate::intern::FxHashMap<u64, usize> {
        self.host.iter().enumerate().filter_map(|(index, span)| span.correlation.get().map(|c| (c, index))).collect()
    }

    /// The index in [`Timeline::host`] of the launch call (a runtime or driver span) of each
    /// correlation id: what the launch statistics and the idle gaps look a kernel's launch up
    /// in (one index for both).
    pub fn launch_index(&self) -> crate::launch_index::LaunchIndex {
        crate::launch_index::LaunchIndex::of(&self.host)
    }
}

#[cfg(test)]
mod tests;
