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
