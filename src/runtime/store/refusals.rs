//! Every refusal a store makes, built in one place so both engines refuse
//! with the same code, message, field and suggestion: only the queries that
//! find out differ. Also the one decision of `task_set_claim` that is not a
//! query: what a desired claim state means for a task's current holder.

use serde_json::{Value, json};

use crate::error::{Failure, code};

pub fn channel_not_found(name: &str) -> Failure {
    Failure::new(
        code::CHANNEL_NOT_FOUND,
        format!("No board named `{name}` in this workspace."),
    )
    .field("channel", "No such board.")
}

pub fn not_a_member() -> Failure {
    Failure::new(code::FORBIDDEN, "This agent is not a member of that board.")
}

pub fn task_not_found(board: &str, number: i64) -> Failure {
    Failure::new(
        code::TASK_NOT_FOUND,
        format!("No live task #{number} on board `{board}`."),
    )
    .field("number", "No such live task.")
    .suggest("task_list", json!({"channel": board}))
}

pub fn parent_not_found(board: &str, number: i64) -> Failure {
    Failure::new(
        code::PARENT_NOT_FOUND,
        format!("No live task #{number} on board `{board}` to be the parent."),
    )
    .field("parent", "No such live task.")
}

pub fn task_scope_not_found() -> Failure {
    Failure::new(
        code::TASK_SCOPE_NOT_FOUND,
        "parent_task_scope names no live task in this workspace.",
    )
    .field("parent_task_scope/scope_id", "No such live task scope.")
}

pub fn assignee_not_found(member_ref: &str, field: &str) -> Failure {
    Failure::new(
        code::ASSIGNEE_NOT_FOUND,
        format!("No agent `{member_ref}` in this workspace."),
    )
    .field(field, "No such member.")
}

pub fn invalid_parent(number: i64) -> Failure {
    Failure::new(
        code::INVALID_PARENT,
        format!("Task #{number} is the task itself or one of its subtasks."),
    )
    .field("parent", "Would make the task its own ancestor.")
}

/// validate.rs guarantees one create locator; a store refuses rather than guess.
pub fn no_locator() -> Failure {
    admin("channel", "Give exactly one locator.")
}

pub fn target_conflict(target: &str, board: &str) -> Failure {
    Failure::new(
        code::TARGET_CONFLICT,
        format!("target `{target}` is on another board than `{board}`."),
    )
    .field(
        "target",
        "Must be a thread of the board the tasks are created on.",
    )
}

pub fn callback_not_active(why: &str) -> Failure {
    Failure::new(
        code::CALLBACK_NOT_ACTIVE,
        format!("idempotency_key needs an active workflow callback of this agent: {why}"),
    )
    .field(
        "idempotency_key",
        "Accepted only during an active workflow callback.",
    )
}

pub fn no_workflow_context() -> Failure {
    callback_not_active("no workflow run and callback effect were given.")
}

pub fn no_such_callback() -> Failure {
    callback_not_active("no such callback for this agent and run.")
}

pub fn callback_completed() -> Failure {
    callback_not_active("the callback has completed.")
}

pub fn idempotency_conflict() -> Failure {
    Failure::new(
        code::IDEMPOTENCY_CONFLICT,
        "This idempotency_key was already used with a different payload.",
    )
    .field(
        "idempotency_key",
        "Used before with other input; use a new key.",
    )
}

/// `expected_updated_at` was an earlier `updated_at` of the task: it changed since.
pub fn update_conflict(board: &str, number: i64, current: &str) -> Failure {
    Failure::new(
        code::TASK_UPDATE_CONFLICT,
        format!("Task #{number} changed after expected_updated_at; read it again."),
    )
    .field("expected_updated_at", "Stale: the task changed since.")
    .detail("current_updated_at", json!(current))
    .suggest("task_get", json!({"channel": board, "number": number}))
}

/// `expected_updated_at` cannot be any `updated_at` the task had (it lacks
/// microseconds, or is later than the current one): nothing is known to
/// have changed, so the message does not say so.
pub fn inexact_expected(board: &str, number: i64, current: &str) -> Failure {
    Failure::new(
        code::TASK_UPDATE_CONFLICT,
        format!(
            "expected_updated_at is no updated_at task #{number} had; pass the exact updated_at from task_get, all six fractional digits (the current one is in details)."
        ),
    )
    .field(
        "expected_updated_at",
        "Not a time the task had: copy updated_at exactly.",
    )
    .detail("current_updated_at", json!(current))
    .suggest("task_get", json!({"channel": board, "number": number}))
}

pub fn not_task_creator(number: i64) -> Failure {
    Failure::new(
        code::NOT_TASK_CREATOR,
        format!("Only the agent that created task #{number} may delete it."),
    )
}

pub fn subtask_mode_required(number: i64, subtasks: usize) -> Failure {
    Failure::new(
        code::SUBTASK_MODE_REQUIRED,
        format!(
            "Task #{number} has {subtasks} live subtasks; choose subtask_mode `promote` or `delete`."
        ),
    )
    .field("subtask_mode", "Required for a task with subtasks.")
}

pub fn subtask_creator_mismatch(number: i64) -> Failure {
    Failure::new(
        code::SUBTASK_CREATOR_MISMATCH,
        format!(
            "Subtask #{number} was created by another agent; nothing was deleted. Use `promote`."
        ),
    )
    .field(
        "subtask_mode",
        "Recursive delete needs one creator throughout.",
    )
}

/// A refusal of an admin command's argument (`--workspace`, `--name`, …).
pub fn admin(field: &str, problem: &str) -> Failure {
    Failure::invalid_input([(field.to_string(), problem.to_string())].into())
}

pub fn no_such_workspace() -> Failure {
    admin("workspace", "No such workspace.")
}

pub fn no_such_agent() -> Failure {
    admin("agent", "No such agent in the workspace.")
}

pub fn handle_taken() -> Failure {
    admin(
        "handle",
        "An agent with this handle already exists in the workspace.",
    )
}

pub fn channel_taken() -> Failure {
    admin("name", "A channel with this name already exists.")
}

pub fn no_such_member(member: &str) -> Failure {
    admin("members", &format!("No agent `{member}` in the workspace."))
}

pub fn no_such_callback_effect() -> Failure {
    admin(
        "callback_effect",
        "No such callback effect in the workspace.",
    )
}

/// What `task_set_claim` does to one live task, given who holds it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Make the caller the assignee (record `claimed`).
    Take,
    /// Clear the caller's assignment (record `released`).
    Release,
    /// Already in the desired state: counted, nothing written.
    AlreadySo,
    /// Held by someone else: a per-task failure.
    Refuse,
}

/// The desired state `claimed` for a task whose assignee is `holder`
/// (an agent id), asked by agent `caller`.
pub fn claim(claimed: bool, holder: Option<&str>, caller: &str) -> Claim {
    match (claimed, holder) {
        (true, None) => Claim::Take,
        (false, Some(h)) if h == caller => Claim::Release,
        (true, Some(h)) if h == caller => Claim::AlreadySo,
        (false, None) => Claim::AlreadySo,
        (_, Some(_)) => Claim::Refuse,
    }
}

/// The per-task failure of a refused claim or release; `holder` is the
/// handle of the agent that holds the task.
pub fn claim_failure(claimed: bool, number: i64, holder: &str) -> Value {
    if claimed {
        json!({"number": number, "code": code::TASK_CLAIMED_BY_OTHER.code,
            "message": format!("Task #{number} is held by @{holder}.")})
    } else {
        json!({"number": number, "code": code::NOT_ASSIGNEE.code,
            "message": format!("Task #{number} is held by @{holder}, not by this agent.")})
    }
}

/// A task `task_set_claim` left in the requested state, with the
/// `updated_at` it has now, so a guarded `task_update` needs no read first.
pub fn claimed_task(number: i64, updated_at: i64) -> Value {
    json!({"number": number, "updated_at": crate::runtime::clock::format(updated_at)})
}

/// The `task_set_claim` answer: `tasks` in the requested state (in request
/// order), `failures` for the rest.
pub fn claim_result(claimed: bool, tasks: Vec<Value>, failures: Vec<Value>) -> Value {
    json!({"claimed": claimed, "updated_count": tasks.len(), "tasks": tasks, "failures": failures})
}

/// The per-task failure of a claim of a task that is not live on the board.
pub fn claim_not_found(number: i64) -> Value {
    json!({"number": number, "code": code::TASK_NOT_FOUND.code,
        "message": format!("No live task #{number} on this board.")})
}
