//! Parsing of human durations on the command line (`100ms`, `10s`, `1.5s`, `2m`).

use std::time::Duration;

/// Parses `N[ms|s|m]` (a bare number is seconds) into a [`Duration`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().map_err(|_| format!("`{text}` is not a duration (try 100ms, 10s, 2m)"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "" | "s" => value,
        "m" | "min" => value * 60.0,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (use ms, s or m)")),
    };
    if !(0.0..=7.0 * 24.0 * 3600.0).contains(&seconds) {
        return Err(format!("`{text}` is out of range"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// A duration as the flags write it back: `1500ms`, `90s`, `30m`.
pub fn human(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms.is_multiple_of(60_000) && ms > 0 {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_rejects_nonsense() {
        assert_eq!(parse_duration("100ms").unwrap(), Duration::from_millis(100));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("10h").unwrap_err().contains("unknown unit"));
        assert!(parse_duration("1e999").is_err());
        for text in ["1500ms", "90s", "30m", "0s"] {
            assert_eq!(human(parse_duration(text).unwrap()), text);
        }
    }
}
