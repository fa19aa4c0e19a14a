//! Expected numbers were computed with python's csv module and decimal µs → ns (ROUND_HALF_UP),
//! e.g. `sum(ns(r["Duration(us)"]) for r in csv.DictReader(f))`, not taken from this parser.

use super::*;
use crate::test_fixtures::{fixture_path, A003_OP_SUMMARY, CANN8_PIPE, KERNEL_DETAILS};
use prof_core::{summarize_kernels, CoreType, Families, Family, OpKind};
use std::collections::HashMap;

fn core_counts(t: &Timeline) -> HashMap<Option<CoreType>, usize> {
    let mut counts = HashMap::new();
    for op in &t.ops {
        *counts.entry(t.details_of(op).and_then(|d| d.core_type)).or_insert(0) += 1;
    }
    counts
}

fn type_total(t: &Timeline, op_type: &str) -> u64 {
    t.ops
        .iter()
        .filter(|op| t.details_of(op).and_then(|d| d.op_type).map(|id| t.name(id)) == Some(op_type))
        .map(|op| op.dur_ns())
        .sum()
}

#[test]
fn kernel_details_ops_totals_and_core_types() {
    let t = load(&fixture_path(KERNEL_DETAILS)).unwrap();
    assert_eq!(t.ops.len(), 591);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns()).sum::<u64>(), 396_807_040);
    let first = &t.ops[0];
    assert_eq!(
        (t.name(first.name()), first.start_ns, first.dur_ns(), first.stream()),
        ("ZerosLike46", 1_699_529_622_790_614_800, 607_980, 16)
    );
    let details = t.details_of(first).unwrap();
    assert_eq!(details.block_dim, Some(48));
    assert_eq!(details.shapes.map(|s| t.name(s)), Some("544404480"));
    let counts = core_counts(&t);
    assert_eq!(counts[&Some(CoreType::Vector)], 520);
    assert_eq!(counts[&Some(CoreType::Mix)], 25);
    assert_eq!(counts[&Some(CoreType::Cube)], 13);
    assert_eq!(counts[&Some(CoreType::Cpu)], 7);
    assert_eq!(counts[&Some(CoreType::Dma)], 7);
    assert_eq!(counts[&None], 19);
    let comm: Vec<_> = t.ops.iter().filter(|o| o.kind() == OpKind::Communication).collect();
    assert_eq!(comm.len(), 19);
    assert!(comm.iter().all(|o| o.stream() == UNKNOWN_STREAM));
    assert_eq!(type_total(&t, "hcom_broadcast_"), 308_989_620);
    assert_eq!(type_total(&t, "MatMul") + type_total(&t, "BatchMatMul"), 14_252_720);
}

#[test]
fn kernel_details_families_through_core() {
    let t = load(&fixture_path(KERNEL_DETAILS)).unwrap();
    let summary = summarize_kernels(&t, &Families::builtin());
    assert_eq!(summary.kernels.len(), 201);
    assert_eq!(summary.kernels[0].name, "hcom_broadcast__445_0");
    assert_eq!(summary.kernels[0].total_ns, 308_926_680);
    assert_eq!(summary.family_ns(Family::Collective), 346_398_740);
    assert_eq!(summary.family_calls(Family::Collective), 19);
    assert_eq!(summary.family_ns(Family::Gemm), 14_252_720);
    assert_eq!(summary.family_calls(Family::Memset), 84);
    let family = |name: &str| summary.kernels.iter().find(|k| k.name == name).map(|k| k.family);
    assert_eq!(family("LayerNorm90"), Some(Family::Norm));
    assert_eq!(family("ScaledMaskedSoftmax98"), Some(Family::Reduction));
    assert_eq!(family("MatMul91"), Some(Family::Gemm));
}

#[test]
fn cann8_op_summary_with_tab_padded_starts() {
    let dir = fixture_path(CANN8_PIPE);
    let t = load(&dir.join("op_summary_20260823165335.csv")).unwrap();
    assert_eq!(t.ops.len(), 3);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns()).sum::<u64>(), 39_322);
    assert_eq!({ t.ops[0].start_ns }, 1_787_504_007_005_868_315);
    assert!(t.ops.iter().all(|o| o.device() == 0 && o.stream() == 46));
    assert_eq!(type_total(&t, "GroupedMatmul"), 26_661);
    let grouped = t.ops.iter().find(|o| t.name(o.name()).contains("GroupedMatmul")).unwrap();
    let details = t.details_of(grouped).unwrap();
    assert_eq!((details.core_type, details.block_dim), (Some(CoreType::Mix), Some(20)));
    assert_eq!(details.shapes.map(|s| t.name(s)), Some("512,16;8,2048,16;;;;;;8"));
    let summary = summarize_kernels(&t, &Families::builtin());
    assert_eq!(summary.kernels[0].family, Family::GroupedMatmul);
}

#[test]
fn renamed_op_summary_on_device_7() {
    let t = load(&fixture_path(A003_OP_SUMMARY)).unwrap();
    assert_eq!(t.ops.len(), 15);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns()).sum::<u64>(), 122_540);
    assert!(t.ops.iter().all(|o| o.device() == 7 && o.stream() == 38));
    let counts = core_counts(&t);
    assert_eq!(
        (counts[&Some(CoreType::Dma)], counts[&Some(CoreType::Vector)], counts[&Some(CoreType::Mix)]),
        (6, 6, 3)
    );
    assert_eq!(type_total(&t, "DSARandomNormal"), 64_780);
    let summary = summarize_kernels(&t, &Families::builtin());
    let kernel = summary.kernels.iter().find(|k| k.name == "matmul_bias_activation_kernel").unwrap();
    assert_eq!((kernel.total_ns, kernel.family), (35_160, Family::Gemm));
}

#[test]
fn bad_rows_name_the_file_line_and_column() {
    let path = std::path::Path::new("kernel_details.csv");
    let header = "Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";
    let table = CsvTable::parse(&format!("{header}A,Add,AI_CORE,N/A,1\n"), path).unwrap();
    let err = append_ops(&table, &mut Timeline::new("t")).unwrap_err().to_string();
    assert!(err.contains("kernel_details.csv:2") && err.contains("Start Time(us)"), "{err}");
    let table = CsvTable::parse(&format!("{header}A,Add,AI_CORE,1,-2\n"), path).unwrap();
    assert!(append_ops(&table, &mut Timeline::new("t")).unwrap_err().to_string().contains("`-2`"));
    let table = CsvTable::parse("Name,Start Time(us)\nA,1\n", path).unwrap();
    let err = append_ops(&table, &mut Timeline::new("t")).unwrap_err().to_string();
    assert!(err.contains("no column Duration(us) / Task Duration(us)"), "{err}");
}

#[test]
fn truncated_real_file_leaves_its_cut_row_out() {
    let text = std::fs::read_to_string(fixture_path(KERNEL_DETAILS)).unwrap();
    let cut = &text[..text.len() - 40];
    let table = CsvTable::parse(cut, std::path::Path::new("kernel_details.csv")).unwrap();
    // 591 data rows in the file (python: csv.reader, header dropped); the 591st, on line 592, was cut.
    assert_eq!(table.len(), 590);
    assert!(table.cut_note().unwrap().starts_with("kernel_details.csv:592: the last row has no line break"));
}

#[test]
fn bom_and_crlf_versions_of_the_real_file_read_the_same() {
    let text = std::fs::read_to_string(fixture_path(KERNEL_DETAILS)).unwrap();
    let windows = format!("\u{feff}{}", text.replace('\n', "\r\n"));
    let table = CsvTable::parse(&windows, std::path::Path::new("kernel_details.csv")).unwrap();
    assert_eq!(table.header().first().map(String::as_str), Some("Step Id"));
    let mut t = Timeline::new("t");
    append_ops(&table, &mut t).unwrap();
    assert_eq!(t.ops.len(), 591);
    assert_eq!(t.ops.iter().map(|o| o.dur_ns()).sum::<u64>(), 396_807_040);
}

#[test]
fn importers_recognize_by_header_and_name() {
    use crate::importers::{OpStatisticImporter, OpTableImporter, ProfileDirImporter, TraceImporter};
    use prof_core::Importer;
    let pipe = fixture_path(CANN8_PIPE);
    assert!(OpTableImporter.recognizes(&fixture_path(KERNEL_DETAILS)));
    assert!(OpTableImporter.recognizes(&fixture_path(A003_OP_SUMMARY)));
    assert!(!OpTableImporter.recognizes(&pipe.join("op_statistic_20260823165335.csv")));
    // task_time is a per-task table too (python csv: 6 rows; without the 3 runtime tasks,
    // PROFILING_ENABLE/DISABLE and TASK_TIMEOUT_SET, 3 rows with task_time(us) summing to 39.320).
    let task_time = pipe.join("task_time_20260823165335.csv");
    assert!(OpTableImporter.recognizes(&task_time));
    let t = OpTableImporter.load(&task_time).unwrap();
    assert_eq!((t.ops.len(), t.ops.iter().map(|o| o.dur_ns()).sum::<u64>()), (3, 39_320));
    assert_eq!(t.unread.iter().map(|(_, n)| n).sum::<u64>(), 3, "{:?}", t.unread);
    assert!(OpStatisticImporter.recognizes(&pipe.join("op_statistic_20260823165335.csv")));
    assert!(TraceImporter.recognizes(&pipe.join("msprof_20260823165334.json")));
    assert!(ProfileDirImporter.recognizes(&pipe));
    assert!(!ProfileDirImporter.recognizes(&fixture_path("npu-smi")));
}

/// Every op as text (names resolved: ids are compared separately), in order.
fn ops_text(t: &Timeline) -> Vec<String> {
    let text = |id| t.name(id).to_owned();
    t.ops
        .iter()
        .map(|op| {
            let d = t.details_of(op).map(|d| (d.block_dim, d.core_type, d.op_type.map(text), d.shapes.map(text)));
            format!(
                "{:?} {} {} {} {} {} {d:?}",
                op.kind(),
                text(op.name()),
                op.device(),
                op.stream(),
                { op.start_ns },
                { op.dur_ns() }
            )
        })
        .collect()
}

/// JSON values equal, numbers to 1e-9 relative (sums in another order round differently).
fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| close(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| close(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn loading_in_parts_gives_the_timeline_and_checks_of_one_reader() {
    // kernel_details (591 rows, 128 kB) and a 15-row op_summary with pipe ratios and `OP State`.
    for (path, counts) in [(fixture_path(KERNEL_DETAILS), &[2, 3, 7][..]), (fixture_path(A003_OP_SUMMARY), &[2, 3][..])]
    {
        let whole = load_with_checks(&path).unwrap();
        assert_eq!(whole.sections.len(), 1, "the checks' section");
        let size = std::fs::metadata(&path).unwrap().len();
        for &parts in counts {
            // A small buffer, so the parts refill like a large file's (and the first part has
            // not read past the split).
            let first = CsvReader::open_with_buffer(&path, 256).unwrap();
            let layout = Layout::of(first.header()).unwrap();
            let joined = load_in_parts(first, &layout, size, parts, true)
                .unwrap_or_else(|| panic!("{} splits in {parts}", path.display()))
                .finish();
            let at = format!("{} in {parts} parts", path.display());
            assert_eq!(ops_text(&joined), ops_text(&whole), "{at}");
            assert_eq!(
                joined.ops.iter().map(|op| op.name()).collect::<Vec<_>>(),
                whole.ops.iter().map(|op| op.name()).collect::<Vec<_>>(),
                "{at}"
            );
            assert_eq!(joined.sections.len(), 1, "{at}");
            assert!(
                close(&joined.sections[0].json, &whole.sections[0].json),
                "{at}: {:#} vs {:#}",
                joined.sections[0].json,
                whole.sections[0].json
            );
            assert_eq!(
                joined.sections[0].table,
                whole.sections[0].table.clone().map(|mut t| {
                    // Percent cells may differ in the last bits; the names, counts and times may not.
                    for (row, other) in t.rows.iter_mut().zip(&joined.sections[0].table.as_ref().unwrap().rows) {
                        for (cell, theirs) in row.iter_mut().zip(other) {
                            if let (prof_timeline::section::Cell::Pct(a), prof_timeline::section::Cell::Pct(b)) =
                                (&cell, theirs)
                            {
                                assert!((a - b).abs() < 1e-9, "{at}");
                                *cell = theirs.clone();
                            }
                        }
                    }
                    t
                }),
                "{at}"
            );
        }
    }
}

#[test]
fn the_checks_in_the_load_are_the_checks_read_alone_and_their_error_spares_the_ops() {
    let path = fixture_path(KERNEL_DETAILS);
    let alone = crate::ascend_report::checks_section(crate::ascend_analysis::read_table(&path));
    assert_eq!(load_with_checks(&path).unwrap().sections, [alone]);
    assert!(load(&path).unwrap().sections.is_empty(), "a profile directory's load leaves the checks to its section");
    // `aiv_vec_fp16_ratio` of the first row (0) made `x`: the checks stop with the line and
    // column, the ops load whole.
    let real = std::fs::read_to_string(&path).unwrap();
    let bad = real.replacen(",587.05,52130051,0,0,0.0822,", ",587.05,52130051,0,x,0.0822,", 1);
    assert_ne!(bad, real);
    let dir = std::env::temp_dir().join(format!("prof-op-table-checks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad_path = dir.join("kernel_details.csv");
    std::fs::write(&bad_path, bad).unwrap();
    let t = load_with_checks(&bad_path).unwrap();
    assert_eq!(t.ops.len(), 591);
    let error = t.sections[0].json["error"].as_str().unwrap().to_owned();
    assert!(
        error.contains("kernel_details.csv:2:") && error.contains("aiv_vec_fp16_ratio") && error.contains("`x`"),
        "{error}"
    );
    // In parts, the part with the bad value fails and one reader reads the file again.
    let first = CsvReader::open(&bad_path).unwrap();
    let layout = Layout::of(first.header()).unwrap();
    let size = std::fs::metadata(&bad_path).unwrap().len();
    assert!(load_in_parts(first, &layout, size, 2, true).is_none());
    std::fs::remove_dir_all(&dir).ok();
}
