use super::*;
use std::ffi::OsString;
use std::time::{Duration, SystemTime};

/// A fresh directory holding a fake tool file `nsys` and the cache file path beside it.
struct Sandbox {
    dir: PathBuf,
}

impl Sandbox {
    fn new(label: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("prof-tool-cache-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("nsys"), "#!/bin/sh\necho 'NVIDIA Nsight Systems version 2025.3.1.0'\n").unwrap();
        Self { dir }
    }

    fn tool(&self) -> PathBuf {
        self.dir.join("nsys")
    }

    fn cache_file(&self) -> PathBuf {
        self.dir.join("cache/prof").join(FILE_NAME)
    }

    fn cache(&self) -> ToolCache {
        ToolCache::at(self.cache_file())
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const BANNER: &str = "NVIDIA Nsight Systems version 2025.3.1.0\n";

#[test]
fn a_stored_answer_is_found_again_for_the_same_file() {
    let sandbox = Sandbox::new("hit");
    let cache = sandbox.cache();
    let id = ToolIdentity::of(&sandbox.tool()).unwrap();
    assert_eq!(cache.lookup(&id, "--version"), None, "empty cache");
    cache.store(&id, "--version", BANNER).unwrap();
    assert_eq!(cache.lookup(&id, "--version").as_deref(), Some(BANNER));
    assert_eq!(cache.lookup(&id, "--help"), None, "another query is another entry");
    // The same file through a symlink is the same tool (the key is the canonical path).
    let link = sandbox.dir.join("nsys-link");
    std::os::unix::fs::symlink(sandbox.tool(), &link).unwrap();
    assert_eq!(ToolIdentity::of(&link).as_ref(), Some(&id));
    // No temporary file is left beside the cache.
    let names: Vec<_> = std::fs::read_dir(sandbox.cache_file().parent().unwrap()).unwrap().flatten().collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn any_change_to_the_file_is_a_miss() {
    let sandbox = Sandbox::new("miss");
    let cache = sandbox.cache();
    let id = ToolIdentity::of(&sandbox.tool()).unwrap();
    cache.store(&id, "--version", BANNER).unwrap();
    // Field by field: each one alone invalidates the entry.
    let changed = [
        ToolIdentity { size: id.size + 1, ..id.clone() },
        ToolIdentity { mtime: (id.mtime.0 + 1, id.mtime.1), ..id.clone() },
        ToolIdentity { ctime: (id.ctime.0, id.ctime.1 + 1), ..id.clone() },
        ToolIdentity { inode: id.inode + 1, ..id.clone() },
        ToolIdentity { device: id.device + 1, ..id.clone() },
        ToolIdentity { path: format!("{}-other", id.path), ..id.clone() },
    ];
    for other in &changed {
        assert_eq!(cache.lookup(other, "--version"), None, "{other:?}");
    }
    // On disk: an mtime set back (as package managers do) and a size change.
    let file = std::fs::File::options().write(true).open(sandbox.tool()).unwrap();
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000)).unwrap();
    let touched = ToolIdentity::of(&sandbox.tool()).unwrap();
    assert_eq!(touched.mtime, (1_600_000_000, 0));
    assert_eq!(cache.lookup(&touched, "--version"), None);
    std::fs::write(sandbox.tool(), "#!/bin/sh\necho 'NVIDIA Nsight Systems version 2025.10.1.0'\n").unwrap();
    let grown = ToolIdentity::of(&sandbox.tool()).unwrap();
    assert_ne!(grown.size, id.size);
    assert_eq!(cache.lookup(&grown, "--version"), None);
    // Storing the new answer replaces the old entry of that path rather than adding one.
    cache.store(&grown, "--version", "version 2025.10.1.0\n").unwrap();
    assert_eq!(read(&sandbox.cache_file()).entries.len(), 1);
    assert_eq!(cache.lookup(&grown, "--version").as_deref(), Some("version 2025.10.1.0\n"));
}

#[test]
fn corrupt_or_foreign_files_are_ignored_and_rewritten() {
    let sandbox = Sandbox::new("corrupt");
    let cache = sandbox.cache();
    let id = ToolIdentity::of(&sandbox.tool()).unwrap();
    let entry = serde_json::json!({"tool": id, "query": "--version", "output": BANNER});
    let contents = [
        b"{\"format\": \"prof.tool-versions.v1\", \"entr".to_vec(),
        vec![0xff, 0xfe, 0x00, 0x01],
        Vec::new(),
        serde_json::to_vec(&serde_json::json!({"format": "prof.tool-versions.v0", "entries": [entry]})).unwrap(),
        serde_json::to_vec(&serde_json::json!([1, 2, 3])).unwrap(),
    ];
    std::fs::create_dir_all(sandbox.cache_file().parent().unwrap()).unwrap();
    for content in contents {
        std::fs::write(sandbox.cache_file(), &content).unwrap();
        assert_eq!(cache.lookup(&id, "--version"), None, "{}", String::from_utf8_lossy(&content));
        cache.store(&id, "--version", BANNER).unwrap();
        assert_eq!(cache.lookup(&id, "--version").as_deref(), Some(BANNER), "rewritten");
    }
    // A file too big to be a cache prof wrote is not read.
    std::fs::write(sandbox.cache_file(), vec![b' '; MAX_FILE_BYTES as usize + 1]).unwrap();
    assert_eq!(cache.lookup(&id, "--version"), None);
}

#[test]
fn an_unwritable_place_means_no_cache_and_no_panic() {
    let sandbox = Sandbox::new("unwritable");
    let id = ToolIdentity::of(&sandbox.tool()).unwrap();
    // A regular file where the cache directory should be: not creatable, even for root.
    let blocker = sandbox.dir.join("blocker");
    std::fs::write(&blocker, "").unwrap();
    let cache = ToolCache::at(blocker.join("prof").join(FILE_NAME));
    assert!(cache.store(&id, "--version", BANNER).is_err());
    assert_eq!(cache.lookup(&id, "--version"), None);
    let disabled = ToolCache::disabled();
    disabled.store(&id, "--version", BANNER).unwrap();
    assert_eq!(disabled.lookup(&id, "--version"), None);
    assert_eq!(ToolIdentity::of(Path::new("/nonexistent/nsys")), None);
}

#[test]
fn entries_of_vanished_tools_are_dropped_and_the_count_is_bounded() {
    let sandbox = Sandbox::new("prune");
    let cache = sandbox.cache();
    let id = ToolIdentity::of(&sandbox.tool()).unwrap();
    let gone = ToolIdentity { path: sandbox.dir.join("gone").display().to_string(), ..id.clone() };
    cache.store(&gone, "--version", BANNER).unwrap();
    cache.store(&id, "--version", BANNER).unwrap();
    let entries = read(&sandbox.cache_file()).entries;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].tool, id);
    for query in 0..MAX_ENTRIES + 5 {
        cache.store(&id, &format!("--query-{query}"), BANNER).unwrap();
    }
    let entries = read(&sandbox.cache_file()).entries;
    assert_eq!(entries.len(), MAX_ENTRIES);
    assert_eq!(entries.last().unwrap().query, format!("--query-{}", MAX_ENTRIES + 4), "the newest is kept");
    assert!(cache.store(&id, "--huge", &"x".repeat(MAX_ANSWER_BYTES + 1)).is_ok());
    assert_eq!(cache.lookup(&id, "--huge"), None, "an oversized answer is not cached");
}

#[test]
fn the_place_follows_xdg_then_home_and_prof_no_cache_turns_it_off() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v))
    };
    let file = |pairs| ToolCache::from_vars(env(pairs)).file().map(Path::to_path_buf);
    let xdg = Some(PathBuf::from("/x/cache/prof/tool-versions.json"));
    let home = Some(PathBuf::from("/home/u/.cache/prof/tool-versions.json"));
    assert_eq!(file(&[("XDG_CACHE_HOME", "/x/cache"), ("HOME", "/home/u")]), xdg);
    assert_eq!(file(&[("HOME", "/home/u")]), home);
    assert_eq!(file(&[("XDG_CACHE_HOME", ""), ("HOME", "/home/u")]), home, "empty means unset");
    assert_eq!(file(&[("XDG_CACHE_HOME", "relative"), ("HOME", "/home/u")]), home, "relative is ignored");
    assert_eq!(file(&[]), None);
    assert_eq!(file(&[("PROF_NO_CACHE", "1"), ("XDG_CACHE_HOME", "/x/cache")]), None);
    assert_eq!(file(&[("PROF_NO_CACHE", "0"), ("XDG_CACHE_HOME", "/x/cache")]), xdg, "0 leaves it on");
    assert_eq!(file(&[("PROF_NO_CACHE", ""), ("XDG_CACHE_HOME", "/x/cache")]), xdg);
}

#[test]
fn parallel_stores_of_one_process_keep_every_entry() {
    let sandbox = Sandbox::new("parallel");
    let cache = sandbox.cache();
    let id = ToolIdentity::of(&sandbox.tool()).unwrap();
    std::thread::scope(|scope| {
        for query in 0..8 {
            let (cache, id) = (&cache, &id);
            scope.spawn(move || cache.store(id, &format!("--q{query}"), BANNER).unwrap());
        }
    });
    assert_eq!(read(&sandbox.cache_file()).entries.len(), 8);
}
