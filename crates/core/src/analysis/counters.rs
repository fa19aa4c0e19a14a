//! Clock / frequency drops in counter series: when a frequency-like counter (Ascend's
//! `AI Core Freq` in MHz, an SM clock) fell below its nominal value, for how long and how
//! deep, and the total time below it. A drop explains kernels that ran slower than usual
//! (power cap, thermal limit, idle down-clocking).
//!
//! Rules, per series:
//! - a series is **frequency-like** when its name holds one of [`FREQUENCY_NAME_HINTS`] or
//!   its unit is one of [`FREQUENCY_UNITS`] (case-insensitive); other series are summarised
//!   only (points, min, max, mean);
//! - its **nominal** value is its maximum (the sources give no separate nominal clock);
//! - each point's value holds until the next point (sample and hold); the last point holds
//!   for no time;
//! - a **drop** is a maximal run of points below nominal × (1 − [`DROP_TOLERANCE_PCT`] / 100):
//!   it starts at its first point and lasts until the next point at or above that line (or
//!   the series' last point); its **depth** is (nominal − lowest value) / nominal;
//! - the [`TOP_DROPS`] longest drops are listed, all are counted and timed.
//!
//! [`read_util_csv_clocks`] turns prof's own `prof util --csv` recording into such series, so a
//! recording under a power cap shows its clock drops the same way.

use crate::error::{Error, Result};
use crate::samples_csv::CSV_COLUMNS;
use crate::timeline::{CounterSeries, Timeline};
use serde::Serialize;
use std::path::Path;

/// Words in a counter's name that mark it as a clock or frequency.
pub const FREQUENCY_NAME_HINTS: [&str; 3] = ["freq", "clock", "clk"];
/// Units that mark a counter as a frequency.
pub const FREQUENCY_UNITS: [&str; 3] = ["mhz", "ghz", "khz"];
/// How far below nominal, percent, a value must be to count as a drop (sampling noise and
/// boost steps of a few MHz are not drops).
pub const DROP_TOLERANCE_PCT: f64 = 2.0;
/// Drops listed per series, longest first.
pub const TOP_DROPS: usize = 10;

/// One stretch below nominal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClockDrop {
    /// Start, ns from the series' first point.
    pub offset_ns: u64,
    /// How long it lasted, ns.
    pub duration_ns: u64,
    /// Lowest value in it.
    pub min_value: f64,
    /// (nominal − lowest) / nominal, percent.
    pub depth_pct: f64,
}

/// One counter series, summarised.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// Every counter series of `timeline` with at least one point, in the timeline's order.
pub fn counter_drops(timeline: &Timeline) -> Vec<SeriesDrops> {
    timeline.counters.iter().filter(|s| !s.points.is_empty()).map(|s| series_drops(timeline, s)).collect()
}

/// Whether a counter's name or unit marks it as a frequency.
pub fn is_frequency(name: &str, unit: Option<&str>) -> bool {
    let name = name.to_ascii_lowercase();
    FREQUENCY_NAME_HINTS.iter().any(|hint| name.contains(hint))
        || unit.is_some_and(|u| FREQUENCY_UNITS.contains(&u.to_ascii_lowercase().as_str()))
}

fn series_drops(timeline: &Timeline, series: &CounterSeries) -> SeriesDrops {
    let name = timeline.name(series.name).to_owned();
    let unit = series.unit.map(|u| timeline.name(u).to_owned());
    let points = &series.points;
    let first = points.first().map_or(0, |p| p.0);
    let last = points.last().map_or(0, |p| p.0);
    let min = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let max = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let frequency = is_frequency(&name, unit.as_deref());
    let mut drops = if frequency && max > 0.0 { find_drops(points, max) } else { Vec::new() };
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
    }
}

/// The drops of `points` below `nominal`, in time order.
fn find_drops(points: &[(u64, f64)], nominal: f64) -> Vec<ClockDrop> {
    let line = nominal * (1.0 - DROP_TOLERANCE_PCT / 100.0);
    let origin = points[0].0;
    let mut drops = Vec::new();
    // (start time, lowest value) of the drop being followed.
    let mut open: Option<(u64, f64)> = None;
    for &(t, value) in points {
        match (open, value < line) {
            (None, true) => open = Some((t, value)),
            (Some((start, low)), true) => open = Some((start, low.min(value))),
            (Some((start, low)), false) => {
                drops.push(drop_of(origin, start, t, low, nominal));
                open = None;
            }
            (None, false) => {}
        }
    }
    if let (Some((start, low)), Some(&(end, _))) = (open, points.last()) {
        drops.push(drop_of(origin, start, end, low, nominal));
    }
    drops
}

fn drop_of(origin: u64, start: u64, end: u64, low: f64, nominal: f64) -> ClockDrop {
    ClockDrop {
        offset_ns: start - origin,
        duration_ns: end.saturating_sub(start),
        min_value: low,
        depth_pct: (nominal - low) * 100.0 / nominal,
    }
}

/// The clock columns of a `prof util --csv` recording and the series names they become.
pub const UTIL_CSV_CLOCKS: [(&str, &str); 2] = [("sm_clock_mhz", "SM clock"), ("mem_clock_mhz", "memory clock")];

/// The clocks of a `prof util --csv` recording ([`crate::samples_csv`]) as a timeline of
/// counter series, one per (clock, device), in MHz, at `t_ms` since the recording started.
/// Empty cells (a value the probe did not report) are skipped. The columns read all come
/// before the first column that may be quoted, so a plain split of each line is exact.
pub fn read_util_csv_clocks(text: &str, path: &Path) -> Result<Timeline> {
    let bad = |line: usize, reason: String| Error::Artifact { path: path.to_owned(), line, reason };
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    if header.len() < CSV_COLUMNS.len() || header[..CSV_COLUMNS.len()] != CSV_COLUMNS {
        return Err(bad(1, format!("not a prof util CSV: the header must start {}", CSV_COLUMNS.join(","))));
    }
    let column = |name: &str| header.iter().position(|c| *c == name).unwrap_or(0);
    let (t_col, device_col) = (column("t_ms"), column("device"));
    let mut timeline = Timeline::new(path.display().to_string());
    let unit = timeline.intern("MHz");
    let names: Vec<_> = UTIL_CSV_CLOCKS.iter().map(|(_, series)| timeline.intern(series)).collect();
    // (clock index, device) → index in timeline.counters
    let mut series_of: Vec<((usize, u32), usize)> = Vec::new();
    for (number, line) in lines.enumerate().map(|(i, l)| (i + 2, l)).filter(|(_, l)| !l.is_empty()) {
        let cells: Vec<&str> = line.split(',').collect();
        let cell =
            |col: usize| cells.get(col).copied().ok_or_else(|| bad(number, format!("missing column {}", header[col])));
        let t_ms: f64 =
            cell(t_col)?.parse().map_err(|_| bad(number, format!("t_ms {:?} is not a number", cells[t_col])))?;
        let device: u32 = cell(device_col)?.parse().map_err(|_| bad(number, "device is not an index".to_owned()))?;
        if !(t_ms.is_finite() && t_ms >= 0.0) {
            return Err(bad(number, format!("t_ms {t_ms} is not a time")));
        }
        for (clock, (col_name, _)) in UTIL_CSV_CLOCKS.iter().enumerate() {
            let raw = cell(column(col_name))?;
            if raw.is_empty() {
                continue;
            }
            let mhz: f64 = raw.parse().map_err(|_| bad(number, format!("{col_name} {raw:?} is not a number")))?;
            let index = match series_of.iter().find(|(key, _)| *key == (clock, device)) {
                Some(&(_, index)) => index,
                None => {
                    let series = CounterSeries {
                        name: names[clock],
                        device: Some(device),
                        unit: Some(unit),
                        points: Vec::new(),
                    };
                    timeline.counters.push(series);
                    series_of.push(((clock, device), timeline.counters.len() - 1));
                    timeline.counters.len() - 1
                }
            };
            timeline.counters[index].points.push(((t_ms * 1e6).round() as u64, mhz));
        }
    }
    Ok(timeline)
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
    fn util_csv_clocks_round_trip_through_the_writer() {
        use crate::probe::DeviceSample;
        use crate::recorder::Tick;
        // SM clock 1980, 1980, 345, 1500, 1980 at 0, 100, 200, 300, 400 ms; memory clock flat 3201.
        let ticks: Vec<Tick> = [1980u32, 1980, 345, 1500, 1980]
            .iter()
            .enumerate()
            .map(|(i, &sm)| Tick {
                t_ns: i as u64 * 100_000_000,
                samples: vec![DeviceSample {
                    device: 0,
                    sm_clock_mhz: Some(sm),
                    mem_clock_mhz: Some(3201),
                    throttle_reasons: Some(vec!["sw_power_cap".into(), "gpu_idle".into()]),
                    ..Default::default()
                }],
            })
            .collect();
        let mut csv = Vec::new();
        crate::samples_csv::write_csv(&ticks, &mut csv).unwrap();
        let text = String::from_utf8(csv).unwrap();
        let t = read_util_csv_clocks(&text, Path::new("util.csv")).unwrap();
        let all = counter_drops(&t);
        assert_eq!(all.len(), 2);
        let sm = &all[0];
        assert_eq!((sm.name.as_str(), sm.unit.as_deref(), sm.points), ("SM clock", Some("MHz"), 5));
        // one drop from 200 ms to 400 ms, down to 345: depth (1980 − 345) / 1980.
        assert_eq!((sm.drop_count, sm.below_nominal_ns, sm.drops[0].offset_ns), (1, 200_000_000, 200_000_000));
        assert!((sm.drops[0].depth_pct - 1635.0 * 100.0 / 1980.0).abs() < 1e-9);
        assert_eq!((all[1].name.as_str(), all[1].drop_count), ("memory clock", 0));
        let err = read_util_csv_clocks("a,b\n1,2\n", Path::new("x.csv")).unwrap_err().to_string();
        assert!(err.starts_with("x.csv:1: not a prof util CSV"), "{err}");
        let bad = text.replacen("\n100,", "\nsoon,", 1);
        let err = read_util_csv_clocks(&bad, Path::new("x.csv")).unwrap_err().to_string();
        assert!(err.starts_with("x.csv:3: t_ms"), "{err}");
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
}
