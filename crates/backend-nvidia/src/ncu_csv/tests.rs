use super::*;
use crate::test_fixtures::fixture;

const TOOL: &str = "ncu --csv --page details";

fn error(text: &str) -> String {
    read_records(TOOL, text).unwrap_err().to_string()
}

#[test]
fn the_preamble_before_the_header_is_skipped() {
    // `grep -n '^"ID"' ncu-details.csv` = 5: a WARNING, two ==PROF== lines and the
    // workload's own `steps 1` come first.
    let text = fixture("h200-probe/ncu-details.csv");
    assert_eq!(header_position(&text).map(|(line, _)| line), Some(5));
    let records = read_records(TOOL, &text).unwrap();
    assert_eq!(records[0].line, 5);
    assert_eq!(records[0].fields.len(), 20);
    assert_eq!(records[0].fields[14], "Metric Value");
    // `wc -l` = 353 lines, 348 rows under the header.
    assert_eq!(records.len(), 349);
    assert_eq!(records[1].fields[14], "3,188,549,160.67");
    assert_eq!(records[1].fields.len(), 16, "metric rows end with an empty field after the value");
    assert_eq!(records.last().unwrap().line, 353);
    // The GTX 1080 recording: the workload's output and two ==PROF== lines, header on line 6.
    let gtx = fixture("ncu/microgpusim_gtx1080_ncu-raw-csv_with-preamble.txt");
    assert_eq!(header_position(&gtx).map(|(line, _)| line), Some(6));
    assert_eq!(read_records("ncu --csv --page raw", &gtx).unwrap().len(), 5);
}

#[test]
fn quoting_line_ends_and_messages_between_records() {
    let text = "==PROF== Connected\r\n\"ID\",\"Process ID\",\"Note\"\r\n\"0\",\"1\",\"a, \"\"quoted\"\" one\"\r\n\
                ==PROF== Disconnected from process 1\n\n\"1\",\"2\",\"two\nlines\"\n\"2\",\"3\",\n";
    let records = read_records(TOOL, text).unwrap();
    assert_eq!(records.len(), 4);
    assert_eq!(records[1], Record { line: 3, fields: vec!["0".into(), "1".into(), "a, \"quoted\" one".into()] });
    assert_eq!(records[2], Record { line: 6, fields: vec!["1".into(), "2".into(), "two\nlines".into()] });
    assert_eq!(records[3], Record { line: 8, fields: vec!["2".into(), "3".into(), String::new()] });
    assert!(is_ncu_message("==WARNING== No kernels were profiled."));
    assert!(!is_ncu_message("== not a tag"));
    assert!(!is_ncu_message("steps 1"));
}

#[test]
fn bad_input_names_the_line() {
    assert_eq!(
        error(""),
        "ncu --csv --page details: unexpected output at line 1: the output is empty: no CSV header and no rows"
    );
    assert!(error("  \n\n").contains("the output is empty"));
    let semicolons = fixture("h200-probe/ncu-details.csv").replace("\",\"", "\";\"");
    let err = error(&semicolons);
    assert!(err.contains("no ncu CSV header found") && err.contains("`,` as the delimiter"), "{err}");
    let cut = "\"ID\",\"Process ID\"\n\"0\",\"63";
    assert_eq!(
        error(cut),
        "ncu --csv --page details: unexpected output at line 2: the record ends inside a quoted field: the output is truncated"
    );
    let tabs = "\"ID\",\"Process ID\"\n\"0\"\t\"1\"\n";
    assert!(error(tabs).contains("line 2: expected `,` after a closing quote, found `\t`"), "{}", error(tabs));
    let stray = "\"ID\",\"Process ID\"\n0,ab\"c\n";
    assert!(error(stray).contains("line 2: stray quote"), "{}", error(stray));
    let failed = "\"ID\",\"Process ID\"\n==ERROR== The file does not exist or is not a regular file.\n";
    assert!(
        error(failed).contains("line 2: ncu reported an error: `==ERROR== The file does not exist"),
        "{}",
        error(failed)
    );
}

#[test]
fn launch_columns() {
    let text = fixture("h200-probe/ncu-raw.csv");
    let records = read_records("ncu --csv --page raw", &text).unwrap();
    let columns = Columns::new(&records[0]);
    // Row 3 of the page (ID 0): the cudnn SDPA kernel, as `head -7 ncu-raw.csv | tail -1` shows.
    let launch = LaunchInfo::from_record(&columns, &records[2], "raw").unwrap();
    assert_eq!(launch.id, 0);
    assert_eq!(launch.process_id, Some(812));
    assert_eq!(launch.process_name.as_deref(), Some("python3.12"));
    assert!(launch.kernel.starts_with("cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16"));
    assert_eq!(launch.device, Some(0));
    assert_eq!(launch.compute_capability.as_deref(), Some("9.0"));
    assert_eq!((launch.block_size.as_deref(), launch.grid_size.as_deref()), (Some("(128, 1, 1)"), Some("(8, 32, 1)")));
    let mut bad = records[2].clone();
    bad.fields[0] = "zero".into();
    let err = LaunchInfo::from_record(&columns, &bad, "raw").unwrap_err().to_string();
    assert_eq!(err, "raw: unexpected output at line 7: expected a launch ID, found `zero`");
    bad.fields[0] = "0".into();
    bad.fields[4] = String::new();
    let err = LaunchInfo::from_record(&columns, &bad, "raw").unwrap_err().to_string();
    assert_eq!(err, "raw: unexpected output at line 7: launch 0 has no kernel name");
    assert!(columns.require("raw", 5, "Metric Value").unwrap_err().to_string().contains("no \"Metric Value\" column"));
}
