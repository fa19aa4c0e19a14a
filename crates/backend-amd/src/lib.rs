//! prof backend for AMD accelerators.
//!
//! Detection finds `rocm-smi` and `amd-smi` (on `PATH`, then `/opt/rocm/bin` and
//! `/opt/rocm-*/bin`), the ROCm SMI and AMD SMI libraries (by file; the ROCm SMI one is then
//! loaded at run time for its version, never linked), and the profilers `rocprofv3` and legacy
//! `rocprof`, each with its exact install line. Utilization comes from the ROCm SMI library
//! (`rsmi_lib`) first, then amdgpu sysfs, then the SMI tools.
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

// The public face is the vendor type and its error type: prof reaches everything else through
// `prof_core::Registry` and the traits. Every module is private; `fuzz` hands the single-file
// parsers to the fuzz targets, examples and workspace tests.
mod amd_smi;
mod detect;
mod error;
mod rocm_smi_concise;
mod rocm_smi_json;
mod rocpd;
mod rocprof_bytes;
mod rocprof_csv;
mod rocprof_importers;
mod rocprof_legacy;
mod rocprof_line;
mod rocprof_row;
mod rocprof_stats;
mod rocprof_v1_db;
mod rocprof_v1_json;
mod rocprofv3_counter_report;
mod rocprofv3_counters;
mod rocprofv3_deep_dive;
mod rocprofv3_details;
mod rocprofv3_hip;
mod rocprofv3_json;
mod rocprofv3_parts;
mod rocprofv3_rows;
mod rocprofv3_summary;
mod rocprofv3_tool;
mod rocprofv3_trace;
mod rsmi_lib;
mod smi_probe;
mod smi_sample;
mod sysfs_probe;
mod tools;

#[cfg(test)]
mod test_fixtures;

pub use detect::DetectConfig;
pub use error::AmdError;
pub use tools::SearchPaths;

/// What the fuzz targets (`fuzz/`), the examples and the workspace tests reach past the
/// [`Vendor`] face: the parsers of single files, module by module. Not a stable API.
#[doc(hidden)]
pub mod fuzz {
    pub mod amd_smi {
        pub use crate::amd_smi::*;
    }
    pub mod rocm_smi_concise {
        pub use crate::rocm_smi_concise::*;
    }
    pub mod rocm_smi_json {
        pub use crate::rocm_smi_json::*;
    }
    pub mod rocprof_csv {
        pub use crate::rocprof_csv::*;
    }
    pub mod rocprof_legacy {
        pub use crate::rocprof_legacy::*;
    }
    pub mod rocprof_stats {
        pub use crate::rocprof_stats::*;
    }
    pub mod rocprofv3_counters {
        pub use crate::rocprofv3_counters::*;
    }
    pub mod rocprofv3_trace {
        pub use crate::rocprofv3_trace::*;
    }
    pub mod rsmi_lib {
        pub use crate::rsmi_lib::*;
    }
    pub mod smi_sample {
        pub use crate::smi_sample::*;
    }
}

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

    /// rocprofv3 kernel, copy and HIP API traces ([`rocprofv3_tool::Rocprofv3Tool`]).
    fn breakdown_tools(&self) -> Vec<Box<dyn prof_core::BreakdownTool>> {
        vec![Box::new(rocprofv3_tool::Rocprofv3Tool::with_paths(self.config.paths.clone()))]
    }

    /// Legacy rocprof `results.csv` dispatch tables, `results.json` traces and kernel/copy stats
    /// (totals only); rocprofv3 JSON and rocpd databases.
    fn importers(&self) -> Vec<Box<dyn prof_core::Importer>> {
        vec![
            Box::new(rocprof_importers::RocprofResultsImporter),
            Box::new(rocprof_importers::RocprofV1JsonImporter),
            Box::new(rocprof_importers::RocprofV1DbImporter),
            Box::new(rocprof_importers::KernelStatsImporter),
            Box::new(rocprof_importers::Rocprofv3JsonImporter),
            Box::new(rocprof_importers::RocpdImporter),
        ]
    }

    /// `rocprofv3 --pmc` hardware counters of one kernel ([`rocprofv3_deep_dive::Rocprofv3CounterTool`]).
    fn deep_dive(&self) -> Option<Box<dyn prof_core::DeepDive>> {
        Some(Box::new(rocprofv3_deep_dive::Rocprofv3CounterTool::new().with_search_paths(self.config.paths.clone())))
    }

    /// The ROCm SMI library ([`rsmi_lib::RsmiProbe`]) first; else amdgpu sysfs when a card with
    /// `gpu_busy_percent` exists (no process per sample), else [`smi_probe::AmdSmiProbe`], either
    /// of them noting why the library was not used; `Err` with every reason when none can run.
    fn utilization_probe(&self) -> Option<prof_core::Result<Box<dyn prof_core::UtilizationProbe>>> {
        let library_error = match rsmi_lib::open(&self.config.paths) {
            Ok(probe) => return Some(Ok(Box::new(probe))),
            Err(error) => error,
        };
        let noted = |probe: Box<dyn prof_core::UtilizationProbe>| -> Box<dyn prof_core::UtilizationProbe> {
            Box::new(rsmi_lib::NotedProbe::new(probe, library_error.clone()))
        };
        let root = sysfs_probe::sysfs_root();
        let sysfs_error = match sysfs_probe::SysfsProbe::open(&root) {
            Ok(probe) => return Some(Ok(noted(Box::new(probe)))),
            Err(error) => error,
        };
        let nothing_here = library_error.contains("cannot open shared object file")
            && sysfs_error.to_string().contains("No such file or directory");
        Some(match smi_probe::AmdSmiProbe::open(&self.config.paths) {
            Ok(probe) => Ok(noted(Box::new(probe))),
            // None of the three is on this machine: one sentence, one thing to do.
            Err(prof_core::Error::ToolMissing { install, .. }) if nothing_here => Err(prof_core::Error::ToolMissing {
                tool: "the ROCm SMI library, amdgpu sysfs or rocm-smi/amd-smi".to_owned(),
                install,
            }),
            Err(smi_error) => Err(prof_core::Error::Unsupported(format!(
                "{library_error}; and amdgpu sysfs: {sysfs_error}; and the SMI fallback: {smi_error}"
            ))),
        })
    }
}
