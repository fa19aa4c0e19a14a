use super::*;
use crate::test_fixtures::{fixture, INFO_23_0_RC1, INFO_24_1_0, INFO_25_5_6};

fn error_of(text: &str) -> (usize, String) {
    match parse_info(text).unwrap_err() {
        AscendError::Output { tool, line, reason } => {
            assert_eq!(tool, INFO_TOOL);
            (line, reason)
        }
        other => panic!("unexpected error {other}"),
    }
}

fn replace_line(text: &str, line: usize, new: &str) -> String {
    text.lines().enumerate().map(|(i, l)| format!("{}\n", if i + 1 == line { new } else { l })).collect()
}

#[test]
fn npu_smi_25_5_6_four_910b2() {
    let info = parse_info(&fixture(INFO_25_5_6)).unwrap();
    assert_eq!(info.version.as_deref(), Some("25.5.6"));
    let ids: Vec<u32> = info.chips.iter().map(|c| c.npu).collect();
    assert_eq!(ids, [4, 5, 6, 7]);
    assert!(info.chips.iter().all(|c| c.name == "910B2" && c.health == "OK" && c.chip == 0));
    let buses: Vec<&str> = info.chips.iter().map(|c| c.bus_id.as_str()).collect();
    assert_eq!(buses, ["0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0"]);
    let power: Vec<Option<f64>> = info.chips.iter().map(|c| c.power_w).collect();
    assert_eq!(power, [Some(92.8), Some(92.0), Some(92.8), Some(89.3)]);
    let temps: Vec<Option<f64>> = info.chips.iter().map(|c| c.temperature_c).collect();
    assert_eq!(temps, [Some(39.0), Some(36.0), Some(37.0), Some(37.0)]);
    let hbm_used: Vec<Option<u64>> = info.chips.iter().map(|c| c.hbm_used_mib).collect();
    assert_eq!(hbm_used, [Some(3405), Some(3406), Some(3405), Some(3404)]);
    assert!(info.chips.iter().all(|c| c.hbm_total_mib == Some(65536) && c.device_memory_mib() == Some(65536)));
    assert!(info.chips.iter().all(|c| c.memory_used_mib == Some(0) && c.memory_total_mib == Some(0)));
    assert!(info.chips.iter().all(|c| c.aicore_pct == Some(0.0) && c.hugepages_total == Some(0)));
    assert_eq!(info.chips.iter().map(|c| c.line).collect::<Vec<_>>(), [7, 10, 13, 16]);
    assert!(info.processes.is_empty(), "every NPU says `No running processes found`");
}

#[test]
fn npu_smi_24_1_0_eight_910a_named_910b() {
    let info = parse_info(&fixture(INFO_24_1_0)).unwrap();
    assert_eq!(info.version.as_deref(), Some("24.1.0"));
    assert_eq!(info.chips.len(), 8);
    assert_eq!(info.chips.iter().map(|c| c.npu).collect::<Vec<_>>(), (0..8).collect::<Vec<_>>());
    assert!(info.chips.iter().all(|c| c.name == "910B"), "the Name column says 910B on this 910A board");
    let buses: Vec<&str> = info.chips.iter().map(|c| c.bus_id.as_str()).collect();
    assert_eq!(
        buses,
        [
            "0000:C1:00.0",
            "0000:81:00.0",
            "0000:41:00.0",
            "0000:01:00.0",
            "0000:C2:00.0",
            "0000:82:00.0",
            "0000:42:00.0",
            "0000:02:00.0"
        ]
    );
    let power: Vec<f64> = info.chips.iter().filter_map(|c| c.power_w).collect();
    assert_eq!(power, [70.0, 66.9, 69.8, 67.2, 68.9, 66.3, 70.1, 65.6]);
    let memory: Vec<Option<u64>> = info.chips.iter().map(|c| c.memory_total_mib).collect();
    let expected = [13553, 15665, 15665, 15567, 13553, 15665, 15665, 15567].map(Some);
    assert_eq!(memory, expected, "Memory-Usage is the board's DDR, not the device memory");
    let hbm_used: Vec<Option<u64>> = info.chips.iter().map(|c| c.hbm_used_mib).collect();
    assert_eq!(hbm_used, [1365, 4, 4, 3, 3, 5, 5, 4].map(Some));
    assert!(info.chips.iter().all(|c| c.device_memory_mib() == Some(32768)));
    assert!(info.processes.is_empty());
}

#[test]
fn npu_smi_23_0_rc1_910prob_with_blank_line_and_a_process() {
    let info = parse_info(&fixture(INFO_23_0_RC1)).unwrap();
    assert_eq!(info.version.as_deref(), Some("23.0.rc1"));
    let [chip] = info.chips.as_slice() else { panic!("one NPU expected: {:?}", info.chips) };
    assert_eq!((chip.npu, chip.chip, chip.name.as_str(), chip.health.as_str()), (0, 0, "910ProB", "OK"));
    assert_eq!(chip.bus_id, "0000:C1:00.0");
    assert_eq!((chip.power_w, chip.temperature_c), (Some(78.4), Some(33.0)));
    assert_eq!((chip.memory_used_mib, chip.memory_total_mib), (Some(1198), Some(15137)));
    assert_eq!((chip.hbm_used_mib, chip.hbm_total_mib), (Some(30711), Some(32768)), "`30711/ 32768` spacing");
    assert_eq!(info.processes, [NpuProcess { npu: 0, chip: 0, pid: 55115, name: "python".into(), memory_mib: 30784 }]);
}

#[test]
fn crlf_output_parses_the_same() {
    for name in [INFO_25_5_6, INFO_24_1_0, INFO_23_0_RC1] {
        let text = fixture(name);
        assert_eq!(parse_info(&text.replace('\n', "\r\n")).unwrap(), parse_info(&text).unwrap(), "{name}");
    }
}

#[test]
fn empty_and_non_table_output() {
    assert_eq!(error_of(""), (1, "empty output".to_owned()));
    let (line, reason) = error_of("dcmi module initialize failed. ret is -8005\n");
    assert_eq!(line, 1);
    assert!(reason.contains("not a table line") && reason.contains("-8005"), "{reason}");
    let title_only: String = fixture(INFO_25_5_6).lines().take(3).map(|l| format!("{l}\n")).collect();
    let (line, reason) = error_of(&title_only);
    assert_eq!(line, 3);
    assert!(reason.contains("no `NPU Name | Health"), "{reason}");
}

#[test]
fn truncated_tables() {
    let text = fixture(INFO_25_5_6);
    let after_first_row: String = text.lines().take(7).map(|l| format!("{l}\n")).collect();
    let (line, reason) = error_of(&after_first_row);
    assert_eq!(line, 7);
    assert!(reason.contains("NPU 4's first row"), "{reason}");

    let mut cut_mid_line: String = text.lines().take(7).map(|l| format!("{l}\n")).collect();
    cut_mid_line.push_str("| 0                         | 0000:01:00.0  | 0     ");
    let (line, reason) = error_of(&cut_mid_line);
    assert_eq!(line, 8);
    assert!(reason.contains("not a table line"), "{reason}");

    let header_only: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
    let (line, reason) = error_of(&header_only);
    assert_eq!(line, 4);
    assert!(reason.contains("`Chip | Bus-Id | …` header row is missing"), "{reason}");
}

#[test]
fn missing_second_row() {
    let text = fixture(INFO_24_1_0);
    let without_row_8: String =
        text.lines().enumerate().filter(|(i, _)| *i != 7).map(|(_, l)| format!("{l}\n")).collect();
    let (line, reason) = error_of(&without_row_8);
    assert_eq!(line, 8, "the border that follows NPU 0's first row");
    assert!(reason.contains("NPU 0 has no second"), "{reason}");
}

#[test]
fn rows_missing_a_cell_or_a_value() {
    let text = fixture(INFO_25_5_6);
    let no_bus_cell =
        replace_line(&text, 8, "| 0                         | 0           0    / 0          3405 / 65536         |");
    let (line, reason) = error_of(&no_bus_cell);
    assert_eq!(line, 8);
    assert!(reason.contains("expected 3 cells, found 2"), "{reason}");

    let no_hbm = replace_line(
        &text,
        11,
        "| 0                         | 0000:02:00.0  | 0           0    / 0                        |",
    );
    let (line, reason) = error_of(&no_hbm);
    assert_eq!(line, 11);
    assert!(reason.contains("expected 3 values") && reason.contains("HBM-Usage(MB)"), "{reason}");

    let no_name = replace_line(
        &text,
        10,
        "| 5                         | OK            | 92.0        36                0    / 0             |",
    );
    let (line, reason) = error_of(&no_name);
    assert_eq!(line, 10);
    assert!(reason.contains("NPU 5 has no name"), "{reason}");
}

#[test]
fn values_of_the_wrong_kind() {
    let text = fixture(INFO_25_5_6);
    let bad_power = replace_line(
        &text,
        7,
        "| 4     910B2               | OK            | abc         39                0    / 0             |",
    );
    let (line, reason) = error_of(&bad_power);
    assert_eq!(line, 7);
    assert!(reason.contains("Power(W) is not a number: `abc`"), "{reason}");

    let single_hbm = replace_line(
        &text,
        8,
        "| 0                         | 0000:01:00.0  | 0           0    / 0          3405 65536           |",
    );
    let (line, reason) = error_of(&single_hbm);
    assert_eq!(line, 8);
    assert!(reason.contains("expected 3 values"), "{reason}");

    let bad_npu = replace_line(
        &text,
        13,
        "| x6    910B2               | OK            | 92.8        37                0    / 0             |",
    );
    let (line, reason) = error_of(&bad_npu);
    assert_eq!(line, 13);
    assert!(reason.contains("NPU id is not a whole number: `x6`"), "{reason}");
}

#[test]
fn bad_process_rows() {
    let text = fixture(INFO_23_0_RC1);
    let short = replace_line(&text, 14, "| 0       0            | 55115         | python                   |");
    let (line, reason) = error_of(&short);
    assert_eq!(line, 14);
    assert!(reason.contains("expected 4 cells in a process row"), "{reason}");
    let bad_pid = replace_line(
        &text,
        14,
        "| 0       0            | pid           | python                   | 30784                   |",
    );
    let (line, reason) = error_of(&bad_pid);
    assert_eq!(line, 14);
    assert!(reason.contains("process id is not a whole number"), "{reason}");
}
