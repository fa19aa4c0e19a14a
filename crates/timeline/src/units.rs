//! Durations as people read them, one style for every report: `812 ns`, `45.3 µs`,
//! `1.20 ms`, `3.40 s`.

/// A duration in nanoseconds, scaled to its unit.
pub fn duration(ns: f64) -> String {
    match ns {
        n if n < 1e3 => format!("{n:.0} ns"),
        n if n < 1e6 => format!("{:.1} µs", n / 1e3),
        n if n < 1e9 => format!("{:.2} ms", n / 1e6),
        n => format!("{:.2} s", n / 1e9),
    }
}

/// `count` and `noun`, the noun in the plural unless the count is one (`1 kernel`, `3 kernels`).
pub fn count(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_units_and_plurals() {
        assert_eq!(duration(812.0), "812 ns");
        assert_eq!(duration(45_300.0), "45.3 µs");
        assert_eq!(duration(1_204_000.0), "1.20 ms");
        assert_eq!(duration(3.4e9), "3.40 s");
        assert_eq!(
            (count(1, "kernel"), count(0, "kernel"), count(3, "call")),
            ("1 kernel".into(), "0 kernels".into(), "3 calls".into())
        );
    }
}
