//! A small on-disk cache of what vendor tools answered to a version query, so that `prof detect`
//! spawns `nsys --version` (60 ms on the H200) once per installed file, not on every run.
//!
//! Each answer is keyed by the tool's canonical path and its file's size, modification and
//! change times, inode and device: an upgrade, a reinstall or a different tool at the same path
//! changes one of them and the query runs again. Only the text a version query printed is kept,
//! never whether a tool is present (that is always checked live). The file is
//! `$XDG_CACHE_HOME/prof/tool-versions.json` (`$HOME/.cache/prof/…` when `XDG_CACHE_HOME` is
//! unset); `PROF_NO_CACHE=1` turns the cache off. A missing, unreadable, corrupt or
//! foreign-format file reads as empty and is rewritten by the next store; an unwritable
//! directory means no cache, never an error. Writes go to a temporary file renamed over the old
//! one, so a reader never sees half a file.

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Environment variable that turns the cache off (any value but empty or `0`).
pub(crate) const NO_CACHE_ENV: &str = "PROF_NO_CACHE";

/// The cache file's name inside `<cache dir>/prof`.
pub(crate) const FILE_NAME: &str = "tool-versions.json";

/// The format tag written into the file; a file with any other tag is ignored and replaced.
pub(crate) const FORMAT: &str = "prof.tool-versions.v1";

/// Most entries kept; the oldest go first past it (a machine has a handful of tools).
const MAX_ENTRIES: usize = 64;

/// A file larger than this is not a cache prof wrote; it is ignored rather than read.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// An answer larger than this is not a version banner; it is not cached.
const MAX_ANSWER_BYTES: usize = 16 << 10;

/// Serialises read-modify-write of the file between threads of one process (detection queries
/// tools in parallel); between processes the last rename wins, losing at most an entry.
static STORE_LOCK: Mutex<()> = Mutex::new(());

/// Distinguishes temporary files of one process's successive stores.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// What identifies one installed tool file: any change to it changes one of these fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolIdentity {
    /// Canonical path (symlinks resolved), as UTF-8.
    pub path: String,
    /// File size in bytes.
    pub size: u64,
    /// Modification time: seconds and nanoseconds since the epoch.
    pub mtime: (i64, i64),
    /// Status change time (set by any rewrite, `cp -p` included): seconds and nanoseconds.
    pub ctime: (i64, i64),
    /// Inode number.
    pub inode: u64,
    /// Device the inode is on.
    pub device: u64,
}

impl ToolIdentity {
    /// The identity of the file `program` resolves to; `None` when it cannot be read or its
    /// canonical path is not UTF-8 (then nothing is cached for it).
    pub fn of(program: &Path) -> Option<Self> {
        let canonical = std::fs::canonicalize(program).ok()?;
        let meta = std::fs::metadata(&canonical).ok()?;
        Some(Self {
            path: canonical.to_str()?.to_owned(),
            size: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
            device: meta.dev(),
        })
    }
}

/// One cached answer: the tool file, the query's arguments, and what it printed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct Entry {
    tool: ToolIdentity,
    query: String,
    output: String,
}

/// The file's whole content.
#[derive(Debug, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct CacheFile {
    format: String,
    entries: Vec<Entry>,
}

/// Where tool answers are cached, or nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCache {
    file: Option<PathBuf>,
}

impl ToolCache {
    /// The user's cache: off under [`NO_CACHE_ENV`], else in `$XDG_CACHE_HOME/prof`, else in
    /// `$HOME/.cache/prof` (relative or empty values are ignored, as the XDG spec says).
    pub fn from_env() -> Self {
        Self::from_vars(|name| std::env::var_os(name))
    }

    /// [`ToolCache::from_env`] over the environment `var` gives (so tests need not change theirs).
    pub fn from_vars(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Self {
        let var = |name: &str| var(name).filter(|v| !v.is_empty());
        if var(NO_CACHE_ENV).is_some_and(|v| v != "0") {
            return Self::disabled();
        }
        let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
        let base = absolute("XDG_CACHE_HOME").or_else(|| absolute("HOME").map(|home| home.join(".cache")));
        Self { file: base.map(|dir| dir.join("prof").join(FILE_NAME)) }
    }

    /// A cache kept in `file` (tests, or a caller with its own place).
    pub fn at(file: PathBuf) -> Self {
        Self { file: Some(file) }
    }

    /// No cache: every lookup misses and every store does nothing.
    pub fn disabled() -> Self {
        Self { file: None }
    }

    /// The cache file, when there is one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// What `tool` printed for `query` when it was this very file; `None` on any doubt.
    pub fn lookup(&self, tool: &ToolIdentity, query: &str) -> Option<String> {
        let file = self.file.as_deref()?;
        read(file).entries.into_iter().find(|e| e.tool == *tool && e.query == query).map(|e| e.output)
    }

    /// Remembers that `tool` printed `output` for `query`, replacing its earlier answer and
    /// dropping entries of files that are gone. Errors are for tests; callers ignore them.
    pub fn store(&self, tool: &ToolIdentity, query: &str, output: &str) -> std::io::Result<()> {
        let Some(file) = self.file.as_deref() else { return Ok(()) };
        if output.len() > MAX_ANSWER_BYTES {
            return Ok(());
        }
        let _guard = STORE_LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut cache = read(file);
        if cache.entries.iter().any(|e| e.tool == *tool && e.query == query && e.output == output) {
            return Ok(());
        }
        cache.entries.retain(|e| !(e.tool.path == tool.path && e.query == query) && Path::new(&e.tool.path).exists());
        cache.entries.push(Entry { tool: tool.clone(), query: query.to_owned(), output: output.to_owned() });
        let excess = cache.entries.len().saturating_sub(MAX_ENTRIES);
        cache.entries.drain(..excess);
        cache.format = FORMAT.to_owned();
        write_atomically(file, &serde_json::to_vec_pretty(&cache).map_err(std::io::Error::other)?)
    }
}

/// The cache in `file`, or an empty one when it is missing, too big, corrupt or of another format.
fn read(file: &Path) -> CacheFile {
    let too_big = std::fs::metadata(file).map(|m| m.len() > MAX_FILE_BYTES).unwrap_or(true);
    if too_big {
        return CacheFile::default();
    }
    std::fs::read(file)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<CacheFile>(&bytes).ok())
        .filter(|cache| cache.format == FORMAT)
        .unwrap_or_default()
}

/// Writes `bytes` to a new file beside `file` and renames it over `file`.
fn write_atomically(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = file.parent().ok_or_else(|| std::io::Error::other("cache file has no directory"))?;
    std::fs::create_dir_all(dir)?;
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let unique = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.{}.{unique}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut out| out.write_all(bytes))
        .and_then(|()| std::fs::rename(&temp, file));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests;
