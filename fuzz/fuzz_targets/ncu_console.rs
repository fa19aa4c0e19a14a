//! Fuzzes `prof_backend_nvidia::fuzz::ncu_text::parse_console` (ncu console report) on arbitrary UTF-8 text: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = prof_backend_nvidia::fuzz::ncu_text::parse_console(text);
    }
});
