//! Help text for an action, written from its registry entry: the route's
//! `--help`, the man pages and the README all use these functions.

use serde_json::Value;

use crate::error::ExitClass;
use crate::registry::Action;

/// One line per input field, nested fields as `parent.child`.
pub fn input_fields(action: &Action) -> Vec<(String, String, bool, String)> {
    let mut rows = Vec::new();
    collect(action.schema(), "", &mut rows);
    rows
}

fn collect(schema: &Value, prefix: &str, rows: &mut Vec<(String, String, bool, String)>) {
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
        rows.push((
            path.clone(),
            type_name(prop),
            required.contains(&name.as_str()),
            prop["description"].as_str().unwrap_or_default().to_string(),
        ));
        if prop.get("properties").is_some() {
            collect(prop, &path, rows);
        }
        if prop["items"].get("properties").is_some() {
            collect(&prop["items"], &format!("{path}[]"), rows);
        }
    }
}

fn type_name(prop: &Value) -> String {
    let base = match &prop["type"] {
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ => "any".into(),
    };
    if let Some(values) = prop["enum"].as_array() {
        let names: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or("null".to_string(), str::to_string))
            .collect();
        return names.join("|");
    }
    if base == "array" {
        let item = type_name(&prop["items"]);
        return format!("array of {item}");
    }
    base
}

/// The shell line that runs an example.
pub fn example_command(action: &Action, input: &str) -> String {
    let compact: Value =
        serde_json::from_str(input).expect("registry examples are valid JSON (tested)");
    format!(
        "echo '{}' | agentteam exec {} {} -",
        compact, action.domain, action.verb
    )
}

pub fn exit_statuses() -> String {
    ExitClass::ALL
        .iter()
        .map(|c| format!("  {}  {}\n", c.code(), c.meaning()))
        .collect()
}

/// The long help of `agentteam exec <domain> <action>`.
pub fn action_long_help(action: &Action) -> String {
    let mut out = format!("{}\n\n{}\n\n", action.summary, action.description);
    out.push_str(&format!(
        "Canonical tool: {}    Action id: {}    Permission: {}{}\nIdempotency: {}\n\n",
        action.name(),
        action.id(),
        serde_json::to_value(action.permission)
            .expect("serialises")
            .as_str()
            .unwrap_or_default(),
        if action.destructive() {
            " (destructive, permanent)"
        } else {
            ""
        },
        action.idempotency.describe(),
    ));
    out.push_str("Input fields (one JSON object; see --input-schema):\n");
    for (path, ty, required, description) in input_fields(action) {
        let req = if required { ", required" } else { "" };
        out.push_str(&format!("  {path} ({ty}{req})\n      {description}\n"));
    }
    out.push_str("\nOutput: {\"data\": …, \"meta\": {…}} on stdout; see --output-schema. Errors: {\"error\": …}; see `agentteam exec --error-schema`.\n\nExamples:\n");
    for example in action.examples {
        out.push_str(&format!(
            "  # {}\n  {}\n",
            example.description,
            example_command(action, example.input)
        ));
    }
    out.push_str("\nExit status:\n");
    out.push_str(&exit_statuses());
    out
}
