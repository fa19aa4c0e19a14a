//! Utilization over time for `prof util --html`: per device, one line chart each for
//! utilization (%), memory in use (GiB), power (W) and clocks (MHz), from the recording's
//! ticks. A quantity the probe never reported gets no chart (unknown is not 0). Long
//! recordings are thinned to at most [`MAX_POINTS`] points per line, keeping each bucket's peak.

use super::svg::{Svg, PALETTE};
use crate::render::human_ns;
use maud::Markup;
use prof_core::{DeviceSample, Recording};
use std::collections::BTreeSet;

/// Most points drawn per line.
pub const MAX_POINTS: usize = 1500;

const W: f64 = 560.0;
const H: f64 = 170.0;
const LEFT: f64 = 52.0;
const TOP: f64 = 22.0;
const PLOT_W: f64 = W - LEFT - 12.0;
const PLOT_H: f64 = H - TOP - 40.0;

type Pick = fn(&DeviceSample) -> Option<f64>;

/// One chart: its title, unit, fixed y ceiling (else the data's peak) and its lines.
struct ChartSpec {
    title: &'static str,
    unit: &'static str,
    ceiling: Option<f64>,
    lines: Vec<(&'static str, Pick)>,
}

/// The charts of every device, as (device, SVG elements) in device order.
pub fn util_charts(recording: &Recording) -> Vec<(u32, Vec<Markup>)> {
    let devices: BTreeSet<u32> = recording.ticks.iter().flat_map(|t| &t.samples).map(|s| s.device).collect();
    let end_ns = recording.ticks.last().map_or(1, |t| t.t_ns.max(1));
    let charts = [
        ChartSpec {
            title: "utilization",
            unit: "%",
            ceiling: Some(100.0),
            lines: vec![("gpu util", |s| s.gpu_util_pct), ("memory util", |s| s.mem_util_pct)],
        },
        ChartSpec {
            title: "memory in use",
            unit: "GiB",
            ceiling: None,
            lines: vec![("used", |s| gib_of(s.mem_used_bytes)), ("total", |s| gib_of(s.mem_total_bytes))],
        },
        ChartSpec {
            title: "power",
            unit: "W",
            ceiling: None,
            lines: vec![("draw", |s| s.power_w), ("limit", |s| s.power_limit_w)],
        },
        ChartSpec {
            title: "clocks",
            unit: "MHz",
            ceiling: None,
            lines: vec![("SM", |s| s.sm_clock_mhz.map(f64::from)), ("memory", |s| s.mem_clock_mhz.map(f64::from))],
        },
    ];
    devices
        .into_iter()
        .map(|device| {
            let plots = charts
                .iter()
                .filter_map(|spec| {
                    let lines: Vec<(&str, Vec<(u64, f64)>)> = spec
                        .lines
                        .iter()
                        .map(|(name, pick)| (*name, series(recording, device, *pick)))
                        .filter(|(_, points)| !points.is_empty())
                        .collect();
                    let title = format!("device {device} {} ({})", spec.title, spec.unit);
                    chart(&title, &lines, spec.ceiling, end_ns)
                })
                .collect();
            (device, plots)
        })
        .collect()
}

/// Bytes as GiB (2^30).
fn gib_of(bytes: Option<u64>) -> Option<f64> {
    bytes.map(|b| b as f64 / (1u64 << 30) as f64)
}

/// The reported values of one quantity of one device, thinned to [`MAX_POINTS`].
fn series(recording: &Recording, device: u32, pick: Pick) -> Vec<(u64, f64)> {
    let points: Vec<(u64, f64)> = recording
        .ticks
        .iter()
        .filter_map(|t| {
            let sample = t.samples.iter().find(|s| s.device == device)?;
            pick(sample).filter(|v| v.is_finite()).map(|v| (t.t_ns, v))
        })
        .collect();
    if points.len() <= MAX_POINTS {
        return points;
    }
    let per_bucket = points.len().div_ceil(MAX_POINTS);
    points.chunks(per_bucket).filter_map(|bucket| bucket.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))).collect()
}

/// A line chart of `lines` over [0, `end_ns`], y from 0 to `ceiling` (else the data's peak).
fn chart(title: &str, lines: &[(&str, Vec<(u64, f64)>)], ceiling: Option<f64>, end_ns: u64) -> Option<Markup> {
    if lines.is_empty() {
        return None;
    }
    let peak = lines.iter().flat_map(|(_, p)| p.iter().map(|&(_, v)| v)).fold(0.0f64, f64::max);
    let top = ceiling.unwrap_or(if peak > 0.0 { peak * 1.1 } else { 1.0 });
    let x_of = |t: u64| LEFT + PLOT_W * t as f64 / end_ns as f64;
    let y_of = |v: f64| TOP + PLOT_H * (1.0 - (v / top).clamp(0.0, 1.0));
    let mut svg = Svg::new(W, H);
    svg.text(LEFT, 14.0, "start", 13.0, title);
    svg.line(LEFT, TOP, LEFT, TOP + PLOT_H, "#666");
    svg.line(LEFT, TOP + PLOT_H, LEFT + PLOT_W, TOP + PLOT_H, "#666");
    for (value, label) in [(0.0, "0".to_owned()), (top, format!("{top:.0}"))] {
        svg.text(LEFT - 4.0, y_of(value) + 4.0, "end", 11.0, &label);
    }
    svg.text(LEFT, TOP + PLOT_H + 14.0, "start", 11.0, "0");
    svg.text(LEFT + PLOT_W, TOP + PLOT_H + 14.0, "end", 11.0, &format!("+{}", human_ns(end_ns as f64)));
    for (index, (name, points)) in lines.iter().enumerate() {
        let colour = PALETTE[index % PALETTE.len()];
        let xy: Vec<(f64, f64)> = points.iter().map(|&(t, v)| (x_of(t), y_of(v))).collect();
        svg.polyline(&xy, colour);
        if let [(x, y)] = xy.as_slice() {
            svg.rect(x - 2.0, y - 2.0, 4.0, 4.0, colour, None);
        }
        let legend_x = LEFT + 10.0 + index as f64 * 140.0;
        svg.rect(legend_x, H - 18.0, 10.0, 10.0, colour, None);
        svg.text(legend_x + 14.0, H - 9.0, "start", 11.0, name);
    }
    Some(svg.finish(title))
}
