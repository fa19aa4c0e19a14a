//! The published JSON Schemas (`schemas/`): generated from the Rust types by `prof schema`,
//! shipped as files, and the validator every test uses on every document it reads
//! (`tests/support/schema_check.rs`) rejects what does not match.

use serde_json::{json, Value};

#[path = "support/mod.rs"]
mod support;

use support::schema_check::{assert_valid, check_document, validate};
use support::{fixture_arg, fixtures, prof, prof_json};

fn shipped(name: &str) -> String {
    let path = fixtures().join("../../schemas").join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_shipped_schemas_are_what_prof_generates() {
    let list = String::from_utf8(prof(&["schema"]).stdout).unwrap();
    let names: Vec<&str> = list.lines().collect();
    assert_eq!(names.len(), 11, "{list}");
    let mut files: Vec<String> = std::fs::read_dir(fixtures().join("../../schemas"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut expected: Vec<String> = names.iter().map(|n| format!("{n}.json")).collect();
    expected.sort();
    assert_eq!(files, expected, "one file per document, no stale file");
    for name in names {
        let generated = String::from_utf8(prof(&["schema", name]).stdout).unwrap();
        assert_eq!(generated, shipped(name), "schemas/{name}.json is stale: run `prof schema --write schemas`");
        let schema: Value = serde_json::from_str(&generated).unwrap();
        assert_eq!(schema["properties"]["schema"]["const"], name);
    }
    let unknown = prof(&["schema", "prof.nope.v1"]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn the_validator_rejects_what_breaks_a_schema() {
    let doc = prof_json(&["analyze", "--json", "--top", "3"]);
    assert!(check_document(&doc).is_empty());
    let mut wrong_type = doc.clone();
    wrong_type["summary"]["kernels"][0]["total_ns"] = json!("12 ms");
    let errors = check_document(&wrong_type);
    assert!(
        errors.iter().any(|e| e.contains("$.summary.kernels[0].total_ns") && e.contains("not of type")),
        "{errors:?}"
    );
    let mut missing = doc.clone();
    missing["diagnosis"].as_object_mut().unwrap().remove("findings");
    let errors = check_document(&missing);
    assert!(errors.iter().any(|e| e.contains("missing required `findings`")), "{errors:?}");
    let mut negative = doc.clone();
    negative["summary"]["ops"] = json!(-1);
    assert!(!check_document(&negative).is_empty());
    let mut other = doc.clone();
    other["schema"] = json!("prof.util.v1");
    assert!(!check_document(&other).is_empty(), "a breakdown is not a util document");
    // A keyword the validator does not know fails instead of passing unchecked.
    let mut errors = Vec::new();
    validate(&json!({}), &json!({"pattern": "^a"}), &json!("b"), "$", &mut errors);
    assert!(errors[0].contains("not understood"), "{errors:?}");
    let mut errors = Vec::new();
    let tuple =
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "minItems": 2, "maxItems": 2});
    validate(&json!({}), &tuple, &json!(["stall", "x"]), "$", &mut errors);
    assert!(errors.iter().any(|e| e.contains("$[1]")), "{errors:?}");
}

#[test]
fn recorded_and_error_documents_match_their_schemas() {
    // prof profile documents recorded on the H200, and each step's own document inside.
    for name in ["decode.json", "train.json", "lm-head.json"] {
        let path = fixtures().join("nvidia/h200-profile").join(name);
        let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        assert_valid(&doc);
        for step in doc["steps"].as_array().unwrap() {
            assert_eq!(check_document(&step["document"]), Vec::<String>::new());
        }
    }
    // A failure with --json prints prof.error.v1.
    let out = prof(&["analyze", "--json", "/nonexistent/trace.json"]);
    assert!(!out.status.success());
    let error: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["schema"], "prof.error.v1");
    assert_valid(&error);
    // An ncu CSV read by analyze is a deep-dive document; a rank directory a ranks document.
    let dive = prof_json(&["analyze", "--json", &fixture_arg("nvidia/h200-verify/deep-dive-ncu-details.csv")]);
    assert_eq!(dive["schema"], "prof.deep-dive.v1");
}
