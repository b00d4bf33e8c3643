//! `task_set_claim`: claim or release tasks by desired state (§13.2).

use serde_json::{Value, json};

use super::{AGENT_CONTEXT, fields};
use crate::error::code;
use crate::registry::schema::*;
use crate::registry::*;

pub static ACTION: Action = Action {
    domain: "task",
    verb: "set_claim",
    operation: Operation::Task(super::Operation::SetClaim),
    summary: "Claim or release tasks for the calling agent.",
    description: "Make the calling agent the assignee of record of tasks (`claimed: true`) or give them up \
        (`claimed: false`); a desired state, never a toggle, so repeating it is safe. Use task_update to \
        assign someone else. Tasks held by another member are reported per task, not taken.",
    permission: Permission::AgentMutation,
    idempotency: Idempotency::DesiredState,
    concurrency: Concurrency::AtomicPerItem,
    hidden_context: AGENT_CONTEXT,
    budget: BudgetClass::Small,
    method: Method::Post,
    route: "/tasks/set-claim",
    exposure: Exposure::Exec,
    deprecation: Deprecation::Active,
    paginated: false,
    success: Success::Ok,
    // A task it cannot claim is a per-task failure inside the success.
    refusals: &[code::CHANNEL_NOT_FOUND],
    input_schema,
    data_schema,
    check: no_branch_rules,
    canonicalize: keep,
    examples: &[
        Example {
            description: "Claim tasks 12 and 13",
            input: r#"{"channel": "demo", "numbers": [12, 13], "claimed": true}"#,
        },
        Example {
            description: "Release task 12",
            input: r#"{"channel": "demo", "numbers": [12], "claimed": false}"#,
        },
    ],
    text: super::text::claim,
    fit: None,
};

fn input_schema() -> Value {
    input_root(
        "task_set_claim",
        ACTION.summary,
        vec![
            ("channel", common::channel()),
            (
                "numbers",
                unique(array(
                    &format!("Task numbers, 1–{}, distinct.", fields::MAX_BATCH),
                    fields::number("A task number."),
                    1,
                    fields::MAX_BATCH,
                )),
            ),
            (
                "claimed",
                boolean(
                    "Desired state: true makes the calling agent the assignee; false releases tasks it holds. No default.",
                ),
            ),
        ],
        &["channel", "numbers", "claimed"],
    )
}

fn data_schema() -> Value {
    object(
        "How many tasks are now in the requested state, and which could not be.",
        vec![
            ("claimed", boolean("The requested state.")),
            (
                "updated_count",
                json!({"type": "integer", "description": "Tasks now in the requested state (already-held ones included)."}),
            ),
            (
                "tasks",
                json!({"type": "array", "description": "Tasks now in the requested state, in request order.", "items": object(
                    "One task.",
                    vec![
                        ("number", json!({"type": "integer", "description": "The task number."})),
                        ("updated_at", json!({"type": "string", "description": "Its updated_at now; pass it as expected_updated_at."})),
                    ],
                    &["number", "updated_at"],
                )}),
            ),
            (
                "failures",
                json!({"type": "array", "description": "Tasks not brought to the requested state.", "items": object(
                    "One per-task failure.",
                    vec![
                        ("number", json!({"type": "integer", "description": "The task number."})),
                        ("code", json!({"type": "string", "enum": ["task_not_found", "task_claimed_by_other", "not_assignee"], "description": "Why."})),
                        ("message", json!({"type": "string", "description": "Human-readable reason."})),
                        (
                            "candidates",
                            json!({"type": "array", "maxItems": crate::error::MAX_TASK_CANDIDATES, "description": "For task_not_found: the board's live tasks it may have meant, nearest first.", "items": object(
                                "A live task.",
                                vec![
                                    ("number", json!({"type": "integer", "description": "Its number."})),
                                    ("title", json!({"type": "string", "description": format!("Its title, cut to {} characters (its start and end kept).", crate::error::CANDIDATE_TITLE_CHARS)})),
                                ],
                                &["number", "title"],
                            )}),
                        ),
                    ],
                    &["number", "code", "message"],
                )}),
            ),
        ],
        // `tasks` is agentteam-runtime's addition (each task's new
        // updated_at); product.md's shape has the other three.
        &["claimed", "updated_count", "failures"],
    )
}
