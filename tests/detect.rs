//! `prof detect` on a machine with no accelerator tools at all: it says so plainly,
//! lists every vendor as not found, and exits 0 (both as a table and as JSON).

use std::process::Command;

fn prof_with_empty_path(args: &[&str]) -> std::process::Output {
    let empty = std::env::temp_dir().join(format!("prof-empty-path-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    Command::new(env!("CARGO_BIN_EXE_prof"))
        .args(args)
        .env("PATH", &empty)
        .env("PROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1")
        .env("LD_LIBRARY_PATH", &empty)
        .env("CUDA_HOME", &empty)
        .output()
        .unwrap()
}

#[test]
fn nothing_found_is_said_plainly_and_exits_zero() {
    let out = prof_with_empty_path(&["detect"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("NVIDIA: not found"), "{text}");
    assert!(text.contains("AMD: not found"), "{text}");
    assert!(text.contains("Ascend: not found"), "{text}");
    assert!(text.contains("No accelerator found"), "{text}");
}

#[test]
fn json_schema_on_an_empty_machine() {
    let out = prof_with_empty_path(&["detect", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "prof.detect.v1");
    assert_eq!(doc["any_present"], false);
    let vendors = doc["vendors"].as_array().unwrap();
    let ids: Vec<&str> = vendors.iter().map(|v| v["vendor"].as_str().unwrap()).collect();
    assert_eq!(ids, ["nvidia", "amd", "ascend"]);
    for vendor in vendors {
        assert_eq!(vendor["present"], false, "{vendor}");
        assert!(vendor["devices"].as_array().unwrap().is_empty());
        for tool in vendor["tools"].as_array().unwrap() {
            assert_eq!(tool["present"], false, "{tool}");
            assert!(!tool["install"].as_str().unwrap().is_empty(), "{tool}");
        }
    }
}

#[test]
fn unknown_verb_fails_with_a_one_line_reason() {
    let out = prof_with_empty_path(&["frobnicate"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("frobnicate"), "{err}");
}
