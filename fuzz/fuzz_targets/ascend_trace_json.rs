//! Fuzzes `prof_backend_ascend::fuzz::trace_json::read` (torch_npu trace_view.json, msprof_*.json) on arbitrary bytes: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let _ = prof_backend_ascend::fuzz::trace_json::read(data, Path::new("trace_view.json"));
});
