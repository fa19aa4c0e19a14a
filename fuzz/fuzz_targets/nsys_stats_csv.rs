//! Fuzzes `prof_backend_nvidia::fuzz::nsys_stats_csv::StatsTable::parse` (nsys stats --format csv) and its kernel summary on arbitrary UTF-8 text: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(table) =
            prof_backend_nvidia::fuzz::nsys_stats_csv::StatsTable::parse(text, std::path::Path::new("stats.csv"))
        {
            let _ = table.total_ns();
            let _ = table.instances();
            let _ = table.to_kernel_summary(&prof_core::Families::builtin());
        }
    }
});
