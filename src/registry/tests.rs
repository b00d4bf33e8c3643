//! Registry invariants: the contract's §12 checks over [`ACTIONS`] and the
//! schemas generated from it. Each test names the check it enforces.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::schema::{walk_objects, walk_properties};
use super::*;
use crate::case::is_snake_case;

fn input_schemas() -> Vec<(String, Value)> {
    ACTIONS
        .iter()
        .map(|a| (a.name(), (a.input_schema)()))
        .collect()
}

#[test]
fn check_01_names_follow_the_canonical_grammar() {
    let verbs = [
        "get",
        "list",
        "search",
        "create",
        "create_batch",
        "update",
        "delete",
        "checkpoint",
        "set_claim",
    ];
    let mut names = HashSet::new();
    for action in ACTIONS {
        let name = action.name();
        assert!(is_snake_case(&name), "{name}");
        assert!(names.insert(name.clone()), "duplicate {name}");
        assert!(
            is_snake_case(action.domain) && !action.domain.contains('_'),
            "{name}: domain is one word"
        );
        assert!(
            verbs.contains(&action.verb) || action.verb.starts_with("set_"),
            "{name}: verb {} is not a product verb",
            action.verb
        );
        assert_eq!(action.id(), format!("{}.{}", action.domain, action.verb));
        assert_eq!((action.input_schema)()["title"], json!(name));
    }
}

#[test]
fn check_02_model_fields_are_snake_case() {
    for (name, schema) in input_schemas() {
        let mut props = Vec::new();
        walk_properties(&schema, "", &mut props);
        for (path, _) in props {
            let field = path.rsplit('/').next().unwrap();
            assert!(field == "items" || is_snake_case(field), "{name}: {path}");
        }
    }
}

#[test]
fn check_03_no_deprecated_aliases_in_the_default_surface() {
    for action in ACTIONS {
        assert_eq!(action.deprecation, Deprecation::Active, "{}", action.name());
    }
    for (old, _) in MIGRATIONS {
        assert!(
            find_by_name(old).is_none(),
            "old name {old} is still registered"
        );
    }
}

#[test]
fn check_06_no_hidden_context_in_model_input() {
    let hidden: Vec<&str> = HiddenContext::ALL
        .iter()
        .flat_map(|h| h.spellings().iter().copied())
        .collect();
    for (name, schema) in input_schemas() {
        let mut props = Vec::new();
        walk_properties(&schema, "", &mut props);
        for (path, _) in props {
            let field = path.rsplit('/').next().unwrap();
            assert!(!hidden.contains(&field), "{name}: {path} is hidden context");
        }
    }
}

#[test]
fn check_07_pagination_follows_the_common_contract() {
    for action in ACTIONS {
        let input = (action.input_schema)();
        let props = input["properties"].as_object().unwrap();
        let output = action.output_schema();
        let meta = output["properties"]["meta"]["properties"]
            .as_object()
            .unwrap();
        for forbidden in ["page", "page_number", "offset", "has_more", "nextCursor"] {
            assert!(
                !props.contains_key(forbidden) && !meta.contains_key(forbidden),
                "{}: {forbidden}",
                action.name()
            );
        }
        if action.paginated {
            assert!(
                props.contains_key("limit") && props.contains_key("cursor"),
                "{}",
                action.name()
            );
            assert!(meta.contains_key("next_cursor"));
            assert!(output["properties"]["data"]["properties"]["items"].is_object());
        } else {
            assert!(
                !props.contains_key("cursor") && !meta.contains_key("next_cursor"),
                "{}",
                action.name()
            );
        }
    }
}

#[test]
fn check_08_mutations_declare_idempotency_and_concurrency() {
    for action in ACTIONS {
        if action.read_only() {
            assert_eq!(action.idempotency, Idempotency::Safe, "{}", action.name());
            assert_eq!(
                action.concurrency,
                Concurrency::Snapshot,
                "{}",
                action.name()
            );
        } else {
            assert_ne!(action.idempotency, Idempotency::Safe, "{}", action.name());
            assert_ne!(
                action.concurrency,
                Concurrency::Snapshot,
                "{}",
                action.name()
            );
            assert_eq!(action.method, Method::Post, "{}", action.name());
        }
        let has_key = (action.input_schema)()["properties"]
            .get("idempotency_key")
            .is_some();
        assert_eq!(
            has_key,
            action.idempotency == Idempotency::KeyedReplay,
            "{}",
            action.name()
        );
        let has_expected = (action.input_schema)()["properties"]
            .get("expected_updated_at")
            .is_some();
        assert_eq!(
            has_expected,
            action.concurrency == Concurrency::ExpectedUpdatedAt,
            "{}",
            action.name()
        );
    }
}

#[test]
fn check_09_every_action_is_classified() {
    for action in ACTIONS {
        assert!(domains().contains(&action.domain), "{}", action.name());
        assert_eq!(action.exposure, Exposure::Exec);
        assert!(!action.hidden_context.is_empty(), "{}", action.name());
        assert_eq!(
            action.destructive(),
            action.permission == Permission::Destructive
        );
    }
    assert!(find("task", "delete").unwrap().destructive());
}

#[test]
fn check_10_descriptions_reference_only_registered_actions() {
    for action in ACTIONS {
        for word in action
            .description
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        {
            if word.contains('_') && domains().iter().any(|d| word.starts_with(&format!("{d}_"))) {
                assert!(
                    find_by_name(word).is_some(),
                    "{} mentions unknown tool {word}",
                    action.name()
                );
            }
        }
    }
}

#[test]
fn routes_are_unique_and_under_the_runtime_prefix() {
    let mut seen = HashSet::new();
    for action in ACTIONS {
        assert!(
            action.route.starts_with(&format!("/{}s", action.domain)),
            "{}",
            action.name()
        );
        assert!(
            seen.insert((action.method, action.route)),
            "{} reuses a route",
            action.name()
        );
    }
}

#[test]
fn input_schemas_have_the_product_shape() {
    for (name, schema) in input_schemas() {
        assert_eq!(schema["type"], "object", "{name}");
        for keyword in ["oneOf", "anyOf", "allOf", "$ref", "$defs", "$schema"] {
            assert!(
                !schema.to_string().contains(&format!("\"{keyword}\"")),
                "{name}: {keyword}"
            );
        }
        let mut objects = Vec::new();
        walk_objects(&schema, &mut objects);
        for object in objects {
            assert_eq!(
                object["additionalProperties"],
                json!(false),
                "{name}: open object"
            );
            for required in object["required"].as_array().into_iter().flatten() {
                assert!(
                    object["properties"]
                        .get(required.as_str().unwrap())
                        .is_some(),
                    "{name}: {required}"
                );
            }
        }
        let mut props = Vec::new();
        walk_properties(&schema, "", &mut props);
        for (path, prop) in props {
            let description = prop["description"].as_str().unwrap_or_default();
            assert!(description.len() > 8, "{name}: {path} has no description");
            let types = prop["type"].to_string();
            if types.contains("string") {
                assert!(
                    prop["maxLength"].is_u64(),
                    "{name}: {path} unbounded string"
                );
            }
            if types.contains("array") {
                assert!(prop["maxItems"].is_u64(), "{name}: {path} unbounded array");
            }
            if types.contains("integer") {
                assert!(
                    prop["minimum"].is_i64() && prop["maximum"].is_i64(),
                    "{name}: {path} unbounded integer"
                );
            }
        }
        // Optional fields state their default (§4.2).
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for (field, prop) in schema["properties"].as_object().unwrap() {
            if !required.contains(&field.as_str()) {
                let d = prop["description"].as_str().unwrap();
                assert!(
                    d.contains("Default")
                        || d.contains("default")
                        || d.contains("Omitted")
                        || d.contains("Exclusive")
                        || d.contains("No default"),
                    "{name}: {field} states no default"
                );
            }
        }
    }
}

#[test]
fn examples_validate_against_their_input_schema() {
    for action in ACTIONS {
        assert!(
            !action.examples.is_empty(),
            "{} has no example",
            action.name()
        );
        for example in action.examples {
            let input: Value = serde_json::from_str(example.input)
                .unwrap_or_else(|e| panic!("{}: {e}", action.name()));
            if let Err(f) = crate::validate::validate(action, input) {
                panic!(
                    "{} example {:?} is invalid: {:?}",
                    action.name(),
                    example.description,
                    f.field_errors
                );
            }
        }
    }
}

#[test]
fn catalog_lists_every_action_with_both_schemas() {
    let catalog = catalog();
    let actions = catalog["actions"].as_array().unwrap();
    assert_eq!(actions.len(), ACTIONS.len());
    for entry in actions {
        for key in [
            "name",
            "action_id",
            "owner",
            "permission",
            "read_only",
            "destructive",
            "idempotency",
            "hidden_context",
            "result_budget",
            "http",
            "exposure",
            "deprecation",
            "input_schema",
            "output_schema",
        ] {
            assert!(entry.get(key).is_some(), "{}: {key}", entry["name"]);
        }
    }
}
