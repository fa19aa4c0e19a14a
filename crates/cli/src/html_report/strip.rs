//! The timeline strip: one row per device stream with its busy time, and each device's idle
//! gaps (the gaps of the union of its ops, [`IntervalSet::gaps`]) shaded behind its rows.
//!
//! The drawing is bounded whatever the op count: busy intervals closer than a pixel budget
//! are merged into one rectangle (at most [`BUSY_RECTS`] in all), only gaps at least a pixel
//! wide are shaded (the [`GAP_RECTS`] longest), and at most [`MAX_ROWS`] streams are drawn.

use super::svg::{Svg, PALETTE};
use crate::render::human_ns;
use prof_core::analysis::intervals::IntervalSet;
use prof_core::intern::FxHashMap;
use prof_core::Timeline;

/// Most busy rectangles drawn over all rows.
pub const BUSY_RECTS: usize = 3000;
/// Most gap rectangles shaded over all devices.
pub const GAP_RECTS: usize = 1000;
/// Most stream rows drawn.
pub const MAX_ROWS: usize = 32;

const LABEL_W: f64 = 150.0;
const PLOT_W: f64 = 1050.0;
const ROW_H: f64 = 18.0;
const AXIS_H: f64 = 24.0;
const GAP_FILL: &str = "#f4b6b6";

/// The strip as an SVG element, or `None` for a timeline without device ops.
pub fn timeline_strip(timeline: &Timeline) -> Option<String> {
    let t0 = timeline.ops.iter().map(|op| op.start_ns).min()?;
    let t1 = timeline.ops.iter().map(|op| op.end_ns()).max()?.max(t0 + 1);
    let scale = PLOT_W / (t1 - t0) as f64;
    let x_of = |ns: u64| LABEL_W + (ns.saturating_sub(t0)) as f64 * scale;

    let mut by_stream: FxHashMap<(u32, u64), Vec<(u64, u64)>> = FxHashMap::default();
    for op in &timeline.ops {
        by_stream.entry((op.device, op.stream)).or_default().push((op.start_ns, op.end_ns()));
    }
    let mut keys: Vec<(u32, u64)> = by_stream.keys().copied().collect();
    keys.sort_unstable();
    let omitted = keys.len().saturating_sub(MAX_ROWS);
    keys.truncate(MAX_ROWS);
    let rows: Vec<((u32, u64), IntervalSet)> =
        keys.iter().map(|key| (*key, IntervalSet::from_unsorted(by_stream.remove(key).unwrap_or_default()))).collect();

    let height = AXIS_H + rows.len() as f64 * ROW_H + if omitted > 0 { ROW_H } else { 0.0 };
    let mut svg = Svg::new(LABEL_W + PLOT_W + 10.0, height + 4.0);

    // Idle gaps of each device, shaded across that device's rows.
    let mut device_rows: Vec<(u32, usize, usize)> = Vec::new();
    for (index, ((device, _), _)) in rows.iter().enumerate() {
        match device_rows.last_mut() {
            Some((d, _, last)) if d == device => *last = index,
            _ => device_rows.push((*device, index, index)),
        }
    }
    let mut gaps: Vec<(u64, u64, f64, f64)> = Vec::new();
    for &(device, first, last) in &device_rows {
        let spans = timeline.ops.iter().filter(|op| op.device == device).map(|op| (op.start_ns, op.end_ns())).collect();
        let busy = IntervalSet::from_unsorted(spans);
        let (y, h) = (AXIS_H + first as f64 * ROW_H, (last - first + 1) as f64 * ROW_H);
        gaps.extend(busy.gaps().filter(|&(s, e)| (e - s) as f64 * scale >= 1.0).map(|(s, e)| (s, e, y, h)));
    }
    gaps.sort_unstable_by_key(|&(s, e, _, _)| std::cmp::Reverse(e - s));
    gaps.truncate(GAP_RECTS);
    for &(start, end, y, h) in &gaps {
        let title = format!("idle gap {} at +{}", human_ns((end - start) as f64), human_ns((start - t0) as f64));
        svg.rect(x_of(start), y, (end - start) as f64 * scale, h, GAP_FILL, Some(&title));
    }

    // Busy time of each stream, intervals within `merge_px` of each other drawn as one.
    let merge_px = (PLOT_W * rows.len() as f64 / BUSY_RECTS as f64).max(0.5);
    for (index, ((device, stream), busy)) in rows.iter().enumerate() {
        let y = AXIS_H + index as f64 * ROW_H;
        svg.text(
            LABEL_W - 6.0,
            y + ROW_H * 0.7,
            "end",
            11.0,
            &format!("device {device} stream {}", crate::render::stream_label(*stream)),
        );
        let fill = PALETTE[*device as usize % PALETTE.len()];
        let mut run: Option<(f64, f64)> = None;
        for &(start, end) in busy.spans() {
            let (x0, x1) = (x_of(start), x_of(end));
            run = match run {
                Some((a, b)) if x0 - b < merge_px => Some((a, x1.max(b))),
                Some((a, b)) => {
                    svg.rect(a, y + 3.0, (b - a).max(0.5), ROW_H - 6.0, fill, None);
                    Some((x0, x1))
                }
                None => Some((x0, x1)),
            };
        }
        if let Some((a, b)) = run {
            svg.rect(a, y + 3.0, (b - a).max(0.5), ROW_H - 6.0, fill, None);
        }
    }
    if omitted > 0 {
        let y = AXIS_H + rows.len() as f64 * ROW_H + ROW_H * 0.7;
        svg.text(LABEL_W - 6.0, y, "end", 11.0, &format!("… {omitted} more streams not drawn"));
    }

    // Time axis.
    svg.line(LABEL_W, AXIS_H - 4.0, LABEL_W + PLOT_W, AXIS_H - 4.0, "#666");
    for quarter in 0..=4 {
        let x = LABEL_W + PLOT_W * quarter as f64 / 4.0;
        let anchor = match quarter {
            0 => "start",
            4 => "end",
            _ => "middle",
        };
        svg.line(x, AXIS_H - 8.0, x, AXIS_H - 4.0, "#666");
        svg.text(x, AXIS_H - 11.0, anchor, 11.0, &format!("+{}", human_ns((t1 - t0) as f64 * quarter as f64 / 4.0)));
    }
    Some(svg.finish("device timeline per stream, idle gaps shaded"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_core::{DeviceOp, OpKind};

    #[test]
    fn stays_bounded_for_many_ops_and_shades_gaps() {
        let mut t = Timeline::new("test");
        let k = t.intern("k");
        for i in 0..200_000u64 {
            // Two streams; a 1 ms hole in the middle of device 0.
            let start = i * 1_000 + if i >= 100_000 { 1_000_000 } else { 0 };
            t.push_op(DeviceOp::new(OpKind::Kernel, k, 0, i % 2, start, 400));
        }
        let svg = timeline_strip(&t).unwrap();
        let rects = svg.matches("<rect").count();
        assert!(rects <= BUSY_RECTS + GAP_RECTS, "{rects} rects");
        assert!(svg.contains("idle gap 1.00 ms"), "the 1 ms hole is shaded with its length");
    }
}
