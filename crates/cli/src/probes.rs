//! Opening the vendors' utilization probes, for `prof util`, `prof top` and `prof exporter`.

use crate::failure::{Failure, Kind};
use prof_core::{Registry, UtilizationProbe};

/// Opens the first utilization probe that works, saying why each other one could not.
pub fn open_probe(registry: &Registry, vendor: Option<&str>) -> Result<Box<dyn UtilizationProbe>, Failure> {
    let mut reasons = Vec::new();
    for backend in registry.vendors().iter().filter(|v| vendor.is_none_or(|id| v.id() == id)) {
        match backend.utilization_probe() {
            Some(Ok(probe)) => return Ok(probe),
            Some(Err(error)) => reasons.push(format!("{}: {error}", backend.name())),
            None => reasons.push(format!("{}: no utilization probe in this build", backend.name())),
        }
    }
    if reasons.is_empty() {
        return Err(Failure::new(Kind::Usage, format!("no backend called `{}` in this build", vendor.unwrap_or("?"))));
    }
    let message = format!(
        "no accelerator to sample here: no utilization probe could be opened (to read a recording or a profile \
         instead: prof analyze PATH)\n  {}",
        reasons.join("\n  ")
    );
    let hint = "prof analyze PATH reads a recording (prof util --csv) or a profiler's output without an accelerator";
    Err(Failure { hint: Some(hint.to_owned()), ..Failure::new(Kind::ToolMissing, message) })
}
