//! The one adapter between model-facing snake_case names (§4.1) and the
//! Agent Runtime wire's camelCase names (§13.2). Every object in every schema
//! is closed (`additionalProperties: false`), so no user data ever sits in an
//! object key and a key-wise rename of the whole document is exact.

use serde_json::{Map, Value};

pub fn snake_to_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for ch in name.chars() {
        if ch == '_' {
            upper = true;
        } else if upper {
            out.extend(ch.to_uppercase());
            upper = false;
        } else {
            out.push(ch);
        }
    }
    out
}

pub fn camel_to_snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for ch in name.chars() {
        if ch.is_ascii_uppercase() {
            out.push('_');
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

/// Renames every object key in `value` with `rename`, recursively.
pub fn rename_keys(value: Value, rename: fn(&str) -> String) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (rename(&k), rename_keys(v, rename)))
                .collect::<Map<_, _>>(),
        ),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| rename_keys(v, rename)).collect())
        }
        other => other,
    }
}

pub fn to_wire(value: Value) -> Value {
    rename_keys(value, snake_to_camel)
}

pub fn from_wire(value: Value) -> Value {
    rename_keys(value, camel_to_snake)
}

/// Lowercase ASCII snake_case: `[a-z][a-z0-9]*(_[a-z0-9]+)*`.
pub fn is_snake_case(name: &str) -> bool {
    let mut parts = name.split('_');
    let first_ok = parts.next().is_some_and(|p| {
        p.starts_with(|c: char| c.is_ascii_lowercase())
            && p.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    });
    first_ok
        && parts.all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_nested_keys() {
        let model = json!({"parent_task_scope": {"kind": "task", "scope_id": "tsk_1"}, "tasks": [{"title": "a", "checklist": [{"text": "x", "done": true}]}], "idempotency_key": "k"});
        let wire = to_wire(model.clone());
        assert_eq!(wire["parentTaskScope"]["scopeId"], "tsk_1");
        assert_eq!(wire["idempotencyKey"], "k");
        assert_eq!(from_wire(wire), model);
    }

    #[test]
    fn snake_case_grammar() {
        assert!(is_snake_case("task_set_claim"));
        assert!(is_snake_case("limit"));
        assert!(!is_snake_case("taskRef"));
        assert!(!is_snake_case("_x"));
        assert!(!is_snake_case("a__b"));
        assert!(!is_snake_case("A"));
    }
}
