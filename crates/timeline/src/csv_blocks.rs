//! The bytes that matter to a CSV splitter (`,`, `"`, line feed, non-ASCII), 64 at a time, as one bit
//! per byte: the splitter then finds field and record ends with bit operations instead of a
//! branch per byte, which is most of the time a wide table costs. SSE2 (every x86-64 CPU)
//! where there is one, AVX2 where the caller is compiled with it, eight-byte words elsewhere;
//! all give the same bits. The backends' CSV readers split with them.

/// The instructions the CSV splitter uses beyond x86-64's baseline (SSE2): the most this CPU
/// has, found once a splitter (tests pin the others, to check all give the same records).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instructions {
    /// Bytes classified 32 at a compare, bits counted by the popcnt instruction, the bytes
    /// inside quotes found by one carry-less multiplication (PCLMULQDQ, which every AVX2 CPU
    /// has; [`prefix_xor_as`]).
    Avx2,
    /// SSE2 (16 bytes a compare) and popcnt.
    Popcnt,
    /// The baseline.
    Baseline,
}

impl Instructions {
    /// The best this CPU offers.
    pub fn of_cpu() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("popcnt") {
            return if avx2() { Self::Avx2 } else { Self::Popcnt };
        }
        Self::Baseline
    }
}

/// Whether this CPU has AVX2 and PCLMULQDQ, the two the `AVX2` forms of [`classify_as`] and
/// [`prefix_xor_as`] need.
#[inline]
pub fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("pclmulqdq") {
        return true;
    }
    false
}

impl Default for Instructions {
    fn default() -> Self {
        Self::of_cpu()
    }
}

/// One bit per byte of a 64-byte block, bit `i` for byte `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockBits {
    /// Commas.
    pub comma: u64,
    /// Double quotes.
    pub quote: u64,
    /// Line feeds.
    pub newline: u64,
    /// Bytes outside ASCII (the high bit set): where none is, the text is UTF-8 already.
    pub non_ascii: u64,
}

/// The bits of the 64 bytes of `bytes` from `at`; bytes past the end are none of them.
#[inline(always)]
pub fn classify(bytes: &[u8], at: usize) -> BlockBits {
    match bytes.get(at..at + 64) {
        Some(block) => classify_block(block.try_into().expect("a 64-byte slice")),
        None => {
            let mut padded = [0u8; 64];
            let rest = bytes.get(at..).unwrap_or_default();
            padded[..rest.len()].copy_from_slice(rest);
            classify_block(&padded)
        }
    }
}

pub use crate::bit_masks::{below, prefix_xor};

/// How many bits of `bits` are set, without the work when none is (x86-64's baseline has no
/// popcount instruction, and most masks asked about are empty).
#[inline(always)]
pub fn ones(bits: u64) -> usize {
    if bits == 0 {
        0
    } else {
        bits.count_ones() as usize
    }
}

/// [`classify`] with AVX2 (32 bytes a compare: half the instructions of SSE2).
///
/// # Safety
/// The CPU must have AVX2; call it from a function compiled with it (`#[target_feature(enable
/// = "avx2")]`), so that the intrinsics are inlined.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn classify_avx2(bytes: &[u8], at: usize) -> BlockBits {
    // The padding is written out as in `classify`, not shared through a closure: a closure
    // here is not inlined with AVX2, and the intrinsics then become calls (3.5x the CPU,
    // measured on the 10 M-row file).
    match bytes.get(at..at + 64) {
        Some(block) => classify_block_avx2(block.try_into().expect("a 64-byte slice")),
        None => {
            let mut padded = [0u8; 64];
            let rest = bytes.get(at..).unwrap_or_default();
            padded[..rest.len()].copy_from_slice(rest);
            classify_block_avx2(&padded)
        }
    }
}

/// [`classify_avx2`] when `AVX2`, else [`classify`]: for a splitter compiled twice, once
/// inside a function built with AVX2 (`AVX2` true) and once for any CPU.
///
/// # Safety
/// With `AVX2` true, as [`classify_avx2`]: the CPU has AVX2 and the caller is compiled with it.
#[inline(always)]
pub unsafe fn classify_as<const AVX2: bool>(bytes: &[u8], at: usize) -> BlockBits {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: the caller's.
        return unsafe { classify_avx2(bytes, at) };
    }
    classify(bytes, at)
}

/// [`prefix_xor`] (the bits from each odd quote up to the next one) by one carry-less
/// multiplication when `AVX2`, else by the shifts: a dozen dependent instructions fewer in
/// every block that holds a quote.
///
/// # Safety
/// With `AVX2` true, the CPU has PCLMULQDQ ([`avx2`]) and the caller is compiled with it
/// (`#[target_feature(enable = "avx2,pclmulqdq")]`).
#[inline(always)]
pub unsafe fn prefix_xor_as<const AVX2: bool>(bits: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: the caller's.
        return unsafe { crate::bit_masks::prefix_xor_clmul(bits) };
    }
    prefix_xor(bits)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn classify_block_avx2(block: &[u8; 64]) -> BlockBits {
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8};
    // SAFETY (the caller's): the CPU has AVX2; each load reads 32 of the block's 64 bytes.
    let lanes: [__m256i; 2] =
        [_mm256_loadu_si256(block.as_ptr().cast()), _mm256_loadu_si256(block.as_ptr().add(32).cast())];
    let mask = |lane: __m256i| u64::from(_mm256_movemask_epi8(lane) as u32);
    let bits_of = |byte: u8| {
        let wanted = _mm256_set1_epi8(byte as i8);
        mask(_mm256_cmpeq_epi8(lanes[0], wanted)) | mask(_mm256_cmpeq_epi8(lanes[1], wanted)) << 32
    };
    let non_ascii = mask(lanes[0]) | mask(lanes[1]) << 32;
    BlockBits { comma: bits_of(b','), quote: bits_of(b'"'), newline: bits_of(b'\n'), non_ascii }
}

/// Tests' way in: [`classify_avx2`] compiled with AVX2; `None` on a CPU without it.
#[cfg(all(test, target_arch = "x86_64"))]
fn classify_avx2_checked(bytes: &[u8], at: usize) -> Option<BlockBits> {
    #[target_feature(enable = "avx2")]
    unsafe fn with_avx2(bytes: &[u8], at: usize) -> BlockBits {
        classify_avx2(bytes, at)
    }
    // SAFETY: the CPU has AVX2, just checked.
    std::is_x86_feature_detected!("avx2").then(|| unsafe { with_avx2(bytes, at) })
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn classify_block(block: &[u8; 64]) -> BlockBits {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    // SAFETY: SSE2 is part of every x86-64 target, so its intrinsics run on any CPU this
    // builds for; each load reads 16 of the block's 64 bytes (i < 4), unaligned.
    unsafe {
        let lanes: [__m128i; 4] = std::array::from_fn(|i| _mm_loadu_si128(block.as_ptr().add(16 * i).cast()));
        let bits_of = |byte: u8| {
            let wanted = _mm_set1_epi8(byte as i8);
            lanes.iter().enumerate().fold(0u64, |bits, (i, &lane)| {
                let hits = u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(lane, wanted)) as u16);
                bits | hits << (16 * i)
            })
        };
        let non_ascii = lanes
            .iter()
            .enumerate()
            .fold(0u64, |bits, (i, &lane)| bits | u64::from(_mm_movemask_epi8(lane) as u16) << (16 * i));
        BlockBits { comma: bits_of(b','), quote: bits_of(b'"'), newline: bits_of(b'\n'), non_ascii }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn classify_block(block: &[u8; 64]) -> BlockBits {
    swar_classify(block)
}

/// The portable form, eight bytes a word: exact (no false hits), and the reference the
/// SSE2 form is tested against.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn swar_classify(block: &[u8; 64]) -> BlockBits {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // The high bits of a word's bytes, gathered into 8 bits.
    let gather = |high: u64| ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) & 0xff;
    // The bytes of `word` equal to `byte`, gathered.
    let bits = |word: u64, byte: u8| {
        let x = word ^ (ONES * u64::from(byte));
        gather(!(((x & LOW) + LOW) | x | LOW))
    };
    let mut out = BlockBits { comma: 0, quote: 0, newline: 0, non_ascii: 0 };
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("an 8-byte chunk"));
        out.non_ascii |= gather(word & !LOW) << (8 * i);
        out.comma |= bits(word, b',') << (8 * i);
        out.quote |= bits(word, b'"') << (8 * i);
        out.newline |= bits(word, b'\n') << (8 * i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit by bit, the slow and obvious way.
    fn naive(bytes: &[u8], at: usize) -> BlockBits {
        let mut out = BlockBits { comma: 0, quote: 0, newline: 0, non_ascii: 0 };
        for (i, &b) in bytes.iter().skip(at).take(64).enumerate() {
            let bit = 1u64 << i;
            if b >= 0x80 {
                out.non_ascii |= bit;
            }
            match b {
                b',' => out.comma |= bit,
                b'"' => out.quote |= bit,
                b'\n' => out.newline |= bit,
                _ => {}
            }
        }
        out
    }

    #[test]
    fn every_form_finds_the_same_bytes() {
        // Every byte value in every position, the special ones densely, and a short tail.
        let mut bytes: Vec<u8> = (0..=255u8).cycle().take(1024).collect();
        bytes.extend(b",\"\n,,\"\"\n\r\n,a\"b,\xE2\x80\x9C\x80\xFF,\n".repeat(9));
        for at in 0..bytes.len() {
            let want = naive(&bytes, at);
            assert_eq!(classify(&bytes, at), want, "at {at}");
            #[cfg(target_arch = "x86_64")]
            if let Some(bits) = classify_avx2_checked(&bytes, at) {
                assert_eq!(bits, want, "avx2 at {at}");
            }
            if let Some(block) = bytes.get(at..at + 64) {
                assert_eq!(swar_classify(block.try_into().unwrap()), want, "swar at {at}");
            }
        }
        assert_eq!(classify(&bytes, bytes.len()), BlockBits { comma: 0, quote: 0, newline: 0, non_ascii: 0 });
    }

    #[test]
    fn both_prefix_xors_agree() {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "pclmulqdq")]
        unsafe fn with_clmul(bits: u64) -> u64 {
            prefix_xor_as::<true>(bits)
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut values = vec![0, 1, 1 << 63, u64::MAX, 0b1001_0110];
        values.extend((0..20_000).map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }));
        for bits in values {
            // The reference: bit i is the parity of bits 0..=i.
            let want = (0..64).fold(0u64, |out, i| out | u64::from((bits & below(i + 1)).count_ones() % 2 == 1) << i);
            // SAFETY: false needs nothing.
            assert_eq!(unsafe { prefix_xor_as::<false>(bits) }, want, "{bits:#x}");
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("pclmulqdq") {
                // SAFETY: the CPU has PCLMULQDQ, just checked.
                assert_eq!(unsafe { with_clmul(bits) }, want, "clmul {bits:#x}");
            }
        }
    }
}
