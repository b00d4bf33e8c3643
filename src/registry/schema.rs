//! A small vocabulary for writing the registry's JSON Schemas (2020-12) so
//! that every schema has the shape of docs/contract.md §4 by construction:
//! closed objects (a result's `data` is opened where it is published, by
//! [`open`]), a description on every property, a bound on every string
//! and array, no `$ref`. The task domain's shared field shapes live in
//! `registry::task::fields`.

use serde_json::{Map, Value, json};

pub fn string(description: &str, min: u64, max: u64) -> Value {
    json!({"type": "string", "minLength": min, "maxLength": max, "description": description})
}

pub fn pattern(description: &str, pattern: &str, max: u64) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": max, "pattern": pattern, "description": description})
}

pub fn enumeration(description: &str, values: &[&str]) -> Value {
    let max = values.iter().map(|v| v.len()).max().unwrap_or(0);
    json!({"type": "string", "enum": values, "maxLength": max, "description": description})
}

pub fn integer(description: &str, min: i64, max: i64) -> Value {
    json!({"type": "integer", "minimum": min, "maximum": max, "description": description})
}

pub fn boolean(description: &str) -> Value {
    json!({"type": "boolean", "description": description})
}

/// RFC3339 with `Z` or a numeric offset (`T` and `Z` in either case, as
/// RFC 3339 §5.6 allows); `format` is an annotation only in 2020-12, so
/// the pattern enforces it.
pub const TIMESTAMP_PATTERN: &str = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$";

pub fn timestamp(description: &str) -> Value {
    pattern(description, TIMESTAMP_PATTERN, 40)
}

pub fn array(description: &str, items: Value, min: u64, max: u64) -> Value {
    json!({"type": "array", "items": items, "minItems": min, "maxItems": max, "description": description})
}

pub fn unique(mut array: Value) -> Value {
    array["uniqueItems"] = Value::Bool(true);
    array
}

/// A closed object; `required` names must be among `properties`.
pub fn object(description: &str, properties: Vec<(&str, Value)>, required: &[&str]) -> Value {
    let mut props = Map::new();
    for (name, schema) in properties {
        props.insert(name.to_string(), schema);
    }
    let mut schema = json!({
        "type": "object",
        "description": description,
        "additionalProperties": false,
        "properties": props,
    });
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

/// `schema` with every object open to properties it does not list: how a
/// result's `data` is published. The CLI prints the data a server answers,
/// normalised, not filtered, so a result field a later server adds (an
/// additive change, docs/contract.md §11.1) must not make that document
/// fail this CLI's `--output-schema`. Inputs stay closed.
pub fn open(mut schema: Value) -> Value {
    fn walk(node: &mut Value) {
        match node {
            Value::Object(map) => {
                if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                    map.shift_remove("additionalProperties");
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut schema);
    schema
}

/// Allows `null` besides the schema's own type: "null clears" (§4.3).
pub fn nullable(mut schema: Value) -> Value {
    let ty = schema["type"].clone();
    schema["type"] = json!([ty, "null"]);
    if let Some(values) = schema.get_mut("enum").and_then(Value::as_array_mut) {
        values.push(Value::Null);
    }
    schema
}

/// The root of an input schema: a closed, flat object titled with the canonical name.
pub fn input_root(
    title: &str,
    description: &str,
    properties: Vec<(&str, Value)>,
    required: &[&str],
) -> Value {
    let mut schema = object(description, properties, required);
    schema["title"] = json!(title);
    schema
}

/// The whole success document on stdout: `{"data": …, "meta": …}` (README "Output").
pub fn success_document(title: &str, data: Value, meta_properties: Vec<(&str, Value)>) -> Value {
    let mut meta = object(
        "Result metadata; always present, possibly empty.",
        meta_properties,
        &[],
    );
    meta["type"] = json!("object");
    let mut schema = object(
        "The success document agentteam prints on stdout.",
        vec![("data", data), ("meta", meta)],
        &["data", "meta"],
    );
    schema["title"] = json!(title);
    schema
}

/// Every property schema inside `schema`, with its path (`tasks/items/title`).
pub fn walk_properties<'a>(schema: &'a Value, path: &str, out: &mut Vec<(String, &'a Value)>) {
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            let p = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}/{name}")
            };
            out.push((p.clone(), sub));
            walk_properties(sub, &p, out);
        }
    }
    if let Some(items) = schema.get("items") {
        walk_properties(items, &format!("{path}/items"), out);
    }
}

/// Every object schema inside `schema` (the root included).
pub fn walk_objects<'a>(schema: &'a Value, out: &mut Vec<&'a Value>) {
    if schema.get("type") == Some(&json!("object")) || schema.get("properties").is_some() {
        out.push(schema);
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for sub in props.values() {
            walk_objects(sub, out);
        }
    }
    if let Some(items) = schema.get("items") {
        walk_objects(items, out);
    }
}
