//! The "throttled" rule: a device clock held below its nominal value for a real share of the
//! time the device was busy (see the module doc of [`crate::diagnosis`] for the rule).

use super::{finding, pct, Diagnosis, DiagnosisKind, THROTTLED_MIN_SHARE_PCT};
use crate::analysis::counters::{
    drop_line, drop_spans, held_where, is_frequency, throttle_reasons, DROP_TOLERANCE_PCT,
};
use crate::deepdive::Severity;
use crate::util_summary::BUSY_UTIL_PCT;
use prof_timeline::intervals::IntervalSet;
use prof_timeline::timeline::{CounterSeries, Timeline};

/// The series whose points say how busy a device was, when a timeline has no ops on it
/// (prof's util CSV names it so).
pub(crate) const UTILIZATION_SERIES: &str = "GPU utilization";

/// Where a busy span came from.
enum BusySource {
    Ops,
    Utilization,
    Series,
}

/// One frequency series judged against its device's busy span.
struct Judged<'a> {
    series: &'a CounterSeries,
    nominal: f64,
    busy: (u64, u64),
    source: BusySource,
    below: IntervalSet,
    drops: usize,
    lowest: f64,
}

impl Judged<'_> {
    fn share_pct(&self) -> f64 {
        self.below.total_ns() as f64 * 100.0 / (self.busy.1 - self.busy.0) as f64
    }
}

/// The finding, when a frequency-like series is below nominal for at least
/// [`THROTTLED_MIN_SHARE_PCT`] of its device's busy span (the worst such series is reported).
pub(super) fn throttled(timeline: &Timeline) -> Option<Diagnosis> {
    let worst = timeline
        .counters
        .iter()
        .filter(|s| is_frequency(timeline.name(s.name), s.unit.map(|u| timeline.name(u))))
        .filter_map(|s| judge(timeline, s))
        .filter(|j| j.share_pct() >= THROTTLED_MIN_SHARE_PCT)
        .max_by(|a, b| a.share_pct().total_cmp(&b.share_pct()))?;
    let name = timeline.name(worst.series.name);
    let unit = worst.series.unit.map(|u| format!(" {}", timeline.name(u))).unwrap_or_default();
    let device = worst.series.device.map_or_else(|| "the device".to_owned(), |d| format!("device {d}"));
    let (start, end) = worst.busy;
    let origin = worst.series.points.first().map_or(0, |p| p.0);
    let source = match worst.source {
        BusySource::Ops => format!("first to last op on {device}"),
        BusySource::Utilization => format!("{UTILIZATION_SERIES} ≥ {BUSY_UTIL_PCT} %"),
        BusySource::Series => "the whole series (no ops or utilization to say when it was busy)".to_owned(),
    };
    let depth = (worst.nominal - worst.lowest) * 100.0 / worst.nominal;
    let mut evidence = vec![
        format!(
            "{name} ({device}): busy span {} from +{} ({source})",
            duration(end - start),
            duration(start.saturating_sub(origin))
        ),
        format!(
            "{} drop(s) below {:.0}{unit} (nominal {:.0}{unit}, the series' maximum, less {DROP_TOLERANCE_PCT} %)",
            worst.drops,
            drop_line(worst.nominal),
            worst.nominal
        ),
        format!(
            "below nominal {} of the busy span ({} %, flagged from {THROTTLED_MIN_SHARE_PCT} %)",
            duration(worst.below.total_ns()),
            pct(worst.share_pct())
        ),
        format!("lowest {:.0}{unit} vs nominal {:.0}{unit} ({} % below)", worst.lowest, worst.nominal, pct(depth)),
    ];
    evidence.push(reasons_line(timeline, worst.series.device, &worst.below));
    let headline = format!(
        "throttled: {name} of {device} ran below its nominal {:.0}{unit} for {} % of the busy time (down to \
         {:.0}{unit}); kernel times are not representative until the power or thermal limit is addressed",
        worst.nominal,
        pct(worst.share_pct()),
        worst.lowest
    );
    finding(DiagnosisKind::Throttled, Severity::Warning, headline, evidence)
}

/// The series' drops inside its device's busy span; `None` when it has no span or no positive maximum.
fn judge<'a>(timeline: &Timeline, series: &'a CounterSeries) -> Option<Judged<'a>> {
    let points = &series.points;
    let nominal = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    if nominal.is_nan() || nominal <= 0.0 {
        return None;
    }
    let (busy, source) = busy_span(timeline, series)?;
    let line = drop_line(nominal);
    let inside = |(start, end): (u64, u64)| start < busy.1 && end > busy.0;
    let clipped = held_where(points, |v| v < line)
        .spans()
        .iter()
        .filter(|&&span| inside(span))
        .map(|&(start, end)| (start.max(busy.0), end.min(busy.1)))
        .collect();
    let drops = drop_spans(points, nominal).iter().filter(|d| inside((d.start_ns, d.end_ns))).count();
    let lowest = points
        .windows(2)
        .filter(|w| w[0].1 < line && inside((w[0].0, w[1].0)))
        .map(|w| w[0].1)
        .fold(f64::INFINITY, f64::min);
    Some(Judged {
        series,
        nominal,
        busy,
        source,
        below: IntervalSet::from_unsorted(clipped),
        drops,
        lowest: if lowest.is_finite() { lowest } else { nominal },
    })
}

/// When the series' device was busy: its ops' first start to last end; without ops, from its
/// utilization series (first busy point to the end of the last one's hold); else the series'
/// own span. `None` for an empty span.
fn busy_span(timeline: &Timeline, series: &CounterSeries) -> Option<((u64, u64), BusySource)> {
    let on_device = |device: u32| series.device.is_none_or(|d| d == device);
    let ops = timeline.ops.iter().filter(|op| on_device(op.device())).fold(None, |acc: Option<(u64, u64)>, op| {
        Some(acc.map_or((op.start_ns, op.end_ns()), |(lo, hi)| (lo.min(op.start_ns), hi.max(op.end_ns()))))
    });
    let utilization = || {
        let util = timeline
            .counters
            .iter()
            .find(|s| s.device == series.device && timeline.name(s.name) == UTILIZATION_SERIES)?;
        let busy = held_where(&util.points, |v| v >= BUSY_UTIL_PCT);
        busy.bounds()
    };
    let own = || Some((series.points.first()?.0, series.points.last()?.0));
    let (span, source) = match ops {
        Some(span) => (span, BusySource::Ops),
        None => match utilization() {
            Some(span) => (span, BusySource::Utilization),
            None => (own()?, BusySource::Series),
        },
    };
    (span.1 > span.0).then_some((span, source))
}

fn reasons_line(timeline: &Timeline, device: Option<u32>, below: &IntervalSet) -> String {
    let reasons: Vec<_> = throttle_reasons(timeline).into_iter().filter(|(d, _, _)| *d == device).collect();
    if reasons.is_empty() {
        return "throttle reasons: the data has none".to_owned();
    }
    let mut active: Vec<(u64, String)> = reasons
        .iter()
        .map(|(_, reason, set)| (set.intersection_ns(below), reason.clone()))
        .filter(|(ns, _)| *ns > 0)
        .collect();
    if active.is_empty() {
        return "throttle reasons while below nominal: none was active".to_owned();
    }
    active.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let total = below.total_ns().max(1) as f64;
    let listed: Vec<String> = active
        .iter()
        .map(|(ns, reason)| format!("{reason} {} ({} %)", duration(*ns), pct(*ns as f64 * 100.0 / total)))
        .collect();
    format!("throttle reasons while below nominal: {}", listed.join(", "))
}

/// A duration in the largest unit that keeps it at least 1, to three decimals.
fn duration(ns: u64) -> String {
    let ns = ns as f64;
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} µs", ns / 1e3)
    } else {
        format!("{ns} ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::counters::THROTTLE_REASON_PREFIX;
    use prof_timeline::timeline::{DeviceOp, OpKind};

    fn series(t: &mut Timeline, name: &str, device: u32, unit: &str, points: &[(u64, f64)]) {
        let (name, unit) = (t.intern(name), t.intern(unit));
        t.counters.push(CounterSeries { name, device: Some(device), unit: Some(unit), points: points.to_vec() });
    }

    /// One kernel on device 0 from 1 000 to 11 000 ns: a 10 000 ns busy span.
    fn busy_timeline() -> Timeline {
        let mut t = Timeline::new("test");
        let name = t.intern("gemm");
        t.push_op(DeviceOp::new(OpKind::Kernel, name, 0, 7, 1_000, 10_000));
        t
    }

    #[test]
    fn a_clock_below_nominal_for_a_fifth_of_the_busy_span_is_throttled() {
        let mut t = busy_timeline();
        // below the 1940.4 line over [2000, 4000): 2000 of 10 000 ns = 20 %, lowest 1500.
        let clock = [(0, 1980.0), (2_000, 1600.0), (3_000, 1500.0), (4_000, 1970.0), (12_000, 1980.0)];
        series(&mut t, "SM clock", 0, "MHz", &clock);
        let cap = format!("{THROTTLE_REASON_PREFIX}sw_power_cap");
        series(&mut t, &cap, 0, "", &[(0, 0.0), (2_500, 1.0), (3_500, 0.0), (12_000, 0.0)]);
        let found = throttled(&t).expect("throttled");
        assert_eq!((found.kind, found.severity), (DiagnosisKind::Throttled, Severity::Warning));
        assert!(found.headline.contains("20.0 % of the busy time"), "{}", found.headline);
        let evidence = found.evidence.join("\n");
        for line in [
            "busy span 10.000 µs from +1.000 µs (first to last op on device 0)",
            "1 drop(s) below 1940 MHz",
            "(20.0 %, flagged from 10 %)",
            "lowest 1500 MHz vs nominal 1980 MHz (24.2 % below)",
            // active [2500, 3500) of the 2000 ns below nominal: 1000 ns, 50 %
            "sw_power_cap 1.000 µs (50.0 %)",
        ] {
            assert!(evidence.contains(line), "{line:?} not in {evidence}");
        }
    }

    #[test]
    fn short_dips_and_idle_down_clocking_outside_the_busy_span_are_not() {
        let mut t = busy_timeline();
        // [2000, 2900): 9 % of the busy span.
        series(&mut t, "SM clock", 0, "MHz", &[(0, 1980.0), (2_000, 1500.0), (2_900, 1980.0), (12_000, 1980.0)]);
        assert!(throttled(&t).is_none());
        let mut t = busy_timeline();
        // Low before 1000 and after 11 000 only: idle, outside the span.
        series(&mut t, "AI Core Freq", 0, "MHz", &[(0, 800.0), (1_000, 1800.0), (11_000, 800.0), (20_000, 800.0)]);
        assert!(throttled(&t).is_none());
        let mut t = busy_timeline();
        series(&mut t, "AI Core Freq", 0, "", &[(0, 1800.0), (5_000, 1800.0), (12_000, 1800.0)]);
        assert!(throttled(&t).is_none());
    }

    #[test]
    fn without_ops_the_utilization_series_gives_the_busy_span() {
        let mut t = Timeline::new("util");
        // busy (≥ 5 %) from 100 to 400 (the hold of the sample at 300); the clock is low
        // in [0, 100) (idle) and [300, 400): 100 of 300 = 33.3 %.
        series(&mut t, UTILIZATION_SERIES, 0, "%", &[(0, 0.0), (100, 100.0), (300, 90.0), (400, 0.0), (500, 0.0)]);
        series(&mut t, "SM clock", 0, "MHz", &[(0, 600.0), (100, 1980.0), (300, 1400.0), (400, 1980.0), (500, 700.0)]);
        let found = throttled(&t).expect("throttled");
        let evidence = found.evidence.join("\n");
        assert!(evidence.contains("(GPU utilization ≥ 5 %)"), "{evidence}");
        assert!(evidence.contains("(33.3 %, flagged"), "{evidence}");
        assert!(evidence.contains("lowest 1400 MHz"), "{evidence}");
        assert!(evidence.contains("throttle reasons: the data has none"), "{evidence}");
        // A clock of another device with no ops and no utilization is judged over its own span.
        let mut t = busy_timeline();
        series(&mut t, "SM clock", 1, "MHz", &[(0, 1980.0), (100, 990.0), (200, 1980.0), (1_000, 1980.0)]);
        let found = throttled(&t).expect("throttled");
        assert!(found.evidence[0].contains("the whole series"), "{:?}", found.evidence);
        assert!(found.evidence[2].contains("(10.0 %"), "{:?}", found.evidence);
    }

    #[test]
    fn a_throttle_reason_that_names_clocks_is_not_a_clock() {
        let mut t = busy_timeline();
        let name = format!("{THROTTLE_REASON_PREFIX}applications_clocks_setting");
        series(&mut t, &name, 0, "", &[(0, 1.0), (2_000, 0.0), (12_000, 0.0)]);
        assert!(throttled(&t).is_none());
    }

    #[test]
    fn diagnose_runs_the_rule() {
        let mut t = busy_timeline();
        series(&mut t, "SM clock", 0, "MHz", &[(0, 1980.0), (1_000, 1500.0), (12_000, 1500.0)]);
        let summary = crate::kernel_summary::summarize_kernels(&t, &crate::families::Families::builtin());
        let report = crate::diagnosis::diagnose(&t, &summary);
        assert!(report.get(DiagnosisKind::Throttled).is_some(), "{report:?}");
    }
}
