//! Fuzzes `prof_backend_amd::fuzz::rocprof_stats::read` (rocprof / rocprofv3 kernel stats CSV) on arbitrary UTF-8 text: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = prof_backend_amd::fuzz::rocprof_stats::read(
            text,
            std::path::Path::new("results.stats.csv"),
            &prof_core::Families::builtin(),
        );
    }
});
