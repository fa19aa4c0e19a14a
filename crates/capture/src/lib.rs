//! `prof-capture`: runs what prof's backends plan, the durable way (see DESIGN.md): each step
//! of a [`prof_core::CapturePlan`] under the [`supervisor`] (its own process group, output to a
//! log, a fail-fast window, a time limit, Ctrl-C and SIGTERM forwarded to the group, only that
//! group killed), the [`guard`] that stops what prof started when prof itself dies, the
//! [`capture`] loop that verifies artifacts and always cleans up, a served model's log watched
//! for fatal lines ([`serve_watch`]), and what prof knows of model servers ([`servers`]).
//!
//! It is the only crate of prof with an async runtime (tokio, for the supervisor): reading a
//! trace never needs it.

#![warn(missing_docs, unreachable_pub)]

pub mod capture;
pub mod guard;
pub mod serve_watch;
pub mod servers;
pub mod supervisor;

pub use supervisor::{StopSignals, Supervised};
