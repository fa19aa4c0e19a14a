//! Fuzzes `prof_backend_amd::fuzz::amd_smi::parse` and `smi_sample::monitor_samples` (amd-smi monitor) on arbitrary UTF-8 text: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(table) = prof_backend_amd::fuzz::amd_smi::parse("amd-smi", text) {
            let _ = prof_backend_amd::fuzz::smi_sample::monitor_samples("amd-smi", &table);
        }
    }
});
