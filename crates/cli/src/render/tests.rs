use super::{bound_json, table};

#[test]
fn long_strings_are_cut_at_a_character_and_said_so() {
    let long = "é".repeat(super::JSON_STRING_CHARS + 10);
    let mut doc = serde_json::json!({ "kernels": [{ "name": long }], "short": "kept" });
    bound_json(&mut doc, 100);
    let name = doc["kernels"][0]["name"].as_str().unwrap();
    assert_eq!(name.chars().count(), super::JSON_STRING_CHARS);
    assert!(name.ends_with("é…"), "the cut keeps whole characters");
    assert_eq!(doc["short"], "kept");
    assert_eq!(
        doc["truncated"],
        serde_json::json!([{ "path": "kernels.0.name", "kept": super::JSON_STRING_CHARS - 1, "of": super::JSON_STRING_CHARS + 10 }])
    );
}

#[test]
fn long_lists_are_cut_and_said_so() {
    let mut doc = serde_json::json!({ "a": [1, 2, 3], "b": { "c": [[1, 2, 3, 4], [5]] }, "d": "x" });
    bound_json(&mut doc, 2);
    assert_eq!(doc["a"], serde_json::json!([1, 2]));
    assert_eq!(doc["b"]["c"], serde_json::json!([[1, 2], [5]]));
    let cut = doc["truncated"].as_array().unwrap();
    assert_eq!(cut.len(), 2, "{cut:?}");
    assert!(cut.contains(&serde_json::json!({ "path": "a", "kept": 2, "of": 3 })));
    assert!(cut.contains(&serde_json::json!({ "path": "b.c.0", "kept": 2, "of": 4 })));
    let mut small = serde_json::json!({ "a": [1] });
    bound_json(&mut small, 2);
    assert_eq!(small, serde_json::json!({ "a": [1] }), "nothing cut, nothing added");
}

#[test]
fn aligns_columns() {
    let rows = vec![vec!["a".to_owned(), "long".to_owned(), "x".to_owned()], vec!["bbb".to_owned(), "c".to_owned()]];
    assert_eq!(table(&rows), "a    long  x\nbbb  c\n");
}
