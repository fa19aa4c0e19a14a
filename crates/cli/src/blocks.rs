//! A text report as typed blocks (running text and tables): written as text by
//! [`Blocks::text`], drawn as HTML from the same blocks by `html_report::blocks_html`.

use crate::render::table;

/// A text report as typed blocks: running text and tables. Its text is the blocks written one
/// after the other ([`Blocks::text`], tables by [`table`]); the HTML page is built from the same
/// blocks ([`crate::html_report`]), never by splitting the text again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Blocks(Vec<Block>);

/// One block of a [`Blocks`].
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Running text, one or more lines, as written.
    Text(String),
    /// A table: its first row is the header.
    Table(Vec<Vec<String>>),
}

impl Blocks {
    /// Appends running text (joined to the text before it).
    pub fn push_str(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.0.last_mut() {
            Some(Block::Text(before)) => before.push_str(text),
            _ => self.0.push(Block::Text(text.to_owned())),
        }
    }

    /// Appends a table (its first row the header).
    pub fn push_table(&mut self, rows: Vec<Vec<String>>) {
        self.0.push(Block::Table(rows));
    }

    /// One table.
    pub fn from_table(rows: Vec<Vec<String>>) -> Self {
        Blocks(vec![Block::Table(rows)])
    }

    /// Appends every block of `other`.
    pub fn append(&mut self, other: Blocks) {
        for block in other.0 {
            match block {
                Block::Text(text) => self.push_str(&text),
                table => self.0.push(table),
            }
        }
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[Block] {
        &self.0
    }

    /// The blocks as text: running text wrapped to the terminal ([`crate::wrap`]), each table
    /// aligned by [`table`].
    pub fn text(&self) -> String {
        let width = crate::wrap::width();
        self.0
            .iter()
            .map(|block| match block {
                Block::Text(text) => crate::wrap::wrap(text, width),
                Block::Table(rows) => table(rows),
            })
            .collect()
    }
}

impl From<String> for Blocks {
    fn from(text: String) -> Self {
        let mut blocks = Blocks::default();
        blocks.push_str(&text);
        blocks
    }
}
