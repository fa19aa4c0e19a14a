//! Fuzzes `prof_backend_nvidia::nsys_sqlite::load` and `load_device_ops` (nsys SQLite exports;
//! path-only, so through a temp file) on arbitrary bytes: both must return Ok or Err, never
//! panic, and when both succeed the kernel summary of the device ops with the host time range
//! must equal the one of the whole timeline (what `prof analyze --summary-only` relies on).
#![no_main]
use libfuzzer_sys::fuzz_target;
use prof_backend_nvidia::nsys_sqlite;
use prof_core::{summarize_kernels, Families};

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("prof-fuzz-nsys-{}.sqlite", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let families = Families::builtin();
    let full = nsys_sqlite::load(&path);
    let ops = nsys_sqlite::load_device_ops(&path);
    if let (Ok(full), Ok((ops, host))) = (full, ops) {
        let mut fast = summarize_kernels(&ops, &families);
        let span = match (ops.span_ns(), host) {
            (Some((lo, hi)), Some((l, h))) => Some((lo.min(l), hi.max(h))),
            (device, host) => device.or(host),
        };
        fast.span_ns = span.map_or(0, |(lo, hi)| hi - lo);
        assert_eq!(fast, summarize_kernels(&full, &families), "device ops + host range differ from the full load");
    }
});
