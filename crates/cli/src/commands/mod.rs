//! One module per verb.

pub mod analyze;
pub mod breakdown;
pub mod deep_dive;
pub mod detect;
pub mod util;
