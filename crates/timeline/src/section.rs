//! What a backend knows about an artifact beyond its timeline (Ascend's compute-bound and
//! static/dynamic op checks, a vendor's communication tables), as data the CLI renders like
//! any other analysis: a titled [`Section`] of lines, an optional table and notes, with the
//! same facts as JSON. Numbers stay numbers ([`Cell`]); the CLI chooses their units, so a
//! vendor's section reads like the rest of the report.

use serde::Serialize;

/// One value in a section's line or table; the renderer formats it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// Words, shown as they are.
    Text(String),
    /// A name that may be shortened to fit a column.
    Name(String),
    /// A count.
    Count(u64),
    /// A duration in nanoseconds (shown scaled: `3.21 ms`).
    Ns(u64),
    /// A percentage (shown `40.1 %`).
    Pct(f64),
    /// No value (`-`).
    Missing,
}

impl Cell {
    /// [`Cell::Text`] of `text`.
    pub fn text(text: impl Into<String>) -> Self {
        Cell::Text(text.into())
    }
}

/// A line of a section: its cells, written one after the other.
pub type Line = Vec<Cell>;

/// A table: a header and rows of cells.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Table {
    /// Column titles.
    pub header: Vec<String>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<Cell>>,
}

/// A vendor analysis, rendered by the CLI under its title.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Section {
    /// Key in the JSON `analyses` object (`ascend`).
    pub key: &'static str,
    /// Heading of the text block.
    pub title: String,
    /// Lines before the table.
    pub lines: Vec<Line>,
    /// The table, when there is one.
    pub table: Option<Table>,
    /// Lines after the table.
    pub after: Vec<Line>,
    /// What was skipped or could not be read, and why.
    pub notes: Vec<String>,
    /// The same facts for `--json`.
    #[serde(skip)]
    pub json: serde_json::Value,
}

impl Section {
    /// An empty section with `key`, `title` and `json`.
    pub fn new(key: &'static str, title: impl Into<String>, json: serde_json::Value) -> Self {
        Self { key, title: title.into(), lines: Vec::new(), table: None, after: Vec::new(), notes: Vec::new(), json }
    }

    /// A section that says only why it was skipped.
    pub fn skipped(key: &'static str, title: impl Into<String>, why: impl Into<String>) -> Self {
        let why = why.into();
        let mut section = Self::new(key, title, serde_json::json!({ "skipped": why }));
        section.lines.push(vec![Cell::text(format!("skipped: {why}"))]);
        section
    }
}
