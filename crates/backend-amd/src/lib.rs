//! prof backend for AMD accelerators.
//!
//! Detection finds `rocm-smi` and `amd-smi` (on `PATH`, then `/opt/rocm/bin` and
//! `/opt/rocm-*/bin`), the ROCm SMI and AMD SMI libraries (by file, never loaded or linked),
//! and the profilers `rocprofv3` and legacy `rocprof`, each with its exact install line.
//! Devices and the driver version come from `rocm-smi … --json` (the flag list whose output is
//! recorded), else the plain `rocm-smi` table, else `amd-smi monitor -ptumv`.
//!
//! ```no_run
//! use prof_core::Vendor;
//! let detection = prof_backend_amd::AmdVendor::new().detect();
//! for device in &detection.devices {
//!     println!("{} {}", device.index, device.name);
//! }
//! ```

pub mod amd_smi;
pub mod detect;
pub mod error;
pub mod rocm_smi_concise;
pub mod rocm_smi_json;
pub mod tools;

#[cfg(test)]
mod test_fixtures;

pub use detect::DetectConfig;
pub use error::AmdError;
pub use tools::SearchPaths;

use prof_core::{Detection, Vendor};

/// The AMD backend, registered in the CLI's vendor list.
#[derive(Debug, Clone)]
pub struct AmdVendor {
    config: DetectConfig,
}

impl AmdVendor {
    /// The backend with its default tool search paths (`/opt/rocm`, `/opt/rocm-*`) and SMI timeout.
    pub fn new() -> Self {
        Self::with_config(DetectConfig::rocm_default())
    }

    /// The backend searching `config`'s directories, for installs outside `/opt/rocm`.
    pub fn with_config(config: DetectConfig) -> Self {
        Self { config }
    }
}

impl Default for AmdVendor {
    fn default() -> Self {
        Self::new()
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
        detect::detect(&self.config, self.id(), self.name())
    }
}
