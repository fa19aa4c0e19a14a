//! Fuzzes the Ascend op tables on arbitrary bytes: `CsvTable::parse` and, by header,
//! `op_table::append_ops` → `summarize_kernels` (kernel_details.csv, op_summary_*.csv) or
//! `op_statistic::summarize` (op_statistic_*.csv); and, through a temp file, the streaming
//! `op_table_summary::summarize` (`prof analyze --summary-only`), which must give the same
//! summary as loading the file (`op_table::load` + `summarize_kernels`) whenever both succeed,
//! and fail when loading fails, unless the load failed on a column the summary does not read.
//! Never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use prof_backend_ascend::fuzz::csv_table::CsvTable;
use prof_backend_ascend::fuzz::{op_statistic, op_table, op_table_summary};
use prof_core::{Families, NameId, Timeline};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let families = Families::builtin();
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(table) = CsvTable::parse(text, Path::new("kernel_details.csv")) {
            if op_table::is_op_table_header(table.header()) {
                let mut timeline = Timeline::new("kernel_details.csv");
                if op_table::append_ops(&table, &mut timeline).is_ok() {
                    let _ = prof_core::summarize_kernels(&timeline, &families);
                }
            }
            if op_statistic::is_op_statistic_header(table.header()) {
                let _ = op_statistic::summarize(&table, &families);
            }
        }
    }
    let path = std::env::temp_dir().join(format!("prof-fuzz-op-table-{}.csv", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let streamed = op_table_summary::summarize(&path, &families);
    let loaded = op_table::load(&path).map(|timeline| prof_core::summarize_kernels(&timeline, &families));
    match (streamed, loaded) {
        (Ok(streamed), Ok(mut loaded)) => {
            let mut got = streamed.summary;
            for k in got.kernels.iter_mut().chain(loaded.kernels.iter_mut()) {
                k.name_id = NameId(0);
            }
            assert_eq!(got, loaded, "the streaming summary differs from the loaded one");
        }
        // The streaming summary reads only the columns it sums: a bad value in another one
        // (the stream, the block count) fails only the load.
        (Ok(_), Err(e)) => {
            let message = e.to_string();
            let unread = ["column Stream ID ", "column Block Dim ", "column Block Num "];
            assert!(unread.iter().any(|c| message.contains(c)), "streaming summarised what loading rejects: {message}");
        }
        _ => {}
    }
});
