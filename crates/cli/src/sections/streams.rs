//! "Which stream does what": per device, each stream's role (main, communication, memory,
//! side), ops, busy time and share of the device's busy time (core's [`stream_roles`]).

use super::RenderedSection;
use crate::blocks::Blocks;
use crate::render::human_ns;
use prof_core::analysis::streams::{DeviceStreams, StreamRole};
use prof_core::analysis::temporal::Activity;

/// The stream roles, when some device has more than one stream.
pub fn section(devices: &[DeviceStreams]) -> Option<RenderedSection> {
    if !devices.iter().any(|d| d.streams.len() > 1) {
        return None;
    }
    let mut rows =
        vec![["device", "stream", "role", "ops", "busy", "of device busy", "mostly"].map(String::from).to_vec()];
    for d in devices {
        for s in &d.streams {
            rows.push(vec![
                d.device.to_string(),
                crate::render::stream_label(s.stream),
                role(s.role).to_owned(),
                s.ops.to_string(),
                human_ns(s.busy_ns as f64),
                format!("{:.1} %", s.share_of_device_busy_pct),
                activity(s.dominant).to_owned(),
            ]);
        }
    }
    let json = serde_json::to_value(devices).ok()?;
    Some(RenderedSection {
        key: "streams",
        title: "streams per device (main = most ops)".to_owned(),
        text: Blocks::from_table(rows),
        json,
    })
}

fn role(role: StreamRole) -> &'static str {
    match role {
        StreamRole::Main => "main",
        StreamRole::Communication => "communication",
        StreamRole::Memory => "memory",
        StreamRole::Side => "side",
    }
}

fn activity(activity: Activity) -> &'static str {
    match activity {
        Activity::Compute => "compute",
        Activity::Communication => "communication",
        Activity::Memory => "memory",
        Activity::Other => "other",
    }
}
