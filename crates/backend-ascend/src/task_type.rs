//! What an Ascend task type says about an op: its [`OpKind`] and the [`CoreType`] it ran on.
//!
//! The values are the ones the recorded exports print in `Accelerator Core` (torch_npu
//! `kernel_details.csv`), `Task Type` (msprof `op_summary_*.csv` and the timeline JSON's
//! `args`) and `Core Type` (`op_statistic_*.csv`). Mapping, from the recorded files:
//! - `AI_CORE` → cube. On the split-core 910B the recording's `AI_CORE` rows are `MatMul` and
//!   `BatchMatMul` with `aicore_time` filled and `aiv_time` 0, i.e. the cube (AIC) core; on
//!   910A, whose one AI Core holds both units, the msprof timeline also calls `Cast` `AI_CORE`,
//!   so there it means "the AI Core" and cube over-states it.
//! - `AI_VECTOR_CORE` → vector; `MIX_AIC` / `MIX_AIV` (a kernel spanning both core kinds, led by
//!   the cube or the vector side) → mix; `AI_CPU` → CPU.
//! - `DSA_SQE` (the data-security accelerator, e.g. `DSAStatelessGenBitMask`, `DSARandomNormal`)
//!   → DMA engine; `MEMCPY_ASYNC` → a memcpy on a DMA engine.
//! - `HCCL` and HCCL's `REDUCE_ASYNC*` and `NOTIFY_WAIT` / `NOTIFY_RECORD` tasks → communication
//!   with no core type (the older msprof timeline lists the same 140 + 140 notify tasks again
//!   under its `HCCL` process, with source/destination rank and transport type).
//! - torch_npu's `Other` task type says nothing; there the name decides (`hcom_…` communication,
//!   `MEMCPY_ASYNC` memcpy).
//! - Anything else (`Other`, `EVENT_RECORD`, `PROFILING_ENABLE`, …) keeps no core
//!   type; runtime bookkeeping tasks become [`OpKind::Other`].

use prof_core::{CoreType, OpKind};

/// The core type a task type names, if it names one.
pub fn core_type(task_type: &str) -> Option<CoreType> {
    match task_type {
        "AI_CORE" => Some(CoreType::Cube),
        "AI_VECTOR_CORE" => Some(CoreType::Vector),
        "MIX_AIC" | "MIX_AIV" => Some(CoreType::Mix),
        "AI_CPU" => Some(CoreType::Cpu),
        "DSA_SQE" | "MEMCPY_ASYNC" => Some(CoreType::Dma),
        _ => None,
    }
}

/// The op kind of a task of `task_type` named `name`.
pub fn op_kind(task_type: &str, name: &str) -> OpKind {
    match task_type {
        "HCCL" => OpKind::Communication,
        t if t.starts_with("REDUCE_ASYNC") || t.starts_with("NOTIFY_") => OpKind::Communication,
        "MEMCPY_ASYNC" => OpKind::Memcpy,
        "AI_CORE" | "AI_VECTOR_CORE" | "MIX_AIC" | "MIX_AIV" | "AI_CPU" | "DSA_SQE" => OpKind::Kernel,
        _ if name.starts_with("hcom_") => OpKind::Communication,
        _ if name.starts_with("MEMCPY_ASYNC") => OpKind::Memcpy,
        t if is_runtime_task(t) => OpKind::Other,
        _ => OpKind::Kernel,
    }
}

fn is_runtime_task(task_type: &str) -> bool {
    ["EVENT_", "PROFILING_", "TASK_TIMEOUT", "STREAM_", "MODEL_"].iter().any(|p| task_type.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_the_recorded_task_types() {
        assert_eq!(core_type("AI_CORE"), Some(CoreType::Cube));
        assert_eq!(core_type("AI_VECTOR_CORE"), Some(CoreType::Vector));
        assert_eq!(core_type("MIX_AIV"), Some(CoreType::Mix));
        assert_eq!(core_type("AI_CPU"), Some(CoreType::Cpu));
        assert_eq!(core_type("DSA_SQE"), Some(CoreType::Dma));
        assert_eq!(core_type("HCCL"), None);
        assert_eq!(op_kind("HCCL", "hcom_allReduce__1"), OpKind::Communication);
        assert_eq!(op_kind("Other", "hcom_broadcast__445_0"), OpKind::Communication);
        assert_eq!(op_kind("NOTIFY_WAIT", "NOTIFY_WAIT"), OpKind::Communication);
        assert_eq!(op_kind("EVENT_RECORD", "EVENT_RECORD"), OpKind::Other);
        assert_eq!(op_kind("MEMCPY_ASYNC", "Memcpy"), OpKind::Memcpy);
        assert_eq!(op_kind("Other", "MEMCPY_ASYNC"), OpKind::Memcpy);
        assert_eq!(op_kind("Other", "aclnnInplaceZero_ZerosLikeAiCore_ZerosLike"), OpKind::Kernel);
    }
}
