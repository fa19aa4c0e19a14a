//! prof backend for NVIDIA accelerators (detection, probe, breakdown, deep dive).

use prof_core::{Detection, Vendor};

/// The NVIDIA backend, registered in the CLI's vendor list.
#[derive(Debug, Default)]
pub struct NvidiaVendor;

impl NvidiaVendor {
    /// The backend with its default tool search paths.
    pub fn new() -> Self {
        Self
    }
}

impl Vendor for NvidiaVendor {
    fn id(&self) -> &'static str {
        "nvidia"
    }

    fn name(&self) -> &'static str {
        "NVIDIA"
    }

    fn detect(&self) -> Detection {
        Detection::new(self.id(), self.name())
    }
}
