//! The process supervisor that runs every capture plan.
//!
//! Each step starts in its own process group with its output streamed to a log file
//! (and optionally echoed); it fails fast when a process that should stay up dies,
//! stops the whole group at its time limit, forwards Ctrl-C to the group, and on every
//! exit path kills only the group it started, never a process found by name.

use prof_core::breakdown::ExpectedArtifact;
use prof_core::process_group::{kill_group, log_tail};
use prof_core::run_plan::{describe, status_parts, RunOutcome, RunPlan};
use prof_timeline::error::{Error, Result};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

/// How long a group gets between SIGINT/SIGTERM and SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(3);

/// The signals that end prof when nobody handles them: SIGINT (Ctrl-C), SIGTERM (`timeout`,
/// Slurm, Kubernetes, systemd), SIGHUP (a closed terminal or ssh session) and SIGQUIT. While
/// a value of this type lives, none of them kills prof outright: each is delivered to
/// [`StopSignals::recv`], so the workload's group is stopped first.
pub struct StopSignals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
    hangup: tokio::signal::unix::Signal,
    quit: tokio::signal::unix::Signal,
}

impl StopSignals {
    /// Starts listening (inside a tokio runtime).
    pub fn listen() -> Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        let listen = |kind: SignalKind| {
            signal(kind).map_err(|e| Error::Unsupported(format!("cannot listen for Ctrl-C, SIGTERM, SIGHUP: {e}")))
        };
        Ok(Self {
            interrupt: listen(SignalKind::interrupt())?,
            terminate: listen(SignalKind::terminate())?,
            hangup: listen(SignalKind::hangup())?,
            quit: listen(SignalKind::quit())?,
        })
    }

    /// Resolves when one of the signals arrives, with its number.
    pub async fn recv(&mut self) -> i32 {
        tokio::select! {
            _ = self.interrupt.recv() => libc::SIGINT,
            _ = self.terminate.recv() => libc::SIGTERM,
            _ = self.hangup.recv() => libc::SIGHUP,
            _ = self.quit.recv() => libc::SIGQUIT,
        }
    }
}

/// The signal passed on to the workload's group when prof receives `received`: the same one,
/// except SIGQUIT, which becomes SIGTERM (no core dumps of the workload).
pub fn forwarded(received: i32) -> i32 {
    if received == libc::SIGQUIT {
        libc::SIGTERM
    } else {
        received
    }
}

/// The first error writing a step's log, shared by its two output copiers.
type LogFailure = std::sync::Arc<std::sync::Mutex<Option<String>>>;

/// A running, supervised process group. Dropping it kills the group.
pub struct Supervised {
    child: Child,
    pgid: i32,
    started: Instant,
    plan: RunPlan,
    copiers: Vec<JoinHandle<()>>,
    reaped: bool,
    /// Set once the group was killed after its leader exited: from then on its id may be
    /// recycled by the system for someone else's group, so Drop must not signal it again.
    group_stopped: bool,
    /// The [`crate::guard::TOKEN_VAR`] value of this group and its descendants.
    token: String,
    /// Set when writing the log failed.
    log_failed: LogFailure,
    interrupt: StopSignals,
}

impl Supervised {
    /// Starts `plan` in a new process group. Must be called inside a tokio runtime.
    pub async fn start(plan: RunPlan) -> Result<Self> {
        let program = plan.program();
        let Some((first, rest)) = plan.argv.split_first() else {
            return Err(Error::Unsupported("empty command".to_owned()));
        };
        if let Some(dir) = plan.log.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        // Never through a link: a link planted at the log's path would have the run write a place
        // the user did not name (as root, any file).
        let log = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&plan.log)
                .map_err(|e| Error::io(&plan.log, e))?
        };
        let mut command = Command::new(first);
        command
            .args(rest)
            .envs(plan.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(cwd) = &plan.cwd {
            command.current_dir(cwd);
        }
        static STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let token = format!("{}-{}", std::process::id(), STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        command.env(crate::guard::TOKEN_VAR, &token);
        // Listen before the child exists, so no signal can slip past unforwarded.
        let interrupt = StopSignals::listen()?;
        let mut child = prof_core::tools::spawn_when_free(|| command.spawn())
            .map_err(|source| Error::Spawn { program: program.clone(), source })?;
        let pgid = child.id().map(|id| id as i32).unwrap_or(0);
        crate::guard::register(&token, pgid);
        let log = std::sync::Arc::new(std::sync::Mutex::new(log));
        let mut copiers = Vec::new();
        let log_failed = LogFailure::default();
        if let Some(out) = child.stdout.take() {
            copiers.push(tokio::spawn(copy_to_log(out, log.clone(), plan.echo, log_failed.clone())));
        }
        if let Some(err) = child.stderr.take() {
            copiers.push(tokio::spawn(copy_to_log(err, log, plan.echo, log_failed.clone())));
        }
        Ok(Self {
            child,
            pgid,
            started: Instant::now(),
            plan,
            copiers,
            reaped: false,
            group_stopped: false,
            token,
            log_failed,
            interrupt,
        })
    }

    /// The process group id (equal to the leader's pid).
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// The plan being run.
    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }

    /// Why its log could not be written so far (a full disk), if it could not.
    pub fn log_error(&self) -> Option<String> {
        self.log_failed.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Returns `Ok` once the process has stayed up for `window`, or
    /// [`Error::DiedEarly`] the moment it exits inside the window.
    pub async fn wait_alive(&mut self, window: Duration) -> Result<()> {
        let outcome = tokio::select! {
            outcome = tokio::time::timeout(window, self.child.wait()) => outcome,
            signal = self.interrupt.recv() => {
                self.stop(forwarded(signal)).await;
                return Err(Error::Interrupted { program: self.plan.program(), signal });
            }
        };
        match outcome {
            Err(_) => Ok(()),
            Ok(status) => {
                self.reaped = true;
                let (code, signal) = status.map(status_parts).unwrap_or((None, None));
                self.finish_group().await;
                Err(Error::DiedEarly {
                    program: self.plan.program(),
                    status: describe(code, signal),
                    elapsed: self.started.elapsed(),
                    log_tail: log_tail(&self.plan.log, 20),
                })
            }
        }
    }

    /// True while the leader has not exited.
    pub fn is_running(&mut self) -> bool {
        !self.reaped && matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the leader to exit, the time limit, or Ctrl-C (forwarded to the group).
    pub async fn wait(mut self) -> Result<RunOutcome> {
        let limit = self.plan.timeout.map(|t| t.saturating_sub(self.started.elapsed()));
        let sleeper = async move {
            match limit {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            status = self.child.wait() => {
                self.reaped = true;
                let (exit_code, signal) = status.map(status_parts).unwrap_or((None, None));
                self.finish_group().await;
                Ok(RunOutcome {
                    label: self.plan.label.clone(),
                    exit_code,
                    signal,
                    elapsed: self.started.elapsed(),
                    log: self.plan.log.clone(),
                    log_error: self.log_error(),
                })
            }
            _ = sleeper => {
                self.stop(libc::SIGTERM).await;
                Err(Error::TimedOut { program: self.plan.program(), limit: self.plan.timeout.unwrap_or_default(), log: self.plan.log.clone() })
            }
            signal = self.interrupt.recv() => {
                self.stop(forwarded(signal)).await;
                Err(Error::Interrupted { program: self.plan.program(), signal })
            }
        }
    }

    /// Sends `first` to the group, waits [`STOP_GRACE`] for the leader, then SIGKILLs the group.
    pub async fn stop(&mut self, first: i32) {
        kill_group(self.pgid, first);
        if !self.reaped {
            let _ = tokio::time::timeout(STOP_GRACE, self.child.wait()).await;
        }
        kill_group(self.pgid, libc::SIGKILL);
        let _ = self.child.wait().await;
        self.reaped = true;
        self.group_stopped = true;
        self.release();
        self.drain().await;
    }

    /// After the group was killed: kills its descendants that left it (`setsid()`, a double
    /// fork: they still carry the group's token) and tells the guard it is done.
    fn release(&self) {
        crate::guard::kill_marked(&self.token);
        crate::guard::unregister(&self.token);
    }

    /// After the leader exited: kill what it left in its group, then let the log copiers finish.
    async fn finish_group(&mut self) {
        kill_group(self.pgid, libc::SIGKILL);
        self.group_stopped = true;
        self.release();
        self.drain().await;
    }

    async fn drain(&mut self) {
        for copier in self.copiers.drain(..) {
            let _ = tokio::time::timeout(Duration::from_secs(2), copier).await;
        }
    }
}

impl Drop for Supervised {
    fn drop(&mut self) {
        if !self.group_stopped {
            kill_group(self.pgid, libc::SIGKILL);
            self.release();
        }
    }
}

/// Copies one output pipe into the shared log file (small blocking writes: the log is local).
async fn copy_to_log(
    mut source: impl AsyncRead + Unpin,
    log: std::sync::Arc<std::sync::Mutex<std::fs::File>>,
    echo: bool,
    failed: LogFailure,
) {
    use std::io::Write;
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match source.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Ok(mut file) = log.lock() {
            if let Err(error) = file.write_all(&buf[..n]) {
                let mut first = failed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                first.get_or_insert_with(|| error.to_string());
            }
        }
        if echo {
            let _ = std::io::stderr().write_all(&buf[..n]);
        }
    }
}

/// A current-thread tokio runtime for the sync callers of the supervisor.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Unsupported(format!("cannot start the async runtime: {e}")))
}

/// Runs one plan to completion (sync): start, fail-fast window if any, wait.
pub fn run(plan: &RunPlan) -> Result<RunOutcome> {
    runtime()?.block_on(async {
        let mut running = Supervised::start(plan.clone()).await?;
        if let Some(window) = plan.must_survive {
            running.wait_alive(window).await?;
        }
        running.wait().await
    })
}

/// Checks a capture's artifact: it exists, is a file or non-empty directory, and is at least
/// `min_bytes` long (a directory counts the bytes of its files). Returns the size.
pub fn verify_artifact(artifact: &ExpectedArtifact) -> Result<u64> {
    let path = &artifact.path;
    let meta = std::fs::metadata(path)
        .map_err(|_| Error::ArtifactInvalid { path: path.clone(), reason: "was not written".to_owned() })?;
    let size = if meta.is_dir() { dir_size(path) } else { meta.len() };
    if size == 0 {
        return Err(Error::ArtifactInvalid { path: path.clone(), reason: "is empty (0 bytes)".to_owned() });
    }
    if size < artifact.min_bytes {
        return Err(Error::ArtifactInvalid {
            path: path.clone(),
            reason: format!("is {size} bytes, below the {} bytes a real capture writes", artifact.min_bytes),
        });
    }
    Ok(size)
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => dir_size(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}
