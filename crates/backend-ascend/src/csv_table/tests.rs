use super::*;
use crate::csv_blocks::Instructions;

fn parse(text: &str) -> Result<CsvTable, AscendError> {
    CsvTable::parse(text, Path::new("op_summary_1.csv"))
}

#[test]
fn handles_bom_crlf_tabs_na_and_doubled_quotes() {
    let t =
        parse("\u{feff}Op Name,Task Start Time(us),Input Shapes,Block Num\r\nMatMul,\t17.5\t,\"\"\"8,16\"\"\",N/A\r\n")
            .unwrap();
    assert_eq!(t.header(), ["Op Name", "Task Start Time(us)", "Input Shapes", "Block Num"]);
    let row = t.rows().next().unwrap();
    assert_eq!(row.get(t.column(&["Name", "Op Name"])), Some("MatMul"));
    assert_eq!(row.micros_ns(t.column(&["Start Time(us)", "Task Start Time(us)"])).unwrap(), Some(17_500));
    assert_eq!(row.get(Some(2)), Some("\"8,16\""));
    assert_eq!(row.integer(Some(3)).unwrap(), None);
    assert_eq!(row.line(), 2);
}

#[test]
fn missing_column_names_file_and_column() {
    let t = parse("Name,Type\nA,B\n").unwrap();
    let err = t.require(&["Duration(us)", "Task Duration(us)"]).unwrap_err().to_string();
    assert!(err.contains("op_summary_1.csv") && err.contains("Duration(us) / Task Duration(us)"), "{err}");
}

#[test]
fn truncated_row_is_an_error_with_its_line() {
    // Cut inside the last row (no line break): that row is left out and noted.
    let t = parse("Name,Type,Duration(us)\nA,B,1\nC,D").unwrap();
    assert_eq!(t.len(), 1);
    let note = t.cut_note().unwrap();
    assert!(note.starts_with("op_summary_1.csv:3: the last row has no line break"), "{note}");
    assert!(parse("Name,Type,Duration(us)\nA,B,1\n").unwrap().cut_note().is_none());
    // A short row that ends its line is an error.
    let err = parse("Name,Type,Duration(us)\nA,B,1\nC,D\n").unwrap_err().to_string();
    assert!(err.contains("op_summary_1.csv:3") && err.contains("2 fields where the header has 3"), "{err}");
    let err = parse("Name,Shapes\nA,\"1,2\n").unwrap_err().to_string();
    assert!(err.contains(":2") && err.contains("unterminated"), "{err}");
}

#[test]
fn bad_values_name_the_column_and_line() {
    let t = parse("Name,Duration(us),Block Dim\nA,fast,-3\n").unwrap();
    let row = t.rows().next().unwrap();
    let err = row.micros_ns(Some(1)).unwrap_err().to_string();
    assert!(err.contains(":2") && err.contains("Duration(us)") && err.contains("`fast`"), "{err}");
    assert!(row.integer(Some(2)).unwrap_err().to_string().contains("Block Dim"));
}

#[test]
fn empty_file_is_an_error_and_header_only_is_empty() {
    assert!(parse("").unwrap_err().to_string().contains("empty file"));
    assert!(parse("\u{feff}").is_err());
    assert!(parse("Name,Type\n").unwrap().is_empty());
}

/// Every row of the file at `path`, streamed through a `capacity`-byte buffer, as (line, fields).
fn streamed(path: &Path, capacity: usize) -> Result<Vec<(usize, Vec<String>)>, AscendError> {
    streamed_fields(path, capacity, None)
}

/// [`streamed`], splitting only the fields `0..=last` when `last` is given.
fn streamed_fields(
    path: &Path,
    capacity: usize,
    last: Option<usize>,
) -> Result<Vec<(usize, Vec<String>)>, AscendError> {
    let mut reader = CsvReader::open_with_buffer(path, capacity)?;
    if let Some(last) = last {
        reader.split_only(0..=last);
    }
    let columns = last.map_or(reader.header().names().len(), |last| last + 1);
    let mut rows = Vec::new();
    while let Some(row) = reader.next_row()? {
        rows.push((row.line(), (0..columns).map(|c| row.field(c).unwrap_or("?").to_owned()).collect()));
    }
    Ok(rows)
}

fn in_memory(table: &CsvTable) -> Vec<(usize, Vec<String>)> {
    let columns = table.header().len();
    table
        .rows()
        .map(|row| (row.line(), (0..columns).map(|c| row.field(c).unwrap_or("?").to_owned()).collect()))
        .collect()
}

fn scratch_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("prof-csv-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn streaming_reads_the_real_file_like_the_in_memory_table_whatever_the_buffer() {
    let real =
        std::fs::read_to_string(crate::test_fixtures::fixture_path(crate::test_fixtures::KERNEL_DETAILS)).unwrap();
    // The real file, its Windows form, and one with a quoted line break and a doubled quote.
    let header_end = real.find('\n').unwrap() + 1;
    let quoted =
        format!("{}{}", &real[..header_end], real[header_end..].replacen("ZerosLike46", "\"Zeros\nLike\"\"46\"", 1));
    let windows = format!("\u{feff}{}", real.replace('\n', "\r\n"));
    for (name, text) in [("real.csv", &real), ("quoted.csv", &quoted), ("windows.csv", &windows)] {
        let path = scratch_file(name, text.as_bytes());
        let expected = in_memory(&CsvTable::read(&path).unwrap());
        assert_eq!(expected.len(), 591, "{name}");
        for capacity in [1, 2, 7, 64, 1000, 1 << 20] {
            assert_eq!(streamed(&path, capacity).unwrap(), expected, "{name} with a {capacity}-byte buffer");
        }
    }
    let path = scratch_file("quoted.csv", quoted.as_bytes());
    let rows = streamed(&path, 7).unwrap();
    // Row 1 of the real file is `1,4294967295,1259,16,ZerosLike46,...` on line 2; the next row starts a line later.
    assert_eq!(rows[0].1[4], "Zeros\nLike\"46");
    assert_eq!((rows[0].0, rows[1].0), (2, 4));
}

#[test]
fn streaming_errors_name_the_file_and_line() {
    let path = scratch_file("latin1.csv", b"Name,Type\nA,B\nCaf\xE9,D\n");
    let err = streamed(&path, 4).unwrap_err().to_string();
    assert!(err.contains("latin1.csv:3") && err.contains("not UTF-8"), "{err}");
    let path = scratch_file("short.csv", b"Name,Type\nA,B\nC\n");
    let err = streamed(&path, 4).unwrap_err().to_string();
    assert!(err.contains("short.csv:3") && err.contains("1 fields where the header has 2"), "{err}");
    let path = scratch_file("open-quote.csv", b"Name,Type\nA,\"B\nC,D\n");
    let err = streamed(&path, 4).unwrap_err().to_string();
    assert!(err.contains("open-quote.csv:2") && err.contains("unterminated"), "{err}");
    let path = scratch_file("empty.csv", b"");
    assert!(streamed(&path, 4).unwrap_err().to_string().contains("empty file"));
    let path = scratch_file("header-only.csv", b"\xEF\xBB\xBFName,Type\r\n");
    assert_eq!(streamed(&path, 2).unwrap(), vec![]);
    assert_eq!(CsvReader::open_with_buffer(&path, 1).unwrap().header().names(), ["Name", "Type"]);
    // A last row without its line break was cut: left out (whatever the buffer), and noted.
    let path = scratch_file("no-final-newline.csv", b"Name,Type\n\nA,\"B\"");
    for capacity in [3, 1 << 10] {
        assert_eq!(streamed(&path, capacity).unwrap(), vec![]);
        let mut reader = CsvReader::open_with_buffer(&path, capacity).unwrap();
        assert!(reader.next_row().unwrap().is_none());
        assert!(reader.cut_note().unwrap().contains("no-final-newline.csv:3: the last row has no line break"));
    }
}

fn streamed_up_to(path: &Path, capacity: usize, last: usize) -> Result<Vec<(usize, Vec<String>)>, AscendError> {
    streamed_fields(path, capacity, Some(last))
}

#[test]
fn splitting_only_the_leading_columns_counts_the_rest_the_same_way() {
    let real =
        std::fs::read_to_string(crate::test_fixtures::fixture_path(crate::test_fixtures::KERNEL_DETAILS)).unwrap();
    let header_end = real.find('\n').unwrap() + 1;
    // Quoted line breaks, doubled quotes and commas in a late column (`Input Data Types`, 14th).
    let tail_quoted =
        format!("{}{}", &real[..header_end], real[header_end..].replacen(",FLOAT16,", ",\"FLO\nAT\"\",16\",", 3));
    let windows = format!("\u{feff}{}", real.replace('\n', "\r\n"));
    for (name, text) in [("real-up-to.csv", &real), ("tail-quoted.csv", &tail_quoted), ("windows-up-to.csv", &windows)]
    {
        let path = scratch_file(name, text.as_bytes());
        let whole = in_memory(&CsvTable::read(&path).unwrap());
        for last in [0, 4, 8, 13, 20] {
            let expected: Vec<(usize, Vec<String>)> =
                whole.iter().map(|(line, fields)| (*line, fields[..=last].to_vec())).collect();
            for capacity in [1, 7, 64, 1 << 20] {
                assert_eq!(streamed_up_to(&path, capacity, last).unwrap(), expected, "{name}, last {last}, {capacity}");
            }
        }
    }
    let path = scratch_file("short-up-to.csv", b"Name,Type,Core\nA,B,C\nC,D\nE,F,\"G\n");
    let err = streamed_up_to(&path, 4, 0).unwrap_err().to_string();
    assert!(err.contains("short-up-to.csv:3") && err.contains("2 fields where the header has 3"), "{err}");
    let path = scratch_file("open-quote-up-to.csv", b"Name,Type,Core\nA,B,C\nE,F,\"G\n");
    let err = streamed_up_to(&path, 4, 0).unwrap_err().to_string();
    assert!(err.contains("open-quote-up-to.csv:3") && err.contains("unterminated"), "{err}");
    let path = scratch_file("no-final-newline-up-to.csv", b"Name,Type\n\nA,\"B\"");
    assert_eq!(streamed_up_to(&path, 3, 0).unwrap(), vec![]);
}

/// Every row of the file at `path` read splitting only the fields `wanted`, as (line, fields
/// `0..=max(wanted)`).
fn streamed_only(path: &Path, capacity: usize, wanted: &[usize]) -> Result<Vec<(usize, Vec<String>)>, AscendError> {
    let mut reader = CsvReader::open_with_buffer(path, capacity)?;
    reader.split_only(wanted.iter().copied());
    let last = wanted.iter().copied().max().unwrap_or(0);
    let mut rows = Vec::new();
    while let Some(row) = reader.next_row()? {
        rows.push((row.line(), (0..=last).map(|c| row.field(c).unwrap_or("?").to_owned()).collect()));
    }
    Ok(rows)
}

/// `rows` as [`streamed_only`] reads them: the fields up to the last wanted, the others empty.
fn only(rows: &[(usize, Vec<String>)], wanted: &[usize]) -> Vec<(usize, Vec<String>)> {
    let last = wanted.iter().copied().max().unwrap_or(0);
    let keep = |(c, field): (usize, &String)| if wanted.contains(&c) { field.clone() } else { String::new() };
    rows.iter().map(|(line, fields)| (*line, fields[..=last].iter().enumerate().map(keep).collect())).collect()
}

#[test]
fn fields_not_asked_for_read_as_absent_and_the_rest_as_a_whole_split_reads_them() {
    // Every set of the generated files' four columns (quoted commas, line breaks and doubled
    // quotes in any of them, asked for or not), through buffers that cut records anywhere.
    for seed in 1..=20 {
        let text = generated_csv(seed, 60);
        let rows = reference_records(&text)[1..].to_vec();
        let path = scratch_file(&format!("only-{seed}.csv"), text.as_bytes());
        for set in 1..16usize {
            let wanted: Vec<usize> = (0..4).filter(|c| set >> c & 1 == 1).collect();
            for capacity in [1, 5, 4096] {
                let read = streamed_only(&path, capacity, &wanted).unwrap();
                assert_eq!(read, only(&rows, &wanted), "seed {seed}, columns {wanted:?}, {capacity}-byte buffer");
            }
        }
    }
    // The real export with the columns the loader asks for, and a field that is not asked for
    // reads as absent.
    let path = crate::test_fixtures::fixture_path(crate::test_fixtures::KERNEL_DETAILS);
    let whole = in_memory(&CsvTable::read(&path).unwrap());
    let wanted = [3, 4, 5, 6, 7, 8, 10, 12, 21, 22, 27, 28, 29, 30];
    assert_eq!(streamed_only(&path, 64, &wanted).unwrap(), only(&whole, &wanted));
    let mut reader = CsvReader::open(&path).unwrap();
    reader.split_only([4, 12]);
    let row = reader.next_row().unwrap().unwrap();
    assert_eq!(
        (row.get(Some(4)), row.get(Some(5)), row.get(Some(12))),
        (Some("ZerosLike46"), None, Some("\"544404480\""))
    );
    // Columns from 64 on are always split; a short row is still an error.
    let header: Vec<String> = (0..70).map(|c| format!("c{c}")).collect();
    let line: Vec<String> = (0..70).map(|c| format!("\"v,{c}\"")).collect();
    let wide = format!("{}\n{}\n{}\n", header.join(","), line.join(","), line[..69].join(","));
    let path = scratch_file("wide.csv", wide.as_bytes());
    let mut reader = CsvReader::open(&path).unwrap();
    reader.split_only([2, 66]);
    let row = reader.next_row().unwrap().unwrap();
    let read: Vec<Option<&str>> = [1, 2, 63, 64, 66].iter().map(|&c| row.get(Some(c))).collect();
    assert_eq!(read, [None, Some("v,2"), None, Some("v,64"), Some("v,66")]);
    let err = reader.next_row().unwrap_err().to_string();
    assert!(err.contains("wide.csv:3") && err.contains("69 fields where the header has 70"), "{err}");
}

/// The records of `text` read one character at a time, the obvious way (the header first):
/// the reference the block splitter is checked against.
fn reference_records(text: &str) -> Vec<(usize, Vec<String>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let chars: Vec<char> = text.chars().collect();
    let (mut records, mut fields, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut line, mut record_line, mut in_quotes, mut i) = (1, 1, false, 0);
    let mut finish = |fields: &mut Vec<String>, record_line: usize| {
        let record = std::mem::take(fields);
        if record != [""] {
            records.push((record_line, record));
        }
    };
    while i < chars.len() {
        match (chars[i], in_quotes) {
            ('"', true) if chars.get(i + 1) == Some(&'"') => {
                field.push('"');
                i += 1;
            }
            ('"', _) => in_quotes = !in_quotes,
            (',', false) => fields.push(std::mem::take(&mut field)),
            ('\n', false) => {
                if field.ends_with('\r') {
                    field.pop();
                }
                fields.push(std::mem::take(&mut field));
                finish(&mut fields, record_line);
                line += 1;
                record_line = line;
            }
            ('\n', true) => {
                field.push('\n');
                line += 1;
            }
            (c, _) => field.push(c),
        }
        i += 1;
    }
    if !fields.is_empty() || !field.is_empty() {
        fields.push(field);
        finish(&mut fields, record_line);
    }
    records
}

/// A CSV text of `rows` rows of 4 fields drawn from values that exercise the splitter: quotes,
/// doubled quotes, quoted commas and line breaks, non-ASCII, fields longer than a 64-byte block,
/// CRLF and blank lines.
fn generated_csv(seed: u64, rows: usize) -> String {
    let long_quoted = format!("\"{}\"", "w,\n\"\"".repeat(40));
    let long = "y".repeat(70);
    let values = [
        "x",
        "",
        "N/A",
        "12.5",
        "\"q,\"\"x\"\"\"",
        "\"multi\nline\"",
        "\"a,b\"",
        "café",
        "日本語",
        "a\"b\"c",
        " pad ",
        "\"\"",
        &long,
        &long_quoted,
    ];
    let mut state = seed | 1;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut text = String::from("A,B,C,D\n");
    for _ in 0..rows {
        let row: Vec<&str> = (0..4).map(|_| values[next(values.len())]).collect();
        text.push_str(&row.join(","));
        text.push_str(["\n", "\r\n", "\n\n", "\r\n\r\n"][next(4)]);
    }
    if next(2) == 0 {
        text.pop();
    }
    text
}

#[test]
fn the_block_splitter_agrees_with_a_character_by_character_reference() {
    for seed in 1..=40 {
        let text = generated_csv(seed, 60);
        let expected = reference_records(&text);
        assert_eq!(expected[0].1, ["A", "B", "C", "D"], "seed {seed}");
        let rows = expected[1..].to_vec();
        let path = scratch_file(&format!("generated-{seed}.csv"), text.as_bytes());
        assert_eq!(in_memory(&CsvTable::read(&path).unwrap()), rows, "seed {seed}, in memory");
        for capacity in [1, 5, 64, 4096] {
            assert_eq!(streamed(&path, capacity).unwrap(), rows, "seed {seed}, {capacity}-byte buffer");
            for last in 0..4 {
                let leading: Vec<(usize, Vec<String>)> =
                    rows.iter().map(|(line, fields)| (*line, fields[..=last].to_vec())).collect();
                assert_eq!(streamed_up_to(&path, capacity, last).unwrap(), leading, "seed {seed}, last {last}");
            }
        }
    }
}

#[test]
fn every_instruction_set_splits_the_same_records() {
    let cpu = Instructions::of_cpu();
    let sets: Vec<Instructions> = [Instructions::Baseline, Instructions::Popcnt, Instructions::Avx2]
        .into_iter()
        .filter(|set| match set {
            Instructions::Baseline => true,
            Instructions::Popcnt => cpu != Instructions::Baseline,
            Instructions::Avx2 => cpu == Instructions::Avx2,
        })
        .collect();
    for seed in 1..=40 {
        let text = generated_csv(seed, 60);
        let expected = reference_records(&text);
        for &instructions in &sets {
            let mut bytes = text.clone().into_bytes();
            let mut splitter = Splitter { instructions, ..Splitter::default() };
            let (mut pos, mut records) = (0, Vec::new());
            while let Split::Record(line) = splitter.next(&mut bytes, &mut pos, true) {
                let record = &bytes[splitter.start..splitter.end];
                let fields = splitter.fields.iter().map(|&(a, b)| String::from_utf8_lossy(&record[a..b]).into_owned());
                records.push((line, fields.collect::<Vec<_>>()));
            }
            assert_eq!(records, expected, "seed {seed}, {instructions:?}");
        }
    }
}
