//! What a capture step runs ([`RunPlan`]: a program and its arguments, never a shell line) and
//! how it ended ([`RunOutcome`]), and the quoting that shows a plan to a person.

use serde::{Serialize, Serializer};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

/// One process to run: what, where, with which environment, for how long.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunPlan {
    /// What the step is (`warm-up`, `capture`, `export`), for the plan shown to the user.
    pub label: String,
    /// Program and arguments, passed to `execvp` as they are: never through a shell.
    #[serde(serialize_with = "lossy_args")]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<String>"))]
    pub argv: Vec<OsString>,
    /// Variables added to the inherited environment.
    pub env: Vec<(String, String)>,
    /// Working directory (inherited when `None`).
    pub cwd: Option<PathBuf>,
    /// Hard limit; past it the group is stopped and the step fails.
    pub timeout: Option<Duration>,
    /// Where stdout and stderr go.
    pub log: PathBuf,
    /// Fail-fast window for processes that must stay up (servers): exiting inside it is an error.
    pub must_survive: Option<Duration>,
    /// Also copy the output to our stderr as it arrives.
    pub echo: bool,
    /// Exit statuses besides 0 that mean the step did its work: nsys exits with its workload's
    /// status, 143, when it stopped the workload with SIGTERM at the end of its `--duration`
    /// window (recorded on the H100, nsys 2025.3.1). Later steps and the artifact checks still
    /// tell a step that wrote nothing.
    pub ok_codes: Vec<i32>,
}

fn lossy_args<S: Serializer>(argv: &[OsString], serializer: S) -> std::result::Result<S::Ok, S::Error> {
    serializer.collect_seq(argv.iter().map(|a| a.to_string_lossy()))
}

impl RunPlan {
    /// A plan for `argv` logging to `log`, with no limit and no echo.
    pub fn new(label: impl Into<String>, argv: Vec<OsString>, log: impl Into<PathBuf>) -> Self {
        Self {
            label: label.into(),
            argv,
            env: Vec::new(),
            cwd: None,
            timeout: None,
            log: log.into(),
            must_survive: None,
            echo: false,
            ok_codes: Vec::new(),
        }
    }

    /// The command as a person would type it, each argument shell-quoted (for display only).
    pub fn display_command(&self) -> String {
        let env = self.env.iter().map(|(k, v)| format!("{k}={}", shell_quote(v)));
        let args = self.argv.iter().map(|a| shell_quote(&a.to_string_lossy()));
        env.chain(args).collect::<Vec<_>>().join(" ")
    }

    /// The program it runs, as text (empty for an empty plan).
    pub fn program(&self) -> String {
        self.argv.first().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default()
    }
}

/// Quotes `word` for display in a POSIX shell when it needs it.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `words` as one command line a POSIX shell takes back, each word quoted where it needs it
/// (for display: the command a report tells the user to run).
pub fn shell_join<S: AsRef<std::ffi::OsStr>>(words: &[S]) -> String {
    words.iter().map(|w| shell_quote(&w.as_ref().to_string_lossy())).collect::<Vec<_>>().join(" ")
}

/// How a finished step ended.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunOutcome {
    /// The step's label.
    pub label: String,
    /// Exit code, when it exited normally.
    pub exit_code: Option<i32>,
    /// Signal number, when a signal ended it.
    pub signal: Option<i32>,
    /// Wall time.
    pub elapsed: Duration,
    /// Its log file.
    pub log: PathBuf,
    /// Why the log could not be written (a full disk), when it could not: the output is lost.
    pub log_error: Option<String>,
}

impl RunOutcome {
    /// True when it exited 0.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0)
    }

    /// True when it exited 0 or with one of `plan`'s [`RunPlan::ok_codes`].
    pub fn success_for(&self, plan: &RunPlan) -> bool {
        self.success() || self.exit_code.is_some_and(|code| plan.ok_codes.contains(&code))
    }

    /// `with status 3` or `on signal 9`.
    pub fn describe(&self) -> String {
        describe(self.exit_code, self.signal)
    }
}

/// `with status 3`, `on signal 9`: how a process ended, in words.
pub fn describe(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(code), _) => format!("with status {code}"),
        (None, Some(signal)) => format!("on signal {signal}"),
        (None, None) => "for an unknown reason".to_owned(),
    }
}

/// An exit status as (exit code, signal).
pub fn status_parts(status: ExitStatus) -> (Option<i32>, Option<i32>) {
    use std::os::unix::process::ExitStatusExt;
    (status.code(), status.signal())
}
