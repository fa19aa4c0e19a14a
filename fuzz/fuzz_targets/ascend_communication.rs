//! Fuzzes `prof_backend_ascend::fuzz::communication::parse` (torch_npu communication.json) on arbitrary bytes, then what `prof analyze` makes of the ops (each op's `bytes`/`sample`, `transport_totals`, `prof_core::analysis::comm::summarize_collectives`): they must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use prof_backend_ascend::fuzz::communication::{self, CommOp};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    if let Ok(ops) = communication::parse(data, Path::new("communication.json")) {
        let _ = ops.iter().map(CommOp::bytes).count();
        let _ = communication::transport_totals(&ops);
        let _ = prof_core::analysis::comm::summarize_collectives(ops.iter().map(CommOp::sample));
    }
});
