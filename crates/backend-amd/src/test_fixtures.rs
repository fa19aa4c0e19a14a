//! Test support: the recorded fixtures under the workspace's `tests/fixtures/amd`, and scratch
//! directories holding fake ROCm installs.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The text of `tests/fixtures/amd/<path>`.
pub fn fixture(path: &str) -> String {
    let full = fixture_path(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The absolute path of `tests/fixtures/amd/<path>`.
pub fn fixture_path(path: &str) -> PathBuf {
    PathBuf::from(format!("{}/../../tests/fixtures/amd/{path}", env!("CARGO_MANIFEST_DIR")))
}

/// A scratch directory, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A fresh directory named after `label` and this process.
    pub fn new(label: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("prof-amd-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `content` to `relative` (creating parents) and returns its path.
    pub fn file(&self, relative: &str, content: &str) -> PathBuf {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    /// Writes an executable script to `relative` and returns its path.
    pub fn program(&self, relative: &str, script: &str) -> PathBuf {
        let path = self.file(relative, script);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
