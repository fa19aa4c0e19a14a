//! Reading one nvidia-smi value: the "no value" markers and numbers that carry a unit.
//!
//! `--query-gpu` CSV writes unavailable values in brackets (`[N/A]`, `[Not Supported]`),
//! `-q -x` XML writes them bare (`N/A`); numbers carry their unit (`143771 MiB`, `79.25 W`).

use crate::error::quote;

/// Texts nvidia-smi prints instead of a value, as seen in the recorded outputs.
const ABSENT: &[&str] = &["N/A", "Not Supported", "Requested functionality has been deprecated"];

/// True when `raw` is nvidia-smi's way of saying "no value" (or is empty).
pub fn is_absent(raw: &str) -> bool {
    let text = raw.trim();
    let inner = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or(text);
    text.is_empty() || ABSENT.contains(&inner)
}

/// `raw` as text, or `None` when it is a "no value" marker.
pub fn text(raw: &str) -> Option<&str> {
    (!is_absent(raw)).then(|| raw.trim())
}

/// Parses a number that may carry `unit` after a space (`143771 MiB`); `None` for "no value".
/// Any other text, a different unit or a non-finite number is an error whose message says what
/// was expected and what was found.
pub fn number(raw: &str, unit: &str) -> Result<Option<f64>, String> {
    if is_absent(raw) {
        return Ok(None);
    }
    let text = raw.trim();
    let digits = text.strip_suffix(unit).map(str::trim_end).unwrap_or(text);
    match digits.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(Some(value)),
        _ if unit.is_empty() => Err(format!("expected a number, found {}", quote(text))),
        _ => Err(format!("expected a number in {unit}, found {}", quote(text))),
    }
}

/// A non-negative whole number (an index, a pid, MiB, MHz); fractions and negatives are errors.
pub fn whole(raw: &str, unit: &str) -> Result<Option<u64>, String> {
    match number(raw, unit)? {
        None => Ok(None),
        Some(value) if value >= 0.0 && value.fract() == 0.0 && value <= u64::MAX as f64 => Ok(Some(value as u64)),
        Some(_) => Err(format!("expected a whole number{}, found {}", unit_suffix(unit), quote(raw))),
    }
}

/// A whole number that fits in `u32` (clocks, indices, pids).
pub fn whole_u32(raw: &str, unit: &str) -> Result<Option<u32>, String> {
    match whole(raw, unit)? {
        None => Ok(None),
        Some(value) => u32::try_from(value)
            .map(Some)
            .map_err(|_| format!("expected a number below 2^32{}, found {}", unit_suffix(unit), quote(raw))),
    }
}

/// A `0x…` hexadecimal bitmask (`clocks_event_reasons.active`).
pub fn bitmask(raw: &str) -> Result<Option<u64>, String> {
    if is_absent(raw) {
        return Ok(None);
    }
    let text = raw.trim();
    text.strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .and_then(|hex| u64::from_str_radix(hex, 16).ok())
        .map(Some)
        .ok_or_else(|| format!("expected a 0x… hexadecimal bitmask, found {}", quote(text)))
}

/// MiB to bytes.
pub fn mib_to_bytes(mib: u64) -> Option<u64> {
    mib.checked_mul(1024 * 1024)
}

fn unit_suffix(unit: &str) -> String {
    if unit.is_empty() {
        String::new()
    } else {
        format!(" in {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_units_from_recorded_outputs() {
        assert!(is_absent("[N/A]") && is_absent("N/A") && is_absent("[Not Supported]") && is_absent(" "));
        assert!(is_absent("[Requested functionality has been deprecated]"));
        assert!(!is_absent("0"));
        assert_eq!(number("143771 MiB", "MiB"), Ok(Some(143771.0)));
        assert_eq!(number("79.25 W", "W"), Ok(Some(79.25)));
        assert_eq!(number("38", "C"), Ok(Some(38.0)));
        assert_eq!(whole("-8 C", "C").unwrap_err(), "expected a whole number in C, found `-8 C`");
        assert_eq!(bitmask("0x0000000000000001"), Ok(Some(1)));
        assert_eq!(bitmask("0x00000000000001FF"), Ok(Some(0x1ff)));
    }

    #[test]
    fn garbage_is_an_error_not_a_number() {
        assert_eq!(number("5 GiB", "MiB").unwrap_err(), "expected a number in MiB, found `5 GiB`");
        assert!(number("inf", "").is_err());
        assert!(number("NaN W", "W").is_err());
        assert!(whole("1.5 MHz", "MHz").is_err());
        assert!(whole_u32("4294967296", "").is_err());
        assert!(bitmask("1").is_err());
        assert!(bitmask("0xZZ").is_err());
    }
}
