//! Bit masks over a block of 64 bytes of text, as the CSV splitters of the vendors' readers
//! use them (bit `i`: byte `i` of the block).

/// The bits below bit `n` (all of them from 64 on).
#[inline(always)]
pub fn below(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Bit `i` set when an odd number of the set bits of `bits` are at `i` or below: with the
/// quote bits, the bytes inside quotes (an opening quote counts as inside, the closing one as
/// outside, and `""` toggles twice).
#[inline(always)]
pub fn prefix_xor(mut bits: u64) -> u64 {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    bits
}

/// [`prefix_xor`] in one carry-less multiplication by all ones.
///
/// # Safety
/// The CPU must have PCLMULQDQ; call it from a function compiled with it.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn prefix_xor_clmul(bits: u64) -> u64 {
    use std::arch::x86_64::{_mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set_epi64x};
    let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, bits as i64), _mm_set_epi64x(0, -1), 0);
    _mm_cvtsi128_si64(product) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_xor_marks_the_bytes_inside_quotes() {
        // a"b,c"d""e : quotes at 1, 5, 7, 8.
        let quotes = 1 << 1 | 1 << 5 | 1 << 7 | 1 << 8;
        assert_eq!(prefix_xor(quotes), 0b1001_1110);
        assert_eq!(prefix_xor(1 << 63), 1 << 63);
        assert_eq!(prefix_xor(1), u64::MAX);
        assert_eq!(below(0), 0);
        assert_eq!(below(3), 0b111);
        assert_eq!(below(64), u64::MAX);
        assert_eq!(below(u32::MAX), u64::MAX);
    }
}
