//! What a path looks like, in a few words, for errors that refuse it: a directory and some of
//! its entries, an empty file, gzip, a SQLite database and its tables, JSON and its first
//! keys, or the first line of a text file.

use std::io::Read;
use std::path::Path;

/// Bytes of a file's head looked at.
const HEAD: u64 = 4096;

/// A short description of what is at `path` (`a SQLite database with tables A, B, C`).
pub fn describe(path: &Path) -> String {
    if path.is_dir() {
        return describe_dir(path);
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(HEAD).read_to_end(&mut head));
    if let Err(error) = read {
        return format!("unreadable ({error})");
    }
    if head.is_empty() {
        return "an empty file".to_owned();
    }
    if head.starts_with(&[0x1f, 0x8b]) {
        return "a gzip stream".to_owned();
    }
    if head.starts_with(b"SQLite format 3\0") {
        return "a SQLite database".to_owned();
    }
    let bom = head.starts_with(b"\xef\xbb\xbf");
    let text = String::from_utf8_lossy(head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&head));
    if text.chars().take(256).any(|c| c.is_control() && !c.is_whitespace()) {
        let magic: Vec<String> = head.iter().take(8).map(|b| format!("{b:02x}")).collect();
        return format!("a binary file starting {}", magic.join(" "));
    }
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let first = shorten(first, 100);
    let what = match text.trim_start().chars().next() {
        Some('{') => format!("JSON starting `{first}`"),
        Some('[') => format!("a JSON array starting `{first}`"),
        _ if first.contains(',') => format!("a CSV-like text whose first line is `{first}`"),
        _ => format!("a text whose first line is `{first}`"),
    };
    if bom {
        format!("{what} (after a UTF-8 byte-order mark)")
    } else {
        what
    }
}

fn describe_dir(path: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(path)
        .map(|r| r.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.retain(|n| !n.starts_with('.'));
    names.sort();
    match names.len() {
        0 => "an empty directory".to_owned(),
        n => {
            let shown: Vec<&str> = names.iter().take(6).map(String::as_str).collect();
            let more = if n > shown.len() { format!(", … ({n} entries)") } else { String::new() };
            format!("a directory holding {}{more}", shown.join(", "))
        }
    }
}

/// `text` cut to `max` characters with an ellipsis.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn says_what_a_path_looks_like() {
        let dir = std::env::temp_dir().join(format!("prof-sniff-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(describe(&dir), "an empty directory");
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        assert_eq!(describe(&write("e", b"")), "an empty file");
        assert_eq!(describe(&write("g", &[0x1f, 0x8b, 8, 0])), "a gzip stream");
        assert_eq!(describe(&write("s", b"SQLite format 3\0rest")), "a SQLite database");
        assert_eq!(describe(&write("j", b"\n{\"a\": 1}\n")), "JSON starting `{\"a\": 1}`");
        assert_eq!(describe(&write("c", b"Name,Calls\n1,2\n")), "a CSV-like text whose first line is `Name,Calls`");
        assert_eq!(describe(&write("b", &[0, 1, 2, 3, 4])), "a binary file starting 00 01 02 03 04");
        assert_eq!(
            describe(&write("m", b"\xef\xbb\xbfID,Name\n")),
            "a CSV-like text whose first line is `ID,Name` (after a UTF-8 byte-order mark)"
        );
        assert!(
            describe(&dir).starts_with("a directory holding b, c, e, g, j, m, … (7 entries)"),
            "{}",
            describe(&dir)
        );
        assert!(describe(&dir.join("missing")).starts_with("unreadable ("));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
