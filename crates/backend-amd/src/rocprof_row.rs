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

    /// The row's text from the start of field `first` to the end of field `last`, when the
    /// fields between lie in order in it (none was rewritten by unescaping): equal spans of two
    /// rows hold equal fields `first..=last`. For a reader that parses a run of cells once per
    /// distinct text.
    pub(crate) fn span(&self, first: usize, last: usize) -> Option<&str> {
        let ranges = self.ranges.get(first..=last)?;
        if !ranges.windows(2).all(|w| w[0].1 <= w[1].0) {
            return None;
        }
        self.text.get(ranges.first()?.0..ranges.last()?.1)
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

    /// Takes the plain row at the start of `buffered` (a reader's buffered bytes), split in one
    /// pass ([`crate::rocprof_line`]): the bytes it took, with the line feed; `None`, the row
    /// unchanged, when the row there is not plain.
    #[inline]
    pub(crate) fn take_plain(&mut self, buffered: &[u8]) -> Option<usize> {
        self.clear();
        let len = crate::rocprof_line::plain_row(buffered, &mut self.ranges)?;
        // SAFETY: `plain_row` found every byte of the row ASCII, hence UTF-8.
        self.text.push_str(unsafe { std::str::from_utf8_unchecked(&buffered[..len]) });
        Some(len)
    }

    /// The row's text, for the reader to append the next line to.
    pub(crate) fn text_mut(&mut self) -> &mut String {
        &mut self.text
    }
}

use crate::rocprof_bytes::find_either;
use crate::rocprof_line::PlainFields;
use prof_timeline::bit_masks::below;
use prof_timeline::csv_blocks;

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
        let fresh = self.field_start == from && !self.in_quotes && !self.quoted && !self.complex;
        if !(fresh && self.plain_line(record, from, to)) {
            self.any_line(record, from, to);
        }
    }

    /// [`RowScan::line`] for a line that starts a row and whose quotes all enclose whole
    /// fields (every rocprof row): the fields are found from bit masks of the line's quotes and
    /// commas, 64 bytes at a time, without the general scan's states. False (nothing changed)
    /// for any other line: a quote inside a bare field, `""`, text after a closing quote, a
    /// quoted field that goes on past the line.
    fn plain_line(&mut self, record: &mut Record, from: usize, to: usize) -> bool {
        #[cfg(target_arch = "x86_64")]
        if csv_blocks::avx2() {
            // SAFETY: the CPU has AVX2 and PCLMULQDQ.
            return unsafe { self.plain_line_avx2(record, from, to) };
        }
        self.plain_line_body::<false>(record, from, to)
    }

    /// [`RowScan::plain_line`] with the bytes classified by AVX2, 32 a compare.
    ///
    /// # Safety
    /// The CPU must have AVX2 and PCLMULQDQ.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,pclmulqdq")]
    unsafe fn plain_line_avx2(&mut self, record: &mut Record, from: usize, to: usize) -> bool {
        self.plain_line_body::<true>(record, from, to)
    }

    /// The body of [`RowScan::plain_line`]; `AVX2` classifies with AVX2 (only inside
    /// [`RowScan::plain_line_avx2`]).
    #[inline(always)]
    fn plain_line_body<const AVX2: bool>(&mut self, record: &mut Record, from: usize, to: usize) -> bool {
        let (bytes, ranges) = (record.text.as_bytes(), &mut record.ranges);
        let to = to.min(bytes.len());
        let before = ranges.len();
        let first = from & !63;
        let mut split = PlainFields::new(from, (from - first) as u32);
        let mut block = first;
        while block < to {
            // SAFETY: `AVX2` is true only inside `plain_line_avx2`, compiled with AVX2 and PCLMULQDQ for a
            // CPU that has it.
            let marks = unsafe { csv_blocks::classify_as::<AVX2>(bytes, block) };
            // Only the line's own bytes.
            let offset = |at: usize| at.saturating_sub(block).min(64) as u32;
            let keep = below(offset(to)) & !below(offset(from));
            // Bits from an opening quote up to (not with) its closing one.
            // SAFETY: as above (PCLMULQDQ is enabled with AVX2).
            let inside =
                unsafe { csv_blocks::prefix_xor_as::<AVX2>(marks.quote & keep) } ^ if split.open { !0 } else { 0 };
            if split.block(bytes, block, (marks.quote, marks.comma, inside), keep, ranges).is_none() {
                ranges.truncate(before);
                return false;
            }
            block += 64;
        }
        if split.open {
            // The line ends inside quotes: a field that goes on past it.
            ranges.truncate(before);
            return false;
        }
        // The last field: `finish` ends it as the general scan would.
        let start = split.start;
        self.field_start = start;
        if start < to && bytes[start] == b'"' {
            (self.quoted, self.closed_at) = (true, Some(to - 1));
        }
        true
    }

    /// [`RowScan::line`] for any line: the quoting rules above, one field at a time.
    fn any_line(&mut self, record: &mut Record, from: usize, to: usize) {
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
    use super::{Record, RowScan};

    /// The row `line` makes of `text` (one line), through the plain path where it applies or
    /// through the general scan only.
    fn split(text: &str, general_only: bool) -> (Vec<String>, bool) {
        let mut record = Record::default();
        record.text_mut().push_str("prefix,");
        let from = record.text_mut().len();
        record.text_mut().push_str(text);
        let to = record.text_mut().len();
        let mut scan = RowScan::new(from);
        if general_only {
            scan.any_line(&mut record, from, to);
        } else {
            scan.line(&mut record, from, to);
        }
        let open = scan.in_quotes();
        scan.finish(&mut record, to);
        (record.to_strings(), open)
    }

    #[test]
    fn plain_lines_split_as_the_general_scan_splits_them() {
        let pieces = ["a", "bc", "\"", ",", "\"\"", " ", "x,y", "\"q,r\"", "7", "\"k<float>(float*, int)\""];
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        let mut plain = 0;
        for _ in 0..20_000 {
            let len = next(24);
            let text: String = (0..len).map(|_| pieces[next(pieces.len())]).collect();
            let want = split(&text, true);
            assert_eq!(split(&text, false), want, "{text:?}");
            plain += usize::from(!text.is_empty() && !want.1);
        }
        assert!(plain > 1000);
        // Long lines cross the 64-byte blocks.
        let row =
            "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,834304,\"void k<float>(float*, int)\",1550151853029637,".repeat(9);
        assert_eq!(split(&row, false), split(&row, true));
        assert_eq!(split(&row, false).0.len(), 9 * 7 + 1);
    }
}
