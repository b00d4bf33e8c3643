//! `task_checkpoint`: append one durable checkpoint (§13.2).

use serde_json::{Value, json};

use super::{AGENT_CONTEXT, fields};
use crate::error::code;
use crate::registry::schema::*;
use crate::registry::*;

pub static ACTION: Action = Action {
    domain: "task",
    verb: "checkpoint",
    operation: Operation::Task(super::Operation::Checkpoint),
    summary: "Append a durable checkpoint to a task.",
    description: "Record one high-signal, durable checkpoint (a decision, a milestone, a hand-off) on a task; \
        checkpoints are append-only and cannot be edited. Routine progress narrative belongs in the task \
        scope's messages, which no task action carries; use task_update to change the task itself. \
        Retry safely only with an idempotency_key.",
    permission: Permission::AgentMutation,
    idempotency: Idempotency::Keyed,
    concurrency: Concurrency::AppendOnly,
    hidden_context: AGENT_CONTEXT,
    budget: BudgetClass::Small,
    method: Method::Post,
    route: "/tasks/add-checkpoint",
    exposure: Exposure::Exec,
    deprecation: Deprecation::Active,
    paginated: false,
    success: Success::Ok,
    refusals: &[
        code::CHANNEL_NOT_FOUND,
        code::TASK_NOT_FOUND,
        code::IDEMPOTENCY_CONFLICT,
    ],
    input_schema,
    data_schema,
    check: fields::check_checkpoint_key,
    canonicalize: fields::trim_idempotency_key,
    examples: &[
        Example {
            description: "Record a decision on task 12",
            input: r#"{"channel": "demo", "number": 12, "summary": "Root cause: token refresh raced logout. Fix merged behind a flag."}"#,
        },
        Example {
            description: "Record a hand-off that a retry cannot record twice",
            input: r#"{"channel": "demo", "number": 12, "summary": "Handed off to @ops.", "idempotency_key": "handoff-12"}"#,
        },
    ],
    text: super::text::checkpoint,
    fit: None,
};

fn input_schema() -> Value {
    let mut summary = string(
        &format!(
            "The checkpoint text, 1–{} characters, not blank.",
            fields::MAX_SUMMARY
        ),
        1,
        fields::MAX_SUMMARY,
    );
    summary["pattern"] = json!("\\S");
    input_root(
        "task_checkpoint",
        ACTION.summary,
        vec![
            ("channel", common::channel()),
            ("number", fields::number("The task's board-local number.")),
            ("summary", summary),
            (
                "idempotency_key",
                fields::idempotency_key(
                    " of this agent on this task",
                    "the original checkpoint, appending nothing",
                ),
            ),
        ],
        &["channel", "number", "summary"],
    )
}

fn data_schema() -> Value {
    object(
        "The appended checkpoint and the task it belongs to.",
        vec![
            ("checkpoint", fields::checkpoint()),
            ("task", fields::compact_task()),
            (
                "reused",
                boolean("True when an idempotency_key replayed an earlier checkpoint."),
            ),
        ],
        // `reused` is agentteam-runtime's addition (keyed checkpoints);
        // product.md's shape has the other two.
        &["checkpoint", "task"],
    )
}
