use super::*;

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
    let err = parse("Name,Type,Duration(us)\nA,B,1\nC,D").unwrap_err().to_string();
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
