//! Fuzzes `prof_backend_amd::fuzz::rsmi_lib::frequencies::decode` (an `rsmi_frequencies_t` as ROCm SMI fills it, either layout) on arbitrary bytes, then `current_mhz`/`max_mhz`: `Some` or `None`, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(levels) = prof_backend_amd::fuzz::rsmi_lib::frequencies::decode(data) {
        let _ = levels.current_mhz();
        let _ = levels.max_mhz();
    }
});
