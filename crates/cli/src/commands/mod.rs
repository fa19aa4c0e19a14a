//! One module per verb.

pub mod detect;
pub mod util;
