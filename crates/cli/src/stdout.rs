//! Writing the report to stdout, checked: the [`out!`]/[`outln!`] macros every verb prints
//! with end prof quietly when its reader has gone (`prof analyze | head -1`) instead of
//! panicking as `println!` does, end it with a status and a line on stderr when the report is
//! lost (a full disk), and show control characters from inputs instead of passing them to the
//! terminal.

use std::io::Write;

/// Exit status when stdout was closed under us: 128 + SIGPIPE, what a shell reports for a
/// writer that died of a closed pipe.
pub const EXIT_CLOSED_STDOUT: i32 = 141;

/// Exit status when the report could not be written to stdout (a full disk, a short write):
/// sysexits' `EX_IOERR`. The report is lost, and prof says so on stderr.
pub const EXIT_OUTPUT_LOST: i32 = 74;

/// Writes to stdout, with every control character that came from an input (a kernel name
/// holding a terminal escape sequence) made visible ([`printable`]); a closed stdout (broken
/// pipe) ends the process quietly with [`EXIT_CLOSED_STDOUT`]; any other failed write (a full
/// disk) ends it with [`EXIT_OUTPUT_LOST`] and a line on stderr: a lost report never exits 0.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    let text = match args.as_str() {
        Some(text) => std::borrow::Cow::Borrowed(text),
        None => std::borrow::Cow::Owned(args.to_string()),
    };
    if text.chars().any(is_hidden) {
        write_checked(&printable(&text));
    } else {
        write_checked(&text);
    }
}

/// Writes a JSON document to stdout as [`write_stdout`] does, its control characters kept exact
/// as JSON escapes (`\u009b`): serde escapes those below U+0020, not DEL, the C1 range or the
/// line separators, which a terminal or a JavaScript reader would act on.
pub fn write_json_stdout(text: &str) {
    if !text.chars().any(is_hidden) {
        return write_checked(text);
    }
    let escaped: String =
        text.chars().map(|c| if is_hidden(c) { format!("\\u{:04x}", c as u32) } else { c.to_string() }).collect();
    write_checked(&escaped);
}

fn write_checked(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(error) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(EXIT_CLOSED_STDOUT);
        }
        eprintln!("prof: the report could not be written to standard output ({error}); it is lost");
        std::process::exit(EXIT_OUTPUT_LOST);
    }
}

/// A character a terminal (or a JavaScript reader) would act on: a control character other
/// than line feed and tab (ESC, CR, BEL, DEL, the C1 range), or a line/paragraph separator.
fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || c == '\u{2028}' || c == '\u{2029}'
}

/// `text` with those characters ([`is_hidden`]) shown as `\xNN`: a trace, or a message quoting
/// a hostile file, is untrusted input and must not move the cursor, retitle, clear or recolour
/// the terminal. (JSON keeps them exact: [`write_json_stdout`].)
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if is_hidden(ch) {
            out.push_str(&format!("\\x{:02x}", u32::from(ch)));
        } else {
            out.push(ch);
        }
    }
    out
}

/// `print!` that survives a closed stdout ([`write_stdout`]).
macro_rules! out {
    ($($arg:tt)*) => { $crate::stdout::write_stdout(format_args!($($arg)*)) };
}

/// `println!` that survives a closed stdout ([`write_stdout`]).
macro_rules! outln {
    () => { $crate::stdout::write_stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdout::write_stdout(format_args!("{}\n", format_args!($($arg)*))) };
}
