//! What a tool call returns: the verb's own document, shortened to a summary unless the
//! caller asks for the whole (bounded) document.

use serde_json::Value;

/// Keys that hold the long detail of a document, dropped from a summary: the timeline
/// analyses of a breakdown, and each profile step's own document (its headline, evidence,
/// artifacts and rerun command stay).
const DETAIL_KEYS: &[&str] = &["analyses", "document"];

/// Lists a summary keeps whole: what was found and why (a handful of lines each), not tables.
const WHOLE_KEYS: &[&str] = &["findings", "evidence", "steps", "verdict", "phases", "artifacts"];

/// `document` as a summary: the detail keys dropped (listed under `omitted`), every table cut
/// to its first `rows` rows (listed under `truncated`; findings and their evidence stay
/// whole), and `detail: "summary"`.
pub fn summary(mut document: Value, rows: usize) -> Value {
    let mut omitted = Vec::new();
    drop_detail(&mut document, &mut Vec::new(), &mut omitted);
    crate::render::bound_json_except(&mut document, rows, WHOLE_KEYS);
    if let Value::Object(fields) = &mut document {
        fields.insert("detail".into(), "summary".into());
        if !omitted.is_empty() {
            fields.insert("omitted".into(), omitted.into());
            fields.insert("more".into(), "call again with detail: \"full\" for the whole document".into());
        }
    }
    document
}

/// `document` whole: as the verb printed it with `--json`, already bounded (100 rows a list).
pub fn full(mut document: Value) -> Value {
    if let Value::Object(fields) = &mut document {
        fields.insert("detail".into(), "full".into());
    }
    document
}

fn drop_detail(value: &mut Value, path: &mut Vec<String>, omitted: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            for key in DETAIL_KEYS {
                if fields.get(*key).is_some_and(|v| !v.is_null()) {
                    fields.remove(*key);
                    path.push((*key).to_owned());
                    omitted.push(path.join("."));
                    path.pop();
                }
            }
            for (key, field) in fields.iter_mut() {
                path.push(key.clone());
                drop_detail(field, path, omitted);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                path.push(index.to_string());
                drop_detail(item, path, omitted);
                path.pop();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_summary_drops_the_detail_and_cuts_lists() {
        let doc = json!({
            "schema": "prof.profile.v1",
            "steps": [{"name": "util", "document": {"big": [1, 2, 3]}}, {"name": "breakdown", "document": null}],
            "summary": {"kernels": [1, 2, 3, 4, 5]},
            "diagnosis": {"findings": [{"evidence": ["a", "b", "c"]}, {}, {}]},
            "analyses": {"gaps": []}
        });
        let s = summary(doc, 2);
        assert_eq!(s["detail"], "summary");
        assert_eq!(s["omitted"], json!(["analyses", "steps.0.document"]));
        assert!(s["steps"][0].get("document").is_none() && s["steps"][1]["document"].is_null());
        assert_eq!(s["summary"]["kernels"], json!([1, 2]));
        assert_eq!(s["truncated"], json!([{"path": "summary.kernels", "kept": 2, "of": 5}]));
        assert_eq!(s["diagnosis"]["findings"][0]["evidence"].as_array().unwrap().len(), 3, "findings stay whole");
        let f = full(json!({"a": [1, 2, 3]}));
        assert_eq!((f["detail"].as_str(), f["a"].as_array().unwrap().len()), (Some("full"), 3));
    }
}
