//! Flow events (`ph` `s` / `f`) of Ascend Chrome traces turned into correlation ids, so the
//! vendor-neutral launch and gap analyses see which host call launched which device op.
//!
//! What the recordings hold: torch_npu's `trace_view.json` and CANN 8 `msprof_*.json` link a
//! `CANN` API span (`AscendCL@…` / `Node@launch`) to the hardware task it launched with a
//! `HostToDevice` flow: the `s` end lies inside the host span, the `f` end (`bp: "e"`) at the
//! task's start on the `Ascend Hardware` process, both matched by `id`. torch_npu also links
//! the Python framework op to the same task with an `async_npu` flow. The `connection_id`
//! arguments are not enough in torch_npu exports: there the task's and the API span's ids
//! differ (the flow id is the host span's `connection_id` shifted left by 32 bits).
//!
//! Each end binds to the innermost slice of its `pid`/`tid` that encloses its timestamp. A
//! `HostToDevice` link gives the op the host span's correlation id (its `connection_id`, or a
//! fresh id above every id in the trace when it has none); an `async_npu` link is used only
//! for an op with no `HostToDevice` link, so a framework span never shadows a launch call.

use prof_core::Timeline;
use serde_json::Value;
use std::collections::HashMap;

/// The flow category linking an API call to its hardware task.
pub const HOST_TO_DEVICE: &str = "HostToDevice";
/// The flow category linking a torch_npu framework op to its hardware task.
pub const ASYNC_NPU: &str = "async_npu";

/// What a slice of the trace became.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// `timeline.ops[i]`.
    Op(usize),
    /// `timeline.host[i]`.
    Host(usize),
}

#[derive(Debug, Clone, Copy)]
struct Slice {
    start: u64,
    end: u64,
    target: Target,
}

#[derive(Debug, Clone)]
struct FlowEnd {
    ts: u64,
    start: bool,
    category: &'static str,
    id: String,
}

/// What a flow's start (`s`) and finish (`f`) ends bound to.
type FlowTargets = (Option<Target>, Option<Target>);

/// How many links the flows made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlowLinks {
    /// Ops given the correlation of the API span that launched them.
    pub runtime: usize,
    /// Ops with no `HostToDevice` link given the correlation of their framework op.
    pub framework: usize,
    /// Flows whose two ends did not both bind to a slice of the right kind.
    pub unbound: usize,
}

/// Slices and flow ends gathered while a trace is read, per `(pid, tid)`.
#[derive(Debug, Default)]
pub(crate) struct Flows {
    slices: HashMap<(u64, u64), Vec<Slice>>,
    ends: HashMap<(u64, u64), Vec<FlowEnd>>,
}

impl Flows {
    /// Records an `X` event that became `target`.
    pub(crate) fn slice(&mut self, pid: u64, tid: u64, start: u64, dur: u64, target: Target) {
        let end = start.saturating_add(dur);
        self.slices.entry((pid, tid)).or_default().push(Slice { start, end, target });
    }

    /// Records a flow event (`s` or `f`) of a category this module links; others are ignored.
    pub(crate) fn end(&mut self, event: &Value, pid: u64, tid: u64, ts: u64) {
        let start = match event.get("ph").and_then(Value::as_str) {
            Some("s") => true,
            Some("f") => false,
            _ => return,
        };
        let category = match event.get("cat").and_then(Value::as_str) {
            Some(HOST_TO_DEVICE) => HOST_TO_DEVICE,
            Some(ASYNC_NPU) => ASYNC_NPU,
            _ => return,
        };
        let id = match event.get("id") {
            Some(Value::String(id)) => id.clone(),
            Some(Value::Number(id)) => id.to_string(),
            _ => return,
        };
        self.ends.entry((pid, tid)).or_default().push(FlowEnd { ts, start, category, id });
    }

    /// Binds every flow end to its slice and sets the correlation ids.
    pub(crate) fn apply(self, timeline: &mut Timeline) -> FlowLinks {
        let mut bound: HashMap<(&'static str, String), FlowTargets> = HashMap::new();
        let mut slices = self.slices;
        for (thread, mut ends) in self.ends {
            let mut thread_slices = slices.remove(&thread).unwrap_or_default();
            for (end, target) in bind(&mut thread_slices, &mut ends) {
                let entry = bound.entry((end.category, end.id.clone())).or_default();
                if end.start {
                    entry.0 = target;
                } else {
                    entry.1 = target;
                }
            }
        }
        let mut next = timeline
            .ops
            .iter()
            .filter_map(|o| o.correlation.get())
            .chain(timeline.host.iter().filter_map(|h| h.correlation.get()))
            .max()
            .map_or(0, |m| m.saturating_add(1));
        let mut links = FlowLinks::default();
        let mut runtime_linked = vec![false; timeline.ops.len()];
        for category in [HOST_TO_DEVICE, ASYNC_NPU] {
            let mut pairs: Vec<(usize, usize)> = Vec::new();
            for ((cat, _), ends) in &bound {
                if *cat != category {
                    continue;
                }
                match *ends {
                    (Some(Target::Host(host)), Some(Target::Op(op))) => pairs.push((host, op)),
                    _ => links.unbound += 1,
                }
            }
            pairs.sort_unstable();
            for (host, op) in pairs {
                if category == ASYNC_NPU && runtime_linked[op] {
                    continue;
                }
                let span = &mut timeline.host[host];
                let id = span.correlation.get().unwrap_or_else(|| {
                    next += 1;
                    span.correlation = Some(next - 1).into();
                    next - 1
                });
                timeline.ops[op].correlation = Some(id).into();
                if category == HOST_TO_DEVICE {
                    runtime_linked[op] = true;
                    links.runtime += 1;
                } else {
                    links.framework += 1;
                }
            }
        }
        links
    }
}

/// Each end with the innermost slice enclosing its timestamp: one sweep over the slices in
/// start order (an enclosing slice before the ones it holds) with a stack of open slices.
fn bind<'a>(slices: &mut [Slice], ends: &'a mut [FlowEnd]) -> Vec<(&'a FlowEnd, Option<Target>)> {
    slices.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    ends.sort_by_key(|e| e.ts);
    let mut open: Vec<Slice> = Vec::new();
    let mut next = 0;
    let mut out = Vec::with_capacity(ends.len());
    for end in ends.iter() {
        while next < slices.len() && slices[next].start <= end.ts {
            open.push(slices[next]);
            next += 1;
        }
        while open.last().is_some_and(|s| s.end < end.ts) {
            open.pop();
        }
        out.push((end, open.last().map(|s| s.target)));
    }
    out
}
