//! Tests of the rocprof CSV reader: quoting, errors, reuse, and the in-place split against
//! the field-by-field copy it replaced.

use super::*;

fn reader(text: &str) -> Result<CsvReader<&[u8]>> {
    CsvReader::from_reader(text.as_bytes(), Path::new("t.csv"))
}

fn rows(text: &str) -> Result<Vec<Vec<String>>> {
    let mut csv = reader(text)?;
    let mut out = Vec::new();
    while let Some(record) = csv.next_record()? {
        out.push(record.to_strings());
    }
    Ok(out)
}

#[test]
fn quoted_commas_bom_crlf_doubled_quotes_and_blank_lines() {
    let text = "\u{feff}\"Name\",\"N\"\r\n\"f(int, float)\",3\r\n\"say \"\"hi\"\"\",4\r\n\r\n";
    let csv = reader(text).unwrap();
    assert_eq!(csv.header(), ["Name", "N"]);
    assert_eq!(csv.find("Name"), Some(0));
    assert_eq!(
        rows(text).unwrap(),
        vec![vec!["f(int, float)".to_owned(), "3".to_owned()], vec!["say \"hi\"".to_owned(), "4".to_owned()]]
    );
    assert_eq!(rows("a,b\n\"x\ny\",1\n").unwrap(), vec![vec!["x\ny".to_owned(), "1".to_owned()]]);
    // The same file cut before its last line break: the row is left out and noted.
    let mut csv = reader("a,b\n1,2\n\"x\ny\",1").unwrap();
    assert_eq!(csv.next_record().unwrap().unwrap().to_strings(), ["1", "2"]);
    assert!(csv.next_record().unwrap().is_none());
    let mut t = prof_core::Timeline::new("t");
    csv.mark_cut(&mut t);
    assert_eq!(
        t.partial.as_deref(),
        Some("t.csv:3: the last row has no line break (the file was cut short); it was left out")
    );
}

#[test]
fn errors_name_the_file_line_and_column() {
    let empty = reader("").err().unwrap().to_string();
    assert!(empty.contains("t.csv:1") && empty.contains("empty"), "{empty}");
    let csv = reader("A,B\n1,2\n").unwrap();
    let missing = csv.require("Start_Timestamp", "a kernel trace").unwrap_err().to_string();
    assert!(missing.contains("t.csv:1") && missing.contains("`Start_Timestamp`") && missing.contains("A, B"));
    let short = rows("A,B\n1,2\n3\n").unwrap_err().to_string();
    assert!(short.contains("t.csv:3") && short.contains("1 fields but the header has 2"), "{short}");
    let open = rows("A,B\n\"1,2\n").unwrap_err().to_string();
    assert!(open.contains("t.csv:2") && open.contains("not closed"), "{open}");
    let mut csv = reader("A,B\n12,x\n").unwrap();
    let record = csv.next_record().unwrap().unwrap();
    assert_eq!(csv.u64(&record, 0).unwrap(), 12);
    let bad = csv.u64(&record, 1).unwrap_err().to_string();
    assert!(bad.contains("t.csv:2") && bad.contains("`B` is `x`"), "{bad}");
    assert_eq!(csv.opt_u64(&record, None).unwrap(), None);
}

#[test]
fn utf8_split_across_the_readers_buffer_reads_whole() {
    // A reader whose buffer holds 3 bytes: every line, and the two-byte `é` and the three-byte
    // `λ` of the names, arrive in pieces; the rows must read as written.
    let text = "\"Kernel_Name\",\"N\"\n\"café_λ<float>\",12\n\"k\",3\n";
    let reader = std::io::BufReader::with_capacity(3, text.as_bytes());
    let mut csv = CsvReader::from_reader(reader, Path::new("t.csv")).unwrap();
    let first = csv.next_record().unwrap().expect("row 1");
    assert_eq!((first.field(0), first.field(1)), (Some("café_λ<float>"), Some("12")));
    let second = csv.next_record().unwrap().expect("row 2");
    assert_eq!((second.field(0), second.field(1), second.line), (Some("k"), Some("3"), 3));
    assert!(csv.next_record().unwrap().is_none());
}

#[test]
fn a_latin1_byte_names_its_line() {
    let bytes = b"\"Kernel_Name\",\"N\"\n\"k\",1\n\"caf\xE9\",2\n";
    let mut csv = CsvReader::from_reader(bytes.as_slice(), Path::new("t.csv")).unwrap();
    assert!(csv.next_record().unwrap().is_some());
    let err = csv.next_record().unwrap_err().to_string();
    assert!(err.contains("t.csv:3") && err.contains("not UTF-8"), "{err}");
}

#[test]
fn reused_records_read_like_fresh_ones() {
    let real = crate::test_fixtures::fixture("rocprofv3/sdk1.0_kernel_trace.csv");
    // The real file, then a row with a quoted line break, a quote inside a bare field and an
    // empty field after a long one, so reused strings must be cleared and refilled.
    let columns = real.lines().next().unwrap_or_default().split("\",\"").count();
    let odd = format!("\"x\ny\",a\"b,{}\n", vec![""; columns - 2].join(","));
    for text in [real.clone(), format!("{real}{odd}")] {
        let fresh = rows(&text).unwrap();
        let mut csv = reader(&text).unwrap();
        let mut record = Record::default();
        let mut reused = Vec::new();
        while csv.next_record_into(&mut record).unwrap() {
            reused.push(record.to_strings());
        }
        assert_eq!(reused, fresh);
        assert_eq!(fresh.len(), text.lines().count() - 1 - usize::from(text != real));
    }
    let fresh = rows(&format!("{real}{odd}")).unwrap();
    let last = fresh.last().unwrap();
    assert_eq!((last[0].as_str(), last[1].as_str(), last[2].as_str()), ("x\ny", "a\"b", ""));
}

#[test]
fn a_file_without_line_breaks_is_refused_at_the_bound() {
    use std::io::Read as _;
    let zeros = std::io::BufReader::new(std::io::repeat(b'0').take(200 << 20));
    let started = std::time::Instant::now();
    let error = CsvReader::from_reader(zeros, Path::new("zeros.csv")).err().expect("refused").to_string();
    assert_eq!(error, "zeros.csv:1: the line runs past 16 MiB without a line break");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

/// The reader before fields were read in place: each line split into owned strings, byte by
/// byte. The rows of `text` (line, fields), `None` where a quote is left open.
fn copied_rows(text: &str) -> Option<Vec<(usize, Vec<String>)>> {
    let mut lines = text.split_inclusive('\n');
    let (mut line, mut rows) = (0, Vec::new());
    loop {
        let start = line + 1;
        let mut fields = vec![String::new()];
        let (mut in_quotes, mut after_quote) = (false, false);
        loop {
            let Some(raw) = lines.next() else {
                if in_quotes {
                    return None;
                }
                if line >= start {
                    rows.push((start, fields));
                }
                return Some(rows);
            };
            line += 1;
            let raw = if line == 1 { raw.strip_prefix('\u{feff}').unwrap_or(raw) } else { raw };
            let ends = raw.ends_with('\n');
            let t = raw.strip_suffix('\n').unwrap_or(raw);
            let t = t.strip_suffix('\r').unwrap_or(t);
            if !ends && start > 1 {
                return Some(rows);
            }
            let bytes = t.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                let current = fields.last_mut().unwrap();
                let byte = bytes[i];
                let char_len = t[i..].chars().next().map_or(1, char::len_utf8);
                if in_quotes {
                    if byte == b'"' {
                        if bytes.get(i + 1) == Some(&b'"') {
                            current.push('"');
                            i += 2;
                            continue;
                        }
                        (in_quotes, after_quote) = (false, true);
                    } else {
                        current.push_str(&t[i..i + char_len]);
                    }
                } else if byte == b',' {
                    fields.push(String::new());
                    after_quote = false;
                } else if byte == b'"' {
                    if current.is_empty() && !after_quote {
                        in_quotes = true;
                    } else {
                        current.push('"');
                    }
                } else {
                    current.push_str(&t[i..i + char_len]);
                }
                i += char_len;
            }
            if in_quotes && ends {
                fields.last_mut().unwrap().push('\n');
                continue;
            }
            if in_quotes {
                return None;
            }
            rows.push((start, fields));
            break;
        }
    }
}

/// Random rows of bare, quoted and odd fields (doubled quotes, quotes inside bare fields, text
/// after a closing quote, line breaks and CRLFs inside quotes, commas, non-ASCII, empty
/// fields, a BOM, a cut last row): every row reads as the byte-by-byte copy read it, whether
/// the one-pass path took it (a plain row: the whole text is buffered) or the line-by-line one.
#[test]
fn fields_read_in_place_equal_the_fields_copied_byte_by_byte() {
    let mut seed = 0x0123_4567_89ab_cdefu64;
    let mut next = |bound: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % bound
    };
    let pieces = ["a", "17", "é", ",", "\"", "\"\"", "\n", "\r\n", " ", "x y"];
    // Rows taken by the one-pass path ([`crate::rocprof_line`]), the rest line by line.
    let mut plain = 0;
    for round in 0..3000 {
        let mut text = String::from(if round % 7 == 0 { "\u{feff}" } else { "" });
        for _ in 0..(1 + next(6)) {
            for field in 0..(1 + next(5)) {
                if field > 0 {
                    text.push(',');
                }
                let quoted = next(2) == 0;
                if quoted {
                    text.push('"');
                }
                for _ in 0..next(5) {
                    let piece = pieces[next(pieces.len() as u64) as usize];
                    // Mostly well-formed: inside quotes a quote is doubled, outside no break.
                    let piece = match (quoted, piece) {
                        (true, "\"") if next(4) > 0 => "\"\"",
                        (false, "\n" | "\r\n" | ",") if next(4) > 0 => "b",
                        _ => piece,
                    };
                    text.push_str(piece);
                }
                if quoted && next(8) > 0 {
                    text.push('"');
                }
            }
            text.push_str(if next(3) == 0 { "\r\n" } else { "\n" });
        }
        if next(5) == 0 {
            text.pop();
        }
        let expected = copied_rows(&text);
        let mut csv = CsvReader {
            path: "t.csv".into(),
            reader: text.as_bytes(),
            line: 0,
            header: Vec::new(),
            columns: Default::default(),
            cut: None,
        };
        let mut record = Record::default();
        let mut got = Vec::new();
        let got = loop {
            plain += usize::from(csv.line > 0 && crate::rocprof_line::plain_row(csv.reader, &mut Vec::new()).is_some());
            match csv.fields_into(&mut record) {
                Ok(Some(line)) => got.push((line, record.to_strings())),
                Ok(None) => break Some(got),
                Err(_) => break None,
            }
        };
        assert_eq!(got, expected, "round {round}: {text:?}");
    }
    assert!(plain > 500, "{plain} plain rows");
}

#[test]
fn plain_digits_read_as_str_parse_reads_them() {
    let cases = [
        "0",
        "7",
        "1550151853029637",
        "9999999999999999999",
        "18446744073709551615",
        "18446744073709551616",
        "00012",
        "",
        " 12",
        "12 ",
        "+5",
        "-1",
        "1e6",
        "12a",
        "١٢",
    ];
    for text in cases {
        let parsed = text.trim().parse::<u64>().ok();
        match super::plain_u64(text) {
            // The fast path may only answer what parse answers.
            Some(value) => assert_eq!(Some(value), parsed, "{text:?}"),
            // It leaves to parse what is not plain digits (or longer than 19).
            None => {
                assert!(text.len() > 19 || text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()), "{text:?}")
            }
        }
    }
    // A byte just outside the digits (or a blank, a letter, DEL) at every place of 8-digit
    // chunks and of the digits after them.
    let digits = "1234567890123456789";
    for len in 1..=19 {
        for at in 0..len {
            for bad in ['/', ':', ' ', 'a', '\u{7f}', '0'] {
                let mut text: Vec<char> = digits[..len].chars().collect();
                text[at] = bad;
                let text: String = text.into_iter().collect();
                let want = if text.bytes().all(|b| b.is_ascii_digit()) { text.parse().ok() } else { None };
                assert_eq!(super::plain_u64(&text), want, "{text:?}");
            }
        }
    }
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..10_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let text = (state >> (state % 64)).to_string();
        match super::plain_u64(&text) {
            Some(value) => assert_eq!(Some(value), text.parse().ok(), "{text}"),
            None => assert_eq!(text.len(), 20, "{text}"),
        }
    }
}
