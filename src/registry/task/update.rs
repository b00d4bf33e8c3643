//! `task_update`: change a task's stable profile fields and status (§13.2).

use serde_json::Value;

use super::{AGENT_CONTEXT, fields};
use crate::registry::schema::*;
use crate::registry::*;

/// The fields an update may change; at least one must be present.
pub const MUTATION_FIELDS: &[&str] = &[
    "title",
    "description",
    "status",
    "priority",
    "assignee",
    "labels",
    "checklist",
    "urls",
    "attachments",
    "blocker",
    "parent",
];

pub static ACTION: Action = Action {
    domain: "task",
    verb: "update",
    summary: "Change a task's fields or status.",
    description: "Change a task's title, description, status, priority, assignee, labels, checklist, URLs, \
        attachments, blocker or parent; omitted fields stay unchanged, null clears a nullable one. Use \
        task_set_claim to take or release a task yourself and task_checkpoint to record progress. \
        Guard against stale overwrites with expected_updated_at.",
    permission: Permission::AgentMutation,
    idempotency: Idempotency::None,
    concurrency: Concurrency::ExpectedUpdatedAt,
    hidden_context: AGENT_CONTEXT,
    budget: BudgetClass::Small,
    method: Method::Post,
    route: "/tasks/update",
    exposure: Exposure::Exec,
    deprecation: Deprecation::Active,
    paginated: false,
    input_schema,
    data_schema: fields::compact_task,
    check,
    canonicalize: keep,
    examples: &[
        Example {
            description: "Move task 12 to review",
            input: r#"{"channel": "eng", "number": 12, "status": "in_review"}"#,
        },
        Example {
            description: "Raise priority and clear the assignee, only if nobody changed the task meanwhile",
            input: r#"{"channel": "eng", "number": 12, "priority": "urgent", "assignee": null, "expected_updated_at": "2026-11-30T09:15:00.123456Z"}"#,
        },
    ],
    text: super::text::detail,
};

fn input_schema() -> Value {
    const KEEP: &str = "Omitted: unchanged.";
    input_root(
        "task_update",
        ACTION.summary,
        vec![
            ("channel", fields::channel()),
            ("number", fields::number("The task's board-local number.")),
            ("title", fields::title("Omitted: unchanged.")),
            (
                "description",
                nullable(fields::description("Omitted: unchanged; null clears.")),
            ),
            (
                "status",
                fields::status("Lifecycle status. Omitted: unchanged."),
            ),
            (
                "priority",
                fields::priority("Priority. Omitted: unchanged."),
            ),
            (
                "assignee",
                nullable(fields::member_ref(
                    "Member ref to assign, e.g. `@alice`. Omitted: unchanged; null unassigns.",
                )),
            ),
            (
                "labels",
                fields::labels(&format!(
                    "Replaces all labels, at most {}. Omitted: unchanged.",
                    fields::MAX_LABELS
                )),
            ),
            (
                "checklist",
                fields::checklist("Replaces the checklist. Omitted: unchanged."),
            ),
            (
                "urls",
                fields::urls("Replaces the URLs. Omitted: unchanged."),
            ),
            (
                "attachments",
                fields::attachments("Replaces the attachment metadata. Omitted: unchanged."),
            ),
            (
                "blocker",
                nullable(fields::blocker("Omitted: unchanged; null clears.")),
            ),
            (
                "parent",
                nullable(fields::number(&format!(
                    "Move under this task number on the same board. {KEEP} null makes it top-level."
                ))),
            ),
            (
                "expected_updated_at",
                timestamp(
                    "Apply only if the task's updated_at is still this RFC3339 UTC time; otherwise fail with task_update_conflict. Default: no check.",
                ),
            ),
        ],
        &["channel", "number"],
    )
}

fn check(input: &Value, errors: &mut FieldErrors) {
    if !MUTATION_FIELDS.iter().any(|f| input.get(*f).is_some()) {
        errors.insert(
            "patch".into(),
            format!(
                "Give at least one field to change: {}.",
                MUTATION_FIELDS.join(", ")
            ),
        );
    }
    if let (Some(parent), Some(number)) = (
        input.get("parent").and_then(Value::as_i64),
        input.get("number").and_then(Value::as_i64),
    ) && parent == number
    {
        errors.insert("parent".into(), "A task cannot be its own parent.".into());
    }
}
