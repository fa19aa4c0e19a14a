//! One row of a rocprof CSV file, its fields read in place: the row's text is kept as read and
//! each field is a range of it (inside the quotes of a quoted field), so a row of plain and
//! plainly quoted fields is split without copying any of them. A field that needs rewriting (a
//! doubled quote, a line break inside quotes, text after a closing quote, a quote inside a bare
//! field) is unescaped once, after the row's lines.
//!
//! The rules are [`CsvReader`](crate::rocprof_csv::CsvReader)'s: a quote opens a quoted
//! stretch only at the start of a field, `""` inside one is a quote, commas outside one end a
//! field, and a line break inside one belongs to the field (the `\r` of a CRLF dropped).

/// One data row: its fields and the line it starts on.
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// 1-based line the row starts on.
    pub line: usize,
    /// The row's lines as read, then the unescaped text of the fields that needed it.
    text: String,
    /// Each field's byte range in `text`.
    ranges: Vec<(usize, usize)>,
}

impl PartialEq for Record {
    fn eq(&self, other: &Self) -> bool {
        self.line == other.line && self.fields().eq(other.fields())
    }
}

impl Eq for Record {}

impl Record {
    /// A row of the given fields, starting on `line`.
    pub fn from_fields(line: usize, fields: Vec<String>) -> Self {
        let mut record = Record { line, ..Record::default() };
        for field in fields {
            let start = record.text.len();
            record.text.push_str(&field);
            record.ranges.push((start, record.text.len()));
        }
        record
    }

    /// Its number of fields.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// True for a row without fields.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Field `index`, unquoted.
    pub fn field(&self, index: usize) -> Option<&str> {
        self.ranges.get(index).and_then(|&(start, end)| self.text.get(start..end))
    }

    /// The fields, unquoted, in order.
    pub fn fields(&self) -> impl Iterator<Item = &str> + '_ {
        self.ranges.iter().map(|&(start, end)| self.text.get(start..end).unwrap_or(""))
    }

    /// The fields as owned strings.
    pub fn to_strings(&self) -> Vec<String> {
        self.fields().map(str::to_owned).collect()
    }

    /// Empties the row for the next one (its buffers kept).
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.ranges.clear();
    }

    /// The row's text, for the reader to append the next line to.
    pub(crate) fn text_mut(&mut self) -> &mut String {
        &mut self.text
    }
}

/// Splits a row line by line as the reader appends them to the [`Record`]'s text.
#[derive(Default)]
pub(crate) struct RowScan {
    /// Where the current field starts in the text.
    field_start: usize,
    /// Inside a quoted stretch.
    in_quotes: bool,
    /// The current field opened with a quote…
    quoted: bool,
    /// …which closed here.
    closed_at: Option<usize>,
    /// The current field needs unescaping (its raw text is not its value).
    complex: bool,
    /// `(field index, raw range)` of the fields to unescape once the row is complete.
    pending: Vec<(usize, usize, usize)>,
}

impl RowScan {
    /// A scan of a row whose first field starts at `start` of the text.
    pub(crate) fn new(start: usize) -> Self {
        RowScan { field_start: start, ..RowScan::default() }
    }

    /// True while a quoted stretch is open (the row goes on past this line).
    pub(crate) fn in_quotes(&self) -> bool {
        self.in_quotes
    }

    /// Splits `record`'s text `from..to` (one line, its line break left out).
    pub(crate) fn line(&mut self, record: &mut Record, from: usize, to: usize) {
        let (bytes, ranges) = (record.text.as_bytes(), &mut record.ranges);
        let mut i = from;
        while i < to {
            if self.in_quotes {
                let Some(k) = find_either(bytes, i, to, b'"', b'"') else { return };
                if bytes.get(k + 1) == Some(&b'"') {
                    self.complex = true;
                    i = k + 2;
                } else {
                    self.in_quotes = false;
                    self.closed_at = Some(k);
                    i = k + 1;
                }
                continue;
            }
            let Some(k) = find_either(bytes, i, to, b'"', b',') else {
                // Text after a closing quote joins the field.
                self.complex |= self.closed_at.is_some();
                return;
            };
            self.complex |= self.closed_at.is_some() && k > i;
            if bytes[k] == b',' {
                self.end_field(ranges, k);
                self.field_start = k + 1;
            } else if k == self.field_start && !self.quoted {
                self.in_quotes = true;
                self.quoted = true;
            } else {
                // A quote inside a bare field, or after a closing one: kept as a quote.
                self.complex = true;
            }
            i = k + 1;
        }
    }

    /// The line ended inside quotes: the line break belongs to the field.
    pub(crate) fn line_break(&mut self) {
        self.complex = true;
    }

    /// Ends the row, its last field ending at `to`; unescapes the fields that need it.
    pub(crate) fn finish(mut self, record: &mut Record, to: usize) {
        self.end_field(&mut record.ranges, to);
        for (index, start, end) in std::mem::take(&mut self.pending) {
            let value = unescape(&record.text[start..end]);
            let at = record.text.len();
            record.text.push_str(&value);
            record.ranges[index] = (at, record.text.len());
        }
    }

    fn end_field(&mut self, ranges: &mut Vec<(usize, usize)>, end: usize) {
        let index = ranges.len();
        let range = match (self.complex, self.quoted, self.closed_at) {
            (false, false, _) => (self.field_start, end),
            (false, true, Some(close)) => (self.field_start + 1, close),
            _ => {
                self.pending.push((index, self.field_start, end));
                (end, end)
            }
        };
        ranges.push(range);
        (self.quoted, self.closed_at, self.complex) = (false, None, false);
    }
}

/// The first byte of `bytes[from..to]` equal to `a` or `b`. Sixteen bytes a compare (SSE2,
/// every x86-64 CPU) while 16 are there to load, the bits past `to` masked off; then byte by
/// byte. A row's fields are short, so most are found by one compare.
#[inline]
fn find_either(bytes: &[u8], from: usize, to: usize, a: u8, b: u8) -> Option<usize> {
    let to = to.min(bytes.len());
    let mut i = from;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
        while i < to && i + 16 <= bytes.len() {
            // SAFETY: SSE2 is part of x86-64; the load reads bytes[i..i + 16], inside `bytes`.
            let hits = unsafe {
                let v = _mm_loadu_si128(bytes.as_ptr().add(i).cast());
                let either =
                    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(a as i8)), _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8)));
                _mm_movemask_epi8(either) as u32
            };
            let hits = if to - i < 16 { hits & ((1u32 << (to - i)) - 1) } else { hits };
            if hits != 0 {
                return Some(i + hits.trailing_zeros() as usize);
            }
            i += 16;
        }
    }
    bytes.get(i..to)?.iter().position(|&x| x == a || x == b).map(|k| i + k)
}

/// The value of a field from its raw text (which may span lines), by the rules above.
fn unescape(raw: &str) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    let (mut in_quotes, mut after_quote) = (false, false);
    let pieces: Vec<&str> = raw.split('\n').collect();
    for (n, piece) in pieces.iter().enumerate() {
        let mut piece = piece.as_bytes();
        if n + 1 < pieces.len() {
            piece = piece.strip_suffix(b"\r").unwrap_or(piece);
        }
        if n > 0 {
            out.push(b'\n');
        }
        let mut i = 0;
        while i < piece.len() {
            let byte = piece[i];
            i += 1;
            if byte != b'"' {
                out.push(byte);
            } else if in_quotes {
                if piece.get(i) == Some(&b'"') {
                    out.push(b'"');
                    i += 1;
                } else {
                    (in_quotes, after_quote) = (false, true);
                }
            } else if out.is_empty() && !after_quote {
                in_quotes = true;
            } else {
                out.push(b'"');
            }
        }
    }
    // Only ASCII quotes and `\r`s were dropped from UTF-8 text.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::find_either;

    #[test]
    fn finds_the_first_of_two_bytes_as_a_byte_loop_does() {
        let text: Vec<u8> =
            b"\"KERNEL_DISPATCH\",\"Agent 4\",1,1,834304,\"void k<float>(float*, int)\",1550151853029637,x".repeat(3);
        for from in 0..text.len() {
            for to in from..=text.len() {
                for (a, b) in [(b'"', b','), (b'"', b'"'), (b'x', b'4')] {
                    let want = text[from..to].iter().position(|&x| x == a || x == b).map(|k| from + k);
                    assert_eq!(find_either(&text, from, to, a, b), want, "{from}..{to} {a} {b}");
                }
            }
        }
    }
}
