//! Fuzzes `prof_backend_nvidia::fuzz::torch_trace::read_torch_trace` (PyTorch/Kineto Chrome trace JSON) on arbitrary bytes: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let _ = prof_backend_nvidia::fuzz::torch_trace::read_torch_trace(data, Path::new("trace.json"));
});
