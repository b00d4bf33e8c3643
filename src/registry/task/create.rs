//! `task_create`: create tasks or subtasks from exactly one locator (§13.2).

use serde_json::{Value, json};

use super::fields;
use crate::error::code;
use crate::registry::schema::*;
use crate::registry::*;

pub static ACTION: Action = Action {
    domain: "task",
    verb: "create",
    operation: Operation::Task(super::Operation::Create),
    summary: "Create tasks or subtasks on a board.",
    description: "Create one task (with its details) or a batch of titles, on a board (`channel`, \
        optionally under a `parent` number) or under an exact task scope (`parent_task_scope`). \
        Search with task_list first to avoid duplicates. Allocates new board-local numbers; \
        retry safely only with an idempotency_key.",
    permission: Permission::AgentMutation,
    idempotency: Idempotency::KeyedReplay,
    concurrency: Concurrency::Transactional,
    hidden_context: &[
        HiddenContext::WorkspaceId,
        HiddenContext::AgentId,
        HiddenContext::AgentToken,
        HiddenContext::WorkflowRunId,
        HiddenContext::CallbackEffectId,
    ],
    budget: BudgetClass::Small,
    method: Method::Post,
    route: "/tasks",
    exposure: Exposure::Exec,
    deprecation: Deprecation::Active,
    paginated: false,
    success: Success::CreatedUnlessReused,
    refusals: &[
        code::CHANNEL_NOT_FOUND,
        code::PARENT_NOT_FOUND,
        code::TASK_SCOPE_NOT_FOUND,
        code::TASK_SCOPE_CLOSED,
        code::ASSIGNEE_NOT_FOUND,
        code::TARGET_CONFLICT,
        code::CALLBACK_NOT_ACTIVE,
        code::IDEMPOTENCY_CONFLICT,
    ],
    input_schema,
    data_schema,
    check,
    canonicalize: fields::trim_idempotency_key,
    examples: &[
        Example {
            description: "Create one task with details",
            input: r#"{"channel": "demo", "tasks": [{"title": "Fix login timeout", "priority": "high", "labels": ["auth"], "assignee": "@demo-peer"}]}"#,
        },
        Example {
            description: "Create three subtasks under task 12",
            input: r#"{"channel": "demo", "parent": 12, "tasks": [{"title": "Reproduce"}, {"title": "Fix"}, {"title": "Add a test"}]}"#,
        },
        Example {
            description: "Create a subtask under an exact task scope, from a thread, replay-safe inside a workflow callback",
            input: r##"{"parent_task_scope": {"kind": "task", "scope_id": "tsk_0123456789abcdef0123456789abcdef"}, "target": "#demo:th_42", "tasks": [{"title": "Write the migration"}], "idempotency_key": "migration-subtask-1"}"##,
        },
    ],
    text: super::text::created,
    fit: None,
};

fn task_item() -> Value {
    object(
        "One task to create. A batch of several items carries titles only.",
        vec![
            ("title", fields::title("Required.")),
            ("description", fields::description("Default: none.")),
            (
                "status",
                fields::status("Initial status. Default `todo`. Other values are rejected."),
            ),
            (
                "priority",
                fields::priority("Priority. Default `none`. Other values are rejected."),
            ),
            (
                "assignee",
                common::member_ref("Member ref to assign, e.g. `@alice`. Default: unassigned."),
            ),
            (
                "labels",
                fields::labels(&format!(
                    "Labels, at most {}, distinct. Default: none.",
                    fields::MAX_LABELS
                )),
            ),
            ("checklist", fields::checklist("Default: none.")),
            ("urls", fields::urls("Default: none.")),
            ("attachments", fields::attachments("Default: none.")),
            ("blocker", fields::blocker("Default: none.")),
        ],
        &["title"],
    )
}

fn input_schema() -> Value {
    input_root(
        "task_create",
        ACTION.summary,
        vec![
            ("channel", {
                let mut c = common::channel();
                c["description"] = json!(
                    "Board to create on. Exactly one locator: `channel` or `parent_task_scope`; required unless parent_task_scope is given (no default)."
                );
                c
            }),
            (
                "parent",
                fields::number(
                    "Create the tasks as subtasks of this task number on `channel`. Default: top-level.",
                ),
            ),
            (
                "parent_task_scope",
                object(
                    "Create the tasks as subtasks of this exact task scope; the board comes from storage. Exclusive with `channel` and `parent`. Default: none.",
                    vec![
                        (
                            "kind",
                            enumeration(
                                "Scope kind; only `task`. Other values are rejected.",
                                &["task"],
                            ),
                        ),
                        (
                            "scope_id",
                            pattern("The parent task's scope_id.", "^[A-Za-z0-9_:-]+$", 128),
                        ),
                    ],
                    &["kind", "scope_id"],
                ),
            ),
            (
                "tasks",
                array(
                    &format!(
                        "Tasks to create, 1–{}. Rich fields (anything but title) only when there is exactly one.",
                        fields::MAX_BATCH
                    ),
                    task_item(),
                    1,
                    fields::MAX_BATCH,
                ),
            ),
            (
                "target",
                pattern(
                    "The thread the work comes from, `#channel:thread_id`: provenance, not a locator; its board must match. Default: none.",
                    fields::TARGET_PATTERN,
                    210,
                ),
            ),
            (
                "idempotency_key",
                fields::idempotency_key(
                    " for creation inside an active workflow callback",
                    "the original tasks",
                ),
            ),
        ],
        &["tasks"],
    )
}

fn data_schema() -> Value {
    object(
        "The created (or replayed) tasks.",
        vec![
            (
                "tasks",
                json!({"type": "array", "items": fields::compact_task(), "description": "The tasks, in input order."}),
            ),
            (
                "reused",
                boolean(
                    "True when an idempotency_key replayed an earlier create; nothing new was created.",
                ),
            ),
            (
                "deleted_numbers",
                json!({"type": "array", "items": {"type": "integer"}, "description": "On a replay, the numbers among tasks deleted since the create (shown as they were when deleted); absent when none is."}),
            ),
        ],
        &["tasks", "reused"],
    )
}

fn check(input: &Value, errors: &mut FieldErrors) {
    // A locator given as null is no locator: the other one stands alone.
    let given = |name: &str| input.get(name).is_some_and(|v| !v.is_null());
    let has_channel = given("channel");
    let has_scope = given("parent_task_scope");
    if has_scope && input.get("channel").is_some_and(Value::is_null) {
        errors.insert(
            "channel".into(),
            "Leave it out: `parent_task_scope` names the board.".into(),
        );
    }
    match (has_channel, has_scope) {
        (true, true) => {
            // Both ways to a parent, each told whole: dropping either alone
            // as "one locator" says would leave a scope in the wrong shape,
            // or make a top-level task where a subtask was meant.
            let shape = if input["parent_task_scope"].is_object() {
                ""
            } else {
                ", written `{\"kind\": \"task\", \"scope_id\": \"tsk_…\"}`"
            };
            errors.insert(
                "parent_task_scope".into(),
                format!("Exclusive with `channel`: give exactly one locator. Either drop `channel` and keep this scope{shape} (it names the board), or drop this and give the parent's number as `parent` beside `channel`."),
            );
        }
        (false, false) => {
            errors.insert(
                "channel".into(),
                "Give exactly one locator: `channel` or `parent_task_scope`.".into(),
            );
        }
        _ => {}
    }
    if has_scope && input.get("parent").is_some() {
        errors.insert(
            "parent".into(),
            "Exclusive with `parent_task_scope`, which already names the parent.".into(),
        );
    }
    let tasks = input.get("tasks").and_then(Value::as_array);
    let rest = match tasks.map(Vec::len) {
        Some(1) => "put what follows its first line in `tasks/0/description`.",
        _ => {
            "what follows its first line is a description, which a create of one task (`tasks` of one item) takes, or task_update gives later."
        }
    };
    for (i, task) in tasks.into_iter().flatten().enumerate() {
        fields::check_title(task.get("title"), &format!("tasks/{i}/title"), rest, errors);
        fields::check_written_labels(task.get("labels"), &format!("tasks/{i}/labels"), errors);
    }
    if let Some(tasks) = input.get("tasks").and_then(Value::as_array)
        && tasks.len() > 1
    {
        for (i, task) in tasks.iter().enumerate() {
            for field in fields::RICH_FIELDS {
                if task.get(*field).is_some() {
                    errors.insert(
                            format!("tasks/{i}/{field}"),
                            "Only `title` is accepted in a batch of several tasks; create a rich task on its own (several at once: one input per line with `--batch`).".into(),
                        );
                }
            }
        }
    }
    fields::check_idempotency_key(input, errors);
}
