//! `prof-core`: the vendor-neutral heart of `prof`.
//!
//! It holds the object-safe traits every backend implements ([`Vendor`],
//! [`UtilizationProbe`], [`BreakdownTool`], [`DeepDive`]), the [`Timeline`]
//! model every artifact is loaded into, the [`KernelReport`] of a single-kernel
//! deep dive, the analyses and the diagnosis of a timeline, the door every artifact comes
//! in by, capture plans as data ([`CapturePlan`], run by `prof-capture`), and the
//! tool-discovery helpers backends use to report what is installed. It needs no async runtime.
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

#![warn(missing_docs, unreachable_pub)]

pub mod analysis;
pub mod answer;
pub mod breakdown;
pub mod deepdive;
pub mod diagnosis;
mod door;
pub mod families;
pub mod kernel_summary;
pub mod launcher;
pub mod live;
pub mod op_totals;
pub mod part_buffers;
pub mod phases;
mod probe;
pub mod process_group;
pub mod rank_job;
pub mod rank_summary;
mod recognition;
pub mod recorder;
mod registry;
pub mod report;
pub mod roofline;
pub mod run_plan;
pub mod samples_csv;
pub mod step_runner;
#[doc(hidden)]
pub mod testing;
pub mod tool_cache;
pub mod tools;
pub mod util_csv;
mod util_summary;
pub mod util_ticks;
mod util_verdict;
mod vendor;
pub mod vendor_tables;

pub use breakdown::{
    BreakdownTool, CapturePlan, CaptureRange, CaptureRequest, ExpectedArtifact, Importer, OpTypeTotal, StreamedSummary,
    WindowControl,
};
pub use deepdive::{Bound, DeepDive, DeepDiveRequest, Finding, KernelReport, Limits, Occupancy, Roofline, Severity};
pub use diagnosis::{diagnose, diagnose_with_sequence, Diagnosis, DiagnosisKind, DiagnosisReport};
pub use door::{Certainty, Format, Loaded, Recognition};
pub use families::{Families, Family};
pub use kernel_summary::{summarize_kernels, summarize_kernels_of, DeviceTime, FamilyRow, KernelRow, KernelSummary};
pub use probe::{DeviceSample, ProcessUse, UtilizationProbe};
pub use recorder::{Recorder, RecorderHandle, Recording, SampleCost, SampleErrors, Tick};
pub use registry::Registry;
pub use run_plan::{RunOutcome, RunPlan};
pub use samples_csv::write_csv;
pub use util_summary::{summarize, ActivityMean, DeviceSummary, ProcessPeak, ThrottleShare};
pub use util_verdict::{judge_run, judge_snapshot, FindingKind, UtilFinding, Verdict, VerdictKind};
pub use vendor::{Detection, DeviceInfo, JobTables, ToolKind, ToolStatus, Vendor};

// The model every analysis reads, from the crate that holds it (`prof-timeline`).
pub use prof_timeline::{
    CoreType, CounterSeries, DType, DeviceOp, Error, HostCategory, HostSpan, Interner, NameId, OpDetails, OpInputs,
    OpKind, Result, Timeline,
};
