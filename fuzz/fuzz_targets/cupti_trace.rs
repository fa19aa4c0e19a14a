//! Fuzzes `prof_backend_nvidia::fuzz::cupti_trace::load_bytes` (prof CUPTI .pcupti trace) on arbitrary bytes: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let mut timeline = prof_core::Timeline::new("fuzz");
    let _ = prof_backend_nvidia::fuzz::cupti_trace::load_bytes(data, Path::new("t.pcupti"), 0, &mut timeline);
});
