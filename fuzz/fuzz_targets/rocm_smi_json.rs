//! Fuzzes `prof_backend_amd::fuzz::rocm_smi_json::parse` and `smi_sample::rocm_json_samples` (rocm-smi --json) on arbitrary UTF-8 text: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = prof_backend_amd::fuzz::rocm_smi_json::parse("rocm-smi", text);
        let _ = prof_backend_amd::fuzz::smi_sample::rocm_json_samples("rocm-smi", text);
    }
});
