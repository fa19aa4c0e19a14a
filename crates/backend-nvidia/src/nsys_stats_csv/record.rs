//! Splits comma-separated text into records as `nsys stats --format csv` writes them: fields
//! that hold commas (kernel signatures) are double-quoted, with `""` for a quote inside.
//! Each record keeps the 1-based line it starts on; blank lines are skipped.

/// One record of a CSV file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// 1-based line the record starts on.
    pub line: usize,
    /// Its fields, unquoted.
    pub fields: Vec<String>,
}

/// The records of `text`; an unterminated quote is an error naming the line it opened on.
pub fn records(text: &str) -> Result<Vec<Record>, (usize, String)> {
    let mut out = Vec::new();
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut line = 1;
    let mut start_line = 1;
    let mut quoted = false;
    let mut quote_line = 0;
    let mut at_field_start = true;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                '\n' => {
                    line += 1;
                    field.push('\n');
                }
                other => field.push(other),
            }
            continue;
        }
        match c {
            '"' if at_field_start => {
                quoted = true;
                quote_line = line;
                at_field_start = false;
            }
            ',' => {
                fields.push(std::mem::take(&mut field));
                at_field_start = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                fields.push(std::mem::take(&mut field));
                push_record(&mut out, start_line, std::mem::take(&mut fields));
                line += 1;
                start_line = line;
                at_field_start = true;
            }
            other => {
                field.push(other);
                at_field_start = false;
            }
        }
    }
    if quoted {
        return Err((quote_line, "a quoted field opened here is never closed".to_owned()));
    }
    if !field.is_empty() || !fields.is_empty() {
        fields.push(field);
        push_record(&mut out, start_line, fields);
    }
    Ok(out)
}

fn push_record(out: &mut Vec<Record>, line: usize, fields: Vec<String>) {
    let blank = fields.len() == 1 && fields.first().is_some_and(|f| f.trim().is_empty());
    if !blank {
        out.push(Record { line, fields });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_commas_doubled_quotes_and_blank_lines() {
        let text = "a,b\n\n1,\"x, \"\"y\"\"\"\r\n2,\"multi\nline\"\n3,z";
        let records = records(text).unwrap();
        assert_eq!(records.len(), 4);
        assert_eq!(records[1], Record { line: 3, fields: vec!["1".into(), "x, \"y\"".into()] });
        assert_eq!(records[2].fields[1], "multi\nline");
        assert_eq!((records[3].line, records[3].fields.len()), (6, 2));
        assert_eq!(super::records("a,\"open\n1,2\n"), Err((1, "a quoted field opened here is never closed".into())));
    }
}
