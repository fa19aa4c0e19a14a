//! The backends' own sections ([`prof_core::Vendor::sections`]: the Ascend op checks of a
//! profile directory, …, read beside the artifact by [`prof_core::report::VendorPrefetch`];
//! an Ascend op table's checks found with the ops, [`prof_core::Timeline::sections`]),
//! rendered like every other analysis.

use super::RenderedSection;
use crate::blocks::Blocks;
use crate::render::{ellipsize, human_ns};
use prof_timeline::section::{Cell, Section as VendorSection};

/// Width of a name cell in a vendor table.
const NAME_WIDTH: usize = 36;

/// A vendor section as text under its title, and its JSON.
pub(super) fn render(section: &VendorSection) -> RenderedSection {
    let mut text = Blocks::default();
    for line in &section.lines {
        text.push_str(&format!("{}\n", line_text(line)));
    }
    if let Some(t) = &section.table {
        let mut rows = vec![t.header.clone()];
        rows.extend(t.rows.iter().map(|row| row.iter().map(cell).collect()));
        text.push_table(rows);
    }
    for line in &section.after {
        text.push_str(&format!("{}\n", line_text(line)));
    }
    for note in &section.notes {
        text.push_str(&format!("note: {note}\n"));
    }
    RenderedSection { key: section.key, title: section.title.clone(), text, json: section.json.clone() }
}

fn line_text(line: &[Cell]) -> String {
    line.iter().map(cell).collect()
}

fn cell(cell: &Cell) -> String {
    match cell {
        Cell::Text(text) => text.clone(),
        Cell::Name(name) => ellipsize(name, NAME_WIDTH),
        Cell::Count(n) => n.to_string(),
        Cell::Ns(ns) => human_ns(*ns as f64),
        Cell::Pct(pct) => format!("{pct:.1} %"),
        Cell::Missing => "-".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prof_timeline::section::Table;

    #[test]
    fn renders_lines_table_and_notes_with_core_units() {
        let mut section = VendorSection::new("v", "a vendor check", serde_json::json!({ "n": 1 }));
        section.lines.push(vec![
            Cell::text("busy "),
            Cell::Ns(1_500_000),
            Cell::text(" ("),
            Cell::Pct(12.345),
            Cell::text(")"),
        ]);
        section.table = Some(Table {
            header: vec!["op".into(), "calls".into(), "limiter".into()],
            rows: vec![vec![Cell::Name("x".repeat(50)), Cell::Count(3), Cell::Missing]],
        });
        section.notes.push("no OP State column".into());
        let rendered = render(&section);
        assert_eq!((rendered.key, rendered.title.as_str()), ("v", "a vendor check"));
        let text = rendered.text.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "busy 1.50 ms (12.3 %)");
        assert!(lines[1].starts_with("op ") && lines[1].ends_with("limiter"), "{}", lines[1]);
        assert!(lines[2].starts_with(&format!("{}…  3", "x".repeat(35))), "{}", lines[2]);
        assert_eq!(lines[3], "note: no OP State column");
        assert_eq!(rendered.json, serde_json::json!({ "n": 1 }));
    }
}
