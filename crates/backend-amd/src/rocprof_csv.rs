//! A small streaming CSV reader for the files rocprof and rocprofv3 write: fields are found by
//! header name, so the column order and the columns a release adds do not matter.
//!
//! It handles what the recorded files show: every text field quoted (`"Agent 4"`), kernel
//! names with commas inside quotes, a final line without a newline, and trailing blank lines
//! (sdk 0.5's `kernel_trace.csv`); and what a spreadsheet round trip adds: a UTF-8 byte order
//! mark, CRLF line ends, doubled quotes inside quotes. A quoted field may span lines. Every
//! error names the file and the 1-based line: a missing column (line 1), a row with fewer or
//! more fields than the header, an unclosed quote, a number that is not one.

use prof_core::{Error, Result};
use prof_timeline::digits::eight_digits;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// The longest line read; a longer one is an error (rocprof's lines are far shorter).
const MAX_LINE_BYTES: u64 = 16 << 20;

pub use crate::rocprof_row::Record;
use crate::rocprof_row::RowScan;

/// Reads a CSV file row by row, by header name.
pub struct CsvReader<R> {
    path: PathBuf,
    reader: R,
    line: usize,
    header: Vec<String>,
    columns: HashMap<String, usize>,
    /// The line of a last row without a line break: the file was cut while it was written, so
    /// that row was left out.
    cut: Option<usize>,
}

impl CsvReader<BufReader<File>> {
    /// Opens `path` and reads its header line.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        // 256 kB: a row crosses the buffer's end (and takes the line-by-line path) once in
        // about 1,300 rather than 43 of 8 kB's, and a file is read in fewer calls.
        Self::from_reader(BufReader::with_capacity(1 << 18, file), path)
    }
}

impl<R> CsvReader<R> {
    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A reader of bytes `start..end` of the same file, which must start at a row: it has
    /// this reader's header and counts lines from the part's start (for a reader that reads
    /// the file in parts and again by one thread when a part fails).
    pub fn part(&self, start: u64, end: u64) -> Result<CsvReader<BufReader<std::io::Take<File>>>> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = File::open(&self.path).map_err(|e| Error::io(&self.path, e))?;
        file.seek(SeekFrom::Start(start)).map_err(|e| Error::io(&self.path, e))?;
        Ok(CsvReader {
            path: self.path.clone(),
            reader: BufReader::with_capacity(1 << 20, file.take(end.saturating_sub(start))),
            line: 0,
            header: self.header.clone(),
            columns: self.columns.clone(),
            cut: None,
        })
    }
}

impl<R: BufRead> CsvReader<R> {
    /// Reads the header from `reader`; `path` names the source in errors.
    pub fn from_reader(reader: R, path: &Path) -> Result<Self> {
        let mut csv =
            Self { path: path.to_owned(), reader, line: 0, header: Vec::new(), columns: HashMap::new(), cut: None };
        let header = match csv.next_fields()? {
            Some((_, fields)) => fields,
            None => return Err(Error::artifact(path, 1, "the file is empty: no CSV header line")),
        };
        for (index, name) in header.iter().enumerate() {
            csv.columns.entry(name.trim().to_owned()).or_insert(index);
        }
        csv.header = header;
        Ok(csv)
    }

    /// After the last row: the note saying the file's last row was cut and left out, if it was.
    pub fn cut_note(&self) -> Option<String> {
        self.cut.map(|line| prof_timeline::error::cut_last_row(&self.path, line))
    }

    /// After the last row: notes in `timeline` that the file's last row was cut and left out.
    pub fn mark_cut(&self, timeline: &mut prof_core::Timeline) {
        if let Some(note) = self.cut_note() {
            timeline.note_partial(note);
        }
    }

    /// The header's column names.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The index of column `name`, if the header has it.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.columns.get(name).copied()
    }

    /// True when the header has every column of `names`.
    pub fn has_all(&self, names: &[&str]) -> bool {
        names.iter().all(|n| self.columns.contains_key(*n))
    }

    /// The index of column `name`; an error at line 1 naming the column when it is missing,
    /// with `expected` (what the format's header holds) to tell a wrong file or version apart.
    pub fn require(&self, name: &str, expected: &str) -> Result<usize> {
        self.find(name).ok_or_else(|| {
            Error::artifact(
                &self.path,
                1,
                format!("no `{name}` column; expected {expected}; the header has: {}", self.header.join(", ")),
            )
        })
    }

    /// The next data row (blank lines are skipped), checked to have as many fields as the header.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        let mut record = Record::default();
        Ok(self.next_record_into(&mut record)?.then_some(record))
    }

    /// Like [`CsvReader::next_record`], but into `record`, reusing its strings: a loop over
    /// millions of rows allocates nothing per row. False at the end of the file.
    pub fn next_record_into(&mut self, record: &mut Record) -> Result<bool> {
        loop {
            let Some(line) = self.fields_into(record)? else { return Ok(false) };
            record.line = line;
            if record.len() == 1 && record.field(0).is_some_and(|f| f.trim().is_empty()) {
                continue;
            }
            if record.len() != self.header.len() {
                return Err(Error::artifact(
                    &self.path,
                    line,
                    format!(
                        "the row has {} fields but the header has {} (a truncated or malformed row)",
                        record.len(),
                        self.header.len()
                    ),
                ));
            }
            return Ok(true);
        }
    }

    /// The text of column `index` in `record`.
    pub fn text<'a>(&self, record: &'a Record, index: usize) -> &'a str {
        record.field(index).unwrap_or("")
    }

    /// Column `index` of `record` as an unsigned integer; an error naming the column otherwise.
    #[inline]
    pub fn u64(&self, record: &Record, index: usize) -> Result<u64> {
        // Inlined, the common case stays in registers: a call returning the whole `Result`
        // through memory stalled on reading it back (a few % of a 10 M-row load).
        match plain_u64(self.text(record, index)) {
            Some(value) => Ok(value),
            None => self.u64_slow(record, index),
        }
    }

    /// [`CsvReader::u64`] of a cell that is not plain digits: padded, or not a number.
    #[cold]
    #[inline(never)]
    fn u64_slow(&self, record: &Record, index: usize) -> Result<u64> {
        let text = self.text(record, index).trim();
        text.parse::<u64>().map_err(|_| {
            let rounded = text.contains(['E', 'e']) && text.parse::<f64>().is_ok();
            let what = if rounded {
                "an unsigned integer (a number in scientific notation was rounded when the file was re-saved, by a \
                 spreadsheet or pandas: its nanoseconds are lost)"
            } else {
                "an unsigned integer"
            };
            self.bad_value(record, index, what)
        })
    }

    /// Like [`CsvReader::u64`] for a column that may be absent from the header.
    #[inline]
    pub fn opt_u64(&self, record: &Record, index: Option<usize>) -> Result<Option<u64>> {
        index.map(|i| self.u64(record, i)).transpose()
    }

    /// Column `index` of `record` as a number (integer or decimal, as the stats files write).
    pub fn f64(&self, record: &Record, index: usize) -> Result<f64> {
        let text = self.text(record, index).trim();
        text.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| self.bad_value(record, index, "a number"))
    }

    /// An error at `record`'s line.
    pub fn error(&self, record: &Record, reason: impl Into<String>) -> Error {
        Error::artifact(&self.path, record.line, reason)
    }

    fn bad_value(&self, record: &Record, index: usize, what: &str) -> Error {
        let column = self.header.get(index).map_or("?", String::as_str);
        let value = prof_timeline::error::quote(self.text(record, index));
        self.error(record, format!("`{column}` is {value}, not {what}"))
    }

    /// The fields of the next physical row (a quoted field may continue on later lines).
    fn next_fields(&mut self) -> Result<Option<(usize, Vec<String>)>> {
        let mut record = Record::default();
        Ok(self.fields_into(&mut record)?.map(|line| (line, record.to_strings())))
    }

    /// Reads the next physical row into `record` (its buffers reused), returning the line it
    /// starts on.
    /// Appends the next line of the file (its line break included, if any) to `text`; the
    /// bytes read. The line is copied once, straight from the reader's buffer, and checked to
    /// be UTF-8 (at once when it is ASCII, as rocprof's rows are). Bounded: a file with no line
    /// breaks (zeros, a binary) is not read whole, only past [`MAX_LINE_BYTES`].
    fn read_line(&mut self, text: &mut String) -> Result<usize> {
        /// Cuts what was appended off again unless it was found to be UTF-8 (on an error, and
        /// if the reader panics), so `text` holds UTF-8 whatever happens.
        struct Appended<'a> {
            bytes: &'a mut Vec<u8>,
            keep: usize,
        }
        impl Drop for Appended<'_> {
            fn drop(&mut self) {
                self.bytes.truncate(self.keep);
            }
        }
        let from = text.len();
        // SAFETY: bytes are appended to the string's vector only inside `Appended`, which cuts
        // them off again when it is dropped unless they were checked to be UTF-8 first.
        let mut line = Appended { bytes: unsafe { text.as_mut_vec() }, keep: from };
        loop {
            let buffer = match self.reader.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(&self.path, e)),
            };
            let (taken, done) = match memchr::memchr(b'\n', buffer) {
                Some(at) => (at + 1, true),
                None => (buffer.len(), buffer.is_empty()),
            };
            line.bytes.extend_from_slice(&buffer[..taken]);
            self.reader.consume(taken);
            if done || (line.bytes.len() - from) as u64 > MAX_LINE_BYTES {
                break;
            }
        }
        let added = &line.bytes[from..];
        if !(added.is_ascii() || std::str::from_utf8(added).is_ok()) {
            return Err(Error::artifact(&self.path, self.line + 1, "the line is not UTF-8; rocprof writes UTF-8 CSV"));
        }
        line.keep = line.bytes.len();
        Ok(line.keep - from)
    }

    fn fields_into(&mut self, record: &mut Record) -> Result<Option<usize>> {
        let start = self.line + 1;
        // A plain row whole in the buffer (nearly every one): found and split in one pass. The
        // first line (the header, with any byte order mark) takes the line-by-line path.
        if start > 1 {
            if let Ok(buffered) = self.reader.fill_buf() {
                if let Some(taken) = record.take_plain(buffered) {
                    self.reader.consume(taken);
                    self.line = start;
                    return Ok(Some(start));
                }
            }
        }
        record.clear();
        let mut scan: Option<RowScan> = None;
        loop {
            let line_start = record.text_mut().len();
            let read = self.read_line(record.text_mut())?;
            if read as u64 > MAX_LINE_BYTES {
                let reason = format!("the line runs past {} MiB without a line break", MAX_LINE_BYTES >> 20);
                return Err(Error::artifact(&self.path, self.line + 1, reason));
            }
            if read == 0 {
                if scan.as_ref().is_some_and(RowScan::in_quotes) {
                    return Err(Error::artifact(
                        &self.path,
                        start,
                        "a quoted field is not closed before the file ends",
                    ));
                }
                return Ok(scan.map(|scan| {
                    let end = record.text_mut().len();
                    scan.finish(record, end);
                    start
                }));
            }
            self.line += 1;
            let text = record.text_mut();
            let mut from = line_start;
            if self.line == 1 && text[from..].starts_with('\u{feff}') {
                from += '\u{feff}'.len_utf8();
            }
            let ends_line = text.ends_with('\n');
            let mut to = text.len() - usize::from(ends_line);
            if to > from && text.as_bytes()[to - 1] == b'\r' {
                to -= 1;
            }
            if !ends_line && start > 1 {
                // The writer ends every row with a line break; a last row without one was cut
                // (a field may have lost digits): left out, and the result marked partial.
                self.cut = Some(start);
                return Ok(None);
            }
            let row = scan.get_or_insert_with(|| RowScan::new(from));
            row.line(record, from, to);
            if row.in_quotes() && ends_line {
                row.line_break();
                continue;
            }
            if row.in_quotes() {
                return Err(Error::artifact(&self.path, start, "a quoted field is not closed before the file ends"));
            }
            if let Some(row) = scan.take() {
                row.finish(record, to);
            }
            return Ok(Some(start));
        }
    }
}

/// A field of 1 to 19 ASCII digits and nothing else (every timestamp and id a tracer writes),
/// read in one pass, eight digits at a time while eight are left (a 16-digit timestamp in two
/// steps): at most 19 digits cannot overflow. `None` for anything else (blanks, a sign, more
/// digits), which `str::parse` then reads or rejects with its error.
#[inline]
fn plain_u64(text: &str) -> Option<u64> {
    let mut bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > 19 {
        return None;
    }
    let mut value = 0u64;
    while let Some((chunk, rest)) = bytes.split_first_chunk::<8>() {
        value = value * 100_000_000 + eight_digits(chunk)?;
        bytes = rest;
    }
    for &byte in bytes {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value * 10 + u64::from(digit);
    }
    Some(value)
}

#[cfg(test)]
mod tests;
