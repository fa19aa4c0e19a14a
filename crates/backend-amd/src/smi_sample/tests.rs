use super::*;
use crate::test_fixtures::fixture;
use crate::{amd_smi, rocm_smi_concise};

fn column<T>(devices: &[SampledDevice], pick: impl Fn(&DeviceSample) -> T) -> Vec<T> {
    devices.iter().map(|(_, s)| pick(s)).collect()
}

#[test]
fn mi100_json_maps_every_recorded_reading() {
    let devices = rocm_json_samples("rocm-smi --json", &fixture("smi/telegraf_mi100_rocm571.json")).unwrap();
    assert_eq!(devices.len(), 6);
    // Read from telegraf_mi100_rocm571.json with python's json module, card0..card5.
    assert_eq!(column(&devices, |s| s.device), [0, 1, 2, 3, 4, 5]);
    assert_eq!(column(&devices, |s| s.power_w), [39.0, 37.0, 35.0, 39.0, 39.0, 40.0].map(Some));
    assert_eq!(column(&devices, |s| s.temperature_c), [34.0, 33.0, 34.0, 35.0, 34.0, 35.0].map(Some));
    let card0 = &devices[0].1;
    assert_eq!((card0.gpu_util_pct, card0.mem_util_pct), (Some(0.0), Some(0.0)));
    assert_eq!((card0.mem_used_bytes, card0.mem_total_bytes), (Some(6_782_976), Some(34_342_961_152)));
    assert_eq!((card0.sm_clock_mhz, card0.mem_clock_mhz), (Some(300), Some(1200)));
    assert_eq!(card0.power_limit_w, Some(290.0));
    assert_eq!((card0.sm_clock_max_mhz, card0.mem_clock_max_mhz), (None, None), "not in the output");
    assert_eq!(card0.throttle_reasons, None, "the output has no throttle status");
    assert_eq!(devices[5].0.name, "Arcturus GL-XL [Instinct MI100]");
}

#[test]
fn json_edge_temperature_when_no_junction_and_na_is_none() {
    let text = r#"{"card0": {"Temperature (Sensor edge) (C)": "41.0", "GPU use (%)": "N/A"}}"#;
    let devices = rocm_json_samples("rocm-smi --json", text).unwrap();
    assert_eq!(devices[0].1.temperature_c, Some(41.0));
    assert_eq!(devices[0].1.gpu_util_pct, None, "N/A is unknown, not 0");
    assert_eq!(devices[0].1.power_w, None);
}

#[test]
fn json_bad_values_name_the_field_and_line() {
    let text = fixture("smi/telegraf_mi100_rocm571.json").replacen("\"(1200Mhz)\"", "\"fast\"", 2);
    let err = rocm_json_samples("rocm-smi --json", &text).unwrap_err().to_string();
    assert!(err.starts_with("rocm-smi --json: unexpected output at line 12: `mclk clock speed:` of card0"), "{err}");
    let text = "{\"card0\": {\n\"GPU use (%)\": \"busy\"}}";
    let err = rocm_json_samples("rocm-smi --json", text).unwrap_err().to_string();
    assert!(err.contains("line 2: `GPU use (%)` of card0 is not a number: `busy`"), "{err}");
    let text = "{\"card0\": {\"VRAM Total Used Memory (B)\": \"-1\"}}";
    let err = rocm_json_samples("rocm-smi --json", text).unwrap_err().to_string();
    assert!(err.contains("is not a byte count: `-1`"), "{err}");
    assert!(rocm_json_samples("rocm-smi --json", "{\"card0\": ").is_err());
}

#[test]
fn mi300a_table_maps_gpu_power_clocks_and_temperature() {
    let table = rocm_smi_concise::parse("rocm-smi", &fixture("smi/rocm-smi_concise_mi300a.txt")).unwrap();
    let devices = concise_samples("rocm-smi", &table).unwrap();
    // Read from rocm-smi_concise_mi300a.txt lines 6-9 with awk.
    assert_eq!(column(&devices, |s| s.temperature_c), [48.0, 53.0, 52.0, 47.0].map(Some));
    assert_eq!(column(&devices, |s| s.power_w), [110.0, 113.0, 125.0, 115.0].map(Some));
    assert_eq!(column(&devices, |s| s.sm_clock_mhz), [98, 99, 100, 100].map(Some));
    assert_eq!(column(&devices, |s| s.mem_clock_mhz), [1300, 1200, 1300, 1300].map(Some));
    assert_eq!(column(&devices, |s| s.power_limit_w), [550.0; 4].map(Some));
    assert_eq!(column(&devices, |s| s.gpu_util_pct), [0.0; 4].map(Some));
    assert_eq!(column(&devices, |s| s.mem_util_pct), [None; 4], "VRAM% is allocation, not activity");
    assert_eq!(column(&devices, |s| s.mem_used_bytes), [None; 4]);
}

#[test]
fn table_garbage_cell_names_the_line() {
    let text = fixture("smi/rocm-smi_concise_mi300a.txt").replace("125.0W", "lots");
    let table = rocm_smi_concise::parse("rocm-smi", &text).unwrap();
    let err = concise_samples("rocm-smi", &table).unwrap_err().to_string();
    assert_eq!(err, "rocm-smi: unexpected output at line 8: `Power` of device 2 is not a reading: `lots`");
    let table = rocm_smi_concise::parse("rocm-smi", "Device IDs GPU%\n0 0x74a0, 1 N/A\n").unwrap();
    assert_eq!(concise_samples("rocm-smi", &table).unwrap()[0].1.gpu_util_pct, None);
}

#[test]
fn mi300x_monitor_maps_every_column() {
    let table = amd_smi::parse("amd-smi monitor -ptumv", &fixture("smi/amdsmi-changelog_monitor_ptumv.txt")).unwrap();
    let devices = monitor_samples("amd-smi monitor -ptumv", &table).unwrap();
    // Read from amdsmi-changelog_monitor_ptumv.txt with awk; MB × 2^20 computed with python.
    assert_eq!(column(&devices, |s| s.power_w), [171.0, 175.0, 177.0, 172.0, 178.0, 176.0, 176.0, 175.0].map(Some));
    assert_eq!(column(&devices, |s| s.temperature_c), [32.0, 33.0, 31.0, 33.0, 32.0, 33.0, 32.0, 34.0].map(Some));
    assert_eq!(column(&devices, |s| s.sm_clock_mhz), [114, 113, 113, 113, 113, 113, 113, 113].map(Some));
    assert_eq!(column(&devices, |s| s.mem_clock_mhz), [900; 8].map(Some));
    assert_eq!(column(&devices, |s| s.gpu_util_pct), [0.0; 8].map(Some));
    assert_eq!(column(&devices, |s| s.mem_util_pct), [0.0; 8].map(Some));
    assert_eq!(devices[0].1.mem_used_bytes, Some(296_747_008));
    assert_eq!(devices[4].1.mem_used_bytes, Some(297_795_584));
    assert_eq!(devices[7].1.mem_total_bytes, Some(205_835_468_800));
    assert_eq!(devices[7].1.power_limit_w, None, "monitor -ptumv prints no power cap");
}

#[test]
fn monitor_value_in_an_unexpected_unit_is_an_error() {
    let table = amd_smi::parse("amd-smi", "GPU  POWER  GFX_CLOCK\n  0  171 W  1.1 GHz\n").unwrap();
    let err = monitor_samples("amd-smi", &table).unwrap_err().to_string();
    assert_eq!(
        err,
        "amd-smi: unexpected output at line 2: `GFX_CLOCK` of GPU 0 should be a non-negative number of MHz, found 1.1 GHz"
    );
    let table = amd_smi::parse("amd-smi", "GPU  POWER  GFX_UTIL\n  0  N/A  N/A\n").unwrap();
    let devices = monitor_samples("amd-smi", &table).unwrap();
    assert_eq!((devices[0].1.power_w, devices[0].1.gpu_util_pct), (None, None));
}
