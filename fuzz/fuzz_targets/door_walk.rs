//! Fuzzes directory walking at the door (`Registry::recognize` and `Registry::load` on a
//! directory: a TensorBoard log dir, a rocprof or msprof run, rank directories, a folder that
//! holds one artifact): the bytes build a small tree of folders and files under names the
//! readers look for, then the root is recognised and loaded. Never a panic, a hang or a read
//! outside the tree (links are made only to places inside it).
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

const NAMES: [&str; 32] = [
    "plugins", "profile", "2026_12_06_10_00_00", "host.xplane.pb", "trace.json.gz", "ASCEND_PROFILER_OUTPUT",
    "PROF_000001_20250101_x", "device_0", "summary", "mindstudio_profiler_output", "kernel_details.csv",
    "op_summary_0.csv", "trace_view.json", "profiler_info_0.json", "rank0", "rank1",
    "trace_rank-0.pt.trace.json", "trace_rank-1.pt.trace.json", "results.csv", "results.stats.csv",
    "results.json", "prof_kernel_trace.csv", "prof_memory_copy_trace.csv", "prof_agent_info.csv", "cupti",
    "prof-cupti-7.pcupti", "report.sqlite", "step_trace_time.csv", "communication.json", ".hidden", "notes.txt",
    "worker_ascend_pt",
];

// Reads the tree: each entry is (kind, name, parent, length, bytes); kind 0 or 1 is a folder, 2 a
// link to an earlier entry (`length` picks it), anything else a file of `length` bytes.
fuzz_target!(|data: &[u8]| {
    let root = std::env::temp_dir().join(format!("prof-fuzz-walk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    if std::fs::create_dir_all(&root).is_err() {
        return;
    }
    let mut made: Vec<PathBuf> = vec![root.clone()];
    let mut rest = data;
    while made.len() < 24 && rest.len() >= 4 {
        let (kind, name, parent, length) = (rest[0], rest[1], rest[2], rest[3] as usize);
        rest = &rest[4..];
        let folders: Vec<&PathBuf> = made.iter().filter(|p| p.is_dir()).collect();
        let path = folders[parent as usize % folders.len()].join(NAMES[name as usize % NAMES.len()]);
        if path.exists() {
            continue;
        }
        match kind % 8 {
            0 | 1 => {
                let _ = std::fs::create_dir(&path);
            }
            2 => {
                let aim = &made[length % made.len()];
                let _ = std::os::unix::fs::symlink(aim, &path);
            }
            _ => {
                let take = length.min(rest.len());
                let _ = std::fs::write(&path, &rest[..take]);
                rest = &rest[take..];
            }
        }
        made.push(path);
    }
    let registry = prof_core::Registry::new(vec![
        Box::new(prof_backend_nvidia::NvidiaVendor::new()),
        Box::new(prof_backend_amd::AmdVendor::new()),
        Box::new(prof_backend_ascend::AscendVendor::new()),
    ]);
    if registry.recognize(&root).is_ok() {
        let _ = registry.load(&root, &prof_core::Families::default());
    }
    let _ = std::fs::remove_dir_all(&root);
});
