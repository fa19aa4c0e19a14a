//! "What ran hidden under what": per device, the share of communication time that overlapped
//! compute and the share of cube time that overlapped vector work (core's [`overlaps`]).

use super::RenderedSection;
use crate::blocks::Blocks;
use crate::render::human_ns;
use prof_core::analysis::overlap::{DeviceOverlap, PairOverlap};

/// The overlaps, when some device ran both compute and communication, or cube and vector ops.
pub fn section(devices: &[DeviceOverlap]) -> Option<RenderedSection> {
    if devices.is_empty() {
        return None;
    }
    let mut rows = vec![["device", "pair", "covered", "by", "overlap", "hidden"].map(String::from).to_vec()];
    let mut row = |device: u32, pair: &str, p: &PairOverlap| {
        rows.push(vec![
            device.to_string(),
            pair.to_owned(),
            human_ns(p.covered_ns as f64),
            human_ns(p.cover_ns as f64),
            human_ns(p.overlap_ns as f64),
            format!("{:.1} %", p.hidden_pct),
        ]);
    };
    for d in devices {
        if let Some(p) = &d.compute_communication {
            row(d.device, "communication under compute", p);
        }
        if let Some(p) = &d.cube_vector {
            row(d.device, "cube under vector", p);
        }
    }
    let json = serde_json::to_value(devices).ok()?;
    Some(RenderedSection {
        key: "overlap",
        title: "overlap (share of the covered time that ran under the other)".to_owned(),
        text: Blocks::from_table(rows),
        json,
    })
}
