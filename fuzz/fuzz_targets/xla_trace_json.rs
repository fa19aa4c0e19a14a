//! Fuzzes `prof_backend_nvidia::fuzz::xplane::XlaTraceImporter` (XLA's trace-events JSON beside an
//! XSpace) and the XSpace decoder on arbitrary bytes: each must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use prof_core::Importer;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    use prof_backend_nvidia::fuzz::xplane::{XlaTraceImporter, XplaneImporter};
    let _ = XlaTraceImporter.read_bytes(data, Path::new("vm.trace.json"));
    let _ = XplaneImporter.read_bytes(data, Path::new("vm.xplane.pb"));
});
