//! How prof writes a file the user named (`--csv`, `--html`, `--chrome-trace`, schemas): one
//! writer, so no output can harm the machine.
//!
//! - A new path, or an existing regular file: written to a temporary file beside it
//!   (`.NAME.prof-PID.partial`), synced and renamed over it, so a reader never sees half a file
//!   and a failed write leaves the old one whole.
//! - A device, FIFO or socket (`/dev/null`, `/dev/stdout`, a named pipe): written in place and
//!   never replaced (a rename over `/dev/full`, run as root, once destroyed the system's node).
//! - A symbolic link: refused with a sentence (writing through it would write a place the user
//!   did not name; renaming over it would replace the link).
//!
//! Every write is checked: a short write or a full disk is an error naming the file and what
//! was kept ([`WriteError`], exit 74), and the temporary file is removed. An existing regular
//! file is replaced: every flag that names an output file says so in its help.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// What `path` is now.
enum Target {
    /// Nothing there yet, or a regular file.
    Regular,
    /// A device, FIFO or socket.
    Special,
}

fn target(path: &Path) -> Result<Target, String> {
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(Target::Regular),
        Err(error) => Err(format!("{}: {error}", path.display())),
        Ok(meta) if meta.file_type().is_symlink() => Err(format!(
            "{}: is a symbolic link; prof does not write through links: name the file it points to",
            path.display()
        )),
        Ok(meta) if meta.is_dir() => Err(format!("{}: is a directory; name a file", path.display())),
        Ok(meta) if meta.is_file() => Ok(Target::Regular),
        Ok(meta) => {
            let kind = meta.file_type();
            if kind.is_char_device() || kind.is_block_device() || kind.is_fifo() || kind.is_socket() {
                Ok(Target::Special)
            } else {
                Err(format!("{}: is neither a regular file nor a device, FIFO or socket", path.display()))
            }
        }
    }
}

/// Whether `path` may be written: `Ok(true)` for a device, FIFO or socket (written in place,
/// never replaced), `Ok(false)` for a new path or a regular file, an error for a link or a
/// directory.
pub fn is_special(path: &Path) -> Result<bool, String> {
    target(path).map(|t| matches!(t, Target::Special))
}

/// Whether `path` can be written at all, asked before the work that fills it (a capture, a
/// long analysis): its directory exists, and it is not a link or a directory. The error names
/// the flag's file and what to do.
pub fn check(path: &Path) -> Result<(), String> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(format!(
            "{}: the directory {} does not exist; create it, or name a file in one that does",
            path.display(),
            parent.display()
        ));
    }
    target(path).map(|_| ())
}

/// The temporary file beside `path`.
fn partial(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.prof-{}.partial", std::process::id()))
}

/// A file prof could not write: refused before anything was written (a link, a directory:
/// exit 2), or lost to a failed write (a full disk, a short write: exit 74, what was kept
/// said in the message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteError {
    /// The file, the cause, and what was kept.
    pub message: String,
    /// True when nothing was attempted (the path itself is refused).
    pub refused: bool,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<WriteError> for String {
    fn from(error: WriteError) -> Self {
        error.message
    }
}

impl From<WriteError> for crate::failure::Failure {
    fn from(error: WriteError) -> Self {
        use crate::failure::{Failure, Kind};
        Failure::new(if error.refused { Kind::Usage } else { Kind::OutputLost }, error.message)
    }
}

fn refused(message: String) -> WriteError {
    WriteError { message, refused: true }
}

/// Writes `path` with `write` (given a buffered writer): atomically for a regular file, in
/// place for a device, FIFO or socket, refused for a link. Returns what `write` returned.
pub fn write<T>(path: &Path, write: impl FnOnce(&mut dyn Write) -> io::Result<T>) -> Result<T, WriteError> {
    match target(path).map_err(refused)? {
        Target::Special => {
            let lost = |error: io::Error| WriteError {
                message: format!("{}: {error}; what was written before the failure went to it", path.display()),
                refused: false,
            };
            let file = OpenOptions::new().write(true).open(path).map_err(lost)?;
            let mut out = BufWriter::with_capacity(1 << 20, file);
            let value = write(&mut out).map_err(lost)?;
            out.flush().map_err(lost)?;
            Ok(value)
        }
        Target::Regular => {
            let existed = path.exists();
            let temporary = partial(path);
            let result = (|| {
                let mut out = BufWriter::with_capacity(1 << 20, File::create(&temporary)?);
                let value = write(&mut out)?;
                let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
                file.sync_all()?;
                std::fs::rename(&temporary, path)?;
                Ok(value)
            })();
            if result.is_err() {
                let _ = std::fs::remove_file(&temporary);
            }
            let kept = if existed { "the file that was there is kept as it was" } else { "no file was left there" };
            result.map_err(|error: io::Error| WriteError {
                message: format!("{}: {error}; {kept}", path.display()),
                refused: false,
            })
        }
    }
}

/// Writes `bytes` to `path` as [`write`] does.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write(path, |out| out.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("prof-output-file-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_regular_file_is_replaced_whole_and_no_partial_stays() {
        let dir = scratch("regular");
        let path = dir.join("out.csv");
        write_bytes(&path, b"old\n").unwrap();
        write_bytes(&path, b"new\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new\n");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no partial file left");
        // A failing writer leaves the old file whole and no partial.
        let error = write(&path, |out| {
            out.write_all(b"half")?;
            Err::<(), _>(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(!error.refused, "{error}");
        assert!(error.message.contains("out.csv: disk full; the file that was there is kept as it was"), "{error}");
        assert_eq!(std::fs::read(&path).unwrap(), b"new\n");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// `/dev/full` stays the device it is: the write fails (no space) and nothing replaces it;
    /// `/dev/null` takes the bytes in place.
    #[test]
    fn a_device_is_written_in_place_never_replaced() {
        if !Path::new("/dev/full").exists() {
            eprintln!("skipped: this machine has no /dev/full");
            return;
        }
        let before = std::fs::metadata("/dev/full").map(|m| m.file_type().is_char_device());
        let error = write_bytes(Path::new("/dev/full"), &[b'x'; 4096]).unwrap_err();
        assert!(error.message.starts_with("/dev/full: ") && !error.refused, "{error}");
        assert_eq!(std::fs::metadata("/dev/full").map(|m| m.file_type().is_char_device()).ok(), before.ok());
        write_bytes(Path::new("/dev/null"), b"gone").unwrap();
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }

    #[test]
    fn a_link_or_a_directory_is_refused() {
        let dir = scratch("link");
        let aim = dir.join("aim.txt");
        std::fs::write(&aim, "kept").unwrap();
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink(&aim, &link).unwrap();
        let error = write_bytes(&link, b"over").unwrap_err();
        assert!(error.message.contains("is a symbolic link") && error.refused, "{error}");
        assert_eq!(std::fs::read_to_string(&aim).unwrap(), "kept");
        assert!(write_bytes(&dir, b"x").unwrap_err().message.contains("is a directory"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
