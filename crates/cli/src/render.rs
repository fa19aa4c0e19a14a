//! Plain-text rendering helpers shared by the verbs: aligned tables, names fitted to the
//! terminal, durations, and bounded JSON printing (written through [`crate::stdout`]).

use serde::Serialize;

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
    let mut text = serde_json::to_string_pretty(&value).map_err(|e| format!("cannot encode JSON: {e}"))?;
    text.push('\n');
    crate::stdout::write_json_stdout(&text);
    Ok(())
}

/// Characters a JSON string keeps unless `--json-full` was given (a whole HLO instruction or
/// a C++ template name can run to tens of thousands): its first `JSON_STRING_CHARS - 1` and
/// `…`, with `"kept"` and `"of"` (in characters) in `truncated`.
pub const JSON_STRING_CHARS: usize = 16_384;

/// Cuts every list of `document` to its first `rows` rows and every string to
/// [`JSON_STRING_CHARS`] characters and, when any was cut, adds a
/// top-level `truncated` list: `{"path": "analyses.layers.ops", "kept": 100, "of": 1450}` per
/// cut list (`--json-full` gives them whole). Lists prof ranks (kernels, families, gaps) hold
/// their largest rows first, so what is kept is what matters most.
pub fn bound_json(document: &mut serde_json::Value, rows: usize) {
    bound_json_except(document, rows, &[]);
}

/// [`bound_json`], but lists under a key in `whole` (and lists inside them) are kept whole.
pub fn bound_json_except(document: &mut serde_json::Value, rows: usize, whole: &[&str]) {
    fn walk(
        value: &mut serde_json::Value,
        path: &mut Vec<String>,
        rows: usize,
        whole: &[&str],
        cut: &mut Vec<serde_json::Value>,
    ) {
        match value {
            serde_json::Value::Array(items) => {
                let keep = path.iter().any(|key| whole.contains(&key.as_str()));
                if items.len() > rows && !keep {
                    cut.push(serde_json::json!({ "path": path.join("."), "kept": rows, "of": items.len() }));
                    items.truncate(rows);
                }
                for (index, item) in items.iter_mut().enumerate() {
                    path.push(index.to_string());
                    walk(item, path, rows, whole, cut);
                    path.pop();
                }
            }
            serde_json::Value::Object(fields) => {
                for (key, field) in fields.iter_mut() {
                    path.push(key.clone());
                    walk(field, path, rows, whole, cut);
                    path.pop();
                }
            }
            serde_json::Value::String(text) => {
                let chars = text.chars().count();
                if chars > JSON_STRING_CHARS {
                    let kept = JSON_STRING_CHARS - 1;
                    cut.push(serde_json::json!({ "path": path.join("."), "kept": kept, "of": chars }));
                    let end = text.char_indices().nth(kept).map_or(text.len(), |(at, _)| at);
                    text.truncate(end);
                    text.push('…');
                }
            }
            _ => {}
        }
    }
    let mut cut = Vec::new();
    walk(document, &mut Vec::new(), rows, whole, &mut cut);
    if let (false, serde_json::Value::Object(fields)) = (cut.is_empty(), document) {
        fields.insert("truncated".to_owned(), serde_json::Value::Array(cut));
    }
}

#[cfg(test)]
mod tests;

/// A duration in nanoseconds as a person reads it (`812 ns`, `45.3 µs`, `1.20 ms`, `3.4 s`).
pub fn human_ns(ns: f64) -> String {
    prof_timeline::units::duration(ns)
}

static WIDE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `--wide`: names are printed whole.
pub fn set_wide(wide: bool) {
    WIDE.store(wide, std::sync::atomic::Ordering::Relaxed);
}

static PARTIAL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records that a report rests on partial input (a cut file, a spent memory budget, a file of
/// another run left out): `--strict` then ends prof with [`EXIT_PARTIAL`] after the report.
pub fn note_partial() {
    PARTIAL.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether a report printed so far rested on partial input.
pub fn was_partial() -> bool {
    PARTIAL.load(std::sync::atomic::Ordering::Relaxed)
}

/// Exit status of `--strict` when the answer rests on partial input.
pub const EXIT_PARTIAL: u8 = 6;

/// Whether `--wide` was given (names and prose whole).
pub fn is_wide() -> bool {
    WIDE.load(std::sync::atomic::Ordering::Relaxed)
}

/// Columns of the terminal on stdout (`COLUMNS` first, then the terminal's own size); 80
/// when stdout is no terminal and `COLUMNS` is unset (what a pager, a log or a CI page shows).
pub fn terminal_width() -> usize {
    if let Some(columns) = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()) {
        return columns.max(40);
    }
    // SAFETY: TIOCGWINSZ fills a winsize on a terminal and fails otherwise.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    if ok && size.ws_col > 0 {
        usize::from(size.ws_col).max(40)
    } else {
        80
    }
}

/// The width left for a name column beside `other` characters of other columns, at least 24;
/// unlimited with `--wide`.
pub fn name_width(other: usize) -> usize {
    if WIDE.load(std::sync::atomic::Ordering::Relaxed) {
        return usize::MAX;
    }
    terminal_width().saturating_sub(other).max(24)
}

/// A C++ kernel signature as a table shows it: no return type, no parameter list (it repeats
/// the template arguments), no namespaces of the frameworks' own (`at::native::`, `cub::`…)
/// and no lambda wrappers, so what tells kernels apart comes first:
/// `void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#1}, std::array<char*, 2ul> >(int, …)`
/// → `vectorized_elementwise_kernel<4, rsqrt_kernel_cuda, array<char*, 2ul> >`. Other names
/// are returned as they are.
pub fn display_name(name: &str) -> String {
    // A signature: qualified, with a return type, or a parameter list right after the name
    // (`divide_kernel(float*, int)`); not `Memset (Device)` or `CUDA memcpy HtoD (Pageable -> Device)`.
    let params_after_name =
        name.ends_with(')') && name.find('(').is_some_and(|at| at > 0 && name.as_bytes()[at - 1] != b' ');
    if !(name.contains("::") || name.starts_with("void ") || params_after_name) {
        return name.to_owned();
    }
    let Some(end) = signature_end(name) else { return name.to_owned() };
    // The return type ends at the last space outside template arguments.
    let mut depth = 0i32;
    let mut start = 0;
    for (at, c) in name[..end].char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ' ' if depth == 0 => start = at + 1,
            _ => {}
        }
    }
    let mut text = name[start..end].to_owned();
    for noise in ["(at::TensorIteratorBase&)", "::operator()() const", "(anonymous namespace)::"] {
        text = text.replace(noise, "");
    }
    while let Some(at) = text.find("{lambda(") {
        let Some(close) = text[at..].find('}') else { break };
        let from = if text[..at].ends_with("::") { at - 2 } else { at };
        text.replace_range(from..at + close + 1, "");
    }
    // Wrappers that say nothing of the work (their closing `>` stays: the tail is cut anyway).
    for wrapper in ["gpu_kernel_impl_nocast<", "gpu_kernel_impl<", "gpu_index_kernel<"] {
        text = text.replace(wrapper, "");
    }
    for namespace in [
        "at::native::",
        "at::cuda::detail::",
        "at_cuda_detail::",
        "cub::detail::",
        "binary_internal::",
        "c10::",
        "std::",
    ] {
        text = text.replace(namespace, "");
    }
    text.replace(", ,", ",").replace("<, ", "<")
}

/// Where a signature's parameter list starts (the first `(` outside template arguments, not
/// `(anonymous namespace)`); `None` for a name without one.
pub fn signature_end(name: &str) -> Option<usize> {
    const ANONYMOUS: &str = "(anonymous namespace)";
    let bytes = name.as_bytes();
    let (mut depth, mut at) = (0i32, 0);
    while let Some(&c) = bytes.get(at) {
        match c {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b'(' if name[at..].starts_with(ANONYMOUS) => at += ANONYMOUS.len() - 1,
            b'(' if depth == 0 => return Some(at),
            _ => {}
        }
        at += 1;
    }
    None
}

/// `names` for a table column of `width` characters: [`display_name`]s cut at the end, kept
/// distinct where the full names differ (names that would read the same show the stretch
/// where they first differ instead); whole names with `--wide`.
pub fn shorten_distinct(names: &[&str], width: usize) -> Vec<String> {
    if width == usize::MAX {
        return names.iter().map(|n| (*n).to_owned()).collect();
    }
    let compact: Vec<String> = names.iter().map(|n| display_name(n)).collect();
    let mut out: Vec<String> = compact.iter().map(|n| ellipsize(n, width)).collect();
    // Names that print alike are shown around where they differ; a pass can make a new pair
    // alike (two groups cut to the same stretch), so passes repeat until none is left, and the
    // last resort numbers what still clashes.
    for pass in 0..4 {
        let mut changed = false;
        for i in 0..names.len() {
            let group: Vec<usize> = (0..names.len()).filter(|&j| out[j] == out[i] && names[j] != names[i]).collect();
            if group.is_empty() {
                continue;
            }
            let group: Vec<usize> = std::iter::once(i).chain(group).collect();
            if pass == 3 {
                for (n, &j) in group.iter().enumerate() {
                    let tag = format!(" #{}", n + 1);
                    out[j] = format!("{}{tag}", ellipsize(&compact[j], width.saturating_sub(tag.len()).max(1)));
                }
                continue;
            }
            // Kernels whose short forms are one string (they differ only in what the short form
            // leaves out: a lambda, a parameter list) are told apart by their whole names.
            let same_short = group.iter().any(|&a| group.iter().any(|&b| a != b && compact[a] == compact[b]));
            let whole = same_short || pass > 0;
            let source: Vec<&str> = if whole { names.to_vec() } else { compact.iter().map(String::as_str).collect() };
            for &j in &group {
                let others: Vec<&str> = group.iter().filter(|&&k| k != j).map(|&k| source[k]).collect();
                // The head comes from the short form (a whole name starts `void at::native::`).
                let head = if whole { Some(compact[j].as_str()) } else { None };
                out[j] = around_difference(source[j], head, &others, width);
            }
            changed = true;
        }
        if !changed {
            break;
        }
    }
    out
}

/// `name`'s head, then the stretch where it first differs from every name in `others`.
/// With `head_from`, the head is that text's start instead (a short form of `name`).
fn around_difference(name: &str, head_from: Option<&str>, others: &[&str], width: usize) -> String {
    let chars: Vec<char> = name.chars().collect();
    let first_difference =
        others.iter().map(|o| chars.iter().zip(o.chars()).take_while(|(a, b)| **a == *b).count()).max().unwrap_or(0);
    if chars.len() <= width {
        return name.to_owned();
    }
    let head = match head_from {
        Some(text) => text.chars().count().min(width / 3),
        None => (width / 3).min(first_difference),
    };
    let room = width.saturating_sub(head + 2);
    let from = first_difference.saturating_sub(room / 3).max(if head_from.is_some() { 0 } else { head });
    let to = (from + room).min(chars.len());
    let mut out: String = match head_from {
        Some(text) => text.chars().take(head).collect(),
        None => chars[..head].iter().collect(),
    };
    out.push('…');
    out.extend(&chars[from..to]);
    if to < chars.len() {
        out.push('…');
    }
    out
}

/// A stream id as reports print it: `none` for the all-ones id sources use for "no stream"
/// (Ascend ops without one read as -1).
pub fn stream_label(stream: u64) -> String {
    if stream == u64::MAX {
        "none".to_owned()
    } else {
        stream.to_string()
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
mod format_tests;
