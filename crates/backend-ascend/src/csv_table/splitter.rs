//! The CSV splitter of [`super::CsvReader`] and [`super::CsvTable`]: records and their fields
//! found with the bit masks of [`crate::csv_blocks`], quoted fields unescaped in place.

use super::Header;
use crate::csv_blocks::{self, Instructions};
use crate::error::AscendError;
use std::path::Path;

/// What [`Splitter::next`] found.
pub(super) enum Split {
    /// A record starting on this line, now in the splitter.
    Record(usize),
    /// No more records.
    End,
    /// The input ended inside the record starting on this line; more input may finish it.
    NeedMore(usize),
    /// The input ended inside a quoted field of the record starting on this line.
    Unterminated(usize),
}

/// Splits CSV bytes into records. The current record is `input[start..end]` after the split,
/// its fields `fields` (offsets from `start`); quoted fields are unescaped in place (`""` to
/// `"`, the enclosing quotes dropped, the bytes freed padded with spaces), so no field is
/// copied or allocated. It looks at the bytes 64 at a time as bit masks ([`csv_blocks`]): field
/// and record ends are the set bits of the separators outside quotes, and the fields after the
/// last one wanted are counted, not split.
#[derive(Default)]
pub(super) struct Splitter {
    /// The instructions it splits with.
    pub(super) instructions: Instructions,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) fields: Vec<(usize, usize)>,
    /// Which fields hold a quote (to unescape once the record is complete).
    pub(super) quoted: Vec<usize>,
    /// Lines finished before the current position (the next record starts on `lines + 1`).
    pub(super) lines: usize,
    /// Split only fields `0..=last` (the rest is only counted, in `tail_fields`).
    pub(super) last: Option<usize>,
    /// Bit `k` set: field `k` is not read, so it is left empty (it reads as absent) and its
    /// quotes are not unescaped (fields from 64 on are always read).
    pub(super) skip: u64,
    /// Fields of the current record after `last`, counted not split.
    pub(super) tail_fields: usize,
    /// Every byte of the current record is ASCII (so it is UTF-8 without a check).
    pub(super) ascii: bool,
    /// The line of a last record without a line break: the file was cut while it was written,
    /// so that record was left out.
    pub(super) cut: Option<usize>,
}

impl Splitter {
    /// Splits the record at `input[*pos..]`, advancing `*pos` past it. Blank lines are
    /// skipped. `eof` says whether `input` is all there is; when it is not and the record
    /// runs off its end, `*pos` is left at the record's start for a retry with more input.
    pub(super) fn next(&mut self, input: &mut [u8], pos: &mut usize, eof: bool) -> Split {
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
            // SAFETY: `Instructions::of_cpu` found AVX2, PCLMULQDQ and popcnt on this CPU.
            #[cfg(target_arch = "x86_64")]
            Instructions::Avx2 => unsafe { self.record_with_avx2(input, start, eof) },
            // SAFETY: `Instructions::of_cpu` found popcnt on this CPU.
            #[cfg(target_arch = "x86_64")]
            Instructions::Popcnt => unsafe { self.record_with_popcnt(input, start, eof) },
            _ => self.split_record::<false>(input, start, eof),
        }
    }

    /// [`Splitter::record`] with AVX2, PCLMULQDQ and popcnt: the bytes classified 32 at a
    /// compare.
    ///
    /// # Safety
    /// The CPU must have AVX2, PCLMULQDQ and popcnt.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,pclmulqdq")]
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
        // Read once, not per field (the pushes write through `self`).
        let (skip, last) = (self.skip, self.last.unwrap_or(usize::MAX));
        let mut at = 0;
        while at < bytes.len() {
            // SAFETY: `AVX2` is true only in `record_with_avx2`, compiled with AVX2 for a CPU
            // that has it.
            let block = unsafe { csv_blocks::classify_as::<AVX2>(bytes, at) };
            // SAFETY: as above (PCLMULQDQ is enabled with AVX2).
            let parity = if block.quote == 0 { 0 } else { unsafe { csv_blocks::prefix_xor_as::<AVX2>(block.quote) } };
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
                    let line_end = line_ends >> bit & 1 == 1;
                    let index = self.fields.len();
                    if skipped(skip, index) {
                        // Not read: an empty field, whatever its quotes.
                        self.fields.push((i, i));
                    } else {
                        // A quote in the field: in the blocks before, or in this one from the
                        // field's start (most blocks have none).
                        let has_quote = field_quoted
                            || (block.quote != 0
                                && block.quote
                                    & csv_blocks::below(bit)
                                    & !csv_blocks::below(field_start.saturating_sub(at) as u32)
                                    != 0);
                        let end = if line_end && i > field_start && bytes[i - 1] == b'\r' { i - 1 } else { i };
                        self.push_field(field_start, end, has_quote);
                    }
                    field_quoted = false;
                    if line_end {
                        self.lines += csv_blocks::ones(quoted_newlines & csv_blocks::below(bit)) + 1;
                        self.end = start + i;
                        self.ascii = (non_ascii | (block.non_ascii & csv_blocks::below(bit))) == 0;
                        return Ok(start + i + 1);
                    }
                    field_start = i + 1;
                    if index >= last {
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
            None if skipped(self.skip, self.fields.len()) => self.fields.push((bytes.len(), bytes.len())),
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
    pub(super) fn text<'a>(&self, input: &'a [u8], header: &Header, line: usize) -> Result<&'a str, AscendError> {
        let bytes = &input[self.start..self.end];
        if self.ascii {
            // SAFETY: `record` found no byte ≥ 0x80 in these bytes, and `unescape` only moves
            // bytes inside the record and pads with spaces, so they are ASCII, hence UTF-8.
            return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        std::str::from_utf8(bytes).map_err(|e| AscendError::file(&header.path, line, format!("not UTF-8: {e}")))
    }

    /// The current record as a header.
    pub(super) fn header(&self, input: &[u8], path: &Path) -> Result<Header, AscendError> {
        let header = Header { path: path.to_owned(), names: Vec::new() };
        let text = self.text(input, &header, 1)?;
        let names = self.fields.iter().map(|&(start, end)| text[start..end].trim().to_owned()).collect();
        Ok(Header { names, ..header })
    }

    /// An error unless the current record has `columns` fields.
    pub(super) fn check(&self, header: &Header, line: usize, columns: usize) -> Result<(), AscendError> {
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

/// Whether field `index` is left unread by a splitter whose skip mask is `skip` (fields from
/// 64 on are always read).
#[inline(always)]
fn skipped(skip: u64, index: usize) -> bool {
    index < 64 && skip >> index & 1 == 1
}
