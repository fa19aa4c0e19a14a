//! One tool call: prof itself, run as a child with `--json`, in its own process group, its
//! stderr lines forwarded as progress, stopped (Ctrl-C first, then killed) when the client
//! cancels the call or the call runs past `prof mcp --call-limit`.

use std::ffi::OsString;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

/// What a run of prof printed.
pub struct Ran {
    /// Its exit status (`None`: killed by a signal).
    pub status: Option<i32>,
    /// Its stdout (the JSON document).
    pub stdout: Vec<u8>,
    /// Its last stderr lines (the plan, warnings, the error text).
    pub stderr_tail: Vec<String>,
    /// Why the run was stopped before it ended, if it was.
    pub stopped: Option<Stopped>,
}

/// Why a run was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The client cancelled the call.
    Cancelled,
    /// The call ran past `prof mcp --call-limit`.
    PastLimit,
}

/// Stderr lines kept for the result.
const STDERR_TAIL: usize = 40;
/// How long a cancelled run gets to clean up after its Ctrl-C before it is killed.
const CANCEL_GRACE: Duration = Duration::from_secs(10);

/// The future `progress` returns for each stderr line.
pub type Sent = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// Runs `prof ARGS` and waits for it; `progress` gets each stderr line as it comes; `cancel`
/// resolving, or `limit` passing, stops the run.
pub async fn run_prof(
    args: Vec<OsString>,
    mut progress: impl FnMut(String) -> Sent,
    cancel: impl std::future::Future<Output = ()>,
    limit: Duration,
) -> Result<Ran, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find prof's own binary: {e}"))?;
    let mut command = tokio::process::Command::new(exe);
    command.args(&args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // Its own process group: a Ctrl-C meant for the MCP client's terminal is not the run's.
    command.process_group(0).kill_on_drop(true);
    // When prof mcp dies, however (SIGKILL included), the run gets a Ctrl-C and stops what it
    // started, as it does at a terminal: nothing it started outlives the server.
    let parent = std::process::id();
    // SAFETY: the closure runs in the child between fork and exec and calls only async-signal-
    // safe functions (prctl, getppid, raise).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGINT) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The server died before the link was made: act on it now.
            if u32::try_from(libc::getppid()).ok() != Some(parent) {
                libc::raise(libc::SIGINT);
            }
            Ok(())
        });
    }
    let mut child = command.spawn().map_err(|e| format!("cannot start prof: {e}"))?;
    let pid = child.id();
    let mut stdout = child.stdout.take().ok_or("no stdout pipe")?;
    let stderr = child.stderr.take().ok_or("no stderr pipe")?;
    let read_stdout = tokio::spawn(async move {
        let mut buffer = Vec::new();
        let _ = stdout.read_to_end(&mut buffer).await;
        buffer
    });
    let mut lines = BufReader::new(stderr).lines();
    let mut tail: Vec<String> = Vec::new();
    let mut stopped = None;
    tokio::pin!(cancel);
    let past_limit = tokio::time::sleep(limit);
    tokio::pin!(past_limit);
    loop {
        tokio::select! {
            line = lines.next_line() => match line {
                Ok(Some(line)) => {
                    progress(line.clone()).await;
                    tail.push(line);
                    if tail.len() > STDERR_TAIL {
                        tail.remove(0);
                    }
                }
                _ => break,
            },
            why = async {
                tokio::select! {
                    _ = &mut cancel => Stopped::Cancelled,
                    _ = &mut past_limit => Stopped::PastLimit,
                }
            }, if stopped.is_none() => {
                stopped = Some(why);
                // prof forwards a Ctrl-C to what it started and cleans up; the guard and the
                // kill below cover a run that does not stop.
                if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
                    // SAFETY: kill(2) on the child prof started, by its pid.
                    unsafe { libc::kill(pid, libc::SIGINT) };
                }
                let stopped = tokio::time::timeout(CANCEL_GRACE, child.wait()).await;
                if stopped.is_err() {
                    let _ = child.kill().await;
                }
                break;
            }
        }
    }
    let status = child.wait().await.map_err(|e| format!("cannot wait for prof: {e}"))?;
    let stdout = read_stdout.await.unwrap_or_default();
    Ok(Ran { status: status.code(), stdout, stderr_tail: tail, stopped })
}
