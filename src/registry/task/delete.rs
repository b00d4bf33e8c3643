//! `task_delete`: permanently delete a task the agent created (§13.2).

use serde_json::{Value, json};

use super::{AGENT_CONTEXT, fields};
use crate::error::code;
use crate::registry::schema::*;
use crate::registry::*;

pub static ACTION: Action = Action {
    domain: "task",
    verb: "delete",
    operation: Operation::Task(super::Operation::Delete),
    summary: "Permanently delete a task the agent created.",
    description: "Permanently delete one task created by the calling agent; it cannot be recovered and its number \
        is never reused. A task with subtasks needs `subtask_mode`: `promote` keeps the children as top-level \
        tasks, `delete` removes them too (only if every one was created by the same agent). To stop work \
        without deleting it, set status `canceled` with task_update. No human confirmation is asked: the \
        agent's own request deletes, so it needs a token of scope `destructive` (and a profile whose \
        `--max-permission` cap allows it); decide with your user before calling it.",
    permission: Permission::Destructive,
    idempotency: Idempotency::None,
    concurrency: Concurrency::Transactional,
    hidden_context: AGENT_CONTEXT,
    budget: BudgetClass::Small,
    method: Method::Post,
    route: "/tasks/delete",
    exposure: Exposure::Exec,
    deprecation: Deprecation::Active,
    paginated: false,
    success: Success::Ok,
    refusals: &[
        code::CHANNEL_NOT_FOUND,
        code::TASK_NOT_FOUND,
        code::NOT_TASK_CREATOR,
        code::SUBTASK_MODE_REQUIRED,
        code::SUBTASK_CREATOR_MISMATCH,
    ],
    input_schema,
    data_schema,
    check: no_branch_rules,
    canonicalize: keep,
    examples: &[
        Example {
            description: "Delete leaf task 14",
            input: r#"{"channel": "demo", "number": 14}"#,
        },
        Example {
            description: "Delete task 12 but keep its subtasks as top-level tasks",
            input: r#"{"channel": "demo", "number": 12, "subtask_mode": "promote"}"#,
        },
    ],
    text: super::text::deleted,
    fit: None,
};

fn input_schema() -> Value {
    input_root(
        "task_delete",
        ACTION.summary,
        vec![
            ("channel", common::channel()),
            ("number", fields::number("The task's board-local number.")),
            (
                "subtask_mode",
                enumeration(
                    "For a task with subtasks (required then): `promote` detaches and keeps them, `delete` removes them all. Ignored for a leaf. No default. Other values are rejected.",
                    &["promote", "delete"],
                ),
            ),
        ],
        &["channel", "number"],
    )
}

fn data_schema() -> Value {
    let numbers =
        |d: &str| json!({"type": "array", "items": {"type": "integer"}, "description": d});
    object(
        "What the delete removed and what it kept.",
        vec![
            (
                "deleted_numbers",
                numbers("Board-local numbers deleted, the task itself first."),
            ),
            (
                "promoted_numbers",
                numbers("Subtask numbers detached and kept as top-level tasks."),
            ),
        ],
        &["deleted_numbers", "promoted_numbers"],
    )
}
