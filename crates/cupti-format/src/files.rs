//! How trace files are named, so the loader finds what the tracer wrote.

use std::path::Path;

/// File name prefix of per-process traces (`prof-cupti-<pid>[-rank<R>][-local<L>].pcupti`).
pub const FILE_PREFIX: &str = "prof-cupti-";
/// File name extension of traces.
pub const FILE_EXTENSION: &str = "pcupti";

/// `prof-cupti-<pid>[-rank<R>][-local<L>].pcupti`.
pub fn trace_file_name(pid: u32, rank: Option<i32>, local_rank: Option<i32>) -> String {
    let mut name = format!("{FILE_PREFIX}{pid}");
    if let Some(rank) = rank {
        name.push_str(&format!("-rank{rank}"));
    }
    if let Some(local) = local_rank {
        name.push_str(&format!("-local{local}"));
    }
    name.push('.');
    name.push_str(FILE_EXTENSION);
    name
}

/// True when `path`'s file name looks like one the tracer writes (`prof-cupti-*.pcupti`).
pub fn is_trace_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(FILE_PREFIX) && Path::new(n).extension().is_some_and(|e| e == FILE_EXTENSION))
}
