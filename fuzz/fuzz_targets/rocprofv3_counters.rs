//! Fuzzes `prof_backend_amd::fuzz::rocprofv3_counters::parse_counter_csv` (rocprofv3 counter_collection.csv) on arbitrary bytes: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = prof_backend_amd::fuzz::rocprofv3_counters::parse_counter_csv(data);
});
