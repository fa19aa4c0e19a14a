//! The one error type of `prof-core`, shared by every backend through `Error::*` variants
//! that carry what a user needs to act: the file and line, the tool, the install line.

use std::path::PathBuf;
use std::time::Duration;

/// Result alias used throughout `prof-core` and the backends.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in detection, capture and loading.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A vendor tool printed something we could not parse.
    #[error("{tool}: unexpected output at line {line}: {reason}")]
    ToolOutput {
        /// The tool, as invoked (`nvidia-smi --query-gpu`).
        tool: String,
        /// 1-based line of the tool's output.
        line: usize,
        /// What was expected there.
        reason: String,
    },
    /// An artifact file is malformed at a known position (`path:line: reason`; `path: reason`
    /// when the whole file is at fault).
    #[error("{}{}: {reason}", path.display(), if *line > 0 { format!(":{line}") } else { String::new() })]
    Artifact {
        /// The artifact file.
        path: PathBuf,
        /// 1-based line (or record) number; 0 when the whole file is at fault.
        line: usize,
        /// What was expected there.
        reason: String,
    },
    /// A required tool or library is not installed.
    #[error("{tool} is not installed: {install}")]
    ToolMissing {
        /// The missing tool.
        tool: String,
        /// The exact line that installs it.
        install: String,
    },
    /// A process could not be started.
    #[error("could not start {program}: {source}")]
    Spawn {
        /// The program that failed to start.
        program: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A process ran past its time limit; its whole process group was stopped.
    #[error("{program} ran past its {limit:?} limit and was stopped (log: {})", log.display())]
    TimedOut {
        /// The program.
        program: String,
        /// The limit it exceeded.
        limit: Duration,
        /// Its log file.
        log: PathBuf,
    },
    /// A process that should have kept running exited during its start-up window.
    #[error("{program} exited {status} after {elapsed:.1?}, during start-up; last log lines:\n{log_tail}")]
    DiedEarly {
        /// The program.
        program: String,
        /// How it exited (`with status 3`, `on signal 9`).
        status: String,
        /// How long it lived.
        elapsed: Duration,
        /// The last lines of its log.
        log_tail: String,
    },
    /// A signal ended prof (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT); the started process group was
    /// stopped first.
    #[error("interrupted by {}: {program} and its process group were stopped", signal_name(*signal))]
    Interrupted {
        /// The program that was running.
        program: String,
        /// The signal prof received.
        signal: i32,
    },
    /// A step of a capture (the workload, or the tool running it) exited with a failure.
    #[error("{message}")]
    StepFailed {
        /// Its exit status, when it exited.
        exit_code: Option<i32>,
        /// The signal that ended it, when one did.
        signal: Option<i32>,
        /// What happened, with the last lines of its log.
        message: String,
    },
    /// A capture finished but its artifact is missing or too small to be real.
    #[error("artifact {}: {reason}", path.display())]
    ArtifactInvalid {
        /// Where the artifact was expected.
        path: PathBuf,
        /// Why it does not count (missing, 0 bytes, below the minimum size).
        reason: String,
    },
    /// An I/O error on a named file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The request cannot be served by this backend or on this machine.
    #[error("{0}")]
    Unsupported(String),
    /// No reader of any backend takes the path.
    #[error(
        "{}: not a format prof reads: it is {looks_like}; point `prof analyze` at a profiler's output \
         (`prof analyze --help` lists the formats, with examples)\n  it reads:\n{reads}",
        path.display()
    )]
    UnknownFormat {
        /// The path given.
        path: PathBuf,
        /// What it looked like (`a JSON object`, `an empty file`).
        looks_like: String,
        /// The formats prof reads, one backend a line.
        reads: String,
    },
}

/// `SIGINT (Ctrl-C)`, `SIGTERM`, … for a signal number.
pub fn signal_name(signal: i32) -> String {
    match signal {
        2 => "SIGINT (Ctrl-C)".to_owned(),
        15 => "SIGTERM".to_owned(),
        1 => "SIGHUP".to_owned(),
        3 => "SIGQUIT".to_owned(),
        9 => "SIGKILL".to_owned(),
        other => format!("signal {other}"),
    }
}

/// The note of a table whose last row has no line break: every writer prof reads ends each
/// row with one, so the file was cut while it was written and that row (whose last field may
/// have lost digits) was left out.
pub fn cut_last_row(path: &std::path::Path, line: usize) -> String {
    format!("{}:{line}: the last row has no line break (the file was cut short); it was left out", path.display())
}

/// Quotes a piece of tool output for an error message, trimmed and shortened to a readable
/// length, so a garbage line never floods the terminal.
pub fn quote(text: &str) -> String {
    const MAX: usize = 80;
    let text = text.trim();
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("`{}…`", &text[..cut]),
        None => format!("`{text}`"),
    }
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// Builds an [`Error::ToolOutput`].
    pub fn tool_output(tool: impl Into<String>, line: usize, reason: impl Into<String>) -> Self {
        Error::ToolOutput { tool: tool.into(), line, reason: reason.into() }
    }

    /// Builds an [`Error::Artifact`].
    pub fn artifact(path: impl Into<PathBuf>, line: usize, reason: impl Into<String>) -> Self {
        Error::Artifact { path: path.into(), line, reason: reason.into() }
    }
}
