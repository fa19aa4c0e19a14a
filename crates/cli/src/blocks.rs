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
    /// aligned by [`table`] and fitted to the terminal ([`fit`]).
    pub fn text(&self) -> String {
        let width = crate::wrap::width();
        self.0
            .iter()
            .map(|block| match block {
                Block::Text(text) => crate::wrap::wrap(text, width),
                Block::Table(rows) => table(&fit(rows, width)),
            })
            .collect()
    }
}

/// Narrowest a column is cut to when a table is fitted.
const FIT_MIN_COLUMN: usize = 10;

/// `rows` cut to fit `width` (`usize::MAX`: as they are): while the table is wider, its widest
/// column's cells are shortened with an ellipsis (names shrink first: they are the widest), to
/// no less than [`FIT_MIN_COLUMN`] characters; a table of many narrow columns may still run past.
/// The HTML page shows the cells whole.
pub fn fit(rows: &[Vec<String>], width: usize) -> Vec<Vec<String>> {
    let mut rows = rows.to_vec();
    if width == usize::MAX {
        return rows;
    }
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    loop {
        let widths: Vec<usize> = (0..columns)
            .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|cell| cell.chars().count()).max().unwrap_or(0))
            .collect();
        let total = widths.iter().sum::<usize>() + 2 * columns.saturating_sub(1);
        let Some((widest, &longest)) = widths.iter().enumerate().max_by_key(|(c, w)| (**w, std::cmp::Reverse(*c)))
        else {
            return rows;
        };
        if total <= width || longest <= FIT_MIN_COLUMN {
            return rows;
        }
        let target = longest.saturating_sub(total - width).max(FIT_MIN_COLUMN);
        for row in &mut rows {
            if let Some(cell) = row.get_mut(widest) {
                *cell = crate::render::ellipsize(cell, target);
            }
        }
    }
}

impl From<String> for Blocks {
    fn from(text: String) -> Self {
        let mut blocks = Blocks::default();
        blocks.push_str(&text);
        blocks
    }
}

#[cfg(test)]
mod fit_tests {
    use super::fit;

    #[test]
    fn a_wide_table_is_cut_at_its_widest_column_and_a_narrow_one_is_left() {
        let name = "aclnnGroupedMatmulV5_GroupedMatmul_GroupedMatmul_with_a_long_tail";
        let rows = vec![
            vec!["op type".to_owned(), "calls".to_owned(), "verdict".to_owned()],
            vec![name.to_owned(), "1".to_owned(), "memory-bound".to_owned()],
        ];
        let fitted = fit(&rows, 40);
        let text = crate::render::table(&fitted);
        assert!(text.lines().all(|l| l.chars().count() <= 40), "{text}");
        assert!(fitted[1][0].ends_with('…') && fitted[1][2] == "memory-bound", "{fitted:?}");
        assert_eq!(fit(&rows, 200), rows);
        assert_eq!(fit(&rows, usize::MAX), rows);
    }
}
