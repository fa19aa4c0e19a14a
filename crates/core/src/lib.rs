//! `prof-core`: the vendor-neutral heart of `prof`.
//!
//! It holds the object-safe traits every backend implements ([`Vendor`],
//! [`UtilizationProbe`], [`BreakdownTool`], [`DeepDive`]), the [`Timeline`]
//! model every artifact is loaded into, the [`KernelReport`] of a single-kernel
//! deep dive, the process [`supervisor`] that runs every capture plan, and the
//! tool-discovery helpers backends use to report what is installed.
//!
//! The core never names a vendor: backends depend on it, not the other way round.
//!
//! ```
//! use prof_core::{Registry, Timeline, OpKind};
//! let registry = Registry::new(Vec::new());
//! assert!(registry.detect_all().is_empty());
//! let mut timeline = Timeline::new("example");
//! let name = timeline.intern("gemv_kernel");
//! timeline.push_op(prof_core::DeviceOp::new(OpKind::Kernel, name, 0, 7, 1_000, 250));
//! assert_eq!(timeline.ops.len(), 1);
//! ```

pub mod analysis;
pub mod answer;
pub mod bit_masks;
pub mod breakdown;
pub mod capture;
pub mod correlation;
pub mod csv_blocks;
pub mod deepdive;
pub mod details_pool;
mod device_op;
pub mod diagnosis;
pub mod digits;
pub mod door;
mod dur_word;
pub mod error;
pub mod families;
pub mod guard;
pub mod gz_copy;
pub mod intern;
pub mod kernel_summary;
pub mod launch_index;
pub mod load_budget;
mod op_label;
mod op_order;
mod op_place;
pub mod op_totals;
pub mod part_buffers;
pub mod phases;
pub mod probe;
pub mod rank_job;
pub mod recorder;
pub mod registry;
mod run_map;
pub mod run_plan;
pub mod samples_csv;
pub mod section;
pub mod serve_watch;
pub mod servers;
pub mod sniff;
mod spill_table;
pub mod supervisor;
#[cfg(test)]
mod test_random;
pub mod text_parts;
pub mod timeline;
mod timeline_parts;
pub mod tool_cache;
pub mod tools;
pub mod two_threads;
pub mod units;
pub mod util_csv;
pub mod util_summary;
pub mod util_ticks;
pub mod util_verdict;
pub mod vendor;
pub mod vendor_tables;

pub use breakdown::{
    BreakdownTool, CapturePlan, CaptureRange, CaptureRequest, ExpectedArtifact, Importer, OpTypeTotal, StreamedSummary,
    WindowControl,
};
pub use deepdive::{Bound, DeepDive, DeepDiveRequest, Finding, KernelReport, Limits, Occupancy, Roofline, Severity};
pub use diagnosis::{diagnose, diagnose_with_sequence, Diagnosis, DiagnosisKind, DiagnosisReport};
pub use door::{Certainty, Format, Loaded, Recognition};
pub use error::{Error, Result};
pub use families::{Families, Family};
pub use intern::{Interner, NameId};
pub use kernel_summary::{summarize_kernels, summarize_kernels_of, DeviceTime, FamilyRow, KernelRow, KernelSummary};
pub use probe::{DeviceSample, ProcessUse, UtilizationProbe};
pub use recorder::{Recorder, RecorderHandle, Recording, SampleCost, SampleErrors, Tick};
pub use registry::Registry;
pub use samples_csv::write_csv;
pub use supervisor::{RunOutcome, RunPlan};
pub use timeline::{CoreType, CounterSeries, DeviceOp, HostCategory, HostSpan, OpDetails, OpKind, Timeline};
pub use util_summary::{summarize, ActivityMean, DeviceSummary, ProcessPeak, ThrottleShare};
pub use util_verdict::{judge_run, judge_snapshot, FindingKind, UtilFinding, Verdict, VerdictKind};
pub use vendor::{Detection, DeviceInfo, ToolKind, ToolStatus, Vendor};
