//! The byte search of a rocprof CSV row's general scan ([`crate::rocprof_row`]): the first of
//! two bytes, sixteen bytes a compare (the bit masks of its plain rows are
//! [`prof_timeline::csv_blocks`]').

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
