//! "Clocks": each counter series summarised, and the drops of frequency-like ones below their
//! nominal (maximum) value with the throttle reasons active in each (core's [`counter_drops`]).
//! A throttle-reason series (0/1) is shown as the share of its samples where it was active.

use super::RenderedSection;
use crate::blocks::Blocks;
use crate::render::human_ns;
use prof_core::analysis::counters::{throttle_reason, SeriesDrops};

/// The counter section, when the timeline has counter series.
pub fn section(series: &[SeriesDrops]) -> Option<RenderedSection> {
    if series.is_empty() {
        return None;
    }
    let mut rows = vec![["counter", "device", "points", "min", "max", "mean", "below nominal", "drops"]
        .map(String::from)
        .to_vec()];
    for s in series {
        let unit = s.unit.as_deref().map(|u| format!(" {u}")).unwrap_or_default();
        let value = |v: f64| format!("{v:.0}{unit}");
        if throttle_reason(&s.name).is_some() {
            let device = s.device.map_or_else(|| "-".to_owned(), |d| d.to_string());
            let active = format!("active in {:.1} % of samples", s.mean * 100.0);
            let dash = || "-".to_owned();
            rows.push(vec![s.name.clone(), device, s.points.to_string(), dash(), dash(), active, dash(), dash()]);
            continue;
        }
        let below = if s.frequency {
            format!("{} ({:.1} %)", human_ns(s.below_nominal_ns as f64), s.below_nominal_pct)
        } else {
            "-".to_owned()
        };
        rows.push(vec![
            s.name.clone(),
            s.device.map_or_else(|| "-".to_owned(), |d| d.to_string()),
            s.points.to_string(),
            value(s.min),
            value(s.max),
            value(s.mean),
            below,
            if s.frequency { s.drop_count.to_string() } else { "-".to_owned() },
        ]);
    }
    let mut text = Blocks::default();
    text.push_table(rows);
    for s in series.iter().filter(|s| s.frequency) {
        if s.drops.is_empty() {
            text.push_str(&format!(
                "{}: no drop below its nominal {:.0} over {}\n",
                s.name,
                s.max,
                human_ns(s.span_ns as f64)
            ));
            continue;
        }
        text.push_str(&format!("{}: longest drops below the nominal {:.0}\n", s.name, s.max));
        let mut drop_rows = vec![["  at", "length", "lowest", "depth", "throttle reasons"].map(String::from).to_vec()];
        for d in &s.drops {
            drop_rows.push(vec![
                format!("  +{}", human_ns(d.offset_ns as f64)),
                human_ns(d.duration_ns as f64),
                format!("{:.0}", d.min_value),
                format!("{:.1} %", d.depth_pct),
                if d.reasons.is_empty() { "-".to_owned() } else { d.reasons.join(", ") },
            ]);
        }
        text.push_table(drop_rows);
        if !s.reasons_below_nominal.is_empty() {
            let listed: Vec<String> = s
                .reasons_below_nominal
                .iter()
                .map(|r| format!("{} {}", r.reason, human_ns(r.active_ns as f64)))
                .collect();
            text.push_str(&format!(
                "{}: {} drops, {} below nominal in all; throttle reasons meanwhile: {}\n",
                s.name,
                s.drop_count,
                human_ns(s.below_nominal_ns as f64),
                listed.join(", ")
            ));
        }
    }
    let json = serde_json::to_value(series).ok()?;
    Some(RenderedSection {
        key: "counters",
        title: "counters and clock drops (nominal = the series' maximum)".to_owned(),
        text,
        json,
    })
}
