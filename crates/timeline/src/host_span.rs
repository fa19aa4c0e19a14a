//! One span of host (CPU) activity and its stack layer.

use crate::correlation::Correlation;
use crate::dur_word::Dur;
use crate::intern::NameId;
use serde::Serialize;

/// What layer of the host stack a host span belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// One span of host (CPU) activity: 36 bytes (the 8-byte fields first, then the narrower
/// ones, packed to 4-byte alignment; the duration in a 4-byte word as a device op's), so a
/// launch per kernel costs 360 MB at 10 M launches. Made by [`HostSpan::new`]; read its fields
/// by value (`span.start_ns`), its duration by [`HostSpan::dur_ns`]; a reference to a field
/// (`&span.start_ns`) does not compile.
#[derive(Clone, Copy, PartialEq)]
#[repr(C, packed(4))]
pub struct HostSpan {
    /// Start, nanoseconds on the same clock as device ops.
    pub start_ns: u64,
    /// Duration ([`HostSpan::dur_ns`]).
    pub(crate) dur: Dur,
    /// Thread id.
    pub tid: u64,
    /// Correlation id shared with the device op(s) it launched (`.get()` for the id; 4 bytes
    /// where `Option<u64>` takes 16).
    pub correlation: Correlation,
    /// Name (API call or op).
    pub name: NameId,
    /// Process id.
    pub pid: u32,
    /// Stack layer.
    pub category: HostCategory,
}

impl HostSpan {
    /// A span of `name` in `category` on thread `tid` of process `pid`.
    #[inline]
    pub fn new(
        name: NameId,
        category: HostCategory,
        (pid, tid): (u32, u64),
        start_ns: u64,
        dur_ns: u64,
        correlation: Correlation,
    ) -> Self {
        HostSpan { start_ns, dur: Dur::new(dur_ns), tid, correlation, name, pid, category }
    }

    /// Duration, nanoseconds.
    #[inline]
    pub fn dur_ns(&self) -> u64 {
        self.dur.ns()
    }
}

impl std::fmt::Debug for HostSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostSpan")
            .field("start_ns", &{ self.start_ns })
            .field("dur_ns", &self.dur_ns())
            .field("tid", &{ self.tid })
            .field("correlation", &{ self.correlation })
            .field("name", &{ self.name })
            .field("pid", &{ self.pid })
            .field("category", &{ self.category })
            .finish()
    }
}

impl Serialize for HostSpan {
    /// The fields as they read: start_ns, dur_ns, tid, correlation, name, pid, category.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut span = serializer.serialize_struct("HostSpan", 7)?;
        span.serialize_field("start_ns", &{ self.start_ns })?;
        span.serialize_field("dur_ns", &self.dur_ns())?;
        span.serialize_field("tid", &{ self.tid })?;
        span.serialize_field("correlation", &{ self.correlation })?;
        span.serialize_field("name", &{ self.name })?;
        span.serialize_field("pid", &{ self.pid })?;
        span.serialize_field("category", &{ self.category })?;
        span.end()
    }
}

impl HostSpan {
    /// A span of process 1, thread 1: the host span the core's tests build.
    #[doc(hidden)]
    pub fn test(name: NameId, category: HostCategory, start_ns: u64, dur_ns: u64, correlation: Option<u64>) -> Self {
        HostSpan::new(name, category, (1, 1), start_ns, dur_ns, correlation.into())
    }
}
