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

use crate::csv_blocks;
use crate::error::{quote, AscendError};
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
        self.cut.map(|line| prof_core::error::cut_last_row(self.path(), line))
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

const BUFFER: usize = 4 << 20;
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

    /// From now on split only the fields `0..=last` of each row: the rest are counted (a row
    /// with the wrong field count is still an error) and the whole row is still checked to be
    /// UTF-8, but a column after `last` reads as absent. For readers that need a few leading
    /// columns of a wide table.
    pub fn split_only_up_to(&mut self, last: usize) {
        self.splitter.last = Some(last);
    }

    /// After the last row: the note saying the file's last row was cut short and left out.
    pub fn cut_note(&self) -> Option<String> {
        self.splitter.cut.map(|line| prof_core::error::cut_last_row(&self.header.path, line))
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

impl<'a> Row<'a> {
    /// The 1-based line the row starts on.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The raw (unescaped, untrimmed) text of field `col`.
    #[inline]
    fn field(&self, col: usize) -> Option<&'a str> {
        let &(start, end) = self.fields.get(col)?;
        self.text.get(start..end)
    }

    /// The cleaned value of column `col`: trimmed of spaces and tabs; `None` when the column
    /// is absent (`col` is `None`) or the value is empty or `N/A`.
    #[inline]
    pub fn get(&self, col: Option<usize>) -> Option<&'a str> {
        let value = trim_blanks(self.field(col?)?);
        (!value.is_empty() && value != "N/A").then_some(value)
    }

    /// The value of a required column, or an error naming the file, line and column.
    #[inline]
    pub fn text(&self, col: usize) -> Result<&'a str, AscendError> {
        self.get(Some(col)).ok_or_else(|| self.error(col, "is empty or N/A"))
    }

    /// A decimal microsecond value in nanoseconds (`None` when absent or `N/A`); anything
    /// else that is not a plain decimal is an error.
    #[inline]
    pub fn micros_ns(&self, col: Option<usize>) -> Result<Option<u64>, AscendError> {
        match (col, self.get(col)) {
            (Some(col), Some(text)) => crate::micros::micros_to_ns(text)
                .map(Some)
                .ok_or_else(|| self.error(col, &format!("{} is not a microsecond value", quote(text)))),
            _ => Ok(None),
        }
    }

    /// An unsigned integer (`None` when absent or `N/A`); anything else is an error.
    #[inline]
    pub fn integer(&self, col: Option<usize>) -> Result<Option<u64>, AscendError> {
        match (col, self.get(col)) {
            (Some(col), Some(text)) => text
                .parse::<u64>()
                .map(Some)
                .map_err(|_| self.error(col, &format!("{} is not an unsigned integer", quote(text)))),
            _ => Ok(None),
        }
    }

    /// An error about column `col` of this row.
    pub fn error(&self, col: usize, what: &str) -> AscendError {
        let name = self.header.names.get(col).map_or("?", String::as_str);
        AscendError::file(&self.header.path, self.line, format!("column {name} {what}"))
    }
}

/// `text` without leading and trailing spaces and tabs (msprof's tab-padded timestamps).
#[inline]
fn trim_blanks(text: &str) -> &str {
    let bytes = text.as_bytes();
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    if !bytes.first().is_some_and(blank) && !bytes.last().is_some_and(blank) {
        return text;
    }
    let start = bytes.iter().position(|b| !blank(b)).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|b| !blank(b)).map_or(start, |i| i + 1);
    &text[start..end]
}

fn unterminated(path: &Path, line: usize) -> AscendError {
    AscendError::file(path, line, "unterminated quoted field")
}

/// What [`Splitter::next`] found.
enum Split {
    /// A record starting on this line, now in the splitter.
    Record(usize),
    /// No more records.
    End,
    /// The input ended inside the record starting on this line; more input may finish it.
    NeedMore(usize),
    /// The input ended inside a quoted field of the record starting on this line.
    Unterminated(usize),
}

/// The instructions a [`Splitter`] uses beyond x86-64's baseline (SSE2): the most this CPU
/// has, found once a splitter (tests pin the others, to check all give the same records).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Instructions {
    /// Bytes classified 32 at a compare, bits counted by the popcnt instruction.
    Avx2,
    /// SSE2 (16 bytes a compare) and popcnt.
    Popcnt,
    /// The baseline.
    Baseline,
}

impl Instructions {
    fn of_cpu() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("popcnt") {
            return if std::is_x86_feature_detected!("avx2") { Self::Avx2 } else { Self::Popcnt };
        }
        Self::Baseline
    }
}

impl Default for Instructions {
    fn default() -> Self {
        Self::of_cpu()
    }
}

/// Splits CSV bytes into records. The current record is `input[start..end]` after the split,
/// its fields `fields` (offsets from `start`); quoted fields are unescaped in place (`""` to
/// `"`, the enclosing quotes dropped, the bytes freed padded with spaces), so no field is
/// copied or allocated. It looks at the bytes 64 at a time as bit masks ([`csv_blocks`]): field
/// and record ends are the set bits of the separators outside quotes, and the fields after the
/// last one wanted are counted, not split.
#[derive(Default)]
struct Splitter {
    /// The instructions it splits with.
    instructions: Instructions,
    start: usize,
    end: usize,
    fields: Vec<(usize, usize)>,
    /// Which fields hold a quote (to unescape once the record is complete).
    quoted: Vec<usize>,
    /// Lines finished before the current position (the next record starts on `lines + 1`).
    lines: usize,
    /// Split only fields `0..=last` (the rest is only counted, in `tail_fields`).
    last: Option<usize>,
    /// Fields of the current record after `last`, counted not split.
    tail_fields: usize,
    /// Every byte of the current record is ASCII (so it is UTF-8 without a check).
    ascii: bool,
    /// The line of a last record without a line break: the file was cut while it was written,
    /// so that record was left out.
    cut: Option<usize>,
}

impl Splitter {
    /// Splits the record at `input[*pos..]`, advancing `*pos` past it. Blank lines are
    /// skipped. `eof` says whether `input` is all there is; when it is not and the record
    /// runs off its end, `*pos` is left at the record's start for a retry with more input.
    fn next(&mut self, input: &mut [u8], pos: &mut usize, eof: bool) -> Split {
        loop {
            let (start, lines) = (*pos, self.lines);
            if start == input.len() && eof {
                return Split::End;
            }
            let line = lines + 1;
            match self.record(input, start, eof) {
                Ok(next) => {
                    *pos = next;
                    if eof && next == input.len() && line > 1 && input.last() != Some(&b'\n') {
                        // msprof ends every row with a line break: one without it was cut (a
                        // field may have lost digits), so it is left out and noted.
                        self.cut = Some(line);
                        return Split::End;
                    }
                    self.unescape(input);
                    if self.fields.len() == 1 && self.tail_fields == 0 && self.fields[0].0 == self.fields[0].1 {
                        continue;
                    }
                    return Split::Record(line);
                }
                Err(in_quotes) => {
                    self.lines = lines;
                    return if !eof {
                        Split::NeedMore(line)
                    } else if in_quotes {
                        Split::Unterminated(line)
                    } else {
                        Split::End
                    };
                }
            }
        }
    }

    /// Finds the fields of the record starting at `start`; the offset after it, or
    /// `Err(inside quotes)` when the input ends first (at the end of the input, a record without
    /// a line end ends there unless a quote is open). A byte is inside quotes when an odd
    /// number of quotes precede it in the record (`""` toggles twice); fields after `last`
    /// are only counted.
    fn record(&mut self, input: &[u8], start: usize, eof: bool) -> Result<usize, bool> {
        match self.instructions {
            // SAFETY: `Instructions::of_cpu` found AVX2 and popcnt on this CPU.
            #[cfg(target_arch = "x86_64")]
            Instructions::Avx2 => unsafe { self.record_with_avx2(input, start, eof) },
            // SAFETY: `Instructions::of_cpu` found popcnt on this CPU.
            #[cfg(target_arch = "x86_64")]
            Instructions::Popcnt => unsafe { self.record_with_popcnt(input, start, eof) },
            _ => self.split_record::<false>(input, start, eof),
        }
    }

    /// [`Splitter::record`] with AVX2 and popcnt: the bytes classified 32 at a compare.
    ///
    /// # Safety
    /// The CPU must have AVX2 and popcnt.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn record_with_avx2(&mut self, input: &[u8], start: usize, eof: bool) -> Result<usize, bool> {
        self.split_record::<true>(input, start, eof)
    }

    /// [`Splitter::record`] compiled to count bits with the popcnt instruction (not in
    /// x86-64's baseline; without it every count is a dozen instructions).
    ///
    /// # Safety
    /// The CPU must have popcnt. (An `unsafe fn`, not a safe `#[target_feature]` one, so the
    /// crate still builds with Rust 1.85.)
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn record_with_popcnt(&mut self, input: &[u8], start: usize, eof: bool) -> Result<usize, bool> {
        self.split_record::<false>(input, start, eof)
    }

    /// The body of [`Splitter::record`]; `AVX2` classifies with AVX2 (only inside
    /// [`Splitter::record_with_avx2`]).
    #[inline(always)]
    fn split_record<const AVX2: bool>(&mut self, input: &[u8], start: usize, eof: bool) -> Result<usize, bool> {
        self.fields.clear();
        self.quoted.clear();
        self.tail_fields = 0;
        self.start = start;
        let bytes = &input[start..];
        let mut field_start: usize = 0;
        // A quote in the current field, in the blocks before this one.
        let mut field_quoted = false;
        let mut in_quotes = false;
        // Once the fields up to `last` are split: the commas counted since.
        let mut tail_commas: Option<usize> = None;
        let mut non_ascii = 0u64;
        let mut at = 0;
        while at < bytes.len() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `AVX2` is true only in `record_with_avx2`, compiled with AVX2 for a CPU
            // that has it.
            let block =
                if AVX2 { unsafe { csv_blocks::classify_avx2(bytes, at) } } else { csv_blocks::classify(bytes, at) };
            #[cfg(not(target_arch = "x86_64"))]
            let block = csv_blocks::classify(bytes, at);
            let parity = if block.quote == 0 { 0 } else { csv_blocks::prefix_xor(block.quote) };
            let inside = if in_quotes { !parity } else { parity };
            let separators = block.comma & !inside;
            let line_ends = block.newline & !inside;
            let quoted_newlines = block.newline & inside;
            // The first bit of the block the tail count starts from.
            let mut tail_from = 0;
            if tail_commas.is_none() {
                let mut ends = separators | line_ends;
                while ends != 0 {
                    let bit = ends.trailing_zeros();
                    ends &= ends - 1;
                    let i = at + bit as usize;
                    let field_bits = csv_blocks::below(bit) & !csv_blocks::below(field_start.saturating_sub(at) as u32);
                    let has_quote = field_quoted || block.quote & field_bits != 0;
                    field_quoted = false;
                    if line_ends >> bit & 1 == 1 {
                        let end = if i > field_start && bytes[i - 1] == b'\r' { i - 1 } else { i };
                        self.push_field(field_start, end, has_quote);
                        self.lines += csv_blocks::ones(quoted_newlines & csv_blocks::below(bit)) + 1;
                        self.end = start + i;
                        self.ascii = (non_ascii | (block.non_ascii & csv_blocks::below(bit))) == 0;
                        return Ok(start + i + 1);
                    }
                    self.push_field(field_start, i, has_quote);
                    field_start = i + 1;
                    if self.last.is_some_and(|last| self.fields.len() > last) {
                        tail_commas = Some(0);
                        tail_from = bit + 1;
                        break;
                    }
                }
            }
            match &mut tail_commas {
                Some(commas) => {
                    let rest = !csv_blocks::below(tail_from);
                    let ends = line_ends & rest;
                    if ends != 0 {
                        let bit = ends.trailing_zeros();
                        self.tail_fields =
                            *commas + (separators & rest & csv_blocks::below(bit)).count_ones() as usize + 1;
                        self.lines += csv_blocks::ones(quoted_newlines & csv_blocks::below(bit)) + 1;
                        self.end = start + at + bit as usize;
                        self.ascii = (non_ascii | (block.non_ascii & csv_blocks::below(bit))) == 0;
                        return Ok(self.end + 1);
                    }
                    *commas += (separators & rest).count_ones() as usize;
                }
                None => field_quoted |= block.quote & !csv_blocks::below(field_start.saturating_sub(at) as u32) != 0,
            }
            self.lines += csv_blocks::ones(quoted_newlines);
            non_ascii |= block.non_ascii;
            in_quotes ^= parity >> 63 == 1;
            at += 64;
        }
        if in_quotes || !eof || (tail_commas.is_none() && field_start == bytes.len() && self.fields.is_empty()) {
            return Err(in_quotes);
        }
        match tail_commas {
            Some(commas) => self.tail_fields = commas + 1,
            None => self.push_field(field_start, bytes.len(), field_quoted),
        }
        self.lines += 1;
        self.end = input.len();
        self.ascii = non_ascii == 0;
        Ok(input.len())
    }

    fn push_field(&mut self, start: usize, end: usize, has_quote: bool) {
        if has_quote {
            self.quoted.push(self.fields.len());
        }
        self.fields.push((start, end));
    }

    /// Unescapes the record's quoted fields in place.
    fn unescape(&mut self, input: &mut [u8]) {
        for &index in &self.quoted {
            let (start, end) = self.fields[index];
            let field = &mut input[self.start + start..self.start + end];
            let (mut read, mut write, mut in_quotes) = (0, 0, false);
            while read < field.len() {
                let byte = field[read];
                read += 1;
                if byte == b'"' {
                    if in_quotes && field.get(read) == Some(&b'"') {
                        read += 1;
                    } else {
                        in_quotes = !in_quotes;
                        continue;
                    }
                }
                field[write] = byte;
                write += 1;
            }
            field[write..].fill(b' ');
            self.fields[index].1 = start + write;
        }
    }

    /// The current record's text, which must be UTF-8.
    fn text<'a>(&self, input: &'a [u8], header: &Header, line: usize) -> Result<&'a str, AscendError> {
        let bytes = &input[self.start..self.end];
        if self.ascii {
            // SAFETY: `record` found no byte ≥ 0x80 in these bytes, and `unescape` only moves
            // bytes inside the record and pads with spaces, so they are ASCII, hence UTF-8.
            return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        std::str::from_utf8(bytes).map_err(|e| AscendError::file(&header.path, line, format!("not UTF-8: {e}")))
    }

    /// The current record as a header.
    fn header(&self, input: &[u8], path: &Path) -> Result<Header, AscendError> {
        let header = Header { path: path.to_owned(), names: Vec::new() };
        let text = self.text(input, &header, 1)?;
        let names = self.fields.iter().map(|&(start, end)| text[start..end].trim().to_owned()).collect();
        Ok(Header { names, ..header })
    }

    /// An error unless the current record has `columns` fields.
    fn check(&self, header: &Header, line: usize, columns: usize) -> Result<(), AscendError> {
        let fields = self.fields.len() + self.tail_fields;
        if fields == columns {
            return Ok(());
        }
        Err(AscendError::file(
            &header.path,
            line,
            format!("{fields} fields where the header has {columns} (truncated or malformed row)"),
        ))
    }
}

#[cfg(test)]
#[path = "csv_table_tests.rs"]
mod tests;
