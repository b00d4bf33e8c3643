//! The task operations of §13.2 on PostgreSQL (docs/contract.md) and the
//! row and board helpers they share. A read runs on one pooled connection;
//! a mutation runs inside the transaction its caller opened (one of its
//! own, or a group of creates in `writer.rs`) and locks what it changes
//! before it reads what it decides on.

use std::collections::HashMap;
use std::sync::LazyLock;

use deadpool_postgres::{GenericClient, Object, Transaction};
use serde_json::{Value, json};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::super::columns::{self, Column};
use super::super::cursor::Key;
use super::super::refusals::{self, Claim};
use super::super::search;
use super::super::*;
use super::connections::{Error, Result, all, clock, exec, maybe, one, settle};
use crate::error::Failure;
use crate::registry::task::fields::ACTIVE_STATUSES;

use crate::runtime::auth;

/// The columns [`task_row`] reads, in order (`columns::task_row!`), then
/// the task's id ([`TASK_ID`]), and the joins they need (`t` the task, `c`
/// its board, `a` its assignee, `p` its parent, `cb` its creator).
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
pub(super) use {task_columns, task_from};
/// Where `task_columns!` reads the task's id: after the row's columns.
const TASK_ID: usize = columns::COUNT;
/// How many columns `task_columns!` has; a list query's score follows them.
pub(super) const TASK_COLUMNS: usize = TASK_ID + 1;

pub(super) fn json_field<T: for<'de> serde::Deserialize<'de> + Default>(value: Value) -> T {
    serde_json::from_value(value).unwrap_or_default()
}

pub(super) fn task_row(r: &Row) -> TaskRow {
    let at = |column: Column| column as usize;
    TaskRow {
        number: r.get(at(Column::Number)),
        channel: r.get(at(Column::Board)),
        scope_id: r.get(at(Column::ScopeId)),
        title: r.get(at(Column::Title)),
        description: r.get(at(Column::Description)),
        status: r.get(at(Column::Status)),
        priority: r.get(at(Column::Priority)),
        assignee: r.get(at(Column::Assignee)),
        parent_number: r.get(at(Column::ParentNumber)),
        labels: json_field(r.get(at(Column::Labels))),
        checklist: json_field(r.get(at(Column::Checklist))),
        urls: json_field(r.get(at(Column::Urls))),
        attachments: json_field(r.get(at(Column::Attachments))),
        blocker: r.get(at(Column::Blocker)),
        source_target: r.get(at(Column::SourceTarget)),
        created_by: r.get(at(Column::CreatedBy)),
        created_at: r.get(at(Column::CreatedAt)),
        updated_at: r.get(at(Column::UpdatedAt)),
    }
}

async fn load_task<C: GenericClient>(c: &C, id: i64) -> Result<TaskRow> {
    const SQL: &str = concat!(
        "SELECT ",
        task_columns!(),
        " ",
        task_from!(),
        " WHERE t.id = $1"
    );
    Ok(task_row(&one(c, SQL, &[&id]).await?))
}

/// The compact tasks `ids`, in the order given.
async fn load_compact<C: GenericClient>(c: &C, ids: &[i64]) -> Result<Vec<Value>> {
    const SQL: &str = concat!(
        "SELECT ",
        task_columns!(),
        " ",
        task_from!(),
        " WHERE t.id = ANY($1)"
    );
    let rows = all(c, SQL, &[&ids]).await?;
    let by_id: HashMap<i64, Value> = rows
        .iter()
        .map(|r| (r.get::<_, i64>(TASK_ID), task_row(r).compact()))
        .collect();
    Ok(ids.iter().filter_map(|id| by_id.get(id).cloned()).collect())
}

/// The search terms of a task (`search::terms`) as a `tsvector` literal:
/// each word, and its stem at the same position; title terms weigh A,
/// description terms B (the relevance weighs them, `relevance_sql`).
fn search_vector(title: &str, description: Option<&str>) -> String {
    let title = search::terms(title).into_iter().map(|t| (t, 'A'));
    let description = search::terms(description.unwrap_or_default())
        .into_iter()
        .map(|t| (t, 'B'));
    let mut lexemes = Vec::new();
    for (i, (term, weight)) in title.chain(description).enumerate() {
        for word in std::iter::once(term.word).chain(term.stem) {
            let word = clip_lexeme(&word);
            // Positions past PostgreSQL's limit keep the word without position.
            lexemes.push(match i + 1 {
                pos @ 1..=16383 => format!("'{word}':{pos}{weight}"),
                _ => format!("'{word}'"),
            });
        }
    }
    lexemes.join(" ")
}

/// PostgreSQL's longest lexeme, in bytes: a longer word fails the whole
/// `tsvector` ("word is too long").
const MAX_LEXEME: usize = 2046;

/// `word` cut to [`MAX_LEXEME`] bytes at a character boundary. Matching is
/// unchanged: a query (at most 200 characters, under 2,046 bytes once
/// folded, a Hangul syllable to three letters at most) finds a word
/// as a prefix of it or as its stem whole, and either fits in the part
/// kept; SQLite indexes the word whole and finds it for the same queries.
fn clip_lexeme(word: &str) -> &str {
    if word.len() <= MAX_LEXEME {
        return word;
    }
    let end = (0..=MAX_LEXEME)
        .rev()
        .find(|&at| word.is_char_boundary(at))
        .unwrap_or(0);
    &word[..end]
}

/// A search as a `tsquery` literal: every query word required, as a
/// prefix or, when it has a stem, as that stem whole.
fn search_query(text: &str) -> Option<String> {
    let words = search::query_words(text);
    (!words.is_empty()).then(|| {
        words
            .iter()
            .map(|w| match &w.stem {
                Some(stem) => format!("('{}':* | '{stem}')", w.prefix),
                None => format!("'{}':*", w.prefix),
            })
            .collect::<Vec<_>>()
            .join(" & ")
    })
}

/// A hit's relevance (`search::TITLE_WEIGHT`) over `t.search`, whose
/// title terms weigh A and description terms B: a query word matches the
/// title when its prefix or stem matches a lexeme of weight A, as the
/// search's own `tsquery` matches it. Each `tsquery` is a subquery of its
/// own, so it is parsed once per statement, not once per hit.
fn relevance_sql(text: &str, arg: &mut impl FnMut(Arg) -> String) -> String {
    let mut parts = Vec::new();
    for word in search::query_words(text) {
        let matches = |weight: char| match &word.stem {
            Some(stem) => format!("'{}':*{weight} | '{stem}':{weight}", word.prefix),
            None => format!("'{}':*{weight}", word.prefix),
        };
        let (title, description) = (arg(Arg::Text(matches('A'))), arg(Arg::Text(matches('B'))));
        parts.push(format!(
            "{} * (t.search @@ (SELECT {title}::text::tsquery))::int \
             + {} * (t.search @@ (SELECT {description}::text::tsquery))::int",
            search::TITLE_WEIGHT,
            search::DESCRIPTION_WEIGHT
        ));
    }
    format!("(-({}))::float8", parts.join(" + "))
}

/// Recomputes the search terms of every stored task, a batch of tasks per
/// statement: a migration step, in the migration's transaction, and
/// `agentteam-runtime reindex`, a statement at a time while replicas serve.
/// Returns how many tasks it read.
pub(super) async fn reindex_search<C: GenericClient>(c: &C) -> Result<u64> {
    let (mut after, mut done) = (0_i64, 0_u64);
    loop {
        let batch = read_for_reindex(c, after).await?;
        let Some(last) = batch.last() else {
            return Ok(done);
        };
        after = last.id;
        done += batch.len() as u64;
        write_reindexed(c, &batch).await?;
    }
}

/// How many tasks [`reindex_search`] reads and writes per statement.
const REINDEX_BATCH: i64 = 1000;

/// A task's text as [`read_for_reindex`] read it, and its terms from that.
pub(crate) struct Reindexed {
    id: i64,
    title: String,
    description: Option<String>,
    search: String,
}

/// The next [`REINDEX_BATCH`] tasks after id `after`, in id order, with
/// their search terms computed.
pub(super) async fn read_for_reindex<C: GenericClient>(
    c: &C,
    after: i64,
) -> Result<Vec<Reindexed>> {
    const READ: &str = "SELECT id, title, description FROM tasks WHERE id > $1 \
         ORDER BY id LIMIT $2";
    let rows = all(c, READ, &[&after, &REINDEX_BATCH]).await?;
    Ok(rows
        .iter()
        .map(|row| {
            let (title, description): (String, Option<String>) = (row.get(1), row.get(2));
            Reindexed {
                id: row.get(0),
                search: search_vector(&title, description.as_deref()),
                title,
                description,
            }
        })
        .collect())
}

/// Writes the terms of [`read_for_reindex`]'s tasks, skipping a task whose
/// title or description has changed since it was read: its writer gave it
/// the terms of its new text, which stale ones must not replace. A task
/// whose terms are already these is not rewritten.
pub(super) async fn write_reindexed<C: GenericClient>(c: &C, batch: &[Reindexed]) -> Result<()> {
    const WRITE: &str = "UPDATE tasks SET search = s.search::tsvector \
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) \
             AS s(id, title, description, search) \
         WHERE tasks.id = s.id AND tasks.title = s.title \
             AND tasks.description IS NOT DISTINCT FROM s.description \
             AND tasks.search IS DISTINCT FROM s.search::tsvector";
    let ids: Vec<i64> = batch.iter().map(|t| t.id).collect();
    let titles: Vec<&str> = batch.iter().map(|t| t.title.as_str()).collect();
    let descriptions: Vec<Option<&str>> = batch.iter().map(|t| t.description.as_deref()).collect();
    let searches: Vec<&str> = batch.iter().map(|t| t.search.as_str()).collect();
    exec(c, WRITE, &[&ids, &titles, &descriptions, &searches]).await?;
    Ok(())
}

#[derive(Clone)]
pub(super) struct Board {
    pub(super) id: i64,
    pub(super) name: String,
}

/// The board `name` in the caller's workspace, if the caller may use it.
pub(super) async fn board<C: GenericClient>(c: &C, p: &Principal, name: &str) -> Result<Board> {
    const SQL: &str = "SELECT c.id, NOT c.private OR EXISTS (SELECT 1 FROM channel_members m \
         WHERE m.channel_id = c.id AND m.agent_id = $3) \
         FROM channels c WHERE c.workspace_id = $1 AND c.name = $2";
    // A private board answers a non-member exactly as a missing one does.
    let found = maybe(c, SQL, &[&p.workspace_id, &name, &p.agent_id]).await?;
    let Some(row) = found.filter(|row| row.get::<_, bool>(1)) else {
        return Err(refusals::channel_not_found(name, usable_boards(c, p).await?).into());
    };
    Ok(Board {
        id: row.get(0),
        name: name.to_string(),
    })
}

/// The board of a task scope's task in the caller's workspace, and the
/// task's number, if there is one: read before the create's group, so that the group takes its counter
/// row first, in order, as it does a channel's (`writer.rs`). Whether the
/// caller may use it is decided under lock (`lock_placement`); a task never
/// changes board.
async fn scope_board<C: GenericClient>(
    c: &C,
    p: &Principal,
    scope_id: &str,
) -> Result<Option<(Board, i64)>> {
    const SQL: &str = "SELECT c.id, c.name, t.number FROM tasks t \
         JOIN channels c ON c.id = t.channel_id WHERE t.scope_id = $1 AND c.workspace_id = $2";
    Ok(maybe(c, SQL, &[&scope_id, &p.workspace_id])
        .await?
        .map(|r| {
            let board = Board {
                id: r.get(0),
                name: r.get(1),
            };
            (board, r.get(2))
        }))
}

/// The boards of the workspace this agent may use (public, or a member):
/// the candidates of a lookup failure, read on the failure path only.
pub(super) async fn usable_boards<C: GenericClient>(c: &C, p: &Principal) -> Result<Vec<String>> {
    const SQL: &str = "SELECT c.name FROM channels c WHERE c.workspace_id = $1 AND (NOT c.private \
         OR EXISTS (SELECT 1 FROM channel_members m WHERE m.channel_id = c.id AND m.agent_id = $2)) \
         ORDER BY c.name COLLATE \"C\"";
    Ok(all(c, SQL, &[&p.workspace_id, &p.agent_id])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// [`Store::board_labels`](super::super::Store::board_labels): read on an
/// empty page's path only.
pub(super) async fn board_labels<C: GenericClient>(
    c: &C,
    p: &Principal,
    name: &str,
) -> Result<Vec<String>> {
    const SQL: &str = "SELECT l FROM tasks t, jsonb_array_elements_text(t.labels) l \
         WHERE t.channel_id = $1 AND t.deleted_at IS NULL \
         GROUP BY l ORDER BY min(t.id), l LIMIT $2";
    let board = board(c, p, name).await?;
    Ok(all(c, SQL, &[&board.id, &(MAX_BOARD_LABELS as i64)])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// The handles of the workspace's agents, for an unknown member's candidates.
async fn handles<C: GenericClient>(c: &C, workspace_id: &str) -> Result<Vec<String>> {
    const SQL: &str = "SELECT handle FROM agents WHERE workspace_id = $1";
    Ok(all(c, SQL, &[&workspace_id])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// The live tasks of the board a mistyped `number` may have meant
/// (number, title): its one-slip variants and the numerically nearest,
/// ranked by [`refusals::nearest_tasks`].
async fn nearby_tasks<C: GenericClient>(
    c: &C,
    board: &Board,
    number: i64,
) -> Result<Vec<(i64, String)>> {
    const SQL: &str = "SELECT number, title FROM tasks WHERE channel_id = $1 \
           AND deleted_at IS NULL AND number = ANY($4) \
         UNION \
         (SELECT number, title FROM tasks WHERE channel_id = $1 \
           AND deleted_at IS NULL ORDER BY abs(number - $2), number LIMIT $3)";
    let limit = crate::error::MAX_TASK_CANDIDATES as i64;
    let slips = refusals::number_slips(number);
    let tasks = all(c, SQL, &[&board.id, &number, &limit, &slips])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    Ok(refusals::nearest_tasks(number, tasks))
}

/// A live task as a mutation finds it, locked until the transaction ends.
struct Live {
    id: i64,
    creator: String,
    updated_at: i64,
}

/// A task a mutation acts on, locked to the transaction's end. `FOR NO KEY
/// UPDATE`, as PostgreSQL's own `UPDATE` of non-key columns locks a row
/// (every mutation's lock here: `live_children`, `lock_placement`, the
/// claim's batch): it excludes every other mutation as `FOR UPDATE` does,
/// but not the `FOR KEY SHARE` with which PostgreSQL checks a subtask's
/// foreign key to its parent again when the subtask's row is written a
/// second time in one transaction (an update's search terms, a promoted
/// subtask's time). With `FOR UPDATE`, that check waited for whoever held the
/// parent, outside every lock order here, and deadlocked with a delete or
/// a claim of the parent that wanted the subtask next. No task row is ever
/// deleted or has its key changed, so no check needs the stronger lock.
pub(in crate::runtime::store) const LOCK_TASK: &str = "SELECT id, created_by, updated_at FROM tasks \
     WHERE channel_id = $1 AND number = $2 AND deleted_at IS NULL FOR NO KEY UPDATE";

/// The live task `number` on the board, locked (`FOR NO KEY UPDATE`, see
/// [`LOCK_TASK`]).
async fn lock_task(tx: &Transaction<'_>, board: &Board, number: i64) -> Result<Option<Live>> {
    Ok(maybe(tx, LOCK_TASK, &[&board.id, &number])
        .await?
        .map(|r| Live {
            id: r.get(0),
            creator: r.get(1),
            updated_at: r.get(2),
        }))
}

async fn require_task(
    tx: &Transaction<'_>,
    p: &Principal,
    board: &Board,
    number: i64,
) -> Result<Live> {
    match lock_task(tx, board, number).await? {
        Some(live) => Ok(live),
        None => Err(task_not_found(tx, p, board, number).await),
    }
}

/// `task_not_found`: a deleted task said to be deleted, any other with the
/// other boards' live tasks of that number and the board's nearest live
/// tasks as candidates.
pub(super) async fn task_not_found<C: GenericClient>(
    c: &C,
    p: &Principal,
    board: &Board,
    number: i64,
) -> Error {
    match was_deleted(c, board, number).await {
        Ok(true) => return refusals::task_deleted(&board.name, number).into(),
        Ok(false) => {}
        Err(error) => return error,
    }
    let found = async {
        let elsewhere = same_number_elsewhere(c, p, board, number).await?;
        Ok::<_, Error>((elsewhere, nearby_tasks(c, board, number).await?))
    };
    match found.await {
        Ok((elsewhere, nearby)) => {
            refusals::task_not_found(&board.name, number, &elsewhere, &nearby).into()
        }
        Err(error) => error,
    }
}

/// The other boards this agent may use with a live task `number`, by name:
/// (board, the task's title).
async fn same_number_elsewhere<C: GenericClient>(
    c: &C,
    p: &Principal,
    board: &Board,
    number: i64,
) -> Result<Vec<(String, String)>> {
    const SQL: &str = "SELECT c.name, t.title FROM channels c JOIN tasks t ON t.channel_id = c.id \
         WHERE c.workspace_id = $1 AND c.id <> $2 AND t.number = $3 AND t.deleted_at IS NULL \
           AND (NOT c.private OR EXISTS (SELECT 1 FROM channel_members m \
             WHERE m.channel_id = c.id AND m.agent_id = $4)) \
         ORDER BY c.name COLLATE \"C\" LIMIT $5";
    let limit = crate::error::MAX_TASK_CANDIDATES as i64;
    let args: [&(dyn ToSql + Sync); 5] = [&p.workspace_id, &board.id, &number, &p.agent_id, &limit];
    Ok(all(c, SQL, &args)
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect())
}

/// `parent_not_found` for `field`: a deleted parent said to be deleted, any
/// other with the board's nearest live tasks as candidates.
/// `placing`: the caller, where the input's board is where a new subtask
/// goes or a list looks, so other boards with a live `number` are offered
/// first; `None` for an update, whose board names the task to change.
async fn parent_not_found<C: GenericClient>(
    c: &C,
    placing: Option<&Principal>,
    board: &Board,
    number: i64,
    field: &str,
) -> Error {
    match was_deleted(c, board, number).await {
        Ok(true) => return refusals::parent_deleted(&board.name, number, field).into(),
        Ok(false) => {}
        Err(error) => return error,
    }
    let found = async {
        let elsewhere = match placing {
            Some(p) => same_number_elsewhere(c, p, board, number).await?,
            None => Vec::new(),
        };
        Ok::<_, Error>((elsewhere, nearby_tasks(c, board, number).await?))
    };
    match found.await {
        Ok((elsewhere, nearby)) => {
            refusals::parent_not_found(&board.name, number, field, &elsewhere, &nearby).into()
        }
        Err(error) => error,
    }
}

/// Whether task `number` of the board existed and was deleted.
async fn was_deleted<C: GenericClient>(c: &C, board: &Board, number: i64) -> Result<bool> {
    const SQL: &str = "SELECT EXISTS (SELECT 1 FROM tasks \
         WHERE channel_id = $1 AND number = $2 AND deleted_at IS NOT NULL)";
    Ok(one(c, SQL, &[&board.id, &number]).await?.get(0))
}

/// The id of live task `number` on `board`, to be a parent (locked, so it
/// cannot be deleted under the new child).
/// `placing` as for [`parent_not_found`].
async fn live_parent(
    tx: &Transaction<'_>,
    placing: Option<&Principal>,
    board: &Board,
    number: i64,
) -> Result<i64> {
    match lock_task(tx, board, number).await? {
        Some(parent) => Ok(parent.id),
        None => Err(parent_not_found(tx, placing, board, number, "parent").await),
    }
}

/// The agent a member ref names in the workspace.
async fn agent_by_ref<C: GenericClient>(
    c: &C,
    workspace_id: &str,
    member_ref: &str,
) -> Result<Option<String>> {
    const SQL: &str = "SELECT id FROM agents WHERE workspace_id = $1 AND handle = $2";
    Ok(maybe(c, SQL, &[&workspace_id, &handle_of(member_ref)])
        .await?
        .map(|r| r.get(0)))
}

/// The agent `member_ref` names, to be the assignee of a task on `board`
/// (`None`: a list's filter, on no board): a member of the board if it is
/// private, since no one else could read or release the task.
async fn assignee_id<C: GenericClient>(
    c: &C,
    p: &Principal,
    board: Option<&Board>,
    member_ref: &str,
    field: &str,
) -> Result<String> {
    // The members of a private board (none for a public one): the only
    // agents a task there may go to, so the candidates of a miss.
    const MEMBERS: &str = "SELECT a.handle FROM channel_members m \
         JOIN agents a ON a.id = m.agent_id JOIN channels c ON c.id = m.channel_id \
         WHERE m.channel_id = $1 AND c.private";
    let members = async |board: &Board| -> Result<Vec<String>> {
        let rows = all(c, MEMBERS, &[&board.id]).await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    };
    let Some(id) = agent_by_ref(c, &p.workspace_id, member_ref).await? else {
        let members = match board {
            Some(board) => members(board).await?,
            None => Vec::new(),
        };
        let handles = if members.is_empty() {
            handles(c, &p.workspace_id).await?
        } else {
            members
        };
        return Err(refusals::assignee_not_found(member_ref, field, &p.handle, handles).into());
    };
    let Some(board) = board else {
        return Ok(id);
    };
    const MAY_USE: &str = "SELECT NOT c.private OR EXISTS (SELECT 1 FROM channel_members m \
         WHERE m.channel_id = c.id AND m.agent_id = $2) FROM channels c WHERE c.id = $1";
    if one(c, MAY_USE, &[&board.id, &id]).await?.get::<_, bool>(0) {
        return Ok(id);
    }
    let members = members(board).await?;
    Err(refusals::assignee_not_a_member(member_ref, field, &board.name, members).into())
}

/// Moves the task's `updated_at` strictly forward from `now`.
/// Moves the task's `updated_at` on; returns the new value.
async fn touch(tx: &Transaction<'_>, task_id: i64, now: i64) -> Result<i64> {
    const SQL: &str = "UPDATE tasks SET updated_at = greatest($2, updated_at + 1) WHERE id = $1 \
         RETURNING updated_at";
    Ok(one(tx, SQL, &[&task_id, &now]).await?.get(0))
}

async fn event(
    tx: &Transaction<'_>,
    task_id: i64,
    kind: &str,
    p: &Principal,
    now: i64,
    detail: Value,
) -> Result<()> {
    const SQL: &str = "INSERT INTO task_events (task_id, kind, actor_id, at, detail) \
         VALUES ($1, $2, $3, $4, $5)";
    exec(tx, SQL, &[&task_id, &kind, &p.agent_id, &now, &detail]).await?;
    Ok(())
}

/// The live children of these tasks, locked in number order: (id, number,
/// creator id).
async fn live_children(tx: &Transaction<'_>, parents: &[i64]) -> Result<Vec<(i64, i64, String)>> {
    const SQL: &str = "SELECT id, number, created_by FROM tasks \
         WHERE parent_id = ANY($1) AND deleted_at IS NULL ORDER BY number FOR NO KEY UPDATE";
    Ok(all(tx, SQL, &[&parents])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect())
}

// ---------------------------------------------------------------- create

/// Where a create lands: the board and the parent task (id and number), if any.
struct Placement {
    board: Board,
    parent: Option<(i64, i64)>,
}

/// In the group's transaction: where the create lands, with its parent
/// locked so it cannot be deleted under the new tasks. A task scope is
/// resolved here, from the locked task; a channel's board was found before.
async fn lock_placement(
    tx: &Transaction<'_>,
    p: &Principal,
    input: &CreateInput,
    board: Option<&Board>,
) -> Result<Placement> {
    if let Some(scope) = &input.parent_task_scope {
        const SQL: &str = "SELECT t.id, c.id, c.name, NOT c.private OR EXISTS \
             (SELECT 1 FROM channel_members m WHERE m.channel_id = c.id AND m.agent_id = $3), \
             t.number, t.status, t.deleted_at IS NOT NULL \
             FROM tasks t JOIN channels c ON c.id = t.channel_id \
             WHERE t.scope_id = $1 AND c.workspace_id = $2 \
             FOR NO KEY UPDATE OF t";
        let found = maybe(tx, SQL, &[&scope.scope_id, &p.workspace_id, &p.agent_id]).await?;
        // Unknown, other-workspace scopes and those on a private board the
        // caller is not a member of are indistinguishable; a deleted one on
        // a board it may use is said to be deleted.
        let Some(row) = found.filter(|row| row.get::<_, bool>(3)) else {
            return Err(refusals::task_scope_not_found(
                &scope.scope_id,
                usable_boards(tx, p).await?,
            )
            .into());
        };
        if row.get::<_, bool>(6) {
            return Err(refusals::task_scope_deleted(row.get(2), row.get(4)).into());
        }
        let status: String = row.get(5);
        if !ACTIVE_STATUSES.contains(&status.as_str()) {
            return Err(refusals::task_scope_closed(row.get(2), row.get(4), &status).into());
        }
        return Ok(Placement {
            board: Board {
                id: row.get(1),
                name: row.get(2),
            },
            parent: Some((row.get(0), row.get(4))),
        });
    }
    let Some(board) = board else {
        return Err(refusals::no_locator().into());
    };
    let parent = match input.parent {
        None => None,
        Some(number) => Some((live_parent(tx, Some(p), board, number).await?, number)),
    };
    Ok(Placement {
        board: board.clone(),
        parent,
    })
}

/// The idempotency receipt's identity, once the callback context checks out.
struct ReceiptKey {
    run_id: String,
    effect_id: String,
    key: String,
    callback_completed: bool,
}

impl ReceiptKey {
    /// The receipt's primary key, as statement parameters.
    fn identity<'p>(&'p self, p: &'p Principal) -> [&'p (dyn ToSql + Sync); 5] {
        [
            &p.workspace_id,
            &p.agent_id,
            &self.run_id,
            &self.effect_id,
            &self.key,
        ]
    }
}

/// Revalidates the responder against the callback it claims to answer.
async fn receipt_key<C: GenericClient>(
    c: &C,
    p: &Principal,
    workflow: &WorkflowContext,
    key: &str,
) -> Result<ReceiptKey> {
    let (Some(run_id), Some(effect_id)) = (&workflow.workflow_run_id, &workflow.callback_effect_id)
    else {
        return Err(refusals::no_workflow_context().into());
    };
    const SQL: &str =
        "SELECT run_id, workspace_id, agent_id, completed_at FROM callbacks WHERE effect_id = $1";
    match maybe(c, SQL, &[effect_id]).await? {
        Some(r)
            if r.get::<_, &str>(0) == run_id
                && r.get::<_, &str>(1) == p.workspace_id
                && r.get::<_, &str>(2) == p.agent_id =>
        {
            Ok(ReceiptKey {
                run_id: run_id.clone(),
                effect_id: effect_id.clone(),
                key: key.to_string(),
                callback_completed: r.get::<_, Option<i64>>(3).is_some(),
            })
        }
        _ => Err(refusals::no_such_callback().into()),
    }
}

/// The receipt's stored answer: a replay of the original tasks, or a
/// conflict when the key came with another payload.
async fn replay<C: GenericClient>(
    c: &C,
    input: &CreateInput,
    (digest, ids): (&str, Value),
    callback_completed: bool,
) -> Result<Value> {
    let ids: Vec<i64> = json_field(ids);
    if digest != input.payload_digest {
        // The ones still live: a deleted task takes no update.
        const NUMBERS: &str =
            "SELECT number FROM tasks WHERE id = ANY($1) AND deleted_at IS NULL ORDER BY number";
        let made: Vec<i64> = all(c, NUMBERS, &[&ids])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        return Err(refusals::idempotency_conflict(callback_completed, &made).into());
    }
    // The original tasks as they are now; nothing allocated or recorded.
    let tasks = load_compact(c, &ids).await?;
    const DELETED: &str = "SELECT number FROM tasks \
         WHERE id = ANY($1) AND deleted_at IS NOT NULL ORDER BY number";
    let deleted = all(c, DELETED, &[&ids]).await?;
    Ok(replayed(tasks, deleted.iter().map(|r| r.get(0)).collect()))
}

/// What a create found out before it joins a group: the reads that need
/// no lock, made on a connection of its own while other requests make
/// theirs, so a group's one connection does only locks and writes. What
/// they find cannot go stale before the write: boards, their members and
/// agents are never deleted, and a receipt that appears meanwhile turns
/// the write into a replay.
pub(super) struct Prepared {
    receipt: Option<ReceiptKey>,
    /// The locator's board: a channel's, or a task scope's task's (its
    /// counter row is locked first, `lock_boards`; the scope's task is
    /// found again under lock).
    board: Option<Board>,
    /// The number of the parent on that board, if the create names one
    /// (`parent`, or the task scope's task): locked, in order, after the
    /// counter rows (`lock_parents`).
    parent: Option<i64>,
    /// Each task's assignee, or the refusal, kept for its turn: a refusal
    /// comes in the order the SQLite store gives it (after the parent and
    /// the target).
    assignees: Result<Vec<Option<String>>, Failure>,
}

impl Prepared {
    /// The locator's board (a channel's or a task scope's), known before
    /// the create's group: the counter row the group locks first
    /// (`lock_boards`).
    pub(super) fn board_id(&self) -> Option<i64> {
        self.board.as_ref().map(|board| board.id)
    }

    /// The parent the create would lock, as (board id, number).
    pub(super) fn parent(&self) -> Option<(i64, i64)> {
        Some((self.board_id()?, self.parent?))
    }
}

/// Whether a create still needs its group.
pub(super) enum Prepare {
    /// A receipt replay (or its conflict): answered without writing.
    Answered(Value),
    Ready(Prepared),
}

/// The lock-free reads and checks of one `task_create`.
pub(super) async fn prepare_create(
    c: &Object,
    p: &Principal,
    input: &CreateInput,
    workflow: &WorkflowContext,
) -> Result<Prepare, Failure> {
    prepare(c, p, input, workflow).await.map_err(settle)
}

async fn prepare(
    c: &Object,
    p: &Principal,
    input: &CreateInput,
    workflow: &WorkflowContext,
) -> Result<Prepare> {
    let receipt = match &input.idempotency_key {
        Some(key) => Some(receipt_key(c, p, workflow, key).await?),
        None => None,
    };
    if let Some(r) = &receipt {
        if let Some(row) = maybe(c, FIND_RECEIPT, &r.identity(p)).await? {
            return replay(c, input, (row.get(0), row.get(1)), r.callback_completed)
                .await
                .map(Prepare::Answered);
        }
        if r.callback_completed {
            return Err(refusals::callback_completed().into());
        }
    }
    let (board, parent) = match (&input.parent_task_scope, &input.channel) {
        (Some(scope), _) => match scope_board(c, p, &scope.scope_id).await? {
            Some((board, number)) => (Some(board), Some(number)),
            None => (None, None),
        },
        (None, Some(channel)) => (Some(board(c, p, channel).await?), input.parent),
        (None, None) => return Err(refusals::no_locator().into()),
    };
    let mut assignees = Ok(Vec::with_capacity(input.tasks.len()));
    for (i, task) in input.tasks.iter().enumerate() {
        let found = match &task.assignee {
            Some(r) => {
                match assignee_id(c, p, board.as_ref(), r, &format!("tasks/{i}/assignee")).await {
                    Ok(id) => Some(id),
                    Err(Error::Refused(refusal)) => {
                        assignees = Err(refusal);
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
            None => None,
        };
        if let Ok(ids) = &mut assignees {
            ids.push(found);
        }
    }
    Ok(Prepare::Ready(Prepared {
        receipt,
        board,
        parent,
        assignees,
    }))
}

/// A `task_create` whose checks have passed: what its write needs.
pub(super) struct Checked<'a> {
    receipt: Option<&'a ReceiptKey>,
    placement: Placement,
    assignees: &'a [Option<String>],
}

/// In a group's transaction, first: the counter rows of these boards,
/// locked in the order of their ids (every group takes them in that one
/// order, so two groups never wait on each other in a cycle), as the
/// group's inserts will update them. Holding them, the group may take in
/// creates that queued while it waited (`writer.rs`).
pub(super) async fn lock_boards(tx: &Transaction<'_>, ids: &[i64]) -> Result<()> {
    const SQL: &str = "SELECT id FROM channels WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE";
    if !ids.is_empty() {
        all(tx, SQL, &[&ids]).await?;
    }
    Ok(())
}

/// In a group's transaction, after its counter rows: the live tasks its
/// creates take as parents, (board id, number) sorted, locked one by one in
/// that order. `set_claim` locks a board's tasks in number order too, and
/// every group takes its parents in this one order, so a group and a claim
/// (or two groups) never wait for each other in a cycle; each create's own
/// lock (`lock_placement`) then finds its parent held. Taken as the
/// creates came, two parents could be locked in the opposite order of a
/// claim's, a deadlock that cost a second each time.
pub(super) async fn lock_parents(tx: &Transaction<'_>, parents: &[(i64, i64)]) -> Result<()> {
    for (board, number) in parents {
        maybe(tx, LOCK_TASK, &[board, number]).await?;
    }
    Ok(())
}

/// In the group's transaction: the checks that need a lock (the parent, a
/// task scope) and the refusals due after them. A refused create has
/// written nothing, so the creates of one group (`writer.rs`) need no
/// savepoints.
pub(super) async fn lock_create<'a>(
    tx: &Transaction<'_>,
    p: &Principal,
    input: &CreateInput,
    prepared: &'a Prepared,
) -> Result<Checked<'a>> {
    let placement = lock_placement(tx, p, input, prepared.board.as_ref()).await?;
    if let Some(target) = &input.target
        && target_channel(target) != placement.board.name
    {
        return Err(refusals::target_conflict(target, &placement.board.name).into());
    }
    let assignees = prepared.assignees.as_ref().map_err(|f| f.clone())?;
    Ok(Checked {
        receipt: prepared.receipt.as_ref(),
        placement,
        assignees,
    })
}

/// The time of a statement of a group of creates, in microseconds: the
/// database's clock when the statement runs (`clock_timestamp()`), once the
/// group holds its counter rows, so that a board's numbers and their
/// creation times go up together whatever order groups started in (a
/// group's start would put a later number before an earlier time); read
/// once per statement, so every task of a create has one time, and
/// written into the statement rather than read in a round trip of its own.
macro_rules! group_time {
    () => {
        "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint"
    };
}

const FIND_RECEIPT: &str = "SELECT digest, task_ids FROM idempotency_receipts \
     WHERE workspace_id = $1 AND agent_id = $2 AND run_id = $3 AND effect_id = $4 AND key = $5";

/// A checked create's receipt, reserved before its tasks are written:
/// `None` when the create goes on to insert (it has no key, or the key is
/// now its own), or the replay when a concurrent first use of the key
/// committed meanwhile (the first use waits here for that transaction).
pub(super) async fn reserve(
    tx: &Transaction<'_>,
    p: &Principal,
    input: &CreateInput,
    checked: &Checked<'_>,
) -> Result<Option<Value>> {
    const RESERVE: &str = concat!(
        "INSERT INTO idempotency_receipts (workspace_id, agent_id, run_id, effect_id, key, \
         digest, task_ids, created_at) VALUES ($1, $2, $3, $4, $5, $6, '[]', ",
        group_time!(),
        ") ON CONFLICT DO NOTHING"
    );
    let Some(r) = checked.receipt else {
        return Ok(None);
    };
    let identity = r.identity(p);
    // The callback, read again and held `FOR SHARE` to the commit: its
    // completion (an `UPDATE`) waits for the creates that found it open,
    // and a create that finds it completed is refused, not committed
    // after `callback complete` returned. A replay stays allowed.
    const CALLBACK_OPEN: &str =
        "SELECT completed_at IS NULL FROM callbacks WHERE effect_id = $1 FOR SHARE";
    if !one(tx, CALLBACK_OPEN, &[&r.effect_id])
        .await?
        .get::<_, bool>(0)
    {
        return match maybe(tx, FIND_RECEIPT, &identity).await? {
            Some(row) => replay(tx, input, (row.get(0), row.get(1)), true)
                .await
                .map(Some),
            None => Err(refusals::callback_completed().into()),
        };
    }
    let [w, a, run, effect, key] = identity;
    let params: [&(dyn ToSql + Sync); 6] = [w, a, run, effect, key, &input.payload_digest];
    if exec(tx, RESERVE, &params).await? == 1 {
        return Ok(None);
    }
    let row = one(tx, FIND_RECEIPT, &identity).await?;
    replay(tx, input, (row.get(0), row.get(1)), false)
        .await
        .map(Some)
}

/// One create of a group, checked and with its receipt reserved: what its
/// tasks' insert needs.
pub(super) struct Insert<'a> {
    pub(super) principal: &'a Principal,
    pub(super) input: &'a CreateInput,
    pub(super) checked: Checked<'a>,
}

impl Insert<'_> {
    /// The board its tasks land on.
    pub(super) fn board_id(&self) -> i64 {
        self.checked.placement.board.id
    }
}

/// The one write of the creates of a group on one board, in one statement:
/// the board's next numbers for all of them (in the order given, each
/// create's tasks in its input order), their tasks, a `created` activity
/// row each and each receipt's task ids. One statement of sixteen creates
/// costs PostgreSQL about a third of sixteen statements of one (see
/// docs/performance.md). Answers each create with its tasks, built from
/// what the creates know.
pub(super) async fn insert_creates(
    tx: &Transaction<'_>,
    creates: &[&Insert<'_>],
) -> Result<Vec<Value>> {
    const SQL: &str = concat!(
        "WITH clock AS (SELECT ",
        group_time!(),
        " AS now), \
         numbers AS ( \
             UPDATE channels SET next_number = next_number + cardinality($2::text[]) \
             WHERE id = $1 RETURNING next_number - cardinality($2::text[]) AS first), \
         given AS ( \
             SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], \
                 $7::text[], $8::jsonb[], $9::jsonb[], $10::jsonb[], $11::jsonb[], $12::text[], \
                 $13::text[], $14::bigint[], $15::text[], $16::text[], $17::int4[]) WITH ORDINALITY \
             AS i(scope_id, title, description, status, priority, assignee_id, labels, checklist, \
                 urls, attachments, blocker, search, parent_id, source_target, created_by, job, n)), \
         new AS ( \
             INSERT INTO tasks (channel_id, number, scope_id, title, description, status, \
                 priority, assignee_id, parent_id, labels, checklist, urls, attachments, blocker, \
                 source_target, created_by, created_at, updated_at, search) \
             SELECT $1, numbers.first + i.n - 1, i.scope_id, i.title, i.description, i.status, \
                 i.priority, i.assignee_id, i.parent_id, i.labels, i.checklist, i.urls, \
                 i.attachments, i.blocker, i.source_target, i.created_by, clock.now, clock.now, \
                 i.search::tsvector \
             FROM clock, numbers, given i \
             RETURNING id, number, scope_id, created_by, created_at), \
         activity AS ( \
             INSERT INTO task_events (task_id, kind, actor_id, at, detail) \
             SELECT id, 'created', created_by, created_at, jsonb_build_object('number', number) \
             FROM new), \
         receipt AS ( \
             UPDATE idempotency_receipts r SET task_ids = made.ids \
             FROM (SELECT i.job, jsonb_agg(new.id ORDER BY new.number) AS ids \
                   FROM new JOIN given i USING (scope_id) GROUP BY i.job) made \
             JOIN unnest($18::int4[], $19::text[], $20::text[], $21::text[], $22::text[], \
                 $23::text[]) AS k(job, workspace_id, agent_id, run_id, effect_id, key) \
                 USING (job) \
             WHERE r.workspace_id = k.workspace_id AND r.agent_id = k.agent_id \
                 AND r.run_id = k.run_id AND r.effect_id = k.effect_id AND r.key = k.key) \
         SELECT number, scope_id, created_at FROM new"
    );
    let Some(first) = creates.first() else {
        return Ok(Vec::new());
    };
    let board_id = first.board_id();
    let mut scope_ids = Vec::new();
    let mut titles = Vec::new();
    let mut descriptions = Vec::new();
    let mut statuses = Vec::new();
    let mut priorities = Vec::new();
    let mut assignees: Vec<Option<String>> = Vec::new();
    let mut labels = Vec::new();
    let mut checklists = Vec::new();
    let mut urls = Vec::new();
    let mut attachments = Vec::new();
    let mut blockers = Vec::new();
    let mut searches = Vec::new();
    let mut parents = Vec::new();
    let mut targets = Vec::new();
    let mut creators = Vec::new();
    let mut jobs = Vec::new();
    // The receipts' columns: create (its index here), then the identity.
    let mut receipts: [Vec<&str>; 5] = Default::default();
    let mut receipt_jobs: Vec<i32> = Vec::new();
    for (job, create) in (0_i32..).zip(creates) {
        let (p, input, checked) = (create.principal, create.input, &create.checked);
        for (task, assignee) in input.tasks.iter().zip(checked.assignees) {
            scope_ids.push(auth::new_scope_id()?);
            titles.push(task.title.as_str());
            descriptions.push(task.description.as_deref());
            statuses.push(task.status.as_deref().unwrap_or("todo"));
            priorities.push(task.priority.as_deref().unwrap_or("none"));
            assignees.push(assignee.clone());
            labels.push(json!(task.labels.as_deref().unwrap_or_default()));
            checklists.push(json!(task.checklist.as_deref().unwrap_or_default()));
            urls.push(json!(task.urls.as_deref().unwrap_or_default()));
            attachments.push(json!(task.attachments.as_deref().unwrap_or_default()));
            blockers.push(task.blocker.as_deref());
            searches.push(search_vector(&task.title, task.description.as_deref()));
            parents.push(checked.placement.parent.map(|(id, _)| id));
            targets.push(input.target.as_deref());
            creators.push(p.agent_id.as_str());
            jobs.push(job);
        }
        if let Some(r) = checked.receipt {
            receipt_jobs.push(job);
            let identity = [
                &p.workspace_id,
                &p.agent_id,
                &r.run_id,
                &r.effect_id,
                &r.key,
            ];
            for (column, value) in receipts.iter_mut().zip(identity) {
                column.push(value);
            }
        }
    }
    let rows = all(
        tx,
        SQL,
        &[
            &board_id,
            &scope_ids,
            &titles,
            &descriptions,
            &statuses,
            &priorities,
            &assignees,
            &labels,
            &checklists,
            &urls,
            &attachments,
            &blockers,
            &searches,
            &parents,
            &targets,
            &creators,
            &jobs,
            &receipt_jobs,
            &receipts[0],
            &receipts[1],
            &receipts[2],
            &receipts[3],
            &receipts[4],
        ],
    )
    .await?;
    let numbers: HashMap<String, i64> = rows.iter().map(|r| (r.get(1), r.get(0))).collect();
    let now: i64 = rows.first().map_or(0, |r| r.get(2));
    let mut scope_ids = scope_ids.into_iter();
    Ok(creates
        .iter()
        .map(|create| {
            let (p, input, placement) = (create.principal, create.input, &create.checked.placement);
            let tasks: Vec<Value> = input
                .tasks
                .iter()
                .zip(scope_ids.by_ref())
                .map(|(task, scope_id)| {
                    TaskRow {
                        number: numbers.get(&scope_id).copied().unwrap_or_default(),
                        channel: placement.board.name.clone(),
                        scope_id,
                        title: task.title.clone(),
                        description: task.description.clone(),
                        status: task.status.clone().unwrap_or_else(|| "todo".into()),
                        priority: task.priority.clone().unwrap_or_else(|| "none".into()),
                        assignee: task.assignee.as_deref().map(|r| handle_of(r).to_string()),
                        parent_number: placement.parent.map(|(_, number)| number),
                        labels: task.labels.clone().unwrap_or_default(),
                        checklist: task.checklist.clone().unwrap_or_default(),
                        urls: task.urls.clone().unwrap_or_default(),
                        attachments: task.attachments.clone().unwrap_or_default(),
                        blocker: task.blocker.clone(),
                        source_target: input.target.clone(),
                        created_by: p.handle.clone(),
                        created_at: now,
                        updated_at: now,
                    }
                    .compact()
                })
                .collect();
            created(tasks)
        })
        .collect())
}

// ---------------------------------------------------------------- list

pub(super) async fn list_tasks(c: &Object, p: &Principal, q: &ListQuery) -> Result<Value> {
    let board = board(c, p, &q.channel).await?;
    if let Some(parent) = q.parent {
        const SQL: &str = "SELECT EXISTS (SELECT 1 FROM tasks WHERE channel_id = $1 \
             AND number = $2 AND deleted_at IS NULL)";
        if !one(c, SQL, &[&board.id, &parent]).await?.get::<_, bool>(0) {
            return Err(parent_not_found(c, Some(p), &board, parent, "filters/parent").await);
        }
    }
    // A member ref that names no one would answer an empty page that
    // misleads: refused as an update's would be, with the handles there are.
    if let Some(member_ref) = &q.assignee {
        assignee_id(c, p, None, member_ref, "filters/assignee").await?;
    }
    q.cursor_holds()?;
    let Some((sql, args)) = list_sql(board.id, q) else {
        // Only punctuation: nothing can match.
        return Ok(json!({"items": []}));
    };
    let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(Arg::as_sql).collect();
    let rows = all(c, &sql, &params).await?;
    let rows = rows
        .iter()
        .map(|r| (task_row(r), r.get::<_, f64>(TASK_COLUMNS)))
        .collect();
    Ok(list_page(rows, q))
}

/// A bound value of a list query.
enum Arg {
    Int(i64),
    Real(f64),
    Text(String),
    Texts(Vec<String>),
}

impl Arg {
    fn as_sql(&self) -> &(dyn ToSql + Sync) {
        match self {
            Arg::Int(v) => v,
            Arg::Real(v) => v,
            Arg::Text(v) => v,
            Arg::Texts(v) => v,
        }
    }
}

/// The query of one list page on board `board_id`: `q.limit + 1` rows (the
/// extra one tells whether a next page exists), or `None` when the search
/// text has no words. Browsing reads a board index in the page order and
/// stops at the limit; a search finds its hits through the GIN index and
/// scores them as SQLite does (`search::TITLE_WEIGHT`; a relevance cursor
/// holds that score).
fn list_sql(board_id: i64, q: &ListQuery) -> Option<(String, Vec<Arg>)> {
    let mut args: Vec<Arg> = Vec::new();
    let mut arg = |v: Arg| {
        args.push(v);
        format!("${}", args.len())
    };
    let rows = q.rows_condition(board_id, |v| arg(Arg::Int(v)));
    let mut conditions = vec![rows];
    conditions.extend(task_conditions(q, &mut arg)?);
    let score = match &q.search {
        Some(text) => relevance_sql(text, &mut arg),
        None => "0::float8".to_string(),
    };
    if let Some(after) = q.after {
        conditions.push(after.condition(&score, |key| {
            arg(match key {
                Key::Int(v) => Arg::Int(v),
                Key::Real(v) => Arg::Real(v),
            })
        }));
    }
    let order = q.sort.order_by(&score);
    let limit = arg(Arg::Int(q.limit + 1));
    let sql = format!(
        "SELECT {}, {score} {} WHERE {} ORDER BY {order} LIMIT {limit}",
        task_columns!(),
        task_from!(),
        conditions.join(" AND "),
    );
    Some((sql, args))
}

/// What a task of list `q` must be, its board and page aside: live, of
/// the search's words, its filters' status, member and labels; `None`
/// when the search text has no words.
fn task_conditions(q: &ListQuery, arg: &mut impl FnMut(Arg) -> String) -> Option<Vec<String>> {
    let mut conditions = vec!["t.deleted_at IS NULL".to_string()];
    if let Some(text) = &q.search {
        let query = arg(Arg::Text(search_query(text)?));
        conditions.push(format!("t.search @@ {query}::text::tsquery"));
    }
    if !q.include_subtasks {
        conditions.push("t.parent_id IS NULL".into());
    }
    if let Some(statuses) = q.view.statuses() {
        let list = statuses.iter().map(|s| (*s).to_string()).collect();
        conditions.push(format!("t.status = ANY({})", arg(Arg::Texts(list))));
    }
    if let Some(member) = &q.assignee {
        let handle = arg(Arg::Text(handle_of(member).to_string()));
        conditions.push(format!("a.handle = {handle}"));
    }
    // `q.labels` are folded (ASCII lowercase); `lower` in the "C" collation
    // folds ASCII alone, as SQLite's does.
    for label in &q.labels {
        let label = arg(Arg::Text(label.clone()));
        conditions.push(format!(
            "EXISTS (SELECT 1 FROM jsonb_array_elements_text(t.labels) AS l(label) \
             WHERE lower(l.label COLLATE \"C\") = {label})"
        ));
    }
    Some(conditions)
}

/// [`Store::other_boards_with`](super::super::Store::other_boards_with):
/// one statement for every board, read on an empty search's path only.
pub(super) async fn other_boards_with<C: GenericClient>(
    c: &C,
    p: &Principal,
    q: &ListQuery,
) -> Result<Vec<String>> {
    let mut args: Vec<Arg> = vec![
        Arg::Text(p.workspace_id.clone()),
        Arg::Text(p.agent_id.clone()),
        Arg::Text(q.channel.clone()),
    ];
    let mut arg = |v: Arg| {
        args.push(v);
        format!("${}", args.len())
    };
    let Some(conditions) = task_conditions(q, &mut arg) else {
        return Ok(Vec::new());
    };
    let sql = format!(
        "SELECT DISTINCT c.name COLLATE \"C\" FROM tasks t JOIN channels c ON c.id = t.channel_id \
         LEFT JOIN agents a ON a.id = t.assignee_id \
         WHERE c.workspace_id = $1 AND c.name <> $3 AND (NOT c.private OR EXISTS \
         (SELECT 1 FROM channel_members m WHERE m.channel_id = c.id AND m.agent_id = $2)) \
         AND {} ORDER BY 1",
        conditions.join(" AND ")
    );
    let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(Arg::as_sql).collect();
    Ok(all(c, &sql, &params)
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// PostgreSQL's plan of the page query of list `q` for `p`, made for its
/// parameters' values.
#[cfg(test)]
pub(super) async fn explain_list(c: &Object, p: &Principal, q: &ListQuery) -> Result<String> {
    let board = board(c, p, &q.channel).await?;
    let (sql, args) = list_sql(board.id, q).expect("a query with words");
    let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(Arg::as_sql).collect();
    let rows = all(c, &format!("EXPLAIN {sql}"), &params).await?;
    Ok(rows
        .iter()
        .map(|row| row.get::<_, String>(0) + "\n")
        .collect())
}

// ---------------------------------------------------------------- update

/// The new values of one update, by field; a field the update names with
/// no value (`None`) sets NULL.
#[derive(Default)]
struct UpdateSet<'a> {
    /// The fields the update names.
    named: Vec<Field>,
    title: Option<&'a str>,
    description: Option<&'a str>,
    status: Option<&'a str>,
    priority: Option<&'a str>,
    assignee: Option<String>,
    labels: Option<Value>,
    checklist: Option<Value>,
    urls: Option<Value>,
    attachments: Option<Value>,
    blocker: Option<&'a str>,
    parent: Option<i64>,
}

impl UpdateSet<'_> {
    /// The `tasks` column `field` writes, and its new value as a parameter.
    fn column(&self, field: Field) -> (&'static str, &(dyn ToSql + Sync)) {
        match field {
            Field::Title => ("title", &self.title),
            Field::Description => ("description", &self.description),
            Field::Status => ("status", &self.status),
            Field::Priority => ("priority", &self.priority),
            Field::Assignee => ("assignee_id", &self.assignee),
            Field::Labels => ("labels", &self.labels),
            Field::Checklist => ("checklist", &self.checklist),
            Field::Urls => ("urls", &self.urls),
            Field::Attachments => ("attachments", &self.attachments),
            Field::Blocker => ("blocker", &self.blocker),
            Field::Parent => ("parent_id", &self.parent),
        }
    }
}

/// [`update_task`]'s one statement, built from [`Field::ALL`] so that its
/// `changed` array follows that order, which the caller zips it with: for
/// the `i`th field, `$(2i+2)` says whether the update names it and
/// `$(2i+3)` is its new value; `$1` is the task's id and the last
/// parameter the time. Only a field whose value differs is a change: an
/// update that changes nothing writes nothing, so its task keeps its
/// updated_at and no event is recorded, as on SQLite, and sending it again
/// is harmless.
static UPDATE: LazyLock<String> = LazyLock::new(|| {
    let set = UpdateSet::default();
    let columns = || {
        Field::ALL.iter().enumerate().map(|(i, field)| {
            let (named, value) = (2 * i + 2, 2 * i + 3);
            (set.column(*field).0, named, value)
        })
    };
    let changed: Vec<String> = columns()
        .map(|(column, named, value)| format!("${named} AND {column} IS DISTINCT FROM ${value}"))
        .collect();
    let writes: Vec<String> = columns()
        .map(|(column, named, value)| {
            format!("{column} = CASE WHEN ${named} THEN ${value} ELSE {column} END")
        })
        .collect();
    let now = 2 * Field::ALL.len() + 2;
    format!(
        "WITH old AS (SELECT ARRAY[{}] AS changed FROM tasks WHERE id = $1) \
         UPDATE tasks SET {}, updated_at = greatest(${now}, updated_at + 1) \
         FROM old WHERE id = $1 AND true = ANY (old.changed) \
         RETURNING title, description, old.changed",
        changed.join(", "),
        writes.join(", ")
    )
});

pub(super) async fn update_task(
    tx: &Transaction<'_>,
    p: &Principal,
    input: &UpdateInput,
) -> Result<Value> {
    let board = board(tx, p, &input.channel).await?;
    let changes = input.changes();
    // A new parent: the board's counter row before the task, the order in
    // which a create takes them (its group locks the row, then the parent),
    // so moving a task and creating a subtask of it cannot deadlock.
    let moved_under = changes.iter().find_map(|change| match change {
        Change::Parent(Some(number)) => Some(*number),
        _ => None,
    });
    if let Some(parent) = moved_under {
        lock_boards(tx, &[board.id]).await?;
        // The task and its new parent, in number order, as a claim locks
        // its tasks: locked task first, a move waited for a parent that a
        // claim of both held while it waited for the task (a deadlock).
        // `require_task` and `new_parent` then find them held.
        const BOTH: &str = "SELECT 1 FROM tasks WHERE channel_id = $1 AND number = ANY($2) \
             AND deleted_at IS NULL ORDER BY number FOR NO KEY UPDATE";
        all(tx, BOTH, &[&board.id, &vec![input.number, parent]]).await?;
    }
    let task = require_task(tx, p, &board, input.number).await?;
    let now = clock(tx).await?;
    input.guard(&board.name, task.updated_at)?;
    // One statement for every field: a flag says which ones change, so the
    // statement is prepared once whatever the update names.
    let mut set = UpdateSet::default();
    for change in changes {
        set.named.push(change.field());
        match change {
            Change::Title(title) => set.title = Some(title),
            Change::Description(description) => set.description = description,
            Change::Status(status) => set.status = Some(status),
            Change::Priority(priority) => set.priority = Some(priority),
            Change::Assignee(assignee) => {
                set.assignee = match assignee {
                    Some(r) => Some(assignee_id(tx, p, Some(&board), r, "assignee").await?),
                    None => None,
                }
            }
            Change::Labels(labels) => set.labels = Some(json!(labels)),
            Change::Checklist(checklist) => set.checklist = Some(json!(checklist)),
            Change::Urls(urls) => set.urls = Some(json!(urls)),
            Change::Attachments(attachments) => set.attachments = Some(json!(attachments)),
            Change::Blocker(blocker) => set.blocker = blocker,
            Change::Parent(parent) => {
                set.parent = match parent {
                    Some(number) => {
                        Some(new_parent(tx, &board, task.id, input.number, number).await?)
                    }
                    None => None,
                }
            }
        }
    }
    let named: Vec<bool> = Field::ALL
        .iter()
        .map(|field| set.named.contains(field))
        .collect();
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&task.id];
    for (field, named) in Field::ALL.into_iter().zip(&named) {
        params.extend([named as &(dyn ToSql + Sync), set.column(field).1]);
    }
    params.push(&now);
    let row = maybe(tx, &UPDATE, &params).await?;
    let Some(row) = row else {
        return Ok(load_task(tx, task.id).await?.compact());
    };
    let changed: Vec<bool> = row.get(2);
    let changed: Vec<Field> = Field::ALL
        .into_iter()
        .zip(changed)
        .filter_map(|(field, changed)| changed.then_some(field))
        .collect();
    if changed.contains(&Field::Title) || changed.contains(&Field::Description) {
        const SEARCH: &str = "UPDATE tasks SET search = $2::text::tsvector WHERE id = $1";
        let vector = search_vector(row.get(0), row.get::<_, Option<&str>>(1));
        exec(tx, SEARCH, &[&task.id, &vector]).await?;
    }
    let fields: Vec<&str> = changed.into_iter().map(Field::name).collect();
    event(tx, task.id, "updated", p, now, json!({"fields": fields})).await?;
    Ok(load_task(tx, task.id).await?.compact())
}

/// The id of live task `number` as the new parent of `task_id`, refusing
/// cycles. The caller holds the board's counter row (`update_task`), so
/// parent changes on one board run one at a time and each sees the others'
/// outcome.
async fn new_parent(
    tx: &Transaction<'_>,
    board: &Board,
    task_id: i64,
    task_number: i64,
    number: i64,
) -> Result<i64> {
    // The parent and its ancestors; UNION stops at a repeat.
    const ANCESTRY: &str = "WITH RECURSIVE up (id, parent_id) AS ( \
         SELECT id, parent_id FROM tasks WHERE id = $1 \
         UNION SELECT t.id, t.parent_id FROM tasks t JOIN up ON t.id = up.parent_id) \
         SELECT EXISTS (SELECT 1 FROM up WHERE id = $2)";
    let parent_id = live_parent(tx, None, board, number).await?;
    if one(tx, ANCESTRY, &[&parent_id, &task_id]).await?.get(0) {
        return Err(refusals::invalid_parent(task_number, number).into());
    }
    Ok(parent_id)
}

/// The handle of agent `id`, as a refusal names it.
async fn agent_handle(tx: &Transaction<'_>, id: &str) -> Result<String> {
    const HANDLE: &str = "SELECT handle FROM agents WHERE id = $1";
    Ok(one(tx, HANDLE, &[&id]).await?.get(0))
}

// ---------------------------------------------------------------- set_claim

pub(super) async fn set_claim(
    tx: &Transaction<'_>,
    p: &Principal,
    input: &SetClaimInput,
) -> Result<Value> {
    // Every task of the batch locked at once, in number order (two batches
    // naming the same tasks lock them in the same order: no deadlock).
    //
    // No other table is joined here: a row that waited for its lock is
    // re-read at its latest version, but a joined row would be the one read
    // before the wait (the assignee's handle of an unclaimed task: none).
    const LOCK: &str = "SELECT number, id, assignee_id, updated_at FROM tasks \
         WHERE channel_id = $1 AND number = ANY($2) AND deleted_at IS NULL \
         ORDER BY number FOR NO KEY UPDATE";
    // The holder and the time in one write: a row written twice in a
    // transaction has its foreign keys checked again.
    const ASSIGN: &str = "UPDATE tasks SET assignee_id = $2, \
         updated_at = greatest($3, updated_at + 1) WHERE id = $1 RETURNING updated_at";
    let board = board(tx, p, &input.channel).await?;
    let live: HashMap<i64, (i64, Option<String>, i64)> =
        all(tx, LOCK, &[&board.id, &input.numbers])
            .await?
            .iter()
            .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3))))
            .collect();
    // The time once the tasks are held: claims of a task are stamped in
    // the order they commit.
    let now = clock(tx).await?;
    let mut tasks = Vec::new();
    let mut failures = Vec::new();
    for number in &input.numbers {
        let Some((id, assignee, updated_at)) = live.get(number) else {
            let deleted = was_deleted(tx, &board, *number).await?;
            let nearby = if deleted {
                Vec::new()
            } else {
                nearby_tasks(tx, &board, *number).await?
            };
            failures.push(refusals::claim_not_found(*number, deleted, &nearby));
            continue;
        };
        let (holder, kind) = match refusals::claim(input.claimed, assignee.as_deref(), &p.agent_id)
        {
            Claim::Take => (Some(p.agent_id.as_str()), "claimed"),
            Claim::Release => (None, "released"),
            Claim::AlreadySo => {
                tasks.push(refusals::claimed_task(*number, *updated_at));
                continue;
            }
            Claim::Refuse { holder } => {
                let holder = agent_handle(tx, holder).await?;
                failures.push(refusals::claim_failure(input.claimed, *number, &holder));
                continue;
            }
        };
        let at: i64 = one(tx, ASSIGN, &[id, &holder, &now]).await?.get(0);
        event(tx, *id, kind, p, now, json!({})).await?;
        tasks.push(refusals::claimed_task(*number, at));
    }
    Ok(refusals::claim_result(input.claimed, tasks, failures))
}

// ---------------------------------------------------------------- checkpoint

pub(super) async fn checkpoint(
    tx: &Transaction<'_>,
    p: &Principal,
    input: &CheckpointInput,
) -> Result<Value> {
    // Numbered within its task; the task's row lock (require_task) makes
    // appends to one task wait for each other, so none races for a number.
    const SQL: &str = "INSERT INTO checkpoints \
         (task_id, number, summary, created_by, created_at, idempotency_key) \
         VALUES ($1, (SELECT coalesce(max(number), 0) + 1 FROM checkpoints WHERE task_id = $1), \
         $2, $3, $4, $5) RETURNING number";
    // The task's row lock (require_task) orders appends with one key: a
    // concurrent first use waits for it and then finds the checkpoint.
    const KEYED: &str = "SELECT number, summary, created_at FROM checkpoints \
         WHERE task_id = $1 AND created_by = $2 AND idempotency_key = $3";
    let board = board(tx, p, &input.channel).await?;
    let task = require_task(tx, p, &board, input.number).await?;
    // The time once the task is held: its checkpoints' times follow
    // their order (newest first by id).
    let now = clock(tx).await?;
    if let Some(key) = &input.idempotency_key
        && let Some(row) = maybe(tx, KEYED, &[&task.id, &p.agent_id, key]).await?
    {
        let summary: String = row.get(1);
        if summary != input.summary {
            return Err(refusals::checkpoint_key_conflict(row.get(0), &summary).into());
        }
        // Replay: the original checkpoint; nothing appended or recorded.
        return Ok(checkpoint_answer(
            checkpoint_value(row.get(0), &summary, &p.handle, row.get(2)),
            load_task(tx, task.id).await?.compact(),
            true,
        ));
    }
    let checkpoint_id: i64 = one(
        tx,
        SQL,
        &[
            &task.id,
            &input.summary,
            &p.agent_id,
            &now,
            &input.idempotency_key,
        ],
    )
    .await?
    .get(0);
    event(
        tx,
        task.id,
        "checkpointed",
        p,
        now,
        json!({"checkpoint_id": checkpoint_id}),
    )
    .await?;
    Ok(checkpoint_answer(
        checkpoint_value(checkpoint_id, &input.summary, &p.handle, now),
        load_task(tx, task.id).await?.compact(),
        false,
    ))
}

// ---------------------------------------------------------------- delete

/// Before a delete's checks: the task and what the delete may change (its
/// subtasks, and theirs with `subtask_mode: "delete"`), read as they stand
/// and locked in one statement in number order, as a claim locks its tasks.
/// A subtask may carry a lower number than its parent (moved there later):
/// locked parent first, the delete held the parent while it waited for the
/// subtask that a claim of both held while it waited for the parent (a
/// deadlock). The checks then walk the tree under these locks; a subtask
/// added or moved in between is locked there, out of this order (a race
/// of its own, retried if it deadlocks). The task itself, as [`lock_task`]
/// finds it, or `None` when it is not live.
async fn lock_deletion(
    tx: &Transaction<'_>,
    board: &Board,
    input: &DeleteInput,
) -> Result<Option<Live>> {
    const SQL: &str = "WITH RECURSIVE tree (id, depth) AS ( \
         SELECT id, 0 FROM tasks WHERE channel_id = $1 AND number = $2 AND deleted_at IS NULL \
         UNION SELECT t.id, tree.depth + 1 FROM tasks t JOIN tree ON t.parent_id = tree.id \
         WHERE t.deleted_at IS NULL AND (tree.depth = 0 OR $3)) \
         SELECT t.id, t.created_by, t.updated_at, tree.depth FROM tasks t JOIN tree ON tree.id = t.id \
         WHERE t.deleted_at IS NULL ORDER BY t.number FOR NO KEY UPDATE OF t";
    let whole_tree = matches!(input.subtask_mode, Some(SubtaskMode::Delete));
    let rows = all(tx, SQL, &[&board.id, &input.number, &whole_tree]).await?;
    Ok(rows.iter().find(|r| r.get::<_, i32>(3) == 0).map(|r| Live {
        id: r.get(0),
        creator: r.get(1),
        updated_at: r.get(2),
    }))
}

pub(super) async fn delete_task(
    tx: &Transaction<'_>,
    p: &Principal,
    input: &DeleteInput,
) -> Result<Value> {
    const PROMOTE: &str = "UPDATE tasks SET parent_id = NULL WHERE id = $1";
    const TOMBSTONE: &str = "UPDATE tasks SET deleted_at = $2 WHERE id = $1";
    let board = board(tx, p, &input.channel).await?;
    let Some(task) = lock_deletion(tx, &board, input).await? else {
        return Err(task_not_found(tx, p, &board, input.number).await);
    };
    if task.creator != p.agent_id {
        let creator = agent_handle(tx, &task.creator).await?;
        return Err(refusals::not_task_creator(input.number, &creator).into());
    }
    let children = live_children(tx, &[task.id]).await?;
    let mut deleted = vec![(task.id, input.number)];
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
                    let ids: Vec<i64> = level.iter().map(|(id, ..)| *id).collect();
                    level = live_children(tx, &ids).await?;
                }
                return Err(
                    refusals::subtask_mode_required(input.number, children.len(), foreign).into(),
                );
            }
            Some(SubtaskMode::Promote) => {
                promoted = children
                    .iter()
                    .map(|(id, number, _)| (*id, *number))
                    .collect();
            }
            Some(SubtaskMode::Delete) => {
                // Level by level, each level locked at once in number
                // order, as a claim locks its tasks (one parent's subtasks
                // after another's crossed a claim of both: a deadlock).
                let mut descendants = Vec::new();
                let mut level = children;
                while !level.is_empty() {
                    if let Some(number) = refusals::made_by_another(&level, &p.agent_id) {
                        return Err(refusals::subtask_creator_mismatch(number).into());
                    }
                    let ids: Vec<i64> = level.iter().map(|(id, ..)| *id).collect();
                    descendants.extend(level.into_iter().map(|(id, number, _)| (id, number)));
                    level = live_children(tx, &ids).await?;
                }
                descendants.sort_by_key(|(_, number)| *number);
                deleted.extend(descendants);
            }
        }
    }
    // Every row the delete changes is locked now (`lock_deletion`, and
    // `live_children` for each level as it reads it): read the clock only
    // here, so a write to a descendant that the delete waited for is
    // stamped before it.
    let now = clock(tx).await?;
    for (child, _) in &promoted {
        exec(tx, PROMOTE, &[child]).await?;
        touch(tx, *child, now).await?;
        let detail = json!({"former_parent": input.number});
        event(tx, *child, "promoted", p, now, detail).await?;
    }
    for (id, number) in &deleted {
        exec(tx, TOMBSTONE, &[id, &now]).await?;
        event(tx, *id, "deleted", p, now, json!({"number": number})).await?;
    }
    let promoted = promoted.into_iter().map(|(_, number)| number).collect();
    Ok(deletion(&deleted, promoted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_past_postgresqls_longest_lexeme_is_cut_at_a_character() {
        let long = "w".repeat(3000);
        assert_eq!(clip_lexeme(&long).len(), MAX_LEXEME);
        // 2045 bytes, then a two-byte letter that would end past the limit.
        let mixed = format!("{}é", "w".repeat(2045));
        assert_eq!(clip_lexeme(&mixed), "w".repeat(2045));
        assert_eq!(clip_lexeme("short"), "short");
        let vector = search_vector("t", Some(&long));
        assert_eq!(vector, format!("'t':1A '{}':2B", "w".repeat(MAX_LEXEME)));
    }

    #[test]
    fn search_literals_carry_folded_words_and_stems_with_weights() {
        assert_eq!(
            search_vector("Fix Café", Some("the café")),
            "'fix':1A 'cafe':2A 'the':3B 'cafe':4B"
        );
        assert_eq!(search_vector("x", None), "'x':1A");
        assert_eq!(
            search_query(" Café, déjà!").as_deref(),
            Some("'cafe':* & 'deja':*")
        );
        assert_eq!(search_query("?!"), None);
        assert_eq!(
            search_vector("Releases", Some("studies")),
            "'releases':1A 'releas':1A 'studies':2B 'studi':2B"
        );
        assert_eq!(
            search_query("deploying rel").as_deref(),
            Some("('deploying':* | 'deploy') & 'rel':*")
        );
    }
}
