//! Fuzzes `prof_backend_ascend::fuzz::step_trace::parse` (step_trace_time.csv and cluster_step_trace_time.csv) on arbitrary UTF-8 text, then `rank_split` and each row's `wall_ns`: they must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(steps) = prof_backend_ascend::fuzz::step_trace::parse(text, Path::new("step_trace_time.csv")) {
        for step in &steps {
            let _ = step.wall_ns();
        }
        let _ = prof_backend_ascend::fuzz::step_trace::rank_split(&steps);
    }
});
