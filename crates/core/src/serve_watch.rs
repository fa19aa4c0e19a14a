//! Watching a server's log for the errors that mean it will never become healthy, so a
//! supervisor can fail fast (seconds) instead of waiting out a readiness time-out (minutes).
//!
//! Two pattern sets: [`FATAL_PATTERNS`] mean the server is broken whenever they appear
//! (a Python traceback, out of memory, a CUDA error, the port taken); [`EARLY_PATTERNS`]
//! add the looser signs of a bad start (a missing model file, a bad flag) that are only
//! looked for in the first seconds, and even then are only a suspicion: `prof serve` stops a
//! server for one only when it dies, and otherwise quotes the line if the server later fails
//! (servers print harmless "… not found, using the fallback" warnings). Matching is
//! case-insensitive. [`LogWatch`] reads only what was appended
//! since its last look, so polling a growing log stays cheap.
//!
//! ```
//! use prof_core::serve_watch::{find_error, EARLY_PATTERNS};
//! let log = "loading model\nerror: unrecognized arguments: --prot 8000\n";
//! let found = find_error(log, EARLY_PATTERNS).unwrap();
//! assert_eq!(found.line_number, 2);
//! assert_eq!(found.pattern, "error:");
//! ```

use crate::error::{Error, Result};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Signs of a broken server wherever they appear in its log.
pub const FATAL_PATTERNS: &[&str] = &[
    "Traceback (most recent call last)",
    "out of memory",
    "CUDA error",
    "Address already in use",
    "Segmentation fault",
    "panicked at",
];

/// Every fatal pattern plus the looser signs of a bad start (missing model or file, bad flag),
/// looked for only in the first seconds of a server's life, and fatal only with its death.
pub const EARLY_PATTERNS: &[&str] = &[
    "Traceback (most recent call last)",
    "out of memory",
    "CUDA error",
    "Address already in use",
    "Segmentation fault",
    "panicked at",
    "No such file",
    "not found",
    "error:",
    "unrecognized arguments",
];

/// The longest line kept for matching; a longer one is matched on its first part.
const MAX_LINE: usize = 64 * 1024;

/// An error line found in a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogError {
    /// The pattern that matched, as listed.
    pub pattern: &'static str,
    /// 1-based line number in the log.
    pub line_number: usize,
    /// The line, trimmed.
    pub line: String,
}

/// The first line of `text` that contains one of `patterns` (case-insensitive).
pub fn find_error(text: &str, patterns: &'static [&'static str]) -> Option<LogError> {
    text.lines().enumerate().find_map(|(index, line)| match_line(line, index + 1, patterns))
}

fn match_line(line: &str, line_number: usize, patterns: &'static [&'static str]) -> Option<LogError> {
    let lower = line.to_ascii_lowercase();
    patterns.iter().find(|pattern| lower.contains(&pattern.to_ascii_lowercase())).map(|pattern| LogError {
        pattern,
        line_number,
        line: line.trim().to_owned(),
    })
}

/// Follows a log file as it grows, matching each complete line once.
#[derive(Debug)]
pub struct LogWatch {
    path: PathBuf,
    offset: u64,
    lines_seen: usize,
    partial: Vec<u8>,
}

impl LogWatch {
    /// A watch over `path` from its beginning (the file need not exist yet).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), offset: 0, lines_seen: 0, partial: Vec::new() }
    }

    /// The watched file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads what was appended since the last call and returns the first new complete line
    /// matching `patterns`. A file that does not exist yet is no error.
    pub fn poll(&mut self, patterns: &'static [&'static str]) -> Result<Option<LogError>> {
        let mut file = match std::fs::File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&self.path, e)),
        };
        file.seek(SeekFrom::Start(self.offset)).map_err(|e| Error::io(&self.path, e))?;
        let mut fresh = Vec::new();
        let read = file.read_to_end(&mut fresh).map_err(|e| Error::io(&self.path, e))?;
        self.offset += read as u64;
        self.partial.extend_from_slice(&fresh);
        let mut found = None;
        let mut consumed = 0;
        while let Some(end) = self.partial[consumed..].iter().position(|&b| b == b'\n') {
            let line = &self.partial[consumed..consumed + end];
            consumed += end + 1;
            self.lines_seen += 1;
            if found.is_none() {
                let text = String::from_utf8_lossy(&line[..line.len().min(MAX_LINE)]);
                found = match_line(&text, self.lines_seen, patterns);
            }
        }
        self.partial.drain(..consumed);
        if self.partial.len() > MAX_LINE {
            self.partial.truncate(MAX_LINE);
        }
        Ok(found)
    }

    /// Matches the unfinished last line too (for a process that died mid-line).
    pub fn poll_final(&mut self, patterns: &'static [&'static str]) -> Result<Option<LogError>> {
        if let Some(found) = self.poll(patterns)? {
            return Ok(Some(found));
        }
        let text = String::from_utf8_lossy(&self.partial).into_owned();
        Ok(match_line(&text, self.lines_seen + 1, patterns).filter(|_| !text.trim().is_empty()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn fatal_patterns_skip_the_looser_early_ones() {
        let log = "GET /x HTTP/1.1 404 File not found\nRuntimeError: CUDA error: invalid device ordinal\n";
        assert_eq!(find_error(log, FATAL_PATTERNS).map(|e| e.line_number), Some(2));
        assert_eq!(find_error(log, EARLY_PATTERNS).map(|e| e.pattern), Some("not found"));
        assert!(find_error("torch.OutOfMemoryError: CUDA OUT OF MEMORY", FATAL_PATTERNS).is_some());
        assert!(find_error("serving on port 8000\n", EARLY_PATTERNS).is_none());
    }

    #[test]
    fn the_watch_reads_only_new_complete_lines() {
        let dir = std::env::temp_dir().join(format!("prof-serve-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("server.log");
        let mut watch = LogWatch::new(&path);
        assert_eq!(watch.poll(EARLY_PATTERNS).unwrap(), None, "a log not written yet is fine");
        let mut file = std::fs::File::create(&path).unwrap();
        write!(file, "starting\nOSError: [Errno 98] Address already").unwrap();
        assert_eq!(watch.poll(FATAL_PATTERNS).unwrap(), None, "the half line waits for its end");
        writeln!(file, " in use").unwrap();
        let found = watch.poll(FATAL_PATTERNS).unwrap().unwrap();
        assert_eq!((found.line_number, found.pattern), (2, "Address already in use"));
        assert_eq!(found.line, "OSError: [Errno 98] Address already in use");
        assert_eq!(watch.poll(FATAL_PATTERNS).unwrap(), None, "each line is matched once");
        write!(file, "Segmentation fault").unwrap();
        assert_eq!(watch.poll_final(FATAL_PATTERNS).unwrap().map(|e| e.line_number), Some(3));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
