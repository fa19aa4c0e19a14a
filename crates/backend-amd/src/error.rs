//! The AMD backend's own errors, converted into [`prof_core::Error`] at the trait boundary.

/// What can go wrong while reading AMD tool output.
#[derive(Debug, thiserror::Error)]
pub enum AmdError {
    /// `rocm-smi` or `amd-smi` printed something we could not parse.
    #[error("{tool}: unexpected output at line {line}: {reason}")]
    Output {
        /// The tool as invoked (`rocm-smi --json`, `amd-smi monitor -ptumv`).
        tool: String,
        /// 1-based line of the tool's output.
        line: usize,
        /// What was expected there, with the offending text.
        reason: String,
    },
}

impl AmdError {
    /// Builds an [`AmdError::Output`].
    pub fn output(tool: &str, line: usize, reason: impl Into<String>) -> Self {
        AmdError::Output { tool: tool.to_owned(), line, reason: reason.into() }
    }
}

impl From<AmdError> for prof_core::Error {
    fn from(error: AmdError) -> Self {
        match error {
            AmdError::Output { tool, line, reason } => prof_core::Error::ToolOutput { tool, line, reason },
        }
    }
}

pub(crate) use prof_timeline::error::quote;
