//! A CSV reader by header name for the tables that msprof and torch_npu write.
//!
//! The quirks it handles are the recorded files' own: msprof (CANN 8) pads timestamps with a
//! trailing tab (`1787504007005868.315\t`) so spreadsheets keep them as text; missing values
//! are `N/A`; shapes are quoted twice (`"""512,16"""`, i.e. the text `"512,16"`); and, for
//! files that went through Windows tools, a UTF-8 BOM and CRLF line ends. Column names differ
//! across producers, so every lookup takes the list of known names (see [`crate::op_table`]).
//! A row with a different field count than the header, an unterminated quote or bytes that
//! are not UTF-8 are an error naming the file and line (a truncated or re-encoded export),
//! never a silently short row.
//!
//! Two readers share one record splitter: [`CsvTable`] holds a small file in memory (one
//! buffer for all fields, no string per field), [`CsvReader`] streams a large one row by row
//! through a fixed buffer, so a 10-million-row `kernel_details.csv` costs no more memory than
//! the ops it becomes.

use crate::error::AscendError;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A table's header: its column names (trimmed) and the file they came from.
#[derive(Debug, Clone)]
pub struct Header {
    path: PathBuf,
    names: Vec<String>,
}

impl Header {
    /// The file this header came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The column names, trimmed.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The index of the first of `names` that the header has.
    pub fn column(&self, names: &[&str]) -> Option<usize> {
        names.iter().find_map(|name| self.names.iter().position(|h| h == name))
    }

    /// Like [`Header::column`], but a missing column is an error naming the file and column.
    pub fn require(&self, names: &[&str]) -> Result<usize, AscendError> {
        self.column(names)
            .ok_or_else(|| AscendError::file(&self.path, 1, format!("no column {} in the header", names.join(" / "))))
    }
}

/// One parsed CSV file held in memory: its header and its data rows.
#[derive(Debug, Clone)]
pub struct CsvTable {
    header: Header,
    /// The file's text, quoted fields unescaped in place.
    text: String,
    /// Where each data field lies in `text`, `header.names.len()` per row.
    fields: Vec<(usize, usize)>,
    /// 1-based line each data row starts on.
    lines: Vec<usize>,
    /// The line of a last row cut short (left out), if the file ends inside one.
    cut: Option<usize>,
}

/// One data row, read through its table's header.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    header: &'a Header,
    line: usize,
    /// Text that holds the row's fields.
    text: &'a str,
    /// Where each field lies in `text`.
    fields: &'a [(usize, usize)],
}

impl CsvTable {
    /// Reads and parses the file at `path`.
    pub fn read(path: &Path) -> Result<Self, AscendError> {
        let bytes = std::fs::read(path).map_err(|e| AscendError::file(path, 0, format!("cannot read: {e}")))?;
        Self::parse_bytes(&bytes, path)
    }

    /// Parses `text`, naming `path` in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, AscendError> {
        Self::parse_bytes(text.as_bytes(), path)
    }

    fn parse_bytes(bytes: &[u8], path: &Path) -> Result<Self, AscendError> {
        let mut bytes = bytes.strip_prefix(BOM).unwrap_or(bytes).to_vec();
        let mut splitter = Splitter::default();
        let mut pos = 0;
        let header = match splitter.next(&mut bytes, &mut pos, true) {
            Split::Record(_) => splitter.header(&bytes, path)?,
            Split::End => return Err(AscendError::file(path, 0, "empty file: no header line")),
            Split::Unterminated(line) | Split::NeedMore(line) => return Err(unterminated(path, line)),
        };
        let columns = header.names.len();
        let (mut fields, mut lines) = (Vec::new(), Vec::new());
        loop {
            match splitter.next(&mut bytes, &mut pos, true) {
                Split::Record(line) => {
                    splitter.check(&header, line, columns)?;
                    splitter.text(&bytes, &header, line)?;
                    let base = splitter.start;
                    fields.extend(splitter.fields.iter().map(|&(start, end)| (base + start, base + end)));
                    lines.push(line);
                }
                Split::End => break,
                Split::Unterminated(line) | Split::NeedMore(line) => return Err(unterminated(path, line)),
            }
        }
        let text = String::from_utf8(bytes).map_err(|e| AscendError::file(path, 0, format!("not UTF-8: {e}")))?;
        Ok(Self { header, text, fields, lines, cut: splitter.cut })
    }

    /// The note saying the file's last row was cut short and left out, if it was.
    pub fn cut_note(&self) -> Option<String> {
        self.cut.map(|line| prof_timeline::error::cut_last_row(self.path(), line))
    }

    /// The file this table came from.
    pub fn path(&self) -> &Path {
        &self.header.path
    }

    /// The header's column names, trimmed.
    pub fn header(&self) -> &[String] {
        &self.header.names
    }

    /// The header with its column lookups.
    pub fn columns(&self) -> &Header {
        &self.header
    }

    /// The index of the first of `names` that the header has.
    pub fn column(&self, names: &[&str]) -> Option<usize> {
        self.header.column(names)
    }

    /// Like [`CsvTable::column`], but a missing column is an error naming the file and column.
    pub fn require(&self, names: &[&str]) -> Result<usize, AscendError> {
        self.header.require(names)
    }

    /// The data rows in file order.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        let columns = self.header.names.len();
        self.lines.iter().enumerate().map(move |(i, &line)| {
            let fields = &self.fields[i * columns..(i + 1) * columns];
            Row { header: &self.header, line, text: &self.text, fields }
        })
    }

    /// Number of data rows.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// True when the file has a header and no data rows.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// A CSV file read row by row through a fixed-size buffer.
pub struct CsvReader {
    header: Header,
    file: std::fs::File,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    eof: bool,
    consumed: u64,
    /// Bytes the file may still give (a reader of a byte range stops at its end).
    remaining: u64,
    splitter: Splitter,
}

const BUFFER: usize = 1 << 20;
const BOM: &[u8] = b"\xEF\xBB\xBF";

impl CsvReader {
    /// Opens the file at `path` and reads its header.
    pub fn open(path: &Path) -> Result<Self, AscendError> {
        Self::open_with_buffer(path, BUFFER)
    }

    /// [`CsvReader::open`] with a buffer of `capacity` bytes to start with (tests use tiny
    /// ones, so that records straddle refills).
    pub(crate) fn open_with_buffer(path: &Path, capacity: usize) -> Result<Self, AscendError> {
        let file = std::fs::File::open(path).map_err(|e| AscendError::file(path, 0, format!("cannot read: {e}")))?;
        let header = Header { path: path.to_owned(), names: Vec::new() };
        let mut reader = Self {
            header,
            file,
            // Room for at least the byte order mark, which the first fill must see whole.
            buf: vec![0; capacity.max(BOM.len())],
            pos: 0,
            len: 0,
            eof: false,
            consumed: 0,
            remaining: u64::MAX,
            splitter: Splitter::default(),
        };
        reader.fill()?;
        if reader.buf[..reader.len].starts_with(BOM) {
            reader.pos = BOM.len();
        }
        match reader.split()? {
            Some(_) => reader.header = reader.splitter.header(&reader.buf, path)?,
            None => return Err(AscendError::file(path, 0, "empty file: no header line")),
        }
        Ok(reader)
    }

    /// A reader of the records in bytes `start..end` of the file whose `header` was read
    /// already (a part of a large file, for parsing parts in parallel): `start` must be where
    /// a record begins. Line numbers count from the range's start.
    pub fn open_range(header: &Header, start: u64, end: u64) -> Result<Self, AscendError> {
        use std::io::{Seek, SeekFrom};
        let path = header.path();
        let cannot = |e: std::io::Error| AscendError::file(path, 0, format!("cannot read: {e}"));
        let mut file = std::fs::File::open(path).map_err(cannot)?;
        file.seek(SeekFrom::Start(start)).map_err(cannot)?;
        let mut reader = Self {
            header: header.clone(),
            file,
            buf: vec![0; BUFFER],
            pos: 0,
            len: 0,
            eof: false,
            consumed: start,
            remaining: end.saturating_sub(start),
            splitter: Splitter::default(),
        };
        reader.fill()?;
        Ok(reader)
    }

    /// Stops reading at byte `end` of the file; false (and nothing changed) when the reader
    /// has read past it already.
    pub fn stop_at(&mut self, end: u64) -> bool {
        let read = self.consumed + self.len as u64;
        if read > end {
            return false;
        }
        self.remaining = end - read;
        true
    }

    /// The header with its column lookups.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Bytes of the file consumed so far (header included): with the file's size, an estimate
    /// of the rows still to come.
    pub fn consumed(&self) -> u64 {
        self.consumed + self.pos as u64
    }

    /// The byte of the file this reader stops at (the end of its range; `u64::MAX` for a
    /// reader of the whole file).
    pub fn range_end(&self) -> u64 {
        self.consumed.saturating_add(self.len as u64).saturating_add(self.remaining)
    }

    /// From now on split only the fields `columns` of each row; every other column reads as
    /// absent. The fields after the last of them are counted, not split (a row with the wrong
    /// field count is still an error, and the whole row is still checked to be UTF-8); one
    /// before it that is not asked for costs a bit in a mask, not a split, and its quotes are
    /// not unescaped. For readers that need a few columns of a wide table.
    pub fn split_only(&mut self, columns: impl IntoIterator<Item = usize> + Clone) {
        let last = columns.clone().into_iter().max().unwrap_or(0);
        let wanted = columns.into_iter().filter(|&c| c < 64).fold(0u64, |mask, c| mask | 1 << c);
        self.splitter.last = Some(last);
        self.splitter.skip = !wanted & crate::csv_blocks::below(last.saturating_add(1).min(64) as u32);
    }

    /// After the last row: the note saying the file's last row was cut short and left out.
    pub fn cut_note(&self) -> Option<String> {
        self.splitter.cut.map(|line| prof_timeline::error::cut_last_row(&self.header.path, line))
    }

    /// The next data row, `None` at the end of the file.
    pub fn next_row(&mut self) -> Result<Option<Row<'_>>, AscendError> {
        let Some(line) = self.split()? else { return Ok(None) };
        let columns = self.header.names.len();
        self.splitter.check(&self.header, line, columns)?;
        let text = self.splitter.text(&self.buf, &self.header, line)?;
        Ok(Some(Row { header: &self.header, line, text, fields: &self.splitter.fields }))
    }

    /// Splits the next record into the splitter, refilling the buffer as needed.
    fn split(&mut self) -> Result<Option<usize>, AscendError> {
        loop {
            match self.splitter.next(&mut self.buf[..self.len], &mut self.pos, self.eof) {
                Split::Record(line) => return Ok(Some(line)),
                Split::End => return Ok(None),
                Split::Unterminated(line) => return Err(unterminated(&self.header.path, line)),
                Split::NeedMore(_) => self.fill()?,
            }
        }
    }

    /// Moves the unread bytes to the front and reads more after them (a record longer than
    /// the buffer grows it).
    fn fill(&mut self) -> Result<(), AscendError> {
        self.buf.copy_within(self.pos..self.len, 0);
        self.consumed += self.pos as u64;
        self.len -= self.pos;
        self.pos = 0;
        if self.len == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        while self.len < self.buf.len() {
            let want = (self.buf.len() - self.len).min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
            match self.file.read(&mut self.buf[self.len..self.len + want]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.len += n;
                    self.remaining -= n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(AscendError::file(&self.header.path, 0, format!("cannot read: {e}"))),
            }
        }
        Ok(())
    }
}

fn unterminated(path: &Path, line: usize) -> AscendError {
    AscendError::file(path, line, "unterminated quoted field")
}

mod row;
mod splitter;
use splitter::{Split, Splitter};

#[cfg(test)]
mod tests;
