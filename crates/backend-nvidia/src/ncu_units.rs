//! Nsight Compute numbers and units: values printed with thousands separators (`"1,234.56"`)
//! and units that change with the magnitude (`ns`/`us`/`ms`, `usecond`/`msecond` in older
//! versions, `byte`/`Kbyte`/`Mbyte`, `Ghz`, `cycle/nsecond`, `Tbyte/s`), brought to one base
//! unit per dimension so that recordings of different ncu versions compare.
//!
//! ncu's byte prefixes are decimal: the same launch reads `233,472 byte` in one recording and
//! `233.47 Kbyte` in another (`h200-probe/ncu-details.csv` against `ncu-full-details.csv`).

use serde::Serialize;

/// Base unit for times.
pub const NANOSECOND: &str = "ns";
/// Base unit for frequencies.
pub const HERTZ: &str = "Hz";
/// Base unit for sizes.
pub const BYTE: &str = "byte";
/// Base unit for bandwidths.
pub const BYTE_PER_SECOND: &str = "byte/s";
/// Percent, unchanged.
pub const PERCENT: &str = "%";

/// A number with its base unit (one of the constants above, or the unit as ncu printed it when
/// it has no prefix to remove: `cycle`, `block`, `warp`, `inst/cycle`, `register/thread`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Quantity {
    /// The value in `unit`.
    pub value: f64,
    /// The base unit.
    pub unit: String,
}

/// Parses an ncu number: optional sign, digits with `,` every three places, optional fraction
/// and exponent. Text that is not such a number (`no data`, `(128, 1, 1)`, `PolicySpread`,
/// a `;`-separated list) gives `None`.
pub fn parse_number(text: &str) -> Option<f64> {
    let text = text.trim();
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').map_or((mantissa, None), |(w, f)| (w, Some(f)));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mut groups = whole.split(',');
    let first = groups.next().unwrap_or("");
    let grouped = groups.all(|g| g.len() == 3 && digits(g));
    let first_ok = digits(first) && (!whole.contains(',') || first.len() <= 3);
    let fraction_ok = fraction.is_none_or(digits);
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    if !(first_ok && grouped && fraction_ok && exponent_ok) {
        return None;
    }
    text.replace(',', "").parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Brings `value` printed in `unit` to its base unit (see [`Quantity`]). Units without a known
/// prefix or dimension are kept as they are.
pub fn normalize(value: f64, unit: &str) -> Quantity {
    let unit = unit.trim();
    let (numerator, denominator) = unit.split_once('/').map_or((unit, None), |(n, d)| (n, Some(d)));
    let (scale, base) = scale_numerator(numerator);
    match denominator {
        None => match base {
            Base::Time => quantity(value * scale, NANOSECOND),
            Base::Hertz => quantity(value * scale, HERTZ),
            Base::Byte => quantity(value * scale, BYTE),
            Base::Cycle | Base::Other => quantity(value, unit),
        },
        Some(den) => match (time_per_second(den), base) {
            (Some(per_second), Base::Byte) => quantity(value * scale * per_second, BYTE_PER_SECOND),
            (Some(per_second), Base::Cycle) => quantity(value * per_second, HERTZ),
            (_, Base::Byte) => quantity(value * scale, &format!("{BYTE}/{den}")),
            _ => quantity(value, unit),
        },
    }
}

/// Parses `text` as a number and normalises it with `unit`; `None` when `text` is no number.
pub fn parse_quantity(text: &str, unit: &str) -> Option<Quantity> {
    parse_number(text).map(|value| normalize(value, unit))
}

/// Why `quantity` cannot be a real duration: a negative time, or one past `u64::MAX` ns (584
/// years). `None` for any other quantity.
pub fn impossible_time(name: &str, quantity: Option<&Quantity>) -> Option<String> {
    let q = quantity.filter(|q| q.unit == NANOSECOND)?;
    (q.value < 0.0 || q.value > u64::MAX as f64)
        .then(|| format!("the time {} is {} ns, which no kernel can take", prof_timeline::error::quote(name), q.value))
}

fn quantity(value: f64, unit: &str) -> Quantity {
    Quantity { value, unit: unit.to_owned() }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Base {
    Time,
    Hertz,
    Byte,
    Cycle,
    Other,
}

fn scale_numerator(unit: &str) -> (f64, Base) {
    if let Some(ns) = time_in_ns(unit) {
        return (ns, Base::Time);
    }
    if let Some(prefix) = unit.to_ascii_lowercase().strip_suffix("hz") {
        if let Some(scale) = decimal_prefix(prefix) {
            return (scale, Base::Hertz);
        }
    }
    if let Some(prefix) = unit.strip_suffix("byte") {
        if let Some(scale) = decimal_prefix(&prefix.to_ascii_lowercase()) {
            return (scale, Base::Byte);
        }
    }
    match unit {
        "cycle" => (1.0, Base::Cycle),
        _ => (1.0, Base::Other),
    }
}

fn decimal_prefix(prefix: &str) -> Option<f64> {
    match prefix {
        "" => Some(1.0),
        "k" => Some(1e3),
        "m" => Some(1e6),
        "g" => Some(1e9),
        "t" => Some(1e12),
        _ => None,
    }
}

fn time_in_ns(unit: &str) -> Option<f64> {
    match unit {
        "ns" | "nsecond" => Some(1.0),
        "us" | "usecond" => Some(1e3),
        "ms" | "msecond" => Some(1e6),
        "s" | "second" => Some(1e9),
        _ => None,
    }
}

fn time_per_second(unit: &str) -> Option<f64> {
    time_in_ns(unit).map(|ns| 1e9 / ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_with_thousands_separators() {
        assert_eq!(parse_number("3,188,549,160.67"), Some(3_188_549_160.67));
        assert_eq!(parse_number("16,590"), Some(16590.0));
        assert_eq!(parse_number("12.50"), Some(12.5));
        assert_eq!(parse_number("-0.5"), Some(-0.5));
        assert_eq!(parse_number("3042.000000"), Some(3042.0));
        assert_eq!(parse_number("1e-3"), Some(0.001));
        for bad in
            ["", "no data", "(128, 1, 1)", "PolicySpread", "32.00; 32.00", "1,2", "12,3456", "1.2.3", ",123", "inf"]
        {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn units_seen_in_the_recordings() {
        let q = |v: f64, u: &str, value: f64, unit: &str| {
            let got = normalize(v, u);
            assert_eq!(got.unit, unit, "{v} {u}");
            assert!((got.value - value).abs() <= 1e-9 * value.abs().max(1.0), "{v} {u}: {} != {value}", got.value);
        };
        q(8.99, "us", 8990.0, NANOSECOND);
        q(1.67, "msecond", 1_670_000.0, NANOSECOND);
        q(2720.0, "nsecond", 2720.0, NANOSECOND);
        q(233.47, "Kbyte", 233_470.0, BYTE);
        q(1.02, "Kbyte/block", 1020.0, "byte/block");
        q(1.504, "Kbyte/cycle", 1504.0, "byte/cycle");
        q(2.9, "Tbyte/s", 2.9e12, BYTE_PER_SECOND);
        q(286.36, "Gbyte/second", 286.36e9, BYTE_PER_SECOND);
        q(3.19, "Ghz", 3.19e9, HERTZ);
        q(734.96, "Mhz", 734.96e6, HERTZ);
        q(5.99, "cycle/nsecond", 5.99e9, HERTZ);
        q(779.96, "cycle/usecond", 779.96e6, HERTZ);
        q(3_188_549_160.67, "hz", 3_188_549_160.67, HERTZ);
        q(12.5, "%", 12.5, PERCENT);
        q(183.0, "register/thread", 183.0, "register/thread");
        q(8.19, "%/Kbyte", 8.19, "%/Kbyte");
        q(7.0, "", 7.0, "");
    }
}
