//! How sure a reader is that a path is in its format, and why: what every reader answers at
//! the door ([`crate::Registry::recognize`]).

/// How sure a reader is that a path is in its format; the surest reader wins, ties go to the
/// order of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Certainty {
    /// By the file or directory name alone.
    Name,
    /// By content that this format shares with few others (a CSV header, a JSON key).
    Content,
    /// By a signature only this format writes (magic bytes, its own tables or keys).
    Signature,
}

/// Why a reader took a path.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Recognition {
    /// How sure it is.
    pub certainty: Certainty,
    /// What it saw (`SQLite with the nsys export tables`).
    pub reason: String,
}

impl Recognition {
    /// A recognition of `certainty` for `reason`.
    pub fn new(certainty: Certainty, reason: impl Into<String>) -> Self {
        Self { certainty, reason: reason.into() }
    }
}
