//! Expected values were read off the samples with
//! `python3 -c "import sys;print({k.strip():v.strip() for k,v in (l.split(':',1) for l in open(sys.argv[1]) if ':' in l)})" FILE`
//! and their line numbers with `grep -n 'Chip ID\|Ctrlcpu\|HBM Usage' FILE`.

use super::*;
use crate::test_fixtures::fixture;

/// The MindCluster FaultDiag guide's `-t usages -i 0` example (npu-smi 23.0.5).
pub(crate) const USAGES_MIND_CLUSTER: &str = "npu-smi/mind-cluster_npu-smi-23.0.5_t-usages-i0.txt";
/// telegraf's npu_smi test data for `-t usages` (npu-smi 25.5.1, 910B).
pub(crate) const USAGES_TELEGRAF: &str = "npu-smi/yunionio-telegraf_npu-smi-25.5.1_910B_t-usages-i0.txt";

fn error_of(text: &str) -> (usize, String) {
    match parse_usages(text).unwrap_err() {
        AscendError::Output { tool, line, reason } => {
            assert_eq!(tool, USAGES_TOOL);
            (line, reason)
        }
        other => panic!("unexpected error {other}"),
    }
}

#[test]
fn mind_cluster_guide_example() {
    // {'NPU ID': '0', 'Chip Count': '1', 'DDR Capacity(MB)': '13553', 'DDR Usage Rate(%)': '6',
    //  'DDR Hugepages Total(page)': '0', 'DDR Hugepages Usage Rate(%)': '0', 'HBM Capacity(MB)': '32768',
    //  'HBM Usage Rate(%)': '0', 'Aicore Usage Rate(%)': '0', 'Aicpu Usage Rate(%)': '0',
    //  'Ctrlcpu Usage Rate(%)': '0', 'DDR Bandwidth Usage Rate(%)': '0', 'HBM Bandwidth Usage Rate(%)': '0',
    //  'Chip ID': '0'}; `Chip ID` on line 15.
    let info = parse_usages(&fixture(USAGES_MIND_CLUSTER)).unwrap();
    assert_eq!((info.npu, info.chip_count), (0, Some(1)));
    assert!(info.notes.is_empty());
    let [chip] = info.chips.as_slice() else { panic!("{info:?}") };
    assert_eq!((chip.chip, chip.line), (0, 15));
    assert_eq!((chip.ddr_capacity_mib, chip.ddr_usage_pct), (Some(13553), Some(6.0)));
    assert_eq!((chip.ddr_hugepages_total, chip.ddr_hugepages_usage_pct), (Some(0), Some(0.0)));
    assert_eq!((chip.hbm_capacity_mib, chip.hbm_usage_pct), (Some(32768), Some(0.0)));
    assert_eq!(
        (chip.aicore_usage_pct, chip.aicpu_usage_pct, chip.ctrlcpu_usage_pct),
        (Some(0.0), Some(0.0), Some(0.0))
    );
    assert_eq!((chip.ddr_bandwidth_usage_pct, chip.hbm_bandwidth_usage_pct), (Some(0.0), Some(0.0)));
    // This version prints no Aivector / Aicube / NPU Utilization lines: unknown, not 0.
    assert_eq!((chip.aivector_usage_pct, chip.aicube_usage_pct, chip.npu_utilization_pct), (None, None, None));
    assert!(chip.other.is_empty());
}

#[test]
fn telegraf_910b_sample() {
    // {'NPU ID': '0', 'Chip Count': '1', 'DDR Capacity(MB)': '0', ..., 'HBM Capacity(MB)': '65536',
    //  'HBM Usage Rate(%)': '5', 'Aicore Usage Rate(%)': '0', 'Aivector Usage Rate(%)': '0',
    //  'Aicpu Usage Rate(%)': '0', 'Ctrlcpu Usage Rate(%)': '6', 'DDR Bandwidth Usage Rate(%)': '0',
    //  'HBM Bandwidth Usage Rate(%)': '0', 'NPU Utilization(%)': '0', 'Aicube Usage Rate(%)': '0',
    //  'Chip ID': '0'}; `Chip ID` on line 18.
    let info = parse_usages(&fixture(USAGES_TELEGRAF)).unwrap();
    assert_eq!((info.npu, info.chip_count), (0, Some(1)));
    let [chip] = info.chips.as_slice() else { panic!("{info:?}") };
    assert_eq!((chip.chip, chip.line), (0, 18));
    assert_eq!((chip.ddr_capacity_mib, chip.ddr_usage_pct), (Some(0), Some(0.0)));
    assert_eq!((chip.hbm_capacity_mib, chip.hbm_usage_pct), (Some(65536), Some(5.0)));
    assert_eq!((chip.ctrlcpu_usage_pct, chip.aicpu_usage_pct), (Some(6.0), Some(0.0)));
    assert_eq!(
        (chip.aicore_usage_pct, chip.aivector_usage_pct, chip.aicube_usage_pct),
        (Some(0.0), Some(0.0), Some(0.0))
    );
    assert_eq!((chip.npu_utilization_pct, chip.hbm_bandwidth_usage_pct), (Some(0.0), Some(0.0)));
    assert!(chip.other.is_empty() && info.notes.is_empty());
}

#[test]
fn tab_indentation_padding_and_crlf_parse_the_same() {
    let text = fixture(USAGES_TELEGRAF);
    let expected = parse_usages(&text).unwrap();
    let tabbed = text.replace("        ", "\t");
    assert!(tabbed.starts_with("\tNPU ID"));
    assert_eq!(parse_usages(&tabbed).unwrap(), expected);
    assert_eq!(parse_usages(&text.replace('\n', "\r\n")).unwrap(), expected);
    // No padding before the `:` at all.
    let tight: String = text
        .lines()
        .map(|l| l.split_once(':').map_or(format!("{l}\n"), |(k, v)| format!("{}:{v}\n", k.trim_end())))
        .collect();
    assert!(tight.contains("\tHBM Usage Rate(%): 5") || tight.contains("        HBM Usage Rate(%): 5"), "{tight}");
    assert_eq!(parse_usages(&tight).unwrap(), expected);
}

#[test]
fn a_rate_that_is_not_a_number_is_left_out_with_a_note() {
    let text =
        fixture(USAGES_TELEGRAF).replace("Ctrlcpu Usage Rate(%)          : 6", "Ctrlcpu Usage Rate(%)          : NA");
    let info = parse_usages(&text).unwrap();
    assert_eq!(info.chips[0].ctrlcpu_usage_pct, None, "not a number: absent, never 0");
    assert_eq!(info.chips[0].hbm_usage_pct, Some(5.0), "the other rates are kept");
    assert_eq!(info.notes, ["line 13: Ctrlcpu Usage Rate(%) is not a number: `NA`; left out"]);
}

#[test]
fn unknown_keys_are_kept_aside() {
    let text = fixture(USAGES_MIND_CLUSTER)
        .replace("        Chip ID", "        DVPP VDEC Usage Rate(%)        : 3\n        Chip ID");
    let info = parse_usages(&text).unwrap();
    assert_eq!(info.chips[0].other, [("DVPP VDEC Usage Rate(%)".to_owned(), "3".to_owned())]);
    assert_eq!(info.chips[0].line, 16);
}

#[test]
fn bad_input_names_the_line() {
    assert_eq!(error_of(""), (1, "empty output".to_owned()));
    assert_eq!(error_of("\n   \n"), (1, "empty output".to_owned()));

    let text = fixture(USAGES_TELEGRAF);
    let truncated: String = text.lines().take(10).map(|l| format!("{l}\n")).collect();
    let (line, reason) = error_of(&truncated);
    assert_eq!(line, 10);
    assert!(reason.contains("from line 4 on have no `Chip ID`"), "{reason}");

    let head_only: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    let (line, reason) = error_of(&head_only);
    assert_eq!(line, 3);
    assert!(reason.contains("Chip Count is 1 but 0 chips follow"), "{reason}");

    let no_colon = text.replace("Aicpu Usage Rate(%)            : 0", "Aicpu Usage Rate(%) 0");
    let (line, reason) = error_of(&no_colon);
    assert_eq!(line, 12);
    assert!(reason.contains("expected `key : value`"), "{reason}");

    let bad_chip = text.replace("Chip ID                        : 0", "Chip ID                        : zero");
    let (line, reason) = error_of(&bad_chip);
    assert_eq!(line, 18);
    assert!(reason.contains("Chip ID is not a whole number: `zero`"), "{reason}");

    let (line, reason) = error_of("Usage: npu-smi info -t usages -i <id>\n");
    assert_eq!(line, 1);
    assert!(reason.contains("expected `NPU ID`"), "{reason}");

    let repeated = text.replace("Aicube Usage Rate(%)", "Aicpu Usage Rate(%)");
    let (line, reason) = error_of(&repeated);
    assert_eq!(line, 17);
    assert!(reason.contains("`Aicpu Usage Rate(%)` repeated"), "{reason}");
}
