use super::*;
use crate::test_fixtures::{bundle_section, fixture};

const TOOL: &str = "nvidia-smi --query-gpu";

#[test]
fn h200_probe_query_by_header_name() {
    let table = QueryTable::parse(TOOL, &fixture("h200-probe/query.csv")).unwrap();
    assert_eq!(table.fields().len(), 16);
    assert_eq!(table.fields()[8], QueryField { name: "memory.total".into(), unit: Some("MiB".into()) });
    assert_eq!(table.fields()[12], QueryField { name: "temperature.gpu".into(), unit: None });
    assert_eq!(table.len(), 1);
    let row = table.rows().next().unwrap();
    assert_eq!(row.line(), 2);
    assert_eq!(row.text("name"), Some("NVIDIA H200"));
    assert_eq!(row.text("pci.bus_id"), Some("00000000:00:06.0"));
    assert_eq!(row.whole("memory.total", "MiB").unwrap(), Some(143771));
    assert_eq!(row.whole("memory.used", "MiB").unwrap(), Some(0));
    assert_eq!(row.number("utilization.gpu", "%").unwrap(), Some(0.0));
    assert_eq!(row.whole_u32("clocks.current.sm", "MHz").unwrap(), Some(345));
    assert_eq!(row.whole_u32("clocks.current.memory", "MHz").unwrap(), Some(3201));
    assert_eq!(row.whole_u32("clocks.max.sm", "MHz").unwrap(), Some(1980));
    assert_eq!(row.number("temperature.gpu", "C").unwrap(), Some(38.0));
    assert_eq!(row.number("power.draw", "W").unwrap(), Some(79.25));
    assert_eq!(row.number("power.limit", "W").unwrap(), Some(700.0));
    assert_eq!(row.bitmask("clocks_event_reasons.active").unwrap(), Some(1));
    assert_eq!(row.text("not.a.column"), None);
    assert_eq!(row.number("not.a.column", "W").unwrap(), None);
    assert_eq!(row.to_map().get("driver_version"), Some(&Some("580.159.04")));
}

#[test]
fn h100_bundle_wide_query_with_markers() {
    let idle = QueryTable::parse(TOOL, &bundle_section("idle :: query-gpu (csv, what the exporter parses)")).unwrap();
    assert_eq!(idle.fields().len(), 212);
    let row = idle.rows().next().unwrap();
    assert_eq!(row.text("name"), Some("NVIDIA H100 80GB HBM3"));
    assert_eq!(row.number("utilization.gpu", "%").unwrap(), None, "[N/A] under MIG");
    assert_eq!(row.text("power.management"), None, "[Requested functionality has been deprecated]");
    assert_eq!(row.text("platform.chassis_serial_number"), None, "empty cell");
    assert_eq!(row.whole("memory.used", "MiB").unwrap(), Some(59));
    assert_eq!(row.number("power.draw", "W").unwrap(), Some(71.15));
    assert_eq!(row.number("enforced.power.limit", "W").unwrap(), Some(700.0));
    assert_eq!(row.bitmask("clocks_event_reasons.active").unwrap(), Some(0x1));
    assert_eq!(row.bitmask("clocks_event_reasons.supported").unwrap(), Some(0x1ff));
    assert_eq!(row.whole_u32("clocks.max.memory", "MHz").unwrap(), Some(2619));
    assert_eq!(row.text("compute_cap"), Some("9.0"));
    let load = QueryTable::parse(TOOL, &bundle_section("load :: query-gpu (csv, what the exporter parses)")).unwrap();
    let row = load.rows().next().unwrap();
    assert_eq!(row.whole("memory.used", "MiB").unwrap(), Some(11125));
    assert_eq!(row.number("power.draw", "W").unwrap(), Some(433.78));
    assert_eq!(row.whole_u32("clocks.current.sm", "MHz").unwrap(), Some(1980));
    assert_eq!(row.number("temperature.gpu", "C").unwrap(), Some(53.0));
    assert_eq!(row.bitmask("clocks_event_reasons.active").unwrap(), Some(0));
}

#[test]
fn header_only_is_an_empty_table() {
    let table = QueryTable::parse(TOOL, "pid, process_name, used_gpu_memory [MiB]\n").unwrap();
    assert!(table.is_empty());
    assert!(table.has("used_gpu_memory"));
}

#[test]
fn missing_column_names_the_header_line() {
    let text = "index, uuid, memory.total [MiB]\n0, GPU-x, 143771 MiB\n";
    let table = QueryTable::parse(TOOL, text).unwrap();
    let err = table.require(&["index", "name", "memory.total"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "nvidia-smi --query-gpu: unexpected output at line 1: missing column(s) name in the header"
    );
}

#[test]
fn short_row_is_an_error_with_its_line() {
    let text = "index, name, memory.total [MiB]\n0, NVIDIA H200, 143771 MiB\n1, NVIDIA H200\n";
    let err = QueryTable::parse(TOOL, text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "nvidia-smi --query-gpu: unexpected output at line 3: expected 3 fields, found 2: `1, NVIDIA H200`"
    );
}

#[test]
fn garbage_and_empty_output() {
    let err = QueryTable::parse(TOOL, "Segmentation fault (core dumped)\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "nvidia-smi --query-gpu: unexpected output at line 1: expected a CSV header of field names, found `Segmentation fault (core dumped)`"
    );
    let err = QueryTable::parse(TOOL, "\n  \n").unwrap_err();
    assert!(err.to_string().contains("empty output"), "{err}");
}

#[test]
fn wrong_unit_and_bad_value_are_errors() {
    let table = QueryTable::parse(TOOL, "memory.total [MiB], power.draw [W]\n14 GiB, lots\n").unwrap();
    let row = table.rows().next().unwrap();
    let err = row.whole("memory.total", "MiB").unwrap_err();
    assert_eq!(
        err.to_string(),
        "nvidia-smi --query-gpu: unexpected output at line 2: memory.total: expected a number in MiB, found `14 GiB`"
    );
    let err = row.number("memory.total", "KiB").unwrap_err();
    assert!(err.to_string().contains("column memory.total is in MiB, expected KiB"), "{err}");
    let err = row.number("power.draw", "W").unwrap_err();
    assert!(err.to_string().contains("power.draw: expected a number in W, found `lots`"), "{err}");
}
