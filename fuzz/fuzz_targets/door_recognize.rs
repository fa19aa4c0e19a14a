//! Fuzzes format detection, the door every artifact goes through (`Registry::recognize` then
//! `Registry::load`, all three backends): the first byte picks a file name from names the
//! readers know (so each reader's name rules are reached), the rest is the file. Recognising
//! and loading must return Ok or Err, never panic, hang or read outside the file.
#![no_main]
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 28] = [
    "trace.json", "trace.json.gz", "w.pt.trace.json", "prof_kernel_trace.csv", "kernel_trace.csv",
    "results.csv", "results.stats.csv", "results.json", "results.db", "report.sqlite", "report.nsys-rep",
    "report_cuda_gpu_kern_sum.csv", "ncu.csv", "profile.ncu-rep", "prof-cupti-1.pcupti", "op_summary_0.csv",
    "kernel_details.csv", "trace_view.json", "host.xplane.pb", "util.csv", "out.rpd", "results.hatchet",
    "step_trace_time.csv", "communication.json", "prof_results.json", "data.bin", "noext", "x.csv.gz",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let dir = std::env::temp_dir().join(format!("prof-fuzz-door-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let path = dir.join(NAMES[pick as usize % NAMES.len()]);
    if std::fs::write(&path, body).is_ok() {
        let registry = prof_core::Registry::new(vec![
            Box::new(prof_backend_nvidia::NvidiaVendor::new()),
            Box::new(prof_backend_amd::AmdVendor::new()),
            Box::new(prof_backend_ascend::AscendVendor::new()),
        ]);
        if registry.recognize(&path).is_ok() {
            let _ = registry.load(&path, &prof_core::Families::default());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
});
