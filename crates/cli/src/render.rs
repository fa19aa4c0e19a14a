//! Plain-text rendering helpers shared by the verbs: aligned tables, JSON printing, and the
//! [`out!`]/[`outln!`] macros every verb prints with, which end prof quietly when its reader
//! has gone (`prof analyze | head -1`) instead of panicking as `println!` does.

use serde::Serialize;
use std::io::Write;

/// Exit status when stdout was closed under us: 128 + SIGPIPE, what a shell reports for a
/// writer that died of a closed pipe.
pub const EXIT_CLOSED_STDOUT: i32 = 141;

/// Writes to stdout; a closed stdout (broken pipe) ends the process quietly with
/// [`EXIT_CLOSED_STDOUT`]. Other write errors are ignored like `print!` would not.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(error) = out.write_fmt(args).and_then(|()| out.flush()) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(EXIT_CLOSED_STDOUT);
        }
    }
}

/// `print!` that survives a closed stdout ([`write_stdout`]).
macro_rules! out {
    ($($arg:tt)*) => { $crate::render::write_stdout(format_args!($($arg)*)) };
}

/// `println!` that survives a closed stdout ([`write_stdout`]).
macro_rules! outln {
    () => { $crate::render::write_stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::render::write_stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// Left-aligned columns separated by two spaces; the last column is not padded.
pub fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|cell| cell.chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}  ", width = widths[c]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Prints `value` as pretty JSON on stdout.
pub fn print_json(value: &impl Serialize) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| format!("cannot encode JSON: {e}"))?;
    outln!("{text}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::table;

    #[test]
    fn aligns_columns() {
        let rows =
            vec![vec!["a".to_owned(), "long".to_owned(), "x".to_owned()], vec!["bbb".to_owned(), "c".to_owned()]];
        assert_eq!(table(&rows), "a    long  x\nbbb  c\n");
    }
}

/// A duration in nanoseconds as a person reads it (`812 ns`, `45.3 us`, `1.20 ms`, `3.4 s`).
pub fn human_ns(ns: f64) -> String {
    match ns {
        n if n < 1e3 => format!("{n:.0} ns"),
        n if n < 1e6 => format!("{:.1} us", n / 1e3),
        n if n < 1e9 => format!("{:.2} ms", n / 1e6),
        n => format!("{:.2} s", n / 1e9),
    }
}

/// `text` cut to `width` characters with an ellipsis, for long kernel names in tables.
pub fn ellipsize(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod format_tests {
    use super::*;

    #[test]
    fn humanises_durations_and_cuts_names() {
        assert_eq!(human_ns(812.0), "812 ns");
        assert_eq!(human_ns(45_300.0), "45.3 us");
        assert_eq!(human_ns(1_204_000.0), "1.20 ms");
        assert_eq!(human_ns(3.4e9), "3.40 s");
        assert_eq!(ellipsize("abcdef", 4), "abc…");
        assert_eq!(ellipsize("abc", 4), "abc");
    }
}
