//! prof backend for Huawei Ascend NPUs.
//!
//! Detection finds `npu-smi` (and the DCMI library) from the NPU driver and `msprof` from the
//! CANN toolkit, runs `npu-smi info` under a timeout, and reports devices, the driver version
//! and each tool with its install line. The parsers are pure functions over the tools' text,
//! tested on real recordings: `npu_smi::parse_info` for `npu-smi info`,
//! `common_info::parse_common` for `npu-smi info -t common -i N` (for the utilization probe),
//! `toolkit_info::parse_toolkit_info` for the toolkit's `ascend_toolkit_install.info`.
//!
//! The capabilities: `npu_smi_probe::NpuSmiProbe` samples utilization with those parsers;
//! `msprof_tool::MsprofTool` plans an msprof capture and loads its `PROF_*` directory with
//! `profile_dir`; `importers` read msprof and torch_npu exports, whose trace flow events
//! become correlation ids (`trace_flows`); `ascend_analysis` (with `pipe_bound`) holds the
//! Ascend-only checks of `prof analyze`: compute- or memory-bound per op, static vs dynamic ops.
//! Nothing here has run on Ascend hardware: everything is tested on recorded outputs and
//! profiles, and the tools are driven by fakes that replay them.
//!
//! ```
//! use prof_backend_ascend::AscendVendor;
//! use prof_core::Vendor;
//! // The backend as the registry holds it: what it reads, without any Ascend hardware.
//! let vendor = AscendVendor::new();
//! assert_eq!(vendor.id(), "ascend");
//! let names: Vec<_> = vendor.importers().iter().map(|i| i.name()).collect();
//! assert!(!names.is_empty());
//! ```

// The public face is the vendor type and its error type: prof reaches everything else through
// `prof_core::Registry` and the traits. Every module is private; `fuzz` hands the single-file
// parsers to the fuzz targets, examples and workspace tests.
mod ascend_analysis;
mod ascend_report;
mod common_info;
mod communication;
mod communication_matrix;
use prof_timeline::csv_blocks;
mod csv_parts;
mod csv_table;
mod detect;
mod error;
mod importers;
mod micros;
mod msprof_tool;
mod npu_smi;
mod npu_smi_probe;
mod op_checks;
mod op_columns;
mod op_inputs;
mod op_statistic;
mod op_table;
mod op_table_summary;
mod pipe_bound;
mod profile_dir;
mod step_trace;
mod table;
mod task_type;
#[cfg(test)]
mod test_fixtures;
mod toolkit_info;
mod tools;
mod trace_flows;
mod trace_json;
mod vendor_extras;

pub use error::AscendError;
pub use tools::SearchPaths;

/// What the fuzz targets (`fuzz/`), the examples and the workspace tests reach past the
/// [`Vendor`] face: the parsers of single files, module by module. Not a stable API.
#[doc(hidden)]
pub mod fuzz {
    pub mod common_info {
        pub use crate::common_info::*;
    }
    pub mod communication {
        pub use crate::communication::*;
    }
    pub mod communication_matrix {
        pub use crate::communication_matrix::*;
    }
    pub mod csv_table {
        pub use crate::csv_table::*;
    }
    pub mod npu_smi {
        pub use crate::npu_smi::*;
    }
    pub mod op_statistic {
        pub use crate::op_statistic::*;
    }
    pub mod op_table {
        pub use crate::op_table::*;
    }
    pub mod op_table_summary {
        pub use crate::op_table_summary::*;
    }
    pub mod step_trace {
        pub use crate::step_trace::*;
    }
    pub mod trace_json {
        pub use crate::trace_json::*;
    }
}

use prof_core::{Detection, Importer, Vendor};

/// The Ascend backend, registered in the CLI's vendor list.
#[derive(Debug, Clone)]
pub struct AscendVendor {
    paths: SearchPaths,
}

impl AscendVendor {
    /// The backend with its default tool search paths ([`SearchPaths::from_env`]).
    pub fn new() -> Self {
        Self::with_paths(SearchPaths::from_env())
    }

    /// The backend searching `paths` (for embedding and tests).
    pub fn with_paths(paths: SearchPaths) -> Self {
        Self { paths }
    }
}

impl Default for AscendVendor {
    fn default() -> Self {
        Self::new()
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
        detect::detect(self.id(), self.name(), &self.paths)
    }

    fn importers(&self) -> Vec<Box<dyn Importer>> {
        importers::all()
    }

    /// `npu-smi info` (and `-t common` / `-t usages` where they work) per sample ([`npu_smi_probe::NpuSmiProbe`]).
    fn utilization_probe(&self) -> Option<prof_core::Result<Box<dyn prof_core::UtilizationProbe>>> {
        Some(npu_smi_probe::NpuSmiProbe::open(&self.paths).map(|p| Box::new(p) as Box<dyn prof_core::UtilizationProbe>))
    }

    /// The op checks (compute-bound, static vs dynamic) of an Ascend profile or op table.
    fn sections(&self, path: &std::path::Path) -> Vec<prof_timeline::section::Section> {
        vendor_extras::sections(path)
    }

    /// The job tables of torch_npu and msprof-analyze.
    fn job_tables(&self) -> Option<&dyn prof_core::JobTables> {
        Some(self)
    }

    /// msprof captures loaded as profile directories ([`msprof_tool::MsprofTool`]).
    fn breakdown_tools(&self) -> Vec<Box<dyn prof_core::BreakdownTool>> {
        vec![Box::new(msprof_tool::MsprofTool::with_paths(self.paths.clone()))]
    }
}

/// What torch_npu and msprof-analyze write about a multi-rank job.
impl prof_core::JobTables for AscendVendor {
    /// `communication.json` under or beside the artifact.
    fn communication(&self, path: &std::path::Path) -> Option<prof_core::Result<prof_core::vendor_tables::CommTable>> {
        vendor_extras::communication(path)
    }

    /// `step_trace_time.csv`, `communication.json` and `communication_matrix.json` of a rank.
    fn rank_tables(&self, path: &std::path::Path) -> prof_core::vendor_tables::RankTables {
        vendor_extras::rank_tables(path)
    }

    /// A torch_npu profile directory's `profiler_info_<R>.json`.
    fn rank_of_entry(&self, entry: &std::path::Path) -> Option<u32> {
        vendor_extras::rank_of_entry(entry)
    }

    /// msprof-analyze's `cluster_analysis_output/cluster_step_trace_time.csv`.
    fn cluster_table(&self, path: &std::path::Path) -> Option<prof_core::vendor_tables::ClusterTable> {
        vendor_extras::cluster_table(path)
    }

    fn cluster_splits(
        &self,
        table: &std::path::Path,
    ) -> prof_core::Result<Vec<(u32, prof_core::analysis::ranks::RankSplit)>> {
        vendor_extras::cluster_splits(table)
    }
}
