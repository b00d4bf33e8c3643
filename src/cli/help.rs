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

/// The one line that sends an action's reader to the options and exit
/// statuses every route shares, which `agentteam --help` lists once.
pub const SHARED: &str = "Global options (--profile, --timeout, --retries, --format, --verbose) and exit statuses: see `agentteam --help`.";

/// The most an action's `--help` may print, all of it: what a model reads
/// to learn one action must leave room for the work.
pub const HELP_BUDGET: usize = 3 * 1024;

/// What clap adds after the text below: the usage line and the one-line
/// option list (tested with the whole page against [`HELP_BUDGET`]).
const CLAP_PART: usize = 400;

/// The long help of `agentteam exec <domain> <action>`, within
/// [`HELP_BUDGET`]. Every field is always listed; when the page would be
/// too long, the fields keep only the first sentence of their description
/// (the rules are in `--input-schema`), and then only the first example is
/// shown (all of them with `--examples`).
pub fn action_long_help(action: &Action) -> String {
    let full = render_help(action, false, action.examples.len());
    if full.len() + CLAP_PART <= HELP_BUDGET {
        return full;
    }
    let short = render_help(action, true, action.examples.len());
    if short.len() + CLAP_PART <= HELP_BUDGET {
        return short;
    }
    render_help(action, true, 1)
}

/// A description's first sentence: up to the first `. ` or `; ` that does
/// not end an abbreviation (`e.g. `).
fn first_sentence(description: &str) -> String {
    let cut = description
        .match_indices(". ")
        .chain(description.match_indices("; "))
        .map(|(at, _)| at)
        .filter(|&at| !description[..at].ends_with("e.g") && !description[..at].ends_with("i.e"))
        .min();
    match cut {
        Some(at) => format!("{}.", &description[..at]),
        None => description.to_string(),
    }
}

fn render_help(action: &Action, first_sentences: bool, examples: usize) -> String {
    let mut out = wrap(action.summary, "");
    out.push('\n');
    out.push_str(&wrap(action.description, ""));
    out.push('\n');
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
    out.push_str(if first_sentences {
        "Input fields (one JSON object; each field's rules and default: --input-schema):\n"
    } else {
        "Input fields (one JSON object; see --input-schema):\n"
    });
    for (path, ty, required, description) in input_fields(action) {
        let req = if required { ", required" } else { "" };
        let description = if first_sentences {
            first_sentence(&description)
        } else {
            description
        };
        out.push_str("  ");
        out.push_str(&hanging(
            &format!("{path} ({ty}{req}): {description}"),
            "      ",
        ));
    }
    out.push_str("\nOutput: {\"data\": …, \"meta\": {…}}; see --output-schema. Errors: `agentteam exec --error-schema`.\n\n");
    let shown = examples.min(action.examples.len());
    if shown < action.examples.len() {
        out.push_str(&format!(
            "Example ({} more: --examples):\n",
            action.examples.len() - shown
        ));
    } else {
        out.push_str("Examples (all of them as JSON: --examples):\n");
    }
    for example in &action.examples[..shown] {
        out.push_str(&format!(
            "  # {}\n  {}\n",
            example.description,
            example_command(action, example.input)
        ));
    }
    out
}
