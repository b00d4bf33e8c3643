//! `task_get`: one task in detail (§13.2).

use serde_json::Value;

use super::{AGENT_CONTEXT, fields};
use crate::error::code;
use crate::registry::schema::*;
use crate::registry::*;

pub const MAX_SUBTASKS: usize = 20;
pub const MAX_CHECKPOINTS: usize = 5;

pub static ACTION: Action = Action {
    domain: "task",
    verb: "get",
    operation: Operation::Task(super::Operation::Get),
    summary: "Read one task in detail.",
    description: "Read one task's full profile with bounded summaries of its subtasks and recent \
        checkpoints; attachments are metadata only. A cut section's `next` reads the rest. Use task_list to find a task's number first. Read-only.",
    permission: Permission::ReadOnly,
    idempotency: Idempotency::Safe,
    concurrency: Concurrency::Snapshot,
    hidden_context: AGENT_CONTEXT,
    budget: BudgetClass::Detail,
    method: Method::Post,
    route: "/tasks/get",
    exposure: Exposure::Exec,
    deprecation: Deprecation::Active,
    paginated: false,
    success: Success::Ok,
    refusals: &[code::CHANNEL_NOT_FOUND, code::TASK_NOT_FOUND],
    input_schema,
    data_schema: fields::task_detail,
    check: no_branch_rules,
    canonicalize: keep,
    examples: &[
        Example {
            description: "Read task 12 of the demo board",
            input: r#"{"channel": "demo", "number": 12}"#,
        },
        Example {
            description: "Task 12's checkpoints older than checkpoint 40",
            input: r#"{"channel": "demo", "number": 12, "checkpoints_before": 40}"#,
        },
    ],
    text: super::text::detail,
    fit: Some(super::fit::fit_detail),
};

fn input_schema() -> Value {
    input_root(
        "task_get",
        ACTION.summary,
        vec![
            ("channel", common::channel()),
            ("number", fields::number("The task's board-local number.")),
            (
                "checkpoints_before",
                integer(
                    &format!(
                        "Only checkpoints older than this checkpoint id (from the section's `next`). Default: the {MAX_CHECKPOINTS} newest."
                    ),
                    1,
                    // The largest integer every JSON reader holds exactly.
                    9_007_199_254_740_991,
                ),
            ),
        ],
        &["channel", "number"],
    )
}
