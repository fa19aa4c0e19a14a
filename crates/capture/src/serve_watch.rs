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
//! use prof_capture::serve_watch::{find_error, EARLY_PATTERNS};
//! let log = "loading model\nerror: unrecognized arguments: --prot 8000\n";
//! let found = find_error(log, EARLY_PATTERNS).unwrap();
//! assert_eq!(found.line_number, 2);
//! assert_eq!(found.pattern, "error:");
//! ```

use prof_timeline::error::{Error, Result};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The fatal patterns, then `extra`: one list written once, so the early set cannot drift
/// from the fatal one.
macro_rules! fatal_and {
    ($($extra:literal),*) => {
        &[
            "Traceback (most recent call last)",
            "out of memory",
            "CUDA error",
            "Address already in use",
            "Segmentation fault",
            "panicked at",
            $($extra),*
        ]
    };
}

/// Signs of a broken server wherever they appear in its log.
pub const FATAL_PATTERNS: &[&str] = fatal_and!();

/// Every fatal pattern plus the looser signs of a bad start (missing model or file, bad flag),
/// looked for only in the first seconds of a server's life, and fatal only with its death.
pub const EARLY_PATTERNS: &[&str] = fatal_and!("No such file", "not found", "error:", "unrecognized arguments");

/// The most of one unfinished line kept in memory: past it, the line is matched as it stands,
/// and only its head and its last [`LINE_TAIL`] bytes are kept (so a pattern split across two
/// reads is still seen), however long the line grows.
const MAX_LINE: usize = 64 * 1024;
/// Bytes of a long line's end kept across reads (longer than any pattern).
const LINE_TAIL: usize = 256;

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
        line: shortened(line.trim()),
    })
}

/// A line for a report: whole when short, else its start and its end around `…`.
fn shortened(line: &str) -> String {
    const HEAD: usize = 200;
    const TAIL: usize = 200;
    let count = line.chars().count();
    if count <= HEAD + TAIL {
        return line.to_owned();
    }
    let head: String = line.chars().take(HEAD).collect();
    let tail: String = line.chars().skip(count - TAIL).collect();
    format!("{head} … {tail}")
}

/// Follows a log file as it grows, matching each complete line once.
#[derive(Debug)]
pub struct LogWatch {
    path: PathBuf,
    offset: u64,
    lines_seen: usize,
    partial: Vec<u8>,
    /// A pattern found in the part of the unfinished line that was already dropped.
    pending: Option<&'static str>,
}

impl LogWatch {
    /// A watch over `path` from its beginning (the file need not exist yet).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), offset: 0, lines_seen: 0, partial: Vec::new(), pending: None }
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
            let pending = self.pending.take();
            if found.is_none() {
                let text = String::from_utf8_lossy(line);
                found = match_line(&text, self.lines_seen, patterns).or_else(|| {
                    pending.map(|pattern| LogError {
                        pattern,
                        line_number: self.lines_seen,
                        line: shortened(text.trim()),
                    })
                });
            }
        }
        self.partial.drain(..consumed);
        if self.partial.len() > MAX_LINE {
            // An unfinished line past the bound: match what there is now, keep its head (for the
            // report) and its tail (for a pattern that continues in the next read).
            if self.pending.is_none() {
                let text = String::from_utf8_lossy(&self.partial);
                self.pending = match_line(&text, 0, patterns).map(|found| found.pattern);
            }
            let tail = self.partial.split_off(self.partial.len() - LINE_TAIL);
            self.partial.truncate(MAX_LINE / 2);
            self.partial.extend_from_slice(b" ... ");
            self.partial.extend_from_slice(&tail);
        }
        Ok(found)
    }

    /// Matches the unfinished last line too (for a process that died mid-line).
    pub fn poll_final(&mut self, patterns: &'static [&'static str]) -> Result<Option<LogError>> {
        if let Some(found) = self.poll(patterns)? {
            return Ok(Some(found));
        }
        let text = String::from_utf8_lossy(&self.partial).into_owned();
        let line_number = self.lines_seen + 1;
        let pending = self.pending.map(|pattern| LogError { pattern, line_number, line: shortened(text.trim()) });
        Ok(match_line(&text, line_number, patterns).or(pending).filter(|_| !text.trim().is_empty()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_early_signs_hold_every_fatal_one() {
        assert_eq!(&EARLY_PATTERNS[..FATAL_PATTERNS.len()], FATAL_PATTERNS);
        assert!(EARLY_PATTERNS.len() > FATAL_PATTERNS.len());
    }
    use std::io::Write;

    #[test]
    fn an_error_far_into_a_long_line_is_seen_however_the_line_arrives() {
        let dir = std::env::temp_dir().join(format!("prof-watch-long-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("server.log");
        // 1 MiB of progress-bar noise, then the error, written in 64 KiB pieces.
        let mut line = "#".repeat(1 << 20);
        line.push_str(" RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB");
        let mut log = std::fs::File::create(&path).unwrap();
        let mut watch = LogWatch::new(&path);
        for piece in line.as_bytes().chunks(64 << 10) {
            log.write_all(piece).unwrap();
            assert_eq!(watch.poll(EARLY_PATTERNS).unwrap(), None, "the line is not finished yet");
        }
        log.write_all(b"\nnext line\n").unwrap();
        let found = watch.poll(EARLY_PATTERNS).unwrap().expect("the error at the end of the long line");
        assert_eq!((found.pattern, found.line_number), ("out of memory", 1));
        assert!(found.line.len() < 1024, "the reported line is bounded: {}", found.line.len());
        assert!(found.line.ends_with("Tried to allocate 2.00 GiB"), "{}", found.line);
        // The same line written at once is matched on all of it, not its first 64 KiB.
        let whole = dir.join("whole.log");
        std::fs::write(&whole, format!("{line}\n")).unwrap();
        assert_eq!(LogWatch::new(&whole).poll(EARLY_PATTERNS).unwrap().map(|f| f.pattern), Some("out of memory"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
