//! What a device operation is: its kind, the core that ran it, and the details a format gives
//! of it (grid, block, bytes, op type), kept once per distinct value by the timeline.

use crate::intern::NameId;
use serde::Serialize;

/// What a device operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// Optional, source-dependent facts about one device op; shared between the ops that have
/// equal ones ([`crate::details_pool`]) so the common op stays small.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// Input element types as the source prints them (Ascend `Input Data Types`).
    pub dtypes: Option<NameId>,
    /// Bytes moved (memcpy, memset, communication).
    pub bytes: Option<u64>,
    /// Framework-level op type (Ascend `Type`, torch op name), when distinct from the kernel name.
    pub op_type: Option<NameId>,
    /// The framework op's call that launched this kernel (shapes, types, scalars), where the
    /// source records it.
    pub inputs: Option<Box<crate::op_inputs::OpInputs>>,
}
