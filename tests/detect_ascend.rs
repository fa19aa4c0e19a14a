//! End-to-end Ascend detection: `prof detect` with a fake `npu-smi` on PATH that replays the
//! real npu-smi 25.5.6 recording (4× 910B2), and one that prints garbage.

use serde_json::Value;

#[path = "support/mod.rs"]
mod support;

use support::{prof_with_fakes, success_json};

/// `prof detect --json` with the fake npu-smi of `tests/fakes/<fakes>` on `PATH`.
fn detect_json(fakes: &str) -> Value {
    let doc = success_json(&prof_with_fakes(fakes, &[], &["detect", "--json"]));
    assert_eq!(doc["schema"], "prof.detect.v1");
    doc
}

fn vendor<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["vendors"].as_array().unwrap().iter().find(|v| v["vendor"] == id).unwrap_or_else(|| panic!("no {id}: {doc}"))
}

fn tool<'a>(vendor: &'a Value, name: &str) -> &'a Value {
    vendor["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn four_910b2_from_the_recorded_npu_smi() {
    let doc = detect_json("ascend");
    assert_eq!(doc["any_present"], true);
    let ascend = vendor(&doc, "ascend");
    assert_eq!(ascend["present"], true);
    assert_eq!(ascend["name"], "Ascend");
    assert_eq!(ascend["driver_version"], "25.5.6");
    assert_eq!(ascend["problems"], Value::Array(Vec::new()));
    let devices = ascend["devices"].as_array().unwrap();
    let indices: Vec<u64> = devices.iter().map(|d| d["index"].as_u64().unwrap()).collect();
    assert_eq!(indices, [4, 5, 6, 7]);
    let buses: Vec<&str> = devices.iter().map(|d| d["bus_id"].as_str().unwrap()).collect();
    assert_eq!(buses, ["0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0"]);
    for device in devices {
        assert_eq!(device["name"], "910B2", "{device}");
        assert_eq!(device["memory_total_mib"], 65536, "{device}");
    }

    let smi = tool(ascend, "npu-smi");
    assert_eq!(smi["present"], true);
    assert_eq!(smi["version"], "25.5.6");
    assert!(smi["path"].as_str().unwrap().ends_with("tests/fakes/ascend/npu-smi"), "{smi}");
    let msprof = tool(ascend, "msprof");
    assert_eq!(msprof["present"], false);
    assert_eq!(msprof["kind"], "program");
    assert_eq!(
        msprof["install"],
        "install the CANN toolkit: ./Ascend-cann-toolkit_<version>_linux-<arch>.run --install \
         && source /usr/local/Ascend/ascend-toolkit/set_env.sh"
    );
    let dcmi = tool(ascend, "libdcmi.so");
    assert_eq!((dcmi["present"].as_bool(), dcmi["kind"].as_str()), (Some(false), Some("library")));
}

#[test]
fn the_table_names_the_npus() {
    let out = prof_with_fakes("ascend", &[], &["detect"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Ascend: found"), "{text}");
    assert_eq!(text.matches("910B2").count(), 4, "{text}");
}

#[test]
fn garbage_from_npu_smi_is_a_problem_not_a_failure() {
    let doc = detect_json("ascend/garbage");
    let ids: Vec<&str> = doc["vendors"].as_array().unwrap().iter().map(|v| v["vendor"].as_str().unwrap()).collect();
    assert_eq!(ids, ["nvidia", "amd", "ascend"]);
    let ascend = vendor(&doc, "ascend");
    assert_eq!(ascend["present"], true, "npu-smi itself was found");
    assert!(ascend["devices"].as_array().unwrap().is_empty());
    let problems = ascend["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let problem = problems[0].as_str().unwrap();
    assert!(problem.starts_with("npu-smi info: unexpected output at line 1: not a table line"), "{problem}");
    assert!(problem.contains("Segmentation fault"), "{problem}");
    assert_eq!(tool(ascend, "npu-smi")["present"], true);
}
