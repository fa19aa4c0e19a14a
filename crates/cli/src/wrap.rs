//! Prose that fits the terminal: each line of a report's prose (an answer, a finding, a
//! phase, a section's sentences) longer than the width is broken at spaces, its continuation
//! lines hung under the text after the line's label (`  evidence: `, `- `, `* load … `), so
//! the report reads in 80 columns. Tables are not prose: they fit by shortening names
//! ([`crate::render::shorten_distinct`]). A word longer than the width (a path) stays whole on
//! a line of its own: cut, it could not be copied.

/// The width prose wraps at: the terminal's ([`crate::render::terminal_width`]: `COLUMNS`,
/// the terminal, else 80), unlimited with `--wide`.
pub fn width() -> usize {
    if crate::render::is_wide() {
        usize::MAX
    } else {
        crate::render::terminal_width()
    }
}

/// `text` with each line longer than `width` wrapped (see the module's notes).
pub fn wrap(text: &str, width: usize) -> String {
    wrap_with(text, width, None)
}

/// [`wrap`], with continuation lines starting at column `hang` (a list whose text follows
/// aligned columns: the phases) instead of under the line's label.
pub fn wrap_with(text: &str, width: usize, hang: Option<usize>) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        wrap_line(body, width, hang, &mut out);
        out.push_str(newline);
    }
    out
}

/// Wraps one line into `out` (no trailing newline).
fn wrap_line(line: &str, width: usize, hang: Option<usize>, out: &mut String) {
    if width == usize::MAX || line.chars().count() <= width {
        out.push_str(line);
        return;
    }
    let hang = " ".repeat(hang.filter(|h| h + 20 <= width).unwrap_or_else(|| hanging_indent(line, width)));
    let mut column = 0;
    let mut first = true;
    for word in words(line) {
        if first {
            out.push_str(word);
            column = word.chars().count();
            first = false;
            continue;
        }
        // On the same line a word keeps the run of spaces before it (aligned columns); at the
        // start of a continuation line it loses them.
        let length_here = word.chars().count();
        if column + 1 + length_here <= width || column <= hang.len() {
            out.push(' ');
            out.push_str(word);
            column += 1 + length_here;
        } else {
            let word = word.trim_start_matches(' ');
            out.push('\n');
            out.push_str(&hang);
            out.push_str(word);
            column = hang.len() + word.chars().count();
        }
    }
}

/// The line split at single spaces, its leading indent kept with the first word (and runs of
/// spaces inside kept with the word after them, so aligned columns in prose survive).
fn words(line: &str) -> Vec<&str> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let mut words = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    let mut at = indent;
    while at < bytes.len() {
        if bytes[at] == b' ' && at > start && bytes[at - 1] != b' ' {
            words.push(&line[start..at]);
            start = at + 1;
        }
        at += 1;
    }
    if start < line.len() {
        words.push(&line[start..]);
    }
    words
}

/// Where continuation lines start: under the text after a short label (`answer: `, `  next: `,
/// `  - host-bound: `… up to a third of the width), after a bullet (`- `, `* `), else two
/// more than the line's own indent.
fn hanging_indent(line: &str, width: usize) -> usize {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    let bullet = ["- ", "* ", "• "].iter().find(|b| rest.starts_with(**b)).map_or(0, |b| b.chars().count());
    let limit = (width / 3).max(12);
    let label = rest[bullet..].find(": ").filter(|&at| {
        let label = &rest[bullet..bullet + at];
        at + 2 <= limit && label.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '/' | '.'))
    });
    let hang = indent + bullet + label.map_or(0, |at| at + 2);
    if hang == indent {
        indent + 2
    } else {
        hang.min(limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widest(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn long_prose_hangs_under_its_label_and_keeps_every_word() {
        let line = "  evidence: 80 gaps shorter than 1.00 ms where the launch came late; launch calls take 8.3 µs \
                    (p50) against 14.4 µs kernels (mean), launch delay p50 11.1 µs; 100 device ops";
        let wrapped = wrap(line, 80);
        assert!(widest(&wrapped) <= 80, "{wrapped}");
        for continuation in wrapped.lines().skip(1) {
            assert!(continuation.starts_with("            ") && !continuation.starts_with("             "));
        }
        let rejoined: Vec<&str> = wrapped.split_whitespace().collect();
        assert_eq!(rejoined, line.split_whitespace().collect::<Vec<_>>());
    }

    #[test]
    fn short_lines_tables_and_wide_pass_through() {
        let text = "answer: short\n  next: also short\n";
        assert_eq!(wrap(text, 80), text);
        let long = format!("answer: {}", "word ".repeat(40));
        assert_eq!(wrap(&long, usize::MAX), long);
        let bullet = wrap(&format!("  - host-bound: {}", "idle ".repeat(30)), 60);
        let columns =
            wrap_with(&format!("* load     at +0 ns      15.41 ms  busy  29.2 %  {}", "x ".repeat(30)), 80, Some(4));
        assert!(columns.starts_with("* load     at +0 ns      15.41 ms  busy  29.2 %  x x"), "{columns}");
        assert!(columns.lines().nth(1).unwrap().starts_with("    x"), "{columns}");
        assert!(bullet.lines().nth(1).unwrap().starts_with(&" ".repeat(16)), "{bullet}");
    }

    #[test]
    fn a_word_longer_than_the_width_stays_whole() {
        let path = "tests/fixtures/ascend/msinsight_gpt3_16rank_torch_npu/test_rank_0/ASCEND_PROFILER_OUTPUT/x.json";
        let wrapped = wrap(&format!("source: {path} and more words after it"), 40);
        assert!(wrapped.lines().any(|l| l.contains(path)), "{wrapped}");
        assert_eq!(wrapped.lines().nth(1), Some("        and more words after it"), "{wrapped}");
    }
}
