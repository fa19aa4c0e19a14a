//! One module per verb.

pub mod detect;
