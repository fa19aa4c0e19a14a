//! Microsecond decimals (`"1699529622790614.8"`, `4.600125`) to integer nanoseconds, digit by
//! digit in one pass, so a 16-digit timestamp keeps its last nanosecond (an f64 cannot hold it).

use prof_timeline::digits::eight_digits;

/// Nanoseconds in a decimal count of microseconds, rounded half up to the nanosecond; `None`
/// for anything but plain non-negative decimals (`N/A`, `-1`, `1e3`, empty, overflow).
pub fn micros_to_ns(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    let digit = |at: usize| bytes.get(at).filter(|b| b.is_ascii_digit()).map(|b| u64::from(b - b'0'));
    let zeros = bytes.iter().take_while(|&&b| b == b'0').count();
    let mut at = zeros;
    let mut whole: u64 = 0;
    while let Some(eight) = bytes.get(at..).and_then(eight_digits) {
        // 17 significant digits at most, as below.
        if at + 8 - zeros > 17 {
            return None;
        }
        whole = whole * 100_000_000 + eight;
        at += 8;
    }
    while let Some(d) = digit(at) {
        whole = whole * 10 + d;
        at += 1;
        // More than 17 significant digits: at least 10^17 µs, past u64::MAX in ns.
        if at - zeros > 17 {
            return None;
        }
    }
    let whole_digits = at;
    let mut fraction_ns = 0;
    let mut fraction_digits = 0;
    if at < bytes.len() {
        if bytes[at] != b'.' {
            return None;
        }
        at += 1;
        const SCALE: [u64; 3] = [100, 10, 1];
        while let Some(d) = digit(at) {
            match SCALE.get(fraction_digits) {
                Some(scale) => fraction_ns += d * scale,
                None if fraction_digits == 3 && d >= 5 => fraction_ns += 1,
                None => {}
            }
            fraction_digits += 1;
            at += 1;
        }
        if at < bytes.len() {
            return None;
        }
    }
    if whole_digits == 0 && fraction_digits == 0 {
        return None;
    }
    whole.checked_mul(1_000)?.checked_add(fraction_ns)
}

#[cfg(test)]
mod tests {
    use super::micros_to_ns;

    #[test]
    fn keeps_every_digit_of_a_long_timestamp() {
        assert_eq!(micros_to_ns("1699529622790614.8"), Some(1_699_529_622_790_614_800));
        assert_eq!(micros_to_ns("1787504007005868.315"), Some(1_787_504_007_005_868_315));
        assert_eq!(micros_to_ns("607.98"), Some(607_980));
        assert_eq!(micros_to_ns("0"), Some(0));
        assert_eq!(micros_to_ns(".5"), Some(500));
        assert_eq!(micros_to_ns("26."), Some(26_000));
    }

    #[test]
    fn rounds_past_the_nanosecond() {
        assert_eq!(micros_to_ns("4.600125"), Some(4_600));
        assert_eq!(micros_to_ns("12.77012757357446"), Some(12_770));
        assert_eq!(micros_to_ns("1.2695"), Some(1_270));
    }

    #[test]
    fn rejects_what_is_not_a_plain_decimal() {
        for bad in ["", ".", "N/A", "-1", "1e3", "1.2.3", " 1", "99999999999999999999"] {
            assert_eq!(micros_to_ns(bad), None, "{bad:?}");
        }
    }

    /// The earlier split-and-parse form, kept as the reference for the one-pass parser.
    fn reference(text: &str) -> Option<u64> {
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        if (whole.is_empty() && fraction.is_empty())
            || !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut ns = if whole.is_empty() { 0 } else { whole.parse::<u64>().ok()?.checked_mul(1_000)? };
        let digits = fraction.as_bytes();
        let mut scale = 100;
        for &digit in digits.iter().take(3) {
            ns = ns.checked_add(u64::from(digit - b'0') * scale)?;
            scale /= 10;
        }
        if digits.get(3).is_some_and(|&d| d >= b'5') {
            ns = ns.checked_add(1)?;
        }
        Some(ns)
    }

    #[test]
    fn agrees_with_the_split_and_parse_reference() {
        // Every string of up to 5 characters over digits, '.', '5', '9', 'e', '-', ' ', plus
        // long and overflowing ones.
        let alphabet = ['0', '1', '4', '5', '9', '.', 'e', '-', ' '];
        let mut level: Vec<String> = vec![String::new()];
        let mut texts = level.clone();
        for _ in 0..5 {
            level = level.iter().flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}"))).collect();
            texts.extend(level.iter().cloned());
        }
        texts.extend(
            [
                "18446744073709551",
                "18446744073709551.615",
                "18446744073709551.6159",
                "18446744073709552",
                "99999999999999999999",
                "00000000000000000000000012.5",
                "0000000000000000000",
                "12345678901234567",
                "123456789012345678",
                "1234567890123456.7891",
                "00012345678901234567.5",
            ]
            .map(String::from),
        );
        for text in &texts {
            assert_eq!(micros_to_ns(text), reference(text), "{text:?}");
        }
    }
}
