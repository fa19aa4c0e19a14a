//! Test support: reading the recorded fixtures under the workspace's `tests/fixtures/ascend`.

/// The text of `tests/fixtures/ascend/<path>`.
pub fn fixture(path: &str) -> String {
    let full = fixture_path(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The path of `tests/fixtures/ascend/<path>`.
pub fn fixture_path(path: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("{}/../../tests/fixtures/ascend/{path}", env!("CARGO_MANIFEST_DIR")))
}

/// The 25.5.6 recording: 4× 910B2 and a process table.
pub const INFO_25_5_6: &str = "npu-smi/ascend-msprof-skill_npu-smi-25.5.6_910B2-x4_npu_smi_info.stdout.txt";
/// The 24.1.0 recording: 8× 910A whose Name column says 910B.
pub const INFO_24_1_0: &str = "npu-smi/vllm-ascend-910a_npu-smi-24.1.0_910A-x8_info.txt";
/// The 23.0.rc1 recording: 1× 910ProB, a blank line, a process table with one process.
pub const INFO_23_0_RC1: &str = "npu-smi/llm-action_npu-smi-23.0.rc1_910ProB_info.txt";
/// `npu-smi info -t common -i 1` on a 910B.
pub const COMMON_910B: &str = "npu-smi/llm-action_npu-smi_910B_t-common-i1.txt";
/// A CANN 8.0.T6 `ascend_toolkit_install.info`.
pub const TOOLKIT_INFO: &str = "cann/mllm-npu_cann-8.0.T6_x86_64_ascend_toolkit_install.info";
/// torch_npu `kernel_details.csv` (591 rows, 2023-11).
pub const KERNEL_DETAILS: &str = "msprof-analyze_advisor_kernel_details/kernel_details.csv";
/// torch_npu `trace_view.json` (2024-01).
pub const TRACE_VIEW: &str = "msprof-analyze_advisor_trace_view/trace_view.json";
/// CANN 8 `mindstudio_profiler_output` of the PipeUtilization run.
pub const CANN8_PIPE: &str = "vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254/PROF_PipeUtilization/PROF_000001_20260823165326062_00625538CIGQAHCJ/mindstudio_profiler_output";
/// The PROF_GROUP directory holding two profiles of one workload.
pub const CANN8_GROUP: &str = "vllm-ascend_msprof_cann8/PROF_GROUP_20260823_165254";
/// CANN 8 `op_summary` of a custom matmul on device 7, renamed by its harness.
pub const A003_OP_SUMMARY: &str = "ascend-optimization_msprof_op_summary/matmul_bias_activation/master-20261010/profile-metrics-float16-0/artifacts/a003-op_summary.csv";
/// The older per-device msprof timeline directory (910A-era CANN).
pub const MINDINSIGHT_PROF: &str = "mindinsight_msprof_2dev/PROF_000001_20230818142704322_COJGGGCANRMICFBC";
/// A torch_npu rank directory holding only step/communication files.
pub const MSINSIGHT_RANK0: &str = "msinsight_gpt3_16rank_torch_npu/test_rank_0";
