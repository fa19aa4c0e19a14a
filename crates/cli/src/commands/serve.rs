//! `prof serve`: profile a model server under a short benchmark. (being written)

use clap::Args;
use prof_core::Registry;
use std::process::ExitCode;

/// Arguments of `prof serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {}

/// Runs `prof serve`.
pub fn run(_registry: &Registry, _args: &ServeArgs) -> Result<ExitCode, String> {
    Err("prof serve is being written".to_owned())
}
