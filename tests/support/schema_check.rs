//! A JSON Schema (2020-12) validator for the keywords schemars writes, used by every test
//! that reads a `prof.*.v1` document: the document must match its published schema in
//! `schemas/`. A keyword this validator does not know fails the check rather than being
//! skipped, so a schema it cannot judge is never passed as valid.

use serde_json::Value;
use std::path::Path;

/// Keywords that describe and do not constrain.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "title",
    "description",
    "format",
    "default",
    "examples",
    "$defs",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Checks `document` against `schemas/NAME.json` for its `schema` field, when it has one that
/// names a prof document; returns the errors (empty when valid).
pub fn check_document(document: &Value) -> Vec<String> {
    let Some(name) = document.get("schema").and_then(Value::as_str).filter(|n| n.starts_with("prof.")) else {
        return Vec::new();
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas").join(format!("{name}.json"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        return vec![format!("no published schema for {name} ({})", path.display())];
    };
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    let mut errors = Vec::new();
    validate(&schema, &schema, document, "$", &mut errors);
    errors
}

/// Panics with the errors when `document` does not match its schema.
pub fn assert_valid(document: &Value) {
    let errors = check_document(document);
    assert!(errors.is_empty(), "{} does not match its schema:\n  {}", document["schema"], errors.join("\n  "));
}

/// Validates `value` at `at` against `schema` (with `root` for `$ref`s).
pub fn validate(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let fields = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => return errors.push(format!("{at}: no value is allowed here")),
        Value::Object(fields) => fields,
        other => return errors.push(format!("{at}: schema is not an object: {other}")),
    };
    for (keyword, rule) in fields {
        match keyword.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "$ref" => {
                let target = rule.as_str().and_then(|r| r.strip_prefix("#/$defs/")).and_then(|n| root["$defs"].get(n));
                match target {
                    Some(target) => validate(root, target, value, at, errors),
                    None => errors.push(format!("{at}: unresolved $ref {rule}")),
                }
            }
            "type" => {
                let types: Vec<&str> = match rule {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                if !types.iter().any(|t| is_type(value, t)) {
                    errors.push(format!("{at}: {value} is not of type {rule}"));
                }
            }
            "const" if value != rule => errors.push(format!("{at}: {value} is not {rule}")),
            "enum" if !rule.as_array().is_some_and(|options| options.contains(value)) => {
                errors.push(format!("{at}: {value} is not one of {rule}"));
            }
            "const" | "enum" => {}
            "minimum" | "maximum" => {
                let (Some(bound), Some(number)) = (rule.as_f64(), value.as_f64()) else { continue };
                if (keyword == "minimum" && number < bound) || (keyword == "maximum" && number > bound) {
                    errors.push(format!("{at}: {number} breaks {keyword} {bound}"));
                }
            }
            "required" => {
                if let (Some(object), Some(names)) = (value.as_object(), rule.as_array()) {
                    for name in names.iter().filter_map(Value::as_str).filter(|n| !object.contains_key(*n)) {
                        errors.push(format!("{at}: missing required `{name}`"));
                    }
                }
            }
            "properties" => {
                if let (Some(object), Some(properties)) = (value.as_object(), rule.as_object()) {
                    for (name, property) in properties {
                        if let Some(field) = object.get(name) {
                            validate(root, property, field, &format!("{at}.{name}"), errors);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(object) = value.as_object() {
                    let known = fields.get("properties").and_then(Value::as_object);
                    for (name, field) in object.iter().filter(|(n, _)| known.is_none_or(|k| !k.contains_key(*n))) {
                        validate(root, rule, field, &format!("{at}.{name}"), errors);
                    }
                }
            }
            "items" => {
                if let Some(items) = value.as_array() {
                    let skip = fields.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
                    for (index, item) in items.iter().enumerate().skip(skip) {
                        validate(root, rule, item, &format!("{at}[{index}]"), errors);
                    }
                }
            }
            "prefixItems" => {
                if let (Some(items), Some(prefix)) = (value.as_array(), rule.as_array()) {
                    for (index, (item, schema)) in items.iter().zip(prefix).enumerate() {
                        validate(root, schema, item, &format!("{at}[{index}]"), errors);
                    }
                }
            }
            "minItems" | "maxItems" => {
                let (Some(bound), Some(items)) = (rule.as_u64(), value.as_array()) else { continue };
                let n = items.len() as u64;
                if (keyword == "minItems" && n < bound) || (keyword == "maxItems" && n > bound) {
                    errors.push(format!("{at}: {n} items breaks {keyword} {bound}"));
                }
            }
            "anyOf" | "oneOf" | "allOf" => {
                let options = rule.as_array().cloned().unwrap_or_default();
                let results: Vec<Vec<String>> = options
                    .iter()
                    .map(|option| {
                        let mut found = Vec::new();
                        validate(root, option, value, at, &mut found);
                        found
                    })
                    .collect();
                let passed = results.iter().filter(|r| r.is_empty()).count();
                let ok = match keyword.as_str() {
                    "anyOf" => passed >= 1,
                    "oneOf" => passed == 1,
                    _ => passed == options.len(),
                };
                if !ok {
                    let why: Vec<String> = results.into_iter().flatten().take(6).collect();
                    errors.push(format!(
                        "{at}: {keyword} fails ({passed} of {} match): {}",
                        options.len(),
                        why.join("; ")
                    ));
                }
            }
            other => errors.push(format!("{at}: keyword `{other}` is not understood by this validator")),
        }
    }
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => false,
    }
}
