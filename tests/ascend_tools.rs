//! `prof util --vendor ascend` and `prof breakdown --tool msprof` end to end, without an NPU:
//! the fake `npu-smi` (tests/fakes/ascend) replays the recorded `npu-smi info` tables and the
//! `-t common -i 1` report, the fake `msprof` (tests/fakes/ascend/capture) runs the command and
//! copies the recorded CANN 8 PipeUtilization profile where `--output` points. This proves
//! probing, planning, supervision, loading and reporting on recordings only.

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use std::process::{Command, Output};

const FAKES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fakes/ascend");

fn prof(path: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prof"))
        .args(args)
        .env("PATH", path)
        .env("PROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1")
        .env("PROF_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so")
        .env_remove("ASCEND_TOOLKIT_HOME")
        .env_remove("ASCEND_HOME_PATH")
        .envs(env.iter().copied())
        .current_dir(support::own_cwd())
        .output()
        .unwrap()
}

fn json(out: &Output) -> Value {
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn util_samples_the_four_recorded_910b2() {
    let doc = json(&prof(
        &format!("{FAKES}:/usr/bin:/bin"),
        &[],
        &["util", "--vendor", "ascend", "--json", "--", "sleep", "1"],
    ));
    let source = doc["source"].as_str().unwrap();
    assert!(source.starts_with("npu-smi info ("), "{source}");
    // The fake answers -t common only for NPU 1 and -t usages not at all: the source says so.
    for query in ["-t common", "-t usages"] {
        let said = format!("{query} did not answer for NPU 4, 5, 6, 7 (NPU 4: npu-smi info {query}: ");
        assert!(source.contains(&said) && source.contains("exited 2: fake npu-smi: no recording"), "{source}");
    }
    let devices = doc["devices"].as_array().unwrap();
    let ids: Vec<u64> = devices.iter().map(|d| d["device"].as_u64().unwrap()).collect();
    assert_eq!(ids, [4, 5, 6, 7]);
    // npu_smi_info.stdout.txt: Power(W) 92.8 / 92.0 / 92.8 / 89.3, AICore(%) 0, HBM-Usage 3405/65536 MB (NPU 4).
    let powers: Vec<f64> = devices.iter().map(|d| d["power_max_w"].as_f64().unwrap()).collect();
    assert_eq!(powers, [92.8, 92.0, 92.8, 89.3]);
    assert_eq!(devices[0]["gpu_util_peak_pct"], 0.0);
    assert_eq!(devices[0]["mem_used_peak_bytes"], 3405_u64 << 20);
    assert_eq!(devices[0]["mem_total_bytes"], 65536_u64 << 20);
    assert_eq!(devices[0]["temperature_max_c"], 39.0);
    assert!(devices[0]["sm_clock_highest_mhz"].is_null(), "no -t common for NPU 4: unknown, not 0");
    assert!(devices[0]["throttle_reasons"].is_null());
    // AICore 0 % on every NPU: idle, not host-bound.
    assert_eq!(doc["verdict"]["kind"], "idle");
}

#[test]
fn util_reads_the_ai_core_clock_from_t_common_where_it_answers() {
    let env = [("FAKE_NPU_SMI_INFO", "910a")];
    let doc = json(&prof(&format!("{FAKES}:/usr/bin:/bin"), &env, &["util", "--vendor", "ascend", "--json"]));
    assert!(doc["source"].as_str().unwrap().starts_with("npu-smi info and -t common ("), "{}", doc["source"]);
    let devices = doc["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 8);
    // -t common -i 1 recording: Aicore Freq 1800, curFreq 1800, HBM Usage Rate 91 %; the 910A
    // table: NPU 1 66.9 W, HBM 4 / 32768 MB. Only NPU 1 has a -t common answer.
    let npu1 = &devices[1];
    assert_eq!((npu1["sm_clock_highest_mhz"].as_u64(), npu1["sm_clock_max_mhz"].as_u64()), (Some(1800), Some(1800)));
    assert_eq!(npu1["power_max_w"], 66.9);
    assert_eq!(npu1["mem_used_peak_bytes"], 4_u64 << 20);
    assert_eq!(npu1["activity"][0]["name"], "hbm_usage_pct");
    assert_eq!(npu1["activity"][0]["mean"], 91.0);
    assert!(devices[0]["sm_clock_highest_mhz"].is_null());
}

#[test]
fn util_without_npu_smi_names_the_driver_install_line() {
    let empty = support::scratch_dir("ascend-util-empty");
    let out = prof(empty.to_str().unwrap(), &[], &["util", "--vendor", "ascend"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("npu-smi is not installed: install the Ascend NPU driver"), "{err}");
}

#[test]
fn msprof_breakdown_captures_and_reports_the_recorded_kernels() {
    let scratch = support::scratch_dir("ascend-msprof-capture");
    let out = scratch.join("out");
    let marker = scratch.join("ran");
    let script = format!("echo 'it ran' >> {}", marker.display());
    let path = format!("{FAKES}/capture:/usr/bin:/bin");
    let args =
        ["breakdown", "--tool", "msprof", "--window", "2s", "--out", out.to_str().unwrap(), "--", "sh", "-c", &script];
    let o = prof(&path, &[], &args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("1. warm-up") && stderr.contains("2. capture"), "{stderr}");
    // The one --application string msprof received (the fake echoes it): each argument
    // shell-quoted, the script with its spaces and quotes as one word.
    let quoted = prof_core::run_plan::shell_quote(&script);
    assert!(stderr.contains(&format!("start profiling sh -c {quoted}\n")), "{stderr}");
    assert!(stderr.contains("--aic-metrics=PipeUtilization") && stderr.contains("--duration=2"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap().lines().count(), 2, "warm-up and capture both ran");
    assert!(out.join("msprof/PROF_000001_20260823165326062_00625538CIGQAHCJ/mindstudio_profiler_output").is_dir());

    let again = prof(&path, &[], &args);
    assert!(!again.status.success(), "a reused --out is refused, not mixed");
    assert!(String::from_utf8_lossy(&again.stderr).contains("already holds msprof profiles"));

    let out2 = scratch.join("out2");
    let mut json_args = args.to_vec();
    json_args[6] = out2.to_str().unwrap();
    json_args.splice(1..1, ["--json", "--warmup", "0"]);
    let doc = json(&prof(&path, &[], &json_args));
    // op_summary_20260823165335.csv (python csv): 3 tasks, 39,322 ns; the top one
    // aclnnGroupedMatmulV5_GroupedMatmul_GroupedMatmul, 26,661 ns.
    assert_eq!((doc["summary"]["ops"].as_u64(), doc["summary"]["device_ns"].as_u64()), (Some(3), Some(39_322)));
    let top = &doc["summary"]["kernels"][0];
    assert_eq!(top["name"], "aclnnGroupedMatmulV5_GroupedMatmul_GroupedMatmul");
    assert_eq!(top["total_ns"], 26_661);
    // The Ascend section on the captured directory (see tests/analyze_ascend_sections.rs).
    assert_eq!(doc["analyses"]["ascend"]["bound"]["top"][0]["verdict"], "memory");
}

#[test]
fn msprof_that_writes_nothing_fails_with_its_last_log_lines() {
    let scratch = support::scratch_dir("ascend-msprof-nothing");
    let out = scratch.join("out");
    let path = format!("{FAKES}/capture:/usr/bin:/bin");
    let args = ["breakdown", "--tool", "msprof", "--warmup", "0", "--out", out.to_str().unwrap(), "--", "true"];
    let o = prof(&path, &[("FAKE_MSPROF", "nothing")], &args);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("msprof wrote no parsed PROF_* directory under"), "{err}");
    assert!(err.contains("profiling failed, no data collected"), "{err}");
}

#[test]
fn missing_msprof_prints_the_cann_install_line() {
    let empty = support::scratch_dir("ascend-msprof-missing");
    let o = prof(empty.to_str().unwrap(), &[], &["breakdown", "--tool", "msprof", "--", "true"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("msprof is not installed: install the CANN toolkit: ./Ascend-cann-toolkit_"), "{err}");
}

#[test]
fn util_reads_cpu_and_memory_bandwidth_rates_from_t_usages_where_it_answers() {
    let env = [("FAKE_NPU_SMI_INFO", "910a"), ("FAKE_NPU_SMI_USAGES", "telegraf")];
    let doc = json(&prof(&format!("{FAKES}:/usr/bin:/bin"), &env, &["util", "--vendor", "ascend", "--json"]));
    let source = doc["source"].as_str().unwrap();
    assert!(source.starts_with("npu-smi info, -t common and -t usages ("), "{source}");
    assert!(source.contains("-t common did not answer for NPU 0, 2, 3, 4, 5, 6, 7 (NPU 0: "), "{source}");
    assert!(source.contains("-t usages did not answer for NPU 1, 2, 3, 4, 5, 6, 7 (NPU 1: "), "{source}");
    let devices = doc["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 8);
    // telegraf's -t usages -i 0 sample (`grep -n 'Rate\|Utilization' FILE`): HBM Usage Rate 5,
    // Aicpu 0, Ctrlcpu 6, HBM Bandwidth 0 (the memory-busy share), Aivector / Aicube / NPU
    // Utilization / DDR Usage / DDR Bandwidth 0. The 910A table's NPU 0: AICore 0 %.
    let npu0 = &devices[0];
    assert_eq!(npu0["mem_util_mean_pct"], 0.0);
    assert_eq!(npu0["gpu_util_peak_pct"], 0.0);
    let activity: Vec<(&str, f64)> = npu0["activity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["mean"].as_f64().unwrap()))
        .collect();
    assert_eq!(&activity[..3], [("hbm_usage_pct", 5.0), ("aicpu_usage_pct", 0.0), ("ctrlcpu_usage_pct", 6.0)]);
    assert_eq!(activity.len(), 8, "{activity:?}");
    // Only NPU 0 answers -t usages: the others have no memory-busy share, unknown rather than 0.
    assert!(devices[2]["mem_util_mean_pct"].is_null());
    assert!(devices[2]["activity"].as_array().is_none_or(|a| a.is_empty()), "{}", devices[2]["activity"]);
}

#[test]
fn util_without_t_usages_answers_keeps_the_usages_fields_absent() {
    let doc = json(&prof(
        &format!("{FAKES}:/usr/bin:/bin"),
        &[],
        &["util", "--vendor", "ascend", "--json", "--", "sleep", "0.3"],
    ));
    assert!(doc["source"].as_str().unwrap().starts_with("npu-smi info ("), "{}", doc["source"]);
    let devices = doc["devices"].as_array().unwrap();
    assert!(devices.iter().all(|d| d["mem_util_mean_pct"].is_null()), "{devices:?}");
}
