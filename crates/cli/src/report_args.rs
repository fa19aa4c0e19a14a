//! The report flags shared by every verb that ranks kernels (`analyze`, `breakdown`,
//! `profile`): parsed once, flattened into each verb's arguments.

use clap::Args;
use std::path::PathBuf;

/// `--top` and `--families`.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// Kernels to list.
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// Extra kernel-family rules (`family pattern` per line), tried before the built-ins.
    #[arg(long)]
    pub families: Option<PathBuf>,
}
