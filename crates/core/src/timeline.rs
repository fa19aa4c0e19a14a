//! The vendor-neutral timeline: every backend loads its artifact into one [`Timeline`],
//! and every analysis is written once against it.

use crate::intern::{Interner, NameId};
use serde::Serialize;

/// What a device operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    /// A compute kernel.
    Kernel,
    /// A memory copy (host-device, device-device, peer).
    Memcpy,
    /// A memory set.
    Memset,
    /// A collective or point-to-point communication op (NCCL, RCCL, HCCL).
    Communication,
    /// Anything else the source reports on the device (synchronisation, markers).
    Other,
}

/// The kind of accelerator core an op ran on, where the source says (Ascend's task type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CoreType {
    /// Matrix ("cube") cores.
    Cube,
    /// Vector cores.
    Vector,
    /// A kernel that uses both cube and vector cores.
    Mix,
    /// An AI CPU / scalar core.
    Cpu,
    /// A DMA or copy engine.
    Dma,
}

/// Optional, source-dependent facts about one device op; boxed so the common op stays small.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct OpDetails {
    /// Grid dimensions (blocks).
    pub grid: Option<[u32; 3]>,
    /// Block dimensions (threads).
    pub block: Option<[u32; 3]>,
    /// Registers per thread.
    pub registers_per_thread: Option<u32>,
    /// Static + dynamic shared memory per block, bytes.
    pub shared_memory_bytes: Option<u64>,
    /// Core type the op ran on.
    pub core_type: Option<CoreType>,
    /// Number of cores/blocks the op was spread over (Ascend block dim).
    pub block_dim: Option<u32>,
    /// Input shapes as the source prints them.
    pub shapes: Option<NameId>,
    /// Bytes moved (memcpy, memset, communication).
    pub bytes: Option<u64>,
    /// Framework-level op type (Ascend `Type`, torch op name), when distinct from the kernel name.
    pub op_type: Option<NameId>,
}

/// One operation that ran on a device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceOp {
    /// What it does.
    pub kind: OpKind,
    /// Kernel or op name.
    pub name: NameId,
    /// Device index as the source numbers it.
    pub device: u32,
    /// Stream (or queue) id.
    pub stream: u64,
    /// Start, nanoseconds on the source's clock.
    pub start_ns: u64,
    /// Duration, nanoseconds.
    pub dur_ns: u64,
    /// Correlation id linking the op to the host span that launched it.
    pub correlation: Option<u64>,
    /// Everything else the source has.
    pub details: Option<Box<OpDetails>>,
}

impl DeviceOp {
    /// An op with the mandatory fields and no details.
    pub fn new(kind: OpKind, name: NameId, device: u32, stream: u64, start_ns: u64, dur_ns: u64) -> Self {
        Self { kind, name, device, stream, start_ns, dur_ns, correlation: None, details: None }
    }

    /// End, nanoseconds on the source's clock.
    pub fn end_ns(&self) -> u64 {
        self.start_ns.saturating_add(self.dur_ns)
    }

    /// The details, created empty on first use.
    pub fn details_mut(&mut self) -> &mut OpDetails {
        self.details.get_or_insert_with(Default::default)
    }
}

/// What layer of the host stack a host span belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HostCategory {
    /// Runtime API (cudaLaunchKernel, hipLaunchKernel, aclrtLaunch).
    Runtime,
    /// Driver API (cuLaunchKernel).
    Driver,
    /// Framework op (aten::mm, torch_npu op).
    Framework,
    /// User annotation (NVTX, roctx, record_function).
    Annotation,
    /// Anything else.
    Other,
}

/// One span of host (CPU) activity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostSpan {
    /// Name (API call or op).
    pub name: NameId,
    /// Stack layer.
    pub category: HostCategory,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u64,
    /// Start, nanoseconds on the same clock as device ops.
    pub start_ns: u64,
    /// Duration, nanoseconds.
    pub dur_ns: u64,
    /// Correlation id shared with the device op(s) it launched.
    pub correlation: Option<u64>,
}

/// A sampled value over time (clock frequency, utilization, power).
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// Device operations, in the order the source listed them.
    pub ops: Vec<DeviceOp>,
    /// Host spans.
    pub host: Vec<HostSpan>,
    /// Counter series.
    pub counters: Vec<CounterSeries>,
    /// Set when the artifact was cut short and the timeline holds only what was read; says why.
    pub partial: Option<String>,
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

    /// The string behind an id of this timeline.
    pub fn name(&self, id: NameId) -> &str {
        self.names.resolve(id)
    }

    /// Appends a device op.
    pub fn push_op(&mut self, op: DeviceOp) {
        self.ops.push(op);
    }

    /// Earliest start and latest end over device ops and host spans, if any.
    pub fn span_ns(&self) -> Option<(u64, u64)> {
        let device = self.ops.iter().map(|op| (op.start_ns, op.end_ns()));
        let host = self.host.iter().map(|s| (s.start_ns, s.start_ns.saturating_add(s.dur_ns)));
        device.chain(host).fold(None, |acc, (start, end)| match acc {
            None => Some((start, end)),
            Some((lo, hi)) => Some((lo.min(start), hi.max(end))),
        })
    }

    /// Host spans indexed by correlation id, for linking device ops to their launches.
    pub fn host_by_correlation(&self) -> crate::intern::FxHashMap<u64, usize> {
        self.host.iter().enumerate().filter_map(|(index, span)| span.correlation.map(|c| (c, index))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_covers_device_and_host_and_links_by_correlation() {
        let mut t = Timeline::new("test");
        let k = t.intern("k");
        let launch = t.intern("cudaLaunchKernel");
        let mut op = DeviceOp::new(OpKind::Kernel, k, 0, 7, 1_000, 500);
        op.correlation = Some(42);
        t.push_op(op);
        t.host.push(HostSpan {
            name: launch,
            category: HostCategory::Runtime,
            pid: 1,
            tid: 1,
            start_ns: 900,
            dur_ns: 20,
            correlation: Some(42),
        });
        assert_eq!(t.span_ns(), Some((900, 1_500)));
        let index = t.host_by_correlation()[&42];
        assert_eq!(t.name(t.host[index].name), "cudaLaunchKernel");
        assert_eq!(std::mem::size_of::<DeviceOp>(), 64);
    }
}
