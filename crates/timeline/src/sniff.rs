//! What a path looks like, in a few words, for errors that refuse it: a directory and some of
//! its entries, an empty file, gzip, a SQLite database and its tables, JSON and its first
//! keys, or the first line of a text file.

use std::io::Read;
use std::path::Path;

/// The first two bytes of a gzip stream (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The first 16 bytes of an SQLite database file (its file format's header string).
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

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
    if head.starts_with(&GZIP_MAGIC) {
        return match gzip_name(&head) {
            Some(name) => format!("a gzip stream of a file named `{}`", shorten(&name, 100)),
            None => "a gzip stream".to_owned(),
        };
    }
    if head.starts_with(SQLITE_MAGIC) {
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
        // `[workspace]`, `[section]`: an INI or TOML header, not a JSON array.
        Some('[') if first[1..].trim_start().starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') => {
            format!("a text whose first line is `{first}` (INI or TOML, not JSON)")
        }
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

/// The original file name a gzip header carries (RFC 1952: `FNAME`, after the optional extra
/// field), when it has one within `head`.
fn gzip_name(head: &[u8]) -> Option<String> {
    const FEXTRA: u8 = 0x04;
    const FNAME: u8 = 0x08;
    let flags = *head.get(3)?;
    if flags & FNAME == 0 {
        return None;
    }
    let mut at = 10;
    if flags & FEXTRA != 0 {
        let extra = u16::from_le_bytes([*head.get(10)?, *head.get(11)?]);
        at = 12 + usize::from(extra);
    }
    let rest = head.get(at..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    // ISO 8859-1 by the RFC; shown as its bytes would read in UTF-8, else lossily.
    let name = String::from_utf8_lossy(&rest[..end]).into_owned();
    (!name.is_empty()).then_some(name)
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
        // `gzip` keeps the original name (FNAME), also after an extra field (FEXTRA).
        let mut named = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
        named.extend(b"rocpd-run.db\0\x01\x02");
        assert_eq!(describe(&write("n", &named)), "a gzip stream of a file named `rocpd-run.db`");
        let mut extra = vec![0x1f, 0x8b, 8, 0x0c, 0, 0, 0, 0, 0, 3, 2, 0, 0xaa, 0xbb];
        extra.extend(b"report.sqlite\0");
        assert_eq!(describe(&write("x", &extra)), "a gzip stream of a file named `report.sqlite`");
        // A name cut by the head, or an extra field running past it: no name.
        assert_eq!(describe(&write("t", &[0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3, b'a'])), "a gzip stream");
        assert_eq!(
            describe(&write("u", &[0x1f, 0x8b, 8, 0x0c, 0, 0, 0, 0, 0, 3, 0xff, 0xff, b'a', 0])),
            "a gzip stream"
        );
        assert_eq!(describe(&write("s", b"SQLite format 3\0rest")), "a SQLite database");
        assert_eq!(describe(&write("j", b"\n{\"a\": 1}\n")), "JSON starting `{\"a\": 1}`");
        assert_eq!(describe(&write("c", b"Name,Calls\n1,2\n")), "a CSV-like text whose first line is `Name,Calls`");
        assert_eq!(describe(&write("b", &[0, 1, 2, 3, 4])), "a binary file starting 00 01 02 03 04");
        assert_eq!(
            describe(&write("m", b"\xef\xbb\xbfID,Name\n")),
            "a CSV-like text whose first line is `ID,Name` (after a UTF-8 byte-order mark)"
        );
        assert!(
            describe(&dir).starts_with("a directory holding b, c, e, g, j, m, … (11 entries)"),
            "{}",
            describe(&dir)
        );
        assert!(describe(&dir.join("missing")).starts_with("unreadable ("));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
