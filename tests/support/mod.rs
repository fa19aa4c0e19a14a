//! Helpers shared by the end-to-end tests: run the `prof` binary, parse its JSON, make a
//! fresh scratch directory. Include with `#[path = "support/mod.rs"] mod support;`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's tests/fixtures directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// Runs `prof` with `args` and no extra environment.
pub fn prof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prof")).args(args).output().expect("run prof")
}

/// Runs `prof` with `args`, expects success, and parses its stdout as JSON.
pub fn prof_json(args: &[&str]) -> serde_json::Value {
    let out = prof(args);
    assert!(out.status.success(), "prof {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("prof printed JSON")
}

/// An empty directory for one test, under cargo's per-target temporary directory.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}
