//! The PostgreSQL backend of [`Store`]: the only module that knows its SQL.
//! Any number of runtime replicas may share one database; nothing a replica
//! keeps in memory matters for correctness (the pool and its prepared
//! statements are caches of connections, not of data). Its files:
//! `connections.rs` (the pool, sessions, errors and retries),
//! `migrations.rs`, `writer.rs` (group commit of creates), `reads.rs`
//! (token lookups and gets that arrive together, in one statement),
//! `gets.rs` (the statements a task.get reads with), `tasks.rs` (the other
//! task operations), `admin.rs` (identities, boards, callbacks) and
//! `target.rs` (the database `--db` names).
//!
//! Concurrency: every mutation is one `READ COMMITTED` transaction that
//! locks what it changes before it reads what it decides on, so concurrent
//! mutations from any replica apply in one serial order:
//! - board numbers come from the board's counter row, incremented in the
//!   create transaction (its row lock orders creators; a rolled-back create
//!   gives its numbers back, so they stay gapless and are never reused);
//! - a task a mutation acts on is read `FOR NO KEY UPDATE` (`tasks::LOCK_TASK`
//!   says why not `FOR UPDATE`), so claims, updates,
//!   checkpoints and deletes of one task wait for each other, and a
//!   subtask's create waits for (and then sees) a delete of its parent;
//! - a parent change also locks the board's counter row, so two changes
//!   cannot each pass the cycle check and together make a cycle;
//! - a group of creates locks its counter rows in board order, then its
//!   parents in (board, number) order, as a claim locks its tasks by
//!   number, a move its task and new parent, and a recursive delete each
//!   level of subtasks, so none of them waits for another in a cycle
//!   (but a delete of a parent whose subtask has a lower number than it,
//!   after a move, against a claim of both);
//! - an idempotency receipt is reserved by its primary key before the
//!   create, so a concurrent first use of the key waits and then replays;
//!   the create holds its callback `FOR SHARE` to its commit, so a
//!   callback's completion waits for the creates that found it open, and
//!   no effect commits after it.
//!
//! Deadlocks and serialisation failures are retried inside the runtime a
//! bounded number of times; a store that cannot be reached, is restarting
//! or is saturated answers a retryable `server_error` with HTTP 503 and no
//! detail, and the pool reconnects on its own when the database is back.
//! Durability: a mutation is answered after its `COMMIT` returns, with
//! `synchronous_commit=on` unless the URI's `options` say otherwise.
//! Times come from the database's clock, read once per mutation once it
//! holds its locks, so they follow the order in which mutations of the same
//! rows commit.

mod admin;
mod connections;
mod gets;
mod migrations;
mod reads;
mod target;
pub(in crate::runtime::store) mod tasks;
mod tls;
mod writer;

use std::time::Duration;

use deadpool_postgres::Object;
use futures_util::future::join_all;
use serde_json::Value;

pub use target::{Target, is_conninfo, is_mistyped_uri, is_uri};

use super::schema::OnOpen;
use super::*;
use crate::error::Failure;
use crate::ids::IdKind;
use crate::runtime::auth;
use connections::{ATTEMPTS, Connections, Error, Fault, backoff, fault, schema_failure, settle};
use migrations::{MIGRATIONS, apply_pending, schema_version};

/// The connection pool of one runtime process.
#[derive(Debug, Clone, Copy)]
pub struct PoolOptions {
    /// Connections at most.
    pub size: usize,
    /// How long a request waits for a free connection before it is answered 503.
    pub wait: Duration,
    /// Requests that may wait at once; one more is answered 503 at once.
    pub queue: usize,
}

impl PoolOptions {
    /// `serve --pool-size`'s default.
    pub const DEFAULT_SIZE: u16 = 16;
    /// `serve --pool-wait-ms`'s default.
    pub const DEFAULT_WAIT_MS: u64 = 2000;
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            size: usize::from(Self::DEFAULT_SIZE),
            wait: Duration::from_millis(Self::DEFAULT_WAIT_MS),
            queue: 512,
        }
    }
}

pub struct PgStore {
    connections: Connections,
    /// Creates go through a group commit (`writer.rs`); everything else runs
    /// in a transaction of its own.
    creates: writer::Creates,
    /// Token lookups and `task_get`s are batched (`reads.rs`), and so are
    /// `task_get`s read together with their token.
    tokens: reads::Batches<admin::Tokens>,
    gets: reads::Batches<gets::Gets>,
    token_gets: reads::Batches<gets::TokenGets>,
}

/// Runs `$body` in one transaction, with `$tx` the transaction and `$now`
/// (if named) the database's time at its start, committing only if it
/// succeeds, and again (a
/// bounded number of times) when the database rolled it back for a
/// deadlock or serialisation failure. A macro rather than a function
/// taking a closure: the body borrows the transaction, which a closure's
/// future cannot do for every caller's lifetime and still be `Send`.
macro_rules! in_transaction {
    ($store:expr, |$tx:ident, $now:ident| $body:expr) => {
        in_transaction!($store, |$tx| {
            let $now: i64 = connections::clock($tx).await?;
            $body
        })
    };
    ($store:expr, |$tx:ident| $body:expr) => {{
        let store: &PgStore = $store;
        let mut attempt = 1;
        loop {
            let mut client = store.connections.hold().await?;
            let outcome: Result<_, Error> = async {
                let transaction = client.transaction().await?;
                let $tx = &transaction;
                match $body {
                    Ok(value) => {
                        transaction.commit().await?;
                        Ok(value)
                    }
                    Err(e) => {
                        // A refusal leaves the connection usable: undo and
                        // hand it back clean. A database error may not.
                        if matches!(e, Error::Refused(_)) {
                            transaction.rollback().await?;
                        }
                        Err(e)
                    }
                }
            }
            .await;
            client.release();
            match outcome {
                Ok(value) => break Ok::<_, Failure>(value),
                Err(Error::Db(e)) if fault(&e) == Fault::Contention && attempt < ATTEMPTS => {
                    tracing::debug!(attempt, error = %e, "retrying after contention");
                    attempt += 1;
                    tokio::time::sleep(backoff(attempt)).await;
                }
                Err(e) => break Err(settle(e)),
            }
        }
    }};
}

/// Runs `$body` with `$c` a pooled connection, outside any transaction:
/// each statement reads its own snapshot.
macro_rules! read {
    ($store:expr, |$c:ident| $body:expr) => {{
        let client = $store.connections.hold().await?;
        let $c = &*client;
        let outcome: Result<_, Error> = async { $body }.await;
        client.release();
        outcome.map_err(settle)
    }};
}

impl PgStore {
    /// Connects to `target` (once now, so a wrong password, a missing
    /// database or an unreachable server is reported here, by name) and,
    /// with [`OnOpen::Migrate`], applies its pending migrations.
    pub async fn open(
        target: &Target,
        on_open: OnOpen,
        options: PoolOptions,
    ) -> Result<PgStore, Failure> {
        let connections = Connections::open(target, options)?;
        let mut client = connections.first(target).await?;
        connections::check_encoding(&client, target).await?;
        if on_open == OnOpen::Migrate {
            apply_pending(&mut client).await.map_err(schema_failure)?;
        } else {
            // Even a look at the schema needs a database that exists.
            schema_version(&client).await.map_err(schema_failure)?;
        }
        drop(client);
        Ok(PgStore {
            creates: writer::Creates::start(connections.clone()),
            tokens: reads::Batches::start(connections.clone(), options.queue, options.wait),
            gets: reads::Batches::start(connections.clone(), options.queue, options.wait),
            token_gets: reads::Batches::start(connections.clone(), options.queue, options.wait),
            connections,
        })
    }

    async fn client(&self) -> Result<Object, Failure> {
        self.connections.get().await
    }
}

impl Store for PgStore {
    async fn find_token(&self, token_hash: &[u8; 32]) -> Result<Option<TokenRecord>, Failure> {
        self.tokens.read(*token_hash).await
    }

    async fn list(&self, principal: &Principal, query: &ListQuery) -> Result<Value, Failure> {
        read!(self, |c| tasks::list_tasks(c, principal, query).await)
    }

    async fn get(&self, principal: &Principal, input: &TaskLocator) -> Result<Value, Failure> {
        self.gets.read((principal.clone(), input.clone())).await
    }

    async fn usable_boards(&self, principal: &Principal) -> Result<Vec<String>, Failure> {
        read!(self, |c| tasks::usable_boards(c, principal).await)
    }

    async fn other_boards_with(
        &self,
        principal: &Principal,
        query: &ListQuery,
    ) -> Result<Vec<String>, Failure> {
        read!(self, |c| tasks::other_boards_with(c, principal, query)
            .await)
    }

    async fn board_labels(
        &self,
        principal: &Principal,
        channel: &str,
    ) -> Result<Vec<String>, Failure> {
        read!(self, |c| tasks::board_labels(c, principal, channel).await)
    }

    async fn find_token_and_get(
        &self,
        token_hash: &[u8; 32],
        input: &TaskLocator,
    ) -> Result<Option<TokenGet>, Failure> {
        let found = self.token_gets.read((*token_hash, input.clone())).await?;
        Ok(found.map(|(record, answer)| (record, Some(answer))))
    }

    async fn create(
        &self,
        principal: &Principal,
        input: &CreateInput,
        workflow: &WorkflowContext,
    ) -> Result<Value, Failure> {
        self.creates
            .create(&self.connections, principal, input, workflow)
            .await
    }

    async fn update(&self, principal: &Principal, input: &UpdateInput) -> Result<Value, Failure> {
        in_transaction!(self, |tx| tasks::update_task(tx, principal, input).await)
    }

    async fn set_claim(
        &self,
        principal: &Principal,
        input: &SetClaimInput,
    ) -> Result<Value, Failure> {
        in_transaction!(self, |tx| tasks::set_claim(tx, principal, input).await)
    }

    async fn checkpoint(
        &self,
        principal: &Principal,
        input: &CheckpointInput,
    ) -> Result<Value, Failure> {
        in_transaction!(self, |tx| tasks::checkpoint(tx, principal, input).await)
    }

    async fn delete(&self, principal: &Principal, input: &DeleteInput) -> Result<Value, Failure> {
        in_transaction!(self, |tx| tasks::delete_task(tx, principal, input).await)
    }

    async fn ready(&self) -> Result<(), Failure> {
        self.connections.probe().await
    }

    /// Every connection of the pool, opened at once, with the batched reads
    /// prepared on each (which also loads the backend's catalog caches). A
    /// replica that opened them on first use made its first requests wait
    /// for PostgreSQL to start a backend each: 70–90 ms on two busy cores,
    /// the p99 of a short run against a new replica (docs/performance.md).
    async fn warm(&self) {
        let opened = join_all((0..self.connections.max_size()).map(|_| async {
            let client = self.connections.get().await?;
            reads::prepare::<admin::Tokens>(&client)
                .await
                .map_err(settle)?;
            reads::prepare::<gets::Gets>(&client)
                .await
                .map_err(settle)?;
            reads::prepare::<gets::TokenGets>(&client)
                .await
                .map_err(settle)?;
            Ok::<_, Failure>(client)
        }))
        .await;
        // Every connection was held until here, so each one was opened; and
        // the probe's, so the first /readyz does not wait for a backend.
        let mut failures: Vec<Failure> = opened.into_iter().filter_map(Result::err).collect();
        failures.extend(self.connections.probe().await.err());
        if let Some(first) = failures.first() {
            tracing::warn!(
                failed = failures.len(),
                error = %first.message,
                "not every pooled connection opened at start; the rest open on first use"
            );
        }
    }
}

impl Admin for PgStore {
    async fn schema_status(&self) -> Result<SchemaStatus, Failure> {
        let client = self.client().await?;
        let version = schema_version(&client).await.map_err(schema_failure)?;
        Ok(SchemaStatus::new("postgres", version, MIGRATIONS))
    }

    async fn migrate(&self) -> Result<Vec<u32>, Failure> {
        let mut client = self.client().await?;
        apply_pending(&mut client).await.map_err(schema_failure)
    }

    async fn reindex_search(&self) -> Result<u64, Failure> {
        let client = self.client().await?;
        tasks::reindex_search(&client).await.map_err(settle)
    }

    async fn create_workspace(&self, name: &str) -> Result<String, Failure> {
        let id = auth::new_id(IdKind::Workspace)?;
        in_transaction!(self, |tx, now| {
            admin::create_workspace(tx, &id, name, now)
                .await
                .map(|()| id.clone())
        })
    }

    async fn find_or_create_workspace(&self, name: &str) -> Result<(String, bool), Failure> {
        let id = auth::new_id(IdKind::Workspace)?;
        in_transaction!(self, |tx, now| {
            admin::find_or_create_workspace(tx, &id, name, now).await
        })
    }

    async fn create_agent(
        &self,
        workspace_id: &str,
        handle: &str,
        token: &NewToken,
    ) -> Result<(String, i64), Failure> {
        let id = auth::new_id(IdKind::Agent)?;
        in_transaction!(self, |tx, now| {
            admin::create_agent(tx, &id, workspace_id, handle, token, now)
                .await
                .map(|expires| (id.clone(), expires))
        })
    }

    async fn find_agent(
        &self,
        workspace_id: &str,
        agent: &str,
    ) -> Result<Option<Principal>, Failure> {
        read!(self, |c| admin::find_agent(c, workspace_id, agent).await)
    }

    async fn issue_token(
        &self,
        workspace_id: &str,
        agent: &str,
        token: &NewToken,
    ) -> Result<i64, Failure> {
        in_transaction!(self, |tx, now| {
            admin::issue_token(tx, workspace_id, agent, token, now).await
        })
    }

    async fn count_tokens(&self, workspace_id: &str, agent: &str) -> Result<TokenCounts, Failure> {
        read!(self, |c| admin::count_tokens(c, workspace_id, agent).await)
    }

    async fn revoke_tokens(&self, workspace_id: &str, agent: &str) -> Result<u64, Failure> {
        in_transaction!(self, |tx, now| {
            admin::revoke_tokens(tx, workspace_id, agent, now).await
        })
    }

    async fn create_channel(
        &self,
        workspace_id: &str,
        name: &str,
        members: Option<&[String]>,
    ) -> Result<(), Failure> {
        in_transaction!(self, |tx, now| {
            admin::create_channel(tx, workspace_id, name, members, now).await
        })
    }

    async fn channel_exists(&self, workspace_id: &str, name: &str) -> Result<bool, Failure> {
        read!(self, |c| admin::channel_exists(c, workspace_id, name).await)
    }

    async fn list_workspaces(&self) -> Result<Vec<WorkspaceInfo>, Failure> {
        read!(self, |c| admin::list_workspaces(c).await)
    }

    async fn list_agents(&self, workspace_id: &str) -> Result<Vec<AgentInfo>, Failure> {
        read!(self, |c| admin::list_agents(c, workspace_id).await)
    }

    async fn list_channels(&self, workspace_id: &str) -> Result<Vec<ChannelInfo>, Failure> {
        read!(self, |c| admin::list_channels(c, workspace_id).await)
    }

    async fn open_callback(&self, workspace_id: &str, agent: &str) -> Result<Callback, Failure> {
        let callback = Callback {
            workflow_run_id: auth::new_id(IdKind::WorkflowRun)?,
            callback_effect_id: auth::new_id(IdKind::CallbackEffect)?,
        };
        in_transaction!(self, |tx, now| {
            admin::open_callback(tx, workspace_id, agent, &callback, now)
                .await
                .map(|()| callback.clone())
        })
    }

    async fn complete_callback(
        &self,
        workspace_id: &str,
        callback_effect_id: &str,
    ) -> Result<(), Failure> {
        in_transaction!(self, |tx| {
            admin::complete_callback(tx, workspace_id, callback_effect_id).await
        })
    }
}

#[cfg(test)]
impl PgStore {
    /// Activity rows of one kind, for tests of "replay records nothing".
    pub(crate) async fn count_events(&self, kind: &str) -> Result<i64, Failure> {
        const SQL: &str = "SELECT count(*) FROM task_events WHERE kind = $1";
        read!(self, |c| Ok(connections::one(c, SQL, &[&kind])
            .await?
            .get(0)))
    }

    /// The detail of the last activity row of one kind, if there is one.
    pub(crate) async fn last_event(&self, kind: &str) -> Result<Option<Value>, Failure> {
        const SQL: &str = "SELECT detail FROM task_events WHERE kind = $1 ORDER BY id DESC LIMIT 1";
        read!(self, |c| Ok(connections::maybe(c, SQL, &[&kind])
            .await?
            .map(|row| row.get(0))))
    }

    /// PostgreSQL's plan of the page query of list `q` for `p`.
    pub(crate) async fn explain_list(
        &self,
        p: &Principal,
        q: &ListQuery,
    ) -> Result<String, Failure> {
        read!(self, |c| tasks::explain_list(c, p, q).await)
    }

    /// PostgreSQL's plan of the statement a batch of these gets runs, or
    /// with `by_token` the statement of as many gets read with their token.
    pub(crate) async fn explain_gets(
        &self,
        gets: &[(Principal, TaskLocator)],
        by_token: bool,
    ) -> Result<String, Failure> {
        let gets: Vec<&(Principal, TaskLocator)> = gets.iter().collect();
        read!(self, |c| gets::explain_gets(c, &gets, by_token).await)
    }

    /// How many creates wait for a group (`writer.rs`); `None` while a
    /// group is taking them.
    pub(crate) fn waiting_creates(&self) -> Option<usize> {
        self.creates.waiting()
    }

    /// The process id of the PostgreSQL backend a read runs on.
    pub(crate) async fn backend_pid(&self) -> Result<i32, Failure> {
        read!(self, |c| Ok(connections::one(
            c,
            "SELECT pg_backend_pid()",
            &[]
        )
        .await?
        .get(0)))
    }

    /// Runs `sql` as it is, for tests that put a store in a past state.
    pub(crate) async fn run_sql(&self, sql: &str) -> Result<(), Failure> {
        read!(self, |c| Ok(c.batch_execute(sql).await?))
    }

    /// The first batch [`Store::reindex_search`] reads, for a test that
    /// writes a task before [`PgStore::reindex_write`] writes the batch.
    pub(crate) async fn reindex_read(&self) -> Result<Vec<tasks::Reindexed>, Failure> {
        read!(self, |c| tasks::read_for_reindex(c, 0).await)
    }

    /// Writes a batch [`PgStore::reindex_read`] read.
    pub(crate) async fn reindex_write(&self, batch: &[tasks::Reindexed]) -> Result<(), Failure> {
        read!(self, |c| tasks::write_reindexed(c, batch).await)
    }
}
