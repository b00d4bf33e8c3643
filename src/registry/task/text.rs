//! How task results read as text (`--format text`): the task domain's views,
//! composed from the generic `text` vocabulary.

use anstyle::{AnsiColor, Effects};
use serde_json::Value;

use crate::text::{HEADING, Look, Style, record, scalar, table};

const COLUMNS: &[&str] = &["number", "status", "priority", "assignee", "title"];

fn paint(column: &str, value: &str) -> Look {
    match (column, value) {
        ("status", "done") => AnsiColor::Green.on_default(),
        ("status", "in_progress") => AnsiColor::Yellow.on_default(),
        ("status", "in_review") => AnsiColor::Cyan.on_default(),
        ("status", "canceled") => Look::new().effects(Effects::DIMMED),
        ("priority", "urgent" | "high") => AnsiColor::Red.on_default(),
        _ => Look::new(),
    }
}

fn tasks(rows: &Value, style: &Style) -> String {
    let rows = rows.as_array().map(Vec::as_slice).unwrap_or_default();
    if rows.is_empty() {
        return "No tasks.\n".into();
    }
    table(rows, COLUMNS, style, paint)
}

/// `task_list`: a table; under an empty page's, the call that finds what
/// it left out or missed (the subtasks, the done and canceled tasks, the
/// label meant, the query as a filter, the words as the titles spell
/// them, another board's, the query without a word).
pub fn page(data: &Value, style: &Style) -> String {
    let mut out = tasks(&data["items"], style);
    for (label, field) in PAGE_CALLS {
        if let Some(line) = call_line(label, &data[field]) {
            out.push_str(&line);
        }
    }
    out
}

/// Each call an empty `task_list` page may name, with the words the text
/// view says it under (every one its data schema declares; tested).
const PAGE_CALLS: [(&str, &str); 7] = {
    use super::fields::{
        CHANNEL_MATCH, CLOSED_MATCH, FILTER_MATCH, LABELS_MATCH, SPELLING_MATCH, SUBTASKS_MATCH,
        WORDS_MATCH,
    };
    [
        ("subtasks match", SUBTASKS_MATCH),
        ("done or canceled tasks match", CLOSED_MATCH),
        ("with the board's label", LABELS_MATCH),
        ("with the query as a filter", FILTER_MATCH),
        ("spelled as the board's titles", SPELLING_MATCH),
        ("on another board", CHANNEL_MATCH),
        ("with a word fewer", WORDS_MATCH),
    ]
};

/// `task_create`: a table of what was created (or replayed).
pub fn created(data: &Value, style: &Style) -> String {
    let mut out = tasks(&data["tasks"], style);
    if data["reused"] == Value::Bool(true) {
        out.push_str("(replayed: an earlier create with the same idempotency_key; nothing new was created)\n");
    }
    out
}

/// `task_get` and `task_update`: a labelled summary, then its sections.
pub fn detail(data: &Value, style: &Style) -> String {
    use super::fields::OPEN_SUBTASKS_MATCH;
    let mut out = record(
        data,
        &[
            "checklist",
            "attachments",
            "subtasks",
            "checkpoints",
            OPEN_SUBTASKS_MATCH,
        ],
        style,
    );
    if let Some(line) = call_line("subtasks still open", &data[OPEN_SUBTASKS_MATCH]) {
        out.push_str(&line);
    }
    for item in data["checklist"].as_array().into_iter().flatten() {
        let mark = if item["done"] == Value::Bool(true) {
            "[x]"
        } else {
            "[ ]"
        };
        out.push_str(&format!("  {mark} {}\n", scalar(&item["text"])));
    }
    for (name, section) in [
        ("subtasks", &data["subtasks"]),
        ("checkpoints", &data["checkpoints"]),
    ] {
        if let Some(total) = section["total"].as_u64() {
            let shown = section["items"].as_array().map_or(0, Vec::len);
            out.push_str(&format!(
                "\n{} ({shown} of {total})\n",
                style.paint(name, HEADING)
            ));
            if name == "subtasks" && shown > 0 {
                out.push_str(&tasks(&section["items"], style));
            }
            for c in section["items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|_| name == "checkpoints")
            {
                out.push_str(&format!(
                    "  {} {}: {}\n",
                    scalar(&c["created_at"]),
                    scalar(&c["created_by"]),
                    scalar(&c["summary"])
                ));
            }
            if let Some(line) = call_line("more", &section["next"]) {
                out.push_str(&line);
            }
        }
    }
    out
}

/// A call an answer names (a cut section's `next`, an empty search's
/// `subtasks_match`) as the command that makes it, after `label`.
fn call_line(label: &str, call: &Value) -> Option<String> {
    let tool = call["tool"].as_str()?;
    let action = crate::registry::find_by_name(tool)?;
    let arguments = call["arguments"].to_string();
    // Single quotes keep the JSON intact in a POSIX shell, unless it holds one.
    Some(if arguments.contains('\'') {
        format!("  {label}: {} with {arguments}\n", action.cli_command())
    } else {
        format!("  {label}: echo '{arguments}' | {}\n", action.cli_command())
    })
}

/// `task_set_claim`: one line, then one per failure.
pub fn claim(data: &Value, _style: &Style) -> String {
    let verb = if data["claimed"] == Value::Bool(true) {
        "claimed"
    } else {
        "released"
    };
    let failures = data["failures"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut out = format!(
        "{verb}: {} task(s) in that state, {} failure(s)\n",
        scalar(&data["updated_count"]),
        failures.len()
    );
    for f in failures {
        out.push_str(&format!(
            "  #{} {}: {}\n",
            scalar(&f["number"]),
            scalar(&f["code"]),
            scalar(&f["message"])
        ));
        if let Some(candidates) = f["candidates"].as_array() {
            let listed: Vec<String> = candidates
                .iter()
                .map(|c| format!("#{} {}", scalar(&c["number"]), scalar(&c["title"])))
                .collect();
            out.push_str(&format!("    candidates: {}\n", listed.join(", ")));
        }
    }
    out
}

/// `task_checkpoint`: one line, and a second for a replay.
pub fn checkpoint(data: &Value, _style: &Style) -> String {
    let mut out = format!(
        "checkpoint {} on #{} by {}: {}\n",
        scalar(&data["checkpoint"]["id"]),
        scalar(&data["task"]["number"]),
        scalar(&data["checkpoint"]["created_by"]),
        crate::text::truncate(&scalar(&data["checkpoint"]["summary"]), 100)
    );
    if data["reused"] == Value::Bool(true) {
        out.push_str("(replayed: an earlier checkpoint with the same idempotency_key; nothing new was appended)\n");
    }
    out
}

/// `task_delete`: one line.
pub fn deleted(data: &Value, _style: &Style) -> String {
    let numbers = |v: &Value| {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|n| format!("#{}", scalar(n)))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    let promoted = numbers(&data["promoted_numbers"]);
    let mut out = format!("deleted {}", numbers(&data["deleted_numbers"]));
    if !promoted.is_empty() {
        out.push_str(&format!("; promoted {promoted} to top level"));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every call `task_list`'s data schema declares is printed under an
    /// empty page, as a command.
    #[test]
    fn an_empty_page_prints_every_call_it_names() {
        let declared = crate::exec::call_fields(&(super::super::list::ACTION.data_schema)());
        let mut shown: Vec<&str> = PAGE_CALLS.iter().map(|(_, field)| *field).collect();
        shown.sort_unstable();
        let mut declared: Vec<&str> = declared.iter().map(String::as_str).collect();
        declared.sort_unstable();
        assert_eq!(shown, declared);
        for (label, field) in PAGE_CALLS {
            let call = serde_json::json!({"tool": "task_list", "arguments": {"channel": "eng"}});
            let data = serde_json::json!({"items": [], field: call});
            let text = page(
                &data,
                &Style {
                    width: usize::MAX,
                    color: false,
                },
            );
            assert!(
                text.contains(&format!(
                    "{label}: echo '{{\"channel\":\"eng\"}}' | agentteam exec task list -"
                )),
                "{field}: {text}"
            );
        }
    }

    /// An update that closed a task over open subtasks prints the list of
    /// them as a command, under the task, not as one of its fields.
    #[test]
    fn a_closed_task_prints_the_call_that_lists_its_open_subtasks() {
        use super::super::fields::OPEN_SUBTASKS_MATCH;
        let call = serde_json::json!({"tool": "task_list", "arguments": {"channel": "eng", "filters": {"parent": 1}}});
        let data = serde_json::json!({"number": 1, "channel": "eng", "title": "t", "status": "done", OPEN_SUBTASKS_MATCH: call});
        let style = Style {
            width: usize::MAX,
            color: false,
        };
        let text = detail(&data, &style);
        assert!(
            text.contains(r#"subtasks still open: echo '{"channel":"eng","filters":{"parent":1}}' | agentteam exec task list -"#),
            "{text}"
        );
        assert!(!text.contains(OPEN_SUBTASKS_MATCH), "{text}");
    }
}
