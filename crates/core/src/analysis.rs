//! Timeline analyses written once against the vendor-neutral [`Timeline`](crate::Timeline), so
//! they work unchanged on NVIDIA, AMD and Ascend timelines: where the wall time goes, which
//! stream does what, where the device sits idle and why, what overlaps, how launches behave,
//! how the work repeats, how clocks moved, and how two timelines differ.

pub mod comm;
pub mod counters;
pub mod diff;
pub mod gaps;
pub use prof_timeline::intervals;
pub mod launch;
pub mod layers;
pub(crate) mod main_stream;
pub mod overlap;
pub mod prefix;
pub mod profiler_steps;
pub mod ranks;
pub mod repeats;
pub mod streams;
pub mod temporal;
