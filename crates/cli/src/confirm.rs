//! Asking before a long-lived or slow step (the durable algorithm's confirmation).

use std::io::{BufRead, IsTerminal, Write};

/// Asks `question` with y/N on the terminal. Refuses when stdin is not a terminal: then
/// `no_terminal` says how to run it anyway (usually: rerun with `--yes`).
pub fn ask(question: &str, no_terminal: &str) -> Result<(), String> {
    if !std::io::stdin().is_terminal() {
        return Err(no_terminal.to_owned());
    }
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).map_err(|e| format!("cannot read the answer: {e}"))?;
    match answer.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Ok(()),
        _ => Err("not confirmed; nothing was started".to_owned()),
    }
}
