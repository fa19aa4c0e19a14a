//! Progress on stderr while something slow runs (loading a large artifact, a capture): a
//! spinner with what is going on and the time elapsed. Completely quiet when stderr is not a
//! terminal, so piped and captured output (tests, `2>log`) never sees it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

/// A running spinner; cleared from the terminal when dropped or [`Spinner::finish`]ed.
pub struct Spinner(ProgressBar);

/// Starts a spinner saying `message` (hidden unless stderr is a terminal and `visible`).
pub fn spinner(message: String, visible: bool) -> Spinner {
    if !visible || !std::io::stderr().is_terminal() {
        return Spinner(ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()));
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed}] {wide_msg}") {
        bar.set_style(style);
    }
    bar.set_message(message);
    bar.enable_steady_tick(Duration::from_millis(120));
    Spinner(bar)
}

/// A spinner for loading `path`, with its size.
pub fn loading(path: &Path) -> Spinner {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    spinner(format!("loading {} ({:.1} MB)", path.display(), size as f64 / 1e6), true)
}

impl Spinner {
    /// Stops and clears the spinner.
    pub fn finish(self) {
        self.0.finish_and_clear();
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if !self.0.is_finished() {
            self.0.finish_and_clear();
        }
    }
}
