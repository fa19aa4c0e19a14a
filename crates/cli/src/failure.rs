//! Failures as programs read them: a class, an exit status per class, and with `--json` a
//! `prof.error.v1` document on stdout.
//!
//! | exit | class (`kind`) | when |
//! | --- | --- | --- |
//! | 0 | | success |
//! | 1 | `failed` | anything not below (a tool that misbehaved, a report that could not be written) |
//! | 2 | `usage` | a bad flag or value, a request no tool here can serve (clap's own errors also exit 2) |
//! | 3 | `bad_input` | an artifact that cannot be read: missing, unreadable, malformed, not a known format |
//! | 4 | `tool_missing` | a vendor tool, library or device that is not there (the hint is its install line) |
//! | 5 | `no_artifact` | a capture ran but left no usable artifact |
//! | 124 | `timed_out` | a step ran past its limit and its process group was stopped |
//! | 127 | `cannot_start` | the command could not be started |
//! | 130, 143, 129 | `interrupted` | SIGINT, SIGTERM, SIGHUP: the workload's group was stopped |
//! | the workload's | `workload_failed` | the profiled command failed: its own status, or 128 + its signal |
//!
//! The JSON document: `{"schema": "prof.error.v1", "kind", "exit_code", "message", "path"?,
//! "line"?, "hint"?}`.

use prof_core::Error;
use serde::Serialize;
use std::process::ExitCode;

/// What kind of failure, and so which exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Anything not classified.
    Failed,
    /// A bad flag or request.
    Usage,
    /// An artifact that cannot be read.
    BadInput,
    /// A tool, library or device that is not there.
    ToolMissing,
    /// A capture that left no usable artifact.
    NoArtifact,
    /// A step past its time limit.
    TimedOut,
    /// A command that could not be started.
    CannotStart,
    /// Stopped by a signal to prof.
    Interrupted,
    /// The profiled command failed.
    WorkloadFailed,
    /// An output prof was asked to write was lost (a full disk, a short write): stdout or a
    /// file; exit 74 (sysexits' `EX_IOERR`).
    OutputLost,
}

/// One failure of a verb.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Failure {
    /// `prof.error.v1`.
    pub schema: &'static str,
    /// Its class.
    pub kind: Kind,
    /// prof's exit status for it.
    pub exit_code: u8,
    /// What went wrong, as printed on stderr.
    pub message: String,
    /// The file at fault, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Its 1-based line (or record), where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What to do about it, where known (an install line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Exit status of a class that has one status.
fn status(kind: Kind) -> u8 {
    match kind {
        Kind::Failed | Kind::WorkloadFailed => 1,
        Kind::Usage => 2,
        Kind::BadInput => 3,
        Kind::ToolMissing => 4,
        Kind::NoArtifact => 5,
        Kind::TimedOut => 124,
        Kind::CannotStart => 127,
        Kind::Interrupted => 130,
        Kind::OutputLost => 74,
    }
}

impl Failure {
    /// A failure of `kind` with its usual status.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            schema: "prof.error.v1",
            kind,
            exit_code: status(kind),
            message: message.into(),
            path: None,
            line: None,
            hint: None,
        }
    }

    /// The profiled command failed with `status` (its exit status, or 128 + its signal).
    pub fn workload(status: u8, message: impl Into<String>) -> Self {
        Self { exit_code: status.max(1), ..Self::new(Kind::WorkloadFailed, message) }
    }

    /// Stopped by `signal` (exit 128 + signal).
    pub fn interrupted(signal: i32, message: impl Into<String>) -> Self {
        let code = u8::try_from(128 + signal).unwrap_or(130);
        Self { exit_code: code, ..Self::new(Kind::Interrupted, message) }
    }

    /// Classifies a failure that has no class yet (a loader's plain error is bad input).
    pub fn or_kind(mut self, kind: Kind) -> Self {
        if self.kind == Kind::Failed {
            self.exit_code = status(kind);
            self.kind = kind;
        }
        self
    }

    /// Names the file at fault.
    pub fn at_path(mut self, path: impl Into<String>) -> Self {
        self.path.get_or_insert(path.into());
        self
    }

    /// Reports it: the message on stderr, and with `json` the document on stdout. Returns
    /// the exit status.
    pub fn report(&self, json: bool) -> ExitCode {
        eprintln!("prof: {}", crate::stdout::printable(&self.message));
        if json {
            if let Ok(text) = serde_json::to_string_pretty(self) {
                crate::stdout::write_json_stdout(&format!("{text}\n"));
            }
        }
        ExitCode::from(self.exit_code)
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Self::new(Kind::Failed, message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        Self::new(Kind::Failed, message)
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        let message = error.to_string();
        match error {
            Error::UnknownFormat { path, .. } => Self {
                hint: Some("`prof analyze --help` lists the formats prof reads, with examples".to_owned()),
                ..Self::new(Kind::Failed, message).at_path(path.display().to_string())
            },
            Error::ToolOutput { .. } | Error::Unsupported(_) => Self::new(Kind::Failed, message),
            Error::Artifact { path, line, .. } => {
                let line = (line > 0).then_some(line);
                Self { line, ..Self::new(Kind::BadInput, message).at_path(path.display().to_string()) }
            }
            Error::Io { path, .. } => Self::new(Kind::BadInput, message).at_path(path.display().to_string()),
            Error::ToolMissing { install, .. } => Self { hint: Some(install), ..Self::new(Kind::ToolMissing, message) },
            Error::Spawn { .. } => Self::new(Kind::CannotStart, message),
            Error::TimedOut { .. } => Self::new(Kind::TimedOut, message),
            Error::DiedEarly { .. } => Self::new(Kind::WorkloadFailed, message),
            Error::StepFailed { exit_code, signal, .. } => {
                let status = match (exit_code, signal) {
                    (Some(code), _) => u8::try_from(code).unwrap_or(1),
                    (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
                    (None, None) => 1,
                };
                Self::workload(status, message)
            }
            Error::Interrupted { signal, .. } => Self::interrupted(signal, message),
            Error::ArtifactInvalid { path, .. } => {
                Self::new(Kind::NoArtifact, message).at_path(path.display().to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn each_core_error_gets_its_class_status_and_fields() {
        let bad = Failure::from(Error::artifact("/x/trace.json", 12, "unexpected end"));
        assert_eq!((bad.kind, bad.exit_code, bad.line), (Kind::BadInput, 3, Some(12)));
        assert_eq!(bad.path.as_deref(), Some("/x/trace.json"));
        let missing =
            Failure::from(Error::ToolMissing { tool: "nsys".into(), install: "apt install nsight-systems".into() });
        assert_eq!((missing.kind, missing.exit_code), (Kind::ToolMissing, 4));
        assert_eq!(missing.hint.as_deref(), Some("apt install nsight-systems"));
        let none =
            Failure::from(Error::ArtifactInvalid { path: PathBuf::from("/o/cupti"), reason: "is 49 bytes".into() });
        assert_eq!((none.kind, none.exit_code), (Kind::NoArtifact, 5));
        let late = Failure::from(Error::TimedOut {
            program: "python3".into(),
            limit: std::time::Duration::from_secs(1),
            log: PathBuf::from("l"),
        });
        assert_eq!(late.exit_code, 124);
        assert_eq!(Failure::interrupted(15, "stopped").exit_code, 143);
        assert_eq!(Failure::workload(0, "odd").exit_code, 1, "a failed workload never exits 0");
        let step = |exit_code, signal| Error::StepFailed { exit_code, signal, message: "step".into() };
        assert_eq!(Failure::from(step(Some(3), None)).exit_code, 3, "the workload's own status");
        assert_eq!(Failure::from(step(None, Some(9))).exit_code, 137);
        assert_eq!(Failure::from(step(Some(3), None)).kind, Kind::WorkloadFailed);
        assert_eq!(Failure::from("x").or_kind(Kind::BadInput).exit_code, 3);
        assert_eq!(
            Failure::from(Error::io("/p", std::io::Error::other("e"))).or_kind(Kind::Usage).kind,
            Kind::BadInput
        );
        assert_eq!(crate::stdout::printable("a\u{1b}]0;owned\u{7}\tb\nc\r"), "a\\x1b]0;owned\\x07\tb\nc\\x0d");
        let json = serde_json::to_value(&bad).unwrap();
        assert_eq!(json["schema"], "prof.error.v1");
        assert_eq!(json["kind"], "bad_input");
        assert!(json.get("hint").is_none());
    }
}
