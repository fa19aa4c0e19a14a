//! The NVIDIA backend's own errors, converted into [`prof_core::Error`] at the trait boundary.

/// What can go wrong while reading NVIDIA tool output or the NVML library.
#[derive(Debug, thiserror::Error)]
pub enum NvidiaError {
    /// `nvidia-smi` (or another NVIDIA tool) printed something we could not parse.
    #[error("{tool}: unexpected output at line {line}: {reason}")]
    Output {
        /// The tool as invoked (`nvidia-smi --query-gpu`).
        tool: String,
        /// 1-based line of the tool's output.
        line: usize,
        /// What was expected there, with the offending text.
        reason: String,
    },
    /// NVML could be loaded but not used.
    #[error("NVML ({library}): {reason}")]
    Nvml {
        /// The library name or path that was loaded.
        library: String,
        /// What failed.
        reason: String,
    },
}

impl NvidiaError {
    /// Builds an [`NvidiaError::Output`].
    pub fn output(tool: &str, line: usize, reason: impl Into<String>) -> Self {
        NvidiaError::Output { tool: tool.to_owned(), line, reason: reason.into() }
    }
}

impl From<NvidiaError> for prof_core::Error {
    fn from(error: NvidiaError) -> Self {
        match error {
            NvidiaError::Output { tool, line, reason } => prof_core::Error::ToolOutput { tool, line, reason },
            other @ NvidiaError::Nvml { .. } => prof_core::Error::Unsupported(other.to_string()),
        }
    }
}

pub(crate) use prof_timeline::error::quote;
