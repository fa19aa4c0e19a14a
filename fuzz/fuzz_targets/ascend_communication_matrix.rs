//! Fuzzes `prof_backend_ascend::fuzz::communication_matrix::parse` (torch_npu communication_matrix.json) on arbitrary bytes: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let _ = prof_backend_ascend::fuzz::communication_matrix::parse(data, Path::new("communication_matrix.json"));
});
