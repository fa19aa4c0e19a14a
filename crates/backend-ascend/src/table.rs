//! The boxed text tables `npu-smi info` prints: `+---+` / `+===+` borders, `| a | b |` rows,
//! and cells holding several whitespace-separated values, some of them `used / total` pairs.

/// One line of a boxed table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TableLine<'a> {
    /// Empty or whitespace only (the 23.0.rc1 paste has one between its two tables).
    Blank,
    /// A `+----+` or `+====+` rule.
    Border,
    /// A `| … | … |` row, its cells trimmed.
    Row(Vec<&'a str>),
}

/// Classifies one output line (a trailing `\r` from CRLF output is ignored); `None` when it
/// is neither blank, a border nor a row, such as an error message the tool printed instead.
pub(crate) fn classify(line: &str) -> Option<TableLine<'_>> {
    let line = line.trim();
    if line.is_empty() {
        return Some(TableLine::Blank);
    }
    if line.starts_with('+') && line.chars().all(|c| matches!(c, '+' | '-' | '=')) {
        return Some(TableLine::Border);
    }
    let inner = line.strip_prefix('|')?.strip_suffix('|')?;
    Some(TableLine::Row(inner.split('|').map(str::trim).collect()))
}

/// One value of a cell: a plain value (`92.8`) or a `used / total` pair (`3405 / 65536`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CellValue<'a> {
    /// A single value.
    One(&'a str),
    /// `used / total`, written `a / b`, `a/ b` or `a/b`.
    Pair(&'a str, &'a str),
}

/// Splits a multi-value cell (`0           0    / 0          3405 / 65536`) into its values,
/// joining the two sides of each `/` into a pair.
pub(crate) fn cell_values(cell: &str) -> Result<Vec<CellValue<'_>>, String> {
    let mut pieces = Vec::new();
    for token in cell.split_whitespace() {
        let mut rest = token;
        while let Some(pos) = rest.find('/') {
            if pos > 0 {
                pieces.push(&rest[..pos]);
            }
            pieces.push("/");
            rest = &rest[pos + 1..];
        }
        if !rest.is_empty() {
            pieces.push(rest);
        }
    }
    let mut values = Vec::new();
    let mut iter = pieces.into_iter().peekable();
    while let Some(piece) = iter.next() {
        if piece == "/" {
            return Err("a `/` with no value before it".to_owned());
        }
        if iter.peek() == Some(&"/") {
            iter.next();
            match iter.next() {
                Some(total) if total != "/" => values.push(CellValue::Pair(piece, total)),
                _ => return Err(format!("`{piece} /` with no value after the `/`")),
            }
        } else {
            values.push(CellValue::One(piece));
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_classified() {
        assert_eq!(classify("+====+===+"), Some(TableLine::Border));
        assert_eq!(classify("   \r"), Some(TableLine::Blank));
        assert_eq!(classify("| a  | b c |\r"), Some(TableLine::Row(vec!["a", "b c"])));
        assert_eq!(classify("| cut off here"), None);
        assert_eq!(classify("dcmi module initialize failed"), None);
    }

    #[test]
    fn pairs_in_every_spacing() {
        use CellValue::*;
        assert_eq!(
            cell_values("0           1198 / 15137      30711/ 32768").unwrap(),
            [One("0"), Pair("1198", "15137"), Pair("30711", "32768")]
        );
        assert_eq!(cell_values("92.8  39  0/0").unwrap(), [One("92.8"), One("39"), Pair("0", "0")]);
        assert!(cell_values("/ 5").is_err());
        assert!(cell_values("5 /").is_err());
        assert!(cell_values("5 / / 6").is_err());
    }
}
