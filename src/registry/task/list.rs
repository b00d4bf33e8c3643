//! `task_list`: browse or search one board (§13.2).

use serde_json::{Value, json};

use super::{AGENT_CONTEXT, fields};
use crate::error::code;
use crate::registry::schema::*;
use crate::registry::*;

pub const DEFAULT_LIMIT: i64 = 20;
pub const MAX_LIMIT: i64 = 100;
pub const VIEWS: &[&str] = &[
    "active",
    "todo",
    "in_progress",
    "in_review",
    "done",
    "canceled",
    "all",
];
pub const SORTS: &[&str] = &["updated_desc", "created_desc", "number_asc", "relevance"];

pub static ACTION: Action = Action {
    domain: "task",
    verb: "list",
    operation: Operation::Task(super::Operation::List),
    summary: "Browse or search the tasks of one board.",
    description: "Browse a board's tasks (no query) or search them by text (non-empty query) to find, \
        triage or deduplicate work before creating it. Use task_get for one task's full detail. Read-only.",
    permission: Permission::ReadOnly,
    idempotency: Idempotency::Safe,
    concurrency: Concurrency::Snapshot,
    hidden_context: AGENT_CONTEXT,
    budget: BudgetClass::Page,
    method: Method::Get,
    route: "/tasks",
    exposure: Exposure::Exec,
    deprecation: Deprecation::Active,
    paginated: true,
    success: Success::Ok,
    refusals: &[
        code::CHANNEL_NOT_FOUND,
        code::PARENT_NOT_FOUND,
        code::ASSIGNEE_NOT_FOUND,
        code::CURSOR_INVALID,
    ],
    input_schema,
    data_schema,
    check,
    canonicalize: keep,
    examples: &[
        Example {
            description: "Browse the active tasks of the demo board",
            input: r#"{"channel": "demo"}"#,
        },
        Example {
            description: "Search every status for tasks about login before creating a duplicate",
            input: r#"{"channel": "demo", "query": "login timeout", "status": "all"}"#,
        },
        Example {
            description: "My open tasks, subtasks included",
            input: r#"{"channel": "demo", "include_subtasks": true, "filters": {"assigned_to_me": true}}"#,
        },
    ],
    text: super::text::page,
    fit: None,
};

fn input_schema() -> Value {
    input_root(
        "task_list",
        ACTION.summary,
        vec![
            ("channel", common::channel()),
            (
                "query",
                string(
                    "Text matched against titles and descriptions: each word but `the`… must start a word or be a form of one (`releases` finds `release`). Empty or absent (default) browses.",
                    0,
                    200,
                ),
            ),
            (
                "status",
                enumeration(
                    "Which tasks: `active` (todo, in_progress, in_review; the default), one status, or `all` (only with a non-empty query or filters.parent). Other values are rejected.",
                    VIEWS,
                ),
            ),
            (
                "include_subtasks",
                boolean(
                    "Also list subtasks. Default false (top-level only); true with filters.assigned_to_me or filters.parent.",
                ),
            ),
            (
                "limit",
                integer(
                    &format!("Page size, 1–{MAX_LIMIT}. Default {DEFAULT_LIMIT}."),
                    1,
                    MAX_LIMIT,
                ),
            ),
            (
                "cursor",
                string(
                    "Opaque cursor from a previous page's meta.next_cursor, valid only with the same other inputs (`limit` may change). Default: the first page.",
                    1,
                    512,
                ),
            ),
            (
                "sort",
                enumeration(
                    "Order: `updated_desc` (default when browsing), `relevance` (default when searching, only with a query), `created_desc`, `number_asc`. Other values are rejected.",
                    SORTS,
                ),
            ),
            (
                "filters",
                object(
                    "Narrow the collection. Default: no filter.",
                    vec![
                        (
                            "assignee",
                            common::member_ref(
                                "Only tasks assigned to this member, e.g. `@alice`. Exclusive with assigned_to_me. Default: any assignee.",
                            ),
                        ),
                        (
                            "assigned_to_me",
                            boolean(
                                "Only tasks assigned to the calling agent (the `mine` view). Default false.",
                            ),
                        ),
                        (
                            "parent",
                            fields::number(
                                "Only direct subtasks of this task number. Default: any parent.",
                            ),
                        ),
                        (
                            "labels",
                            unique(array(
                                "Only tasks carrying all of these labels. Default: any.",
                                fields::label(),
                                1,
                                10,
                            )),
                        ),
                    ],
                    &[],
                ),
            ),
        ],
        &["channel"],
    )
}

fn data_schema() -> Value {
    object(
        "One page of tasks.",
        vec![
            (
                "items",
                json!({"type": "array", "items": fields::compact_task(), "description": "Tasks on this page, in the requested order."}),
            ),
            (
                fields::SUBTASKS_MATCH,
                fields::call(
                    "Only if an empty first page skipped matching subtasks: the same call with include_subtasks true.",
                ),
            ),
            (
                fields::CLOSED_MATCH,
                fields::call(
                    "Only if a search's empty first page with no status skipped a matching done or canceled task: the same call with status all.",
                ),
            ),
            (
                fields::LABELS_MATCH,
                fields::call(
                    "Only if an empty first page's filters.labels mistyped a label of the board: the same call with it.",
                ),
            ),
            (
                fields::FILTER_MATCH,
                fields::call(
                    "Only if a search's empty first page's query is a member ref, a status or a label of the board: the same call with it as that filter.",
                ),
            ),
            (
                fields::SPELLING_MATCH,
                fields::call(
                    "Only if a search's empty first page mistyped a word of the board's titles: the same call with it spelled as they do.",
                ),
            ),
            (
                fields::CHANNEL_MATCH,
                fields::call(
                    "Only if a search's empty first page matches on another board: the same call there.",
                ),
            ),
            (
                fields::WORDS_MATCH,
                fields::call(
                    "Only if a search's empty first page matched all its words but one: the same call without it.",
                ),
            ),
        ],
        &["items"],
    )
}

/// Whether the input searches (non-blank query) rather than browses.
pub fn is_search(input: &Value) -> bool {
    !fields::is_blank(input.get("query"))
}

/// Another tracker's search syntax in `query` (`label:bug`, `is:open`,
/// `a OR b`), which a search here would take for words and answer with an
/// empty page: what to give instead.
fn foreign_syntax(query: &str) -> Option<String> {
    for word in query.split_whitespace() {
        // A word for the caller (`@me`): a search would take it for the
        // word `me`, a prefix of `merge` and `metrics`, and answer others'
        // tasks as if they were the caller's.
        if word
            .strip_prefix('@')
            .is_some_and(crate::registry::synonyms::is_self_handle)
        {
            return Some(format!(
                "`{word}` names you, and a query matches words of titles and descriptions: for your own tasks, set `filters.assigned_to_me` to true, with the other words, if any, as the query."
            ));
        }
        if word == "OR" {
            return Some("Every word must match; `OR` is no operator here: one search per alternative (one line each with `--batch`).".into());
        }
        // A search engine's exclusion (`-login`): here it is the word
        // itself, so the search would ask for what was to be left out. A
        // flag (`--force`) or a short option (`-rf`) is not read so.
        if let Some(excluded) = word.strip_prefix('-')
            && excluded.chars().count() >= 3
            && excluded.chars().all(char::is_alphabetic)
        {
            return Some(format!(
                "`{word}` excludes nothing: there are no operators, and every word must match, so it asks for `{excluded}`; leave it out, or write `{excluded}` to search for it."
            ));
        }
        let Some((key, value)) = word.split_once(':').filter(|(_, value)| !value.is_empty()) else {
            continue;
        };
        // A field's prefix on a word of it (`title:login`): the word alone
        // is searched in titles and descriptions both.
        if matches!(
            key.to_ascii_lowercase().as_str(),
            "title" | "description" | "desc" | "text" | "summary"
        ) && value.chars().all(char::is_alphanumeric)
        {
            return Some(format!(
                "`{key}:` is another tracker's search syntax; a query matches words of titles and descriptions both: write the words alone (`{value}`)."
            ));
        }
        let instead = match key.to_ascii_lowercase().as_str() {
            // GitHub's `in:title`: where to look, which a query does anyway.
            "in" => {
                return Some(format!(
                    "`{key}:` is another tracker's search syntax; a query matches words of titles and descriptions both: leave that word out."
                ));
            }
            "priority" => {
                return Some(format!(
                    "`{key}:` is another tracker's search syntax, and there is no filter by priority: leave it out (each item shows its `priority`)."
                ));
            }
            "number" | "id" | "task" if value.bytes().all(|b| b.is_ascii_digit()) => {
                return Some(format!(
                    "`{key}:` is another tracker's search syntax: one task by its number is task_get (`{{\"channel\": …, \"number\": {value}}}`)."
                ));
            }
            "label" | "labels" | "tag" | "tags" => "`filters.labels`",
            "assignee" | "assigned" | "owner" => {
                "`filters.assignee` (yourself: `filters.assigned_to_me`)"
            }
            "is" | "status" | "state" => "`status`",
            "parent" => "`filters.parent`",
            _ => continue,
        };
        return Some(format!(
            "`{key}:` is another tracker's search syntax; a query matches words of titles and descriptions: give this as {instead}."
        ));
    }
    None
}

fn check(input: &Value, errors: &mut FieldErrors) {
    let searching = is_search(input);
    // A search matches whole words, cut at every character that is no
    // letter or digit (both engines, `runtime::store::search::words`): a
    // query of signs alone (`*`, `%`) would match nothing, answered as an
    // empty page an agent takes for "no such task".
    let query = input.get("query").and_then(Value::as_str);
    if searching && !query.is_some_and(|q| q.chars().any(char::is_alphanumeric)) {
        errors.insert(
            "query".into(),
            "Has no word to search for: a search matches whole words (`*` and other signs are no wildcards); give a word, or leave the query out to browse.".into(),
        );
    }
    if let Some(said) = query.filter(|_| searching).and_then(foreign_syntax) {
        errors.entry("query".into()).or_insert(said);
    }
    let filters = input.get("filters");
    fields::check_labels(
        filters.and_then(|f| f.get("labels")),
        "filters/labels",
        errors,
    );
    let parent = filters.and_then(|f| f.get("parent")).is_some();
    if input.get("status").and_then(Value::as_str) == Some("all") && !searching && !parent {
        errors.insert(
            "status".into(),
            "`all` is accepted only with a non-empty query or filters.parent.".into(),
        );
    }
    if parent && input.get("include_subtasks").and_then(Value::as_bool) == Some(false) {
        errors.insert(
            "include_subtasks".into(),
            "filters.parent lists subtasks: leave include_subtasks out or true.".into(),
        );
    }
    if input.get("sort").and_then(Value::as_str) == Some("relevance") && !searching {
        errors.insert(
            "sort".into(),
            "`relevance` is accepted only with a non-empty query.".into(),
        );
    }
    let mine = filters
        .and_then(|f| f.get("assigned_to_me"))
        .and_then(Value::as_bool)
        == Some(true);
    if mine && filters.and_then(|f| f.get("assignee")).is_some() {
        errors.insert(
            "filters/assigned_to_me".into(),
            "assigned_to_me and assignee are exclusive; give one.".into(),
        );
    }
}
