//! Decimal digits read eight at a time (SWAR): a 16-digit timestamp is two word operations,
//! not sixteen. The vendors' CSV readers (Ascend microsecond values, rocprof integer cells)
//! share it.

/// The number the first eight bytes of `bytes` spell as ASCII digits (the first the most
/// significant), `None` when there are fewer than eight or one is not a digit.
#[inline]
pub fn eight_digits(bytes: &[u8]) -> Option<u64> {
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    let word = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
    // Every byte 0x30..=0x3F, and still 0x3_ after adding 6: '0'..='9'.
    if word & HIGH_NIBBLES != ZEROS || word.wrapping_add(0x0606_0606_0606_0606) & HIGH_NIBBLES != ZEROS {
        return None;
    }
    // The first byte is the most significant digit: pair digits, then pairs, then quads.
    let d = word - ZEROS;
    let d = (d.wrapping_mul(10) + (d >> 8)) & 0x00FF_00FF_00FF_00FF;
    let d = (d.wrapping_mul(100) + (d >> 16)) & 0x0000_FFFF_0000_FFFF;
    Some((d.wrapping_mul(10_000) + (d >> 32)) & 0xFFFF_FFFF)
}

#[cfg(test)]
mod tests {
    use super::eight_digits;

    #[test]
    fn eight_digits_at_once() {
        assert_eq!(eight_digits(b"12345678"), Some(12_345_678));
        assert_eq!(eight_digits(b"99999999x"), Some(99_999_999));
        assert_eq!(eight_digits(b"00000001"), Some(1));
        for bad in [&b"1234567"[..], b"1234567.", b"/2345678", b":2345678", b"1234567:", b"12\xb045678"] {
            assert_eq!(eight_digits(bad), None, "{bad:?}");
        }
        // Every byte value in every position.
        for position in 0..8 {
            for byte in 0..=255u8 {
                let mut text = *b"31415926";
                text[position] = byte;
                let want = std::str::from_utf8(&text).ok().filter(|t| t.bytes().all(|b| b.is_ascii_digit()));
                assert_eq!(eight_digits(&text), want.map(|t| t.parse().unwrap()), "{text:?}");
            }
        }
    }
}
