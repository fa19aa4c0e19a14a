//! The flag groups the verbs share, parsed once and flattened into each verb's arguments:
//! the report flags of every verb that ranks kernels (`analyze`, `breakdown`, `profile`) and
//! the run flags of every verb that runs the workload under a tool (`breakdown`,
//! `deep-dive`, `profile`). The output-file flags are [`crate::outputs::OutputArgs`].

use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// `--timeout` and `--out`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Hard limit for each run of the command.
    #[arg(long, default_value = "10m", value_parser = crate::durations::parse_duration)]
    pub timeout: Duration,
    /// Directory for logs and artifacts (`prof profile`: one folder per step under it).
    #[arg(long, default_value = "prof-out")]
    pub out: PathBuf,
}

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

/// `out` under a job launcher ([`prof_core::launcher`]): its `rank<R>` subdirectory, so that
/// the ranks of a job sharing one `--out` write apart; `out` itself outside a launched job.
pub fn per_rank(out: PathBuf) -> PathBuf {
    match prof_core::launcher::from_env() {
        Some(launched) => out.join(format!("rank{}", launched.rank)),
        None => out,
    }
}
