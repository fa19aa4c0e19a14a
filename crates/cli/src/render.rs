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
mod tests {
    use super::{bound_json, table};

    #[test]
    fn long_strings_are_cut_at_a_character_and_said_so() {
        let long = "é".repeat(super::JSON_STRING_CHARS + 10);
        let mut doc = serde_json::json!({ "kernels": [{ "name": long }], "short": "kept" });
        bound_json(&mut doc, 100);
        let name = doc["kernels"][0]["name"].as_str().unwrap();
        assert_eq!(name.chars().count(), super::JSON_STRING_CHARS);
        assert!(name.ends_with("é…"), "the cut keeps whole characters");
        assert_eq!(doc["short"], "kept");
        assert_eq!(
            doc["truncated"],
            serde_json::json!([{ "path": "kernels.0.name", "kept": super::JSON_STRING_CHARS - 1, "of": super::JSON_STRING_CHARS + 10 }])
        );
    }

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
mod format_tests {
    use super::*;

    #[test]
    fn humanises_durations_and_cuts_names() {
        assert_eq!(human_ns(812.0), "812 ns");
        assert_eq!(human_ns(45_300.0), "45.3 µs");
        assert_eq!(human_ns(1_204_000.0), "1.20 ms");
        assert_eq!(human_ns(3.4e9), "3.40 s");
        assert_eq!(ellipsize("abcdef", 4), "abc…");
        assert_eq!(ellipsize("abc", 4), "abc");
    }

    #[test]
    fn shortened_names_stay_distinct() {
        // Two elementwise kernels of the H200 zoo that differ only in their functor.
        let a = "void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#1}, std::array<char*, 2ul> >(int, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#1}, std::array<char*, 2ul>)";
        let b = "void at::native::vectorized_elementwise_kernel<4, at::native::pow_tensor_scalar_kernel_impl(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#1}, std::array<char*, 2ul> >(int, at::native::pow_tensor_scalar_kernel_impl(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#1}, std::array<char*, 2ul>)";
        assert_eq!(display_name(a), "vectorized_elementwise_kernel<4, rsqrt_kernel_cuda, array<char*, 2ul> >");
        let gemv = "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, float>(cublasGemvParamsEx<int>)";
        assert_eq!(display_name(gemv), "internal::gemvx::kernel<int, int, __nv_bfloat16, float>");
        assert_eq!(display_name("Memset (Device)"), "Memset (Device)");
        assert_eq!(display_name("divide_kernel(float*, float const*, int)"), "divide_kernel");
        let softmax =
            "void (anonymous namespace)::softmax_warp_forward<float, float, 5, false>(float*, float const*, int)";
        assert_eq!(display_name(softmax), "softmax_warp_forward<float, float, 5, false>");
        let short = shorten_distinct(&[a, b, "nvjet_sm90_tst_8x64"], 60);
        assert_ne!(short[0], short[1], "{short:?}");
        assert!(short[0].contains("rsqrt") && short[1].contains("pow_tensor"), "{short:?}");
        let same_head =
            shorten_distinct(&["kernel_with_a_long_common_head_A_tail", "kernel_with_a_long_common_head_B_tail"], 20);
        assert_ne!(same_head[0], same_head[1], "{same_head:?}");
        assert!(short.iter().all(|s| s.chars().count() <= 60), "{short:?}");
        assert_eq!(short[2], "nvjet_sm90_tst_8x64");
        // Two kernels whose short forms are one string (they differ only in a lambda's number,
        // which the short form drops: the H100 FlexAttention run's elementwise kernels).
        let lambda = |n: u32| {
            format!("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#{n}}}::operator()() const::{{lambda(float)#1}}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#{n}}}::operator()() const::{{lambda(float)#1}} const&)::{{lambda(int)#1}}>(int, at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#{n}}}::operator()() const::{{lambda(float)#1}}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#{n}}}::operator()() const::{{lambda(float)#1}} const&)::{{lambda(int)#1}})")
        };
        let (c, d) = (lambda(2), lambda(3));
        assert_eq!(display_name(&c), display_name(&d));
        let apart = shorten_distinct(&[&c, &d], 34);
        assert_ne!(apart[0], apart[1], "{apart:?}");
        assert!(apart.iter().all(|s| s.chars().count() <= 34), "{apart:?}");
    }
}
