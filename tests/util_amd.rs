//! `prof util --vendor amd` end to end: NVML and the ROCm SMI library (tests/util_amd_rsmi.rs
//! covers that one) are forced absent, the amdgpu sysfs root is an empty directory, and the fake
//! `rocm-smi` / `amd-smi` (tests/fakes/amd) replay the recorded real outputs in
//! tests/fixtures/amd/smi (6 × MI100 idle, `rocm-smi` 5.7.1 `--json`; 8 × MI300X-class
//! `amd-smi monitor -ptumv`). No AMD hardware is involved: this proves sampling, summary and
//! verdict on recordings only.

use std::path::Path;
use std::process::Output;

#[path = "support/mod.rs"]
mod support;

use support::{fakes, hermetic, path_with, success_json, Scratch};

/// `prof util --vendor amd args` hermetically with `path` as `PATH`, `sysfs` as the amdgpu sysfs
/// root and the fake rocm-smi in `mode`.
fn prof_util(sysfs: &Path, path: &str, mode: &str, args: &[&str]) -> Output {
    hermetic(path)
        .args(["util", "--vendor", "amd"])
        .args(args)
        .env("PROF_AMD_SYSFS_ROOT", sysfs)
        .env("FAKE_ROCM_SMI_MODE", mode)
        .current_dir(support::own_cwd())
        .output()
        .unwrap()
}

/// [`prof_util`] with the AMD fakes on `PATH`.
fn with_fakes(sysfs: &Path, mode: &str, args: &[&str]) -> Output {
    prof_util(sysfs, &path_with(&fakes("amd")), mode, args)
}

#[test]
fn idle_mi100s_while_a_command_runs_are_idle() {
    let sysfs = Scratch::new("util-amd-empty-sysfs");
    let doc = success_json(&with_fakes(sysfs.path(), "replay", &["--json", "--", "sleep", "1"]));
    assert_eq!(doc["schema"], "prof.util.v1");
    assert_eq!(doc["mode"], "command");
    assert!(doc["source"].as_str().unwrap().starts_with("rocm-smi --json ("), "{}", doc["source"]);
    assert_eq!(doc["exit_code"], 0);
    assert!(doc["samples"].as_u64().unwrap() >= 2, "{doc}");
    let devices = doc["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 6);
    // telegraf_mi100_rocm571.json, read with python's json module: "GPU use (%)" 0 on every card,
    // "Average Graphics Package Power (W)" 39.0/37.0/35.0/39.0/39.0/40.0, "Max Graphics Package
    // Power (W)" 290.0, VRAM 6782976 of 34342961152 B, junction 34.0 °C (card0), sclk (300Mhz).
    let powers: Vec<f64> = devices.iter().map(|d| d["power_max_w"].as_f64().unwrap()).collect();
    assert_eq!(powers, [39.0, 37.0, 35.0, 39.0, 39.0, 40.0]);
    let card0 = &devices[0];
    assert_eq!(card0["gpu_util_peak_pct"], 0.0);
    assert_eq!(card0["mem_util_mean_pct"], 0.0);
    assert_eq!(card0["power_limit_w"], 290.0);
    assert_eq!(card0["mem_used_peak_bytes"], 6_782_976);
    assert_eq!(card0["mem_total_bytes"], 34_342_961_152_u64);
    assert_eq!(card0["temperature_max_c"], 34.0);
    assert_eq!(card0["sm_clock_highest_mhz"], 300);
    assert!(card0["sm_clock_max_mhz"].is_null(), "not in the recording: unknown, not 0");
    assert!(card0["throttle_reasons"].is_null());
    assert_eq!(doc["verdict"]["kind"], "idle");
    assert!(doc["verdict"]["next_step"].is_null());
}

#[test]
fn snapshot_prints_the_table_and_says_all_six_are_idle() {
    let sysfs = Scratch::new("util-amd-snapshot");
    let out = with_fakes(sysfs.path(), "replay", &[]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("source: rocm-smi --json"), "{text}");
    assert!(text.contains("40-40 W of 290 W"), "{text}");
    assert!(text.contains("6 / 32752 MiB"), "{text}");
    assert!(text.contains("verdict: snapshot: all 6 devices are idle"), "{text}");
}

#[test]
fn csv_has_a_row_per_sample_and_device_with_the_recorded_power() {
    let sysfs = Scratch::new("util-amd-csv");
    let csv = sysfs.path().join("samples.csv");
    let out = with_fakes(
        sysfs.path(),
        "replay",
        &["--interval", "100ms", "--csv", csv.to_str().unwrap(), "--duration", "400ms"],
    );
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.len() >= 6 && rows.len().is_multiple_of(6), "{text}");
    for row in &rows {
        let device: usize = row[at("device")].parse().unwrap();
        let power: f64 = row[at("power_w")].parse().unwrap();
        assert_eq!(power, [39.0, 37.0, 35.0, 39.0, 39.0, 40.0][device], "{text}");
        assert_eq!(row[at("gpu_util_pct")], "0");
        assert_eq!(row[at("throttle_reasons")], "", "no throttle information recorded");
    }
}

#[test]
fn amd_smi_monitor_is_used_when_rocm_smi_json_fails() {
    let sysfs = Scratch::new("util-amd-no-json");
    let doc = success_json(&with_fakes(sysfs.path(), "no-json", &["--json", "--", "sleep", "1"]));
    assert!(doc["source"].as_str().unwrap().starts_with("amd-smi monitor -ptumv ("), "{}", doc["source"]);
    let devices = doc["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 8);
    // amdsmi-changelog_monitor_ptumv.txt: GPU 4 POWER 178 W, VRAM_USED 284 MB (× 2^20 B).
    assert_eq!(devices[4]["power_max_w"], 178.0);
    assert_eq!(devices[4]["mem_used_peak_bytes"], 297_795_584);
    assert_eq!(doc["verdict"]["kind"], "idle", "GFX_UTIL 0 % on every GPU");
}

#[test]
fn sysfs_comes_first_when_a_card_has_gpu_busy_percent() {
    // A hand-typed tree in the documented amdgpu formats, not a recording of a real card.
    let sysfs = Scratch::new("util-amd-sysfs-busy");
    let device = sysfs.path().join("card0/device");
    std::fs::create_dir_all(&device).unwrap();
    std::fs::write(device.join("gpu_busy_percent"), "100\n").unwrap();
    let doc = success_json(&with_fakes(sysfs.path(), "replay", &["--json", "--", "sleep", "0.5"]));
    assert!(doc["source"].as_str().unwrap().starts_with("amdgpu sysfs ("), "{}", doc["source"]);
    assert_eq!(doc["devices"].as_array().unwrap().len(), 1);
    assert_eq!(doc["devices"][0]["gpu_util_mean_pct"], 100.0);
    assert!(doc["devices"][0]["power_max_w"].is_null());
    assert_eq!(doc["verdict"]["kind"], "busy");
    assert_eq!(doc["verdict"]["next_step"], "prof breakdown -- sleep 0.5");
}

#[test]
fn no_probe_at_all_names_the_install_line() {
    let sysfs = Scratch::new("util-amd-nothing");
    let out = prof_util(sysfs.path(), sysfs.path().to_str().unwrap(), "replay", &[]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no utilization probe could be opened"), "{err}");
    assert!(err.contains("rocm-smi-lib"), "{err}");
}
