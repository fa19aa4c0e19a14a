//! Helpers shared by the end-to-end tests: run the `prof` binary (plainly, or hermetically with
//! the fake vendor tools on `PATH`), parse its JSON, make a fresh scratch directory. Include with
//! `#[path = "support/mod.rs"] mod support;`.
#![allow(dead_code)]

pub mod schema_check;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A path that does not exist: as `PATH`, `CUDA_HOME` or `LD_LIBRARY_PATH` nothing is found there.
pub const NOWHERE: &str = "/nonexistent";

/// The repository's tests/fixtures directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// Every file and directory under tests/fixtures (SOURCES.md left out), as
/// scripts/fixture_paths.py lists them.
pub fn every_fixture() -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        out.push(dir.to_owned());
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        let (dirs, files): (Vec<_>, Vec<_>) = entries.into_iter().partition(|p| p.is_dir());
        out.extend(files.into_iter().filter(|f| !f.ends_with("SOURCES.md")));
        for d in dirs {
            walk(&d, out);
        }
    }
    let mut out = Vec::new();
    walk(&fixtures(), &mut out);
    out
}

/// `tests/fixtures/<rel>` as a command-line argument for `prof`.
pub fn fixture_arg(rel: &str) -> String {
    fixtures().join(rel).display().to_string()
}

/// The fake vendor tools of `tests/fakes/<vendor>` (`nvidia`, `amd`, `ascend`, `ascend/garbage`),
/// scripts that replay outputs recorded on real machines.
pub fn fakes(vendor: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fakes").join(vendor)
}

/// A `PATH` on which the programs in `dir` come first and the system's (`sh`, `sleep`) still resolve.
pub fn path_with(dir: &Path) -> String {
    format!("{}:/usr/bin:/bin", dir.display())
}

/// A `prof` command that sees only what the test gives it: `PATH` is `path`; NVML, the ROCm SMI
/// library and CUDA point where nothing exists; no Ascend toolkit variable and no `FAKE_*` mode of
/// the caller's environment leaks in; its tool-version cache (`XDG_CACHE_HOME`) is a fresh empty
/// directory, so no answer of an earlier run is reused. Tests add their arguments and environment on top.
pub fn hermetic(path: impl AsRef<OsStr>) -> Command {
    static CACHES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let cache = scratch_dir(&format!("xdg-cache-{}", CACHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let mut command = Command::new(env!("CARGO_BIN_EXE_prof"));
    command
        .env("PATH", path)
        .env("XDG_CACHE_HOME", cache)
        .env("PROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1")
        .env("PROF_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so")
        .env("CUDA_HOME", NOWHERE)
        .env("LD_LIBRARY_PATH", NOWHERE)
        .env_remove("ASCEND_TOOLKIT_HOME")
        .env_remove("ASCEND_HOME_PATH");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("FAKE_") {
            command.env_remove(key);
        }
    }
    command
}

/// Runs `prof args` hermetically (see [`hermetic`]) with `path` as `PATH` and `env` on top.
pub fn prof_on_path(path: impl AsRef<OsStr>, env: &[(&str, &str)], args: &[&str]) -> Output {
    hermetic(path).args(args).envs(env.iter().copied()).output().expect("run prof")
}

/// Runs `prof args` hermetically with the fakes of `tests/fakes/<vendor>` first on `PATH` and
/// `env` (a fake's mode, say) on top.
pub fn prof_with_fakes(vendor: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
    prof_on_path(path_with(&fakes(vendor)), env, args)
}

/// Runs `prof` with `args` and no extra environment.
pub fn prof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prof")).args(args).output().expect("run prof")
}

/// Expects `out` to be a success and parses its stdout as JSON.
pub fn success_json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "prof failed ({}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let document: serde_json::Value = serde_json::from_slice(&out.stdout).expect("prof printed JSON");
    schema_check::assert_valid(&document);
    document
}

/// Runs `prof` with `args`, expects success, and parses its stdout as JSON.
pub fn prof_json(args: &[&str]) -> serde_json::Value {
    success_json(&prof(args))
}

/// An empty directory for one test, under cargo's per-target temporary directory. Its name
/// carries the process id: test binaries run at the same time share that directory.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// A working directory of its own for one run of prof: a verb that runs a command locks its
/// `--out` (default `prof-out` in the working directory), so runs sharing one directory would
/// refuse each other.
pub fn own_cwd() -> PathBuf {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    scratch_dir(&format!("cwd-{}", RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)))
}

/// A [`scratch_dir`] that is removed again when the test is done with it.
pub struct Scratch(PathBuf);

impl Scratch {
    /// Makes the empty directory `name` (plus the process id).
    pub fn new(name: &str) -> Self {
        Self(scratch_dir(name))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
