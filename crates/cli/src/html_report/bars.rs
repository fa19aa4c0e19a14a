//! Bar charts of the kernel breakdown: kernel-family shares, the top kernels, and each
//! device's temporal breakdown (compute / communication / memory / other / idle) as one
//! stacked bar, read from the `temporal` section's JSON.

use super::family_color;
use super::svg::Svg;
use crate::render::{display_name, ellipsize, human_ns};
use crate::sections::RenderedSection;
use maud::Markup;
use prof_core::kernel_summary::KernelSummary;

const LABEL_W: f64 = 330.0;
const BAR_W: f64 = 700.0;
const ROW_H: f64 = 20.0;

/// One horizontal bar per row of (`label`, `share_pct`, tooltip, colour), scaled to 100 %.
fn share_bars(rows: &[(String, f64, String, &str)], label: &str) -> Markup {
    let mut svg = Svg::new(LABEL_W + BAR_W + 90.0, rows.len() as f64 * ROW_H + 8.0);
    for (index, (name, share, title, fill)) in rows.iter().enumerate() {
        let y = 4.0 + index as f64 * ROW_H;
        svg.text(LABEL_W - 6.0, y + ROW_H * 0.7, "end", 12.0, name);
        svg.rect(LABEL_W, y + 3.0, BAR_W, ROW_H - 6.0, "#eeeeee", None);
        let width = BAR_W * share.clamp(0.0, 100.0) / 100.0;
        svg.rect(LABEL_W, y + 3.0, width.max(0.5), ROW_H - 6.0, fill, Some(title));
        svg.text(LABEL_W + BAR_W + 6.0, y + ROW_H * 0.7, "start", 12.0, &format!("{share:.1} %"));
    }
    svg.finish(label)
}

/// Share of device time per kernel family, largest first.
pub fn family_bars(summary: &KernelSummary) -> Option<Markup> {
    let rows: Vec<(String, f64, String, &str)> = summary
        .families
        .iter()
        .map(|f| {
            let title = format!(
                "{}: {} kernels, {} calls, {}",
                f.family.as_str(),
                f.kernels,
                f.calls,
                human_ns(f.total_ns as f64)
            );
            (f.family.as_str().to_owned(), f.share_pct, title, family_color(f.family))
        })
        .collect();
    (!rows.is_empty()).then(|| share_bars(&rows, "share of device time per kernel family"))
}

/// Share of device time of the `n` largest kernels; the full name is the tooltip.
pub fn top_kernel_bars(summary: &KernelSummary, n: usize) -> Option<Markup> {
    let rows: Vec<(String, f64, String, &str)> = summary
        .top(n)
        .iter()
        .map(|k| {
            let title = format!(
                "{} ({}): {} calls, {} total, {} mean",
                k.name,
                k.family.as_str(),
                k.calls,
                human_ns(k.total_ns as f64),
                human_ns(k.mean_ns)
            );
            (ellipsize(&display_name(&k.name), 48), k.share_pct, title, family_color(k.family))
        })
        .collect();
    (!rows.is_empty()).then(|| share_bars(&rows, "share of device time of the top kernels"))
}

/// The parts of a device's wall time, in the order the temporal breakdown ranks them: the
/// temporal section's JSON key, the name, the colour (the rank page uses the same colours).
pub(super) const PARTS: [(&str, &str, &str); 5] = [
    ("compute_ns", "compute", "#4e79a7"),
    ("communication_ns", "communication", "#f28e2b"),
    ("memory_ns", "memory", "#59a14f"),
    ("other_ns", "other", "#b07aa1"),
    ("idle_ns", "idle", "#e15759"),
];

/// One stacked bar per device from the `temporal` section, or `None` when there is none.
pub fn temporal_bars(sections: &[RenderedSection]) -> Option<Markup> {
    let devices = sections.iter().find(|s| s.key == "temporal")?.json.as_array()?;
    let field = |d: &serde_json::Value, key: &str| d.get(key).and_then(serde_json::Value::as_u64);
    let mut svg = Svg::new(LABEL_W + BAR_W + 90.0, devices.len() as f64 * ROW_H + 34.0);
    for (index, device) in devices.iter().enumerate() {
        let (Some(id), Some(wall)) = (field(device, "device"), field(device, "wall_ns")) else { continue };
        let y = 4.0 + index as f64 * ROW_H;
        svg.text(LABEL_W - 6.0, y + ROW_H * 0.7, "end", 12.0, &format!("device {id} ({})", human_ns(wall as f64)));
        let mut x = LABEL_W;
        for (key, name, fill) in PARTS {
            let ns = field(device, key).unwrap_or(0);
            if wall == 0 || ns == 0 {
                continue;
            }
            let share = ns as f64 * 100.0 / wall as f64;
            let width = BAR_W * ns as f64 / wall as f64;
            svg.rect(
                x,
                y + 3.0,
                width,
                ROW_H - 6.0,
                fill,
                Some(&format!("{name}: {} ({share:.1} %)", human_ns(ns as f64))),
            );
            x += width;
        }
    }
    legend(
        &mut svg,
        LABEL_W,
        devices.len() as f64 * ROW_H + 24.0,
        130.0,
        PARTS.iter().map(|&(_, name, fill)| (name, fill)),
    );
    Some(svg.finish("wall time per device: compute, communication, memory, other, idle"))
}

/// A row of colour swatches with their names at `y`, `step` apart from `x`.
pub(super) fn legend<'a>(svg: &mut Svg, x: f64, y: f64, step: f64, entries: impl Iterator<Item = (&'a str, &'a str)>) {
    for (index, (name, fill)) in entries.enumerate() {
        let x = x + index as f64 * step;
        svg.rect(x, y - 10.0, 12.0, 12.0, fill, None);
        svg.text(x + 16.0, y, "start", 12.0, name);
    }
}
