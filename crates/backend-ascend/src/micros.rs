//! Microsecond decimals (`"1699529622790614.8"`, `4.600125`) to integer nanoseconds, digit by
//! digit, so a 16-digit timestamp keeps its last nanosecond (an f64 cannot hold it).

/// Nanoseconds in a decimal count of microseconds, rounded half up to the nanosecond; `None`
/// for anything but plain non-negative decimals (`N/A`, `-1`, `1e3`, empty, overflow).
pub fn micros_to_ns(text: &str) -> Option<u64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    if !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()) {
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
}
