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

/// Every second name the default surface offers for an action or a field
/// (§11.3): catalog entries other than the registered actions, once each in
/// registry order; `exec` commands other than the registered domains and
/// verbs, or with aliases; two properties of one input object that differ
/// only in case or underscores (`assignee_ref`, `assigneeRef`).
fn alias_problems(catalog: &Value, cli: &clap::Command) -> Vec<String> {
    let mut problems = Vec::new();
    let registered: Vec<String> = ACTIONS.iter().map(|a| a.name()).collect();
    let entries = catalog["actions"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let listed: Vec<&str> = entries
        .iter()
        .map(|e| e["name"].as_str().unwrap_or_default())
        .collect();
    if listed != registered {
        problems.push(format!(
            "the catalog lists {listed:?}, the registry {registered:?}"
        ));
    }

    let exec = cli.find_subcommand("exec").expect("an exec command");
    let mut routes: Vec<String> = Vec::new();
    let mut commands = vec![exec];
    for domain in exec.get_subcommands() {
        commands.push(domain);
        for verb in domain.get_subcommands() {
            commands.push(verb);
            routes.push(format!("{}_{}", domain.get_name(), verb.get_name()));
        }
    }
    let mut sorted = registered.clone();
    sorted.sort();
    routes.sort();
    if routes != sorted {
        problems.push(format!("`exec` offers {routes:?}, the registry {sorted:?}"));
    }
    for command in commands {
        let aliases: Vec<&str> = command.get_all_aliases().collect();
        if !aliases.is_empty() {
            problems.push(format!("`{}` has aliases {aliases:?}", command.get_name()));
        }
    }

    for entry in entries {
        let action = entry["name"].as_str().unwrap_or_default();
        let mut objects = Vec::new();
        walk_objects(&entry["input_schema"], &mut objects);
        for object in objects {
            let mut seen: Vec<(String, &str)> = Vec::new();
            for name in object["properties"]
                .as_object()
                .into_iter()
                .flat_map(|p| p.keys())
            {
                let folded = name.replace('_', "").to_lowercase();
                if let Some((_, first)) = seen.iter().find(|(f, _)| *f == folded) {
                    problems.push(format!("{action}: `{first}` and `{name}`"));
                }
                seen.push((folded, name));
            }
        }
    }
    problems
}

#[test]
fn check_03_no_deprecated_aliases_in_the_default_surface() {
    // `Deprecation` has the one state `Active`, so a deprecated action
    // cannot be registered at all; what can still reach the default surface
    // is an alias.
    assert_eq!(
        alias_problems(&catalog(), &crate::cli::command()),
        Vec::<String>::new()
    );
    for (old, _) in MIGRATIONS {
        assert!(
            find_by_name(old).is_none(),
            "old name {old} is still registered"
        );
    }

    // The rules bite: each alias below is reported.
    let mut aliased = catalog();
    let entries = aliased["actions"].as_array_mut().unwrap();
    let mut second_name = entries[0].clone();
    second_name["name"] = json!("task_find");
    entries.push(second_name);
    entries[1]["input_schema"]["properties"]["channelId"] = json!({"type": "string"});
    entries[1]["input_schema"]["properties"]["channel_id"] = json!({"type": "string"});
    let cli = crate::cli::command().mut_subcommand("exec", |exec| {
        exec.mut_subcommand("task", |task| {
            task.mut_subcommand("get", |get| get.alias("show"))
                .subcommand(clap::Command::new("find"))
        })
    });
    let problems = alias_problems(&aliased, &cli);
    let names = ACTIONS.iter().map(|a| a.name()).collect::<Vec<_>>();
    let with_find = |names: &[String]| {
        let mut all = names.to_vec();
        all.push("task_find".into());
        all
    };
    let mut sorted = names.clone();
    sorted.sort();
    let mut routes = with_find(&names);
    routes.sort();
    assert_eq!(
        problems,
        [
            format!(
                "the catalog lists {:?}, the registry {names:?}",
                with_find(&names)
            ),
            format!("`exec` offers {routes:?}, the registry {sorted:?}"),
            "`get` has aliases [\"show\"]".to_string(),
            format!("{}: `channelId` and `channel_id`", names[1]),
        ]
    );
}

/// A property of an input schema as the catalog declares it, with the path
/// spelling of `cli::help::input_fields` (`parent.child`, `list[].child`).
struct SchemaField {
    path: String,
    required: bool,
    type_name: String,
}

fn schema_fields(schema: &Value, prefix: &str, out: &mut Vec<SchemaField>) {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema["properties"].as_object() else {
        return;
    };
    for (name, prop) in props {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        out.push(SchemaField {
            path: path.clone(),
            required: required.contains(&name.as_str()),
            type_name: schema_type_name(prop),
        });
        schema_fields(prop, &path, out);
        schema_fields(&prop["items"], &format!("{path}[]"), out);
    }
}

/// How the CLI's help must spell a property's type: its enum values, else
/// its JSON type(s), arrays with their item type.
fn schema_type_name(prop: &Value) -> String {
    if let Some(values) = prop["enum"].as_array() {
        return values
            .iter()
            .map(|v| v.as_str().unwrap_or("null"))
            .collect::<Vec<_>>()
            .join("|");
    }
    match &prop["type"] {
        Value::String(t) if t == "array" => {
            format!("array of {}", schema_type_name(&prop["items"]))
        }
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        other => panic!("property without a type: {other}"),
    }
}

#[test]
fn check_04_catalog_and_schema_parity() {
    let catalog = catalog();
    let entries = catalog["actions"].as_array().unwrap();
    assert_eq!(entries.len(), ACTIONS.len());
    for (action, entry) in ACTIONS.iter().zip(entries) {
        let name = action.name();
        assert_eq!(entry["name"], json!(name));
        assert_eq!(entry["action_id"], json!(action.id()));
        assert_eq!(
            entry["cli"],
            json!(format!(
                "agentteam exec {} {} -",
                action.domain, action.verb
            ))
        );
        // The catalog carries exactly what `--input-schema` and
        // `--output-schema` print (both are these functions; the binary's
        // output is compared with them in tests/testsuite/snapshots.rs).
        assert_eq!(entry["input_schema"], (action.input_schema)(), "{name}");
        assert_eq!(entry["output_schema"], action.output_schema(), "{name}");
        assert_eq!(
            entry["output_schema"]["properties"]["data"],
            super::schema::open((action.data_schema)()),
            "{name}"
        );
        // Published open, held closed: the two differ only in `data`'s
        // `additionalProperties: false`.
        let mut closed = action.closed_output_schema();
        assert_eq!(
            closed["properties"]["data"],
            (action.data_schema)(),
            "{name}"
        );
        closed["properties"]["data"] = entry["output_schema"]["properties"]["data"].clone();
        assert_eq!(entry["output_schema"], closed, "{name}");

        // The CLI's help lists every catalog property, and only those, with
        // the same requiredness and type.
        let mut declared = Vec::new();
        schema_fields(&entry["input_schema"], "", &mut declared);
        let help = crate::cli::help::input_fields(action);
        assert_eq!(
            declared.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
            help.iter()
                .map(|(path, ..)| path.as_str())
                .collect::<Vec<_>>(),
            "{name}: help and catalog list different fields"
        );
        for (field, (path, type_name, required, _)) in declared.iter().zip(&help) {
            assert_eq!(field.required, *required, "{name}: {path} requiredness");
            assert_eq!(&field.type_name, type_name, "{name}: {path} type");
        }
    }
}

#[test]
fn check_05_permission_and_annotations_agree() {
    for action in ACTIONS {
        let name = action.name();
        let (read_only, destructive) = match action.permission {
            Permission::ReadOnly => (true, false),
            Permission::AgentMutation => (false, false),
            Permission::Destructive => (false, true),
        };
        assert_eq!(action.read_only(), read_only, "{name}");
        assert_eq!(action.destructive(), destructive, "{name}");
        let entry = action.catalog_entry();
        assert_eq!(entry["permission"], json!(action.permission), "{name}");
        assert_eq!(entry["read_only"], json!(read_only), "{name}");
        assert_eq!(entry["destructive"], json!(destructive), "{name}");

        // Read-only means no side effect anywhere in the metadata.
        assert_eq!(
            read_only,
            action.idempotency == Idempotency::Safe,
            "{name}: only reads are `safe` to repeat"
        );
        assert_eq!(
            read_only,
            action.concurrency == Concurrency::Snapshot,
            "{name}"
        );

        // The description says what the annotations say (§10.1 point 3).
        let description = action.description.to_lowercase();
        assert_eq!(
            description.contains("read-only"),
            read_only,
            "{name}: a read says `Read-only`; nothing else does"
        );
        let says_permanent =
            description.contains("permanent") || description.contains("cannot be recovered");
        assert_eq!(
            says_permanent, destructive,
            "{name}: a destructive action says it is permanent; nothing else does"
        );
        assert_eq!(
            crate::cli::help::action_long_help(action)
                .contains("permission destructive (permanent)"),
            destructive,
            "{name}: --help"
        );
        // §7.4: a destructive action says whether a human must agree, and
        // which token scope or profile cap it needs.
        if destructive {
            assert!(
                description.contains("no human confirmation"),
                "{name}: says whether a human must agree"
            );
            assert!(
                description.contains("scope `destructive`"),
                "{name}: names the class it needs"
            );
        }
    }
}

#[test]
fn permission_classes_are_ordered_by_privilege() {
    use Permission::*;
    assert!(ReadOnly < AgentMutation && AgentMutation < Destructive);
    for class in Permission::ALL {
        assert_eq!(Permission::parse(class.as_str()), Some(class));
        assert_eq!(json!(class), json!(class.as_str()));
    }
    assert_eq!(Permission::parse("admin"), None);
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
            matches!(
                action.idempotency,
                Idempotency::KeyedReplay | Idempotency::Keyed
            ),
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

/// Why an action's hidden context is wrong, if it is: it must be what the
/// action depends on, the workspace and agent its route names, the token
/// that authenticates the agent and, for a keyed replay (a key is valid only
/// inside a workflow callback), the workflow run and callback effect.
fn hidden_context_problems(action: &Action) -> Vec<String> {
    let route = action.route_template();
    let keyed = action.idempotency == Idempotency::KeyedReplay;
    let mut problems = Vec::new();
    for (context, needed) in [
        (HiddenContext::WorkspaceId, route.contains("{workspaceId}")),
        (HiddenContext::AgentId, route.contains("{agentId}")),
        (HiddenContext::AgentToken, true),
        (HiddenContext::WorkflowRunId, keyed),
        (HiddenContext::CallbackEffectId, keyed),
    ] {
        if action.hidden_context.contains(&context) != needed {
            let verb = if needed { "lacks" } else { "needlessly has" };
            problems.push(format!(
                "{}: {verb} hidden context {context:?}",
                action.name()
            ));
        }
    }
    problems
}

#[test]
fn check_09_every_action_is_classified() {
    // `Exposure` and `Deprecation` are typed with one state each, so every
    // action has both; what can go wrong is what the catalog publishes and
    // the hidden context (§9.1).
    for action in ACTIONS {
        let name = action.name();
        let entry = action.catalog_entry();
        assert_eq!(entry["owner"], json!(action.domain), "{name}");
        assert_eq!(entry["exposure"], json!("exec"), "{name}");
        assert_eq!(entry["deprecation"], json!("active"), "{name}");
        assert_eq!(hidden_context_problems(action), Vec::<String>::new());
    }
    assert!(find("task", "delete").unwrap().destructive());

    // The rules bite: a keyed create without its workflow context, and a
    // read that claims one.
    let create = find("task", "create").unwrap();
    let unkeyed = Action {
        hidden_context: task::AGENT_CONTEXT,
        ..*create
    };
    assert_eq!(
        hidden_context_problems(&unkeyed),
        [
            "task_create: lacks hidden context WorkflowRunId",
            "task_create: lacks hidden context CallbackEffectId",
        ]
    );
    let get = find("task", "get").unwrap();
    let in_a_callback = Action {
        hidden_context: create.hidden_context,
        ..*get
    };
    assert_eq!(
        hidden_context_problems(&in_a_callback),
        [
            "task_get: needlessly has hidden context WorkflowRunId",
            "task_get: needlessly has hidden context CallbackEffectId",
        ]
    );
}

#[test]
fn check_10_descriptions_reference_only_registered_actions() {
    // Everything a model reads about an action: its description, its
    // `--help` and every field description of its input schema.
    for action in ACTIONS {
        let mut texts = vec![
            action.description.to_string(),
            crate::cli::help::action_long_help(action),
        ];
        texts.extend(
            crate::cli::help::input_fields(action)
                .into_iter()
                .map(|(.., description)| description),
        );
        for text in texts {
            for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if word.contains('_')
                    && domains().iter().any(|d| word.starts_with(&format!("{d}_")))
                {
                    // Error codes share the domain prefix (`task_not_found`).
                    let error_code = crate::error::ERROR_CODES.iter().any(|c| c.code == word);
                    assert!(
                        find_by_name(word).is_some() || error_code,
                        "{} mentions {word}, neither a registered tool nor an error code",
                        action.name()
                    );
                }
            }
        }
    }
}

/// Compact-JSON size budgets, in bytes, of each action's definition (§10.1):
/// `(canonical name, catalog entry, input schema)`. Tool definitions are
/// persistent model-visible context, so growth must be a decision. This is a
/// deterministic regression guard, not a token count: each budget is the size
/// measured when it was set, rounded up to the next 512 bytes. When a change
/// needs more, raise the number here in the same reviewed change.
///
/// Raised for task_get (8192) and task_set_claim (3584) when `--batch`'s
/// `meta.line` joined every output schema: the default catalog carries no
/// output schema, so no model pays for it unless it asks.
///
/// Raised for task_checkpoint (5120) when it took an `idempotency_key`
/// (§7.2) and answered `reused`.
///
/// Raised for task_list (6656) when an empty search's answer could name
/// the done and canceled tasks it left out (`closed_match`), a field that
/// keeps an agent from re-creating finished work; and again (7680) when
/// an empty page could name the label its filter mistyped, the board that
/// has a match and the word too many (`labels_match`, `channel_match`,
/// `words_match`), each a reason not to read the page as "no such task";
/// and again (8192) when it could name the filter its query named and the
/// words as the board's titles spell them (`filter_match`,
/// `spelling_match`). The default catalog carries no output schema.
const DEFINITION_BUDGETS: &[(&str, usize, usize)] = &[
    ("task_list", 8192, 2560),
    ("task_get", 8704, 1024),
    ("task_create", 8704, 4608),
    ("task_update", 7168, 4096),
    ("task_set_claim", 4096, 1024),
    ("task_checkpoint", 5120, 1024),
    ("task_delete", 3072, 1024),
];

#[test]
fn check_11_definitions_stay_within_their_size_budget() {
    let compact = |v: &Value| serde_json::to_string(v).unwrap().len();
    // Every overrun at once, each with the budget it would take (the size
    // rounded up to the next 512 bytes), so one run says every number.
    let rounded = |size: usize| size.div_ceil(512) * 512;
    let mut over = Vec::new();
    for action in ACTIONS {
        let name = action.name();
        let &(_, entry_budget, input_budget) = DEFINITION_BUDGETS
            .iter()
            .find(|(n, ..)| *n == name)
            .unwrap_or_else(|| panic!("{name} has no size budget in DEFINITION_BUDGETS"));
        let entry = compact(&action.catalog_entry());
        let input = compact(&(action.input_schema)());
        if entry > entry_budget {
            over.push(format!(
                "{name}: catalog entry is {entry} bytes, budget {entry_budget} (would be {})",
                rounded(entry)
            ));
        }
        if input > input_budget {
            over.push(format!(
                "{name}: input schema is {input} bytes, budget {input_budget} (would be {})",
                rounded(input)
            ));
        }
    }
    assert!(
        over.is_empty(),
        "over their size budget (DEFINITION_BUDGETS in src/registry/tests.rs; raise one only with its reason beside it):\n{}",
        over.join("\n")
    );
    for (name, ..) in DEFINITION_BUDGETS {
        assert!(
            find_by_name(name).is_some(),
            "budget for unknown action {name}"
        );
    }
}

/// Why a migration map is wrong, if it is: an old name must be a well-formed
/// name that is no longer registered, listed once, and map to a registered
/// action or to the explicit decision "removed".
fn migration_problems(map: &[(&str, &str)]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen = HashSet::new();
    for &(old, new) in map {
        if !is_snake_case(old) {
            problems.push(format!("{old}: not a canonical-grammar name"));
        }
        if find_by_name(old).is_some() {
            problems.push(format!("{old}: still registered"));
        }
        if !seen.insert(old) {
            problems.push(format!("{old}: listed twice"));
        }
        if new != "removed" && find_by_name(new).is_none() {
            problems.push(format!("{old} -> {new}: neither registered nor `removed`"));
        }
    }
    problems
}

#[test]
fn check_12_old_names_have_an_explicit_migration() {
    assert_eq!(migration_problems(MIGRATIONS), Vec::<String>::new());

    // The rules bite: each broken entry below is reported.
    let broken = [
        ("task_get", "task_list"),
        ("task_search", "task_find"),
        ("task_claim", "task_set_claim"),
        ("task_claim", "removed"),
        ("listTasks", "task_list"),
    ];
    assert_eq!(
        migration_problems(&broken),
        [
            "task_get: still registered",
            "task_search -> task_find: neither registered nor `removed`",
            "task_claim: listed twice",
            "listTasks: not a canonical-grammar name",
        ]
    );

    // The catalog publishes the map, entry for entry (possibly empty).
    let published = catalog()["migrations"]
        .as_array()
        .expect("the catalog always carries `migrations`")
        .clone();
    let expected: Vec<Value> = MIGRATIONS
        .iter()
        .map(|(old, new)| json!({"old": old, "new": new}))
        .collect();
    assert_eq!(published, expected);
}

#[test]
fn catalog_schemas_are_valid_json_schema_2020_12() {
    let catalog = catalog();
    let mut schemas = vec![("error_schema".to_string(), catalog["error_schema"].clone())];
    for entry in catalog["actions"].as_array().unwrap() {
        for key in ["input_schema", "output_schema"] {
            schemas.push((format!("{}: {key}", entry["name"]), entry[key].clone()));
        }
    }
    assert_eq!(schemas.len(), 1 + 2 * ACTIONS.len());
    for (what, schema) in schemas {
        if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
            panic!(
                "{what} is not a valid 2020-12 schema: {e} at {}",
                e.instance_path()
            );
        }
    }
    // The meta-schema check is live: a malformed schema fails it.
    assert!(!jsonschema::draft202012::meta::is_valid(
        &json!({"type": "object", "properties": {"a": {"type": 12}}})
    ));
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

/// §4.4: every enum of every input schema, however deep, has snake_case
/// values and a description that says what an unknown value gets.
#[test]
fn every_input_enum_says_what_an_unknown_value_gets() {
    fn walk(name: &str, path: &str, schema: &Value, seen: &mut usize) {
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            *seen += 1;
            let description = schema["description"].as_str().unwrap_or_default();
            assert!(
                description.contains("Other values are rejected."),
                "{name}: {path}: {description:?} does not say what an unknown value gets"
            );
            for value in values.iter().filter_map(Value::as_str) {
                assert!(
                    crate::case::is_snake_case(value),
                    "{name}: {path}: {value} is not snake_case"
                );
            }
        }
        match schema {
            Value::Object(map) => {
                for (key, child) in map {
                    walk(name, &format!("{path}/{key}"), child, seen);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(name, &format!("{path}/{i}"), child, seen);
                }
            }
            _ => {}
        }
    }
    let mut seen = 0;
    for (name, schema) in input_schemas() {
        walk(&name, "", &schema, &mut seen);
    }
    assert!(seen >= 8, "the walk found only {seen} enums");
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
        // Optional fields state their default (§4.2), nested ones too.
        optional_fields_state_their_default(&name, "", &schema);
    }
}

/// Every optional property of `object` (a schema of type object) and of the
/// objects under it says what its absence means.
fn optional_fields_state_their_default(action: &str, at: &str, object: &Value) {
    let required: Vec<&str> = object["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = object["properties"].as_object() else {
        return;
    };
    for (field, prop) in properties {
        let path = format!("{at}{field}");
        if !required.contains(&field.as_str()) {
            let d = prop["description"].as_str().unwrap_or_default();
            assert!(
                d.contains("Default") || d.contains("default") || d.contains("Omitted"),
                "{action}: {path} states no default: {d:?}"
            );
        }
        optional_fields_state_their_default(action, &format!("{path}."), prop);
        optional_fields_state_their_default(action, &format!("{path}[]."), &prop["items"]);
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

/// Each action has an operation of its own: two actions on one handler
/// would answer the same thing under two names.
#[test]
fn every_action_has_its_own_operation() {
    for (i, a) in ACTIONS.iter().enumerate() {
        for b in &ACTIONS[i + 1..] {
            assert_ne!(a.operation, b.operation, "{} and {}", a.name(), b.name());
        }
    }
}

/// The success status comes from the registry: 201 only for a creation,
/// 200 for a replay and for every other action. A checkpoint's replay is
/// told by `reused` too, but an append answers 200 either way, as it always
/// has: a checkpoint is part of its task, not a resource of its own.
#[test]
fn success_statuses_follow_the_registry() {
    let created = json!({"reused": false, "tasks": []});
    let replayed = json!({"reused": true, "tasks": []});
    assert_eq!(Success::CreatedUnlessReused.status(&created), 201);
    assert_eq!(Success::CreatedUnlessReused.status(&replayed), 200);
    assert_eq!(Success::Ok.status(&created), 200);
    for action in ACTIONS {
        let reused = (action.data_schema)()["properties"].get("reused").is_some();
        let creates = matches!(action.operation, Operation::Task(task::Operation::Create));
        let expected = if reused && creates {
            Success::CreatedUnlessReused
        } else {
            Success::Ok
        };
        assert_eq!(action.success, expected, "{}", action.name());
        assert!(
            action.success.statuses().contains(&200),
            "{}",
            action.name()
        );
    }
}

/// Each action's refusals are its own: listed once, none of them one that
/// every call can get, each a client error the runtime sends. (That every
/// refusal a store test provokes is listed is checked by those tests,
/// `runtime::store::tests::declared`.)
#[test]
fn refusals_are_each_actions_own_client_errors() {
    let any_call: Vec<ErrorCode> = ANY_CALL_REFUSALS.into_iter().chain(BODY_REFUSALS).collect();
    for action in ACTIONS {
        let mut seen = HashSet::new();
        for refusal in action.refusals {
            let name = action.name();
            assert!(seen.insert(refusal.code), "{name}: {} twice", refusal.code);
            assert!(
                !any_call.contains(refusal),
                "{name}: {} is any call's",
                refusal.code
            );
            assert!(
                (400..500).contains(&refusal.http_status),
                "{name}: {} is not a client error the runtime sends",
                refusal.code
            );
        }
    }
}

#[test]
fn open_drops_only_closing_keywords_and_keeps_their_order() {
    let closed = json!({
        "type": "object", "description": "d", "additionalProperties": false,
        "properties": {
            "items": {"type": "array", "items": {"type": "object", "additionalProperties": false, "properties": {}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "maybe": {"type": ["object", "null"], "additionalProperties": false, "properties": {}},
        },
        "required": ["items"],
    });
    let open = super::schema::open(closed);
    assert_eq!(
        open,
        json!({
            "type": "object", "description": "d",
            "properties": {
                "items": {"type": "array", "items": {"type": "object", "properties": {}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "maybe": {"type": ["object", "null"], "properties": {}},
            },
            "required": ["items"],
        })
    );
    let keys: Vec<&String> = open.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["type", "description", "properties", "required"]);
    // Every published result schema is open all through `data`.
    for action in ACTIONS {
        let published = action.output_schema();
        let mut objects = Vec::new();
        walk_objects(&published["properties"]["data"], &mut objects);
        assert!(!objects.is_empty());
        for object in objects {
            assert_ne!(
                object["additionalProperties"],
                json!(false),
                "{}",
                action.name()
            );
        }
    }
}
