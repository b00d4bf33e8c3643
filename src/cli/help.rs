//! Help text for an action, written from its registry entry: the route's
//! `--help`, the man pages and the README all use these functions.

use serde_json::Value;

use crate::error::ExitClass;
use crate::registry::Action;

/// One line per input field, nested fields as `parent.child`.
pub fn input_fields(action: &Action) -> Vec<(String, String, bool, String)> {
    let mut rows = Vec::new();
    collect(action.cached_input_schema(), "", &mut rows);
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

/// `--examples`: every example of an action, with the shell line that runs it.
pub fn examples(action: &Action) -> Value {
    Value::Array(
        action
            .examples
            .iter()
            .map(|e| {
                serde_json::json!({
                    "description": e.description,
                    "input": serde_json::from_str::<Value>(e.input)
                        .expect("registry examples are valid JSON (tested)"),
                    "command": example_command(action, e.input),
                })
            })
            .collect(),
    )
}

pub fn exit_statuses() -> String {
    ExitClass::ALL
        .iter()
        .map(|c| format!("  {}  {}\n", c.code(), c.meaning()))
        .collect()
}

/// The environment variables `binary` reads, for its `--help`: each
/// name, then its description wrapped and indented beneath it.
pub fn environment(binary: &str) -> String {
    crate::env_vars::ALL
        .iter()
        .filter(|var| var.binary == binary)
        .map(|var| format!("  {}\n{}\n", var.name, wrap(var.description, "      ")))
        .collect()
}

/// The width prose is wrapped to. Clap does not wrap (`term_width(0)`), so
/// that example lines stay whole for copy and paste; the prose is wrapped
/// here instead.
pub const WIDTH: usize = 100;

/// `text` wrapped at [`WIDTH`] by words, each line starting with `indent`.
pub fn wrap(text: &str, indent: &str) -> String {
    let mut out = String::new();
    for paragraph in text.split('\n') {
        let mut line = String::from(indent);
        for word in paragraph.split(' ').filter(|w| !w.is_empty()) {
            if line.len() > indent.len() && line.chars().count() + 1 + word.chars().count() > WIDTH
            {
                out.push_str(&line);
                out.push('\n');
                line = String::from(indent);
            }
            if line.len() > indent.len() {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `text` wrapped at [`WIDTH`], lines after the first starting with `indent`.
fn hanging(text: &str, indent: &str) -> String {
    let wrapped = wrap(text, "");
    let mut lines = wrapped.lines();
    let mut out = format!("{}\n", lines.next().unwrap_or_default());
    let rest: Vec<&str> = lines.collect();
    if !rest.is_empty() {
        out.push_str(&wrap(&rest.join(" "), indent));
    }
    out
}

/// How [`action_long_help`] prints a field path of [`input_fields`]: the
/// indent that shows its depth, and its own name.
pub fn nested(path: &str) -> (String, &str) {
    let depth = path.matches('.').count();
    let name = path.rsplit('.').next().unwrap_or(path);
    ("  ".repeat(depth + 1), name)
}

/// The one line that sends an action's reader to the options and exit
/// statuses every route shares, which `agentteam --help` lists once.
pub const SHARED: &str = "Globals and exit statuses: `agentteam --help`.";

/// The most an action's `--help` may print, all of it: what a model reads
/// to learn one action must leave room for the work.
pub const HELP_BUDGET: usize = 3 * 1024;

/// The long help of `agentteam exec <domain> <action>`, within
/// [`HELP_BUDGET`]: a model pays for every byte it reads, so the page says
/// each thing once. Every field is listed with the first sentence of its
/// description; its rules and default are in `--input-schema`, and an
/// error names a broken rule. One example is shown, the rest are a flag
/// away (`--examples`).
pub fn action_long_help(action: &Action) -> String {
    let mut out = wrap(action.summary, "");

    out.push('\n');
    out.push_str(&wrap(action.description, ""));
    out.push('\n');
    out.push_str(&format!(
        "Tool {}, permission {}{}; {}.\n\n",
        action.name(),
        serde_json::to_value(action.permission)
            .expect("serialises")
            .as_str()
            .unwrap_or_default(),
        if action.destructive() {
            " (permanent)"
        } else {
            ""
        },
        action.idempotency.describe(),
    ));
    out.push_str("Input fields, one JSON object (every rule and default: --input-schema):\n");
    for (path, ty, required, description) in input_fields(action) {
        let req = if required { ", required" } else { "" };
        let description = first_sentence(&description);
        // A nested field is indented under its parent by its own name:
        // `tasks[].checklist[].text` prints as `text`, two levels in.
        let (indent, name) = nested(&path);
        out.push_str(&indent);
        out.push_str(&hanging(
            &format!("{name} ({ty}{req}): {description}"),
            &format!("{indent}    "),
        ));
    }
    out.push_str("\nOutput: {\"data\", \"meta\"} (--output-schema); errors: `agentteam exec --error-schema`.\n\n");
    let more = action.examples.len().saturating_sub(1);
    if more > 0 {
        out.push_str(&format!("Example ({more} more: --examples):\n"));
    } else {
        out.push_str("Example (as JSON: --examples):\n");
    }
    for example in action.examples.iter().take(1) {
        out.push_str(&format!(
            "  # {}\n  {}\n",
            example.description,
            example_command(action, example.input)
        ));
    }
    out
}

/// A description's first sentence: up to the first `. ` or `; ` outside
/// parentheses that does not end an abbreviation (`e.g. `).
fn first_sentence(description: &str) -> String {
    let cut = description
        .match_indices(". ")
        .chain(description.match_indices("; "))
        .map(|(at, _)| at)
        .filter(|&at| {
            let before = &description[..at];
            !before.ends_with("e.g")
                && !before.ends_with("i.e")
                && before.matches('(').count() == before.matches(')').count()
        })
        .min();
    match cut {
        Some(at) => format!("{}.", &description[..at]),
        None => description.to_string(),
    }
}
