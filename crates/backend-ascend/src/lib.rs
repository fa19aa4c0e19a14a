//! prof backend for Ascend accelerators (detection, probe, breakdown, deep dive).

use prof_core::{Detection, Vendor};

/// The Ascend backend, registered in the CLI's vendor list.
#[derive(Debug, Default)]
pub struct AscendVendor;

impl AscendVendor {
    /// The backend with its default tool search paths.
    pub fn new() -> Self {
        Self
    }
}

impl Vendor for AscendVendor {
    fn id(&self) -> &'static str {
        "ascend"
    }

    fn name(&self) -> &'static str {
        "Ascend"
    }

    fn detect(&self) -> Detection {
        Detection::new(self.id(), self.name())
    }
}
