//! prof backend for AMD accelerators (detection, probe, breakdown, deep dive).

use prof_core::{Detection, Vendor};

/// The AMD backend, registered in the CLI's vendor list.
#[derive(Debug, Default)]
pub struct AmdVendor;

impl AmdVendor {
    /// The backend with its default tool search paths.
    pub fn new() -> Self {
        Self
    }
}

impl Vendor for AmdVendor {
    fn id(&self) -> &'static str {
        "amd"
    }

    fn name(&self) -> &'static str {
        "AMD"
    }

    fn detect(&self) -> Detection {
        Detection::new(self.id(), self.name())
    }
}
