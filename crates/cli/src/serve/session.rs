//! Runs one planned `prof serve` session: start the server in its own process group, fail
//! fast (process death or an error in its log), wait for health, warm up, open the capture
//! window, run the load, close the window, and stop the server's group — on success,
//! failure and Ctrl-C alike — then check that nothing of the group is left.

use super::failure::SessionFailure;
use super::health::{self, Readiness};
use super::load::{self, LoadResult, LoadSpec};
use super::plan::{ServePlan, ServeWindow};
use prof_capture::supervisor::{StopSignals, Supervised};
use prof_core::process_group::live_group_members;
use prof_core::recorder::{Recorder, RecorderHandle, Recording};
use prof_core::run_plan::{RunOutcome, RunPlan};
use prof_core::UtilizationProbe;
use std::time::Duration;

/// The load of the window: the built-in generator or a benchmark command.
#[derive(Debug, Clone)]
pub enum Load {
    /// The built-in load generator.
    Builtin(LoadSpec),
    /// The user's benchmark command (from the plan).
    Bench,
}

/// Everything a session needs besides the plan.
pub struct SessionInput {
    /// The health URL and the readiness limit.
    pub readiness: Readiness,
    /// Unprofiled warm-up requests, when any.
    pub warmup: Option<LoadSpec>,
    /// The window's load.
    pub load: Load,
    /// The probe of `--tool util` (absent: no device).
    pub probe: Option<Box<dyn UtilizationProbe>>,
    /// Sampling interval of the probe.
    pub interval: Duration,
}

/// What a finished session measured.
#[derive(Debug, Default)]
pub struct SessionReport {
    /// The server's process group.
    pub server_pgid: i32,
    /// From the server's start until its health URL answered 200.
    pub ready_after: Duration,
    /// The warm-up requests.
    pub warmup: Option<LoadResult>,
    /// The built-in load of the window.
    pub load: Option<LoadResult>,
    /// How the benchmark command ended.
    pub bench: Option<RunOutcome>,
    /// The window's utilization recording (`--tool util` with a device).
    pub recording: Option<Recording>,
    /// Processes of the server's group still running after clean-up (should be none).
    pub server_left: Vec<i32>,
}

/// The window's capture in progress.
enum OpenWindow {
    Nothing,
    Recorder(RecorderHandle),
}

/// Runs the session of `plan` (inside a tokio runtime).
pub async fn run(plan: &ServePlan, input: SessionInput) -> Result<SessionReport, SessionFailure> {
    let mut interrupt = StopSignals::listen().map_err(|e| SessionFailure::new(e.to_string()))?;
    let mut server = Supervised::start(plan.server.clone()).await.map_err(|e| SessionFailure::new(e.to_string()))?;
    let pgid = server.pgid();
    let mut report = SessionReport { server_pgid: pgid, ..SessionReport::default() };
    let mut group_done = false;
    let outcome = drive(plan, input, &mut server, &mut interrupt, &mut report, &mut group_done).await;
    if !group_done {
        server.stop(libc::SIGINT).await;
    }
    let left = live_group_members(pgid);
    match outcome {
        Ok(()) => {
            report.server_left = left;
            Ok(report)
        }
        Err(mut failure) => {
            failure.server_pgid = Some(pgid);
            failure.server_left = left;
            Err(failure)
        }
    }
}

async fn drive(
    plan: &ServePlan,
    input: SessionInput,
    server: &mut Supervised,
    interrupt: &mut StopSignals,
    report: &mut SessionReport,
    group_done: &mut bool,
) -> Result<(), SessionFailure> {
    report.ready_after = health::wait_ready(server, &input.readiness, interrupt, group_done).await?;
    if let Some(warmup) = &input.warmup {
        let result = tokio::select! {
            result = load::run(warmup) => result,
            signal = interrupt.recv() => return Err(SessionFailure::stopped_by(signal, "the warm-up")),
        };
        // Not one good answer in the warm-up: the window would measure nothing either.
        if result.ok == 0 && result.errors > 0 {
            let why = result.first_error.clone().unwrap_or_default();
            return Err(SessionFailure::new(format!(
                "the warm-up got no good answer from the endpoint ({why}); nothing was measured"
            )));
        }
        report.warmup = Some(result);
    }
    if !server.is_running() {
        return Err(died(server, "during the warm-up"));
    }
    let window = open_window(plan, server, input.probe, input.interval).await?;
    let measured = measure(plan, &input.load, server, interrupt).await;
    let closed = close_window(plan, server, window).await;
    match measured? {
        Measured::Builtin(result) => report.load = Some(result),
        Measured::Bench(outcome) => report.bench = Some(outcome),
    }
    report.recording = closed?;
    Ok(())
}

/// What the window's load produced.
enum Measured {
    Builtin(LoadResult),
    Bench(RunOutcome),
}

async fn measure(
    plan: &ServePlan,
    load: &Load,
    server: &mut Supervised,
    interrupt: &mut StopSignals,
) -> Result<Measured, SessionFailure> {
    let died_watch = async {
        while server.is_running() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let work = async {
        match (load, &plan.bench) {
            (Load::Builtin(spec), _) => Ok(Measured::Builtin(load::run(spec).await)),
            (Load::Bench, Some(bench)) => run_step(bench).await.map(Measured::Bench),
            (Load::Bench, None) => Err(SessionFailure::new("no benchmark command in the plan (a prof bug)")),
        }
    };
    tokio::select! {
        measured = work => measured,
        _ = died_watch => Err(SessionFailure::new("the server exited during the capture window")),
        signal = interrupt.recv() => Err(SessionFailure::stopped_by(signal, "the capture window")),
    }
}

/// Runs a short step (the benchmark, `nsys start`) under the supervisor in its own group.
async fn run_step(step: &RunPlan) -> Result<RunOutcome, SessionFailure> {
    let running = Supervised::start(step.clone()).await.map_err(|e| SessionFailure::new(e.to_string()))?;
    running.wait().await.map_err(|e| match e {
        prof_core::Error::Interrupted { signal, .. } => {
            SessionFailure::stopped_by(signal, &format!("`{}`", step.label))
        }
        other => SessionFailure::new(other.to_string()),
    })
}

async fn run_checked(step: &RunPlan) -> Result<(), SessionFailure> {
    let outcome = run_step(step).await?;
    if outcome.success() {
        return Ok(());
    }
    Err(SessionFailure::new(format!(
        "`{}` exited {}; last lines of {}:\n{}",
        step.display_command(),
        outcome.describe(),
        step.log.display(),
        prof_core::process_group::log_tail(&step.log, 15)
    )))
}

/// True when process `pid` has a handler for `signal` (its `SigCgt` mask in /proc), so the
/// signal cannot kill it by its default action.
fn catches(pid: i32, signal: i32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { return false };
    let mask = status.lines().find_map(|l| l.strip_prefix("SigCgt:")).map(str::trim);
    let mask = mask.and_then(|m| u64::from_str_radix(m, 16).ok()).unwrap_or(0);
    signal >= 1 && mask & (1u64 << (signal - 1)) != 0
}

/// Sends SIGUSR1 to every process of the server's group that handles it (the ones the CUPTI
/// tracer was injected into); a process without a handler would be killed by it, so it is
/// skipped, and a group where none handles it is an error.
fn signal_server(server: &Supervised, what: &str) -> Result<(), SessionFailure> {
    let traced: Vec<i32> =
        live_group_members(server.pgid()).into_iter().filter(|&pid| catches(pid, libc::SIGUSR1)).collect();
    if traced.is_empty() {
        return Err(SessionFailure::new(format!(
            "cannot {what} the CUPTI window: no process of the server's group handles SIGUSR1, so the tracer \
             is not loaded in it (the server must initialise CUDA before it reports healthy); see {}",
            server.plan().log.display()
        )));
    }
    for pid in traced {
        // SAFETY: kill has no memory-safety preconditions; the pid is in our group and handles SIGUSR1.
        unsafe {
            libc::kill(pid, libc::SIGUSR1);
        }
    }
    Ok(())
}

async fn open_window(
    plan: &ServePlan,
    server: &Supervised,
    probe: Option<Box<dyn UtilizationProbe>>,
    interval: Duration,
) -> Result<OpenWindow, SessionFailure> {
    match &plan.window {
        ServeWindow::Utilization => match probe {
            Some(probe) => Recorder::start(probe, interval)
                .map(OpenWindow::Recorder)
                .map_err(|e| SessionFailure::new(e.to_string())),
            None => Ok(OpenWindow::Nothing),
        },
        ServeWindow::Signal => signal_server(server, "open").map(|()| OpenWindow::Nothing),
        ServeWindow::Commands { start, .. } => run_checked(start).await.map(|()| OpenWindow::Nothing),
        ServeWindow::Http { start, .. } => start.send().await.map(|()| OpenWindow::Nothing).map_err(|e| {
            SessionFailure::new(format!(
                "the server's profiler did not start: {e} (is it enabled? see the plan's environment)"
            ))
        }),
        ServeWindow::LoadOnly | ServeWindow::WholeRun => Ok(OpenWindow::Nothing),
    }
}

async fn close_window(
    plan: &ServePlan,
    server: &mut Supervised,
    window: OpenWindow,
) -> Result<Option<Recording>, SessionFailure> {
    if let OpenWindow::Recorder(handle) = window {
        return Ok(Some(handle.stop()));
    }
    match &plan.window {
        ServeWindow::Signal if server.is_running() => signal_server(server, "close").map(|()| None),
        ServeWindow::Commands { stop, .. } => run_checked(stop).await.map(|()| None),
        ServeWindow::Http { stop, traces, .. } => {
            stop.send().await.map_err(|e| SessionFailure::new(format!("the server's profiler did not stop: {e}")))?;
            super::server_profiler::wait_for_traces(traces).await.map_err(SessionFailure::new)?;
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// The failure for a server found dead at `when`, with its log's last lines.
pub fn died(server: &Supervised, when: &str) -> SessionFailure {
    let log = &server.plan().log;
    SessionFailure::new(format!(
        "the server exited {when}; last lines of {}:\n{}",
        log.display(),
        prof_core::process_group::log_tail(log, 20)
    ))
}

#[cfg(test)]
mod tests {
    use super::catches;

    #[test]
    fn signal_handlers_are_read_from_proc() {
        // The test harness handles no SIGUSR1 but a tokio runtime with a SIGINT listener would;
        // here: this process has not installed a SIGUSR1 handler, and no pid 0 exists in /proc.
        assert!(!catches(std::process::id() as i32, libc::SIGUSR1));
        assert!(!catches(0, libc::SIGUSR1));
        let _listening = prof_capture::supervisor::runtime()
            .unwrap()
            .block_on(async { tokio::signal::unix::signal(tokio::signal::unix::SignalKind::user_defined1()) })
            .unwrap();
        assert!(catches(std::process::id() as i32, libc::SIGUSR1));
    }
}
