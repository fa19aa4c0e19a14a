//! An nsys export attached gzipped (`report.sqlite.gz`, as exports are attached to issues): an
//! SQLite file under a gzip stream, whose schema names the nsys tables. It is read from a copy
//! unzipped into the temporary directory (SQLite reads a file, not a stream), removed once read,
//! whatever happens; errors name the `.gz` file.

use super::{CUDA_TABLES, METADATA_TABLES, SQLITE_MAGIC};
use crate::cupti_trace::GZIP_MAGIC;
use flate2::read::MultiGzDecoder;
use prof_core::{Error, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Unzipped bytes looked at to recognise an export: its schema (the `CREATE TABLE` texts in
/// the first pages) names the nsys tables.
const HEAD_BYTES: u64 = 4 << 20;
/// Most bytes a copy may unzip to, as a multiple of the `.gz` file's size (SQLite exports
/// shrink 3-10× in gzip): past it the stream is not unzipped further (a gzip bomb, or a file
/// to unzip by hand), at least [`MIN_LIMIT`].
const LIMIT_RATIO: u64 = 100;
/// See [`LIMIT_RATIO`].
const MIN_LIMIT: u64 = 1 << 30;

/// True when `path` is a gzip stream of an nsys SQLite export: [`gzipped_sqlite`], and an nsys
/// table named in the first [`HEAD_BYTES`] unzipped (for choosing a loader).
pub(crate) fn is_gzipped_export(path: &Path) -> bool {
    let Some((stream, mut head)) = gzipped_sqlite(path) else { return false };
    // A stream cut short still gives its head; what it could not give is left out.
    let _ = stream.take(HEAD_BYTES).read_to_end(&mut head);
    METADATA_TABLES.iter().chain(&CUDA_TABLES).any(|table| contains(&head, table.as_bytes()))
}

/// True when `path` is a gzip stream of an SQLite file: what a loader asks before reading the
/// unzipped copy (which [`read_unzipped`] checks to be an export), without the recognition's
/// unzipping of the schema again.
pub(crate) fn is_gzipped_sqlite(path: &Path) -> bool {
    gzipped_sqlite(path).is_some()
}

/// The unzipping stream of `path` and its first bytes, when it is a gzip stream that starts
/// with the SQLite magic: a gzipped trace of another kind (a torch `.json.gz`) is left after 16
/// unzipped bytes.
fn gzipped_sqlite(path: &Path) -> Option<(MultiGzDecoder<std::fs::File>, Vec<u8>)> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut magic = [0u8; 2];
    file.read_exact(&mut magic).ok().filter(|()| magic == GZIP_MAGIC)?;
    let mut stream = MultiGzDecoder::new(std::fs::File::open(path).ok()?);
    let mut head = vec![0u8; SQLITE_MAGIC.len()];
    stream.read_exact(&mut head).ok().filter(|()| head == SQLITE_MAGIC)?;
    Some((stream, head))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

/// A copy of a gzipped export unzipped into the temporary directory, removed when dropped.
pub(crate) struct Unzipped {
    path: PathBuf,
    /// The copy, open and share-locked while it exists: [`remove_orphans`] of another process
    /// (one whose `/proc` does not show this one) leaves it alone.
    file: std::fs::File,
}

impl Unzipped {
    /// Unzips `gz` into the temporary directory.
    pub(crate) fn of(gz: &Path) -> Result<Self> {
        // Named by process and a count: ranks read at once may have exports of one name.
        static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let count = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = gz.file_stem().map_or_else(|| "export".into(), |s| s.to_string_lossy().into_owned());
        let dir = std::env::temp_dir();
        if count == 0 {
            remove_orphans(&dir);
        }
        let path = dir.join(format!("{COPY_PREFIX}{}-{count}-{name}", std::process::id()));
        let input = std::fs::File::open(gz).map_err(|e| Error::io(gz, e))?;
        let size = input.metadata().map_err(|e| Error::io(gz, e))?.len();
        let limit = size.saturating_mul(LIMIT_RATIO).max(MIN_LIMIT);
        let created = std::fs::OpenOptions::new().write(true).create_new(true).open(&path);
        let file = created.map_err(|e| unzip_error(gz, &path, &e))?;
        lock(&file, libc::LOCK_SH);
        let copy = Unzipped { path, file };
        let mut stream = MultiGzDecoder::new(input).take(limit.saturating_add(1));
        let mut output = &copy.file;
        let written = std::io::copy(&mut stream, &mut output).map_err(|e| unzip_error(gz, &copy.path, &e))?;
        output.flush().map_err(|e| unzip_error(gz, &copy.path, &e))?;
        if written > limit {
            return Err(Error::artifact(
                gz,
                0,
                format!(
                    "unzips to more than {limit} bytes ({LIMIT_RATIO}× the file); unzip it yourself (`gunzip -k`) and pass \
                     the .sqlite"
                ),
            ));
        }
        Ok(copy)
    }

    /// The unzipped copy.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Unzipped {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// How the unzipped copies' names begin (then the process id, a count and the export's name).
pub(crate) const COPY_PREFIX: &str = "prof-unzipped-";

/// `flock(2)` of `file` (`how`: `LOCK_SH`, or `LOCK_EX | LOCK_NB`); whether it was taken.
fn lock(file: &std::fs::File, how: libc::c_int) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this `File` owns and keeps open for the call.
    unsafe { libc::flock(file.as_raw_fd(), how) == 0 }
}

/// Removes the unzipped copies in `dir` of processes that are gone: a copy is removed when it
/// has been read, but not by a process killed while it read (Ctrl-C on a large export). Only
/// where `/proc` tells which processes live; a copy of a live process (this one too) is kept,
/// and so is one a process holds locked (a live reader whose id this `/proc` does not show:
/// another container sharing the temporary directory).
pub(crate) fn remove_orphans(dir: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name.to_str().and_then(|n| n.strip_prefix(COPY_PREFIX)).and_then(|rest| rest.split('-').next());
        if let Some(pid) = pid.filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) {
            let unheld = || std::fs::File::open(entry.path()).is_ok_and(|f| lock(&f, libc::LOCK_EX | libc::LOCK_NB));
            if !proc.join(pid).exists() && unheld() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Unzipping failed: a stream cut short or corrupt, or the temporary directory full.
fn unzip_error(gz: &Path, copy: &Path, error: &std::io::Error) -> Error {
    let reason = match error.kind() {
        std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => {
            format!("the gzip stream is cut short or corrupt ({error})")
        }
        _ => format!("could not unzip it to {} ({error})", copy.display()),
    };
    Error::artifact(gz, 0, reason)
}

/// `read` of the unzipped copy of `gz`, its errors naming `gz` (and the copy they came from).
pub(crate) fn read_unzipped<T>(gz: &Path, read: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    let copy = Unzipped::of(gz)?;
    if !super::is_nsys_export(copy.path()) {
        return Err(Error::artifact(gz, 0, "a gzipped SQLite database, but not an nsys export (no nsys tables)"));
    }
    read(copy.path()).map_err(|error| {
        let shown = error.to_string().replace(&copy.path().display().to_string(), "the unzipped copy");
        Error::artifact(gz, 0, shown)
    })
}
