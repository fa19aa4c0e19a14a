//! The timeline strip: one row per device stream with its busy time coloured by kernel
//! family, each device's idle gaps (the gaps of the union of its ops, [`IntervalSet::gaps`])
//! shaded behind its rows, the busiest host threads and the annotation ranges below.
//!
//! The drawing is bounded whatever the op count: each row is drawn in time buckets that take
//! the colour with the most busy time in them, neighbours of one colour merged (at most
//! [`BUSY_RECTS`] buckets in all), only gaps at least a pixel wide are shaded (the
//! [`GAP_RECTS`] longest), and at most [`MAX_ROWS`] streams are drawn.

use super::family_color;
use super::svg::Svg;
use crate::render::{human_ns, stream_label};
use maud::Markup;
use prof_core::families::Family;
use prof_core::{HostCategory, Timeline};
use prof_timeline::intern::{FxHashMap, NameId};
use prof_timeline::intervals::IntervalSet;

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

/// Most host rows (the threads with the most spans) drawn under the device rows.
pub const HOST_ROWS: usize = 2;
/// Host spans of this category get a row of their own (NVTX, roctx, record_function).
const ANNOTATION_FILL: &str = "#8e6c8a";
const HOST_FILL: &str = "#9a9a9a";

/// A span, start and end in ns, with the colour it is drawn in.
type Span = (u64, u64, &'static str);

/// One drawn row: a label and its spans, each with the colour it is drawn in.
struct Row {
    label: String,
    device: Option<u32>,
    spans: Vec<Span>,
}

/// The strip as an SVG element, or `None` for a timeline without device ops: one row per
/// device stream, its ops coloured by kernel family ([`super::family_color`], `families`
/// maps each op name to its family), the device's idle gaps shaded behind its rows; under
/// them the busiest host threads and the annotation ranges (NVTX) where the data has them;
/// a legend of the families drawn.
pub fn timeline_strip(timeline: &Timeline, families: &FxHashMap<NameId, Family>) -> Option<Markup> {
    let t0 = timeline.ops.iter().map(|op| op.start_ns).min()?;
    let t1 = timeline.ops.iter().map(|op| op.end_ns()).max()?.max(t0 + 1);
    let scale = PLOT_W / (t1 - t0) as f64;
    let x_of = |ns: u64| LABEL_W + (ns.saturating_sub(t0)) as f64 * scale;

    let mut by_stream: FxHashMap<(u32, u64), Vec<Span>> = FxHashMap::default();
    let mut drawn: Vec<Family> = Vec::new();
    for op in &timeline.ops {
        let family = families.get(&op.name()).copied().unwrap_or(Family::Other);
        if !drawn.contains(&family) {
            drawn.push(family);
        }
        by_stream.entry((op.device(), op.stream())).or_default().push((op.start_ns, op.end_ns(), family_color(family)));
    }
    let mut keys: Vec<(u32, u64)> = by_stream.keys().copied().collect();
    keys.sort_unstable();
    let omitted = keys.len().saturating_sub(MAX_ROWS);
    keys.truncate(MAX_ROWS);
    let mut rows: Vec<Row> = keys
        .iter()
        .map(|&(device, stream)| Row {
            label: format!("device {device} stream {}", stream_label(stream)),
            device: Some(device),
            spans: by_stream.remove(&(device, stream)).unwrap_or_default(),
        })
        .collect();
    rows.extend(host_rows(timeline, t0, t1));

    let legend_h = ROW_H * 1.5;
    let height = AXIS_H + rows.len() as f64 * ROW_H + if omitted > 0 { ROW_H } else { 0.0 } + legend_h;
    let mut svg = Svg::new(LABEL_W + PLOT_W + 10.0, height + 4.0);

    // Idle gaps of each device, shaded across that device's rows.
    let mut device_rows: Vec<(u32, usize, usize)> = Vec::new();
    for (index, row) in rows.iter().enumerate() {
        let Some(device) = row.device else { continue };
        match device_rows.last_mut() {
            Some((d, _, last)) if *d == device => *last = index,
            _ => device_rows.push((device, index, index)),
        }
    }
    let mut gaps: Vec<(u64, u64, f64, f64)> = Vec::new();
    for &(device, first, last) in &device_rows {
        let spans =
            timeline.ops.iter().filter(|op| op.device() == device).map(|op| (op.start_ns, op.end_ns())).collect();
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

    // Each row in buckets of equal time: a bucket takes the colour with the most busy time in
    // it, and neighbouring buckets of one colour are one rectangle (at most BUSY_RECTS in all).
    let buckets = (BUSY_RECTS / rows.len().max(1)).clamp(1, PLOT_W as usize / 2);
    let bucket_ns = ((t1 - t0) as f64 / buckets as f64).max(1.0);
    for (index, row) in rows.iter().enumerate() {
        let y = AXIS_H + index as f64 * ROW_H;
        svg.text(LABEL_W - 6.0, y + ROW_H * 0.7, "end", 11.0, &row.label);
        let colours = bucket_colours(&row.spans, t0, bucket_ns, buckets);
        let mut at = 0;
        while at < colours.len() {
            let Some(fill) = colours[at] else {
                at += 1;
                continue;
            };
            let run = colours[at..].iter().take_while(|c| **c == Some(fill)).count();
            let (x0, x1) =
                (LABEL_W + at as f64 * PLOT_W / buckets as f64, LABEL_W + (at + run) as f64 * PLOT_W / buckets as f64);
            svg.rect(x0, y + 3.0, (x1 - x0).max(0.5), ROW_H - 6.0, fill, None);
            at += run;
        }
    }
    let mut y = AXIS_H + rows.len() as f64 * ROW_H;
    if omitted > 0 {
        svg.text(LABEL_W - 6.0, y + ROW_H * 0.7, "end", 11.0, &format!("… {omitted} more streams not drawn"));
        y += ROW_H;
    }
    // Legend: the families drawn, in report order.
    drawn.sort_unstable();
    let mut x = LABEL_W;
    for family in drawn {
        svg.rect(x, y + 6.0, 10.0, 10.0, family_color(family), None);
        svg.text(x + 14.0, y + 15.0, "start", 11.0, family.as_str());
        x += 24.0 + 7.0 * family.as_str().len() as f64;
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
    Some(svg.finish("device timeline per stream coloured by kernel family, idle gaps shaded; host rows below"))
}

/// The colour with the most busy time in each of `buckets` buckets of `bucket_ns` from `t0`.
fn bucket_colours(
    spans: &[(u64, u64, &'static str)],
    t0: u64,
    bucket_ns: f64,
    buckets: usize,
) -> Vec<Option<&'static str>> {
    let mut time: Vec<Vec<(&'static str, f64)>> = vec![Vec::new(); buckets];
    for &(start, end, fill) in spans {
        let (a, b) = ((start.saturating_sub(t0)) as f64, (end.saturating_sub(t0)) as f64);
        let first = ((a / bucket_ns) as usize).min(buckets - 1);
        let last = ((b / bucket_ns) as usize).min(buckets - 1);
        for (bucket, slot) in time.iter_mut().enumerate().take(last + 1).skip(first) {
            let lo = a.max(bucket as f64 * bucket_ns);
            let hi = b.min((bucket + 1) as f64 * bucket_ns);
            if hi > lo {
                match slot.iter_mut().find(|(f, _)| *f == fill) {
                    Some(entry) => entry.1 += hi - lo,
                    None => slot.push((fill, hi - lo)),
                }
            }
        }
    }
    time.into_iter().map(|slot| slot.into_iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|(fill, _)| fill)).collect()
}

/// The busiest host threads and the annotation ranges inside `[t0, t1)`, as rows.
fn host_rows(timeline: &Timeline, t0: u64, t1: u64) -> Vec<Row> {
    let inside = |s: &&prof_core::HostSpan| s.start_ns < t1 && s.start_ns.saturating_add(s.dur_ns()) > t0;
    let mut threads: FxHashMap<(u32, u64), Vec<Span>> = FxHashMap::default();
    let mut annotations = Vec::new();
    for span in timeline.host.iter().filter(inside) {
        let interval = (span.start_ns, span.start_ns.saturating_add(span.dur_ns()));
        if span.category == HostCategory::Annotation {
            annotations.push((interval.0, interval.1, ANNOTATION_FILL));
        } else {
            threads.entry((span.pid, span.tid)).or_default().push((interval.0, interval.1, HOST_FILL));
        }
    }
    let mut busiest: Vec<((u32, u64), Vec<Span>)> = threads.into_iter().collect();
    busiest.sort_unstable_by_key(|(key, spans)| (std::cmp::Reverse(spans.len()), *key));
    let mut rows: Vec<Row> = busiest
        .into_iter()
        .take(HOST_ROWS)
        .map(|((pid, tid), spans)| Row { label: format!("host {pid}/{tid}"), device: None, spans })
        .collect();
    if !annotations.is_empty() {
        rows.push(Row { label: "annotations (NVTX)".to_owned(), device: None, spans: annotations });
    }
    rows
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
        let svg = timeline_strip(&t, &FxHashMap::default()).unwrap().into_string();
        let rects = svg.matches("<rect").count();
        assert!(rects <= BUSY_RECTS + GAP_RECTS, "{rects} rects");
        assert!(svg.contains("idle gap 1.00 ms"), "the 1 ms hole is shaded with its length");
    }

    #[test]
    fn ops_take_their_familys_colour_and_host_rows_follow() {
        let mut t = Timeline::new("test");
        let (gemm, norm) = (t.intern("gemm_kernel"), t.intern("rms_norm_kernel"));
        for i in 0..100u64 {
            t.push_op(DeviceOp::new(OpKind::Kernel, if i % 2 == 0 { gemm } else { norm }, 0, 7, i * 10_000, 9_000));
        }
        let (launch, range) = (t.intern("cudaLaunchKernel"), t.intern("step"));
        for (name, category) in [(launch, HostCategory::Runtime), (range, HostCategory::Annotation)] {
            t.host.push(prof_core::HostSpan::new(name, category, (1, 2), 0, 500_000, None.into()));
        }
        let families = FxHashMap::from_iter([(gemm, Family::Gemm), (norm, Family::Norm)]);
        let svg = timeline_strip(&t, &families).unwrap().into_string();
        for family in [Family::Gemm, Family::Norm] {
            assert!(svg.contains(&format!("fill=\"{}\"", family_color(family))), "{family:?}");
            assert!(svg.contains(&format!(">{}</text>", family.as_str())), "legend {family:?}");
        }
        assert!(svg.contains(">host 1/2</text>") && svg.contains(">annotations (NVTX)</text>"), "{svg}");
    }
}
