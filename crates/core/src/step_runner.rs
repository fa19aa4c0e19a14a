//! How a reader runs a tool it needs before it can read an artifact (`nsys export` of an
//! `.nsys-rep`): through the runner the program installed ([`install`]; prof installs its
//! supervisor: the step in its own process group, Ctrl-C forwarded to it, the guard behind it),
//! else the plain runner here, which needs no async runtime: the tool runs in this program's
//! process group, so a Ctrl-C at the terminal reaches it as it reaches the program, its output
//! goes to the plan's log, and it is killed at the plan's time limit.

use crate::run_plan::{status_parts, RunOutcome, RunPlan};
use prof_timeline::error::{Error, Result};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Runs one step to its end.
pub type StepRunner = fn(&RunPlan) -> Result<RunOutcome>;

static RUNNER: OnceLock<StepRunner> = OnceLock::new();

/// Sets the runner of [`run_step`] for the life of the program (the first call wins).
pub fn install(runner: StepRunner) {
    let _ = RUNNER.set(runner);
}

/// Runs `plan` with the installed runner, else the plain one (see the module).
pub fn run_step(plan: &RunPlan) -> Result<RunOutcome> {
    match RUNNER.get() {
        Some(runner) => runner(plan),
        None => run_plain(plan),
    }
}

/// The runner without a supervisor (see the module).
pub(crate) fn run_plain(plan: &RunPlan) -> Result<RunOutcome> {
    let program = plan.program();
    let Some((first, rest)) = plan.argv.split_first() else {
        return Err(Error::Unsupported("empty command".to_owned()));
    };
    if let Some(dir) = plan.log.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let log = std::fs::File::create(&plan.log).map_err(|e| Error::io(&plan.log, e))?;
    let log_err = log.try_clone().map_err(|e| Error::io(&plan.log, e))?;
    let mut command = Command::new(first);
    command.args(rest).envs(plan.env.iter().map(|(k, v)| (k, v))).stdin(Stdio::null()).stdout(log).stderr(log_err);
    if let Some(cwd) = &plan.cwd {
        command.current_dir(cwd);
    }
    let started = Instant::now();
    let mut child = crate::tools::spawn_when_free(|| command.spawn())
        .map_err(|source| Error::Spawn { program: program.clone(), source })?;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if plan.timeout.is_some_and(|limit| started.elapsed() >= limit) => {
                let _ = child.kill();
                let _ = child.wait();
                let limit = plan.timeout.unwrap_or_default();
                return Err(Error::TimedOut { program, limit, log: plan.log.clone() });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(source) => return Err(Error::Spawn { program, source }),
        }
    };
    let (exit_code, signal) = status_parts(status);
    Ok(RunOutcome {
        label: plan.label.clone(),
        exit_code,
        signal,
        elapsed: started.elapsed(),
        log: plan.log.clone(),
        log_error: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(argv: &[&str], log: &std::path::Path) -> RunPlan {
        RunPlan::new("test", argv.iter().map(Into::into).collect(), log)
    }

    #[test]
    fn the_plain_runner_logs_the_output_and_the_exit_status() {
        let dir = std::env::temp_dir().join(format!("prof-step-runner-{}", std::process::id()));
        let log = dir.join("echo.log");
        let outcome = run_plain(&plan(&["echo", "exported"], &log)).unwrap();
        assert_eq!((outcome.exit_code, outcome.success()), (Some(0), true));
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "exported\n");
        let failed = run_plain(&plan(&["false"], &dir.join("false.log"))).unwrap();
        assert_eq!(failed.exit_code, Some(1));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_plain_runner_stops_a_step_at_its_time_limit() {
        let dir = std::env::temp_dir().join(format!("prof-step-limit-{}", std::process::id()));
        let mut slow = plan(&["sleep", "30"], &dir.join("sleep.log"));
        slow.timeout = Some(Duration::from_millis(200));
        let started = Instant::now();
        let err = run_plain(&slow).unwrap_err();
        assert!(matches!(err, Error::TimedOut { .. }), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let missing = run_plain(&plan(&["/nonexistent/prof-tool"], &dir.join("none.log"))).unwrap_err();
        assert!(matches!(missing, Error::Spawn { .. }), "{missing}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
