//! Every refusal a store makes, built in one place so both engines refuse
//! with the same code, message, field and suggestion: only the queries that
//! find out differ. Also the one decision of `task_set_claim` that is not a
//! query: what a desired claim state means for a task's current holder.

use serde_json::{Value, json};

use super::handle_of;
use crate::error::{Failure, MAX_CANDIDATES, code};
use crate::nearest::{edit_distance, is_typo_of};
use crate::text;

/// `names` ordered nearest to `given` first (edit distance, case folded,
/// then name), at most [`MAX_CANDIDATES`]: a lookup failure's candidates.
pub fn nearest(given: &str, names: Vec<String>) -> Vec<String> {
    let given = given.to_lowercase();
    let mut ranked: Vec<(usize, String)> = names
        .into_iter()
        .map(|n| (edit_distance(&given, &n.to_lowercase()), n))
        .collect();
    ranked.sort();
    ranked
        .into_iter()
        .take(MAX_CANDIDATES)
        .map(|(_, n)| n)
        .collect()
}

/// The numbers one slip of the finger away from `number`: a digit
/// dropped, added, changed or two swapped (`150` → `15`, `51`, `105`, …).
/// With the numerically nearest tasks, where a mistyped task number's
/// candidates are looked for.
pub fn number_slips(number: i64) -> Vec<i64> {
    let digits: Vec<char> = number.unsigned_abs().to_string().chars().collect();
    let mut slips = Vec::new();
    let mut push = |d: Vec<char>| {
        if let Ok(n) = d.iter().collect::<String>().parse::<i64>()
            && n > 0
            && n != number
        {
            slips.push(n);
        }
    };
    for i in 0..digits.len() {
        let mut d = digits.clone();
        d.remove(i);
        push(d);
        for c in '0'..='9' {
            let mut d = digits.clone();
            d[i] = c;
            push(d);
        }
        if i + 1 < digits.len() {
            let mut d = digits.clone();
            d.swap(i, i + 1);
            push(d);
        }
    }
    for i in 0..=digits.len() {
        for c in '0'..='9' {
            let mut d = digits.clone();
            d.insert(i, c);
            push(d);
        }
    }
    slips.sort_unstable();
    slips.dedup();
    slips
}

/// `tasks` (number, title) ranked as candidates for a mistyped `number`:
/// fewest digit edits first, then numerically nearest, then by number;
/// and the numerically nearest of all among them, second if the edits put
/// it further: a number past the board's last task (`60` on a board of
/// 55) is as likely a task meant there as a slip of `50`.
pub fn nearest_tasks(number: i64, mut tasks: Vec<(i64, String)>) -> Vec<(i64, String)> {
    let given = number.to_string();
    tasks.sort_by_key(|(n, _)| {
        (
            edit_distance(&given, &n.to_string()),
            n.abs_diff(number),
            *n,
        )
    });
    tasks.dedup_by_key(|(n, _)| *n);
    let closest = (0..tasks.len()).min_by_key(|&i| (tasks[i].0.abs_diff(number), tasks[i].0));
    if let Some(i) = closest.filter(|&i| i > 1) {
        let task = tasks.remove(i);
        tasks.insert(1, task);
    }
    tasks.truncate(crate::error::MAX_TASK_CANDIDATES);
    tasks
}

/// Whether `given` is a typo of `first` and of no other name as near:
/// with `second` (the next candidate) as near as `first`, the caller could
/// have meant either, and a call that picked one would be a guess.
pub fn is_typo_of_only(given: &str, first: &str, second: Option<&str>) -> bool {
    let distance = |name: &str| edit_distance(&given.to_lowercase(), &name.to_lowercase());
    is_typo_of(given, first) && second.is_none_or(|second| distance(second) > distance(first))
}

/// The one of `names` that `given` is a slip of: the nearest, when it is
/// a typo of it and no other is as near ([`is_typo_of_only`]).
pub fn slip_of(given: &str, names: Vec<String>) -> Option<String> {
    let near = nearest(given, names);
    near.first()
        .filter(|first| is_typo_of_only(given, first, near.get(1).map(String::as_str)))
        .cloned()
}

/// `boards` are those this agent may use, nearest to `name` first. Also the
/// answer for a private board the agent is not a member of: its existence
/// is not revealed (as GitHub answers for a private repository).
pub fn channel_not_found(name: &str, boards: Vec<String>) -> Failure {
    let boards = nearest(name, boards);
    // The board a typo meant, if the nearest is one; a name that is no typo
    // of any gets the boards alone, the first no likelier than the rest: a
    // call on one of them would be a guess (a search there answers an empty
    // page, read as "no such task").
    let meant = boards.first().filter(|first| is_typo_of(name, first));
    let message = match (boards.is_empty(), meant) {
        (true, _) => format!("No board `{name}` that this agent may use; it may use none."),
        (false, Some(_)) => format!(
            "No board `{name}` that this agent may use; candidates lists those it may, nearest first."
        ),
        (false, None) => format!(
            "No board `{name}` that this agent may use; none is near that name: candidates lists those it may."
        ),
    };
    let failure = Failure::new(code::CHANNEL_NOT_FOUND, message)
        .field("channel", "No such board.")
        .candidates("channel", boards.iter().map(|b| json!(b)));
    match meant {
        Some(first) => failure.suggest("task_list", json!({"channel": first})),
        None => failure,
    }
}

/// `nearby` are live tasks of the board (number, title), nearest to
/// `number` first: a slip of the finger is usually among them.
/// `elsewhere` are the other boards this agent may use that have a live
/// task `number` (board, its title): numbers are never skipped, so a board
/// without a live or deleted `number` has none that high, and the same
/// number on another board is likelier meant than this board's nearest.
pub fn task_not_found(
    board: &str,
    number: i64,
    elsewhere: &[(String, String)],
    nearby: &[(i64, String)],
) -> Failure {
    let rest = match (elsewhere.is_empty(), nearby.is_empty()) {
        (false, _) => format!(
            "candidates: the other boards with a live #{number} (as `channel`), then this board's nearest"
        ),
        (true, false) => "candidates are the board's nearest".to_string(),
        (true, true) => "the board has no live task".to_string(),
    };
    Failure::new(
        code::TASK_NOT_FOUND,
        format!("No live task #{number} on board `{board}`; {rest}."),
    )
    .field("number", "No such live task.")
    .titled_candidates(
        "channel",
        elsewhere
            .iter()
            .map(|(board, title)| (json!(board), title.as_str())),
    )
    .task_candidates("number", nearby)
    .suggest("task_list", json!({"channel": board}))
}

/// Task `number` of the board was deleted: said so, with no candidates (a
/// retried delete must not be pointed at another task), and the board's
/// live tasks one `task_list` away.
pub fn task_deleted(board: &str, number: i64) -> Failure {
    Failure::new(
        code::TASK_NOT_FOUND,
        format!(
            "Task #{number} on board `{board}` was deleted; it cannot be read or changed again (task_list shows the live ones)."
        ),
    )
    .field("number", "Deleted.")
    .suggest("task_list", json!({"channel": board}))
}

/// The read that lists a board's live tasks, subtasks included, by number:
/// where a parent's number is found.
fn list_board(board: &str) -> Value {
    json!({"channel": board, "include_subtasks": true, "sort": "number_asc"})
}

/// `nearby` are live tasks of the board (number, title), nearest to
/// `number` first.
///
/// `elsewhere`, as for [`task_not_found`]: the other boards with a live
/// task `number`, first, where the input's board is where the new subtask
/// goes or the list looks (never for an update, whose `channel` names the
/// task to change: a subtask is on its parent's board, and no task moves).
pub fn parent_not_found(
    board: &str,
    number: i64,
    field: &str,
    elsewhere: &[(String, String)],
    nearby: &[(i64, String)],
) -> Failure {
    let rest = match (elsewhere.is_empty(), nearby.is_empty()) {
        (false, _) => format!(
            "candidates: the other boards with a live #{number} (as `channel`, where its subtask goes), then this board's nearest"
        ),
        (true, true) => "the board has no live task".to_string(),
        (true, false) => "candidates are the board's nearest, task_list has the rest".to_string(),
    };
    Failure::new(
        code::PARENT_NOT_FOUND,
        format!("No live task #{number} on board `{board}` to be the parent; {rest}."),
    )
    .field(field, "No such live task.")
    .titled_candidates(
        "channel",
        elsewhere
            .iter()
            .map(|(board, title)| (json!(board), title.as_str())),
    )
    .task_candidates(field, nearby)
    .suggest("task_list", list_board(board))
}

/// Parent `number` of the board was deleted: said so, with no candidates,
/// as `task_deleted` does for the task itself.
pub fn parent_deleted(board: &str, number: i64, field: &str) -> Failure {
    Failure::new(
        code::PARENT_NOT_FOUND,
        format!("Task #{number} on board `{board}` was deleted; task_list shows the live ones."),
    )
    .field(field, "Deleted.")
    .suggest("task_list", list_board(board))
}

/// `boards` are those this agent may use (by name): the scope's board is
/// unknown, so the parent is found by listing one and taking its scope_id.
/// The list is proposed only when there is one board: of several, the
/// input names none, and a call is never proposed on a board the caller
/// did not name (README, "Output").
pub fn task_scope_not_found(scope_id: &str, boards: Vec<String>) -> Failure {
    // An id copied without its prefix (`tsk_`), as some answers' ids are
    // shortened when read aloud: said, the rest of the refusal still true.
    let prefix = crate::ids::IdKind::TaskScope.prefix();
    let said = match scope_id.starts_with(prefix) {
        true => "No such live task scope.".to_string(),
        false => format!("No such live task scope; a task's scope_id begins `{prefix}`."),
    };
    let failure = Failure::new(
        code::TASK_SCOPE_NOT_FOUND,
        "parent_task_scope names no live task in this workspace; list the parent's board with task_list (candidates are the boards this agent may use) and copy its scope_id, or give channel and parent instead.",
    )
    .field("parent_task_scope/scope_id", said);
    let mut boards = boards;
    boards.sort();
    boards.truncate(MAX_CANDIDATES);
    if boards.is_empty() {
        return failure;
    }
    let failure = failure.candidates("channel", boards.iter().map(|b| json!(b)));
    match boards.as_slice() {
        [only] => failure.suggest("task_list", list_board(only)),
        _ => failure,
    }
}

/// The scope's task (`number` on `board`, a board the caller may use) was
/// deleted: said so, as a deleted task's number is, with the board's live
/// tasks one `task_list` away (a subtask of it goes nowhere now).
pub fn task_scope_deleted(board: &str, number: i64) -> Failure {
    Failure::new(
        code::TASK_SCOPE_NOT_FOUND,
        format!(
            "parent_task_scope names task #{number} on board `{board}`, which was deleted; a deleted task takes no subtasks (task_list shows the live ones)."
        ),
    )
    .field("parent_task_scope/scope_id", "Deleted.")
    .suggest("task_list", list_board(board))
}

/// The scope's task (`number` on `board`) is live but not active: a task
/// scope takes subtasks only while its task is active (docs/contract.md
/// §13.2). The way that still works is named: the same parent by board and
/// number, which takes subtasks of a task in any status.
pub fn task_scope_closed(board: &str, number: i64, status: &str) -> Failure {
    Failure::new(
        code::TASK_SCOPE_CLOSED,
        format!(
            "parent_task_scope names task #{number} on board `{board}`, which is {status}; a task scope takes subtasks only while its task is active (todo, in_progress, in_review). Give \"channel\": \"{board}\", \"parent\": {number} instead, or reopen the task with task_update."
        ),
    )
    .field("parent_task_scope/scope_id", format!("The task is {status}."))
    .detail("status", json!(status))
    .suggest("task_get", json!({"channel": board, "number": number}))
}

/// `handles` are the workspace's agents (without `@`); the nearest member
/// refs become the candidates. The suggestion lists the board's tasks of
/// the nearest member, which names it as it is written.
/// `member_ref`, which names no member of the workspace, for `caller` (a
/// handle): the nearest member refs; a word a caller uses for itself
/// ([`is_self_ref`]) gets the caller's own ref alone, since the nearest
/// by spelling is someone else.
pub fn assignee_not_found(
    member_ref: &str,
    field: &str,
    caller: &str,
    handles: Vec<String>,
) -> Failure {
    if is_self_ref(member_ref) {
        // The caller alone: the others are no one the word could mean.
        let refs = [format!("@{caller}")];
        let (message, hint) = if field == "filters/assignee" {
            (
                format!(
                    "No agent `{member_ref}` in this workspace; for your own tasks set \
                     `assigned_to_me` to true in `filters`, instead of `assignee`."
                ),
                "No such member; for your own tasks set `assigned_to_me` to true instead.",
            )
        } else {
            (
                format!(
                    "No agent `{member_ref}` in this workspace; you are `@{caller}` (the \
                     candidate)."
                ),
                "No such member; name yourself by your own ref.",
            )
        };
        return Failure::new(code::ASSIGNEE_NOT_FOUND, message)
            .field(field, hint)
            .candidates(field, refs.into_iter().map(Value::from));
    }
    Failure::new(
        code::ASSIGNEE_NOT_FOUND,
        format!(
            "No agent `{member_ref}` in this workspace; candidates lists the nearest member refs."
        ),
    )
    .field(field, "No such member.")
    .candidates(field, nearest_refs(member_ref, handles))
}

/// The member refs of `handles`, nearest to `member_ref` first.
fn nearest_refs(member_ref: &str, handles: Vec<String>) -> impl Iterator<Item = Value> {
    nearest(handle_of(member_ref), handles)
        .into_iter()
        .map(|h| Value::from(format!("@{h}")))
}

/// `member_ref` names an agent of the workspace who may not use the private
/// `board` the task is on: it could neither read nor release the task.
/// `members` are the board's members, the candidates (nearest first).
pub fn assignee_not_a_member(
    member_ref: &str,
    field: &str,
    board: &str,
    members: Vec<String>,
) -> Failure {
    Failure::new(
        code::ASSIGNEE_NOT_FOUND,
        format!(
            "`{member_ref}` is not a member of the private board `{board}`, so could not use \
             the task; candidates lists the board's members, nearest first."
        ),
    )
    .field(field, "Not a member of this private board.")
    .candidates(field, nearest_refs(member_ref, members))
    .detail("private_board", Value::from(board))
}

/// Whether `member_ref` is a word a caller uses for itself (`@me`,
/// `@self`, `@myself`), not a member's handle.
pub fn is_self_ref(member_ref: &str) -> bool {
    crate::registry::synonyms::is_self_handle(handle_of(member_ref))
}

/// Task `task` may not move under task `parent`, which is one of its
/// subtasks (directly or deeper).
pub fn invalid_parent(task: i64, parent: i64) -> Failure {
    Failure::new(
        code::INVALID_PARENT,
        format!(
            "Task #{parent} is a subtask of task #{task} (directly or deeper), so it cannot be its \
             parent; nothing was changed. Give another parent, or null to make task #{task} top-level."
        ),
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
        format!(
            "target `{target}` is on another board than `{board}`; nothing was created. Give a thread \
             of board `{board}` (`#{board}:THREAD_ID`), or leave target out: it is provenance only."
        ),
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
    callback_not_active(
        "the call did not carry both a workflow run and its callback effect; outside a callback, send it without idempotency_key.",
    )
}

pub fn no_such_callback() -> Failure {
    callback_not_active("no such callback for this agent and run.")
}

pub fn callback_completed() -> Failure {
    callback_not_active(
        "the callback has completed, so it takes no new key; send it without idempotency_key.",
    )
}

/// A key used before with other input. A new key is the fix while the key's
/// callback is open (`callback_completed` false, or a checkpoint's key,
/// which needs no callback); once it has completed it takes no new key,
/// so the call goes without one.
pub fn idempotency_conflict(callback_completed: bool, made: &[i64]) -> Failure {
    let shown: Vec<String> = made.iter().map(|n| format!("#{n}")).collect();
    // What the key made, so that a call meant as a correction of it goes
    // to that task rather than making another under a new key.
    let correction = match made.first() {
        Some(first) => format!(
            " It made {}: to correct that, task_update #{first}.",
            shown.join(", ")
        ),
        None => String::new(),
    };
    let field = if callback_completed {
        format!(
            "Used before with other input, and its callback has completed, so it takes no new key: send the call without idempotency_key.{correction}"
        )
    } else {
        format!("Used before with other input; use a new key.{correction}")
    };
    let failure = Failure::new(
        code::IDEMPOTENCY_CONFLICT,
        "This idempotency_key was already used with a different payload; this call did nothing (see field_errors).",
    )
    .field("idempotency_key", field);
    match made.is_empty() {
        true => failure,
        false => failure.detail("made_numbers", json!(made)),
    }
}

/// A checkpoint's key used before with another summary: what it recorded,
/// so that a retry reworded after a lost answer is known for the
/// checkpoint already appended, not appended again under a new key.
pub fn checkpoint_key_conflict(id: i64, summary: &str) -> Failure {
    let shown = crate::text::clip(&crate::redact::tokens(summary), 80).into_owned();
    idempotency_conflict(false, &[])
        .field(
            "idempotency_key",
            format!(
                "Used before with another summary: it recorded checkpoint {id} of this task ({shown:?}). If this call is that checkpoint again, it is already recorded and nothing is left to do; a new key appends another checkpoint."
            ),
        )
        .detail("checkpoint_id", json!(id))
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

/// The creator is named: the one agent that may delete the task, whom the
/// caller can ask. No call is suggested, since none this agent may make
/// deletes it (cancelling is a choice for the caller, not a fix).
pub fn not_task_creator(number: i64, creator: &str) -> Failure {
    Failure::new(
        code::NOT_TASK_CREATOR,
        format!(
            "Only @{creator}, the agent that created task #{number}, may delete it; nothing was deleted. \
             Ask @{creator} to, or set its status to `canceled` with task_update."
        ),
    )
}

/// The number of the first of `level` (subtasks as each engine reads
/// them: id, number, creator; in number order) that another agent than
/// `agent` created: the one a delete of them all is refused for.
pub fn made_by_another(level: &[(i64, i64, String)], agent: &str) -> Option<i64> {
    level
        .iter()
        .find(|(.., creator)| creator != agent)
        .map(|(_, number, _)| *number)
}

pub fn subtask_mode_required(number: i64, subtasks: usize, foreign: Option<i64>) -> Failure {
    let (noun, them, kept) = if subtasks == 1 {
        ("subtask", "it", "a top-level task")
    } else {
        ("subtasks", "them", "top-level tasks")
    };
    // `delete` offered only where it could be taken: a subtask another
    // agent created, at any depth (`foreign`), refuses it
    // (`subtask_creator_mismatch`).
    let choice = match foreign {
        None => format!(
            "Choose subtask_mode `promote` (keep {them} as {kept}) or `delete` (delete {them} too)."
        ),
        Some(other) => format!(
            "Choose subtask_mode `promote` (keep {them} as {kept}); `delete` would be refused, subtask #{other} being another agent's."
        ),
    };
    Failure::new(
        code::SUBTASK_MODE_REQUIRED,
        format!("Task #{number} has {subtasks} live {noun}; nothing was deleted. {choice}"),
    )
    .field("subtask_mode", "Required for a task with subtasks.")
}

pub fn subtask_creator_mismatch(number: i64) -> Failure {
    Failure::new(
        code::SUBTASK_CREATOR_MISMATCH,
        format!(
            "Subtask #{number} was created by another agent; nothing was deleted. `promote` deletes this task alone and keeps every subtask; to delete subtasks of your own too, task_delete each of them first, then this one with `promote`."
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

/// `--workspace` named no workspace id. `named` are the ids of the
/// workspaces whose name it is, if any (oldest first): an operator who
/// typed the name the workspace was created with is told its id.
pub fn no_such_workspace(given: &str, named: &[String]) -> Failure {
    let problem = match named {
        [] => "No such workspace.".to_string(),
        [id] => {
            format!("No such workspace id: `{given}` is the name of workspace {id}; pass its id.")
        }
        ids => format!(
            "No such workspace id: `{given}` is the name of workspaces {}; pass the id of the one meant.",
            ids.join(", ")
        ),
    };
    admin("workspace", &problem)
}

/// How many workspace ids [`no_such_workspace`] names at most.
pub const MAX_NAMED_WORKSPACES: usize = 5;

/// `agent` as `--agent` gave it: an id (`ag_…`) or a member ref (`@…`);
/// a bare word was most likely a handle without its `@`, and
/// `handle_exists` says whether `@word` is an agent of the workspace.
pub fn no_such_agent(agent: &str, handle_exists: bool) -> Failure {
    admin(
        "agent",
        &format!(
            "No such agent in the workspace.{}",
            handle_hint(agent, handle_exists)
        ),
    )
}

/// Whether `word`, given where an agent is named, is a bare word: neither
/// a member ref (`@…`) nor an agent id (`ag_…`), so perhaps a handle
/// written without its `@` (the store then asks whether `@word` exists).
pub fn bare_word(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('@')
        && !word.starts_with(crate::ids::IdKind::Agent.prefix())
}

/// An agent ref as the operator typed it, repeated: shown when it is the
/// handle of an agent (`handle_exists`), else with a word that could be a
/// token hidden (a handle, of one case, shows either way).
fn echo_ref(word: &str, handle_exists: bool) -> String {
    let shown = if handle_exists {
        word.to_string()
    } else {
        crate::redact::tokens(word)
    };
    text::clip(&shown, text::ECHO_LIMIT).into_owned()
}

/// For a bare word (see [`bare_word`]): write `@word` when that agent
/// exists, else how agents are named and where they are listed. Empty for
/// a member ref or an id.
fn handle_hint(word: &str, handle_exists: bool) -> String {
    if !bare_word(word) {
        String::new()
    } else if handle_exists {
        format!(
            " Its member ref is `@{}`: write the `@`.",
            echo_ref(word, true)
        )
    } else {
        " An agent is `@handle` or an agent id (`ag_…`); `agent list --workspace …` lists them."
            .to_string()
    }
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

/// A member is `@handle` or an agent id (`ag_…`); a bare word that is
/// neither was most likely a handle without its `@` (`handle_exists`: as
/// for [`no_such_agent`]).
/// Every member of `members` that names no agent, each with whether
/// `@word` exists (see `handle_hint`), said at once, so one retry fixes
/// them all; when each is only a handle without its `@`, the whole
/// corrected value too.
pub fn no_such_members(members: &[String], missing: &[(String, bool)]) -> Failure {
    let said: Vec<String> = missing
        .iter()
        .map(|(member, exists)| {
            format!(
                "No agent `{}` in the workspace.{}",
                echo_ref(member, *exists),
                handle_hint(member, *exists)
            )
        })
        .collect();
    let mut message = said.join(" ");
    let only_the_at = missing.len() > 1
        && missing
            .iter()
            .all(|(member, exists)| *exists && bare_word(member));
    if only_the_at {
        let fixed: Vec<String> = members
            .iter()
            .map(|m| {
                if missing.iter().any(|(w, _)| w == m) {
                    format!("@{m}")
                } else {
                    m.clone()
                }
            })
            .collect();
        message.push_str(&format!(
            " Together: `--members {}`.",
            // Whole enough to paste: handles are short, a board's members few.
            text::clip(&fixed.join(","), 16 * text::ECHO_LIMIT)
        ));
    }
    admin("members", &message)
}

pub fn no_such_callback_effect() -> Failure {
    admin(
        "callback_effect",
        "No such callback effect in the workspace.",
    )
}

/// What `task_set_claim` does to one live task, given who holds it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim<'a> {
    /// Make the caller the assignee (record `claimed`).
    Take,
    /// Clear the caller's assignment (record `released`).
    Release,
    /// Already in the desired state: counted, nothing written.
    AlreadySo,
    /// Held by someone else, agent `holder` (an id): a per-task failure.
    Refuse { holder: &'a str },
}

/// The desired state `claimed` for a task whose assignee is `holder`
/// (an agent id), asked by agent `caller`.
pub fn claim<'a>(claimed: bool, holder: Option<&'a str>, caller: &str) -> Claim<'a> {
    match (claimed, holder) {
        (true, None) => Claim::Take,
        (false, Some(h)) if h == caller => Claim::Release,
        (true, Some(h)) if h == caller => Claim::AlreadySo,
        (false, None) => Claim::AlreadySo,
        (_, Some(holder)) => Claim::Refuse { holder },
    }
}

/// The per-task failure of a refused claim or release; `holder` is the
/// handle of the agent that holds the task.
pub fn claim_failure(claimed: bool, number: i64, holder: &str) -> Value {
    if claimed {
        json!({"number": number, "code": code::TASK_CLAIMED_BY_OTHER.code,
            "message": format!("Task #{number} is held by @{holder}; a claim never takes a task from its holder: leave it, or ask @{holder} to release it.")})
    } else {
        json!({"number": number, "code": code::NOT_ASSIGNEE.code,
            "message": format!("Task #{number} is held by @{holder}, not by this agent; only its holder releases it: nothing to do.")})
    }
}

/// A task `task_set_claim` left in the requested state, with the
/// `updated_at` it has now, so a guarded `task_update` needs no read first.
pub fn claimed_task(number: i64, updated_at: i64) -> Value {
    json!({"number": number, "updated_at": crate::runtime::clock::format(updated_at)})
}

/// The `task_set_claim` answer: `tasks` in the requested state (in request
/// order), `failures` for the rest.
pub fn claim_result(claimed: bool, tasks: Vec<Value>, mut failures: Vec<Value>) -> Value {
    said_once(&mut failures);
    json!({"claimed": claimed, "updated_count": tasks.len(), "tasks": tasks, "failures": failures})
}

/// The numbers of a failure's candidates, in order of number: the same
/// tasks ranked otherwise are the same list.
fn numbers_of(failure: &Value) -> Option<Vec<i64>> {
    let mut numbers: Vec<i64> = failure
        .get("candidates")?
        .as_array()?
        .iter()
        .filter_map(|candidate| candidate["number"].as_i64())
        .collect();
    numbers.sort_unstable();
    Some(numbers)
}

/// Candidates that one failure of a claim lists are not listed again by
/// the next ones (several numbers missing from a small board have the
/// same nearest tasks): each later one names the failure that has them.
fn said_once(failures: &mut [Value]) {
    for later in 1..failures.len() {
        let Some(candidates) = numbers_of(&failures[later]) else {
            continue;
        };
        let first = failures[..later]
            .iter()
            .find(|earlier| numbers_of(earlier).as_ref() == Some(&candidates))
            .and_then(|earlier| earlier["number"].as_i64());
        if let Some(first) = first
            && let Some(failure) = failures[later].as_object_mut()
        {
            failure.remove("candidates");
            let number = &failure["number"];
            failure["message"] = json!(format!(
                "No live task #{number} on this board; its candidates are #{first}'s."
            ));
        }
    }
}

/// The per-task failure of a claim of a task that is not live on the board:
/// a deleted one said to be deleted, as `task_deleted` does; any other with
/// `nearby`, the board's live tasks nearest to `number` (as
/// `task_not_found`'s), as its candidates, each a number and its title.
pub fn claim_not_found(number: i64, deleted: bool, nearby: &[(i64, String)]) -> Value {
    let message = match (deleted, nearby.is_empty()) {
        (true, _) => format!("Task #{number} was deleted; it cannot be claimed or released."),
        (false, true) => {
            format!("No live task #{number} on this board; the board has no live task.")
        }
        (false, false) => {
            format!("No live task #{number} on this board; candidates are the board's nearest.")
        }
    };
    let mut failure =
        json!({"number": number, "code": code::TASK_NOT_FOUND.code, "message": message});
    if !deleted && !nearby.is_empty() {
        failure["candidates"] = nearby
            .iter()
            .take(crate::error::MAX_TASK_CANDIDATES)
            .map(|(number, title)| json!({"number": number, "title": crate::error::candidate_title(title)}))
            .collect();
    }
    failure
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Several numbers missing from one board: their shared candidates
    /// are listed once, and the others name the failure that lists them.
    #[test]
    fn a_claims_shared_candidates_are_listed_once() {
        let nearby = [(5, "write docs".to_string()), (4, "fix login".to_string())];
        let failures = vec![
            claim_not_found(97, false, &nearby),
            claim_not_found(98, false, &nearby),
            claim_not_found(99, false, &nearby[..1]),
            claim_not_found(96, false, &[nearby[1].clone(), nearby[0].clone()]),
            claim_not_found(3, true, &[]),
        ];
        let result = claim_result(true, Vec::new(), failures);
        let failures = result["failures"].as_array().unwrap();
        assert_eq!(failures[0]["candidates"].as_array().unwrap().len(), 2);
        assert!(failures[1].get("candidates").is_none(), "{result}");
        assert_eq!(
            failures[1]["message"],
            "No live task #98 on this board; its candidates are #97's."
        );
        // Others of their own keep them.
        assert_eq!(failures[2]["candidates"].as_array().unwrap().len(), 1);
        // The same tasks ranked otherwise are the same list.
        assert!(failures[3].get("candidates").is_none(), "{result}");
        assert_eq!(failures[4]["code"], "task_not_found");
        assert!(failures[4]["message"].as_str().unwrap().contains("deleted"));
    }

    #[test]
    fn a_mistyped_number_ranks_its_slips_first() {
        let slips = number_slips(150);
        for n in [15, 10, 50, 105, 510, 151, 1500] {
            assert!(slips.contains(&n), "{n}");
        }
        assert!(!slips.contains(&150) && !slips.contains(&0));
        let tasks = (12..=23).map(|n| (n, format!("t{n}"))).collect();
        let ranked: Vec<i64> = nearest_tasks(150, tasks).iter().map(|t| t.0).collect();
        assert_eq!(ranked[0], 15, "{ranked:?}");
        assert_eq!(ranked.len(), crate::error::MAX_TASK_CANDIDATES);
        // Past the board's last task: the slips, with its last task second.
        let tasks = (1..=55).map(|n| (n, format!("t{n}"))).collect();
        let ranked: Vec<i64> = nearest_tasks(60, tasks).iter().map(|t| t.0).collect();
        assert_eq!(ranked, [50, 55, 40], "{ranked:?}");
        // A nearest that the slips rank high stays where it is.
        let tasks = (1..=12).map(|n| (n, format!("t{n}"))).collect();
        let ranked: Vec<i64> = nearest_tasks(13, tasks).iter().map(|t| t.0).collect();
        assert_eq!(ranked, [12, 11, 10], "{ranked:?}");
    }

    #[test]
    fn nearest_ranks_by_edit_distance_then_name_and_keeps_ten() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            nearest("Eng", names(&["ops", "eng", "design", "engine"])),
            ["eng", "engine", "ops", "design"]
        );
        let many: Vec<String> = (0..30).map(|i| format!("b{i:02}")).collect();
        assert_eq!(nearest("b", many).len(), MAX_CANDIDATES);
        assert!(is_typo_of("enng", "eng") && is_typo_of("alicee", "alice"));
        assert!(!is_typo_of("zzz", "eng") && !is_typo_of("bxx", "bob"));
        // Two neighbours swapped are one slip.
        assert!(is_typo_of("dmeo", "demo") && is_typo_of("bbo", "bob"));
    }

    #[test]
    fn a_missing_task_promises_candidates_only_when_there_are_some() {
        let none = task_not_found("eng", 2, &[], &[]);
        assert!(none.candidate_list().is_empty());
        assert!(
            none.message.contains("the board has no live task"),
            "{}",
            none.message
        );
        let some = task_not_found("eng", 2, &[], &[(3, "three".to_string())]);
        assert_eq!(some.candidate_list().len(), 1);
        assert!(some.message.contains("candidates are"), "{}", some.message);
        // The same number on another board comes first, as a board.
        let elsewhere = [("ops".to_string(), "two on ops".to_string())];
        let both = task_not_found("eng", 2, &elsewhere, &[(1, "one".to_string())]);
        let listed = both.candidate_list();
        assert_eq!(
            (listed[0].field.as_str(), &listed[0].value),
            ("channel", &json!("ops"))
        );
        assert_eq!(listed[0].title.as_deref(), Some("two on ops"));
        assert_eq!(
            (listed[1].field.as_str(), &listed[1].value),
            ("number", &json!(1))
        );
        assert!(
            both.message.contains("other boards with a live #2"),
            "{}",
            both.message
        );
        // Titled candidates are few in all, the other boards' first.
        let boards: Vec<(String, String)> = ["ops", "qa", "web", "ios"]
            .map(|b| (b.to_string(), format!("two on {b}")))
            .to_vec();
        let near: Vec<(i64, String)> = (3..8).map(|n| (n, format!("t{n}"))).collect();
        let failure = task_not_found("eng", 2, &boards[..2], &near);
        let capped = failure.candidate_list();
        assert_eq!(capped.len(), crate::error::MAX_TASK_CANDIDATES);
        assert_eq!(capped[2].value, json!(3));
        let failure = parent_not_found("eng", 2, "parent", &boards, &near);
        let capped = failure.candidate_list();
        assert!(capped.iter().all(|c| c.field == "channel"), "{capped:?}");
        assert_eq!(capped.len(), crate::error::MAX_TASK_CANDIDATES);
        let parent = parent_not_found("eng", 2, "parent", &[], &[]);
        assert!(!parent.message.contains("candidates"), "{}", parent.message);
    }
}
