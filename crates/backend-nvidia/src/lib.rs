//! prof backend for NVIDIA accelerators: detection, and the nvidia-smi parsers the
//! utilization fallback builds on.
//!
//! Detection looks for nvidia-smi (its `--query-gpu` CSV, with `-q -x` XML as fallback),
//! NVML (`libnvidia-ml.so.1`, loaded at run time), `nsys`, `ncu` and CUPTI, each reported
//! present with its version or absent with the exact install line.
//!
//! ```
//! use prof_backend_nvidia::{parse_detect_query, NvidiaVendor};
//! use prof_core::Vendor;
//! let csv = "index, name, uuid, pci.bus_id, driver_version, memory.total [MiB], compute_cap\n\
//!            0, NVIDIA H200, GPU-b760cc64-42ae-7d9d-86af-076d5fbe517c, 00000000:00:06.0, 580.159.04, 143771 MiB, 9.0\n";
//! let found = parse_detect_query(csv).unwrap();
//! assert_eq!(found.devices[0].memory_total_mib, Some(143771));
//! assert_eq!(NvidiaVendor::new().id(), "nvidia");
//! ```

// The public face is the vendor type and its error type: prof reaches everything else through
// `prof_core::Registry` and the traits. Every module is private; `fuzz` hands the single-file
// parsers to the fuzz targets, examples and workspace tests.
mod copy_names;
mod cupti_tool;
mod cupti_trace;
mod detect;
mod error;
mod ncu_analysis;
mod ncu_csv;
mod ncu_failure;
mod ncu_limits;
mod ncu_pages;
mod ncu_report;
mod ncu_text;
mod ncu_tool;
mod ncu_units;
mod nsys_sqlite;
mod nsys_stats_csv;
mod nsys_tool;
mod nvml_detect;
mod nvml_probe;
mod proton_hatchet;
mod query_csv;
mod reasons;
mod smi_probe;
mod smi_query;
mod smi_xml;
mod tools;
mod torch_importer;
mod torch_trace;
mod values;
mod xplane;

#[cfg(test)]
mod test_fixtures;

pub use error::NvidiaError;
pub use query_csv::{QueryField, QueryRowRef, QueryTable};
pub use reasons::decode_reason_mask;
pub use smi_query::{
    parse_compute_apps, parse_detect_query, parse_sample_query, sample_from_row, ComputeApp, SmiDevices,
};
pub use smi_xml::{parse_smi_xml, SmiGpu, SmiLog};

/// What the fuzz targets (`fuzz/`), the examples and the workspace tests reach past the
/// [`Vendor`] face: the parsers of single files, module by module. Not a stable API.
#[doc(hidden)]
pub mod fuzz {
    pub mod cupti_tool {
        pub use crate::cupti_tool::*;
    }
    pub mod cupti_trace {
        pub use crate::cupti_trace::*;
    }
    pub mod ncu_pages {
        pub use crate::ncu_pages::*;
    }
    pub mod ncu_text {
        pub use crate::ncu_text::*;
    }
    pub mod nvml_probe {
        pub use crate::nvml_probe::*;
    }
    pub mod nsys_sqlite {
        pub use crate::nsys_sqlite::*;
    }
    pub mod nsys_stats_csv {
        pub use crate::nsys_stats_csv::*;
    }
    pub mod torch_trace {
        pub use crate::torch_trace::*;
    }
    pub mod xplane {
        pub use crate::xplane::*;
    }
}

use prof_core::{BreakdownTool, DeepDive, Detection, Error, Importer, Result, UtilizationProbe, Vendor};

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
        detect::detect(self.id(), self.name())
    }

    /// The built-in CUPTI tracer first: it works where nsys cannot finish a report.
    fn breakdown_tools(&self) -> Vec<Box<dyn BreakdownTool>> {
        vec![Box::new(cupti_tool::CuptiTool::new()), Box::new(nsys_tool::NsysTool::new())]
    }

    /// Which rank a Kineto trace is.
    fn job_tables(&self) -> Option<&dyn prof_core::JobTables> {
        Some(self)
    }

    fn importers(&self) -> Vec<Box<dyn Importer>> {
        vec![
            Box::new(torch_importer::TorchTraceImporter),
            Box::new(nsys_tool::NsysExportImporter),
            Box::new(nsys_tool::NsysStatsImporter),
            Box::new(proton_hatchet::ProtonImporter),
            Box::new(xplane::XplaneImporter),
            Box::new(xplane::XlaTraceImporter),
        ]
    }

    fn deep_dive(&self) -> Option<Box<dyn DeepDive>> {
        Some(Box::new(ncu_tool::NcuTool::new()))
    }

    /// NVML first (with GPM on Hopper and newer); where NVML cannot load, `nvidia-smi -q -x`.
    fn utilization_probe(&self) -> Option<Result<Box<dyn UtilizationProbe>>> {
        let nvml_error = match nvml_probe::NvmlProbe::open() {
            Ok(probe) => return Some(Ok(Box::new(probe))),
            Err(error) => error,
        };
        Some(match smi_probe::SmiProbe::open() {
            Ok(probe) => Ok(Box::new(probe) as Box<dyn UtilizationProbe>),
            // Neither is installed: one sentence, one thing to do.
            Err(Error::ToolMissing { install, .. }) if matches!(nvml_error, Error::ToolMissing { .. }) => {
                Err(Error::ToolMissing { tool: "NVML (libnvidia-ml.so.1) or nvidia-smi".to_owned(), install })
            }
            Err(smi_error) => {
                Err(Error::Unsupported(format!("{nvml_error}; and the nvidia-smi fallback: {smi_error}")))
            }
        })
    }
}

/// The rank of a Kineto trace in a job directory.
impl prof_core::JobTables for NvidiaVendor {
    /// A Kineto trace's `distributedInfo.rank` (torch.profiler names its files by host, pid
    /// or worker, not rank).
    fn rank_of_entry(&self, entry: &std::path::Path) -> Option<u32> {
        if !entry.is_file() || !torch_trace::looks_like_torch_trace(entry) {
            return None;
        }
        torch_trace::distributed_rank(entry)
    }
}
