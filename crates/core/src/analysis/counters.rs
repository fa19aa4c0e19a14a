//! Clock / frequency drops in counter series: when a frequency-like counter (Ascend's
//! `AI Core Freq` in MHz, an SM clock) fell below its nominal value, for how long and how
//! deep, the total time below it, and which throttle reasons were active meanwhile. A drop
//! explains kernels that ran slower than usual (power cap, thermal limit, idle down-clocking).
//!
//! Rules, per series:
//! - a series is **frequency-like** when its name holds one of [`FREQUENCY_NAME_HINTS`] or
//!   its unit is one of [`FREQUENCY_UNITS`] (case-insensitive), unless it is a throttle-reason
//!   series; other series are summarised only (points, min, max, mean);
//! - a **throttle-reason** series is named [`THROTTLE_REASON_PREFIX`] + the reason and holds 1
//!   while the reason is active, 0 while not (prof's util CSV gives them, see
//!   [`crate::util_csv`]);
//! - its **nominal** value is its maximum (the sources give no separate nominal clock);
//! - each point's value holds until the next point (sample and hold); the last point holds
//!   for no time;
//! - a **drop** is a maximal run of points below nominal × (1 − [`DROP_TOLERANCE_PCT`] / 100):
//!   it starts at its first point and lasts until the next point at or above that line (or
//!   the series' last point); its **depth** is (nominal − lowest value) / nominal; its
//!   **reasons** are the throttle reasons of the same device active at any time inside it;
//! - the [`TOP_DROPS`] longest drops are listed, all are counted and timed, and each reason's
//!   active time while below nominal is summed.

use prof_timeline::intervals::IntervalSet;
use prof_timeline::timeline::{CounterSeries, Timeline};
use serde::Serialize;

/// Words in a counter's name that mark it as a clock or frequency.
pub(crate) const FREQUENCY_NAME_HINTS: [&str; 3] = ["freq", "clock", "clk"];
/// Units that mark a counter as a frequency.
pub(crate) const FREQUENCY_UNITS: [&str; 3] = ["mhz", "ghz", "khz"];
/// How far below nominal, percent, a value must be to count as a drop (sampling noise and
/// boost steps of a few MHz are not drops).
pub(crate) const DROP_TOLERANCE_PCT: f64 = 2.0;
/// Drops listed per series, longest first.
pub(crate) const TOP_DROPS: usize = 10;
/// The name prefix of a 0/1 throttle-reason series (`throttle reason sw_power_cap`).
pub(crate) const THROTTLE_REASON_PREFIX: &str = "throttle reason ";

/// One stretch below nominal.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ClockDrop {
    /// Start, ns from the series' first point.
    pub offset_ns: u64,
    /// How long it lasted, ns.
    pub duration_ns: u64,
    /// Lowest value in it.
    pub min_value: f64,
    /// (nominal − lowest) / nominal, percent.
    pub depth_pct: f64,
    /// Throttle reasons of the device active at some time inside it, by name.
    pub reasons: Vec<String>,
}

/// How long one throttle reason was active while a series was below nominal.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReasonTime {
    /// The reason (`sw_power_cap`).
    pub reason: String,
    /// Active time below nominal, ns.
    pub active_ns: u64,
}

/// One counter series, summarised.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeriesDrops {
    /// Counter name.
    pub name: String,
    /// Device, if the source says.
    pub device: Option<u32>,
    /// Unit, if the source says.
    pub unit: Option<String>,
    /// Points in the series.
    pub points: usize,
    /// First to last point, ns.
    pub span_ns: u64,
    /// Lowest value.
    pub min: f64,
    /// Highest value (the nominal of a frequency).
    pub max: f64,
    /// Mean of the points.
    pub mean: f64,
    /// Whether drops were looked for (a frequency-like series).
    pub frequency: bool,
    /// Drops found.
    pub drop_count: usize,
    /// Total time below nominal, ns.
    pub below_nominal_ns: u64,
    /// `below_nominal_ns` over `span_ns`, percent (0 for a zero span).
    pub below_nominal_pct: f64,
    /// The longest drops, longest first.
    pub drops: Vec<ClockDrop>,
    /// Each throttle reason of the device active while below nominal, longest first.
    pub reasons_below_nominal: Vec<ReasonTime>,
}

/// A drop in the source's time (not offset), for analyses that line it up with other data.
#[derive(Debug, Clone, PartialEq)]
pub struct DropSpan {
    /// First point below the line, ns on the source's clock.
    pub start_ns: u64,
    /// The next point at or above it (or the series' last point).
    pub end_ns: u64,
    /// Lowest value in it.
    pub min_value: f64,
}

/// Every counter series of `timeline` with at least one point, in the timeline's order.
pub fn counter_drops(timeline: &Timeline) -> Vec<SeriesDrops> {
    let reasons = throttle_reasons(timeline);
    timeline.counters.iter().filter(|s| !s.points.is_empty()).map(|s| series_drops(timeline, s, &reasons)).collect()
}

/// Whether a counter's name or unit marks it as a frequency (a throttle-reason series, even
/// `applications_clocks_setting`, is not one).
pub(crate) fn is_frequency(name: &str, unit: Option<&str>) -> bool {
    if throttle_reason(name).is_some() {
        return false;
    }
    let name = name.to_ascii_lowercase();
    FREQUENCY_NAME_HINTS.iter().any(|hint| name.contains(hint))
        || unit.is_some_and(|u| FREQUENCY_UNITS.contains(&u.to_ascii_lowercase().as_str()))
}

/// The reason a throttle-reason series stands for, from its name.
pub fn throttle_reason(name: &str) -> Option<&str> {
    name.strip_prefix(THROTTLE_REASON_PREFIX)
}

/// Every throttle-reason series of `timeline`: (device, reason, the times it was active).
pub fn throttle_reasons(timeline: &Timeline) -> Vec<(Option<u32>, String, IntervalSet)> {
    timeline
        .counters
        .iter()
        .filter_map(|s| {
            let reason = throttle_reason(timeline.name(s.name))?;
            Some((s.device, reason.to_owned(), held_where(&s.points, |v| v >= 0.5)))
        })
        .collect()
}

/// The time each point of `points` holds (until the next point) where `keep` says so.
pub(crate) fn held_where(points: &[(u64, f64)], keep: impl Fn(f64) -> bool) -> IntervalSet {
    IntervalSet::from_unsorted(points.windows(2).filter(|w| keep(w[0].1)).map(|w| (w[0].0, w[1].0)).collect())
}

/// The value below which a series with maximum `nominal` counts as dropped.
pub(crate) fn drop_line(nominal: f64) -> f64 {
    nominal * (1.0 - DROP_TOLERANCE_PCT / 100.0)
}

fn series_drops(
    timeline: &Timeline,
    series: &CounterSeries,
    reasons: &[(Option<u32>, String, IntervalSet)],
) -> SeriesDrops {
    let name = timeline.name(series.name).to_owned();
    let unit = series.unit.map(|u| timeline.name(u).to_owned());
    // Series are documented to be in time order; a source that breaks that (found by fuzzing)
    // is sorted here rather than trusted, so offsets never run backwards.
    let sorted: Vec<(u64, f64)>;
    let points = if series.points.windows(2).all(|w| w[0].0 <= w[1].0) {
        &series.points
    } else {
        sorted = {
            let mut copy = series.points.clone();
            copy.sort_by_key(|p| p.0);
            copy
        };
        &sorted
    };
    let first = points.first().map_or(0, |p| p.0);
    let last = points.last().map_or(0, |p| p.0);
    let min = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let max = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let frequency = is_frequency(&name, unit.as_deref());
    let spans = if frequency && max > 0.0 { drop_spans(points, max) } else { Vec::new() };
    let own: Vec<_> = reasons.iter().filter(|(device, _, _)| *device == series.device).collect();
    let below = IntervalSet::from_unsorted(spans.iter().map(|d| (d.start_ns, d.end_ns)).collect());
    let mut reasons_below_nominal: Vec<ReasonTime> = own
        .iter()
        .map(|(_, reason, active)| ReasonTime { reason: reason.clone(), active_ns: active.intersection_ns(&below) })
        .filter(|r| r.active_ns > 0)
        .collect();
    reasons_below_nominal.sort_by(|a, b| b.active_ns.cmp(&a.active_ns).then(a.reason.cmp(&b.reason)));
    let mut drops: Vec<ClockDrop> = spans
        .iter()
        .map(|d| {
            let inside = IntervalSet::from_unsorted(vec![(d.start_ns, d.end_ns)]);
            let mut active: Vec<String> = own
                .iter()
                .filter(|(_, _, set)| set.intersection_ns(&inside) > 0)
                .map(|(_, reason, _)| reason.clone())
                .collect();
            active.sort();
            ClockDrop {
                offset_ns: d.start_ns.saturating_sub(first),
                duration_ns: d.end_ns.saturating_sub(d.start_ns),
                min_value: d.min_value,
                depth_pct: (max - d.min_value) * 100.0 / max,
                reasons: active,
            }
        })
        .collect();
    let below_nominal_ns = drops.iter().map(|d| d.duration_ns).sum();
    let span_ns = last.saturating_sub(first);
    let drop_count = drops.len();
    drops.sort_by(|a, b| b.duration_ns.cmp(&a.duration_ns).then(a.offset_ns.cmp(&b.offset_ns)));
    drops.truncate(TOP_DROPS);
    SeriesDrops {
        name,
        device: series.device,
        unit,
        points: points.len(),
        span_ns,
        min,
        max,
        mean,
        frequency,
        drop_count,
        below_nominal_ns,
        below_nominal_pct: if span_ns == 0 { 0.0 } else { below_nominal_ns as f64 * 100.0 / span_ns as f64 },
        drops,
        reasons_below_nominal,
    }
}

/// The drops of `points` below `nominal`, in time order.
pub(crate) fn drop_spans(points: &[(u64, f64)], nominal: f64) -> Vec<DropSpan> {
    let line = drop_line(nominal);
    let mut drops = Vec::new();
    // (start time, lowest value) of the drop being followed.
    let mut open: Option<(u64, f64)> = None;
    for &(t, value) in points {
        match (open, value < line) {
            (None, true) => open = Some((t, value)),
            (Some((start, low)), true) => open = Some((start, low.min(value))),
            (Some((start, low)), false) => {
                drops.push(DropSpan { start_ns: start, end_ns: t, min_value: low });
                open = None;
            }
            (None, false) => {}
        }
    }
    if let (Some((start, low)), Some(&(end, _))) = (open, points.last()) {
        drops.push(DropSpan { start_ns: start, end_ns: end, min_value: low });
    }
    drops
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(t: &mut Timeline, name: &str, unit: &str, points: &[(u64, f64)]) {
        let name = t.intern(name);
        let unit = t.intern(unit);
        t.counters.push(CounterSeries { name, device: Some(0), unit: Some(unit), points: points.to_vec() });
    }

    #[test]
    fn finds_drops_below_the_maximum_and_times_them() {
        let mut t = Timeline::new("test");
        // 1980 nominal; 1970 is within 2 %; drop 1: [200, 400) down to 1400; drop 2: [500, 600] to end.
        let points = [(100, 1980.0), (200, 1500.0), (300, 1400.0), (400, 1970.0), (500, 345.0), (600, 900.0)];
        series(&mut t, "SM clock", "MHz", &points);
        series(&mut t, "power", "W", &[(100, 700.0), (200, 100.0)]);
        let all = counter_drops(&t);
        let clock = &all[0];
        assert!(clock.frequency);
        assert_eq!((clock.points, clock.span_ns, clock.drop_count, clock.below_nominal_ns), (6, 500, 2, 300));
        assert_eq!(clock.below_nominal_pct, 60.0);
        // longest first: [200,400) 200 ns, then [500,600] 100 ns.
        assert_eq!(
            (clock.drops[0].offset_ns, clock.drops[0].duration_ns, clock.drops[0].min_value),
            (100, 200, 1400.0)
        );
        assert!((clock.drops[0].depth_pct - 580.0 * 100.0 / 1980.0).abs() < 1e-9);
        assert_eq!((clock.drops[1].offset_ns, clock.drops[1].duration_ns, clock.drops[1].min_value), (400, 100, 345.0));
        assert_eq!((clock.min, clock.max), (345.0, 1980.0));
        let power = &all[1];
        assert!(!power.frequency);
        assert_eq!((power.drop_count, power.mean), (0, 400.0));
    }

    #[test]
    fn flat_series_has_no_drop() {
        let mut t = Timeline::new("test");
        series(&mut t, "AI Core Freq", "", &[(0, 1800.0), (700, 1800.0), (1_400, 1800.0)]);
        let all = counter_drops(&t);
        assert!(all[0].frequency);
        assert_eq!((all[0].drop_count, all[0].below_nominal_ns, all[0].min, all[0].max), (0, 0, 1800.0, 1800.0));
        assert!(is_frequency("gpu", Some("MHz")));
        assert!(!is_frequency("HBM bandwidth", Some("GB/s")));
    }

    #[test]
    fn unsorted_points_are_sorted_not_subtracted_past_zero() {
        // Minimised from the fuzz crash: a clock series whose time runs backwards.
        let mut t = Timeline::new("test");
        let name = t.intern("sm_clock_mhz");
        t.counters.push(CounterSeries { name, device: Some(0), unit: None, points: vec![(4_000_000, 10.0), (0, 5.0)] });
        let drops = counter_drops(&t);
        assert_eq!(drops.len(), 1);
        assert_eq!(drops[0].drops.len(), 1);
        assert_eq!(drops[0].drops[0].offset_ns, 0);
    }
}
