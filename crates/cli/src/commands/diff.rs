//! `prof diff A B`: compare two timelines. (being written)

use clap::Args;
use prof_core::Registry;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `prof diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The baseline artifact.
    before: PathBuf,
    /// The artifact to compare with it.
    after: PathBuf,
}

/// Runs `prof diff`.
pub fn run(_registry: &Registry, _args: &DiffArgs) -> Result<ExitCode, String> {
    Err("prof diff is being written".to_owned())
}
