//! The one adapter between model-facing snake_case names (§4.1) and the
//! Agent Runtime wire's camelCase names (§13.2). Every object in every schema
//! is closed (`additionalProperties: false`), so no user data ever sits in an
//! object key and a key-wise rename of the whole document is exact.

use serde::ser::{Serialize, SerializeMap, Serializer};
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
    renamed(value, rename, |_| false, &mut Vec::new())
}

/// [`rename_keys`]; leaves out every key that `flag` picks, pushing onto
/// `found` its path (renamed, relative to `value`) and the key as given.
fn renamed(
    value: Value,
    rename: fn(&str) -> String,
    flag: fn(&str) -> bool,
    found: &mut Vec<(String, String)>,
) -> Value {
    // The findings under one member, prefixed with its name or index.
    let within = |at: &str, inner: Vec<(String, String)>, found: &mut Vec<_>| {
        found.extend(
            inner
                .into_iter()
                .map(|(path, given)| (format!("{at}/{path}"), given)),
        );
    };
    match value {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (key, value) in map {
                let name = rename(&key);
                if flag(&key) {
                    found.push((name, key));
                    continue;
                }
                let mut inner = Vec::new();
                let value = renamed(value, rename, flag, &mut inner);
                within(&name, inner, found);
                out.insert(name, value);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, value)| {
                    let mut inner = Vec::new();
                    let value = renamed(value, rename, flag, &mut inner);
                    within(&i.to_string(), inner, found);
                    value
                })
                .collect(),
        ),
        other => other,
    }
}

pub fn to_wire(value: Value) -> Value {
    rename_keys(value, |key| wire_key(key).into_owned())
}

/// A model-facing key as the wire spells it: in camelCase where that reads
/// back as the key (`scope_id`, `scopeId`), which every name of the
/// registry does; any other key as it is. Such a key is one a client sent
/// as no name (`_`, `__proto__`, `a_1`), named back in a field error:
/// camelCase would write `_` and `__` both as `""`, and `a_1` as the
/// `a1` it is not.
///
/// A path (`parent_task_scope/x_1`) is respelled a segment at a time.
pub fn wire_key(key: &str) -> std::borrow::Cow<'_, str> {
    if !key.contains('_') {
        return std::borrow::Cow::Borrowed(key);
    }
    if key.contains('/') {
        let segments: Vec<_> = key.split('/').map(wire_key).collect();
        return std::borrow::Cow::Owned(segments.join("/"));
    }
    let bytes = key.as_bytes();
    let reads_back = !bytes.iter().any(u8::is_ascii_uppercase)
        && bytes
            .iter()
            .enumerate()
            .all(|(i, &b)| b != b'_' || bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase));
    if reads_back {
        std::borrow::Cow::Owned(snake_to_camel(key))
    } else {
        std::borrow::Cow::Borrowed(key)
    }
}

/// A snake_case document serialized as [`to_wire`] renames it, every
/// object key in camelCase, without building the renamed copy: a
/// response's objects and keys are written as they are read.
pub struct Wire<'a>(pub &'a Value);

impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (key, value) in map {
                    out.serialize_entry(&wire_key(key), &Wire(value))?;
                }
                out.end()
            }
            Value::Array(items) => serializer.collect_seq(items.iter().map(Wire)),
            other => other.serialize(serializer),
        }
    }
}

pub fn from_wire(value: Value) -> Value {
    rename_keys(value, camel_to_snake)
}

/// [`from_wire`] without the keys that are no wire names, and each of those
/// as its model-facing path and the key as given. Wire names are camelCase,
/// so a key with `_` in it (`scope_id`, `checkpoints_before`) is not one:
/// the server refuses it, as its OpenAPI schemas do, rather than read it as
/// the model-facing name, which would also let one field be given twice in
/// two spellings. Without `_`, no two keys rename to the same name.
pub fn from_wire_checked(value: Value) -> (Value, Vec<(String, String)>) {
    let mut found = Vec::new();
    let value = renamed(value, camel_to_snake, is_no_wire_name, &mut found);
    (value, found)
}

/// Whether `key` cannot be a wire (camelCase) name: it has a `_`.
pub fn is_no_wire_name(key: &str) -> bool {
    key.contains('_')
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
    fn the_wire_serializer_writes_what_the_renamed_copy_does() {
        let model = json!({
            "parent_task_scope": {"kind": "task", "scope_id": "tsk_1"},
            "tasks": [{"title": "a_b", "checklist": [{"text": "x", "done": true}], "n": 1.5}],
            "next_cursor": null, "truncated": false, "items": [], "empty_map": {}
        });
        let written = serde_json::to_string(&Wire(&model)).unwrap();
        assert_eq!(written, to_wire(model.clone()).to_string());
        assert!(written.contains("\"parentTaskScope\"") && written.contains("\"a_b\""));
    }

    /// A key is camelCase on the wire where that reads back as the key;
    /// one sent as no name is written as sent, so none becomes another's
    /// spelling or the empty key.
    #[test]
    fn a_key_is_respelled_only_where_it_reads_back() {
        for (key, wire) in [
            ("scope_id", "scopeId"),
            ("tasks/0/expected_updated_at", "tasks/0/expectedUpdatedAt"),
            ("parent_task_scope/x_1", "parentTaskScope/x_1"),
            ("parent_task_scope/_", "parentTaskScope/_"),
            ("_ab", "Ab"),
            ("title", "title"),
            ("_", "_"),
            ("__", "__"),
            ("__proto__", "__proto__"),
            ("a_1", "a_1"),
            ("a__b", "a__b"),
            ("a_", "a_"),
            ("a_B", "a_B"),
            ("a_é", "a_é"),
        ] {
            assert_eq!(wire_key(key), wire, "{key}");
            assert_eq!(wire_key(wire), wire, "{key}: respelled twice");
        }
    }

    #[test]
    fn a_key_in_snake_case_is_found_on_the_wire() {
        let wire = json!({"channel": "eng", "checkpointsBefore": 1, "checkpoints_before": 2,
            "tasks": [{"title": "a_b"}, {"scope_id": "y"}], "filters": {"assigned_to_me": true}});
        let (model, found) = from_wire_checked(wire);
        // Left out: the camelCase spelling stands, and nothing is read
        // under a name the wire does not have.
        assert_eq!(
            model,
            json!({"channel": "eng", "checkpoints_before": 1,
                "tasks": [{"title": "a_b"}, {}], "filters": {}})
        );
        let found: Vec<_> = found
            .iter()
            .map(|(p, g)| (p.as_str(), g.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("checkpoints_before", "checkpoints_before"),
                ("tasks/1/scope_id", "scope_id"),
                ("filters/assigned_to_me", "assigned_to_me"),
            ]
        );
        let (_, none) = from_wire_checked(json!({"parentTaskScope": {"scopeId": "x_y"}, "n": [1]}));
        assert!(none.is_empty());
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
