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
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// The longest line read; a longer one is an error (rocprof's lines are far shorter).
const MAX_LINE_BYTES: u64 = 16 << 20;

/// One data row: its fields and the line it starts on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// 1-based line the row starts on.
    pub line: usize,
    /// The fields, unquoted.
    pub fields: Vec<String>,
}

/// Reads a CSV file row by row, by header name.
pub struct CsvReader<R> {
    path: PathBuf,
    reader: R,
    line: usize,
    header: Vec<String>,
    columns: HashMap<String, usize>,
    /// The line being split (reused).
    buf: String,
    /// The line of a last row without a line break: the file was cut while it was written, so
    /// that row was left out.
    cut: Option<usize>,
}

impl CsvReader<BufReader<File>> {
    /// Opens `path` and reads its header line.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Self::from_reader(BufReader::new(file), path)
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
            buf: String::new(),
            cut: None,
        })
    }
}

impl<R: BufRead> CsvReader<R> {
    /// Reads the header from `reader`; `path` names the source in errors.
    pub fn from_reader(reader: R, path: &Path) -> Result<Self> {
        let mut csv = Self {
            path: path.to_owned(),
            reader,
            line: 0,
            header: Vec::new(),
            columns: HashMap::new(),
            buf: String::new(),
            cut: None,
        };
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
        self.cut.map(|line| prof_core::error::cut_last_row(&self.path, line))
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
        let mut record = Record { line: 0, fields: Vec::new() };
        Ok(self.next_record_into(&mut record)?.then_some(record))
    }

    /// Like [`CsvReader::next_record`], but into `record`, reusing its strings: a loop over
    /// millions of rows allocates nothing per row. False at the end of the file.
    pub fn next_record_into(&mut self, record: &mut Record) -> Result<bool> {
        loop {
            let Some(line) = self.fields_into(&mut record.fields)? else { return Ok(false) };
            record.line = line;
            let fields = &record.fields;
            if fields.len() == 1 && fields.first().is_some_and(|f| f.trim().is_empty()) {
                continue;
            }
            if fields.len() != self.header.len() {
                return Err(Error::artifact(
                    &self.path,
                    line,
                    format!(
                        "the row has {} fields but the header has {} (a truncated or malformed row)",
                        fields.len(),
                        self.header.len()
                    ),
                ));
            }
            return Ok(true);
        }
    }

    /// The text of column `index` in `record`.
    pub fn text<'a>(&self, record: &'a Record, index: usize) -> &'a str {
        record.fields.get(index).map_or("", String::as_str)
    }

    /// Column `index` of `record` as an unsigned integer; an error naming the column otherwise.
    pub fn u64(&self, record: &Record, index: usize) -> Result<u64> {
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
        let value = prof_core::error::quote(self.text(record, index));
        self.error(record, format!("`{column}` is {value}, not {what}"))
    }

    /// The fields of the next physical row (a quoted field may continue on later lines).
    fn next_fields(&mut self) -> Result<Option<(usize, Vec<String>)>> {
        let mut fields = Vec::new();
        Ok(self.fields_into(&mut fields)?.map(|line| (line, fields)))
    }

    /// Reads the next physical row into `fields` (their strings reused), returning the line it
    /// starts on.
    fn fields_into(&mut self, fields: &mut Vec<String>) -> Result<Option<usize>> {
        let start = self.line + 1;
        let mut row = RowBuilder { fields, used: 0, in_quotes: false, after_quote: false };
        row.begin_field();
        loop {
            self.buf.clear();
            // Bounded: a file with no line breaks (zeros, a binary) must not be read whole.
            let mut bounded = std::io::Read::take(&mut self.reader, MAX_LINE_BYTES + 1);
            let read = bounded.read_line(&mut self.buf).map_err(|e| match e.kind() {
                std::io::ErrorKind::InvalidData => {
                    Error::artifact(&self.path, self.line + 1, "the line is not UTF-8; rocprof writes UTF-8 CSV")
                }
                _ => Error::io(&self.path, e),
            })?;
            if read as u64 > MAX_LINE_BYTES {
                let reason = format!("the line runs past {} MiB without a line break", MAX_LINE_BYTES >> 20);
                return Err(Error::artifact(&self.path, self.line + 1, reason));
            }
            if read == 0 {
                if row.in_quotes {
                    return Err(Error::artifact(
                        &self.path,
                        start,
                        "a quoted field is not closed before the file ends",
                    ));
                }
                if self.line < start {
                    row.finish();
                    return Ok(None);
                }
                row.finish();
                return Ok(Some(start));
            }
            self.line += 1;
            let mut text = self.buf.as_str();
            if self.line == 1 {
                text = text.strip_prefix('\u{feff}').unwrap_or(text);
            }
            let ends_line = text.ends_with('\n');
            let text = text.strip_suffix('\n').unwrap_or(text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            if !ends_line && start > 1 {
                // The writer ends every row with a line break; a last row without one was cut
                // (a field may have lost digits): left out, and the result marked partial.
                self.cut = Some(start);
                return Ok(None);
            }
            row.split(text);
            if row.in_quotes && ends_line {
                row.current().push('\n');
                continue;
            }
            if row.in_quotes {
                return Err(Error::artifact(&self.path, start, "a quoted field is not closed before the file ends"));
            }
            row.finish();
            return Ok(Some(start));
        }
    }
}

/// Splits lines into the fields of one row, reusing the strings of `fields`.
struct RowBuilder<'a> {
    fields: &'a mut Vec<String>,
    /// Fields of this row so far (the last one is being filled).
    used: usize,
    in_quotes: bool,
    after_quote: bool,
}

impl RowBuilder<'_> {
    /// Starts a new, empty field.
    fn begin_field(&mut self) {
        if self.used == self.fields.len() {
            self.fields.push(String::new());
        }
        self.fields[self.used].clear();
        self.used += 1;
    }

    fn current(&mut self) -> &mut String {
        &mut self.fields[self.used - 1]
    }

    /// Drops the strings of a longer earlier row.
    fn finish(&mut self) {
        self.fields.truncate(self.used);
    }

    /// Adds one line's text: a quote opens a quoted stretch only at the start of a field, `""`
    /// inside one is a quote, and commas outside one end a field. (A plain byte scan: the
    /// fields are mostly a few digits long, too short for a vectorised search to pay off.)
    fn split(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if self.in_quotes {
                let Some(k) = bytes[i..].iter().position(|&b| b == b'"') else {
                    self.current().push_str(&text[i..]);
                    return;
                };
                self.current().push_str(&text[i..i + k]);
                i += k;
                if bytes.get(i + 1) == Some(&b'"') {
                    self.current().push('"');
                    i += 2;
                } else {
                    self.in_quotes = false;
                    self.after_quote = true;
                    i += 1;
                }
                continue;
            }
            let Some(k) = bytes[i..].iter().position(|&b| b == b'"' || b == b',') else {
                self.current().push_str(&text[i..]);
                return;
            };
            self.current().push_str(&text[i..i + k]);
            i += k;
            if bytes[i] == b',' {
                self.begin_field();
                self.after_quote = false;
            } else if self.current().is_empty() && !self.after_quote {
                self.in_quotes = true;
            } else {
                self.current().push('"');
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(text: &str) -> Result<CsvReader<&[u8]>> {
        CsvReader::from_reader(text.as_bytes(), Path::new("t.csv"))
    }

    fn rows(text: &str) -> Result<Vec<Vec<String>>> {
        let mut csv = reader(text)?;
        let mut out = Vec::new();
        while let Some(record) = csv.next_record()? {
            out.push(record.fields);
        }
        Ok(out)
    }

    #[test]
    fn quoted_commas_bom_crlf_doubled_quotes_and_blank_lines() {
        let text = "\u{feff}\"Name\",\"N\"\r\n\"f(int, float)\",3\r\n\"say \"\"hi\"\"\",4\r\n\r\n";
        let csv = reader(text).unwrap();
        assert_eq!(csv.header(), ["Name", "N"]);
        assert_eq!(csv.find("Name"), Some(0));
        assert_eq!(
            rows(text).unwrap(),
            vec![vec!["f(int, float)".to_owned(), "3".to_owned()], vec!["say \"hi\"".to_owned(), "4".to_owned()]]
        );
        assert_eq!(rows("a,b\n\"x\ny\",1\n").unwrap(), vec![vec!["x\ny".to_owned(), "1".to_owned()]]);
        // The same file cut before its last line break: the row is left out and noted.
        let mut csv = reader("a,b\n1,2\n\"x\ny\",1").unwrap();
        assert_eq!(csv.next_record().unwrap().unwrap().fields, ["1", "2"]);
        assert!(csv.next_record().unwrap().is_none());
        let mut t = prof_core::Timeline::new("t");
        csv.mark_cut(&mut t);
        assert_eq!(
            t.partial.as_deref(),
            Some("t.csv:3: the last row has no line break (the file was cut short); it was left out")
        );
    }

    #[test]
    fn errors_name_the_file_line_and_column() {
        let empty = reader("").err().unwrap().to_string();
        assert!(empty.contains("t.csv:1") && empty.contains("empty"), "{empty}");
        let csv = reader("A,B\n1,2\n").unwrap();
        let missing = csv.require("Start_Timestamp", "a kernel trace").unwrap_err().to_string();
        assert!(missing.contains("t.csv:1") && missing.contains("`Start_Timestamp`") && missing.contains("A, B"));
        let short = rows("A,B\n1,2\n3\n").unwrap_err().to_string();
        assert!(short.contains("t.csv:3") && short.contains("1 fields but the header has 2"), "{short}");
        let open = rows("A,B\n\"1,2\n").unwrap_err().to_string();
        assert!(open.contains("t.csv:2") && open.contains("not closed"), "{open}");
        let mut csv = reader("A,B\n12,x\n").unwrap();
        let record = csv.next_record().unwrap().unwrap();
        assert_eq!(csv.u64(&record, 0).unwrap(), 12);
        let bad = csv.u64(&record, 1).unwrap_err().to_string();
        assert!(bad.contains("t.csv:2") && bad.contains("`B` is `x`"), "{bad}");
        assert_eq!(csv.opt_u64(&record, None).unwrap(), None);
    }

    #[test]
    fn a_latin1_byte_names_its_line() {
        let bytes = b"\"Kernel_Name\",\"N\"\n\"k\",1\n\"caf\xE9\",2\n";
        let mut csv = CsvReader::from_reader(bytes.as_slice(), Path::new("t.csv")).unwrap();
        assert!(csv.next_record().unwrap().is_some());
        let err = csv.next_record().unwrap_err().to_string();
        assert!(err.contains("t.csv:3") && err.contains("not UTF-8"), "{err}");
    }

    #[test]
    fn reused_records_read_like_fresh_ones() {
        let real = crate::test_fixtures::fixture("rocprofv3/sdk1.0_kernel_trace.csv");
        // The real file, then a row with a quoted line break, a quote inside a bare field and an
        // empty field after a long one, so reused strings must be cleared and refilled.
        let columns = real.lines().next().unwrap_or_default().split("\",\"").count();
        let odd = format!("\"x\ny\",a\"b,{}\n", vec![""; columns - 2].join(","));
        for text in [real.clone(), format!("{real}{odd}")] {
            let fresh = rows(&text).unwrap();
            let mut csv = reader(&text).unwrap();
            let mut record = Record::default();
            let mut reused = Vec::new();
            while csv.next_record_into(&mut record).unwrap() {
                reused.push(record.fields.clone());
            }
            assert_eq!(reused, fresh);
            assert_eq!(fresh.len(), text.lines().count() - 1 - usize::from(text != real));
        }
        let fresh = rows(&format!("{real}{odd}")).unwrap();
        let last = fresh.last().unwrap();
        assert_eq!((last[0].as_str(), last[1].as_str(), last[2].as_str()), ("x\ny", "a\"b", ""));
    }

    #[test]
    fn a_file_without_line_breaks_is_refused_at_the_bound() {
        use std::io::Read as _;
        let zeros = std::io::BufReader::new(std::io::repeat(b'0').take(200 << 20));
        let started = std::time::Instant::now();
        let error = CsvReader::from_reader(zeros, Path::new("zeros.csv")).err().expect("refused").to_string();
        assert_eq!(error, "zeros.csv:1: the line runs past 16 MiB without a line break");
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
}
