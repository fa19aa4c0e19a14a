//! "Where the wall time went": compute / communication / memory / other / idle share of each
//! device's wall time (core's [`temporal_breakdown`]).

use super::RenderedSection;
use crate::blocks::Blocks;
use crate::render::human_ns;
use prof_core::analysis::temporal::DeviceTemporal;

/// The temporal breakdown, when the timeline has device ops.
pub fn section(devices: &[DeviceTemporal]) -> Option<RenderedSection> {
    if devices.is_empty() {
        return None;
    }
    let mut rows =
        vec![["device", "wall", "compute", "communication", "memory", "other", "idle"].map(String::from).to_vec()];
    for d in devices {
        let cell = |ns: u64| format!("{:.1} %", d.share_pct(ns));
        rows.push(vec![
            d.device.to_string(),
            human_ns(d.wall_ns as f64),
            cell(d.compute_ns),
            cell(d.communication_ns),
            cell(d.memory_ns),
            cell(d.other_ns),
            cell(d.idle_ns),
        ]);
    }
    let text = Blocks::from_table(rows);
    let json = serde_json::to_value(devices).ok()?;
    Some(RenderedSection {
        key: "temporal",
        title: "wall time per device (exclusive: compute > communication > memory > other)".to_owned(),
        text,
        json,
    })
}
