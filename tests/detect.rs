//! `prof detect` on a machine with no accelerator tools at all: it says so plainly,
//! lists every vendor as not found, and exits 0 (both as a table and as JSON).

#[path = "support/mod.rs"]
mod support;

use std::path::Path;

use support::{fixtures, prof_on_path, prof_with_fakes, NOWHERE};

/// `prof args` with nothing on `PATH` and no vendor library to be found.
fn prof_with_empty_path(args: &[&str]) -> std::process::Output {
    prof_on_path(NOWHERE, &[], args)
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
            assert!(!tool["install"].as_str().unwrap().is_empty(), "{tool}");
            if tool["name"] == "libprof_cupti.so" {
                // prof's own tracer: found beside the prof binary when it was built with it.
                let beside = Path::new(env!("CARGO_BIN_EXE_prof")).with_file_name("libprof_cupti.so");
                let expected = beside.exists().then(|| std::fs::canonicalize(&beside).unwrap().display().to_string());
                assert_eq!(tool["path"].as_str().map(str::to_owned), expected, "{tool}");
                continue;
            }
            assert_eq!(tool["present"], false, "{tool}");
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

/// The `prof.detect.v1` schema is stable: every key of the document recorded on the real
/// H200 (tests/fixtures/nvidia/h200-run/detect.json) is still produced today.
#[test]
fn schema_keys_match_the_document_recorded_on_the_h200() {
    fn keys(value: &serde_json::Value, prefix: &str, out: &mut std::collections::BTreeSet<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let path = format!("{prefix}.{k}");
                    out.insert(path.clone());
                    keys(v, &path, out);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, &format!("{prefix}[]"), out)),
            _ => {}
        }
    }
    let recorded_path = fixtures().join("nvidia/h200-run/detect.json");
    let recorded: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(recorded_path).unwrap()).unwrap();
    let out = prof_with_fakes("nvidia", &[], &["detect", "--json"]);
    let fresh: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (mut old, mut new) = (Default::default(), Default::default());
    keys(&recorded, "", &mut old);
    keys(&fresh, "", &mut new);
    let missing: Vec<&String> = old.difference(&new).collect();
    assert!(missing.is_empty(), "keys recorded on the H200 but no longer produced: {missing:?}");
    assert_eq!(recorded["vendors"][0]["devices"][0]["name"], "NVIDIA H200");
}
