//! `prof util` / `prof detect` over the ROCm SMI library, end to end. The library is a fake
//! (tests/fakes/rsmi/fake_rocm_smi.c, compiled here with `cc -shared -fPIC`) that exports the
//! ROCm SMI entry points and answers with the recorded MI100 sample of
//! tests/fixtures/amd/smi/telegraf_mi100_rocm571.json; the expected numbers are read from that
//! file here, independently of prof. NVML is forced absent. No AMD hardware and no real
//! librocm_smi64 are involved: this proves the binding, decoding and fallbacks against the fake only.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

#[path = "support/mod.rs"]
mod support;
use support::{fakes, fixtures, hermetic, path_with, scratch_dir};

const FIXTURE: &str = "amd/smi/telegraf_mi100_rocm571.json";

/// Compiles the fake with `defines` once per set of defines; returns the library's path.
fn fake_library(defines: &[&str]) -> PathBuf {
    static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let key = defines.join(" ");
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, path)) = built.iter().find(|(k, _)| *k == key) {
        return path.clone();
    }
    let variant = if defines.is_empty() { "recorded".to_owned() } else { defines.join("-").to_lowercase() };
    let dir = scratch_dir(&format!("fake-rsmi-{variant}"));
    let library = dir.join("librocm_smi64.so.7");
    let out = Command::new("cc")
        .args(["-shared", "-fPIC", "-Wall", "-o"])
        .arg(&library)
        .args(defines.iter().map(|d| format!("-D{d}")))
        .arg(fakes("rsmi").join("fake_rocm_smi.c"))
        .output()
        .expect("a C compiler (`cc`) is needed to build the fake ROCm SMI library");
    assert!(out.status.success(), "cc failed: {}", String::from_utf8_lossy(&out.stderr));
    built.push((key, library.clone()));
    library
}

/// Runs `prof args` hermetically with `library` as the ROCm SMI library, `sysfs` as the amdgpu
/// sysfs root and `path` as `PATH`, plus `env`.
fn prof(library: &Path, sysfs: &Path, path: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
    hermetic(path)
        .args(args)
        .env("PROF_ROCM_SMI_LIBRARY", library)
        .env("PROF_AMD_SYSFS_ROOT", sysfs)
        .env("LD_LIBRARY_PATH", sysfs)
        .envs(env.iter().copied())
        .current_dir(support::own_cwd())
        .output()
        .unwrap()
}

fn util_json(library: &Path, sysfs: &Path, path: &str, env: &[(&str, &str)]) -> Value {
    let out = prof(library, sysfs, path, env, &["util", "--vendor", "amd", "--json", "--", "sleep", "0.3"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&text).unwrap()
}

/// One recorded card, read from the fixture with serde_json (not with prof's parser).
struct Recorded {
    power_w: f64,
    power_cap_w: f64,
    junction_c: f64,
    vram_used: u64,
    vram_total: u64,
    gpu_use_pct: f64,
    sclk_mhz: u32,
    sclk_top_mhz: u32,
}

fn recorded() -> Vec<Recorded> {
    let text = std::fs::read_to_string(fixtures().join(FIXTURE)).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let number = |card: &Value, key: &str| -> f64 { card[key].as_str().unwrap().trim().parse().unwrap() };
    let mhz =
        |text: &str| -> u32 { text.trim_matches(|c| c == '(' || c == ')').trim_end_matches("Mhz").parse().unwrap() };
    (0..6)
        .map(|i| {
            let card = &doc[format!("card{i}")];
            Recorded {
                power_w: number(card, "Average Graphics Package Power (W)"),
                power_cap_w: number(card, "Max Graphics Package Power (W)"),
                junction_c: number(card, "Temperature (Sensor junction) (C)"),
                vram_used: number(card, "VRAM Total Used Memory (B)") as u64,
                vram_total: number(card, "VRAM Total Memory (B)") as u64,
                gpu_use_pct: number(card, "GPU use (%)"),
                sclk_mhz: mhz(card["sclk clock speed:"].as_str().unwrap()),
                sclk_top_mhz: mhz(card["15"].as_str().unwrap()),
            }
        })
        .collect()
}

fn assert_recorded_values(doc: &Value) {
    let devices = doc["devices"].as_array().unwrap();
    let expected = recorded();
    assert_eq!(devices.len(), expected.len(), "{doc}");
    for (device, card) in devices.iter().zip(&expected) {
        assert_eq!(device["power_max_w"].as_f64(), Some(card.power_w), "{device}");
        assert_eq!(device["power_min_w"].as_f64(), Some(card.power_w), "{device}");
        assert_eq!(device["power_limit_w"].as_f64(), Some(card.power_cap_w), "{device}");
        assert_eq!(device["temperature_max_c"].as_f64(), Some(card.junction_c), "{device}");
        assert_eq!(device["mem_used_peak_bytes"].as_u64(), Some(card.vram_used), "{device}");
        assert_eq!(device["mem_total_bytes"].as_u64(), Some(card.vram_total), "{device}");
        assert_eq!(device["gpu_util_peak_pct"].as_f64(), Some(card.gpu_use_pct), "{device}");
        assert_eq!(device["sm_clock_highest_mhz"].as_u64(), Some(u64::from(card.sclk_mhz)), "{device}");
        assert_eq!(device["sm_clock_max_mhz"].as_u64(), Some(u64::from(card.sclk_top_mhz)), "{device}");
        assert!(device["throttle_reasons"].is_null(), "ROCm SMI gives no throttle reasons here: {device}");
    }
}

#[test]
fn util_reads_the_recorded_mi100_sample_through_the_library() {
    let library = fake_library(&[]);
    let sysfs = scratch_dir("rsmi-plain");
    let csv = sysfs.join("samples.csv");
    let out = prof(
        &library,
        &sysfs,
        "/usr/bin:/bin",
        &[],
        &["util", "--vendor", "amd", "--json", "--csv", csv.to_str().unwrap(), "--", "sleep", "1"],
    );
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["source"], format!("ROCm SMI library 0.0.0 ({})", library.display()));
    assert!(doc["samples"].as_u64().unwrap() >= 2, "{doc}");
    assert_recorded_values(&doc);
    // "GPU memory use (%)" is "0" on every card of the recording.
    assert!(doc["devices"].as_array().unwrap().iter().all(|d| d["mem_util_mean_pct"] == 0.0), "{doc}");
    assert_eq!(doc["verdict"]["kind"], "idle", "GPU use below 5 % on every card of the recording");
    let text = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for row in text.lines().skip(1).map(|l| l.split(',').collect::<Vec<_>>()) {
        // "mclk clock speed:" "(1200Mhz)" on every card.
        assert_eq!(row[at("mem_clock_mhz")], "1200", "{text}");
    }
}

#[test]
fn the_older_frequency_layout_and_rsmi_dev_power_get_give_the_same_numbers() {
    let library = fake_library(&["FAKE_LEGACY_FREQUENCIES", "FAKE_POWER_GET"]);
    let sysfs = scratch_dir("rsmi-legacy");
    let doc = util_json(&library, &sysfs, "/usr/bin:/bin", &[]);
    assert!(doc["source"].as_str().unwrap().starts_with("ROCm SMI library 0.0.0 ("), "{doc}");
    assert_recorded_values(&doc);
}

#[test]
fn a_not_supported_answer_is_absent_not_zero() {
    let library = fake_library(&[]);
    let sysfs = scratch_dir("rsmi-unsupported");
    let doc =
        util_json(&library, &sysfs, "/usr/bin:/bin", &[("FAKE_RSMI_UNSUPPORTED", "rsmi_dev_memory_busy_percent_get")]);
    for device in doc["devices"].as_array().unwrap() {
        assert!(device["mem_util_mean_pct"].is_null(), "recorded 0, answered NOT_SUPPORTED: {device}");
        assert!(device["mem_util_peak_pct"].is_null(), "{device}");
        assert_eq!(device["gpu_util_peak_pct"], 0.0, "the other values are still read: {device}");
    }
}

#[test]
fn a_missing_symbol_falls_back_to_rocm_smi_with_a_note() {
    let library = fake_library(&["FAKE_OMIT_BUSY"]);
    let sysfs = scratch_dir("rsmi-no-symbol");
    let doc = util_json(&library, &sysfs, &path_with(&fakes("amd")), &[("FAKE_ROCM_SMI_MODE", "replay")]);
    let source = doc["source"].as_str().unwrap();
    assert!(source.starts_with("rocm-smi --json ("), "{source}");
    let note = format!(
        "; ROCm SMI library not used: ROCm SMI library {} lacks the symbol `rsmi_dev_busy_percent_get`: ",
        library.display()
    );
    assert!(source.contains(&note), "{source}");
    assert_eq!(doc["devices"].as_array().unwrap().len(), 6);
}

#[test]
fn an_init_error_falls_back_to_sysfs_with_the_library_status_string() {
    // A hand-typed tree in the documented amdgpu format, not a recording of a real card.
    let library = fake_library(&[]);
    let sysfs = scratch_dir("rsmi-init-error");
    let device = sysfs.join("card0/device");
    std::fs::create_dir_all(&device).unwrap();
    std::fs::write(device.join("gpu_busy_percent"), "100\n").unwrap();
    let doc = util_json(&library, &sysfs, "/usr/bin:/bin", &[("FAKE_RSMI_INIT_STATUS", "8")]);
    let source = doc["source"].as_str().unwrap();
    assert!(source.starts_with("amdgpu sysfs ("), "{source}");
    let note = format!(
        "ROCm SMI library not used: ROCm SMI library {}: rsmi_init failed with status 8 (RSMI_STATUS_INIT_ERROR: \
         An error occurred when rsmi initializing internal data structures)",
        library.display()
    );
    assert!(source.ends_with(&note), "{source}");
}

#[test]
fn a_hung_rsmi_init_times_out_and_falls_back_to_sysfs() {
    // The fake's rsmi_init sleeps 30 s; prof waits 300 ms for it, then samples sysfs.
    let library = fake_library(&[]);
    let sysfs = scratch_dir("rsmi-init-hang");
    let device = sysfs.join("card0/device");
    std::fs::create_dir_all(&device).unwrap();
    std::fs::write(device.join("gpu_busy_percent"), "100\n").unwrap();
    let started = std::time::Instant::now();
    let env = [("FAKE_RSMI_INIT_SLEEP_S", "30"), ("PROF_RSMI_INIT_TIMEOUT_MS", "300")];
    let doc = util_json(&library, &sysfs, "/usr/bin:/bin", &env);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "took {:?}", started.elapsed());
    let source = doc["source"].as_str().unwrap();
    assert!(source.starts_with("amdgpu sysfs ("), "{source}");
    let note = format!(
        "ROCm SMI library not used: ROCm SMI library {}: rsmi_init did not return within 300 ms",
        library.display()
    );
    assert!(source.contains(&note) && source.contains("PROF_RSMI_INIT_TIMEOUT_MS"), "{source}");
}

#[test]
fn no_probe_at_all_gives_every_reason() {
    let library = fake_library(&[]);
    let sysfs = scratch_dir("rsmi-nothing");
    let out = prof(
        &library,
        &sysfs,
        sysfs.to_str().unwrap(),
        &[("FAKE_RSMI_INIT_STATUS", "8")],
        &["util", "--vendor", "amd"],
    );
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("rsmi_init failed with status 8"), "{err}");
    assert!(err.contains("rocm-smi-lib"), "{err}");
}

fn detect_library(library: &Path) -> Value {
    let sysfs =
        scratch_dir(&format!("rsmi-detect-{}", library.parent().unwrap().file_name().unwrap().to_string_lossy()));
    let out = prof(library, &sysfs, sysfs.to_str().unwrap(), &[], &["detect", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let amd = doc["vendors"].as_array().unwrap().iter().find(|v| v["vendor"] == "amd").cloned().unwrap();
    let tools = amd["tools"].as_array().unwrap();
    tools.iter().find(|t| t["name"] == "librocm_smi64").cloned().unwrap()
}

#[test]
fn detect_reports_the_library_path_and_version() {
    let library = fake_library(&[]);
    let tool = detect_library(&library);
    assert_eq!(tool["present"], true, "{tool}");
    assert_eq!(tool["path"], library.to_str().unwrap());
    assert_eq!(tool["version"], "0.0.0");
    assert_eq!(tool["note"], "loaded; version from rsmi_version_get (build prof test fake)");
    let broken = fake_library(&["FAKE_OMIT_BUSY"]);
    let tool = detect_library(&broken);
    let note = tool["note"].as_str().unwrap();
    assert!(note.contains("lacks the symbol `rsmi_dev_busy_percent_get`"), "{tool}");
    let missing = detect_library(Path::new("/nonexistent/librocm_smi64.so"));
    assert_eq!(missing["present"], false, "{missing}");
    assert!(missing["note"].as_str().unwrap().contains("/nonexistent/librocm_smi64.so could not be loaded"));
}
