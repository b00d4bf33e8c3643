//! The admin operations on PostgreSQL: workspaces, agents and their tokens,
//! boards and workflow callbacks, and the token lookup every request makes.
//! A write runs inside the transaction its caller opened, at the time `now`
//! read from the database's clock.

use std::sync::LazyLock;

use deadpool_postgres::{GenericClient, Object, Transaction};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::super::refusals;
use super::super::{
    AgentInfo, Callback, ChannelInfo, NewToken, Principal, TokenCounts, TokenRecord, WorkspaceInfo,
    stored_scope,
};
use super::connections::{Result, all, clock, exec, maybe, one};
use super::reads;

/// The lateral subquery that finds the live token whose hash is the column
/// `$hash`: its [`TOKEN_COLUMNS`] columns, read by [`token_record`]. Expiry
/// is judged by the database's clock, the one that set it. `OFFSET 0`: see
/// `gets::get_tasks`.
macro_rules! live_token {
    ($hash:literal) => {
        concat!(
            "SELECT k.hash, a.workspace_id, a.id AS agent_id, a.handle, k.scope \
             FROM tokens k JOIN agents a ON a.id = k.agent_id WHERE k.hash = ",
            $hash,
            " AND k.revoked_at IS NULL AND (k.expires_at IS NULL \
             OR k.expires_at > (extract(epoch FROM clock_timestamp()) * 1000000)::bigint) \
             OFFSET 0"
        )
    };
}
pub(super) use live_token;

/// How many columns `live_token!` has.
pub(super) const TOKEN_COLUMNS: usize = 5;

/// The token whose `live_token!` columns start at `at` in `row`.
pub(super) fn token_record(row: &Row, at: usize) -> TokenRecord {
    TokenRecord {
        hash: row.get(at),
        principal: Principal {
            workspace_id: row.get(at + 1),
            agent_id: row.get(at + 2),
            handle: row.get(at + 3),
        },
        scope: stored_scope(row.get(at + 4)),
    }
}

/// [`find_tokens`]' statement for each batch size.
pub(super) static FIND_TOKENS: LazyLock<reads::Statements> = LazyLock::new(|| {
    reads::statements(
        concat!(
            "SELECT r.*, q.i FROM {rows} CROSS JOIN LATERAL (",
            live_token!("q.hash"),
            ") r"
        ),
        &[("hash", "bytea")],
        0,
    )
});

/// The live tokens with these hashes, one answer per hash, in order: one
/// statement for a batch of requests (`reads.rs`), each hash looked up by
/// its own lateral subquery, by the primary key.
pub(super) async fn find_tokens(
    c: &Object,
    hashes: &[&[u8; 32]],
) -> Result<Vec<Result<Option<TokenRecord>>>> {
    let (sql, size) = reads::statement(&FIND_TOKENS, hashes.len());
    let nothing: &[u8] = &[];
    let keys: Vec<&[u8]> = (0..size)
        .map(|at| hashes.get(at).map_or(nothing, |hash| hash.as_slice()))
        .collect();
    let params: Vec<&(dyn ToSql + Sync)> = keys.iter().map(|key| key as _).collect();
    let rows = all(c, sql, &params).await?;
    Ok(reads::by_request(rows, hashes.len(), TOKEN_COLUMNS)
        .into_iter()
        .map(|row| Ok(row.map(|r| token_record(&r, 0))))
        .collect())
}

/// Token lookups, by the token's hash, batched (`reads.rs`).
pub(super) struct Tokens;

impl reads::Batch for Tokens {
    type Input = [u8; 32];
    type Output = Option<TokenRecord>;

    fn statements() -> &'static reads::Statements {
        &FIND_TOKENS
    }

    async fn run(c: &Object, hashes: &[&[u8; 32]]) -> Result<Vec<Result<Option<TokenRecord>>>> {
        find_tokens(c, hashes).await
    }
}

pub(super) async fn create_workspace(
    tx: &Transaction<'_>,
    id: &str,
    name: &str,
    now: i64,
) -> Result<()> {
    const SQL: &str = "INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3)";
    exec(tx, SQL, &[&id, &name, &now]).await?;
    Ok(())
}

/// The oldest workspace named `name`, or `id` made with that name: under a
/// transaction-scoped advisory lock on the name, so that transactions
/// doing this at once take turns and the later ones find the first's.
pub(super) async fn find_or_create_workspace(
    tx: &Transaction<'_>,
    id: &str,
    name: &str,
    now: i64,
) -> Result<(String, bool)> {
    const TURN: &str = "SELECT pg_advisory_xact_lock(hashtextextended('workspace:' || $1, 0))";
    one(tx, TURN, &[&name]).await?;
    const FIND: &str = "SELECT id FROM workspaces WHERE name = $1 ORDER BY created_at LIMIT 1";
    if let Some(found) = maybe(tx, FIND, &[&name]).await? {
        return Ok((found.get(0), false));
    }
    create_workspace(tx, id, name, now).await?;
    Ok((id.to_string(), true))
}

/// The agent and its first token, together; returns the token's expiry.
pub(super) async fn create_agent(
    tx: &Transaction<'_>,
    id: &str,
    workspace_id: &str,
    handle: &str,
    token: &NewToken,
    now: i64,
) -> Result<i64> {
    const AGENT: &str = "INSERT INTO agents (id, workspace_id, handle, created_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (workspace_id, handle) DO NOTHING";
    require_workspace(tx, workspace_id).await?;
    if exec(tx, AGENT, &[&id, &workspace_id, &handle, &now]).await? == 0 {
        return Err(refusals::handle_taken().into());
    }
    insert_token(tx, id, token, now).await
}

pub(super) async fn issue_token(
    tx: &Transaction<'_>,
    workspace_id: &str,
    agent: &str,
    token: &NewToken,
    now: i64,
) -> Result<i64> {
    let agent = require_agent(tx, workspace_id, agent).await?;
    insert_token(tx, &agent.agent_id, token, now).await
}

/// Deletes the store's dead tokens (expired or revoked: none of them can
/// authenticate again), then stores `token`; returns its expiry.
async fn insert_token(
    tx: &Transaction<'_>,
    agent_id: &str,
    token: &NewToken,
    now: i64,
) -> Result<i64> {
    const PRUNE_EXPIRED: &str = "DELETE FROM tokens WHERE expires_at <= $1";
    const PRUNE_REVOKED: &str = "DELETE FROM tokens WHERE revoked_at IS NOT NULL";
    const TOKEN: &str = "INSERT INTO tokens (hash, agent_id, created_at, scope, expires_at) \
         VALUES ($1, $2, $3, $4, $5)";
    exec(tx, PRUNE_EXPIRED, &[&now]).await?;
    exec(tx, PRUNE_REVOKED, &[]).await?;
    let expires_at = now.saturating_add(token.ttl_us);
    let (hash, scope) = (token.hash.as_slice(), token.scope.as_str());
    exec(tx, TOKEN, &[&hash, &agent_id, &now, &scope, &expires_at]).await?;
    Ok(expires_at)
}

pub(super) async fn count_tokens(
    c: &Object,
    workspace_id: &str,
    agent: &str,
) -> Result<TokenCounts> {
    const SQL: &str = "SELECT count(*) FILTER (WHERE revoked_at IS NULL \
         AND (expires_at IS NULL OR expires_at > (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)), \
         count(*) FROM tokens WHERE agent_id = $1";
    let agent = require_agent(c, workspace_id, agent).await?;
    let row = one(c, SQL, &[&agent.agent_id]).await?;
    let (live, stored): (i64, i64) = (row.get(0), row.get(1));
    Ok(TokenCounts {
        live: live.unsigned_abs(),
        stored: stored.unsigned_abs(),
    })
}

pub(super) async fn revoke_tokens(
    tx: &Transaction<'_>,
    workspace_id: &str,
    agent: &str,
    now: i64,
) -> Result<u64> {
    const SQL: &str = "UPDATE tokens SET revoked_at = $1 WHERE agent_id = $2 AND revoked_at IS NULL \
         AND (expires_at IS NULL OR expires_at > $1)";
    let agent = require_agent(tx, workspace_id, agent).await?;
    exec(tx, SQL, &[&now, &agent.agent_id]).await
}

pub(super) async fn create_channel(
    tx: &Transaction<'_>,
    workspace_id: &str,
    name: &str,
    members: Option<&[String]>,
    now: i64,
) -> Result<()> {
    const CHANNEL: &str = "INSERT INTO channels (workspace_id, name, private, created_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (workspace_id, name) DO NOTHING RETURNING id";
    const MEMBER: &str = "INSERT INTO channel_members (channel_id, agent_id) VALUES ($1, $2) \
         ON CONFLICT DO NOTHING";
    require_workspace(tx, workspace_id).await?;
    let private = members.is_some();
    let Some(row) = maybe(tx, CHANNEL, &[&workspace_id, &name, &private, &now]).await? else {
        return Err(refusals::channel_taken().into());
    };
    let channel_id: i64 = row.get(0);
    let members = members.unwrap_or_default();
    let mut missing = Vec::new();
    for member in members {
        let Some(agent) = find_agent(tx, workspace_id, member).await? else {
            let exists = handle_exists(tx, workspace_id, member).await?;
            missing.push((member.clone(), exists));
            continue;
        };
        exec(tx, MEMBER, &[&channel_id, &agent.agent_id]).await?;
    }
    if !missing.is_empty() {
        return Err(refusals::no_such_members(members, &missing).into());
    }
    Ok(())
}

pub(super) async fn list_workspaces(c: &Object) -> Result<Vec<WorkspaceInfo>> {
    const SQL: &str = "SELECT id, name, created_at FROM workspaces ORDER BY created_at, id";
    Ok(all(c, SQL, &[])
        .await?
        .iter()
        .map(|r| WorkspaceInfo {
            workspace_id: r.get(0),
            name: r.get(1),
            created_at: r.get(2),
        })
        .collect())
}

/// Ordered byte by byte (`COLLATE "C"`), as SQLite orders text, whatever
/// the database's collation: the same list on every engine.
pub(super) async fn list_agents(c: &Object, workspace_id: &str) -> Result<Vec<AgentInfo>> {
    const SQL: &str = "SELECT id, handle, created_at FROM agents WHERE workspace_id = $1 ORDER BY handle COLLATE \"C\"";
    require_workspace(c, workspace_id).await?;
    Ok(all(c, SQL, &[&workspace_id])
        .await?
        .iter()
        .map(|r| AgentInfo {
            agent_id: r.get(0),
            handle: r.get(1),
            created_at: r.get(2),
        })
        .collect())
}

pub(super) async fn list_channels(c: &Object, workspace_id: &str) -> Result<Vec<ChannelInfo>> {
    const SQL: &str = "SELECT c.name, c.private, c.created_at, a.handle FROM channels c \
         LEFT JOIN channel_members m ON m.channel_id = c.id \
         LEFT JOIN agents a ON a.id = m.agent_id \
         WHERE c.workspace_id = $1 ORDER BY c.name COLLATE \"C\", a.handle COLLATE \"C\"";
    require_workspace(c, workspace_id).await?;
    let rows = all(c, SQL, &[&workspace_id]).await?;
    Ok(ChannelInfo::fold(
        rows.iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))),
    ))
}

pub(super) async fn channel_exists(c: &Object, workspace_id: &str, name: &str) -> Result<bool> {
    const SQL: &str =
        "SELECT EXISTS (SELECT 1 FROM channels WHERE workspace_id = $1 AND name = $2)";
    Ok(one(c, SQL, &[&workspace_id, &name]).await?.get(0))
}

pub(super) async fn open_callback(
    tx: &Transaction<'_>,
    workspace_id: &str,
    agent: &str,
    callback: &Callback,
    now: i64,
) -> Result<()> {
    const SQL: &str = "INSERT INTO callbacks (effect_id, run_id, workspace_id, agent_id, \
         opened_at) VALUES ($1, $2, $3, $4, $5)";
    let agent = require_agent(tx, workspace_id, agent).await?;
    exec(
        tx,
        SQL,
        &[
            &callback.callback_effect_id,
            &callback.workflow_run_id,
            &workspace_id,
            &agent.agent_id,
            &now,
        ],
    )
    .await?;
    Ok(())
}

/// Completes the callback, stamped once its row is held: after the keyed
/// creates that found it open (each holds it `FOR SHARE` to its commit)
/// have committed, so no effect is stamped after its callback closed.
pub(super) async fn complete_callback(
    tx: &Transaction<'_>,
    workspace_id: &str,
    callback_effect_id: &str,
) -> Result<()> {
    const LOCK: &str = "SELECT 1 FROM callbacks WHERE effect_id = $1 AND workspace_id = $2 \
         FOR UPDATE";
    if maybe(tx, LOCK, &[&callback_effect_id, &workspace_id])
        .await?
        .is_none()
    {
        return Err(refusals::no_such_callback_effect().into());
    }
    let now = clock(tx).await?;
    const SQL: &str = "UPDATE callbacks SET completed_at = coalesce(completed_at, $1) \
         WHERE effect_id = $2";
    exec(tx, SQL, &[&now, &callback_effect_id]).await?;
    Ok(())
}

/// An agent given as `ag_…` id or `@handle`, within the workspace.
pub(super) async fn find_agent<C: GenericClient>(
    c: &C,
    workspace_id: &str,
    agent: &str,
) -> Result<Option<Principal>> {
    const BY_HANDLE: &str = "SELECT id, handle FROM agents WHERE workspace_id = $1 AND handle = $2";
    const BY_ID: &str = "SELECT id, handle FROM agents WHERE workspace_id = $1 AND id = $2";
    let (sql, value) = match agent.strip_prefix('@') {
        Some(handle) => (BY_HANDLE, handle),
        None => (BY_ID, agent),
    };
    Ok(maybe(c, sql, &[&workspace_id, &value])
        .await?
        .map(|r| Principal {
            workspace_id: workspace_id.to_string(),
            agent_id: r.get(0),
            handle: r.get(1),
        }))
}

async fn require_workspace<C: GenericClient>(c: &C, workspace_id: &str) -> Result<()> {
    const SQL: &str = "SELECT EXISTS (SELECT 1 FROM workspaces WHERE id = $1)";
    if one(c, SQL, &[&workspace_id]).await?.get(0) {
        return Ok(());
    }
    const NAMED: &str =
        "SELECT id FROM workspaces WHERE name = $1 ORDER BY created_at, id LIMIT $2";
    let limit = refusals::MAX_NAMED_WORKSPACES as i64;
    let named: Vec<String> = c
        .query(NAMED, &[&workspace_id, &limit])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    Err(refusals::no_such_workspace(workspace_id, &named).into())
}

async fn require_agent<C: GenericClient>(
    c: &C,
    workspace_id: &str,
    agent: &str,
) -> Result<Principal> {
    require_workspace(c, workspace_id).await?;
    match find_agent(c, workspace_id, agent).await? {
        Some(found) => Ok(found),
        None => {
            let exists = handle_exists(c, workspace_id, agent).await?;
            Err(refusals::no_such_agent(agent, exists).into())
        }
    }
}

/// Whether a bare word (`refusals::bare_word`) is the handle of an agent
/// of the workspace, written without its `@`.
async fn handle_exists<C: GenericClient>(c: &C, workspace_id: &str, word: &str) -> Result<bool> {
    if !refusals::bare_word(word) {
        return Ok(false);
    }
    Ok(find_agent(c, workspace_id, &format!("@{word}"))
        .await?
        .is_some())
}
