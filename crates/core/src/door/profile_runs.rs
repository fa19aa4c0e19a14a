//! The TensorBoard profile layout that `jax.profiler.trace(LOGDIR)`, the TensorFlow profiler
//! and the PyTorch TensorBoard plugin write: `LOGDIR/plugins/profile/<run>/`, one folder per
//! capture named by its start time (`2026_12_06_22_00_00`), each holding that capture's files
//! (`<host>.xplane.pb`, `<host>.trace.json.gz`, …).

use std::path::{Path, PathBuf};

/// The latest run of the log directory `dir` (the greatest run name: they are timestamps) and
/// how many runs it holds; `None` when `dir` has no `plugins/profile/` with a run in it.
pub(super) fn latest_run(dir: &Path) -> Option<(PathBuf, usize)> {
    let runs_dir = dir.join("plugins").join("profile");
    let mut runs: Vec<PathBuf> = super::entries(&runs_dir).into_iter().filter(|p| p.is_dir()).collect();
    let count = runs.len();
    runs.pop().map(|latest| (latest, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_run_is_the_greatest_timestamp() {
        let dir = std::env::temp_dir().join(format!("prof-profile-runs-{}", std::process::id()));
        let runs = dir.join("plugins/profile");
        for run in ["2026_12_06_09_00_00", "2026_12_06_22_00_00", "2026_12_05_23_59_59"] {
            std::fs::create_dir_all(runs.join(run)).unwrap();
        }
        std::fs::write(runs.join("not_a_run.txt"), b"x").unwrap();
        assert_eq!(latest_run(&dir), Some((runs.join("2026_12_06_22_00_00"), 3)));
        assert_eq!(latest_run(&runs), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
