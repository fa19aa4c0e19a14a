//! One module per verb.

pub mod analyze;
pub mod analyze_ranks;
pub mod analyze_summary;
pub mod breakdown;
pub mod deep_dive;
pub mod detect;
pub mod diff;
pub mod profile;
pub mod schema;
pub mod serve;
pub mod util;
pub mod util_record;
