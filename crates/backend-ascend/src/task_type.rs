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
//!   type; runtime bookkeeping tasks become [`OpKind::Other`]. The readers leave them out of
//!   the device ops ([`runtime_task`]): a `TASK_TIMEOUT_SET` that lasts 45 % of a short capture
//!   (the neo-pan TileLang fixture) is the runtime's bookkeeping, not device work, and an
//!   `EVENT_WAIT` is a stream waiting; they are counted as unread, by type.

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

/// The unread kind of a runtime bookkeeping task of `task_type` (`runtime task EVENT_WAIT`),
/// which the readers leave out of the device ops; `None` for device work.
pub fn runtime_task(task_type: &str) -> Option<String> {
    is_runtime_task(task_type).then(|| format!("runtime task {task_type}"))
}

/// The op type in a task name, where the timeline JSON (which has no op type column;
/// `kernel_details.csv` gives the same type in `Type`) spells it in the name: the last part of
/// an aclnn name (`aclnnCast_CastAiCpu_Cast` → `Cast`, `aclnnMm_TransData_TransData` →
/// `TransData`) or the middle of a format transform the graph inserted (`trans_TransData_9` →
/// `TransData`, `trans_Cast_7` → `Cast`). `None` for any other name.
pub fn op_type_in_name(name: &str) -> Option<&str> {
    let plain = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric());
    if let Some(rest) = name.strip_prefix("trans_") {
        let (op_type, index) = rest.rsplit_once('_')?;
        return (plain(op_type) && !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit())).then_some(op_type);
    }
    let rest = name.strip_prefix("aclnn")?;
    let mut parts = rest.split('_');
    let (first, last) = (parts.next()?, parts.next_back()?);
    (plain(first) && plain(last) && parts.next().is_some()).then_some(last)
}

pub(crate) fn is_runtime_task(task_type: &str) -> bool {
    ["EVENT_", "PROFILING_", "TASK_TIMEOUT", "STREAM_", "MODEL_"].iter().any(|p| task_type.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_op_type_in_a_task_name() {
        // Names from the msprof-analyze advisor trace_view.json fixture and Ascend-mstt's.
        assert_eq!(op_type_in_name("aclnnCast_CastAiCpu_Cast"), Some("Cast"));
        assert_eq!(op_type_in_name("aclnnMm_TransData_TransData"), Some("TransData"));
        assert_eq!(op_type_in_name("aclnnInplaceOne_OnesLikeAiCore_OnesLike"), Some("OnesLike"));
        assert_eq!(op_type_in_name("aclnnMatmul_MatMulV3Common_MatMulV3"), Some("MatMulV3"));
        assert_eq!(op_type_in_name("trans_TransData_9"), Some("TransData"));
        assert_eq!(op_type_in_name("trans_Cast_34"), Some("Cast"));
        for other in [
            "aclnnCast",
            "aclnnCast_Cast",
            "Cast_CastAiCpu_Cast",
            "aclnnAdd_AddAiCore_",
            "aclnn_x_y",
            "trans_Cast",
            "trans_Cast_x",
        ] {
            assert_eq!(op_type_in_name(other), None, "{other}");
        }
    }

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
