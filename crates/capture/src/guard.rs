//! The guard: a small process that outlives prof and stops what prof started when prof dies
//! without cleaning up (SIGKILL, the OOM killer, a crash).
//!
//! Every supervised workload carries a token in its environment ([`TOKEN_VAR`]), which its
//! descendants inherit, including those that leave the process group (`setsid()`, a double
//! fork). The supervisor registers each group with the guard (`+TOKEN PGID` on the guard's
//! stdin) and unregisters it once stopped (`-TOKEN`). When its stdin closes (prof exited,
//! however), the guard SIGKILLs every group still registered and every process still
//! carrying its token ([`kill_marked`]), then exits. The guard ignores the signals a terminal
//! or a job scheduler sends, and lives in a process group of its own.
//!
//! The program that runs the guard is set once by the binary ([`install`]): prof runs itself
//! with a hidden argument. Without it (library use, tests) there is no guard, and only the
//! supervisor's own clean-up runs.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, PoisonError};

/// The environment variable that marks a supervised workload and its descendants.
pub const TOKEN_VAR: &str = "PROF_SUPERVISED";

struct Guard {
    program: Option<(PathBuf, Vec<OsString>)>,
    running: Option<(Child, ChildStdin)>,
}

static GUARD: Mutex<Guard> = Mutex::new(Guard { program: None, running: None });

/// Sets the command that runs [`run_guard`] (started at the first registration).
pub fn install(program: PathBuf, args: Vec<OsString>) {
    GUARD.lock().unwrap_or_else(PoisonError::into_inner).program = Some((program, args));
}

fn send(line: &str) {
    let mut guard = GUARD.lock().unwrap_or_else(PoisonError::into_inner);
    if guard.running.is_none() {
        let Some((program, args)) = guard.program.clone() else { return };
        let spawned = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn();
        let Ok(mut child) = spawned else { return };
        let Some(stdin) = child.stdin.take() else { return };
        guard.running = Some((child, stdin));
    }
    if let Some((_, stdin)) = guard.running.as_mut() {
        let _ = stdin.write_all(line.as_bytes()).and_then(|()| stdin.flush());
    }
}

/// Tells the guard about a started group.
pub fn register(token: &str, pgid: i32) {
    send(&format!("+{token} {pgid}\n"));
}

/// Tells the guard a group was stopped.
pub fn unregister(token: &str) {
    send(&format!("-{token}\n"));
}

/// Pids of the live processes (not this one) whose environment holds `TOKEN_VAR=token`.
pub fn marked(token: &str) -> Vec<i32> {
    let wanted = format!("{TOKEN_VAR}={token}");
    let me = std::process::id() as i32;
    prof_core::process_group::proc_pids()
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|environ| environ.split(|&b| b == 0).any(|entry| entry == wanted.as_bytes()))
        })
        .collect()
}

/// SIGKILLs every process carrying `token` (descendants that left their group); returns them.
pub fn kill_marked(token: &str) -> Vec<i32> {
    let pids = marked(token);
    for &pid in &pids {
        // SAFETY: kill(2) has no memory-safety preconditions; the pid carries our token.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    pids
}

/// The guard process's body: ignores the signals that would end it with prof, then
/// [`guard_loop`] on its stdin.
pub fn run_guard() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT, libc::SIGPIPE] {
        // SAFETY: ignoring a signal installs no handler code.
        unsafe { libc::signal(signal, libc::SIG_IGN) };
    }
    guard_loop(std::io::stdin().lock());
}

/// Reads registrations from `input` until it closes, then stops what is still registered.
/// Returns the tokens it had to stop.
pub fn guard_loop(input: impl BufRead) -> Vec<String> {
    let mut groups: BTreeMap<String, i32> = BTreeMap::new();
    for line in input.lines() {
        let Ok(line) = line else { break };
        if let Some(rest) = line.strip_prefix('+') {
            if let Some((token, pgid)) = rest.split_once(' ') {
                if let Ok(pgid) = pgid.trim().parse::<i32>() {
                    groups.insert(token.to_owned(), pgid);
                }
            }
        } else if let Some(token) = line.strip_prefix('-') {
            groups.remove(token.trim());
        }
    }
    for (token, pgid) in &groups {
        prof_core::process_group::kill_group(*pgid, libc::SIGKILL);
        kill_marked(token);
    }
    groups.into_keys().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_stops_only_what_is_still_registered() {
        let input = "+a-1 999999999\n+b-2 999999998\n-a-1\ngarbage\n+c-3 nope\n";
        assert_eq!(guard_loop(input.as_bytes()), ["b-2"]);
    }

    #[test]
    fn marked_processes_are_found_by_their_token() {
        let token = format!("test-{}", std::process::id());
        let mut child = Command::new("sleep").arg("30").env(TOKEN_VAR, &token).spawn().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !marked(&token).contains(&(child.id() as i32)) {
            assert!(std::time::Instant::now() < deadline, "the child's environment never showed the token");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(kill_marked(&token), [child.id() as i32]);
        assert!(child.wait().unwrap().code().is_none(), "killed by a signal");
        assert!(marked("no-such-token").is_empty());
    }
}
