//! Field shapes shared by the task actions: one definition each, so a title
//! is bounded the same way in create, update and the runtime's store.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::registry::FieldErrors;
use crate::registry::common;
use crate::registry::schema::*;

pub const STATUSES: &[&str] = &["todo", "in_progress", "in_review", "done", "canceled"];
pub const ACTIVE_STATUSES: &[&str] = &["todo", "in_progress", "in_review"];
pub const PRIORITIES: &[&str] = &["none", "low", "medium", "high", "urgent"];

// As in `registry::common`, lengths are bounded by `maxLength`, not in
// the patterns.
pub const TARGET_PATTERN: &str = "^#[a-z0-9][a-z0-9_-]*:[A-Za-z0-9_.-]+$";
pub const MAX_NUMBER: i64 = 2_147_483_647;

pub const MAX_TITLE: u64 = 200;
pub const MAX_DESCRIPTION: u64 = 10_000;
pub const MAX_BLOCKER: u64 = 1_000;
pub const MAX_SUMMARY: u64 = 4_000;
pub const MAX_BATCH: u64 = 50;
/// An `idempotency_key`'s bound once trimmed (§13.2), in UTF-8 bytes; the
/// schema states it as its `maxLength` (characters, each at least a byte).
pub const MAX_IDEMPOTENCY_KEY_BYTES: usize = 128;
pub const MAX_LABELS: u64 = 20;
pub const MAX_LABEL: u64 = 50;
pub const MAX_CHECKLIST: u64 = 50;
pub const MAX_CHECKLIST_TEXT: u64 = 500;
pub const MAX_URLS: u64 = 20;
pub const MAX_ATTACHMENTS: u64 = 20;
pub const MAX_FILE_NAME: u64 = 200;

/// Fields a created task may carry besides `title`; only in a one-item batch.
pub const RICH_FIELDS: &[&str] = &[
    "description",
    "status",
    "priority",
    "assignee",
    "labels",
    "checklist",
    "urls",
    "attachments",
    "blocker",
];

pub fn number(description: &str) -> Value {
    integer(description, 1, MAX_NUMBER)
}

pub fn title(default: &str) -> Value {
    let mut s = string(
        &format!("Task title: 1–{MAX_TITLE} characters, not blank. {default}"),
        1,
        MAX_TITLE,
    );
    s["pattern"] = json!("\\S");
    s
}

pub fn description(default: &str) -> Value {
    string(
        &format!("Task description, plain text or Markdown. {default}"),
        0,
        MAX_DESCRIPTION,
    )
}

pub fn status(description: &str) -> Value {
    enumeration(description, STATUSES)
}

pub fn priority(description: &str) -> Value {
    enumeration(description, PRIORITIES)
}

pub fn labels(description: &str) -> Value {
    unique(array(description, label(), 0, MAX_LABELS))
}

/// One label, written or filtered on, with [`check_labels`]'s rule said.
pub fn label() -> Value {
    string(
        &format!("A label, 1–{MAX_LABEL} characters, no spaces around it."),
        1,
        MAX_LABEL,
    )
}

pub fn checklist(default: &str) -> Value {
    array(
        &format!("Checklist items in order, at most {MAX_CHECKLIST}. {default}"),
        object(
            "One checklist item.",
            vec![
                (
                    "text",
                    string(
                        &format!("What to check, 1–{MAX_CHECKLIST_TEXT} characters."),
                        1,
                        MAX_CHECKLIST_TEXT,
                    ),
                ),
                ("done", boolean("Whether the item is done. Default false.")),
            ],
            &["text"],
        ),
        0,
        MAX_CHECKLIST,
    )
}

pub fn urls(default: &str) -> Value {
    array(
        &format!("Related http(s) URLs, at most {MAX_URLS}. {default}"),
        pattern("An http or https URL.", common::URL_PATTERN, 2_000),
        0,
        MAX_URLS,
    )
}

pub fn attachments(default: &str) -> Value {
    array(
        &format!("Attachment metadata (no file bytes), at most {MAX_ATTACHMENTS}. {default}"),
        object(
            "One attachment's metadata.",
            vec![
                (
                    "name",
                    string(
                        &format!("File name, 1–{MAX_FILE_NAME} characters."),
                        1,
                        MAX_FILE_NAME,
                    ),
                ),
                (
                    "url",
                    pattern(
                        "Where the file lives: an http(s) URL.",
                        common::URL_PATTERN,
                        2_000,
                    ),
                ),
                (
                    "media_type",
                    string(
                        "IANA media type, e.g. `image/png`. Default: unknown.",
                        1,
                        100,
                    ),
                ),
                (
                    "size_bytes",
                    integer("Size in bytes. Default: unknown.", 0, 1_099_511_627_776),
                ),
            ],
            &["name", "url"],
        ),
        0,
        MAX_ATTACHMENTS,
    )
}

pub fn blocker(default: &str) -> Value {
    string(
        &format!("What blocks progress, 1–{MAX_BLOCKER} characters. {default}"),
        1,
        MAX_BLOCKER,
    )
}

fn out(ty: &str, description: &str) -> Value {
    json!({"type": ty, "description": description})
}

fn out_nullable(ty: &str, description: &str) -> Value {
    json!({"type": [ty, "null"], "description": description})
}

fn out_enum(values: &[&str], description: &str) -> Value {
    json!({"type": "string", "enum": values, "description": description})
}

/// Properties of a compact task.
fn compact_task_properties() -> Vec<(&'static str, Value)> {
    vec![
        (
            "number",
            out("integer", "Board-local task number, never reused."),
        ),
        ("channel", out("string", "The board (channel) name.")),
        (
            "scope_id",
            out(
                "string",
                "Canonical task scope id; usable as parent_task_scope.scope_id.",
            ),
        ),
        ("title", out("string", "Task title.")),
        ("status", out_enum(STATUSES, "Lifecycle status.")),
        ("priority", out_enum(PRIORITIES, "Priority.")),
        (
            "assignee",
            out_nullable("string", "Member ref of the assignee (`@handle`), or null."),
        ),
        (
            "parent_number",
            out_nullable(
                "integer",
                "Number of the parent task on the same board, or null for a top-level task.",
            ),
        ),
        (
            "labels",
            json!({"type": "array", "items": {"type": "string"}, "description": "Labels."}),
        ),
        (
            "created_by",
            out("string", "Member ref of the creating agent."),
        ),
        ("created_at", out("string", "RFC3339 UTC creation time.")),
        (
            "updated_at",
            out(
                "string",
                "RFC3339 UTC time of the last profile change; pass it as expected_updated_at.",
            ),
        ),
    ]
}

/// The fields product.md promises of every compact task; `labels` is
/// always sent by agentteam-runtime but is not among them, so a server
/// that leaves it out still answers a valid document.
const COMPACT_REQUIRED: &[&str] = &[
    "number",
    "channel",
    "scope_id",
    "title",
    "status",
    "priority",
    "assignee",
    "parent_number",
    "created_by",
    "created_at",
    "updated_at",
];

pub fn compact_task() -> Value {
    let props = compact_task_properties();
    object("A compact task.", props, COMPACT_REQUIRED)
}

/// `task_update`'s answer field naming the call that lists the open
/// subtasks of a task it set done or canceled.
pub const OPEN_SUBTASKS_MATCH: &str = "open_subtasks_match";

/// `task_update`'s answer: the compact task, and the call that lists its
/// open subtasks when the update closed it over them.
pub fn updated_task() -> Value {
    let mut props = compact_task_properties();
    props.push((
        OPEN_SUBTASKS_MATCH,
        call("When the task was closed over open subtasks: the call that lists them."),
    ));
    object("A compact task.", props, COMPACT_REQUIRED)
}

/// `task_list`'s answer field naming the call that finds the subtasks an
/// empty search left out.
pub const SUBTASKS_MATCH: &str = "subtasks_match";

/// `task_list`'s answer field naming the call that finds the done and
/// canceled tasks an empty search left out.
pub const CLOSED_MATCH: &str = "closed_match";

/// `task_list`'s answer field naming the call that finds the tasks an
/// empty page's mistyped label filter missed.
pub const LABELS_MATCH: &str = "labels_match";

/// `task_list`'s answer field naming the call that gives an empty
/// search's query as the filter it names (a member, a status, a label).
pub const FILTER_MATCH: &str = "filter_match";

/// `task_list`'s answer field naming the call that spells an empty
/// search's mistyped words as the board's titles do.
pub const SPELLING_MATCH: &str = "spelling_match";

/// `task_list`'s answer field naming the call that finds an empty
/// search's tasks on another board.
pub const CHANNEL_MATCH: &str = "channel_match";

/// `task_list`'s answer field naming the call that finds tasks with one
/// word fewer than an empty search's.
pub const WORDS_MATCH: &str = "words_match";

/// A call an answer names for the caller to make next: a tool and its
/// input, as given.
pub fn call(description: &str) -> Value {
    object(
        description,
        vec![
            ("tool", out("string", "The tool.")),
            (
                "arguments",
                json!({"type": "object", "description": "Its input."}),
            ),
        ],
        &["tool", "arguments"],
    )
}

fn section(description: &str, item: Value) -> Value {
    object(
        description,
        vec![
            (
                "items",
                json!({"type": "array", "items": item, "description": "The first items of the section."}),
            ),
            (
                "total",
                out("integer", "How many items the section has in all."),
            ),
            (
                "truncated",
                out("boolean", "True when `items` holds fewer than `total`."),
            ),
            (
                "next",
                nullable(call(
                    "If truncated: the call that reads the rest, as given; else null.",
                )),
            ),
        ],
        // A section's items and total are what product.md promises;
        // `truncated` and `next` are agentteam-runtime's.
        &["items", "total"],
    )
}

pub fn checkpoint() -> Value {
    object(
        "One append-only checkpoint.",
        vec![
            ("id", out("integer", "Checkpoint id, increasing per task.")),
            ("summary", out("string", "The checkpoint text.")),
            ("created_by", out("string", "Member ref of the author.")),
            (
                "created_at",
                out("string", "RFC3339 UTC time it was appended."),
            ),
        ],
        &["id", "summary", "created_by", "created_at"],
    )
}

/// The detail `task_get` returns: compact fields, the full profile, bounded sections.
pub fn task_detail() -> Value {
    let mut props = compact_task_properties();
    props.extend([
        ("description", out_nullable("string", "Description, or null.")),
        ("checklist", json!({"type": "array", "description": "Checklist items.", "items": object("One checklist item.", vec![
            ("text", out("string", "What to check.")),
            ("done", out("boolean", "Whether it is done.")),
        ], &["text", "done"])})),
        ("urls", json!({"type": "array", "items": {"type": "string"}, "description": "Related URLs."})),
        ("attachments", json!({"type": "array", "description": "Attachment metadata only.", "items": object("Attachment metadata.", vec![
            ("name", out("string", "File name.")),
            ("url", out("string", "Where the file lives.")),
            ("media_type", out_nullable("string", "Media type, or null when unknown.")),
            ("size_bytes", out_nullable("integer", "Size in bytes, or null when unknown.")),
        ], &["name", "url", "media_type", "size_bytes"])})),
        ("blocker", out_nullable("string", "What blocks progress, or null.")),
        ("source_target", out_nullable("string", "The thread the task was created from (`#channel:thread_id`), or null.")),
        ("subtasks", section("Direct subtasks, first 20 by number; `next` lists the rest.", compact_task())),
        ("checkpoints", section("The 5 newest checkpoints (older than checkpoints_before, if given; `total` counts those), newest first; `next` reads older ones.", checkpoint())),
    ]);
    // What product.md promises of a detail: a compact task's fields and
    // the two bounded sections; the full profile is agentteam-runtime's.
    let required: Vec<&str> = props
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| COMPACT_REQUIRED.contains(n) || ["subtasks", "checkpoints"].contains(n))
        .collect();
    object(
        "One task in detail, with bounded sections.",
        props,
        &required,
    )
}

/// Member-ref and numbering helpers the branch rules share.
pub fn is_blank(value: Option<&Value>) -> bool {
    value
        .and_then(Value::as_str)
        .is_none_or(|s| s.trim().is_empty())
}

/// An optional `idempotency_key`: `scope` says where a key is valid (or
/// nothing), `replays` what a reuse with the same input returns.
pub fn idempotency_key(scope: &str, replays: &str) -> Value {
    string(
        &format!(
            "Replay key{scope}: reused with the same input it returns {replays}; with other input, idempotency_conflict. Trimmed, non-blank, at most {MAX_IDEMPOTENCY_KEY_BYTES} UTF-8 bytes. Default: none."
        ),
        1,
        // The bound of the trimmed key, which `check_key` holds in bytes;
        // whitespace around it does not count (`check_key` lifts the
        // schema's refusal of a key within it once trimmed).
        MAX_IDEMPOTENCY_KEY_BYTES as u64,
    )
}

/// The canonical key: trimmed, so keys that differ only in surrounding
/// whitespace replay alike.
pub fn trim_idempotency_key(input: &mut Value) {
    if let Some(key) = input.get_mut("idempotency_key")
        && let Some(s) = key.as_str()
    {
        *key = Value::String(s.trim().to_string());
    }
}

/// A label with spaces around it (`" infra"`, as a copy from a list leaves
/// it) would be a label of its own that a filter on `infra` misses, and a
/// blank one names nothing: refused where a label is written and where one
/// is filtered on. A rule here, not a schema pattern: a fuzzer reads a
/// pattern's `$` as Python does, and the runtime's regex does not. `path`
/// is where the list is (`labels`, `tasks/0/labels`, `filters/labels`).
pub fn check_labels(labels: Option<&Value>, path: &str, errors: &mut FieldErrors) {
    for (i, label) in strings(labels) {
        let said = match label.trim() {
            "" => "Must not be blank: a label is a word or a few.",
            trimmed if trimmed != label => {
                "Drop the spaces around it: the label is written without them."
            }
            _ => continue,
        };
        errors
            .entry(format!("{path}/{i}"))
            .or_insert_with(|| said.into());
    }
}

/// A title is one line: one with a line break in it is most often a
/// description pasted after its first line (as an issue form's text is
/// copied whole), which every list would then show. `rest` says where what
/// follows the first line goes from the input at hand. A rule here, not a
/// schema pattern (see [`check_labels`]).
pub fn check_title(title: Option<&Value>, path: &str, rest: &str, errors: &mut FieldErrors) {
    let title = title.and_then(Value::as_str).unwrap_or_default();
    let breaks = ['\n', '\r', '\u{2028}', '\u{2029}'];
    if !title.contains(breaks) {
        return;
    }
    // A path's backslash read as an escape (`C:\new` is `C:`, a break,
    // `ew`): the break right after a drive's colon or a path's separator.
    let escaped = title
        .char_indices()
        .filter(|(_, c)| breaks.contains(c))
        .any(|(i, _)| title[..i].ends_with([':', '\\', '/']));
    let said = match escaped {
        true => format!(
            "A title is one line: `\\n` in JSON is a line break, so a backslash (a path's) is written `\\\\`; else {rest}"
        ),
        false => format!("A title is one line, without line breaks: {rest}"),
    };
    errors.entry(path.to_string()).or_insert(said);
}

/// [`check_labels`], and for labels a task is given: two that differ only
/// in ASCII case (`docs`, `Docs`) are one label to every filter, which
/// matches either case, so the second is refused. (In a filter they are
/// the same filter twice, which does no harm.)
pub fn check_written_labels(labels: Option<&Value>, path: &str, errors: &mut FieldErrors) {
    check_labels(labels, path, errors);
    // Under each ASCII folding met so far, its first label, and the first
    // of another spelling after it: a label's twin, the first earlier one
    // spelled otherwise, is one of the two. One pass, however long the list
    // (a pass over the earlier labels for each was seconds for 80,000).
    type Met<'a> = ((usize, &'a str), Option<(usize, &'a str)>);
    let mut foldings: HashMap<String, Met> = HashMap::new();
    for (i, label) in strings(labels) {
        let (first, other) = foldings
            .entry(label.to_ascii_lowercase())
            .or_insert(((i, label), None));
        let twin = if first.1 != label {
            Some(*first)
        } else {
            *other
        };
        if first.1 != label && other.is_none() {
            *other = Some((i, label));
        }
        let mut chars = label.chars();
        // `+urgent`, `-backend`, as some trackers add and remove one: here
        // the list is the task's whole list, so a sign would be part of a
        // label of its own, and the labels kept would be dropped.
        let signed = matches!(chars.next(), Some('+' | '-'))
            && chars.next().is_some_and(char::is_alphanumeric);
        // The very same label twice is the schema's (`uniqueItems`).
        let said = match (signed, twin) {
            (true, _) => "No `+` or `-` before a label: the list is the task's whole list, not changes to it; give every label it is to have, without signs (task_get shows those it has).".to_string(),
            (false, Some((first, _))) => format!(
                "The same label as `{path}/{first}` but for case: labels match in either case; give it once."
            ),
            (false, None) => continue,
        };
        errors.entry(format!("{path}/{i}")).or_insert(said);
    }
}

/// The strings of a list, each with its index.
fn strings(list: Option<&Value>) -> impl Iterator<Item = (usize, &str)> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, item)| Some((i, item.as_str()?)))
}

/// A create's key: the rules the schema cannot state (see `check_key`).
pub fn check_idempotency_key(input: &Value, errors: &mut FieldErrors) {
    // A create's key is only for a create inside a workflow callback: one
    // written blank is more likely a field filled in because the schema has
    // it than a key meant.
    check_key(
        input,
        errors,
        "Must not be blank; a key is for a create inside an active workflow callback: outside one, leave the field out.",
    );
}

/// A checkpoint's key, accepted at any time (docs/contract.md §7.2): the
/// same rules, and a blank one told what a key is for here.
pub fn check_checkpoint_key(input: &Value, errors: &mut FieldErrors) {
    check_key(
        input,
        errors,
        "Must not be blank; a key makes a checkpoint sent again append once: give one you would send again, or leave the field out.",
    );
}

/// The rules the schema cannot state: not blank (told `blank`), and at most
/// [`MAX_IDEMPOTENCY_KEY_BYTES`] once trimmed, so whitespace around a key
/// does not count toward the schema's `maxLength` either.
fn check_key(input: &Value, errors: &mut FieldErrors, blank: &str) {
    if let Some(key) = input.get("idempotency_key").and_then(Value::as_str) {
        let trimmed = key.trim();
        if trimmed.is_empty() {
            errors.insert("idempotency_key".into(), blank.into());
        } else if trimmed.len() > MAX_IDEMPOTENCY_KEY_BYTES {
            errors.insert(
                "idempotency_key".into(),
                format!("At most {MAX_IDEMPOTENCY_KEY_BYTES} UTF-8 bytes."),
            );
        } else {
            // Within the bound once trimmed: a schema refusal here can only
            // be its `maxLength`, which counts the padding too.
            errors.remove("idempotency_key");
        }
    }
}
