use super::*;
use crate::ncu_units::{BYTE, HERTZ, NANOSECOND};
use crate::test_fixtures::fixture;

fn details_error(text: &str) -> String {
    parse_details(text).unwrap_err().to_string()
}

fn raw_error(text: &str) -> String {
    parse_raw(text).unwrap_err().to_string()
}

#[test]
fn h200_details_launches_metrics_and_rules() {
    let launches = parse_details(&fixture("h200-probe/ncu-details.csv")).unwrap();
    // `cut -d, -f1 | sort -u` over the rows: IDs 0 to 6, in page order.
    assert_eq!(launches.len(), 7);
    assert_eq!(launches.iter().map(|l| l.launch.id).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5, 6]);
    assert_eq!(launches[6].launch.kernel, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
    assert!(launches[3].launch.kernel.starts_with("void at::<unnamed>::cunn_SoftMaxForwardReg<float, float, float"));
    let first = &launches[0];
    // ID 0 has 50 rows: 44 metrics (SOL 10, WarpStateStats 4, LaunchStats 17, Occupancy 13) and 6 rules.
    assert_eq!((first.metrics.len(), first.rules.len()), (44, 6));
    let dram_clock = &first.metrics[0];
    assert_eq!(
        (dram_clock.name.as_str(), dram_clock.unit.as_str(), dram_clock.text.as_str()),
        ("DRAM Frequency", "hz", "3,188,549,160.67")
    );
    assert_eq!(dram_clock.value, Some(Quantity { value: 3_188_549_160.67, unit: HERTZ.into() }));
    let duration = first.metric(&["GPU Speed Of Light"], &["Duration"]).unwrap();
    assert_eq!(duration.value, Some(Quantity { value: 8896.0, unit: NANOSECOND.into() }), "`8,896` ns");
    let shared = first.metric(&["Launch Statistics"], &["Shared Memory Configuration Size"]).unwrap();
    assert_eq!(shared.value, Some(Quantity { value: 233_472.0, unit: BYTE.into() }), "`233,472` byte");
    let policy = first.metric(&["Launch Statistics"], &["Cluster Scheduling Policy"]).unwrap();
    assert_eq!((policy.text.as_str(), policy.value.as_ref()), ("PolicySpread", None));
    let occupancy_rule = &first.rules[5];
    assert_eq!(occupancy_rule.section, "Occupancy");
    assert_eq!(occupancy_rule.name.as_deref(), Some("TheoreticalOccupancy"));
    assert_eq!(occupancy_rule.kind, "OPT");
    assert_eq!((occupancy_rule.speedup_kind.as_deref(), occupancy_rule.speedup_pct), (Some("local"), Some(87.5)));
    assert!(occupancy_rule
        .message
        .ends_with("limited by the number of required registers, and the required amount of shared memory."));
    let warning = &first.rules[1];
    assert_eq!((warning.name.as_deref(), warning.kind.as_str(), warning.speedup_pct), (Some("CPIStall"), "WRN", None));
}

#[test]
fn full_set_details_in_other_units() {
    // The `--set full` recording prints the same quantities with prefixes: `8.99` us, `233.47` Kbyte.
    let launches = parse_details(&fixture("h200-probe/ncu-full-details.csv")).unwrap();
    assert_eq!(launches.len(), 2);
    let duration = launches[0].metric(&["GPU Speed Of Light"], &["Duration"]).unwrap();
    assert_eq!(duration.value, Some(Quantity { value: 8990.0, unit: NANOSECOND.into() }));
    let shared = launches[0].metric(&["Launch Statistics"], &["Shared Memory Configuration Size"]).unwrap();
    assert_eq!(shared.value.as_ref().map(|q| (q.value, q.unit.as_str())), Some((233_470.0, BYTE)));
    // 31 rule rows (20 fields) in the page, 16 of them for ID 0 (python's csv module).
    assert_eq!(launches.iter().map(|l| l.rules.len()).sum::<usize>(), 31);
    assert_eq!(launches[0].rules.len(), 16);
}

#[test]
fn h200_raw_page_with_units_row() {
    let launches = parse_raw(&fixture("h200-probe/ncu-raw.csv")).unwrap();
    assert_eq!(launches.len(), 7);
    let first = &launches[0];
    assert_eq!(first.launch.id, 0);
    assert_eq!(first.launch.device, Some(0));
    assert_eq!(first.first(&["gpu__time_duration.sum"]), Some(&Quantity { value: 8896.0, unit: NANOSECOND.into() }));
    assert_eq!(first.number("launch__registers_per_thread"), Some(183.0));
    assert_eq!(first.number("launch__shared_mem_config_size"), Some(233_472.0), "`233,472` byte");
    assert_eq!(first.number("sm__throughput.avg.pct_of_peak_sustained_elapsed"), Some(17.27));
    assert_eq!(first.metrics["launch__func_cache_config"].text, "CachePreferNone");
    assert!(!first.metrics.contains_key("launch__kernel_name"), "empty cells are left out");
    // 285 columns: 11 launch columns, 273 metric cells with a value, `launch__kernel_name` empty.
    assert_eq!(first.metrics.len(), 273);
    assert_eq!(launches[6].number("gpu__time_duration.sum"), Some(174_784.0));
}

#[test]
fn gtx1080_2019_raw_page() {
    let launches = parse_raw(&fixture("ncu/microgpusim_gtx1080_ncu-raw-csv_with-preamble.txt")).unwrap();
    assert_eq!(launches.len(), 3);
    assert!(launches.iter().all(|l| l.launch.kernel == "vecAdd" && l.launch.process_id == Some(3_628_380)));
    assert_eq!(launches.iter().map(|l| l.launch.id).collect::<Vec<_>>(), [0, 1, 2]);
    let first = &launches[0];
    // No "Device"/"CC" columns in 2019: device__attribute_device_index `0.00`, CC `6.00`.`1.00`.
    assert_eq!((first.launch.device, first.launch.compute_capability.as_deref()), (Some(0), Some("6.1")));
    assert_eq!(first.first(&["gpu__time_duration"]), Some(&Quantity { value: 2720.0, unit: NANOSECOND.into() }));
    assert_eq!(first.number("dram__read_bytes"), Some(7552.0), "`7,552.00` byte");
    assert_eq!(first.metrics["inst_executed"].value, None, "`32.00; 32.00; …` lists are no number");
    assert!(!first.metrics.contains_key("Kernel Time"), "launch columns are not metrics");
    // 400 columns, all filled: 8 launch columns (through `Stream`) and 392 metrics.
    assert_eq!(first.metrics.len(), 392);
}

#[test]
fn detect_page_by_header() {
    assert_eq!(detect_page(&fixture("h200-probe/ncu-details.csv")), Some(Page::Details));
    assert_eq!(detect_page(&fixture("h200-probe/ncu-raw.csv")), Some(Page::Raw));
    assert_eq!(detect_page(&fixture("ncu/microgpusim_gtx1080_ncu-raw-csv_with-preamble.txt")), Some(Page::Raw));
    assert_eq!(detect_page(&fixture("ncu/ipaco_rtx3050ti-laptop_ncu-default_gemm.txt")), None);
    assert_eq!(detect_page(""), None);
}

#[test]
fn bad_details_pages() {
    let text = fixture("h200-ncu/nvjet-details.csv");
    let header = text.lines().next().unwrap();
    let err = details_error(&format!("==PROF== Disconnected\n{header}\n"));
    assert_eq!(err, "ncu --csv --page details: unexpected output at line 2: the page has a header but no rows: no launch was profiled");
    let no_value = text.replacen("\"Metric Value\"", "\"Value\"", 1);
    assert_eq!(
        details_error(&no_value),
        "ncu --csv --page details: unexpected output at line 1: the header has no \"Metric Value\" column"
    );
    // Cut inside the last row, the page ending there: refused naming the line, whatever the
    // field count (a value cut to fewer digits would still fit it).
    let whole = text.trim_end();
    let err = details_error(&whole[..whole.len() - 3]);
    let last = whole.lines().count();
    assert!(
        err.ends_with(&format!(
            "line {last}: the last row has no line break (the output was cut short); capture it again"
        )),
        "{err}"
    );
    // Rows cut short but ending their line (a hand edit): each check names the line.
    let lines: Vec<&str> = text.lines().collect();
    let third = lines[2];
    let cut = &third[..third.find("\"Ghz\",").unwrap() + 6];
    let err = details_error(&format!("{}\n{}\n{cut}\n", lines[0], lines[1]));
    assert!(err.ends_with("line 3: the metric `SM Frequency` has no value: the row is truncated"), "{err}");
    let before_value = &third[..third.find("\"Ghz\"").unwrap()];
    let err = details_error(&format!("{}\n{before_value}\n", lines[0]));
    assert!(err.ends_with("line 2: 14 fields where 15 are needed: the row is truncated or not `,`-separated"), "{err}");
    let cut_quote = &third[..third.len() - 4];
    assert!(details_error(&format!("{}\n{cut_quote}\n", lines[0]))
        .contains("line 2: the record ends inside a quoted field"));
    let wide = format!("{header}\n{},\"extra\",\"x\",\"y\",\"z\",\"w\"\n", lines[1]);
    assert!(details_error(&wide).contains("line 2: 21 fields, but the header has 20"), "{}", details_error(&wide));
    let speedup = text.replacen("\"local\",\"97.05\"", "\"local\",\"lots\"", 1);
    assert!(
        details_error(&speedup).contains("expected an estimated speedup, found `lots`"),
        "{}",
        details_error(&speedup)
    );
    let renamed = text.replacen(
        "\"2\",\"691\",\"python3.12\",\"127.0.0.1\",\"nvjet_sm90_tst_256x128",
        "\"0\",\"691\",\"python3.12\",\"127.0.0.1\",\"nvjet_sm90_tst_256x128",
        1,
    );
    assert!(details_error(&renamed).contains("launch ID 0 names two kernels"), "{}", details_error(&renamed));
}

#[test]
fn bad_raw_pages() {
    let text = fixture("h200-ncu/nvjet-raw.csv");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "header, units and 3 launches");
    let no_units = [lines[0], lines[2], lines[3], ""].join("\n");
    assert_eq!(
        raw_error(&no_units),
        "ncu --csv --page raw: unexpected output at line 2: expected the units row (empty launch columns, then \
         one unit per metric) after the header, found a launch row"
    );
    assert!(raw_error(&format!("{}\n", lines[0])).contains("line 1: the page has a header but no rows"));
    let units_only = format!("{}\n", lines[..2].join("\n"));
    assert!(raw_error(&units_only).contains("line 2: the page has a header and units but no launch rows"));
    let half = &lines[3][..lines[3].len() / 2];
    let truncated = format!("{}\n{}\n{}\n{half}", lines[0], lines[1], lines[2]);
    let err = raw_error(&truncated);
    assert!(
        err.starts_with("ncu --csv --page raw: unexpected output at line 4: the last row has no line break"),
        "{err}"
    );
    let at_comma = &lines[3][..lines[3][..lines[3].len() / 2].rfind("\",").unwrap() + 2];
    let err = raw_error(&format!("{}\n{}\n{at_comma}\n", lines[0], lines[1]));
    assert!(err.contains("line 3: ") && err.contains("fields where 794 are needed"), "{err}");
    let missing_id = text.replacen("\"ID\"", "\"Launch\"", 1);
    assert!(raw_error(&missing_id).contains("no ncu CSV header found"));
    assert!(raw_error(&text.replace("\",\"", "\"\t\"")).contains("no ncu CSV header found"));
}

#[test]
fn impossible_durations_name_their_line() {
    // nvjet-details.csv line 7: "Duration","us","174.78" (found with grep -n).
    let text = fixture("h200-ncu/nvjet-details.csv");
    let line = text.lines().position(|l| l.contains("\"Duration\",\"us\",")).unwrap() + 1;
    let row = text.lines().nth(line - 1).unwrap();
    let value = row.split("\"Duration\",\"us\",\"").nth(1).unwrap().split('"').next().unwrap();
    for bad in ["-5", "99999999999999999999999"] {
        let edited =
            text.replacen(&format!("\"Duration\",\"us\",\"{value}\""), &format!("\"Duration\",\"us\",\"{bad}\""), 1);
        let err = details_error(&edited);
        assert!(err.contains(&format!("line {line}: the time `Duration`")), "{err}");
    }
    let raw = fixture("h200-probe/ncu-raw.csv");
    let mut lines: Vec<String> = raw.lines().map(str::to_owned).collect();
    // After four ==PROF== lines: the header (line 5), units (line 6), the first launch (line 7).
    let head = lines.iter().position(|l| l.starts_with("\"ID\",")).unwrap();
    let header: Vec<&str> = lines[head].split("\",\"").collect();
    let at = header.iter().position(|h| *h == "gpu__time_duration.sum").unwrap();
    let mut fields: Vec<String> = lines[head + 2].split("\",\"").map(str::to_owned).collect();
    fields[at] = "-1".to_owned();
    lines[head + 2] = fields.join("\",\"");
    let err = raw_error(&(lines.join("\n") + "\n"));
    assert!(err.contains(&format!("line {}: the time `gpu__time_duration.sum`", head + 3)), "{err}");
}
