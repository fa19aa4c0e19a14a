//! The sysfs tree here is typed by hand from the formats the Linux amdgpu documentation and
//! driver source give (`"%d\n"` percentages, `"%llu\n"` bytes, `"%d: %uMhz %s\n"` DPM levels
//! with `*` on the current one, hwmon microwatts and millidegrees); it is not a recording of a
//! real card. No AMD hardware was available.

use super::*;
use crate::test_fixtures::TempDir;

fn card(tmp: &TempDir, n: u32) {
    let dev = format!("card{n}/device");
    tmp.file(&format!("{dev}/gpu_busy_percent"), "87\n");
    tmp.file(&format!("{dev}/mem_busy_percent"), "12\n");
    tmp.file(&format!("{dev}/mem_info_vram_used"), "1073741824\n");
    tmp.file(&format!("{dev}/mem_info_vram_total"), "34342961152\n");
    tmp.file(&format!("{dev}/pp_dpm_sclk"), "0: 300Mhz \n1: 1200Mhz *\n2: 1502Mhz \n");
    tmp.file(&format!("{dev}/pp_dpm_mclk"), "0: 1200Mhz *\n");
    tmp.file(&format!("{dev}/hwmon/hwmon3/power1_average"), "215000000\n");
    tmp.file(&format!("{dev}/hwmon/hwmon3/power1_cap"), "290000000\n");
    tmp.file(&format!("{dev}/hwmon/hwmon3/temp1_label"), "edge\n");
    tmp.file(&format!("{dev}/hwmon/hwmon3/temp1_input"), "45000\n");
    tmp.file(&format!("{dev}/hwmon/hwmon3/temp2_label"), "junction\n");
    tmp.file(&format!("{dev}/hwmon/hwmon3/temp2_input"), "61500\n");
}

#[test]
fn reads_every_documented_file_of_each_card() {
    let tmp = TempDir::new("sysfs-full");
    card(&tmp, 1);
    card(&tmp, 0);
    tmp.file("card0-DP-1/status", "disconnected\n");
    tmp.file("card7/device/vendor", "0x10de\n");
    let mut probe = SysfsProbe::open(tmp.path()).unwrap();
    let devices = probe.devices().unwrap();
    assert_eq!(devices.len(), 2, "card7 has no gpu_busy_percent, card0-DP-1 is a connector");
    assert_eq!((devices[1].index, devices[1].name.as_str()), (1, "AMD GPU (card1)"));
    assert_eq!(devices[0].memory_total_mib, Some(32_752));
    let sample = probe.sample().unwrap().remove(0);
    assert_eq!((sample.gpu_util_pct, sample.mem_util_pct), (Some(87.0), Some(12.0)));
    assert_eq!((sample.mem_used_bytes, sample.mem_total_bytes), (Some(1 << 30), Some(34_342_961_152)));
    assert_eq!((sample.sm_clock_mhz, sample.sm_clock_max_mhz), (Some(1200), Some(1502)));
    assert_eq!((sample.mem_clock_mhz, sample.mem_clock_max_mhz), (Some(1200), Some(1200)));
    assert_eq!((sample.power_w, sample.power_limit_w), (Some(215.0), Some(290.0)));
    assert_eq!(sample.temperature_c, Some(61.5), "the junction sensor, not edge");
    assert_eq!(sample.throttle_reasons, None);
    assert!(probe.source().starts_with("amdgpu sysfs ("));
}

#[test]
fn missing_files_are_unknown_and_power_input_is_the_fallback() {
    let tmp = TempDir::new("sysfs-sparse");
    tmp.file("card0/device/gpu_busy_percent", "0\n");
    tmp.file("card0/device/hwmon/hwmon0/power1_input", "42500000\n");
    tmp.file("card0/device/hwmon/hwmon0/temp1_input", "38000\n");
    let sample = SysfsProbe::open(tmp.path()).unwrap().sample().unwrap().remove(0);
    assert_eq!(sample.gpu_util_pct, Some(0.0), "0 is read as 0");
    assert_eq!((sample.mem_util_pct, sample.mem_used_bytes, sample.sm_clock_mhz), (None, None, None));
    assert_eq!((sample.power_w, sample.power_limit_w), (Some(42.5), None));
    assert_eq!(sample.temperature_c, Some(38.0), "no junction label: temp1");
}

#[test]
fn garbage_names_the_file() {
    let tmp = TempDir::new("sysfs-garbage");
    tmp.file("card0/device/gpu_busy_percent", "busy\n");
    let mut probe = SysfsProbe::open(tmp.path()).unwrap();
    let err = probe.sample().unwrap_err().to_string();
    let file = tmp.path().join("card0/device/gpu_busy_percent");
    assert_eq!(err, format!("{}:1: expected a whole non-negative number, found `busy`", file.display()));
    tmp.file("card0/device/gpu_busy_percent", "3\n");
    tmp.file("card0/device/pp_dpm_sclk", "0: 300Mhz \nOD_SCLK:\n");
    let err = probe.sample().unwrap_err().to_string();
    assert!(err.ends_with("pp_dpm_sclk:2: expected `<level>: <clock>Mhz [*]`, found `OD_SCLK:`"), "{err}");
}

#[test]
fn an_empty_root_has_no_card_and_dpm_without_number_counts() {
    let tmp = TempDir::new("sysfs-empty");
    let err = SysfsProbe::open(tmp.path()).err().unwrap().to_string();
    assert!(err.starts_with("no amdgpu card with gpu_busy_percent under "), "{err}");
    assert!(!SysfsProbe::available(&tmp.path().join("absent")));
    let path = tmp.file("pp_dpm_sclk", "0: 400Mhz \n1: 2100Mhz \n   1333Mhz *\n");
    assert_eq!(read_dpm(&path).unwrap(), (Some(1333), Some(2100)));
}
