//! A database attached gzipped (`*.sqlite.gz`, `*.db.gz`, as artifacts are attached to
//! issues): SQLite reads a file, not a stream, so it is read from a copy unzipped into the
//! temporary directory, removed once read whatever happens, share-locked while it exists (so
//! that [`remove_orphans`] of another process leaves it alone), and bounded in size (a gzip
//! bomb is refused). Errors name the `.gz` file. The loaders that read such copies recognise
//! their own format in the unzipped head.

use crate::sniff::GZIP_MAGIC;
use crate::{Error, Result};
use flate2::read::MultiGzDecoder;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Most bytes a copy may unzip to, as a multiple of the `.gz` file's size (SQLite databases
/// shrink 3-10× in gzip): past it the stream is not unzipped further (a gzip bomb, or a file
/// to unzip by hand), at least [`MIN_LIMIT`].
const LIMIT_RATIO: u64 = 100;
/// See [`LIMIT_RATIO`].
const MIN_LIMIT: u64 = 1 << 30;

/// How the unzipped copies' names begin (then the process id, a count and the file's name).
pub const COPY_PREFIX: &str = "prof-unzipped-";

/// The unzipping stream of `path` and its first bytes, when it is a gzip stream whose unzipped
/// bytes start with `magic` (`None` for any other file, after `magic.len()` unzipped bytes).
pub fn gzipped_with_magic(path: &Path, magic: &[u8]) -> Option<(MultiGzDecoder<std::fs::File>, Vec<u8>)> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut first = [0u8; 2];
    file.read_exact(&mut first).ok().filter(|()| first == GZIP_MAGIC)?;
    let mut stream = MultiGzDecoder::new(std::fs::File::open(path).ok()?);
    let mut head = vec![0u8; magic.len()];
    stream.read_exact(&mut head).ok().filter(|()| head == magic)?;
    Some((stream, head))
}

/// Whether the first `limit` unzipped bytes of a [`gzipped_with_magic`] stream (its `head`
/// read already) contain one of `needles` (a schema's table names): a stream cut short is
/// looked at as far as it goes.
pub fn head_names_any(stream: MultiGzDecoder<std::fs::File>, mut head: Vec<u8>, limit: u64, needles: &[&str]) -> bool {
    let _ = stream.take(limit).read_to_end(&mut head);
    needles.iter().any(|needle| contains(&head, needle.as_bytes()))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

/// A copy of a gzipped file unzipped into the temporary directory, removed when dropped.
pub struct GzCopy {
    path: PathBuf,
    /// The copy, open and share-locked while it exists.
    file: std::fs::File,
}

impl GzCopy {
    /// Unzips `gz` into the temporary directory; `kind` names what it should hold, for the
    /// refusal of one past the size bound ("the .sqlite").
    pub fn of(gz: &Path, kind: &str) -> Result<Self> {
        let size = std::fs::metadata(gz).map_err(|e| Error::io(gz, e))?.len();
        Self::bounded(gz, kind, size.saturating_mul(LIMIT_RATIO).max(MIN_LIMIT))
    }

    /// [`GzCopy::of`], refusing a stream that unzips to more than `limit` bytes.
    fn bounded(gz: &Path, kind: &str, limit: u64) -> Result<Self> {
        // Named by process and a count: ranks read at once may have files of one name.
        static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let count = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = gz.file_stem().map_or_else(|| "export".into(), |s| s.to_string_lossy().into_owned());
        let dir = std::env::temp_dir();
        if count == 0 {
            remove_orphans(&dir);
        }
        let path = dir.join(format!("{COPY_PREFIX}{}-{count}-{name}", std::process::id()));
        let input = std::fs::File::open(gz).map_err(|e| Error::io(gz, e))?;
        let created = std::fs::OpenOptions::new().write(true).create_new(true).open(&path);
        let file = created.map_err(|e| unzip_error(gz, &path, &e))?;
        lock(&file, libc::LOCK_SH);
        let copy = GzCopy { path, file };
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
                     {kind}"
                ),
            ));
        }
        Ok(copy)
    }

    /// The unzipped copy.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `read` of the copy, its errors naming `gz` (the copy's path in their text replaced).
    pub fn read<T>(&self, gz: &Path, read: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
        read(self.path()).map_err(|error| {
            let shown = error.to_string().replace(&self.path().display().to_string(), "the unzipped copy");
            Error::artifact(gz, 0, shown)
        })
    }
}

impl Drop for GzCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// `flock(2)` of `file` (`how`: `LOCK_SH`, or `LOCK_EX | LOCK_NB`); whether it was taken.
fn lock(file: &std::fs::File, how: libc::c_int) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this `File` owns and keeps open for the call.
    unsafe { libc::flock(file.as_raw_fd(), how) == 0 }
}

/// Removes the unzipped copies in `dir` of processes that are gone: a copy is removed when it
/// has been read, but not by a process killed while it read (Ctrl-C on a large database). Only
/// where `/proc` tells which processes live; a copy of a live process (this one too) is kept,
/// and so is one a process holds locked (a live reader whose id this `/proc` does not show:
/// another container sharing the temporary directory).
pub fn remove_orphans(dir: &Path) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn gzipped(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    /// This process's copies of `stem` left in the temporary directory.
    fn copies_left(stem: &str) -> usize {
        let prefix = format!("{COPY_PREFIX}{}-", std::process::id());
        let names = std::fs::read_dir(std::env::temp_dir()).unwrap().flatten().map(|e| e.file_name());
        names.filter(|n| n.to_string_lossy().starts_with(&prefix) && n.to_string_lossy().ends_with(stem)).count()
    }

    #[test]
    fn a_copy_holds_the_stream_is_bounded_and_goes_when_dropped() {
        let dir = std::env::temp_dir().join(format!("prof-gz-copy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = b"SQLite format 3\0 then the CREATE TABLE texts rocpd_metadata".repeat(50);
        let gz = dir.join("gz_copy_case.db.gz");
        std::fs::write(&gz, gzipped(&text)).unwrap();
        // Recognised by its magic and a name in its head; not by another magic or name.
        let (stream, head) = gzipped_with_magic(&gz, b"SQLite format 3\0").unwrap();
        assert!(head_names_any(stream, head, 1 << 20, &["nothing", "rocpd_metadata"]));
        let (stream, head) = gzipped_with_magic(&gz, b"SQLite format 3\0").unwrap();
        assert!(!head_names_any(stream, head, 1 << 20, &["META_DATA_EXPORT"]));
        assert!(gzipped_with_magic(&gz, b"{").is_none());
        let copy = GzCopy::of(&gz, "the .db").unwrap();
        assert_eq!(std::fs::read(copy.path()).unwrap(), text);
        // Errors of a read of the copy name the .gz, not the copy.
        let shown = copy.read(&gz, |p| Err::<(), _>(Error::artifact(p, 3, "bad"))).unwrap_err().to_string();
        assert!(shown.contains("gz_copy_case.db.gz") && shown.contains("the unzipped copy"), "{shown}");
        drop(copy);
        // Past the bound: refused, naming the .gz and the bound; the copy removed.
        let e = GzCopy::bounded(&gz, "the .db", 100).err().unwrap().to_string();
        assert!(e.contains("gz_copy_case.db.gz") && e.contains("unzips to more than 100 bytes"), "{e}");
        // Not gzip at all, or cut short: refused as corrupt.
        let plain = dir.join("gz_copy_case_plain.db.gz");
        std::fs::write(&plain, &text).unwrap();
        let whole = gzipped(&text);
        let cut = dir.join("gz_copy_case_cut.db.gz");
        std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
        for bad in [&plain, &cut] {
            let e = GzCopy::of(bad, "the .db").err().unwrap().to_string();
            assert!(e.contains("cut short or corrupt"), "{e}");
        }
        assert_eq!(copies_left("gz_copy_case.db") + copies_left("_plain.db") + copies_left("_cut.db"), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
