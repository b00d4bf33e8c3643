//! Input validation, shared by the CLI and the runtime so both refuse exactly
//! the same input with exactly the same field errors: the action's compiled
//! JSON Schema (no resolution of any `$ref`), then its branch rules, then
//! canonicalisation. Every bad field is reported, not just the first.
//!
//! The registry publishes JSON Schema 2020-12 (tests check every schema
//! against the 2020-12 meta-schema) written only in [`SHARED_KEYWORDS`],
//! whose meaning draft 4 and 2020-12 share word for word. The engine
//! compiles them with draft-4 rules: before compiling, jsonschema validates
//! a schema against its draft's meta-schema, and building the 2020-12
//! meta-schema validator cost a CLI call 4.4M of its 5.8M instructions and
//! 5 MiB of memory; draft 4's costs a fraction. Tests pin the keyword subset
//! and show both engines give the same verdicts and error paths.

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use crate::error::Failure;
use crate::registry::{ACTIONS, Action, FieldErrors, HiddenContext, schema};

/// The schema keywords the registry may use: those with identical meaning in
/// draft 4 and 2020-12 (see the module note).
pub const SHARED_KEYWORDS: &[&str] = &[
    "type",
    "title",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "uniqueItems",
];

/// The compiled validator of one registry action, built on its first use
/// only: a CLI call pays for its own action's schema, not for all of them.
fn validator(action: &Action) -> &'static Validator {
    static VALIDATORS: OnceLock<Vec<OnceLock<Validator>>> = OnceLock::new();
    let all = VALIDATORS.get_or_init(|| ACTIONS.iter().map(|_| OnceLock::new()).collect());
    all[action.index()].get_or_init(|| compile(action.schema(), jsonschema::Draft::Draft4))
}

fn compile(schema: &Value, draft: jsonschema::Draft) -> Validator {
    jsonschema::options()
        .with_draft(draft)
        .should_validate_formats(false)
        // The linear-time `regex` engine: the registry's patterns need no
        // look-around or backreferences, it compiles several times
        // faster than fancy-regex, and no input can make it backtrack.
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .expect("registry schemas compile (tested)")
}

/// Validates `input` for `action` and returns it canonicalised, or an
/// `invalid_input` failure naming every bad field.
pub fn validate(action: &Action, mut input: Value) -> Result<Value, Failure> {
    if !input.is_object() {
        return Err(Failure::new(
            crate::error::code::INVALID_JSON,
            "Input must be one JSON object.",
        ));
    }
    let mut errors = FieldErrors::new();
    for error in validator(action).iter_errors(&input) {
        record(&error, action, &mut errors);
    }
    (action.check)(&input, &mut errors);
    if !errors.is_empty() {
        return Err(Failure::invalid_input(errors));
    }
    (action.canonicalize)(&mut input);
    Ok(input)
}

fn record(error: &ValidationError<'_>, action: &Action, errors: &mut FieldErrors) {
    let path = error
        .instance_path()
        .as_str()
        .trim_start_matches('/')
        .to_string();
    let join = |name: &str| {
        if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}/{name}")
        }
    };
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            for name in unexpected {
                errors.insert(join(name), unknown_field_message(name, &path, action));
            }
        }
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            errors
                .entry(join(name))
                .or_insert_with(|| "Required.".to_string());
        }
        kind => {
            errors.entry(path).or_insert_with(|| describe(kind));
        }
    }
}

fn unknown_field_message(name: &str, parent_path: &str, action: &Action) -> String {
    let hidden = HiddenContext::ALL.iter().any(|h| {
        h.spellings()
            .contains(&crate::case::camel_to_snake(name).as_str())
    });
    if hidden {
        return "Hidden context (workspace, agent, workflow run, callback effect, token) is injected by agentteam; it cannot be set in input.".into();
    }
    let snake = crate::case::camel_to_snake(name);
    let mut props = Vec::new();
    schema::walk_properties(action.schema(), "", &mut props);
    let sibling_path = schema_path(parent_path, &snake);
    if snake != name && props.iter().any(|(p, _)| *p == sibling_path) {
        return format!("Unknown field; fields are snake_case: use `{snake}`.");
    }
    "Unknown field.".into()
}

/// The schema-walk path of a field whose parent sits at input path `parent`
/// (array indexes become `items`).
fn schema_path(parent: &str, name: &str) -> String {
    let mut parts: Vec<&str> = parent
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            if s.chars().all(|c| c.is_ascii_digit()) {
                "items"
            } else {
                s
            }
        })
        .collect();
    parts.push(name);
    parts.join("/")
}

/// A short message that never echoes the (possibly huge or secret) value.
fn describe(kind: &ValidationErrorKind) -> String {
    match kind {
        ValidationErrorKind::Type { kind } => match kind {
            TypeKind::Single(t) => format!("Must be of type {t}."),
            TypeKind::Multiple(set) => {
                let names: Vec<String> = set.iter().map(|t| t.to_string()).collect();
                format!("Must be of type {}.", names.join(" or "))
            }
        },
        ValidationErrorKind::Enum { options } => {
            let names: Vec<String> = options
                .as_array()
                .map(|o| {
                    o.iter()
                        .map(|v| {
                            v.as_str()
                                .map_or_else(|| v.to_string(), |s| format!("`{s}`"))
                        })
                        .collect()
                })
                .unwrap_or_default();
            format!("Must be one of {}.", names.join(", "))
        }
        ValidationErrorKind::MinLength { limit } => format!("Must be at least {limit} characters."),
        ValidationErrorKind::MaxLength { limit } => format!("Must be at most {limit} characters."),
        ValidationErrorKind::Minimum { limit } => format!("Must be at least {limit}."),
        ValidationErrorKind::Maximum { limit } => format!("Must be at most {limit}."),
        ValidationErrorKind::MinItems { limit } => format!("Must have at least {limit} items."),
        ValidationErrorKind::MaxItems { limit } => format!("Must have at most {limit} items."),
        ValidationErrorKind::UniqueItems => "Items must be distinct.".into(),
        ValidationErrorKind::Pattern { pattern } => {
            if pattern == "\\S" {
                "Must not be blank.".into()
            } else {
                format!("Must match the pattern {pattern}.")
            }
        }
        _ => "Invalid value.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;
    use serde_json::json;

    fn errors(domain: &str, verb: &str, input: Value) -> FieldErrors {
        validate(find(domain, verb).unwrap(), input)
            .unwrap_err()
            .field_errors
    }

    #[test]
    fn names_every_bad_field_by_path() {
        let e = errors(
            "task",
            "create",
            json!({"channel": "Eng", "tasks": [{"title": ""}, {"title": "x", "priority": "high"}], "extra": 1}),
        );
        assert_eq!(e.len(), 4, "{e:?}");
        assert!(e.contains_key("channel"));
        assert!(e.contains_key("tasks/0/title"));
        assert!(e.contains_key("tasks/1/priority"));
        assert_eq!(e["extra"], "Unknown field.");
    }

    #[test]
    fn refuses_hidden_context_and_camel_case() {
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", "workspaceId": "w", "agent_id": "a", "includeSubtasks": true, "token": "t"}),
        );
        assert!(e["workspaceId"].starts_with("Hidden context"));
        assert!(e["agent_id"].starts_with("Hidden context"));
        assert!(e["token"].starts_with("Hidden context"));
        assert_eq!(
            e["includeSubtasks"],
            "Unknown field; fields are snake_case: use `include_subtasks`."
        );
        let e = errors(
            "task",
            "create",
            json!({"parent_task_scope": {"kind": "task", "scopeId": "x"}, "tasks": [{"title": "t"}]}),
        );
        assert!(e["parent_task_scope/scopeId"].contains("scope_id"), "{e:?}");
        assert_eq!(e["parent_task_scope/scope_id"], "Required.");
    }

    #[test]
    fn branch_rules() {
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", "status": "all", "sort": "relevance", "query": "  "}),
        );
        assert!(e.contains_key("status") && e.contains_key("sort"));
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", "filters": {"assignee": "@a", "assigned_to_me": true}}),
        );
        assert!(e.contains_key("filters/assigned_to_me"));
        let e = errors("task", "create", json!({"tasks": [{"title": "a"}]}));
        assert!(e.contains_key("channel"));
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "parent_task_scope": {"kind": "task", "scope_id": "tsk_1"}, "parent": 3, "tasks": [{"title": "a"}]}),
        );
        assert!(e.contains_key("parent_task_scope") && e.contains_key("parent"));
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "parent": 0, "tasks": [{"title": "a"}]}),
        );
        assert!(e.contains_key("parent"));
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "tasks": [{"title": "a"}], "idempotency_key": "   "}),
        );
        assert_eq!(e["idempotency_key"], "Must not be blank.");
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "tasks": [{"title": "a"}], "idempotency_key": "é".repeat(65)}),
        );
        assert!(e["idempotency_key"].contains("128 UTF-8 bytes"));
        let e = errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 1, "expected_updated_at": "2026-01-01T00:00:00Z"}),
        );
        assert!(e.contains_key("patch"));
        let e = errors(
            "task",
            "set_claim",
            json!({"channel": "eng", "numbers": [1, 1], "claimed": true}),
        );
        assert_eq!(e["numbers"], "Items must be distinct.");
    }

    /// Every keyword of every input schema is in the shared subset.
    #[test]
    fn schemas_use_only_keywords_draft_4_and_2020_12_share() {
        fn walk(schema: &Value, path: &str) {
            let Some(object) = schema.as_object() else {
                return;
            };
            for (key, sub) in object {
                assert!(
                    SHARED_KEYWORDS.contains(&key.as_str()),
                    "{path}: keyword {key}"
                );
                match key.as_str() {
                    "properties" => {
                        for (name, prop) in sub.as_object().unwrap() {
                            walk(prop, &format!("{path}/{name}"));
                        }
                    }
                    "items" => walk(sub, &format!("{path}/items")),
                    _ => {}
                }
            }
        }
        for action in crate::registry::ACTIONS {
            walk(&(action.input_schema)(), &action.name());
        }
    }

    /// Inputs derived from the examples: each property dropped, replaced by
    /// values of every JSON type and by boundary strings, and an unknown field.
    fn variants(example: &Value) -> Vec<Value> {
        let probes = [
            json!(null),
            json!(true),
            json!(0),
            json!(-1),
            json!(1.5),
            json!(2147483648_i64),
            json!(""),
            json!(" "),
            json!("x"),
            json!("@a"),
            json!("#eng:t"),
            json!("x".repeat(201)),
            json!([]),
            json!([1, 1]),
            json!(["a"]),
            json!({}),
            json!({"kind": "task", "scope_id": "tsk_1"}),
            json!([{"title": "t"}, {"title": "u", "priority": "high"}]),
        ];
        let mut out = vec![example.clone()];
        let object = example.as_object().unwrap();
        for key in object.keys() {
            let mut dropped = example.clone();
            dropped.as_object_mut().unwrap().remove(key);
            out.push(dropped);
            for probe in &probes {
                let mut changed = example.clone();
                changed[key] = probe.clone();
                out.push(changed);
            }
        }
        let mut extra = example.clone();
        extra["unknownField"] = json!(1);
        out.push(extra);
        out
    }

    #[test]
    fn draft_4_and_2020_12_engines_agree_on_registry_inputs() {
        let mut compared = 0;
        for action in crate::registry::ACTIONS {
            let schema = (action.input_schema)();
            let draft4 = compile(&schema, jsonschema::Draft::Draft4);
            let modern = compile(&schema, jsonschema::Draft::Draft202012);
            for example in action.examples {
                for input in variants(&serde_json::from_str(example.input).unwrap()) {
                    let paths = |v: &Validator| {
                        let mut p: Vec<String> = v
                            .iter_errors(&input)
                            .map(|e| {
                                format!("{} {:?}", e.instance_path().as_str(), e.kind().keyword())
                            })
                            .collect();
                        p.sort();
                        p
                    };
                    assert_eq!(paths(&draft4), paths(&modern), "{}: {input}", action.name());
                    compared += 1;
                }
            }
        }
        assert!(compared > 500, "{compared}");
    }

    #[test]
    fn canonicalises_the_idempotency_key() {
        let ok = validate(
            find("task", "create").unwrap(),
            json!({"channel": "eng", "tasks": [{"title": "a"}], "idempotency_key": "  k1 "}),
        )
        .unwrap();
        assert_eq!(ok["idempotency_key"], "k1");
    }

    #[test]
    fn messages_never_echo_values() {
        let long = "x".repeat(10_000);
        let failure = validate(
            find("task", "get").unwrap(),
            json!({"channel": long, "number": 1}),
        )
        .unwrap_err();
        assert!(!failure.to_document().to_string().contains(&"x".repeat(100)));
    }
}
