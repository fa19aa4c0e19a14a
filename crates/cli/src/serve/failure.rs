//! Why a `prof serve` session did not finish: what went wrong, the signal that ended it, and
//! what of the server's process group was left.

/// Why a session did not finish.
#[derive(Debug)]
pub struct SessionFailure {
    /// What went wrong, with the log tail where there is one.
    pub message: String,
    /// The signal (SIGINT for Ctrl-C, or SIGTERM) that ended it, if one did.
    pub stopped_by: Option<i32>,
    /// The server's process group, when it was started.
    pub server_pgid: Option<i32>,
    /// Processes of the server's group still running after clean-up.
    pub server_left: Vec<i32>,
}

impl SessionFailure {
    /// A failure saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), stopped_by: None, server_pgid: None, server_left: Vec::new() }
    }

    /// The failure of a session that `signal` (SIGINT, SIGTERM, SIGHUP, SIGQUIT) ended during `phase`.
    pub fn stopped_by(signal: i32, phase: &str) -> Self {
        let what = match signal {
            libc::SIGINT => "interrupted".to_owned(),
            other => prof_timeline::error::signal_name(other),
        };
        Self { stopped_by: Some(signal), ..Self::new(format!("{what} during {phase}; the server was stopped")) }
    }

    /// The exit status for a session a signal ended: 128 + the signal, as a shell reports a
    /// process that signal killed (130 for Ctrl-C, 143 for SIGTERM).
    pub fn exit_status(&self) -> Option<u8> {
        self.stopped_by.and_then(|signal| u8::try_from(128 + signal).ok())
    }
}
