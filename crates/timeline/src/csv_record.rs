//! The one record splitter for the CSV files prof reads a record at a time (ncu's pages, the
//! rocprofv3 counter collection, `prof util --csv` and nvidia-smi's query output): RFC 4180
//! with the rules every vendor's writer follows. A quote opens a quoted field only at the start
//! of a field; `""` inside one is a quote; a line break inside one belongs to the field (its
//! `\r` kept as written); a field ends at a comma, a record at a line feed or `\r\n`. Anything
//! else is an error with its cause ([`CsvError`]), never a silent guess: text after a closing
//! quote (another delimiter?), a quote inside a bare field, a quote left open.
//!
//! The large tables (rocprof kernel traces, Ascend op tables) are split by the readers'
//! SIMD splitters over [`crate::csv_blocks`]; their slow paths follow these rules too.

use std::fmt;

/// Why a record does not split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CsvError {
    /// The input ends inside a quoted field (a truncated file, or a quote never closed).
    Unclosed,
    /// A character other than `,` or a line end follows a closing quote.
    AfterQuote(char),
    /// A quote inside a field that did not start with one (the text of the field so far).
    StrayQuote(String),
    /// A carriage return alone inside a line outside quotes.
    BareCarriageReturn,
}

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CsvError::Unclosed => f.write_str("the record ends inside a quoted field: the output is truncated"),
            CsvError::AfterQuote(c) => {
                write!(f, "expected `,` after a closing quote, found `{c}`: is `,` the delimiter?")
            }
            CsvError::StrayQuote(field) => write!(f, "stray quote inside the unquoted field {field:?}"),
            CsvError::BareCarriageReturn => f.write_str("a carriage return alone inside the line, outside quotes"),
        }
    }
}

impl std::error::Error for CsvError {}

/// One record split off the front of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Its fields, unquoted.
    pub fields: Vec<String>,
    /// Bytes consumed, through the record's line end.
    pub consumed: usize,
    /// Line ends consumed (the record's own and those inside quoted fields).
    pub lines: usize,
}

/// Splits one record off the front of `text` (see the module's rules).
pub fn split_record(text: &str) -> Result<Record, CsvError> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut lines = 0;
    let mut chars = text.char_indices().peekable();
    loop {
        if chars.peek().is_some_and(|&(_, c)| c == '"') {
            chars.next();
            loop {
                match chars.next() {
                    Some((_, '"')) if chars.peek().is_some_and(|&(_, c)| c == '"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some((_, '"')) => break,
                    Some((_, c)) => {
                        lines += usize::from(c == '\n');
                        field.push(c);
                    }
                    None => return Err(CsvError::Unclosed),
                }
            }
            if let Some(&(_, c)) = chars.peek() {
                if !matches!(c, ',' | '\n' | '\r') {
                    return Err(CsvError::AfterQuote(c));
                }
            }
        } else {
            while let Some(&(_, c)) = chars.peek() {
                if matches!(c, ',' | '\n' | '\r') {
                    break;
                }
                if c == '"' {
                    return Err(CsvError::StrayQuote(field));
                }
                field.push(c);
                chars.next();
            }
        }
        fields.push(std::mem::take(&mut field));
        match chars.next() {
            Some((_, ',')) => continue,
            Some((at, '\r')) => {
                let consumed = if chars.peek().is_some_and(|&(_, c)| c == '\n') { at + 2 } else { at + 1 };
                return Ok(Record { fields, consumed, lines: lines + 1 });
            }
            Some((at, _)) => return Ok(Record { fields, consumed: at + 1, lines: lines + 1 }),
            None => return Ok(Record { fields, consumed: text.len(), lines }),
        }
    }
}

/// The fields of one line (its line end, if any, dropped): [`split_record`] over a line that
/// must hold the whole record. A quoted field that runs past the line is [`CsvError::Unclosed`].
pub fn split_line(line: &str) -> Result<Vec<String>, CsvError> {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    let record = split_record(line)?;
    if record.consumed < line.len() {
        // A line end inside the line: only a bare `\r` gets here.
        return Err(CsvError::BareCarriageReturn);
    }
    Ok(record.fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_quoted_fields_and_multi_line_records() {
        let record = split_record("1,\"a, b\",\"say \"\"hi\"\"\",,x\nnext").unwrap();
        assert_eq!(record.fields, ["1", "a, b", "say \"hi\"", "", "x"]);
        assert_eq!((record.consumed, record.lines), (25, 1));
        let record = split_record("\"two\nlines\",2\r\nrest").unwrap();
        assert_eq!(record.fields, ["two\nlines", "2"]);
        assert_eq!((record.consumed, record.lines), (15, 2));
        let last = split_record("a,b").unwrap();
        assert_eq!((last.fields.len(), last.consumed, last.lines), (2, 3, 0));
        assert_eq!(split_line("a,\"\"\r\n").unwrap(), ["a", ""]);
        assert_eq!(split_line("").unwrap(), [""]);
    }

    #[test]
    fn malformed_records_are_errors_with_their_cause() {
        assert_eq!(split_record("\"open"), Err(CsvError::Unclosed));
        assert_eq!(split_line("\"open\n"), Err(CsvError::Unclosed));
        assert_eq!(split_record("\"a\";b"), Err(CsvError::AfterQuote(';')));
        assert_eq!(split_record("ab\"c"), Err(CsvError::StrayQuote("ab".into())));
        assert_eq!(split_line("a\rb"), Err(CsvError::BareCarriageReturn));
        assert!(CsvError::AfterQuote(';').to_string().contains("is `,` the delimiter?"));
    }

    #[test]
    fn agrees_with_a_reference_on_random_records() {
        // Fields of commas, quotes, line breaks and text, written as a CSV writer quotes them.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet = ['a', ',', '"', '\n', 'µ', ' ', '\r'];
        for _ in 0..2_000 {
            let fields: Vec<String> = (0..1 + next() % 6)
                .map(|_| (0..next() % 5).map(|_| alphabet[(next() % 7) as usize]).collect())
                .collect();
            let written: Vec<String> = fields
                .iter()
                .map(|f| {
                    if f.contains([',', '"', '\n', '\r']) {
                        format!("\"{}\"", f.replace('"', "\"\""))
                    } else {
                        f.clone()
                    }
                })
                .collect();
            let text = format!("{}\nafter", written.join(","));
            let record = split_record(&text).unwrap();
            assert_eq!(record.fields, fields, "{text:?}");
            assert_eq!(&text[record.consumed..], "after", "{text:?}");
            assert_eq!(record.lines, 1 + fields.iter().map(|f| f.matches('\n').count()).sum::<usize>());
        }
    }
}
