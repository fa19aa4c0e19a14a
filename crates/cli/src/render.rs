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

/// Rows a JSON list keeps unless `--json-full` was given.
pub const JSON_LIST_ROWS: usize = 100;

static JSON_FULL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `--json-full`: documents keep every row of every list.
pub fn set_json_full(full: bool) {
    JSON_FULL.store(full, std::sync::atomic::Ordering::Relaxed);
}

/// Prints `value` as pretty JSON on stdout, bounded (see [`bound_json`]) unless `--json-full`.
pub fn print_json(value: &impl Serialize) -> Result<(), String> {
    let mut value = serde_json::to_value(value).map_err(|e| format!("cannot encode JSON: {e}"))?;
    if !JSON_FULL.load(std::sync::atomic::Ordering::Relaxed) {
        bound_json(&mut value, JSON_LIST_ROWS);
    }
    let text = serde_json::to_string_pretty(&value).map_err(|e| format!("cannot encode JSON: {e}"))?;
    outln!("{text}");
    Ok(())
}

/// Cuts every list of `document` to its first `rows` rows and, when any was cut, adds a
/// top-level `truncated` list: `{"path": "analyses.layers.ops", "kept": 100, "of": 1450}` per
/// cut list (`--json-full` gives them whole). Lists prof ranks (kernels, families, gaps) hold
/// their largest rows first, so what is kept is what matters most.
pub fn bound_json(document: &mut serde_json::Value, rows: usize) {
    fn walk(value: &mut serde_json::Value, path: &mut Vec<String>, rows: usize, cut: &mut Vec<serde_json::Value>) {
        match value {
            serde_json::Value::Array(items) => {
                if items.len() > rows {
                    cut.push(serde_json::json!({ "path": path.join("."), "kept": rows, "of": items.len() }));
                    items.truncate(rows);
                }
                for (index, item) in items.iter_mut().enumerate() {
                    path.push(index.to_string());
                    walk(item, path, rows, cut);
                    path.pop();
                }
            }
            serde_json::Value::Object(fields) => {
                for (key, field) in fields.iter_mut() {
                    path.push(key.clone());
                    walk(field, path, rows, cut);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut cut = Vec::new();
    walk(document, &mut Vec::new(), rows, &mut cut);
    if let (false, serde_json::Value::Object(fields)) = (cut.is_empty(), document) {
        fields.insert("truncated".to_owned(), serde_json::Value::Array(cut));
    }
}

#[cfg(test)]
mod tests {
    use super::{bound_json, table};

    #[test]
    fn long_lists_are_cut_and_said_so() {
        let mut doc = serde_json::json!({ "a": [1, 2, 3], "b": { "c": [[1, 2, 3, 4], [5]] }, "d": "x" });
        bound_json(&mut doc, 2);
        assert_eq!(doc["a"], serde_json::json!([1, 2]));
        assert_eq!(doc["b"]["c"], serde_json::json!([[1, 2], [5]]));
        let cut = doc["truncated"].as_array().unwrap();
        assert_eq!(cut.len(), 2, "{cut:?}");
        assert!(cut.contains(&serde_json::json!({ "path": "a", "kept": 2, "of": 3 })));
        assert!(cut.contains(&serde_json::json!({ "path": "b.c.0", "kept": 2, "of": 4 })));
        let mut small = serde_json::json!({ "a": [1] });
        bound_json(&mut small, 2);
        assert_eq!(small, serde_json::json!({ "a": [1] }), "nothing cut, nothing added");
    }

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
