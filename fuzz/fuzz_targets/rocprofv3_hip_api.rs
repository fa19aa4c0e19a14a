//! Fuzzes `prof_backend_amd::fuzz::rocprofv3_trace::load_hip_api` (rocprofv3 hip_api_trace.csv) on arbitrary bytes: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(csv) = prof_backend_amd::fuzz::rocprof_csv::CsvReader::from_reader(data, Path::new("hip_api_trace.csv")) else {
        return;
    };
    let mut timeline = prof_core::Timeline::new("fuzz");
    let _ = prof_backend_amd::fuzz::rocprofv3_trace::load_hip_api(csv, 0, &mut timeline);
});
