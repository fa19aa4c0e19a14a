//! Process groups as `/proc` and `killpg` see them, and the tail of a step's log: what the
//! supervisor, the guard and a tool's quick query all use to stop only what they started and to
//! say why a step failed. No async runtime.

use std::path::Path;

/// Sends `signal` to every process of group `pgid`; a group that is gone is fine.
pub fn kill_group(pgid: i32, signal: i32) {
    if pgid > 1 {
        // SAFETY: killpg has no memory-safety preconditions; a stale pgid yields ESRCH.
        unsafe {
            libc::killpg(pgid, signal);
        }
    }
}

/// The pids listed in `/proc` (none where it cannot be read).
pub fn proc_pids() -> impl Iterator<Item = i32> {
    std::fs::read_dir("/proc").into_iter().flatten().filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
}

/// Pids of the processes of group `pgid` that are still running (zombies excluded),
/// read from `/proc`: the check that nothing a capture started is left behind.
pub fn live_group_members(pgid: i32) -> Vec<i32> {
    proc_pids()
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
            // Fields after the parenthesised command: state, ppid, pgrp, …
            let Some((_, rest)) = stat.rsplit_once(") ") else { return false };
            let mut fields = rest.split(' ');
            let state = fields.next().unwrap_or("Z");
            let pgrp = fields.nth(1).and_then(|f| f.parse::<i32>().ok());
            state != "Z" && state != "X" && pgrp == Some(pgid)
        })
        .collect()
}

/// The last `lines` lines of the file at `path` (empty when unreadable).
pub fn log_tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read(path).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
