//! The admin operations on SQLite: workspaces, agents and their tokens,
//! boards and workflow callbacks, and the token lookup every request makes.

use rusqlite::{Connection, OptionalExtension, params};

use super::super::refusals;
use super::super::{
    AgentInfo, Callback, ChannelInfo, NewToken, Principal, TokenCounts, TokenRecord, WorkspaceInfo,
    stored_scope,
};
use super::connections::Cached;
use crate::error::Failure;
use crate::runtime::clock;

pub(super) fn find_token(
    c: &Connection,
    token_hash: &[u8; 32],
) -> Result<Option<TokenRecord>, Failure> {
    Ok(c.row_cached(
        "SELECT k.hash, a.workspace_id, a.id, a.handle, k.scope FROM tokens k \
         JOIN agents a ON a.id = k.agent_id WHERE k.hash = ?1 AND k.revoked_at IS NULL \
         AND (k.expires_at IS NULL OR k.expires_at > ?2)",
        params![token_hash.as_slice(), clock::now()],
        |r| {
            Ok(TokenRecord {
                hash: r.get(0)?,
                principal: Principal {
                    workspace_id: r.get(1)?,
                    agent_id: r.get(2)?,
                    handle: r.get(3)?,
                },
                scope: stored_scope(&r.get::<_, String>(4)?),
            })
        },
    )
    .optional()?)
}

pub(super) fn create_workspace(c: &Connection, id: &str, name: &str) -> Result<(), Failure> {
    c.exec_cached(
        "INSERT INTO workspaces (id, name, created_at) VALUES (?1, ?2, ?3)",
        params![id, name, clock::now()],
    )?;
    Ok(())
}

pub(super) fn find_workspace(c: &Connection, name: &str) -> Result<Option<String>, Failure> {
    Ok(c.row_cached(
        "SELECT id FROM workspaces WHERE name = ?1 ORDER BY created_at LIMIT 1",
        [name],
        |r| r.get(0),
    )
    .optional()?)
}

/// The agent and its first token, together; returns the token's expiry.
pub(super) fn create_agent(
    c: &Connection,
    id: &str,
    workspace_id: &str,
    handle: &str,
    token: &NewToken,
) -> Result<i64, Failure> {
    require_workspace(c, workspace_id)?;
    if find_agent(c, workspace_id, &format!("@{handle}"))?.is_some() {
        return Err(refusals::handle_taken());
    }
    let now = clock::now();
    c.exec_cached(
        "INSERT INTO agents (id, workspace_id, handle, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![id, workspace_id, handle, now],
    )?;
    insert_token(c, id, token, now)
}

pub(super) fn issue_token(
    c: &Connection,
    workspace_id: &str,
    agent: &str,
    token: &NewToken,
) -> Result<i64, Failure> {
    let agent = require_agent(c, workspace_id, agent)?;
    insert_token(c, &agent.agent_id, token, clock::now())
}

/// The dead tokens every issue deletes, each read through its own index.
pub(super) const PRUNE_EXPIRED: &str = "DELETE FROM tokens WHERE expires_at <= ?1";
pub(super) const PRUNE_REVOKED: &str = "DELETE FROM tokens WHERE revoked_at IS NOT NULL";

/// Deletes the store's dead tokens (expired or revoked: none of them can
/// authenticate again), then stores `token`; returns its expiry.
fn insert_token(
    c: &Connection,
    agent_id: &str,
    token: &NewToken,
    now: i64,
) -> Result<i64, Failure> {
    c.exec_cached(PRUNE_EXPIRED, [now])?;
    c.exec_cached(PRUNE_REVOKED, [])?;
    let expires_at = now.saturating_add(token.ttl_us);
    c.exec_cached(
        "INSERT INTO tokens (hash, agent_id, created_at, scope, expires_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            token.hash.as_slice(),
            agent_id,
            now,
            token.scope.as_str(),
            expires_at
        ],
    )?;
    Ok(expires_at)
}

pub(super) fn count_tokens(
    c: &Connection,
    workspace_id: &str,
    agent: &str,
) -> Result<TokenCounts, Failure> {
    let agent = require_agent(c, workspace_id, agent)?;
    let (live, stored): (i64, i64) = c.row_cached(
        "SELECT coalesce(sum(revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)), 0), \
         count(*) FROM tokens WHERE agent_id = ?1",
        params![agent.agent_id, clock::now()],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(TokenCounts {
        live: live.unsigned_abs(),
        stored: stored.unsigned_abs(),
    })
}

pub(super) fn revoke_tokens(
    c: &Connection,
    workspace_id: &str,
    agent: &str,
) -> Result<u64, Failure> {
    let agent = require_agent(c, workspace_id, agent)?;
    let n = c.exec_cached(
        "UPDATE tokens SET revoked_at = ?1 WHERE agent_id = ?2 AND revoked_at IS NULL \
         AND (expires_at IS NULL OR expires_at > ?1)",
        params![clock::now(), agent.agent_id],
    )?;
    Ok(n as u64)
}

pub(super) fn create_channel(
    c: &Connection,
    workspace_id: &str,
    name: &str,
    members: Option<&[String]>,
) -> Result<(), Failure> {
    require_workspace(c, workspace_id)?;
    if channel_exists(c, workspace_id, name)? {
        return Err(refusals::channel_taken());
    }
    c.exec_cached(
        "INSERT INTO channels (workspace_id, name, private, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![workspace_id, name, members.is_some(), clock::now()],
    )?;
    let channel_id = c.last_insert_rowid();
    let members = members.unwrap_or_default();
    let mut missing = Vec::new();
    for member in members {
        let Some(agent) = find_agent(c, workspace_id, member)? else {
            missing.push((member.clone(), handle_exists(c, workspace_id, member)?));
            continue;
        };
        c.exec_cached(
            "INSERT OR IGNORE INTO channel_members (channel_id, agent_id) VALUES (?1, ?2)",
            params![channel_id, agent.agent_id],
        )?;
    }
    if !missing.is_empty() {
        return Err(refusals::no_such_members(members, &missing));
    }
    Ok(())
}

pub(super) fn list_workspaces(c: &Connection) -> Result<Vec<WorkspaceInfo>, Failure> {
    let mut stmt =
        c.prepare_cached("SELECT id, name, created_at FROM workspaces ORDER BY created_at, id")?;
    let rows = stmt.query_map([], |r| {
        Ok(WorkspaceInfo {
            workspace_id: r.get(0)?,
            name: r.get(1)?,
            created_at: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn list_agents(c: &Connection, workspace_id: &str) -> Result<Vec<AgentInfo>, Failure> {
    require_workspace(c, workspace_id)?;
    let mut stmt = c.prepare_cached(
        "SELECT id, handle, created_at FROM agents WHERE workspace_id = ?1 ORDER BY handle",
    )?;
    let rows = stmt.query_map([workspace_id], |r| {
        Ok(AgentInfo {
            agent_id: r.get(0)?,
            handle: r.get(1)?,
            created_at: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn list_channels(
    c: &Connection,
    workspace_id: &str,
) -> Result<Vec<ChannelInfo>, Failure> {
    require_workspace(c, workspace_id)?;
    let mut stmt = c.prepare_cached(
        "SELECT c.name, c.private, c.created_at, a.handle FROM channels c \
         LEFT JOIN channel_members m ON m.channel_id = c.id \
         LEFT JOIN agents a ON a.id = m.agent_id \
         WHERE c.workspace_id = ?1 ORDER BY c.name, a.handle",
    )?;
    let rows = stmt
        .query_map([workspace_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ChannelInfo::fold(rows))
}

pub(super) fn channel_exists(
    c: &Connection,
    workspace_id: &str,
    name: &str,
) -> Result<bool, Failure> {
    Ok(c.row_cached(
        "SELECT EXISTS (SELECT 1 FROM channels WHERE workspace_id = ?1 AND name = ?2)",
        params![workspace_id, name],
        |r| r.get(0),
    )?)
}

pub(super) fn open_callback(
    c: &Connection,
    workspace_id: &str,
    agent: &str,
    callback: &Callback,
) -> Result<(), Failure> {
    let agent = require_agent(c, workspace_id, agent)?;
    c.exec_cached(
        "INSERT INTO callbacks (effect_id, run_id, workspace_id, agent_id, opened_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            callback.callback_effect_id,
            callback.workflow_run_id,
            workspace_id,
            agent.agent_id,
            clock::now()
        ],
    )?;
    Ok(())
}

pub(super) fn complete_callback(
    c: &Connection,
    workspace_id: &str,
    callback_effect_id: &str,
) -> Result<(), Failure> {
    let n = c.exec_cached(
        "UPDATE callbacks SET completed_at = coalesce(completed_at, ?1) \
         WHERE effect_id = ?2 AND workspace_id = ?3",
        params![clock::now(), callback_effect_id, workspace_id],
    )?;
    if n == 0 {
        return Err(refusals::no_such_callback_effect());
    }
    Ok(())
}

/// An agent given as `ag_…` id or `@handle`, within the workspace.
pub(super) fn find_agent(
    c: &Connection,
    workspace_id: &str,
    agent: &str,
) -> Result<Option<Principal>, Failure> {
    let (column, value) = match agent.strip_prefix('@') {
        Some(handle) => ("handle", handle),
        None => ("id", agent),
    };
    Ok(c.row_cached(
        &format!("SELECT id, handle FROM agents WHERE workspace_id = ?1 AND {column} = ?2"),
        params![workspace_id, value],
        |r| {
            Ok(Principal {
                workspace_id: workspace_id.to_string(),
                agent_id: r.get(0)?,
                handle: r.get(1)?,
            })
        },
    )
    .optional()?)
}

fn require_workspace(c: &Connection, workspace_id: &str) -> Result<(), Failure> {
    let exists: bool = c.row_cached(
        "SELECT EXISTS (SELECT 1 FROM workspaces WHERE id = ?1)",
        [workspace_id],
        |r| r.get(0),
    )?;
    if exists {
        return Ok(());
    }
    let mut named = c.prepare_cached(
        "SELECT id FROM workspaces WHERE name = ?1 ORDER BY created_at, id LIMIT ?2",
    )?;
    let named = named
        .query_map(
            rusqlite::params![workspace_id, refusals::MAX_NAMED_WORKSPACES as i64],
            |r| r.get(0),
        )?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Err(refusals::no_such_workspace(workspace_id, &named))
}

fn require_agent(c: &Connection, workspace_id: &str, agent: &str) -> Result<Principal, Failure> {
    require_workspace(c, workspace_id)?;
    match find_agent(c, workspace_id, agent)? {
        Some(found) => Ok(found),
        None => Err(refusals::no_such_agent(
            agent,
            handle_exists(c, workspace_id, agent)?,
        )),
    }
}

/// Whether a bare word (`refusals::bare_word`) is the handle of an agent
/// of the workspace, written without its `@`.
fn handle_exists(c: &Connection, workspace_id: &str, word: &str) -> Result<bool, Failure> {
    if !refusals::bare_word(word) {
        return Ok(false);
    }
    Ok(find_agent(c, workspace_id, &format!("@{word}"))?.is_some())
}
