//! The Ascend backend's own errors, converted into [`prof_core::Error`] at the trait boundary.

use std::path::PathBuf;

/// What can go wrong while reading Ascend tool output or toolkit files.
#[derive(Debug, thiserror::Error)]
pub enum AscendError {
    /// `npu-smi` (or another Ascend tool) printed something we could not parse.
    #[error("{tool}: unexpected output at line {line}: {reason}")]
    Output {
        /// The tool as invoked (`npu-smi info`).
        tool: String,
        /// 1-based line of the tool's output.
        line: usize,
        /// What was expected there, with the offending text.
        reason: String,
    },
    /// A toolkit file (`ascend_toolkit_install.info`) is malformed.
    #[error("{}{}: {reason}", path.display(), if *line > 0 { format!(":{line}") } else { String::new() })]
    File {
        /// The file.
        path: PathBuf,
        /// 1-based line; 0 when the whole file is at fault.
        line: usize,
        /// What was expected there.
        reason: String,
    },
}

impl AscendError {
    /// Builds an [`AscendError::Output`].
    pub fn output(tool: &str, line: usize, reason: impl Into<String>) -> Self {
        AscendError::Output { tool: tool.to_owned(), line, reason: reason.into() }
    }

    /// Builds an [`AscendError::File`].
    pub fn file(path: impl Into<PathBuf>, line: usize, reason: impl Into<String>) -> Self {
        AscendError::File { path: path.into(), line, reason: reason.into() }
    }
}

impl From<AscendError> for prof_core::Error {
    fn from(error: AscendError) -> Self {
        match error {
            AscendError::Output { tool, line, reason } => prof_core::Error::ToolOutput { tool, line, reason },
            AscendError::File { path, line, reason } => prof_core::Error::Artifact { path, line, reason },
        }
    }
}

pub(crate) use prof_timeline::error::quote;
