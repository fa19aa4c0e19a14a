//! `prof util` end to end on the nvidia-smi fallback: NVML is forced absent and a fake
//! `nvidia-smi` replays the `-q -x` reports recorded on the H200 (idle, and under load with
//! the SW power cap active at ~653 W; tests/fixtures/nvidia/SOURCES.md).

use std::process::Output;

#[path = "support/mod.rs"]
mod support;

use support::{fakes, hermetic, path_with, prof_on_path, scratch_dir, success_json, NOWHERE};

/// `prof util args` hermetically with the NVIDIA fakes on `PATH` and the fake nvidia-smi in `mode`.
fn prof_util(mode: &str, args: &[&str]) -> Output {
    hermetic(path_with(&fakes("nvidia")))
        .arg("util")
        .args(args)
        .env("FAKE_NVIDIA_SMI", mode)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap()
}

#[test]
fn busy_workload_is_busy_and_clock_limited_by_the_power_cap() {
    // Each sample spawns the fake nvidia-smi, which takes hundreds of ms on a loaded machine:
    // two seconds of workload leave room for at least two samples however busy the host is.
    let doc = success_json(&prof_util("busy", &["--interval", "50ms", "--json", "--", "sleep", "2"]));
    assert_eq!(doc["schema"], "prof.util.v1");
    assert_eq!(doc["mode"], "command");
    assert!(doc["source"].as_str().unwrap().starts_with("nvidia-smi -q -x"), "{}", doc["source"]);
    assert_eq!(doc["exit_code"], 0);
    assert!(doc["samples"].as_u64().unwrap() >= 2, "{doc}");
    let device = &doc["devices"][0];
    // nvidia-smi-q-busy.xml: <gpu_util>100 %</gpu_util>, <power_draw>653.20 W</power_draw>,
    // <current_power_limit>700.00 W</current_power_limit>, clocks_event_reason_sw_power_cap Active.
    assert_eq!(device["gpu_util_peak_pct"], 100.0);
    assert_eq!(device["power_max_w"], 653.2);
    assert_eq!(device["power_limit_w"], 700.0);
    let reasons = device["throttle_reasons"].as_array().unwrap();
    let cap = reasons.iter().find(|r| r["reason"] == "sw_power_cap").expect("sw_power_cap seen");
    assert_eq!(cap["share_pct"], 100.0);
    let verdict = &doc["verdict"];
    assert_eq!(verdict["kind"], "busy");
    assert_eq!(verdict["next_step"], "prof breakdown -- sleep 2");
    assert_eq!(verdict["findings"][0]["kind"], "clock_limited");
}

#[test]
fn idle_device_while_a_command_runs_is_host_bound() {
    let doc = success_json(&prof_util("", &["--interval", "50ms", "--json", "--", "sleep", "0.5"]));
    assert_eq!(doc["devices"][0]["gpu_util_peak_pct"], 0.0);
    assert_eq!(doc["verdict"]["kind"], "host_bound");
    assert!(
        doc["verdict"]["next_step"].is_null() || !doc["verdict"]["next_step"].as_str().unwrap().contains("breakdown")
    );
}

#[test]
fn snapshot_without_a_command_and_the_table_output() {
    let out = prof_util("busy", &[]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("source: nvidia-smi -q -x"), "{text}");
    assert!(text.contains("sw_power_cap"), "{text}");
    assert!(text.contains("653-653 W of 700 W"), "{text}");
    assert!(text.contains("verdict:"), "{text}");
}

#[test]
fn csv_has_a_row_per_sample() {
    let csv = scratch_dir("util-csv").join("samples.csv");
    let out = prof_util("busy", &["--interval", "50ms", "--csv", csv.to_str().unwrap(), "--duration", "2s"]);
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("t_ms,device,gpu_util_pct"));
    let rows: Vec<&str> = lines.collect();
    assert!(rows.len() >= 2, "{text}");
    assert!(rows.iter().all(|r| r.contains("sw_power_cap")), "{text}");
}

#[test]
fn failing_workload_is_reported_and_its_status_returned() {
    let out = prof_util("", &["--interval", "50ms", "--", "sh", "-c", "exit 3"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("the command exited with status 3"));
}

#[test]
fn no_probe_at_all_names_the_install_line() {
    let out = prof_on_path(NOWHERE, &[], &["util", "--vendor", "nvidia"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no utilization probe could be opened"), "{err}");
    assert!(err.contains("nvidia-driver"), "{err}");
}
