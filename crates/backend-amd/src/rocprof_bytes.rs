//! The byte searches of a rocprof CSV row ([`crate::rocprof_row`]): quotes and commas as bit
//! masks 64 bytes at a time (SSE2, every x86-64 CPU; the quotes paired by
//! [`prof_core::bit_masks::prefix_xor`]), and the first of two bytes sixteen bytes a compare.

/// The range of the value of field `bytes[start..end]`, which holds `quotes` quotes: the
/// field itself without any, inside them when they are its first and last bytes; `None` for
/// any other field (left to the general scan).
#[inline]
pub(crate) fn plain_field(bytes: &[u8], start: usize, end: usize, quotes: u32) -> Option<(usize, usize)> {
    match quotes {
        0 => Some((start, end)),
        2 if end >= start + 2 && bytes[start] == b'"' && bytes[end - 1] == b'"' => Some((start + 1, end - 1)),
        _ => None,
    }
}

/// The quotes and commas of the 64 bytes of `bytes` from `block`, as bit masks (bit i: byte
/// `block + i`; bytes past the end of `bytes` read as neither). A row's last block is mostly
/// past its end: its bytes are copied into a zeroed block and classified alike (byte by byte
/// it had been a fifth of the row's time).
#[inline]
pub(crate) fn marks(bytes: &[u8], block: usize) -> (u64, u64) {
    if let Some(whole) = bytes.get(block..block.saturating_add(64)).and_then(|b| <&[u8; 64]>::try_from(b).ok()) {
        return block_marks(whole);
    }
    let mut tail = [0u8; 64];
    let rest = bytes.get(block..).unwrap_or(&[]);
    tail[..rest.len()].copy_from_slice(rest);
    block_marks(&tail)
}

/// The quotes and commas of one 64-byte block.
#[inline]
fn block_marks(block: &[u8; 64]) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
        let (mut quotes, mut commas) = (0u64, 0u64);
        for lane in 0..4 {
            // SAFETY: SSE2 is part of x86-64; the load reads block[16·lane..][..16], inside
            // the 64-byte block.
            let (q, c) = unsafe {
                let v = _mm_loadu_si128(block.as_ptr().add(16 * lane).cast());
                (
                    _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))) as u16,
                    _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b',' as i8))) as u16,
                )
            };
            quotes |= u64::from(q) << (16 * lane);
            commas |= u64::from(c) << (16 * lane);
        }
        (quotes, commas)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (mut quotes, mut commas) = (0u64, 0u64);
        for (i, &byte) in block.iter().enumerate() {
            quotes |= u64::from(byte == b'"') << i;
            commas |= u64::from(byte == b',') << i;
        }
        (quotes, commas)
    }
}

/// The first byte of `bytes[from..to]` equal to `a` or `b`. Sixteen bytes a compare (SSE2,
/// every x86-64 CPU) while 16 are there to load, the bits past `to` masked off; then byte by
/// byte. A row's fields are short, so most are found by one compare.
#[inline]
pub(crate) fn find_either(bytes: &[u8], from: usize, to: usize, a: u8, b: u8) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::{find_either, marks};

    #[test]
    fn marks_are_the_quotes_and_commas_of_a_block_whole_or_cut_short() {
        // Every length up to three blocks, every block start: the rule written byte by byte.
        let text: Vec<u8> =
            (0..200u32).map(|i| [b'"', b',', b'a', b'\n', b'"', b'7'][(i * 7 % 13 % 6) as usize]).collect();
        for len in 0..text.len() {
            let bytes = &text[..len];
            for block in (0..=len).step_by(64).chain([len.saturating_sub(5)]) {
                let (mut quotes, mut commas) = (0u64, 0u64);
                for (i, &byte) in bytes.iter().skip(block).take(64).enumerate() {
                    quotes |= u64::from(byte == b'"') << i;
                    commas |= u64::from(byte == b',') << i;
                }
                assert_eq!(marks(bytes, block), (quotes, commas), "len {len} block {block}");
            }
        }
    }

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
