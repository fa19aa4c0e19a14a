//! A plain row found and split where the reader buffered it, in one pass: its line end, its
//! fields and whether it is ASCII, from bit masks of 64 bytes at a time
//! ([`prof_timeline::csv_blocks`]), instead of a search for the line end, a copy, a UTF-8 check and
//! the split, each over the row again. A row is plain when it ends with a line feed inside the
//! buffered bytes, every byte is ASCII, and its quotes all enclose whole fields (every row
//! rocprofv3 writes); any other row is left to [`crate::rocprof_csv::CsvReader`]'s line-by-line
//! path, whose rules give plain rows the same fields.

use prof_timeline::csv_blocks::{self, below};

/// Splits the row at the start of `bytes` when it is plain (above): pushes its fields' ranges
/// onto `ranges` (inside their quotes) and gives the length of the row with its line feed.
/// `None`, with `ranges` as it was, for any other row.
#[inline]
pub(crate) fn plain_row(bytes: &[u8], ranges: &mut Vec<(usize, usize)>) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if csv_blocks::avx2() {
        // SAFETY: the CPU has AVX2 and PCLMULQDQ.
        return unsafe { plain_row_avx2(bytes, ranges) };
    }
    plain_row_body::<false>(bytes, ranges)
}

/// [`plain_row`] with the bytes classified by AVX2.
///
/// # Safety
/// The CPU must have AVX2 and PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq")]
unsafe fn plain_row_avx2(bytes: &[u8], ranges: &mut Vec<(usize, usize)>) -> Option<usize> {
    plain_row_body::<true>(bytes, ranges)
}

#[inline(always)]
fn plain_row_body<const AVX2: bool>(bytes: &[u8], ranges: &mut Vec<(usize, usize)>) -> Option<usize> {
    let before = ranges.len();
    let refuse = |ranges: &mut Vec<(usize, usize)>| {
        ranges.truncate(before);
        None
    };
    let mut split = PlainFields::new(0, 0);
    let mut at = 0;
    while at < bytes.len() {
        // SAFETY: `AVX2` is true only inside `plain_row_avx2`, compiled with AVX2 and PCLMULQDQ
        // for a CPU that has them.
        let block = unsafe { csv_blocks::classify_as::<AVX2>(bytes, at) };
        // Bits from an opening quote up to (not with) its closing one.
        // SAFETY: as above (PCLMULQDQ is enabled with AVX2).
        let parity = if block.quote == 0 { 0 } else { unsafe { csv_blocks::prefix_xor_as::<AVX2>(block.quote) } };
        let inside = parity ^ if split.open { !0 } else { 0 };
        let line_ends = block.newline & !inside;
        // The row's bytes in this block, its line feed left out.
        let end_bit = line_ends.trailing_zeros();
        let keep = below(end_bit);
        if (block.non_ascii | (block.newline & inside)) & keep != 0 {
            return refuse(ranges);
        }
        let Some(after_closing) = split.block(bytes, at, (block.quote, block.comma, inside), keep, ranges) else {
            return refuse(ranges);
        };
        if end_bit < 64 {
            let line_end = at + end_bit as usize;
            // A CRLF row is left to the line-by-line path (it drops the `\r`); a quoted last
            // field closes just before the line feed.
            if bytes.get(line_end.wrapping_sub(1)) == Some(&b'\r') {
                return refuse(ranges);
            }
            let (start, closed_last) = (split.start, after_closing >> end_bit & 1 == 1);
            let quoted = usize::from(start < line_end && bytes[start] == b'"');
            if quoted == 1 && !closed_last {
                return refuse(ranges);
            }
            ranges.push((start + quoted, line_end - quoted));
            return Some(line_end + 1);
        }
        at += 64;
    }
    refuse(ranges)
}

/// A row's fields split block by block when every quote encloses a whole field: by
/// [`plain_row`], and by [`crate::rocprof_row::RowScan`] for a line of a row it holds.
pub(crate) struct PlainFields {
    /// Where the field being read starts.
    pub(crate) start: usize,
    /// Inside quotes where the next block starts.
    pub(crate) open: bool,
    /// A field starts at the next block's first byte (the one before ended with a comma).
    carry_start: u64,
    /// A closing quote was the last byte before the next block.
    carry_after: u64,
}

impl PlainFields {
    /// A split whose first field starts at `start`, bit `start_bit` of the first block.
    pub(crate) fn new(start: usize, start_bit: u32) -> Self {
        PlainFields { start, open: false, carry_start: 1 << start_bit, carry_after: 0 }
    }

    /// Splits the row's bytes `keep` of the block at byte `at`, of which `quote` and `comma`
    /// are the quotes and commas and `inside` the bits inside quotes: pushes the fields its
    /// commas end onto `ranges` (inside their quotes) and gives the bits just after a closing
    /// quote; `None` when a quote does not enclose a whole field.
    #[inline(always)]
    pub(crate) fn block(
        &mut self,
        bytes: &[u8],
        at: usize,
        (quote, comma, inside): (u64, u64, u64),
        keep: u64,
        ranges: &mut Vec<(usize, usize)>,
    ) -> Option<u64> {
        let quotes = quote & keep;
        let mut separators = comma & keep & !inside;
        let starts = (separators << 1) | self.carry_start;
        let (opening, closing) = (quotes & inside, quotes & !inside);
        let after_closing = (closing << 1) | self.carry_after;
        // Every quote encloses a whole field: it opens one where a field starts, and what
        // follows its closing one ends the field (a comma; the row's end, the caller's).
        if opening & !starts != 0 || after_closing & keep & !separators != 0 {
            return None;
        }
        (self.open, self.carry_start, self.carry_after) = (inside >> 63 == 1, separators >> 63, closing >> 63);
        while separators != 0 {
            let end = at + separators.trailing_zeros() as usize;
            separators &= separators - 1;
            let quoted = usize::from(bytes[self.start] == b'"');
            ranges.push((self.start + quoted, end - quoted));
            self.start = end + 1;
        }
        Some(after_closing)
    }
}

#[cfg(test)]
mod tests {
    use super::plain_row;

    /// The fields of a plain row, or `None`.
    fn split(text: &str) -> Option<(usize, Vec<String>)> {
        let mut ranges = vec![(7, 7)];
        let len = plain_row(text.as_bytes(), &mut ranges)?;
        Some((len, ranges[1..].iter().map(|&(a, b)| text[a..b].to_owned()).collect()))
    }

    #[test]
    fn splits_plain_rows_and_leaves_the_rest() {
        assert_eq!(
            split("a,\"b,c\",,\"\",d\nnext"),
            Some((14, vec!["a", "b,c", "", "", "d"].into_iter().map(String::from).collect()))
        );
        assert_eq!(split("\"x\"\n"), Some((4, vec!["x".to_owned()])));
        assert_eq!(split("\n"), Some((1, vec![String::new()])));
        // Not plain: no line end, a doubled quote, a quote in a bare field, text after a
        // closing quote, a line break inside quotes, non-ASCII, a CRLF row.
        for text in ["a,b", "\"a\"\"b\"\n", "a\"b\n", "\"a\"b,c\n", "\"a\nb\"\n", "caf\u{e9}\n", "a,b\r\n", "\"a\"\r\n"]
        {
            assert_eq!(split(text), None, "{text:?}");
        }
        // The next row's oddities do not count against this one.
        assert_eq!(split("a\n\"x\ny\u{e9}"), Some((2, vec!["a".to_owned()])));
    }
}
