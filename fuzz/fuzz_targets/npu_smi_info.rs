//! Fuzzes `prof_backend_ascend::fuzz::npu_smi::parse_info` (npu-smi info) on arbitrary UTF-8 text: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = prof_backend_ascend::fuzz::npu_smi::parse_info(text);
    }
});
