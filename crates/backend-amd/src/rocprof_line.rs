//! A plain row found and split where the reader buffered it, in one pass: its line end, its
//! fields and whether it is ASCII, from bit masks of 64 bytes at a time
//! ([`prof_core::csv_blocks`]), instead of a search for the line end, a copy, a UTF-8 check and
//! the split, each over the row again. A row is plain when it ends with a line feed inside the
//! buffered bytes, every byte is ASCII, and its quotes all enclose whole fields (every row
//! rocprofv3 writes); any other row is left to [`crate::rocprof_csv::CsvReader`]'s line-by-line
//! path, whose rules give plain rows the same fields.

use prof_core::csv_blocks::{self, below, prefix_xor};

/// Splits the row at the start of `bytes` when it is plain (above): pushes its fields' ranges
/// onto `ranges` (inside their quotes) and gives the length of the row with its line feed.
/// `None`, with `ranges` as it was, for any other row.
#[inline]
pub(crate) fn plain_row(bytes: &[u8], ranges: &mut Vec<(usize, usize)>) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { plain_row_avx2(bytes, ranges) };
    }
    plain_row_body::<false>(bytes, ranges)
}

/// [`plain_row`] with the bytes classified by AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
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
    // Where the field being read starts; inside quotes where the block starts; a field starts
    // at the block's first byte (the one before ended with a comma); a closing quote was the
    // last byte before the block.
    let (mut start, mut open, mut carry_start, mut carry_after) = (0usize, false, 1u64, 0u64);
    let mut at = 0;
    while at < bytes.len() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `AVX2` is true only inside `plain_row_avx2`, compiled with AVX2 for a CPU
        // that has it.
        let block =
            if AVX2 { unsafe { csv_blocks::classify_avx2(bytes, at) } } else { csv_blocks::classify(bytes, at) };
        #[cfg(not(target_arch = "x86_64"))]
        let block = csv_blocks::classify(bytes, at);
        // Bits from an opening quote up to (not with) its closing one.
        let inside = if block.quote == 0 { 0 } else { prefix_xor(block.quote) } ^ if open { !0 } else { 0 };
        let line_ends = block.newline & !inside;
        // The row's bytes in this block, its line feed left out.
        let end_bit = line_ends.trailing_zeros();
        let keep = below(end_bit);
        if (block.non_ascii | (block.newline & inside)) & keep != 0 {
            return refuse(ranges);
        }
        let quotes = block.quote & keep;
        let mut separators = block.comma & keep & !inside;
        let starts = (separators << 1) | carry_start;
        let (opening, closing) = (quotes & inside, quotes & !inside);
        let after_closing = (closing << 1) | carry_after;
        // Every quote encloses a whole field: it opens one where a field starts, and what
        // follows its closing one ends the field (a comma; the line feed, checked below).
        if opening & !starts != 0 || after_closing & keep & !separators != 0 {
            return refuse(ranges);
        }
        (open, carry_start, carry_after) = (inside >> 63 == 1, separators >> 63, closing >> 63);
        while separators != 0 {
            let end = at + separators.trailing_zeros() as usize;
            separators &= separators - 1;
            let quoted = usize::from(bytes[start] == b'"');
            ranges.push((start + quoted, end - quoted));
            start = end + 1;
        }
        if end_bit < 64 {
            let line_end = at + end_bit as usize;
            // A CRLF row is left to the line-by-line path (it drops the `\r`); a quoted last
            // field closes just before the line feed.
            if bytes.get(line_end.wrapping_sub(1)) == Some(&b'\r') {
                return refuse(ranges);
            }
            let closed_last = after_closing >> end_bit & 1 == 1;
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
