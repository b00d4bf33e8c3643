//! The task operations of §13.2 on SQLite (docs/contract.md): each runs on
//! one connection inside the transaction its caller opened (a read
//! snapshot, or the writer's savepoint), and is all or nothing.

use std::collections::HashSet;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::{Value, json};

use super::super::columns::{self, Column};
use super::super::cursor::Key;
use super::super::refusals::{self, Claim};
use super::super::search;
use super::super::*;
use super::connections::Cached;
use crate::error::Failure;
use crate::registry::task::fields::ACTIVE_STATUSES;
use crate::registry::task::get::{MAX_CHECKPOINTS, MAX_SUBTASKS};
use crate::runtime::{auth, clock};

/// The columns [`task_row`] reads, in order (`columns::task_row!`), then
/// the task's id, and the joins they need (`t` the task, `c` its board,
/// `a` its assignee, `p` its parent, `cb` its creator).
macro_rules! task_columns {
    () => {
        concat!(
            $crate::runtime::store::columns::task_row!(select("t", "c", "a", "p", "cb")),
            ", t.id"
        )
    };
}
macro_rules! task_from {
    () => {
        "FROM tasks t JOIN channels c ON c.id = t.channel_id \
         JOIN agents cb ON cb.id = t.created_by \
         LEFT JOIN agents a ON a.id = t.assignee_id \
         LEFT JOIN tasks p ON p.id = t.parent_id"
    };
}
const TASK_SELECT: &str = concat!("SELECT ", task_columns!(), " ", task_from!());
/// How many columns `task_columns!` has (the row's, then the task's id); a
/// list query's score follows them.
const TASK_COLUMNS: usize = columns::COUNT + 1;

fn from_json<T: for<'de> serde::Deserialize<'de> + Default>(text: String) -> T {
    serde_json::from_str(&text).unwrap_or_default()
}

fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "[]".into())
}

fn task_row(r: &Row<'_>) -> rusqlite::Result<TaskRow> {
    let at = |column: Column| column as usize;
    Ok(TaskRow {
        number: r.get(at(Column::Number))?,
        channel: r.get(at(Column::Board))?,
        scope_id: r.get(at(Column::ScopeId))?,
        title: r.get(at(Column::Title))?,
        description: r.get(at(Column::Description))?,
        status: r.get(at(Column::Status))?,
        priority: r.get(at(Column::Priority))?,
        assignee: r.get(at(Column::Assignee))?,
        parent_number: r.get(at(Column::ParentNumber))?,
        labels: from_json(r.get(at(Column::Labels))?),
        checklist: from_json(r.get(at(Column::Checklist))?),
        urls: from_json(r.get(at(Column::Urls))?),
        attachments: from_json(r.get(at(Column::Attachments))?),
        blocker: r.get(at(Column::Blocker))?,
        source_target: r.get(at(Column::SourceTarget))?,
        created_by: r.get(at(Column::CreatedBy))?,
        created_at: r.get(at(Column::CreatedAt))?,
        updated_at: r.get(at(Column::UpdatedAt))?,
    })
}

fn load_task(c: &Connection, id: i64) -> Result<TaskRow, Failure> {
    Ok(c.row_cached(&format!("{TASK_SELECT} WHERE t.id = ?1"), [id], task_row)?)
}

struct Board {
    id: i64,
    name: String,
}

/// The board `name` in the caller's workspace, if the caller may use it.
fn board(c: &Connection, p: &Principal, name: &str) -> Result<Board, Failure> {
    let found: Option<(i64, bool)> = c
        .row_cached(
            "SELECT id, private FROM channels WHERE workspace_id = ?1 AND name = ?2",
            params![p.workspace_id, name],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    // A private board answers a non-member exactly as a missing one does.
    let Some((id, _)) = found.filter(|&(id, private)| may_use(c, p, id, private).unwrap_or(false))
    else {
        return Err(refusals::channel_not_found(name, usable_boards(c, p)?));
    };
    Ok(Board {
        id,
        name: name.to_string(),
    })
}

/// The boards of the workspace this agent may use (public, or a member):
/// the candidates of a lookup failure, read on the failure path only.
pub(super) fn usable_boards(c: &Connection, p: &Principal) -> Result<Vec<String>, Failure> {
    let mut stmt = c.prepare_cached(
        "SELECT name FROM channels c WHERE workspace_id = ?1 AND (NOT private OR EXISTS \
         (SELECT 1 FROM channel_members m WHERE m.channel_id = c.id AND m.agent_id = ?2)) \
         ORDER BY name",
    )?;
    let rows = stmt.query_map(params![p.workspace_id, p.agent_id], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// [`Store::board_labels`](super::super::Store::board_labels): read on an
/// empty page's path only.
pub(super) fn board_labels(
    c: &Connection,
    p: &Principal,
    name: &str,
) -> Result<Vec<String>, Failure> {
    let board = board(c, p, name)?;
    let mut stmt = c.prepare_cached(
        "SELECT j.value FROM tasks t, json_each(t.labels) j \
         WHERE t.channel_id = ?1 AND t.deleted_at IS NULL \
         GROUP BY j.value ORDER BY min(t.id), j.value LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![board.id, MAX_BOARD_LABELS as i64], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The handles of the workspace's agents, for an unknown member's candidates.
fn handles(c: &Connection, workspace_id: &str) -> Result<Vec<String>, Failure> {
    let mut stmt = c.prepare_cached("SELECT handle FROM agents WHERE workspace_id = ?1")?;
    let rows = stmt.query_map([workspace_id], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The live tasks of the board a mistyped `number` may have meant
/// (number, title): its one-slip variants and the numerically nearest,
/// ranked by [`refusals::nearest_tasks`].
fn nearby_tasks(c: &Connection, board: &Board, number: i64) -> Result<Vec<(i64, String)>, Failure> {
    let mut stmt = c.prepare_cached(
        "SELECT number, title FROM tasks WHERE channel_id = ?1 AND deleted_at IS NULL \
           AND number IN (SELECT value FROM json_each(?4)) \
         UNION \
         SELECT * FROM (SELECT number, title FROM tasks \
           WHERE channel_id = ?1 AND deleted_at IS NULL \
           ORDER BY abs(number - ?2), number LIMIT ?3)",
    )?;
    let slips = serde_json::to_string(&refusals::number_slips(number)).expect("numbers serialise");
    let rows = stmt.query_map(
        params![
            board.id,
            number,
            crate::error::MAX_TASK_CANDIDATES as i64,
            slips
        ],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let tasks = rows.collect::<rusqlite::Result<_>>()?;
    Ok(refusals::nearest_tasks(number, tasks))
}

/// Whether the caller may use the board: it is public, or a member.
fn may_use(c: &Connection, p: &Principal, channel_id: i64, private: bool) -> Result<bool, Failure> {
    if !private {
        return Ok(true);
    }
    Ok(c.row_cached(
        "SELECT EXISTS (SELECT 1 FROM channel_members WHERE channel_id = ?1 AND agent_id = ?2)",
        params![channel_id, p.agent_id],
        |r| r.get(0),
    )?)
}

/// The live task `number` on the board: (id, assignee id, creator id).
fn live_task(
    c: &Connection,
    board: &Board,
    number: i64,
) -> Result<Option<(i64, Option<String>, String)>, Failure> {
    Ok(c.row_cached(
        "SELECT id, assignee_id, created_by FROM tasks \
         WHERE channel_id = ?1 AND number = ?2 AND deleted_at IS NULL",
        params![board.id, number],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .optional()?)
}

/// `task_not_found`: a deleted task said to be deleted, any other with the
/// other boards' live tasks of that number and the board's nearest live
/// tasks as candidates.
fn task_not_found(c: &Connection, p: &Principal, board: &Board, number: i64) -> Failure {
    match was_deleted(c, board, number) {
        Ok(true) => return refusals::task_deleted(&board.name, number),
        Ok(false) => {}
        Err(failure) => return failure,
    }
    let found = same_number_elsewhere(c, p, board, number)
        .and_then(|elsewhere| Ok((elsewhere, nearby_tasks(c, board, number)?)));
    match found {
        Ok((elsewhere, nearby)) => {
            refusals::task_not_found(&board.name, number, &elsewhere, &nearby)
        }
        Err(failure) => failure,
    }
}

/// The other boards this agent may use with a live task `number`, by name:
/// (board, the task's title).
fn same_number_elsewhere(
    c: &Connection,
    p: &Principal,
    board: &Board,
    number: i64,
) -> Result<Vec<(String, String)>, Failure> {
    let mut stmt = c.prepare_cached(
        "SELECT c.name, t.title FROM channels c JOIN tasks t ON t.channel_id = c.id          WHERE c.workspace_id = ?1 AND c.id <> ?2 AND t.number = ?3 AND t.deleted_at IS NULL            AND (NOT c.private OR EXISTS (SELECT 1 FROM channel_members m              WHERE m.channel_id = c.id AND m.agent_id = ?4))          ORDER BY c.name LIMIT ?5",
    )?;
    let limit = crate::error::MAX_TASK_CANDIDATES as i64;
    let rows = stmt.query_map(
        params![p.workspace_id, board.id, number, p.agent_id, limit],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `parent_not_found` for `field`: a deleted parent said to be deleted, any
/// other with the board's nearest live tasks as candidates.
/// `placing`: the caller, where the input's board is where a new subtask
/// goes or a list looks, so other boards with a live `number` are offered
/// first; `None` for an update, whose board names the task to change.
fn parent_not_found(
    c: &Connection,
    placing: Option<&Principal>,
    board: &Board,
    number: i64,
    field: &str,
) -> Failure {
    match was_deleted(c, board, number) {
        Ok(true) => return refusals::parent_deleted(&board.name, number, field),
        Ok(false) => {}
        Err(failure) => return failure,
    }
    let found = placing
        .map_or(Ok(Vec::new()), |p| {
            same_number_elsewhere(c, p, board, number)
        })
        .and_then(|elsewhere| Ok((elsewhere, nearby_tasks(c, board, number)?)));
    match found {
        Ok((elsewhere, nearby)) => {
            refusals::parent_not_found(&board.name, number, field, &elsewhere, &nearby)
        }
        Err(failure) => failure,
    }
}

/// Whether task `number` of the board existed and was deleted.
fn was_deleted(c: &Connection, board: &Board, number: i64) -> Result<bool, Failure> {
    Ok(c.row_cached(
        "SELECT EXISTS (SELECT 1 FROM tasks \
         WHERE channel_id = ?1 AND number = ?2 AND deleted_at IS NOT NULL)",
        params![board.id, number],
        |r| r.get::<_, bool>(0),
    )?)
}

fn require_task(c: &Connection, p: &Principal, board: &Board, number: i64) -> Result<i64, Failure> {
    match live_task(c, board, number)? {
        Some((id, _, _)) => Ok(id),
        None => Err(task_not_found(c, p, board, number)),
    }
}

/// The agent a member ref names in the workspace.
fn agent_by_ref(
    c: &Connection,
    workspace_id: &str,
    member_ref: &str,
) -> Result<Option<String>, Failure> {
    Ok(c.row_cached(
        "SELECT id FROM agents WHERE workspace_id = ?1 AND handle = ?2",
        params![workspace_id, handle_of(member_ref)],
        |r| r.get(0),
    )
    .optional()?)
}

/// The agent `member_ref` names, to be the assignee of a task on `board`
/// (`None`: a list's filter, on no board): a member of the board if it is
/// private, since no one else could read or release the task.
fn assignee_id(
    c: &Connection,
    p: &Principal,
    board: Option<&Board>,
    member_ref: &str,
    field: &str,
) -> Result<String, Failure> {
    // The members of a private board (none for a public one): the only
    // agents a task there may go to, so the candidates of a miss.
    let members = |board: &Board| -> Result<Vec<String>, Failure> {
        let mut stmt = c.prepare_cached(
            "SELECT a.handle FROM channel_members m JOIN agents a ON a.id = m.agent_id \
             JOIN channels c ON c.id = m.channel_id WHERE m.channel_id = ?1 AND c.private",
        )?;
        let members = stmt.query_map([board.id], |r| r.get(0))?;
        Ok(members.collect::<rusqlite::Result<_>>()?)
    };
    let Some(id) = agent_by_ref(c, &p.workspace_id, member_ref)? else {
        let members = board.map(members).transpose()?.unwrap_or_default();
        let handles = if members.is_empty() {
            handles(c, &p.workspace_id)?
        } else {
            members
        };
        return Err(refusals::assignee_not_found(
            member_ref, field, &p.handle, handles,
        ));
    };
    let Some(board) = board else {
        return Ok(id);
    };
    let may_use: bool = c.row_cached(
        "SELECT NOT c.private OR EXISTS (SELECT 1 FROM channel_members m \
           WHERE m.channel_id = c.id AND m.agent_id = ?2) FROM channels c WHERE c.id = ?1",
        params![board.id, id],
        |r| r.get(0),
    )?;
    if may_use {
        return Ok(id);
    }
    Err(refusals::assignee_not_a_member(
        member_ref,
        field,
        &board.name,
        members(board)?,
    ))
}

/// Moves the task's `updated_at` to `now`, the mutation's one time, or
/// strictly past its previous value if that is not earlier (a clock that
/// stood still or went back); returns the new value.
fn touch(c: &Connection, task_id: i64, now: i64) -> Result<i64, Failure> {
    let previous: i64 = c.row_cached(
        "SELECT updated_at FROM tasks WHERE id = ?1",
        [task_id],
        |r| r.get(0),
    )?;
    let at = clock::after(previous, now);
    c.exec_cached(
        "UPDATE tasks SET updated_at = ?1 WHERE id = ?2",
        params![at, task_id],
    )?;
    Ok(at)
}

/// Records the activity `kind` of the task at `at`, its mutation's time.
fn event(
    c: &Connection,
    task_id: i64,
    kind: &str,
    p: &Principal,
    at: i64,
    detail: Value,
) -> Result<(), Failure> {
    c.exec_cached(
        "INSERT INTO task_events (task_id, kind, actor_id, at, detail) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![task_id, kind, p.agent_id, at, detail.to_string()],
    )?;
    Ok(())
}

fn live_children(c: &Connection, task_id: i64) -> Result<Vec<(i64, i64, String)>, Failure> {
    let mut stmt = c.prepare_cached(
        "SELECT id, number, created_by FROM tasks \
         WHERE parent_id = ?1 AND deleted_at IS NULL ORDER BY number",
    )?;
    let rows = stmt.query_map([task_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Turns free text into an FTS5 query that cannot be a syntax error: every
/// query word (`search::query_words`) must match (AND), as a quoted prefix term
/// or, when it has a stem, as that stem whole.
fn fts_query(text: &str) -> Option<String> {
    let terms: Vec<String> = search::query_words(text)
        .into_iter()
        .map(|w| match w.stem {
            Some(stem) => format!("(\"{}\"* OR \"{stem}\")", w.prefix),
            None => format!("\"{}\"*", w.prefix),
        })
        .collect();
    (!terms.is_empty()).then(|| terms.join(" AND "))
}

/// A hit's relevance (`search::TITLE_WEIGHT`) over `task_fts`' columns,
/// which hold each text's terms separated by spaces: a query word matches
/// a column holding ` PREFIX…` or ` STEM `, as its FTS query does.
fn relevance_sql(search: &str, arg: &mut impl FnMut(Sql) -> String) -> String {
    let mut parts = Vec::new();
    for word in search::query_words(search) {
        let prefix = arg(Sql::Text(format!(" {}", word.prefix)));
        let stem = word.stem.map(|stem| arg(Sql::Text(format!(" {stem} "))));
        let matches = |column: &str| {
            let column = format!("coalesce({column}, '')");
            match &stem {
                Some(stem) => format!(
                    "(instr(' ' || {column}, {prefix}) > 0 OR instr(' ' || {column} || ' ', {stem}) > 0)"
                ),
                None => format!("(instr(' ' || {column}, {prefix}) > 0)"),
            }
        };
        parts.push(format!(
            "{} * {} + {} * {}",
            search::TITLE_WEIGHT,
            matches("title"),
            search::DESCRIPTION_WEIGHT,
            matches("description")
        ));
    }
    format!("-1.0 * ({})", parts.join(" + "))
}

/// Puts task `id`'s words and stems (`search::index_text`) in the search
/// index, replacing what it held for the task.
pub(super) fn index_search(
    c: &Connection,
    id: i64,
    title: &str,
    description: Option<&str>,
) -> Result<(), Failure> {
    c.exec_cached(
        "INSERT OR REPLACE INTO task_fts (rowid, title, description) VALUES (?1, ?2, ?3)",
        params![
            id,
            search::index_text(title),
            search::index_text(description.unwrap_or_default())
        ],
    )?;
    Ok(())
}

/// Recomputes the search terms of every stored task (a migration step,
/// inside the migration's transaction). Returns how many tasks it read.
pub(super) fn reindex_search(c: &Connection) -> Result<u64, Failure> {
    let (mut after, mut done) = (0, 0);
    while let Some((last, n)) = reindex_search_batch(c, after)? {
        (after, done) = (last, done + n);
    }
    Ok(done)
}

/// Recomputes the search terms of the next batch of tasks after id
/// `after`, in id order: the last id and how many, `None` when no task is
/// left. `agentteam-runtime reindex` runs a batch per transaction, so that
/// writers wait for one batch at most.
pub(super) fn reindex_search_batch(
    c: &Connection,
    after: i64,
) -> Result<Option<(i64, u64)>, Failure> {
    const BATCH: i64 = 1000;
    let mut stmt = c.prepare_cached(
        "SELECT id, title, description FROM tasks WHERE id > ?1 ORDER BY id LIMIT ?2",
    )?;
    let mut rows = stmt.query(params![after, BATCH])?;
    let (mut last, mut done) = (None, 0);
    while let Some(row) = rows.next()? {
        let (id, description): (i64, Option<String>) = (row.get(0)?, row.get(2)?);
        index_search(c, id, &row.get::<_, String>(1)?, description.as_deref())?;
        (last, done) = (Some(id), done + 1);
    }
    Ok(last.map(|last| (last, done)))
}

// ---------------------------------------------------------------- create

/// Where a create lands: the board and the parent task (if any).
struct Placement {
    board: Board,
    parent_id: Option<i64>,
}

fn place(c: &Connection, p: &Principal, input: &CreateInput) -> Result<Placement, Failure> {
    if let Some(scope) = &input.parent_task_scope {
        type Found = (i64, i64, String, bool, i64, String, bool);
        let found: Option<Found> = c
            .row_cached(
                "SELECT t.id, c.id, c.name, c.private, t.number, t.status, \
                 t.deleted_at IS NOT NULL \
                 FROM tasks t JOIN channels c ON c.id = t.channel_id \
                 WHERE t.scope_id = ?1 AND c.workspace_id = ?2",
                params![scope.scope_id, p.workspace_id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                    ))
                },
            )
            .optional()?;
        // Unknown, other-workspace scopes and those on a private board the
        // caller is not a member of are indistinguishable; a deleted one on
        // a board it may use is said to be deleted.
        let mut usable = None;
        if let Some((_, channel_id, _, private, ..)) = &found {
            usable = Some(may_use(c, p, *channel_id, *private)?);
        }
        let Some((task_id, channel_id, name, _, number, status, deleted)) =
            found.filter(|_| usable == Some(true))
        else {
            return Err(refusals::task_scope_not_found(
                &scope.scope_id,
                usable_boards(c, p)?,
            ));
        };
        if deleted {
            return Err(refusals::task_scope_deleted(&name, number));
        }
        if !ACTIVE_STATUSES.contains(&status.as_str()) {
            return Err(refusals::task_scope_closed(&name, number, &status));
        }
        return Ok(Placement {
            board: Board {
                id: channel_id,
                name,
            },
            parent_id: Some(task_id),
        });
    }
    let Some(channel) = &input.channel else {
        return Err(refusals::no_locator());
    };
    let board = board(c, p, channel)?;
    let parent_id = match input.parent {
        None => None,
        Some(number) => Some(live_parent(c, Some(p), &board, number)?),
    };
    Ok(Placement { board, parent_id })
}

/// The idempotency receipt's identity, once the callback context checks out.
struct ReceiptKey {
    run_id: String,
    effect_id: String,
    key: String,
    callback_completed: bool,
}

/// Revalidates the responder against the callback it claims to answer.
fn receipt_key(
    c: &Connection,
    p: &Principal,
    workflow: &WorkflowContext,
    key: &str,
) -> Result<ReceiptKey, Failure> {
    let (Some(run_id), Some(effect_id)) = (&workflow.workflow_run_id, &workflow.callback_effect_id)
    else {
        return Err(refusals::no_workflow_context());
    };
    let found: Option<(String, String, String, Option<i64>)> = c
        .row_cached(
            "SELECT run_id, workspace_id, agent_id, completed_at FROM callbacks WHERE effect_id = ?1",
            [effect_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    match found {
        Some((run, ws, agent, completed_at))
            if run == *run_id && ws == p.workspace_id && agent == p.agent_id =>
        {
            Ok(ReceiptKey {
                run_id: run,
                effect_id: effect_id.clone(),
                key: key.to_string(),
                callback_completed: completed_at.is_some(),
            })
        }
        _ => Err(refusals::no_such_callback()),
    }
}

pub(super) fn create_tasks(
    c: &Connection,
    p: &Principal,
    input: &CreateInput,
    workflow: &WorkflowContext,
) -> Result<Value, Failure> {
    let receipt = match &input.idempotency_key {
        Some(key) => Some(receipt_key(c, p, workflow, key)?),
        None => None,
    };
    if let Some(r) = &receipt {
        let stored: Option<(String, String)> = c
            .row_cached(
                "SELECT digest, task_ids FROM idempotency_receipts WHERE workspace_id = ?1 \
                 AND agent_id = ?2 AND run_id = ?3 AND effect_id = ?4 AND key = ?5",
                params![p.workspace_id, p.agent_id, r.run_id, r.effect_id, r.key],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        if let Some((digest, ids)) = stored {
            let ids: Vec<i64> = from_json(ids);
            if digest != input.payload_digest {
                // The ones still live: a deleted task takes no update.
                let mut made = Vec::with_capacity(ids.len());
                for id in &ids {
                    made.extend(
                        c.row_cached(
                            "SELECT number FROM tasks WHERE id = ?1 AND deleted_at IS NULL",
                            [id],
                            |r| r.get::<_, i64>(0),
                        )
                        .optional()?,
                    );
                }
                return Err(refusals::idempotency_conflict(r.callback_completed, &made));
            }
            // Replay: the original tasks as they are now; nothing allocated or recorded.
            let tasks = ids
                .iter()
                .map(|id| load_task(c, *id).map(|t| t.compact()))
                .collect::<Result<Vec<_>, _>>()?;
            let mut deleted = Vec::new();
            for id in &ids {
                let number: Option<i64> = c
                    .row_cached(
                        "SELECT number FROM tasks WHERE id = ?1 AND deleted_at IS NOT NULL",
                        [id],
                        |r| r.get(0),
                    )
                    .optional()?;
                deleted.extend(number);
            }
            return Ok(replayed(tasks, deleted));
        }
        if r.callback_completed {
            return Err(refusals::callback_completed());
        }
    }

    let placement = place(c, p, input)?;
    if let Some(target) = &input.target
        && target_channel(target) != placement.board.name
    {
        return Err(refusals::target_conflict(target, &placement.board.name));
    }
    let mut assignees = Vec::with_capacity(input.tasks.len());
    for (i, task) in input.tasks.iter().enumerate() {
        assignees.push(match &task.assignee {
            Some(r) => Some(assignee_id(
                c,
                p,
                Some(&placement.board),
                r,
                &format!("tasks/{i}/assignee"),
            )?),
            None => None,
        });
    }

    let first: i64 = c.row_cached(
        "SELECT next_number FROM channels WHERE id = ?1",
        [placement.board.id],
        |r| r.get(0),
    )?;
    let count = i64::try_from(input.tasks.len()).unwrap_or(i64::MAX);
    c.exec_cached(
        "UPDATE channels SET next_number = next_number + ?1 WHERE id = ?2",
        params![count, placement.board.id],
    )?;
    let now = clock::now();
    let mut ids = Vec::with_capacity(input.tasks.len());
    let mut insert = c.prepare_cached(
        "INSERT INTO tasks (channel_id, number, scope_id, title, description, status, priority, \
         assignee_id, parent_id, labels, checklist, urls, attachments, blocker, source_target, \
         created_by, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?17)",
    )?;
    for (i, (task, assignee)) in input.tasks.iter().zip(assignees).enumerate() {
        let number = first + i as i64;
        insert.execute(params![
            placement.board.id,
            number,
            auth::new_scope_id()?,
            task.title,
            task.description,
            task.status.as_deref().unwrap_or("todo"),
            task.priority.as_deref().unwrap_or("none"),
            assignee,
            placement.parent_id,
            to_json(task.labels.as_deref().unwrap_or_default()),
            to_json(task.checklist.as_deref().unwrap_or_default()),
            to_json(task.urls.as_deref().unwrap_or_default()),
            to_json(task.attachments.as_deref().unwrap_or_default()),
            task.blocker,
            input.target,
            p.agent_id,
            now,
        ])?;
        let id = c.last_insert_rowid();
        index_search(c, id, &task.title, task.description.as_deref())?;
        event(c, id, "created", p, now, json!({"number": number}))?;
        ids.push(id);
    }
    if let Some(r) = &receipt {
        c.exec_cached(
            "INSERT INTO idempotency_receipts (workspace_id, agent_id, run_id, effect_id, key, \
             digest, task_ids, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                p.workspace_id,
                p.agent_id,
                r.run_id,
                r.effect_id,
                r.key,
                input.payload_digest,
                to_json(&ids),
                now
            ],
        )?;
    }
    let tasks = ids
        .iter()
        .map(|id| load_task(c, *id).map(|t| t.compact()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(created(tasks))
}

// ---------------------------------------------------------------- list

pub(super) fn list_tasks(c: &Connection, p: &Principal, q: &ListQuery) -> Result<Value, Failure> {
    let board = board(c, p, &q.channel)?;
    if let Some(parent) = q.parent
        && live_task(c, &board, parent)?.is_none()
    {
        return Err(parent_not_found(
            c,
            Some(p),
            &board,
            parent,
            "filters/parent",
        ));
    }
    // A member ref that names no one would answer an empty page that
    // misleads: refused as an update's would be, with the handles there are.
    if let Some(member_ref) = &q.assignee {
        assignee_id(c, p, None, member_ref, "filters/assignee")?;
    }
    q.cursor_holds()?;
    let Some((sql, args)) = list_sql(board.id, q) else {
        // Only punctuation: nothing can match.
        return Ok(json!({"items": []}));
    };
    let mut stmt = c.prepare_cached(&sql)?;
    let rows: Vec<(TaskRow, f64)> = stmt
        .query_map(rusqlite::params_from_iter(args.iter()), |r| {
            Ok((task_row(r)?, r.get::<_, f64>(TASK_COLUMNS)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(list_page(rows, q))
}

/// The query of one list page on board `board_id`: `q.limit + 1` rows (the
/// extra one tells whether a next page exists), or `None` when the search
/// text has no words. Browsing reads a board index in the page order
/// (`tasks_by_board_updated`, `tasks_by_board_created`, or the board's
/// unique number index) and stops at the limit; searching starts from the
/// FTS index. `plan_tests` checks both with EXPLAIN QUERY PLAN.
pub(super) fn list_sql(board_id: i64, q: &ListQuery) -> Option<(String, Vec<Sql>)> {
    let mut args: Vec<Sql> = Vec::new();
    let mut arg = |v: Sql| {
        args.push(v);
        format!("?{}", args.len())
    };
    let mut sql = String::new();
    if let Some(search) = &q.search {
        let fts = fts_query(search)?;
        // The FTS index finds the hits, each scored from the terms it
        // indexed (`search::TITLE_WEIGHT`): MATERIALIZED keeps the score
        // inside the FTS scan it belongs to.
        let matched = arg(Sql::Text(fts));
        let score = relevance_sql(search, &mut arg);
        sql.push_str(&format!(
            "WITH hits AS MATERIALIZED (SELECT rowid AS id, {score} AS score \
             FROM task_fts WHERE task_fts MATCH {matched}) "
        ));
    }
    let rows = q.rows_condition(board_id, |v| arg(Sql::Integer(v)));
    let mut conditions = vec![rows];
    conditions.extend(task_conditions(q, &mut arg));
    if let Some(after) = q.after {
        conditions.push(after.condition("hits.score", |key| {
            arg(match key {
                Key::Int(v) => Sql::Integer(v),
                Key::Real(v) => Sql::Real(v),
            })
        }));
    }
    let order = |score: &str| q.sort.order_by(score);
    let limit = arg(Sql::Integer(q.limit + 1));
    let conditions = conditions.join(" AND ");
    if q.search.is_some() {
        // Hits first, each finding its task by id: CROSS JOIN fixes that
        // order, so a search costs its hits (left to itself the planner
        // walks the whole board and probes the hits for each task). Only
        // the page's rows then join their channel, creator, assignee and
        // parent: every hit paid those four lookups before.
        let assignee = if q.assignee.is_some() {
            "LEFT JOIN agents a ON a.id = t.assignee_id "
        } else {
            ""
        };
        sql.push_str(&format!(
            ", page AS MATERIALIZED (SELECT t.id AS id, hits.score AS score \
             FROM hits CROSS JOIN tasks t ON t.id = hits.id {assignee}\
             WHERE {conditions} ORDER BY {} LIMIT {limit}) \
             SELECT {}, page.score {} ORDER BY {}",
            order("hits.score"),
            task_columns!(),
            task_from!().replacen(
                "FROM tasks t",
                "FROM page CROSS JOIN tasks t ON t.id = page.id",
                1
            ),
            order("page.score"),
        ));
    } else {
        sql.push_str(&format!(
            "SELECT {}, 0.0 {} WHERE {conditions} ORDER BY {} LIMIT {limit}",
            task_columns!(),
            task_from!(),
            order("0.0"),
        ));
    }
    Some((sql, args))
}

/// What a task of list `q` must be, its board, its search's hits and its
/// page aside: live, of its filters' status, member and labels.
fn task_conditions(q: &ListQuery, arg: &mut impl FnMut(Sql) -> String) -> Vec<String> {
    let mut conditions = vec!["t.deleted_at IS NULL".to_string()];
    if !q.include_subtasks {
        conditions.push("t.parent_id IS NULL".into());
    }
    if let Some(statuses) = q.view.statuses() {
        let list: Vec<String> = statuses
            .iter()
            .map(|s| arg(Sql::Text((*s).to_string())))
            .collect();
        conditions.push(format!("t.status IN ({})", list.join(", ")));
    }
    if let Some(member) = &q.assignee {
        let handle = arg(Sql::Text(handle_of(member).to_string()));
        conditions.push(format!("a.handle = {handle}"));
    }
    // `q.labels` are folded (ASCII lowercase); SQLite's `lower` folds ASCII
    // alone, as PostgreSQL's in the "C" collation does.
    for label in &q.labels {
        let label = arg(Sql::Text(label.clone()));
        conditions.push(format!(
            "EXISTS (SELECT 1 FROM json_each(t.labels) WHERE lower(json_each.value) = {label})"
        ));
    }
    conditions
}

/// [`Store::other_boards_with`](super::super::Store::other_boards_with):
/// one statement for every board, read on an empty search's path only.
pub(super) fn other_boards_with(
    c: &Connection,
    p: &Principal,
    q: &ListQuery,
) -> Result<Vec<String>, Failure> {
    let Some(fts) = q.search.as_deref().and_then(fts_query) else {
        return Ok(Vec::new());
    };
    let mut args = vec![
        Sql::Text(fts),
        Sql::Text(p.workspace_id.clone()),
        Sql::Text(p.agent_id.clone()),
        Sql::Text(q.channel.clone()),
    ];
    let mut arg = |v: Sql| {
        args.push(v);
        format!("?{}", args.len())
    };
    let conditions = task_conditions(q, &mut arg).join(" AND ");
    let sql = format!(
        "WITH hits AS MATERIALIZED (SELECT rowid AS id FROM task_fts WHERE task_fts MATCH ?1) \
         SELECT DISTINCT c.name FROM hits CROSS JOIN tasks t ON t.id = hits.id \
         JOIN channels c ON c.id = t.channel_id LEFT JOIN agents a ON a.id = t.assignee_id \
         WHERE c.workspace_id = ?2 AND c.name <> ?4 AND (NOT c.private OR EXISTS \
         (SELECT 1 FROM channel_members m WHERE m.channel_id = c.id AND m.agent_id = ?3)) \
         AND {conditions} ORDER BY c.name"
    );
    let mut stmt = c.prepare_cached(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(args.iter()), |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

// ---------------------------------------------------------------- get

pub(super) fn get_task(
    c: &Connection,
    p: &Principal,
    input: &TaskLocator,
) -> Result<Value, Failure> {
    let board = board(c, p, &input.channel)?;
    let id = require_task(c, p, &board, input.number)?;
    let task = load_task(c, id)?;
    let mut stmt = c.prepare_cached(&format!(
        "{TASK_SELECT} WHERE t.parent_id = ?1 AND t.deleted_at IS NULL ORDER BY t.number LIMIT ?2"
    ))?;
    let subtasks = stmt
        .query_map(params![id, MAX_SUBTASKS as i64], task_row)?
        .map(|r| r.map(|t| t.compact()))
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let subtask_total: i64 = c.row_cached(
        "SELECT count(*) FROM tasks WHERE parent_id = ?1 AND deleted_at IS NULL",
        [id],
        |r| r.get(0),
    )?;
    let before = input.checkpoints_before.unwrap_or(i64::MAX);
    let mut stmt = c.prepare_cached(
        "SELECT k.number, k.summary, a.handle, k.created_at FROM checkpoints k \
         JOIN agents a ON a.id = k.created_by WHERE k.task_id = ?1 AND k.number < ?3 \
         ORDER BY k.number DESC LIMIT ?2",
    )?;
    let checkpoints = stmt
        .query_map(params![id, MAX_CHECKPOINTS as i64, before], |r| {
            Ok(checkpoint_value(
                r.get(0)?,
                &r.get::<_, String>(1)?,
                &r.get::<_, String>(2)?,
                r.get(3)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let checkpoint_total: i64 = c.row_cached(
        "SELECT count(*) FROM checkpoints WHERE task_id = ?1 AND number < ?2",
        params![id, before],
        |r| r.get(0),
    )?;
    let detail = task.detail(
        Section {
            items: subtasks,
            total: subtask_total,
        },
        Section {
            items: checkpoints,
            total: checkpoint_total,
        },
    );
    let detail = fit_detail(detail, crate::registry::task::get::ACTION.budget.bytes());
    Ok(link_sections(detail, p, input))
}

// ---------------------------------------------------------------- update

pub(super) fn update_task(
    c: &Connection,
    p: &Principal,
    input: &UpdateInput,
) -> Result<Value, Failure> {
    let board = board(c, p, &input.channel)?;
    let id = require_task(c, p, &board, input.number)?;
    if input.expected_updated_at.is_some() {
        let current: i64 =
            c.row_cached("SELECT updated_at FROM tasks WHERE id = ?1", [id], |r| {
                r.get(0)
            })?;
        input.guard(&board.name, current)?;
    }
    let text = |s: Option<&str>| s.map_or(Sql::Null, |s| Sql::Text(s.to_string()));
    let mut sets: Vec<(Change, &str, Sql)> = Vec::new();
    for change in input.changes() {
        let (column, value) = match change {
            Change::Title(title) => ("title", Sql::Text(title.to_string())),
            Change::Description(description) => ("description", text(description)),
            Change::Status(status) => ("status", Sql::Text(status.to_string())),
            Change::Priority(priority) => ("priority", Sql::Text(priority.to_string())),
            Change::Assignee(assignee) => (
                "assignee_id",
                match assignee {
                    Some(r) => Sql::Text(assignee_id(c, p, Some(&board), r, "assignee")?),
                    None => Sql::Null,
                },
            ),
            Change::Labels(labels) => ("labels", Sql::Text(to_json(labels))),
            Change::Checklist(checklist) => ("checklist", Sql::Text(to_json(checklist))),
            Change::Urls(urls) => ("urls", Sql::Text(to_json(urls))),
            Change::Attachments(attachments) => ("attachments", Sql::Text(to_json(attachments))),
            Change::Blocker(blocker) => ("blocker", text(blocker)),
            Change::Parent(parent) => (
                "parent_id",
                match parent {
                    Some(number) => Sql::Integer(new_parent(c, &board, id, input.number, number)?),
                    None => Sql::Null,
                },
            ),
        };
        sets.push((change, column, value));
    }
    // Only the fields whose value differs are written: an update that
    // changes nothing leaves the task as it was (its updated_at too) and
    // records no event, as on PostgreSQL, so sending it again is harmless.
    let mut changed = Vec::new();
    for (change, column, value) in sets {
        // Column names come from the fixed list above, never from input.
        let written = c.exec_cached(
            &format!("UPDATE tasks SET {column} = ?1 WHERE id = ?2 AND {column} IS NOT ?1"),
            params![value, id],
        )?;
        if written > 0 {
            changed.push(change);
        }
    }
    if changed.is_empty() {
        return Ok(load_task(c, id)?.compact());
    }
    if changed
        .iter()
        .any(|change| matches!(change, Change::Title(_) | Change::Description(_)))
    {
        let (title, description): (String, Option<String>) = c.row_cached(
            "SELECT title, description FROM tasks WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        index_search(c, id, &title, description.as_deref())?;
    }
    let now = clock::now();
    touch(c, id, now)?;
    event(
        c,
        id,
        "updated",
        p,
        now,
        json!({"fields": changed.iter().map(|change| change.field().name()).collect::<Vec<_>>()}),
    )?;
    Ok(load_task(c, id)?.compact())
}

/// The id of live task `number` on `board`, to be a parent; `placing` as
/// for [`parent_not_found`].
fn live_parent(
    c: &Connection,
    placing: Option<&Principal>,
    board: &Board,
    number: i64,
) -> Result<i64, Failure> {
    match live_task(c, board, number)? {
        Some((id, _, _)) => Ok(id),
        None => Err(parent_not_found(c, placing, board, number, "parent")),
    }
}

/// The id of live task `number` as the new parent of `task_id`, refusing cycles.
fn new_parent(
    c: &Connection,
    board: &Board,
    task_id: i64,
    task_number: i64,
    number: i64,
) -> Result<i64, Failure> {
    let parent_id = live_parent(c, None, board, number)?;
    let mut seen = HashSet::new();
    let mut cursor = Some(parent_id);
    while let Some(id) = cursor {
        if id == task_id || !seen.insert(id) {
            return Err(refusals::invalid_parent(task_number, number));
        }
        cursor = c.row_cached("SELECT parent_id FROM tasks WHERE id = ?1", [id], |r| {
            r.get(0)
        })?;
    }
    Ok(parent_id)
}

/// The handle of agent `id`, as a refusal names it.
fn agent_handle(c: &Connection, id: &str) -> Result<String, Failure> {
    Ok(
        c.row_cached("SELECT handle FROM agents WHERE id = ?1", [id], |r| {
            r.get(0)
        })?,
    )
}

// ---------------------------------------------------------------- set_claim

pub(super) fn set_claim(
    c: &Connection,
    p: &Principal,
    input: &SetClaimInput,
) -> Result<Value, Failure> {
    let board = board(c, p, &input.channel)?;
    // One time for the whole mutation, as on PostgreSQL.
    let now = clock::now();
    let mut tasks = Vec::new();
    let mut failures = Vec::new();
    for &number in &input.numbers {
        let Some((id, assignee, _)) = live_task(c, &board, number)? else {
            let deleted = was_deleted(c, &board, number)?;
            let nearby = if deleted {
                Vec::new()
            } else {
                nearby_tasks(c, &board, number)?
            };
            failures.push(refusals::claim_not_found(number, deleted, &nearby));
            continue;
        };
        match refusals::claim(input.claimed, assignee.as_deref(), &p.agent_id) {
            Claim::Take => {
                c.exec_cached(
                    "UPDATE tasks SET assignee_id = ?1 WHERE id = ?2",
                    params![p.agent_id, id],
                )?;
                let at = touch(c, id, now)?;
                event(c, id, "claimed", p, now, json!({}))?;
                tasks.push(refusals::claimed_task(number, at));
            }
            Claim::Release => {
                c.exec_cached("UPDATE tasks SET assignee_id = NULL WHERE id = ?1", [id])?;
                let at = touch(c, id, now)?;
                event(c, id, "released", p, now, json!({}))?;
                tasks.push(refusals::claimed_task(number, at));
            }
            Claim::AlreadySo => {
                let at = c.row_cached("SELECT updated_at FROM tasks WHERE id = ?1", [id], |r| {
                    r.get(0)
                })?;
                tasks.push(refusals::claimed_task(number, at));
            }
            Claim::Refuse { holder } => {
                let holder = agent_handle(c, holder)?;
                failures.push(refusals::claim_failure(input.claimed, number, &holder));
            }
        }
    }
    Ok(refusals::claim_result(input.claimed, tasks, failures))
}

// ---------------------------------------------------------------- checkpoint

pub(super) fn checkpoint(
    c: &Connection,
    p: &Principal,
    input: &CheckpointInput,
) -> Result<Value, Failure> {
    let board = board(c, p, &input.channel)?;
    let id = require_task(c, p, &board, input.number)?;
    if let Some(key) = &input.idempotency_key {
        let stored: Option<(i64, String, i64)> = c
            .row_cached(
                "SELECT number, summary, created_at FROM checkpoints \
                 WHERE task_id = ?1 AND created_by = ?2 AND idempotency_key = ?3",
                params![id, p.agent_id, key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        if let Some((checkpoint_id, summary, created_at)) = stored {
            if summary != input.summary {
                return Err(refusals::checkpoint_key_conflict(checkpoint_id, &summary));
            }
            // Replay: the original checkpoint; nothing appended or recorded.
            return Ok(checkpoint_answer(
                checkpoint_value(checkpoint_id, &summary, &p.handle, created_at),
                load_task(c, id)?.compact(),
                true,
            ));
        }
    }
    let now = clock::now();
    // Numbered within its task: the one writer connection appends one at
    // a time.
    let checkpoint_id: i64 = c.row_cached(
        "INSERT INTO checkpoints \
         (task_id, number, summary, created_by, created_at, idempotency_key) \
         VALUES (?1, (SELECT coalesce(max(number), 0) + 1 FROM checkpoints WHERE task_id = ?1), \
         ?2, ?3, ?4, ?5) RETURNING number",
        params![id, input.summary, p.agent_id, now, input.idempotency_key],
        |r| r.get(0),
    )?;
    event(
        c,
        id,
        "checkpointed",
        p,
        now,
        json!({"checkpoint_id": checkpoint_id}),
    )?;
    Ok(checkpoint_answer(
        checkpoint_value(checkpoint_id, &input.summary, &p.handle, now),
        load_task(c, id)?.compact(),
        false,
    ))
}

// ---------------------------------------------------------------- delete

pub(super) fn delete_task(
    c: &Connection,
    p: &Principal,
    input: &DeleteInput,
) -> Result<Value, Failure> {
    let board = board(c, p, &input.channel)?;
    let Some((id, _, creator)) = live_task(c, &board, input.number)? else {
        return Err(task_not_found(c, p, &board, input.number));
    };
    if creator != p.agent_id {
        let creator = agent_handle(c, &creator)?;
        return Err(refusals::not_task_creator(input.number, &creator));
    }
    let children = live_children(c, id)?;
    // One time for the whole mutation, as on PostgreSQL.
    let now = clock::now();
    let mut deleted = vec![(id, input.number)];
    let mut promoted = Vec::new();
    if !children.is_empty() {
        match input.subtask_mode {
            None => {
                // The subtask, at any depth, that `delete` would be refused
                // for: the first of another creator, level by level, each
                // in number order, as the delete finds it.
                let mut foreign = None;
                let mut level = children.clone();
                while foreign.is_none() && !level.is_empty() {
                    foreign = refusals::made_by_another(&level, &p.agent_id);
                    let mut next = Vec::new();
                    for (id, ..) in &level {
                        next.extend(live_children(c, *id)?);
                    }
                    next.sort_by_key(|(_, number, _)| *number);
                    level = next;
                }
                return Err(refusals::subtask_mode_required(
                    input.number,
                    children.len(),
                    foreign,
                ));
            }
            Some(SubtaskMode::Promote) => {
                for (child, number, _) in &children {
                    c.exec_cached("UPDATE tasks SET parent_id = NULL WHERE id = ?1", [child])?;
                    touch(c, *child, now)?;
                    event(
                        c,
                        *child,
                        "promoted",
                        p,
                        now,
                        json!({"former_parent": input.number}),
                    )?;
                    promoted.push(*number);
                }
            }
            Some(SubtaskMode::Delete) => {
                // Level by level, each in number order, as PostgreSQL's
                // delete locks them: the first subtask of another creator
                // in that order is the one a refusal names, on both engines.
                let mut descendants = Vec::new();
                let mut level = children;
                while !level.is_empty() {
                    if let Some(number) = refusals::made_by_another(&level, &p.agent_id) {
                        return Err(refusals::subtask_creator_mismatch(number));
                    }
                    let mut next = Vec::new();
                    for (id, number, _) in level {
                        next.extend(live_children(c, id)?);
                        descendants.push((id, number));
                    }
                    next.sort_by_key(|(_, number, _)| *number);
                    level = next;
                }
                descendants.sort_by_key(|(_, number)| *number);
                deleted.extend(descendants);
            }
        }
    }
    for (task, number) in &deleted {
        c.exec_cached(
            "UPDATE tasks SET deleted_at = ?1 WHERE id = ?2",
            params![now, task],
        )?;
        event(c, *task, "deleted", p, now, json!({"number": number}))?;
    }
    Ok(deletion(&deleted, promoted))
}
