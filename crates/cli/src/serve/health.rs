//! Readiness of a freshly started server: first the fail-fast check (the process stays up
//! and its log shows no early error for a few seconds), then the health URL is polled until
//! it answers 200 or the limit passes. Waiting stops the moment the process dies.

use super::failure::SessionFailure;
use super::http::{self, Url};
use prof_capture::serve_watch::{LogError, LogWatch, EARLY_PATTERNS, FATAL_PATTERNS};
use prof_capture::supervisor::{StopSignals, Supervised};
use prof_core::process_group::log_tail;
use std::time::{Duration, Instant};

/// How long the fail-fast check watches a new server before the health URL is polled.
pub const EARLY_CHECK: Duration = Duration::from_secs(2);
/// Consecutive HTTP 500 answers to the health URL that end the wait (503 keeps it going).
pub const BROKEN_AFTER_500S: u32 = 5;
/// How long a server whose log shows an error is given to exit, so the report can say how.
const DYING_GRACE: Duration = Duration::from_millis(300);
/// Pause between two health requests.
const POLL_EVERY: Duration = Duration::from_millis(200);
/// Longest wait for one health answer.
const HEALTH_REQUEST_LIMIT: Duration = Duration::from_secs(2);
/// How often the process and its log are looked at during the fail-fast check.
const CHECK_SLICE: Duration = Duration::from_millis(100);

/// What "ready" means for one server.
#[derive(Debug, Clone)]
pub struct Readiness {
    /// The health URL; ready once it answers 200.
    pub url: Url,
    /// Limit from the server's start until ready.
    pub timeout: Duration,
}

fn log_error(server: &Supervised, found: &LogError, when: &str) -> SessionFailure {
    let log = &server.plan().log;
    SessionFailure::new(format!(
        "the server's log shows an error {when}, line {} of {} (matched `{}`):\n  {}\nlast lines of the log:\n{}",
        found.line_number,
        log.display(),
        found.pattern,
        found.line,
        log_tail(log, 20)
    ))
}

/// `failure` (which quotes no log line) with the start-up's suspect log line added.
fn with_suspect(mut failure: SessionFailure, suspect: Option<&LogError>) -> SessionFailure {
    if let Some(found) = suspect.filter(|_| failure.stopped_by.is_none()) {
        failure.message.push_str(&format!(
            "\n(log line {} at start-up, matched `{}`: {})",
            found.line_number, found.pattern, found.line
        ));
    }
    failure
}

/// Returns `Ok` when `server` is still up after `window` (zero: just a look); when it exited,
/// the failure says how, with its log's error line (else the start-up's `suspect` line) and
/// last lines. Sets `group_done` when the supervisor stopped the group (after the death, or on
/// Ctrl-C).
pub async fn check_alive(
    server: &mut Supervised,
    window: Duration,
    watch: &mut LogWatch,
    group_done: &mut bool,
    suspect: Option<&LogError>,
) -> Result<(), SessionFailure> {
    match server.wait_alive(window).await {
        Ok(()) => Ok(()),
        Err(prof_core::Error::Interrupted { signal, .. }) => {
            *group_done = true;
            Err(SessionFailure::stopped_by(signal, "the server's start-up"))
        }
        Err(error) => {
            *group_done = true;
            // The log's own error line when it has one, else the start-up's suspect line.
            match watch.poll_final(EARLY_PATTERNS).ok().flatten() {
                Some(cause) => {
                    Err(SessionFailure::new(format!("{error}\n(log line {}: {})", cause.line_number, cause.line)))
                }
                None => Err(with_suspect(SessionFailure::new(error.to_string()), suspect)),
            }
        }
    }
}

/// Waits until `server` is ready; returns how long that took since its start. Sets
/// `group_done` when the supervisor already stopped the group (death or Ctrl-C).
pub async fn wait_ready(
    server: &mut Supervised,
    readiness: &Readiness,
    interrupt: &mut StopSignals,
    group_done: &mut bool,
) -> Result<Duration, SessionFailure> {
    let started = Instant::now();
    let mut watch = LogWatch::new(&server.plan().log);
    let early = EARLY_CHECK.min(readiness.timeout);
    // The first loose error sign of the start-up, quoted if the server later dies or never
    // becomes healthy.
    let mut suspect: Option<LogError> = None;
    while started.elapsed() < early {
        tokio::select! {
            alive = check_alive(server, CHECK_SLICE, &mut watch, group_done, suspect.as_ref()) => alive?,
            signal = interrupt.recv() => return Err(SessionFailure::stopped_by(signal, "the server's start-up")),
        }
        if let Some(found) = watch.poll(EARLY_PATTERNS).map_err(|e| SessionFailure::new(e.to_string()))? {
            // A server that logged an error usually exits right after: say how, when it does.
            check_alive(server, DYING_GRACE, &mut watch, group_done, Some(&found)).await?;
            if FATAL_PATTERNS.contains(&found.pattern) {
                return Err(log_error(server, &found, "at start-up"));
            }
            // A loose sign ("not found", "error:") on a server that stays up is often a harmless
            // warning (an optional kernel library missing): remembered, not fatal.
            suspect.get_or_insert(found);
        }
    }
    let mut last = "no answer yet".to_owned();
    // 503 is how a loading server says "not yet"; 500 says it is broken: a few in a row end
    // the wait instead of polling until the limit.
    let mut internal_errors = 0u32;
    loop {
        check_alive(server, Duration::ZERO, &mut watch, group_done, suspect.as_ref()).await?;
        if let Some(error) = server.log_error() {
            return Err(SessionFailure::new(format!(
                "cannot write the server's log {}: {error}; prof cannot watch it for errors, so it stops here",
                server.plan().log.display()
            )));
        }
        if let Some(found) = watch.poll(FATAL_PATTERNS).map_err(|e| SessionFailure::new(e.to_string()))? {
            return Err(log_error(server, &found, "before it became healthy"));
        }
        let remaining = readiness.timeout.saturating_sub(started.elapsed());
        if remaining.is_zero() {
            let failure = SessionFailure::new(format!(
                "the server did not become healthy within {:.0} s (GET {}: {last}); last lines of {}:\n{}",
                readiness.timeout.as_secs_f64(),
                readiness.url.text,
                server.plan().log.display(),
                log_tail(&server.plan().log, 20)
            ));
            return Err(with_suspect(failure, suspect.as_ref()));
        }
        // The process is watched while the request is in flight and during the pause, so a
        // death ends the wait at once, not at the next poll.
        let limit = HEALTH_REQUEST_LIMIT.min(remaining);
        let answer = tokio::select! {
            answer = http::send(&readiness.url, None, limit) => answer,
            alive = check_alive(server, limit + CHECK_SLICE, &mut watch, group_done, suspect.as_ref()) => {
                alive.map(|()| Err(last.clone()))?
            }
            signal = interrupt.recv() => return Err(SessionFailure::stopped_by(signal, "the wait for health")),
        };
        match answer {
            Ok(response) if response.status == 200 => return Ok(started.elapsed()),
            Ok(response) => {
                last = format!("status {}", response.status);
                internal_errors = if response.status == 500 { internal_errors + 1 } else { 0 };
                if internal_errors >= BROKEN_AFTER_500S {
                    let failure = SessionFailure::new(format!(
                        "the server answered GET {} with status 500 {internal_errors} times in a row: it is up but \
                         broken; last lines of {}:\n{}",
                        readiness.url.text,
                        server.plan().log.display(),
                        log_tail(&server.plan().log, 20)
                    ));
                    return Err(with_suspect(failure, suspect.as_ref()));
                }
            }
            Err(error) => {
                last = error;
                internal_errors = 0;
            }
        }
        tokio::select! {
            alive = check_alive(server, POLL_EVERY.min(remaining), &mut watch, group_done, suspect.as_ref()) => alive?,
            signal = interrupt.recv() => return Err(SessionFailure::stopped_by(signal, "the wait for health")),
        }
    }
}
