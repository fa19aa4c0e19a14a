//! Fuzzes `prof_backend_amd::fuzz::rocm_smi_concise::parse` and `smi_sample::concise_samples` (rocm-smi concise table) on arbitrary UTF-8 text: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(table) = prof_backend_amd::fuzz::rocm_smi_concise::parse("rocm-smi", text) {
            let _ = prof_backend_amd::fuzz::smi_sample::concise_samples("rocm-smi", &table);
        }
    }
});
