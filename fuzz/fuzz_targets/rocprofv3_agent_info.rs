//! Fuzzes `prof_backend_amd::fuzz::rocprofv3_trace::AgentMap::from_file` (rocprofv3 agent_info.csv; path-only, so through a temp file) on arbitrary bytes: it must return Ok or Err, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("prof-fuzz-agent-{}.csv", std::process::id()));
    if std::fs::write(&path, data).is_ok() {
        let _ = prof_backend_amd::fuzz::rocprofv3_trace::AgentMap::from_file(&path);
    }
});
