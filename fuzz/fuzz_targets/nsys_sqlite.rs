//! Fuzzes `prof_backend_nvidia::fuzz::nsys_sqlite::load` and `summarize_device_ops` (nsys SQLite
//! exports; path-only, so through a temp file) on arbitrary bytes: both must return Ok or Err,
//! never panic, and when both succeed the device-ops summary must equal the one of the whole
//! timeline (what `prof analyze --summary-only` relies on).
#![no_main]
use libfuzzer_sys::fuzz_target;
use prof_backend_nvidia::fuzz::nsys_sqlite;
use prof_core::{summarize_kernels, Families};

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("prof-fuzz-nsys-{}.sqlite", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let families = Families::builtin();
    let full = nsys_sqlite::load(&path);
    let fast = nsys_sqlite::summarize_device_ops(&path, &families);
    if let (Ok(full), Ok(fast)) = (full, fast) {
        assert_eq!(fast, summarize_kernels(&full, &families), "the device-ops summary differs from the full load's");
    }
});
