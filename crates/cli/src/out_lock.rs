//! One prof run per output directory (`prof serve`, `breakdown`, `deep-dive`, `profile`, and
//! `util` with a command): two
//! runs sharing one (the default `prof-out`) would overwrite each other's artifacts, or read
//! each other's server log, so a healthy run could fail on the other one's "out of memory".
//! The lock is a file holding the owner's pid, created exclusively; a lock whose owner is gone
//! is taken over.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The lock file's name in the output directory.
pub const LOCK_FILE: &str = ".prof.lock";

/// A held lock; dropping it removes the file.
#[derive(Debug)]
pub struct OutLock {
    path: PathBuf,
}

impl OutLock {
    /// Takes the lock of `out_dir` (made if missing), or says which live run holds it.
    pub fn take(out_dir: &Path) -> Result<Self, String> {
        std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
        let path = out_dir.join(LOCK_FILE);
        for _ in 0..2 {
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    let _ = writeln!(file, "{}", std::process::id());
                    return Ok(Self { path });
                }
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                    let owner = std::fs::read_to_string(&path).ok().and_then(|t| t.trim().parse::<i32>().ok());
                    match owner {
                        Some(pid) if alive(pid) => {
                            return Err(format!(
                                "{}: another prof run (pid {pid}) is using this output directory; give this run its \
                                 own with --out DIR",
                                out_dir.display()
                            ))
                        }
                        // Its owner is gone (or it is unreadable): stale, taken over.
                        _ => {
                            let _ = std::fs::remove_file(&path);
                        }
                    }
                }
                Err(error) => return Err(format!("{}: {error}", path.display())),
            }
        }
        Err(format!("{}: cannot take the lock", path.display()))
    }
}

fn alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks that the process exists.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

impl Drop for OutLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_owner_keeps_the_directory_and_a_dead_one_does_not() {
        let dir = std::env::temp_dir().join(format!("prof-out-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let held = OutLock::take(&dir).unwrap();
        let refused = OutLock::take(&dir).unwrap_err();
        assert!(refused.contains(&format!("another prof run (pid {})", std::process::id())), "{refused}");
        drop(held);
        assert!(!dir.join(LOCK_FILE).exists());
        // A lock left by a process that no longer exists (pid beyond pid_max) is taken over.
        std::fs::write(dir.join(LOCK_FILE), "2147483646\n").unwrap();
        let taken = OutLock::take(&dir).unwrap();
        drop(taken);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
