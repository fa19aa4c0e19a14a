//! The byte searches of a rocprof CSV row ([`crate::rocprof_row`]): quotes and commas as bit
//! masks 64 bytes at a time (SSE2, every x86-64 CPU; the quotes paired by
//! [`prof_core::bit_masks::prefix_xor`]), and the first of two bytes sixteen bytes a compare.

/// The quotes and commas of the 64 bytes of `bytes` from `block`, as bit masks (bit i: byte
/// `block + i`; bytes past the end of `bytes` read as neither). A row's last block is mostly
/// past its end: the last 64 bytes are classified and shifted, or, in text shorter than that,
/// its bytes are copied into a zeroed block (byte by byte it had been a fifth of the row's
/// time).
#[cfg(test)]
pub(crate) fn marks(bytes: &[u8], block: usize) -> (u64, u64) {
    marks_with(bytes, block, block_marks)
}

/// [`marks`], each 64 bytes classified by `block_marks` (SSE2's or AVX2's).
#[inline(always)]
pub(crate) fn marks_with(bytes: &[u8], block: usize, block_marks: impl Fn(&[u8; 64]) -> (u64, u64)) -> (u64, u64) {
    if let Some(whole) = bytes.get(block..block.saturating_add(64)).and_then(|b| <&[u8; 64]>::try_from(b).ok()) {
        return block_marks(whole);
    }
    // A block cut short by the end of `bytes` (each row's last): the 64 bytes that end where
    // `bytes` does are read, and the bits of those before the block shifted out.
    if let Some(last) = bytes.len().checked_sub(64).filter(|&last| block > last && block < bytes.len()) {
        let (quotes, commas) = block_marks(bytes[last..].try_into().expect("64 bytes"));
        let shift = block - last;
        return (quotes >> shift, commas >> shift);
    }
    let mut tail = [0u8; 64];
    let rest = bytes.get(block..).unwrap_or(&[]);
    tail[..rest.len()].copy_from_slice(rest);
    block_marks(&tail)
}

/// The quotes and commas of one 64-byte block with AVX2 (32 bytes a compare: half SSE2's
/// instructions).
///
/// # Safety
/// The CPU must have AVX2; call it from a function compiled with it (`#[target_feature(enable
/// = "avx2")]`), so that the intrinsics are inlined.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn block_marks_avx2(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8};
    // SAFETY (the caller's): the CPU has AVX2; each load reads 32 of the block's 64 bytes.
    let lanes: [__m256i; 2] =
        [_mm256_loadu_si256(block.as_ptr().cast()), _mm256_loadu_si256(block.as_ptr().add(32).cast())];
    let bits_of = |byte: u8| {
        let wanted = _mm256_set1_epi8(byte as i8);
        let mask = |lane: __m256i| u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lane, wanted)) as u32);
        mask(lanes[0]) | mask(lanes[1]) << 32
    };
    (bits_of(b'"'), bits_of(b','))
}

/// The quotes and commas of one 64-byte block.
#[inline]
pub(crate) fn block_marks(block: &[u8; 64]) -> (u64, u64) {
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

    /// AVX2's classification gives SSE2's bits, on every block of the test text.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_marks_equal_sse2_marks() {
        #[target_feature(enable = "avx2")]
        unsafe fn with_avx2(bytes: &[u8], block: usize) -> (u64, u64) {
            // SAFETY: the caller checked the CPU has AVX2.
            super::marks_with(bytes, block, |b| unsafe { super::block_marks_avx2(b) })
        }
        if !std::is_x86_feature_detected!("avx2") {
            return;
        }
        let text: Vec<u8> =
            (0..300u32).map(|i| [b'"', b',', b'a', b'\n', b'"', b'7', 0xc3][(i * 7 % 13 % 7) as usize]).collect();
        for len in [0, 1, 63, 64, 65, 130, 300] {
            for block in 0..len.max(1) {
                // SAFETY: the CPU has AVX2, just checked.
                assert_eq!(unsafe { with_avx2(&text[..len], block) }, marks(&text[..len], block), "{len} {block}");
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
