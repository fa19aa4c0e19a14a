//! `prof-timeline`: the vendor-neutral [`Timeline`] every profiler artifact is loaded into, and
//! the loader kit every reader of prof shares: the [`Interner`] of names, the memory budget of a
//! load ([`load_budget`]), the pool of op details, artifacts read in parts on worker threads
//! ([`text_parts`]), the SIMD classifier of CSV blocks ([`csv_blocks`]) and the one record splitter
//! ([`csv_record`]), what a path looks like
//! ([`sniff`]) and the one [`Error`] type of prof.
//!
//! It names no vendor and runs no process: a program that only reads a trace needs nothing more
//! than this crate, `prof-core` and the backend that reads its format, and no async runtime.
//!
//! ```
//! use prof_timeline::{DeviceOp, OpKind, Timeline};
//! let mut timeline = Timeline::new("example");
//! let name = timeline.intern("gemv_kernel");
//! timeline.push_op(DeviceOp::new(OpKind::Kernel, name, 0, 7, 1_000, 250));
//! assert_eq!(timeline.ops.len(), 1);
//! ```

#![warn(missing_docs, unreachable_pub)]

pub mod bit_masks;
pub mod correlation;
pub mod csv_blocks;
pub mod csv_record;
pub mod details_pool;
mod device_op;
pub mod digits;
mod dur_word;
pub mod error;
pub mod gz_copy;
mod host_span;
pub mod intern;
pub mod intervals;
pub mod launch_index;
pub mod load_budget;
pub mod op_inputs;
mod op_kind;
mod op_label;
mod op_order;
#[doc(hidden)]
pub mod op_place;
#[doc(hidden)]
pub mod run_map;
pub mod section;
pub mod sniff;
mod spill_table;
#[doc(hidden)]
pub mod test_random;
pub mod text_parts;
pub mod timeline;
mod timeline_parts;
pub mod two_threads;
pub mod units;

pub use error::{Error, Result};
pub use intern::{Interner, NameId};
pub use op_inputs::{DType, OpInputs};
pub use timeline::{CoreType, CounterSeries, DeviceOp, HostCategory, HostSpan, OpDetails, OpKind, Timeline};
