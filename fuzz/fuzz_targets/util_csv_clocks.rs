//! Fuzzes `prof_core::util_csv::read_util_csv` (a `prof util --csv` recording) on arbitrary bytes, then `prof_core::analysis::counters::counter_drops` over the timeline it makes: they must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    if let Ok(timeline) = prof_core::util_csv::read_util_csv(data, Path::new("util.csv")) {
        let _ = prof_core::analysis::counters::counter_drops(&timeline);
    }
});
