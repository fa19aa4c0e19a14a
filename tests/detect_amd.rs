//! End-to-end AMD detection: `prof detect --json` with fake `rocm-smi` / `amd-smi` on `PATH`
//! (tests/fakes/amd) that replay the recorded real outputs in tests/fixtures/amd/smi.
//! No AMD hardware is involved: these prove parsing and reporting on recordings only.

use serde_json::Value;
use std::path::Path;
use std::process::Output;

#[path = "support/mod.rs"]
mod support;

use support::{fakes, path_with, prof_on_path, success_json, Scratch};

const INSTALL_ROCM_SMI: &str = "sudo apt-get install -y rocm-smi-lib (from AMD's ROCm apt repository)";
const INSTALL_AMD_SMI: &str = "sudo apt-get install -y amd-smi-lib (from AMD's ROCm apt repository)";
const INSTALL_ROCPROFV3: &str = "sudo apt-get install -y rocprofiler-sdk (from AMD's ROCm apt repository)";

/// A scratch directory holding links to some of the AMD fakes.
fn fake_dir(label: &str, names: &[&str]) -> Scratch {
    let dir = Scratch::new(&format!("detect-amd-{label}"));
    for name in names {
        std::os::unix::fs::symlink(fakes("amd").join(name), dir.path().join(name)).unwrap();
    }
    dir
}

/// `prof args` with `fake_dir` first on `PATH` and the fake rocm-smi in `mode`.
fn prof(fake_dir: &Path, mode: &str, args: &[&str]) -> Output {
    prof_on_path(path_with(fake_dir), &[("FAKE_ROCM_SMI_MODE", mode)], args)
}

/// Runs `prof detect --json` and returns the whole document and its `amd` entry.
fn detect_json(fake_dir: &Path, mode: &str) -> (Value, Value) {
    let doc = success_json(&prof(fake_dir, mode, &["detect", "--json"]));
    assert_eq!(doc["schema"], "prof.detect.v1");
    let amd = doc["vendors"].as_array().unwrap().iter().find(|v| v["vendor"] == "amd").cloned().unwrap();
    (doc, amd)
}

fn tool<'a>(amd: &'a Value, name: &str) -> &'a Value {
    amd["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no {name}: {amd}"))
}

fn strings(values: &Value, key: &str) -> Vec<String> {
    values.as_array().unwrap().iter().map(|v| v[key].as_str().unwrap_or("<null>").to_owned()).collect()
}

#[test]
fn six_mi100_from_the_recorded_rocm_smi_json() {
    let (doc, amd) = detect_json(&fakes("amd"), "replay");
    assert_eq!(doc["any_present"], true);
    assert_eq!(amd["present"], true);
    assert_eq!(amd["driver_version"], "6.2.4");
    assert_eq!(amd["problems"], serde_json::json!([]), "{amd}");
    let devices = &amd["devices"];
    assert_eq!(strings(devices, "name"), vec!["Arcturus GL-XL [Instinct MI100]"; 6]);
    assert_eq!(
        strings(devices, "bus_id"),
        ["0000:1E:00.0", "0000:22:00.0", "0000:3F:00.0", "0000:43:00.0", "0000:46:00.0", "0000:49:00.0"]
    );
    for (i, device) in devices.as_array().unwrap().iter().enumerate() {
        assert_eq!(device["index"], i);
        assert_eq!(device["memory_total_mib"], 32_752, "34342961152 B");
        assert_eq!(device["uuid"], Value::Null, "`Unique ID` is N/A in the recording");
    }
    let rocm_smi = tool(&amd, "rocm-smi");
    assert_eq!((&rocm_smi["present"], &rocm_smi["kind"]), (&Value::Bool(true), &Value::from("program")));
    assert!(rocm_smi["path"].as_str().unwrap().ends_with("fakes/amd/rocm-smi"), "{rocm_smi}");
    assert_eq!(rocm_smi["install"], INSTALL_ROCM_SMI);
    assert_eq!(tool(&amd, "amd-smi")["present"], true);
    let rocprofv3 = tool(&amd, "rocprofv3");
    // The fake rocprofv3 (for the breakdown tests) sits in the same fake directory.
    assert_eq!((&rocprofv3["present"], &rocprofv3["install"]), (&Value::Bool(true), &Value::from(INSTALL_ROCPROFV3)));
    assert!(rocprofv3["path"].as_str().unwrap().ends_with("fakes/amd/rocprofv3"), "{rocprofv3}");
    let lib = tool(&amd, "librocm_smi64");
    assert_eq!((&lib["present"], &lib["kind"]), (&Value::Bool(false), &Value::from("library")));
    assert_eq!(tool(&amd, "libamd_smi")["install"], INSTALL_AMD_SMI);
}

#[test]
fn concise_table_when_the_json_call_fails() {
    let (_, amd) = detect_json(&fakes("amd"), "no-json");
    assert_eq!(amd["present"], true);
    assert_eq!(amd["driver_version"], Value::Null);
    assert_eq!(strings(&amd["devices"], "name"), vec!["AMD GPU (device id 0x74a0)"; 4]);
    assert_eq!(amd["problems"].as_array().unwrap().len(), 1, "{amd}");
    let problem = amd["problems"][0].as_str().unwrap();
    assert!(problem.starts_with("rocm-smi --json failed (exit status 1): `fake rocm-smi: no recorded"), "{problem}");
}

#[test]
fn amd_smi_alone_lists_eight_gpus() {
    let dir = fake_dir("amd-smi-only", &["amd-smi"]);
    let (_, amd) = detect_json(dir.path(), "replay");
    assert_eq!(amd["present"], true);
    assert_eq!(tool(&amd, "rocm-smi")["present"], false);
    assert_eq!(tool(&amd, "rocm-smi")["install"], INSTALL_ROCM_SMI);
    let devices = amd["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 8);
    assert!(devices.iter().all(|d| d["memory_total_mib"] == 196_300), "{amd}");
    assert_eq!(amd["problems"], serde_json::json!([]));
}

#[test]
fn garbage_from_rocm_smi_is_a_problem_not_a_failure() {
    let dir = fake_dir("garbage", &["rocm-smi"]);
    let (doc, amd) = detect_json(dir.path(), "garbage");
    let ids: Vec<&str> = doc["vendors"].as_array().unwrap().iter().map(|v| v["vendor"].as_str().unwrap()).collect();
    assert_eq!(ids, ["nvidia", "amd", "ascend"]);
    assert_eq!(amd["present"], true, "rocm-smi is installed even if its output is unreadable");
    assert!(amd["devices"].as_array().unwrap().is_empty());
    let problems: Vec<&str> = amd["problems"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].starts_with("rocm-smi --json: unexpected output at line 1: invalid JSON"), "{problems:?}");
    assert_eq!(
        problems[1],
        "rocm-smi: unexpected output at line 1: expected a header line starting with `Device`, \
         found `*** stack smashing detected ***: terminated`"
    );

    let out = prof(dir.path(), "garbage", &["detect"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("AMD: found"), "{text}");
    assert!(text.contains("problem: rocm-smi --json: unexpected output at line 1"), "{text}");
}
