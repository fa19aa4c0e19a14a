//! End-to-end tool-version cache of `prof detect` (issue #10): the first run asks `nsys` and
//! `ncu` for their version, later runs answer from `$XDG_CACHE_HOME/prof/tool-versions.json`
//! without spawning them, and say exactly the same. The tools are counting wrappers around the
//! fakes of tests/fakes/nvidia (which replay the H200's recorded `--version` banners): each run
//! appends its arguments to a log, so the log tells how often prof spawned it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/mod.rs"]
mod support;

use support::{fakes, hermetic, path_with, success_json, Scratch};

/// A directory of counting `nsys` / `ncu` wrappers and the real fake `nvidia-smi`, plus a cache dir.
struct CountingTools {
    root: Scratch,
}

impl CountingTools {
    fn new(name: &str) -> Self {
        let root = Scratch::new(&format!("detect-cache-{name}"));
        let bin = root.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(fakes("nvidia").join("nvidia-smi"), bin.join("nvidia-smi")).unwrap();
        let tools = Self { root };
        for tool in ["nsys", "ncu"] {
            tools.write_wrapper(tool, "");
        }
        tools
    }

    /// (Re)writes the wrapper of `tool`; `extra` lengthens it, as an upgrade would change the file.
    fn write_wrapper(&self, tool: &str, extra: &str) {
        let log = self.root.path().join(format!("{tool}.runs"));
        let real = fakes("nvidia").join(tool);
        let script =
            format!("#!/bin/sh\n{extra}echo \"$*\" >> '{}'\nexec '{}' \"$@\"\n", log.display(), real.display());
        let path = self.root.path().join("bin").join(tool);
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }

    /// How many times `tool --version` ran.
    fn version_runs(&self, tool: &str) -> usize {
        let log = std::fs::read_to_string(self.root.path().join(format!("{tool}.runs"))).unwrap_or_default();
        log.lines().filter(|l| *l == "--version").count()
    }

    fn cache_home(&self) -> PathBuf {
        self.root.path().join("cache")
    }

    fn cache_file(&self) -> PathBuf {
        self.cache_home().join("prof/tool-versions.json")
    }

    /// Runs `prof args` with the wrappers on PATH, `cache_home` as XDG_CACHE_HOME and `env` on top.
    fn prof(&self, cache_home: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
        hermetic(path_with(&self.root.path().join("bin")))
            .env("XDG_CACHE_HOME", cache_home)
            .envs(env.iter().copied())
            .args(args)
            .output()
            .unwrap()
    }

    fn detect_json(&self, env: &[(&str, &str)]) -> Value {
        success_json(&self.prof(&self.cache_home(), env, &["detect", "--json"]))
    }
}

/// The NVIDIA entry's tool versions, as (name, version) pairs.
fn versions(doc: &Value) -> Vec<(String, Value)> {
    let nvidia = doc["vendors"].as_array().unwrap().iter().find(|v| v["vendor"] == "nvidia").unwrap();
    nvidia["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_owned(), t["version"].clone()))
        .collect()
}

fn version_of(doc: &Value, tool: &str) -> Value {
    versions(doc).into_iter().find(|(name, _)| name == tool).map(|(_, v)| v).unwrap()
}

#[test]
fn the_second_detect_does_not_spawn_the_tools_and_says_the_same() {
    let tools = CountingTools::new("second");
    let first = tools.detect_json(&[]);
    assert_eq!((tools.version_runs("nsys"), tools.version_runs("ncu")), (1, 1));
    // Versions as in tests/fixtures/nvidia/h200-detect/{nsys,ncu}-version.txt.
    assert_eq!(version_of(&first, "nsys"), "2025.3.1.0");
    assert_eq!(version_of(&first, "ncu"), "2025.3.1.0");
    let cache: Value = serde_json::from_slice(&std::fs::read(tools.cache_file()).unwrap()).unwrap();
    assert_eq!(cache["format"], "prof.tool-versions.v1");
    assert_eq!(cache["entries"].as_array().unwrap().len(), 2, "{cache}");

    let second = tools.detect_json(&[]);
    let third = tools.detect_json(&[]);
    assert_eq!((tools.version_runs("nsys"), tools.version_runs("ncu")), (1, 1), "answered from the cache");
    assert_eq!(second, first, "a cached answer changes nothing in the document");
    assert_eq!(third, first);

    // The table, too, is the same with and without the cache.
    let cached = tools.prof(&tools.cache_home(), &[], &["detect"]);
    let uncached = tools.prof(&tools.cache_home(), &[("PROF_NO_CACHE", "1")], &["detect"]);
    assert!(cached.status.success() && uncached.status.success());
    assert_eq!(String::from_utf8_lossy(&cached.stdout), String::from_utf8_lossy(&uncached.stdout));
    assert_eq!((tools.version_runs("nsys"), tools.version_runs("ncu")), (2, 2), "only the uncached run spawned");
}

#[test]
fn a_changed_tool_file_is_asked_again() {
    let tools = CountingTools::new("changed");
    tools.detect_json(&[]);
    tools.write_wrapper("nsys", "# upgraded\n");
    let doc = tools.detect_json(&[]);
    assert_eq!((tools.version_runs("nsys"), tools.version_runs("ncu")), (2, 1), "only the changed tool ran");
    assert_eq!(version_of(&doc, "nsys"), "2025.3.1.0");
    tools.detect_json(&[]);
    assert_eq!(tools.version_runs("nsys"), 2, "its new answer is cached in turn");
}

#[test]
fn prof_no_cache_spawns_every_time_and_writes_nothing() {
    let tools = CountingTools::new("off");
    tools.detect_json(&[("PROF_NO_CACHE", "1")]);
    tools.detect_json(&[("PROF_NO_CACHE", "1")]);
    assert_eq!((tools.version_runs("nsys"), tools.version_runs("ncu")), (2, 2));
    assert!(!tools.cache_home().exists(), "no cache directory made");
}

#[test]
fn an_unwritable_or_corrupt_cache_is_no_error() {
    let tools = CountingTools::new("bad-cache");
    let reference = tools.detect_json(&[("PROF_NO_CACHE", "1")]);
    // XDG_CACHE_HOME is a regular file: nothing can be written under it.
    let blocker = tools.root.path().join("blocker");
    std::fs::write(&blocker, "").unwrap();
    for _ in 0..2 {
        let out = tools.prof(&blocker, &[], &["detect", "--json"]);
        assert_eq!(success_json(&out), reference);
        assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(tools.version_runs("nsys"), 3, "no cache, so every run asks");
    // A corrupt cache file is ignored, then replaced by a good one.
    std::fs::create_dir_all(tools.cache_file().parent().unwrap()).unwrap();
    std::fs::write(tools.cache_file(), "{\"format\": \"prof.tool-versions.v1\", \"entries\": [{\"tool\"").unwrap();
    assert_eq!(tools.detect_json(&[]), reference);
    assert_eq!(tools.version_runs("nsys"), 4);
    assert_eq!(tools.detect_json(&[]), reference);
    assert_eq!(tools.version_runs("nsys"), 4, "the rewritten cache answers");
}
