//! The deep dive an answer leads to: where one may be offered (the vendor has a single-kernel
//! deep dive), the kernel and how to reach a warm launch of it (`--kernel '^name$'
//! --launch-skip N`), and the function name ncu matches by default.

use prof_core::families::Family;
use prof_core::kernel_summary::KernelSummary;
use prof_core::run_plan::{shell_join, shell_quote};
use prof_core::OpKind;
use std::ffi::OsString;

/// Where a deep-dive suggestion may be offered, and what it skips.
pub struct DeepDiveContext<'a> {
    /// The vendor of the data has a single-kernel deep dive (NVIDIA's ncu; not Ascend).
    pub available: bool,
    /// Launches of each kernel (by name id; the window keeps its timeline's names) before the
    /// window the summary describes (its warm-up and load).
    pub launches_before: Option<&'a prof_timeline::intern::FxHashMap<prof_timeline::intern::NameId, u64>>,
}

/// True when the backend named `vendor` (a [`prof_core::Format`]'s vendor), or the one whose
/// breakdown tool is `tool`, has a deep dive; with neither (the embedded NVIDIA profile), true.
pub fn deep_dive_available(registry: &prof_core::Registry, vendor: Option<&str>, tool: Option<&str>) -> bool {
    if vendor.is_none() && tool.is_none() {
        return true;
    }
    registry.vendors().iter().any(|v| {
        vendor.is_none_or(|name| v.name() == name)
            && tool.is_none_or(|name| v.breakdown_tools().iter().any(|t| t.name() == name))
            && v.deep_dive().is_some()
    })
}

/// Launches skipped past the warm-up beyond those before the steady state: the first steady
/// launches still see cold caches and clocks.
pub const WARM_LAUNCHES: u64 = 2;

/// The kernel a deep dive should look at, and how to reach a warm launch of it.
#[derive(Debug, Clone, PartialEq)]
pub struct DeepDiveTarget {
    /// Its full name, as the trace has it.
    pub kernel: String,
    /// Its share of device time, percent.
    pub share_pct: f64,
    /// The regex for `--kernel`: the function name anchored.
    pub regex: String,
    /// `--launch-skip`: its launches before the steady window and [`WARM_LAUNCHES`] more.
    pub launch_skip: u64,
}

impl DeepDiveTarget {
    /// The `prof deep-dive` command line for `command` (`CMD...` when there is none).
    pub fn command(&self, command: &[OsString]) -> String {
        let cmd = if command.is_empty() { "CMD...".to_owned() } else { shell_join(command) };
        format!(
            "prof deep-dive --kernel {} --launch-skip {} --launch-count 1 -- {cmd}",
            shell_quote(&self.regex),
            self.launch_skip
        )
    }
}

/// The kernel the answer sends to a deep dive ([`prof_core::answer::Next::DeepDive`]: one
/// kernel dominates a busy device and nothing larger can be won back), when the vendor has a
/// deep dive (a deep dive replays the kernel and is slow, so it follows only from that
/// headline). The regex is the kernel's function name anchored (`^name$`, the name ncu
/// matches by default), and the launch-skip passes its launches before the steady state and
/// [`WARM_LAUNCHES`] more.
pub fn dominant_kernel(
    summary: &KernelSummary,
    context: &DeepDiveContext,
    answer: &prof_core::answer::Answer,
) -> Option<DeepDiveTarget> {
    if !context.available {
        return None;
    }
    let (kernel, _) = answer.deep_dive()?;
    let top = summary
        .kernels
        .iter()
        .find(|k| k.kind == OpKind::Kernel && k.family != Family::Collective && k.name == kernel)?;
    let launch_skip =
        context.launches_before.and_then(|before| before.get(&top.name_id)).copied().unwrap_or(0) + WARM_LAUNCHES;
    Some(DeepDiveTarget {
        kernel: top.name.clone(),
        share_pct: top.share_pct,
        regex: format!("^{}$", regex_escape(function_name(&top.name))),
        launch_skip,
    })
}

/// The function name of a demangled kernel signature, as ncu's default `--kernel-name-base
/// function` sees it: no return type, namespaces, template arguments or parameters
/// (`void at::native::elementwise_kernel<128, 4, …>(int, …)` → `elementwise_kernel`).
pub fn function_name(signature: &str) -> &str {
    let end = crate::render::signature_end(signature).unwrap_or(signature.len());
    let mut head = signature[..end].trim_end();
    // The function's own template arguments, matched backwards from the end.
    if head.ends_with('>') {
        let mut depth = 0i32;
        for (at, c) in head.char_indices().rev() {
            match c {
                '>' => depth += 1,
                '<' => {
                    depth -= 1;
                    if depth == 0 {
                        head = &head[..at];
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    // The last word is the qualified name (a return type such as `void` comes before it).
    let qualified = head.rsplit(' ').next().unwrap_or(head);
    match qualified.rsplit("::").next() {
        Some(name) if !name.is_empty() => name,
        _ => signature,
    }
}

fn regex_escape(text: &str) -> String {
    text.chars().fold(String::new(), |mut out, c| {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

#[cfg(test)]
mod tests;
