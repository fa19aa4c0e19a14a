//! One module per verb.

pub mod analyze;
pub mod analyze_job;
pub mod analyze_ranks;
pub mod analyze_summary;
pub mod breakdown;
pub mod breakdown_prepass;
pub mod breakdown_window;
pub mod deep_dive;
pub mod detect;
pub mod diff;
pub mod exporter;
pub mod profile;
pub mod schema;
pub mod serve;
pub mod top;
pub mod util;
pub mod util_record;

use crate::failure::{Failure, Kind};
use prof_core::{Registry, Vendor};

/// The first vendor whose devices this machine has; without one, a failure that says how to
/// read an existing artifact instead (`instead`, e.g. "an existing artifact").
pub fn present_vendor<'r>(registry: &'r Registry, instead: &str) -> Result<&'r dyn Vendor, Failure> {
    let detections = registry.detect_all();
    let present = detections.iter().find(|d| d.present).ok_or_else(|| {
        let message = format!("no accelerator found (run `prof detect`); to read {instead} use `prof analyze PATH`");
        Failure::new(Kind::ToolMissing, message)
    })?;
    Ok(registry.get(present.vendor).ok_or("detected vendor is not in the registry")?)
}
