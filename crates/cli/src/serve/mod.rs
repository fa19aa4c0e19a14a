//! The pieces of `prof serve` (the verb itself is `commands::serve`): splitting the command
//! strings, the plan, the fail-fast readiness check, the HTTP client and load generator,
//! the session that runs it all under the supervisor, and the report.

pub mod failure;
pub mod health;
pub mod http;
pub mod known;
pub mod load;
pub mod plan;
pub mod profiler_call;
pub mod report;
pub mod server_profiler;
pub mod session;
