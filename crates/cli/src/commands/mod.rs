//! One module per verb.

pub mod analyze;
pub mod breakdown;
pub mod detect;
pub mod util;
