//! `prof analyze DIR` over a multi-rank job: a directory holding one artifact (or profile
//! directory) per rank, as torchrun and Slurm jobs write them. (being written)

use prof_core::families::Families;
use prof_core::Registry;
use std::path::Path;
use std::process::ExitCode;

/// Runs the multi-rank analysis when `path` is a multi-rank directory; `None` otherwise.
pub fn try_run(
    _registry: &Registry,
    _path: &Path,
    _families: &Families,
    _json: bool,
) -> Option<Result<ExitCode, String>> {
    None
}
