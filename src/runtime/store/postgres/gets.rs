//! task.get on PostgreSQL: the batched statements that read a task's detail
//! (and, for a task.get, its token) for every request that queued while
//! earlier statements ran (`reads.rs`), and the answer built from each row.

use std::sync::LazyLock;

use deadpool_postgres::Object;
use serde_json::Value;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::super::columns::Column;
use super::super::*;
use super::admin::{self, live_token};
use super::connections::{Error, Result, all};
use super::reads;
use super::tasks::{
    TASK_COLUMNS, board, json_field, task_columns, task_from, task_not_found, task_row,
    usable_boards,
};
use crate::registry::task::get::{MAX_CHECKPOINTS, MAX_SUBTASKS};

/// Task details in one statement, one answer per request, in order. The
/// requests are the rows of a table of parameters (`reads::statements`),
/// each read by the same lateral subquery ([`get_one!`]). Its `OFFSET 0`
/// keeps PostgreSQL from merging that subquery into one join over all the
/// requests, which, before the tables' first `ANALYZE`, it planned as a
/// scan of the whole board per request; kept apart, each request is
/// planned as a one-task statement is, by the board's unique
/// `(channel_id, number)` whatever the statistics. One statement costs
/// PostgreSQL a fraction of one per request (docs/performance.md). Only a
/// task that is not there (or a board the caller may not use) takes a
/// second trip, to ask the board why ([`answer_get`]).
pub(super) async fn get_tasks(
    c: &Object,
    gets: &[&(Principal, TaskLocator)],
) -> Result<Vec<Result<Value>>> {
    let found = reads::by_request(get_rows(c, gets).await?, gets.len(), TASK_COLUMNS + 5);
    let mut answers = Vec::with_capacity(gets.len());
    for ((p, input), row) in gets.iter().map(|get| (&get.0, &get.1)).zip(found) {
        answers.push(answer_get(c, row.as_ref(), p, input).await);
    }
    Ok(answers)
}

/// The answer to one get from its row of [`GET_TASKS`] or [`TOKEN_GETS`]:
/// the detail, or, for a task that is not there (or a board the caller may
/// not use), a second trip to ask the board why.
async fn answer_get(
    c: &Object,
    row: Option<&Row>,
    p: &Principal,
    input: &TaskLocator,
) -> Result<Value> {
    // Null where a token's get found no task.
    let usable = row.and_then(|row| Some((row, row.get::<_, Option<bool>>(TASK_COLUMNS)?)));
    match usable {
        Some((row, true)) => Ok(task_detail(row, p, input)),
        Some((_, false)) => {
            let boards = usable_boards(c, p).await?;
            Err(refusals::channel_not_found(&input.channel, boards).into())
        }
        // No such board, not a member, or no such task: the board says which.
        None => Err(match board(c, p, &input.channel).await {
            Ok(board) => task_not_found(c, p, &board, input.number).await,
            Err(e) => e,
        }),
    }
}

/// `task_get`s, each with the caller it reads for, batched (`reads.rs`).
pub(super) struct Gets;

impl reads::Batch for Gets {
    type Input = (Principal, TaskLocator);
    type Output = Value;

    fn statements() -> &'static reads::Statements {
        &GET_TASKS
    }

    async fn run(c: &Object, gets: &[&(Principal, TaskLocator)]) -> Result<Vec<Result<Value>>> {
        get_tasks(c, gets).await
    }
}

/// `task_get`s by bearer token, batched (`reads.rs`): the token's lookup
/// and the get in one statement ([`token_gets`]).
pub(super) struct TokenGets;

impl reads::Batch for TokenGets {
    type Input = ([u8; 32], TaskLocator);
    type Output = Option<(TokenRecord, std::result::Result<Value, Failure>)>;

    fn statements() -> &'static reads::Statements {
        &TOKEN_GETS
    }

    async fn run(
        c: &Object,
        gets: &[&([u8; 32], TaskLocator)],
    ) -> Result<Vec<Result<Self::Output>>> {
        token_gets(c, gets).await
    }
}

/// The lateral subquery that reads one get's task for the caller whose
/// workspace and agent id are the columns `$ws` and `$agent`, from the row
/// `q` of a table of parameters (`board`, `number`, `before`): the task
/// (with whether the caller may use its board) and, as scalar subqueries,
/// the total and first page of its live subtasks and of its checkpoints,
/// each page a JSON array of rows (`json_build_array`, the columns of
/// [`task_row`] and of a checkpoint). A subtask's board is its parent's
/// (`c`), not joined again: with the board joined, PostgreSQL could AND
/// the subtasks' index with a scan of the whole board's index, a read of
/// every task of the board per get (seen at tens of milliseconds a
/// statement once a board held 36,000 tasks, docs/performance.md). The
/// pages' sizes are `$1` and `$2`
/// ([`PAGES`]). Its `OFFSET 0` keeps PostgreSQL from merging it into one
/// join over all the requests (see [`get_tasks`]).
macro_rules! get_one {
    ($ws:literal, $agent:literal) => {
        concat!(
            "SELECT ",
            task_columns!(),
            ", NOT c.private OR EXISTS (SELECT 1 FROM channel_members m \
             WHERE m.channel_id = c.id AND m.agent_id = ",
            $agent,
            "), \
             (SELECT count(*) FROM tasks s WHERE s.parent_id = t.id AND s.deleted_at IS NULL), \
             (SELECT json_agg(page.item ORDER BY page.number) FROM (SELECT s.number, \
                json_build_array(",
            $crate::runtime::store::columns::task_row!(select("s", "c", "sa", "t", "scb")),
            ") AS item \
              FROM tasks s \
              JOIN agents scb ON scb.id = s.created_by LEFT JOIN agents sa ON sa.id = s.assignee_id \
              WHERE s.parent_id = t.id AND s.deleted_at IS NULL ORDER BY s.number LIMIT $1) page), \
             (SELECT count(*) FROM checkpoints k WHERE k.task_id = t.id AND k.number < q.before), \
             (SELECT json_agg(page.item ORDER BY page.number DESC) FROM (SELECT k.number, \
                json_build_array(k.number, k.summary, ka.handle, k.created_at) AS item \
              FROM checkpoints k JOIN agents ka ON ka.id = k.created_by \
              WHERE k.task_id = t.id AND k.number < q.before ORDER BY k.number DESC LIMIT $2) page) ",
            task_from!(),
            " WHERE c.workspace_id = ",
            $ws,
            " AND c.name = q.board \
             AND t.number = q.number AND t.deleted_at IS NULL OFFSET 0"
        )
    };
}

/// [`get_tasks`]' statement for each batch size.
pub(super) static GET_TASKS: LazyLock<reads::Statements> = LazyLock::new(|| {
    reads::statements(
        concat!(
            "SELECT r.*, q.i FROM {rows} CROSS JOIN LATERAL (",
            get_one!("q.workspace_id", "q.agent_id"),
            ") r"
        ),
        &[
            ("workspace_id", "text"),
            ("board", "text"),
            ("number", "bigint"),
            ("agent_id", "text"),
            ("before", "bigint"),
        ],
        2,
    )
});

/// [`token_gets`]' statement for each batch size: each request's live
/// token (`admin::live_token!`, as `who`) and, for it, the get's task as
/// [`GET_TASKS`] reads it, or nulls when there is none. A request whose
/// token is not live has no row.
pub(super) static TOKEN_GETS: LazyLock<reads::Statements> = LazyLock::new(|| {
    reads::statements(
        concat!(
            "SELECT r.*, who.*, q.i FROM {rows} CROSS JOIN LATERAL (",
            live_token!("q.hash"),
            ") who LEFT JOIN LATERAL (",
            get_one!("who.workspace_id", "who.agent_id"),
            ") r ON true"
        ),
        &[
            ("hash", "bytea"),
            ("board", "text"),
            ("number", "bigint"),
            ("before", "bigint"),
        ],
        2,
    )
});

/// The sections' page sizes: the first two parameters of [`GET_TASKS`] and
/// [`TOKEN_GETS`].
static PAGES: [i64; 2] = [MAX_SUBTASKS as i64, MAX_CHECKPOINTS as i64];

/// Each get's bound on its checkpoints' ids (`checkpoints_before`; none:
/// every checkpoint).
fn befores<'a>(inputs: impl Iterator<Item = &'a TaskLocator>) -> Vec<i64> {
    inputs
        .map(|input| input.checkpoints_before.unwrap_or(i64::MAX))
        .collect()
}

/// `task_get`s by bearer token, in one statement with the tokens' lookup
/// ([`TOKEN_GETS`]): for each request, nothing when its token is not live,
/// or the token's record and the get's answer for the token's principal
/// (the caller admits the token before it answers with it). A request is
/// one round trip where a lookup and then a get are two.
pub(super) async fn token_gets(
    c: &Object,
    gets: &[&([u8; 32], TaskLocator)],
) -> Result<Vec<Result<<TokenGets as reads::Batch>::Output>>> {
    const NOWHERE: &str = "";
    let (sql, size) = reads::statement(&TOKEN_GETS, gets.len());
    let befores = befores(gets.iter().map(|(_, input)| input));
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&PAGES[0], &PAGES[1]];
    let hashes: Vec<&[u8]> = gets.iter().map(|(hash, _)| hash.as_slice()).collect();
    for (((_, input), hash), before) in gets
        .iter()
        .map(|get| (&get.0, &get.1))
        .zip(&hashes)
        .zip(&befores)
    {
        params.extend([
            hash as &(dyn ToSql + Sync),
            &input.channel,
            &input.number,
            before,
        ]);
    }
    // Padding: no token has an empty hash.
    let nothing: &[u8] = &[];
    for _ in gets.len()..size {
        params.extend([&nothing as &(dyn ToSql + Sync), &NOWHERE, &0i64, &0i64]);
    }
    let rows = all(c, sql, &params).await?;
    let tokens = TASK_COLUMNS + 5;
    let found = reads::by_request(rows, gets.len(), tokens + admin::TOKEN_COLUMNS);
    let mut answers = Vec::with_capacity(gets.len());
    for ((_, input), row) in gets.iter().map(|get| (&get.0, &get.1)).zip(found) {
        let Some(row) = row else {
            answers.push(Ok(None));
            continue;
        };
        let record = admin::token_record(&row, tokens);
        answers.push(
            match answer_get(c, Some(&row), &record.principal, input).await {
                Ok(detail) => Ok(Some((record, Ok(detail)))),
                Err(Error::Refused(refusal)) => Ok(Some((record, Err(refusal)))),
                Err(e) => Err(e),
            },
        );
    }
    Ok(answers)
}

/// The rows of [`get_tasks`]' statement.
async fn get_rows(c: &Object, gets: &[&(Principal, TaskLocator)]) -> Result<Vec<Row>> {
    const NOWHERE: &str = "";
    let (sql, size) = reads::statement(&GET_TASKS, gets.len());
    let befores = befores(gets.iter().map(|(_, input)| input));
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&PAGES[0], &PAGES[1]];
    for ((p, input), before) in gets.iter().map(|get| (&get.0, &get.1)).zip(&befores) {
        params.extend([
            &p.workspace_id as &(dyn ToSql + Sync),
            &input.channel,
            &input.number,
            &p.agent_id,
            before,
        ]);
    }
    // Padding: a board of no workspace, which matches nothing.
    for _ in gets.len()..size {
        params.extend([
            &NOWHERE as &(dyn ToSql + Sync),
            &NOWHERE,
            &0i64,
            &NOWHERE,
            &0i64,
        ]);
    }
    all(c, sql, &params).await
}

/// The plan PostgreSQL keeps for [`get_tasks`]' statement, or with
/// `by_token` for [`token_gets`]' (its tokens' hashes all empty): its
/// generic plan, made without the parameters' values, for a test. (An
/// `EXPLAIN` of the statement with its parameters would show a plan for
/// their values.)
#[cfg(test)]
pub(super) async fn explain_gets(
    c: &Object,
    gets: &[&(Principal, TaskLocator)],
    by_token: bool,
) -> Result<String> {
    use tokio_postgres::SimpleQueryMessage;
    let statements = if by_token { &TOKEN_GETS } else { &GET_TASKS };
    let (sql, size) = reads::statement(statements, gets.len());
    let text = |text: &str| format!("'{}'", text.replace('\'', "''"));
    let mut args = vec![MAX_SUBTASKS.to_string(), MAX_CHECKPOINTS.to_string()];
    for at in 0..size {
        let (p, input) = match gets.get(at) {
            Some((p, input)) => (p.clone(), input.clone()),
            None => (
                Principal {
                    workspace_id: String::new(),
                    agent_id: String::new(),
                    handle: String::new(),
                },
                TaskLocator {
                    channel: String::new(),
                    number: 0,
                    checkpoints_before: Some(0),
                },
            ),
        };
        let before = input.checkpoints_before.unwrap_or(i64::MAX).to_string();
        let (board, number) = (text(&input.channel), input.number.to_string());
        if by_token {
            args.extend(["'\\x'".to_string(), board, number, before]);
        } else {
            let (ws, agent) = (text(&p.workspace_id), text(&p.agent_id));
            args.extend([ws, board, number, agent, before]);
        }
    }
    c.batch_execute(&format!(
        "SET plan_cache_mode = force_generic_plan; PREPARE explain_gets AS {sql}"
    ))
    .await?;
    let plan = c
        .simple_query(&format!(
            "EXPLAIN EXECUTE explain_gets({})",
            args.join(", ")
        ))
        .await;
    c.batch_execute("DEALLOCATE explain_gets; RESET plan_cache_mode")
        .await?;
    Ok(plan?
        .iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => row.get(0).map(|line| line.to_string() + "\n"),
            _ => None,
        })
        .collect())
}

/// The detail of one row of [`get_tasks`].
fn task_detail(row: &Row, p: &Principal, input: &TaskLocator) -> Value {
    let page = |column: usize| -> Vec<Value> {
        match row.get::<_, Option<Value>>(column) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        }
    };
    let detail = task_row(row).detail(
        Section {
            items: page(TASK_COLUMNS + 2)
                .iter()
                .map(|item| json_task_row(item).compact())
                .collect(),
            total: row.get(TASK_COLUMNS + 1),
        },
        Section {
            items: page(TASK_COLUMNS + 4)
                .iter()
                .map(|item| {
                    let text = |i: usize| item[i].as_str().unwrap_or_default();
                    let int = |i: usize| item[i].as_i64().unwrap_or_default();
                    checkpoint_value(int(0), text(1), text(2), int(3))
                })
                .collect(),
            total: row.get(TASK_COLUMNS + 3),
        },
    );
    let detail = fit_detail(detail, crate::registry::task::get::ACTION.budget.bytes());
    link_sections(detail, p, input)
}

/// A task row read as a JSON array of [`task_row`]'s columns, in order (the
/// subtask page of [`get_tasks`]).
fn json_task_row(item: &Value) -> TaskRow {
    let at = |column: Column| &item[column as usize];
    let text = |column: Column| at(column).as_str().map(str::to_string);
    let int = |column: Column| at(column).as_i64();
    TaskRow {
        number: int(Column::Number).unwrap_or_default(),
        channel: text(Column::Board).unwrap_or_default(),
        scope_id: text(Column::ScopeId).unwrap_or_default(),
        title: text(Column::Title).unwrap_or_default(),
        description: text(Column::Description),
        status: text(Column::Status).unwrap_or_default(),
        priority: text(Column::Priority).unwrap_or_default(),
        assignee: text(Column::Assignee),
        parent_number: int(Column::ParentNumber),
        labels: json_field(at(Column::Labels).clone()),
        checklist: json_field(at(Column::Checklist).clone()),
        urls: json_field(at(Column::Urls).clone()),
        attachments: json_field(at(Column::Attachments).clone()),
        blocker: text(Column::Blocker),
        source_target: text(Column::SourceTarget),
        created_by: text(Column::CreatedBy).unwrap_or_default(),
        created_at: int(Column::CreatedAt).unwrap_or_default(),
        updated_at: int(Column::UpdatedAt).unwrap_or_default(),
    }
}
