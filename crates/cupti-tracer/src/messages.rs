//! The tracer's two kinds of message on the traced program's stderr, each one line marked
//! `prof-cupti:` so prof can tell them from the workload's own output.

use std::io::Write;

/// Writes `prof-cupti: warning: <message>` to stderr, ignoring a closed stderr.
pub fn warn(message: &str) {
    let _ = std::io::stderr().write_all(format!("prof-cupti: warning: {message}\n").as_bytes());
}

pub fn note(message: &str) {
    let _ = std::io::stderr().write_all(format!("prof-cupti: {message}\n").as_bytes());
}
