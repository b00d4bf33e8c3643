//! `task_update`: change a task's stable profile fields and status (§13.2).

use serde_json::Value;

use super::{AGENT_CONTEXT, fields};
use crate::error::code;
use crate::registry::schema::*;
use crate::registry::*;

/// A field `task_update` may change; at least one must be present. The
/// input schema, the "at least one" rule and the activity record are built
/// from [`Field::ALL`]; the store's typed changes (`UpdateInput`, `Change`
/// in `runtime/store/inputs.rs`) and each engine's update match on this
/// enum, exhaustively, so the compiler names each place a new field goes
/// (README, "Adding a task field").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Title,
    Description,
    Status,
    Priority,
    Assignee,
    Labels,
    Checklist,
    Urls,
    Attachments,
    Blocker,
    Parent,
}

impl Field {
    pub const ALL: [Field; 11] = [
        Field::Title,
        Field::Description,
        Field::Status,
        Field::Priority,
        Field::Assignee,
        Field::Labels,
        Field::Checklist,
        Field::Urls,
        Field::Attachments,
        Field::Blocker,
        Field::Parent,
    ];

    /// The input field's name.
    pub fn name(self) -> &'static str {
        match self {
            Field::Title => "title",
            Field::Description => "description",
            Field::Status => "status",
            Field::Priority => "priority",
            Field::Assignee => "assignee",
            Field::Labels => "labels",
            Field::Checklist => "checklist",
            Field::Urls => "urls",
            Field::Attachments => "attachments",
            Field::Blocker => "blocker",
            Field::Parent => "parent",
        }
    }

    fn schema(self) -> Value {
        const KEEP: &str = "Omitted: unchanged.";
        match self {
            Field::Title => fields::title(KEEP),
            Field::Description => nullable(fields::description("Omitted: unchanged; null clears.")),
            Field::Status => {
                fields::status("Lifecycle status. Omitted: unchanged. Other values are rejected.")
            }
            Field::Priority => {
                fields::priority("Priority. Omitted: unchanged. Other values are rejected.")
            }
            Field::Assignee => nullable(common::member_ref(
                "Member ref to assign, e.g. `@alice`. Omitted: unchanged; null unassigns.",
            )),
            Field::Labels => fields::labels(&format!(
                "Labels, at most {}; replaces them all. Omitted: unchanged.",
                fields::MAX_LABELS
            )),
            Field::Checklist => fields::checklist("Replaces them all. Omitted: unchanged."),
            Field::Urls => fields::urls("Replaces them all. Omitted: unchanged."),
            Field::Attachments => fields::attachments("Replaces them all. Omitted: unchanged."),
            Field::Blocker => nullable(fields::blocker("Omitted: unchanged; null clears.")),
            Field::Parent => nullable(fields::number(&format!(
                "Move under this task number on the same board. {KEEP} null makes it top-level."
            ))),
        }
    }
}

pub static ACTION: Action = Action {
    domain: "task",
    verb: "update",
    operation: Operation::Task(super::Operation::Update),
    summary: "Change a task's fields or status.",
    description: "Change any field below; omitted fields stay unchanged, a list replaces the \
        whole list, null clears a nullable one. Use task_set_claim to take or release a task yourself and task_checkpoint to \
        record progress. Guard against stale overwrites with expected_updated_at.",
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
    success: Success::Ok,
    refusals: &[
        code::CHANNEL_NOT_FOUND,
        code::TASK_NOT_FOUND,
        code::PARENT_NOT_FOUND,
        code::ASSIGNEE_NOT_FOUND,
        code::INVALID_PARENT,
        code::TASK_UPDATE_CONFLICT,
    ],
    input_schema,
    data_schema: fields::updated_task,
    check,
    canonicalize: keep,
    examples: &[
        Example {
            description: "Move task 12 to review",
            input: r#"{"channel": "demo", "number": 12, "status": "in_review"}"#,
        },
        Example {
            description: "Raise priority and clear the assignee, only if nobody changed the task meanwhile",
            input: r#"{"channel": "demo", "number": 12, "priority": "urgent", "assignee": null, "expected_updated_at": "2026-11-30T09:15:00.123456Z"}"#,
        },
    ],
    text: super::text::detail,
    fit: None,
};

fn input_schema() -> Value {
    let mut properties = vec![
        ("channel", common::channel()),
        ("number", fields::number("The task's board-local number.")),
    ];
    properties.extend(Field::ALL.map(|field| (field.name(), field.schema())));
    properties.push((
        "expected_updated_at",
        timestamp(
            "Apply only if the task's updated_at is still this time (copy it exactly; any RFC3339 offset); otherwise fail with task_update_conflict, which carries details.current_updated_at. Default: no check.",
        ),
    ));
    input_root(
        "task_update",
        ACTION.summary,
        properties,
        &["channel", "number"],
    )
}

/// Fields an update is sent with that another action does (a claim, a
/// delete, a checkpoint), or another shape of call (several updates, one
/// checklist item): their refusal names what to send instead, and "give a
/// field to change" beside it would only send the caller looking for one.
pub(crate) const ANOTHER_ACTIONS: [&str; 18] = [
    "claim",
    "claimed",
    "assigned_to_me",
    "assign_to_me",
    "self_assign",
    "assign_self",
    "delete",
    "deleted",
    "archive",
    "archived",
    "removed",
    "checkpoint",
    "summary",
    // Several updates in one input: `--batch`, one per line.
    "tasks",
    "updates",
    "changes",
    // One checklist item by itself: told the whole `checklist` to write.
    "checklist_item",
    "check_item",
];

fn check(input: &Value, errors: &mut FieldErrors) {
    let another_action = input.as_object().is_some_and(|object| {
        object.keys().any(|key| {
            ANOTHER_ACTIONS.contains(
                &crate::case::camel_to_snake(key)
                    .to_ascii_lowercase()
                    .as_str(),
            )
        })
    });
    if !another_action && !Field::ALL.iter().any(|f| input.get(f.name()).is_some()) {
        let names: Vec<&str> = Field::ALL.map(Field::name).to_vec();
        // Keyed on the input root (the `""` path): no one field is wrong.
        errors.insert(
            String::new(),
            format!("Give at least one field to change: {}.", names.join(", ")),
        );
    }
    if let (Some(parent), Some(number)) = (
        input.get("parent").and_then(Value::as_i64),
        input.get("number").and_then(Value::as_i64),
    ) && parent == number
    {
        errors.insert("parent".into(), "A task cannot be its own parent.".into());
    }
    fields::check_title(
        input.get("title"),
        "title",
        "put what follows its first line in `description` (give it whole: it replaces the description).",
        errors,
    );
    fields::check_written_labels(input.get("labels"), "labels", errors);
    // The pattern admits `2026-13-45T99:00:00Z`; no task was ever changed
    // then, so it is refused here, before anything is sent. A value the
    // pattern refused already (no offset, a date alone, a word) keeps the
    // pattern's message, which names the format.
    if let Some(at) = input.get("expected_updated_at").and_then(Value::as_str)
        && time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339).is_err()
    {
        errors.entry("expected_updated_at".into()).or_insert_with(|| {
            "Not a real time (a month, day, hour, minute, second or UTC offset out of range): copy the task's updated_at exactly.".into()
        });
    }
}
