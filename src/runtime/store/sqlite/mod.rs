//! The embedded SQLite backend of [`Store`]: the only module that knows
//! SQLite. Its files: `connections.rs` (configuration, readers, errors),
//! `migrations.rs`, `writer.rs` (group commit), `tasks.rs` (the task
//! operations) and `admin.rs` (identities, boards, callbacks).
//!
//! Durability: WAL with `synchronous=FULL`, so a write is on disk before the
//! mutation that made it returns (it survives `kill -9` and power loss).
//! Concurrency: one writer connection, owned by a writer thread, commits
//! mutations in groups (`writer.rs`): one `BEGIN IMMEDIATE`
//! transaction and one fsync per group, one savepoint per mutation, so each
//! mutation is still all-or-nothing and durable before it is answered.
//! `BEGIN IMMEDIATE` also serialises against other processes (the admin
//! commands) through SQLite's own lock, with `busy_timeout` to wait; a few
//! read-only connections serve reads from WAL snapshots without blocking the
//! writer. Schema changes are numbered migrations recorded in
//! `PRAGMA user_version`. Search uses an FTS5 index over title and
//! description that the runtime fills with its own words and their stems
//! (`search.rs`) whenever it writes either, ranked by bm25.

mod admin;
mod connections;
mod migrations;
mod tasks;
mod writer;

use std::path::Path;

use rusqlite::Connection;
use serde_json::Value;

use super::schema::OnOpen;
use super::*;
use crate::error::Failure;
use crate::ids::IdKind;
use crate::runtime::auth;
use connections::{Cached, Readers, configure};
use migrations::{MIGRATIONS, apply_pending};

/// Creates `path` empty with mode 0600 (exactly: `fchmod` after creation,
/// since the umask only narrows), unless it exists. A symbolic link to
/// nothing is refused: SQLite would create its target with the umask's
/// mode, readable by others, where the link's maker chose.
fn create_private(path: &Path) -> Result<(), Failure> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
    refuse_a_directory_anyone_may_change(path)?;
    refuse_companions_others_put(path)?;
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path);
    match created {
        Ok(file) => file
            .set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(|e| store_file_failure(path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let meta = match std::fs::metadata(path) {
                Ok(meta) => meta,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(refused_db(
                        format!(
                            "The store {} is a symbolic link to a file that does not exist; give the link's target as --db to create the store there, or remove the link.",
                            path.display()
                        ),
                        "A symbolic link to nothing.",
                    ));
                }
                // What stops it being read SQLite says when it opens it.
                Err(_) => return Ok(()),
            };
            // A directory fails to open with its own words; a device or a
            // pipe would open, and be read and written as if a store.
            if !meta.is_file() && !meta.is_dir() {
                return Err(refused_db(
                    format!(
                        "The store {} is not a regular file (a device or a pipe); --db must name an SQLite file, or a path that does not exist yet to create one.",
                        path.display()
                    ),
                    "Not a regular file.",
                ));
            }
            if meta.is_file() {
                refuse_if_others_may_change(&format!("The store {}", path.display()), &meta)?;
                if meta.mode() & 0o077 != 0 {
                    tracing::warn!(
                        path = %path.display(),
                        mode = format!("{:o}", meta.mode() & 0o777),
                        "the store file is readable by group or others; `chmod 600` it (and its -wal and -shm files) unless that is intended"
                    );
                }
            }
            Ok(())
        }
        Err(e) => Err(store_file_failure(path, e)),
    }
}

/// An existing store another user owns, or group or others may write, is
/// refused: whoever can write it can add a token of any agent (a row of
/// hashes) and change any board, and a file another user put where the
/// store was to be made is theirs to rewrite. Reading it stays the
/// owner's choice (logged, not refused).
fn refuse_if_others_may_change(what: &str, meta: &std::fs::Metadata) -> Result<(), Failure> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid(2) has no preconditions and touches no memory.
    let me = unsafe { libc::geteuid() };
    let why = if meta.uid() != me {
        format!(
            "belongs to uid {}, not to this user (uid {me}): its owner could rewrite its tokens and boards; run the runtime as that user, or `chown` the file (and its -wal and -shm files) to this one",
            meta.uid()
        )
    } else if meta.mode() & 0o022 != 0 {
        format!(
            "has mode {:o}, writable by group or others, who could add a token of any agent; `chmod 600` it (and its -wal and -shm files)",
            meta.mode() & 0o777
        )
    } else {
        return Ok(());
    };
    Err(refused_db(
        format!("{what} {why}."),
        "Others may change this file.",
    ))
}

/// The files SQLite keeps beside a store, each read as the store's own
/// when it opens it: the write-ahead log (replayed into the store), its
/// shared-memory index and a rollback journal. SQLite removes them on a
/// clean stop, so one that is there before the store opens is the last
/// run's (after a crash) or someone else's: another user's, in a sticky
/// or group-writable directory, could hold a whole store of their own that
/// would replace this one, or take this store's writes where they can read
/// them. Each is refused as the store itself would be; a symbolic link
/// too (SQLite would follow it to wherever its maker chose). A store
/// named by a link has them beside the link's target, and is checked there.
fn refuse_companions_others_put(path: &Path) -> Result<(), Failure> {
    // Beside the file a link names, where SQLite keeps them.
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut companion = path.as_os_str().to_owned();
        companion.push(suffix);
        let companion = std::path::PathBuf::from(companion);
        let Ok(meta) = std::fs::symlink_metadata(&companion) else {
            continue;
        };
        let what = format!(
            "SQLite's file beside the store, {}, which it reads as the store's own,",
            companion.display()
        );
        if !meta.is_file() {
            return Err(refused_db(
                format!(
                    "{what} is not a regular file (a symbolic link, a directory or a device); if this user did not put it there, move it away and start again."
                ),
                "Not a regular file beside the store.",
            ));
        }
        refuse_if_others_may_change(&what, &meta)?;
    }
    Ok(())
}

/// A store in a directory anyone may write without the sticky bit (0777,
/// not /tmp's 1777) is refused: anyone could put their own file in its
/// place, or its `-wal` beside it.
fn refuse_a_directory_anyone_may_change(path: &Path) -> Result<(), Failure> {
    use std::os::unix::fs::MetadataExt;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let Ok(meta) = std::fs::metadata(dir) else {
        return Ok(());
    };
    if meta.mode() & 0o002 == 0 || meta.mode() & 0o1000 != 0 {
        return Ok(());
    }
    Err(refused_db(
        format!(
            "The store's directory {} has mode {:o}: anyone may write it, so anyone could put their own file in the store's place; give --db a directory only this user may write (or one with the sticky bit, as /tmp has).",
            dir.display(),
            meta.mode() & 0o7777
        ),
        "In a directory anyone may write.",
    ))
}

/// A `--db` refused as a usage error: `message` says why, `problem` in
/// the field's words.
fn refused_db(message: String, problem: &str) -> Failure {
    Failure::new(crate::error::code::USAGE_ERROR, message).field("db", problem)
}

fn store_file_failure(path: &Path, e: std::io::Error) -> Failure {
    Failure::new(
        crate::error::code::USAGE_ERROR,
        format!("Cannot create the store {}: {e}.", path.display()),
    )
}

pub struct SqliteStore {
    /// Declared before the writer so that they close first: SQLite removes
    /// the `-wal` and `-shm` files only when the last connection to close
    /// can write, and the writer checkpoints before it closes (a clean stop
    /// leaves the database file alone beside nothing).
    readers: Readers,
    writer: writer::Writer,
}

impl SqliteStore {
    /// Opens (creating if needed) the store at `path`; with
    /// [`OnOpen::Migrate`], applies its pending migrations first.
    ///
    /// The store holds every board, private ones included: a new file is
    /// created 0600 before SQLite opens it, and SQLite gives its `-wal` and
    /// `-shm` files the main file's mode, so all three are the owner's alone
    /// whatever the umask. An existing file keeps its mode (its owner may
    /// share it on purpose); one group or others can read is logged.
    pub fn open(path: &Path, on_open: OnOpen) -> Result<SqliteStore, Failure> {
        create_private(path)?;
        let opened = Connection::open(path).and_then(|writer| {
            configure(&writer)?;
            // WAL is the store's mode, set (a write of the file's header)
            // by the commands that write; `migrate --status` reads it only.
            let journal = match on_open {
                OnOpen::Migrate => "PRAGMA journal_mode=WAL",
                OnOpen::Inspect => "PRAGMA journal_mode",
            };
            let mode: String = writer.query_row(journal, [], |r| r.get(0))?;
            Ok((writer, mode))
        });
        let (writer, mode) = opened.map_err(|e| open_failure(path, e))?;
        // SQLite opens a file it may not write read-only, without a word:
        // every write would then fail later, as a retryable store error. A
        // command that writes is refused here (`migrate --status` reads).
        if on_open == OnOpen::Migrate && writer.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) {
            return Err(refused_db(
                format!(
                    "Cannot write the store {}: this user may only read it. --db must name a file this user may read and write, in a directory it may write.",
                    path.display()
                ),
                "Not a usable store.",
            ));
        }
        if on_open == OnOpen::Migrate && !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!(mode, "the store is not in WAL mode");
        }
        if on_open == OnOpen::Migrate {
            writer.execute_batch("BEGIN IMMEDIATE")?;
            match apply_pending(&writer) {
                Ok(_) => writer.execute_batch("COMMIT")?,
                Err(failure) => {
                    writer.execute_batch("ROLLBACK")?;
                    return Err(failure);
                }
            }
        }
        let readers = Readers::open(path)?;
        Ok(SqliteStore {
            writer: writer::Writer::start(writer)?,
            readers,
        })
    }

    /// Runs `f` atomically on the writer and resolves once it is durable;
    /// an error rolls back everything `f` did (see `writer.rs`).
    fn write<T, F>(&self, f: F) -> impl Future<Output = Result<T, Failure>> + Send + 'static
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, Failure> + Send + 'static,
    {
        self.writer.write(f)
    }

    /// Runs `f` in one read transaction: a consistent snapshot.
    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Failure>) -> Result<T, Failure> {
        self.readers.read(f)
    }
}

/// Why the store file could not be opened, naming the file and what to do:
/// a path that is not a readable, writable file, or a file that is not an
/// SQLite database, is the caller's to fix (`usage_error`, exit 2) and not
/// worth retrying; anything else is the store's own failure.
fn open_failure(path: &Path, e: rusqlite::Error) -> Failure {
    use rusqlite::ErrorCode;
    let shown = path.display();
    let problem = match e.sqlite_error_code() {
        Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied | ErrorCode::ReadOnly) => format!(
            "Cannot open the store {shown}: {e}. --db must name a file this user may read and write, in a directory it may write."
        ),
        Some(ErrorCode::NotADatabase) => format!(
            "{shown} is not an SQLite database ({e}). Point --db at an agentteam store, or at a path that does not exist yet to create one."
        ),
        Some(ErrorCode::DatabaseCorrupt) => {
            format!("The store {shown} is damaged ({e}). Restore it from a backup.")
        }
        _ => return e.into(),
    };
    tracing::error!(error = %e, path = %shown, "the store did not open");
    refused_db(problem, "Not a usable store.")
}

impl Store for SqliteStore {
    async fn find_token(&self, token_hash: &[u8; 32]) -> Result<Option<TokenRecord>, Failure> {
        self.read(|c| admin::find_token(c, token_hash))
    }

    async fn list(&self, principal: &Principal, query: &ListQuery) -> Result<Value, Failure> {
        self.read(|c| tasks::list_tasks(c, principal, query))
    }

    async fn get(&self, principal: &Principal, input: &TaskLocator) -> Result<Value, Failure> {
        self.read(|c| tasks::get_task(c, principal, input))
    }

    async fn usable_boards(&self, principal: &Principal) -> Result<Vec<String>, Failure> {
        self.read(|c| tasks::usable_boards(c, principal))
    }

    async fn other_boards_with(
        &self,
        principal: &Principal,
        query: &ListQuery,
    ) -> Result<Vec<String>, Failure> {
        self.read(|c| tasks::other_boards_with(c, principal, query))
    }

    async fn board_labels(
        &self,
        principal: &Principal,
        channel: &str,
    ) -> Result<Vec<String>, Failure> {
        self.read(|c| tasks::board_labels(c, principal, channel))
    }

    async fn create(
        &self,
        principal: &Principal,
        input: &CreateInput,
        workflow: &WorkflowContext,
    ) -> Result<Value, Failure> {
        let (principal, input, workflow) = (principal.clone(), input.clone(), workflow.clone());
        self.write(move |c| tasks::create_tasks(c, &principal, &input, &workflow))
            .await
    }

    async fn update(&self, principal: &Principal, input: &UpdateInput) -> Result<Value, Failure> {
        let (principal, input) = (principal.clone(), input.clone());
        self.write(move |c| tasks::update_task(c, &principal, &input))
            .await
    }

    async fn set_claim(
        &self,
        principal: &Principal,
        input: &SetClaimInput,
    ) -> Result<Value, Failure> {
        let (principal, input) = (principal.clone(), input.clone());
        self.write(move |c| tasks::set_claim(c, &principal, &input))
            .await
    }

    async fn checkpoint(
        &self,
        principal: &Principal,
        input: &CheckpointInput,
    ) -> Result<Value, Failure> {
        let (principal, input) = (principal.clone(), input.clone());
        self.write(move |c| tasks::checkpoint(c, &principal, &input))
            .await
    }

    async fn delete(&self, principal: &Principal, input: &DeleteInput) -> Result<Value, Failure> {
        let (principal, input) = (principal.clone(), input.clone());
        self.write(move |c| tasks::delete_task(c, &principal, &input))
            .await
    }

    async fn ready(&self) -> Result<(), Failure> {
        self.read(|c| Ok(c.row_cached("SELECT 1", [], |_| Ok(()))?))
    }
}

impl Admin for SqliteStore {
    async fn schema_status(&self) -> Result<SchemaStatus, Failure> {
        let version: u32 =
            self.read(|c| Ok(c.row_cached("PRAGMA user_version", [], |r| r.get(0))?))?;
        Ok(SchemaStatus::new("sqlite", version, MIGRATIONS))
    }

    async fn migrate(&self) -> Result<Vec<u32>, Failure> {
        self.write(apply_pending).await
    }

    async fn reindex_search(&self) -> Result<u64, Failure> {
        let (mut after, mut done) = (0, 0);
        while let Some((last, n)) = self
            .write(move |c| tasks::reindex_search_batch(c, after))
            .await?
        {
            (after, done) = (last, done + n);
        }
        Ok(done)
    }

    async fn create_workspace(&self, name: &str) -> Result<String, Failure> {
        let (id, name) = (auth::new_id(IdKind::Workspace)?, name.to_owned());
        self.write(move |c| admin::create_workspace(c, &id, &name).map(|()| id))
            .await
    }

    async fn find_or_create_workspace(&self, name: &str) -> Result<(String, bool), Failure> {
        let (id, name) = (auth::new_id(IdKind::Workspace)?, name.to_owned());
        // In the writer's `BEGIN IMMEDIATE` transaction: no other process
        // writes between the look and the insert.
        self.write(move |c| match admin::find_workspace(c, &name)? {
            Some(found) => Ok((found, false)),
            None => admin::create_workspace(c, &id, &name).map(|()| (id, true)),
        })
        .await
    }

    async fn create_agent(
        &self,
        workspace_id: &str,
        handle: &str,
        token: &NewToken,
    ) -> Result<(String, i64), Failure> {
        let id = auth::new_id(IdKind::Agent)?;
        let (workspace_id, handle, token) = (workspace_id.to_owned(), handle.to_owned(), *token);
        self.write(move |c| {
            admin::create_agent(c, &id, &workspace_id, &handle, &token).map(|expires| (id, expires))
        })
        .await
    }

    async fn find_agent(
        &self,
        workspace_id: &str,
        agent: &str,
    ) -> Result<Option<Principal>, Failure> {
        self.read(|c| admin::find_agent(c, workspace_id, agent))
    }

    async fn issue_token(
        &self,
        workspace_id: &str,
        agent: &str,
        token: &NewToken,
    ) -> Result<i64, Failure> {
        let (workspace_id, agent, token) = (workspace_id.to_owned(), agent.to_owned(), *token);
        self.write(move |c| admin::issue_token(c, &workspace_id, &agent, &token))
            .await
    }

    async fn count_tokens(&self, workspace_id: &str, agent: &str) -> Result<TokenCounts, Failure> {
        self.read(|c| admin::count_tokens(c, workspace_id, agent))
    }

    async fn revoke_tokens(&self, workspace_id: &str, agent: &str) -> Result<u64, Failure> {
        let (workspace_id, agent) = (workspace_id.to_owned(), agent.to_owned());
        self.write(move |c| admin::revoke_tokens(c, &workspace_id, &agent))
            .await
    }

    async fn create_channel(
        &self,
        workspace_id: &str,
        name: &str,
        members: Option<&[String]>,
    ) -> Result<(), Failure> {
        let (workspace_id, name) = (workspace_id.to_owned(), name.to_owned());
        let members = members.map(<[String]>::to_vec);
        self.write(move |c| admin::create_channel(c, &workspace_id, &name, members.as_deref()))
            .await
    }

    async fn channel_exists(&self, workspace_id: &str, name: &str) -> Result<bool, Failure> {
        self.read(|c| admin::channel_exists(c, workspace_id, name))
    }

    async fn list_workspaces(&self) -> Result<Vec<WorkspaceInfo>, Failure> {
        self.read(admin::list_workspaces)
    }

    async fn list_agents(&self, workspace_id: &str) -> Result<Vec<AgentInfo>, Failure> {
        self.read(|c| admin::list_agents(c, workspace_id))
    }

    async fn list_channels(&self, workspace_id: &str) -> Result<Vec<ChannelInfo>, Failure> {
        self.read(|c| admin::list_channels(c, workspace_id))
    }

    async fn open_callback(&self, workspace_id: &str, agent: &str) -> Result<Callback, Failure> {
        let callback = Callback {
            workflow_run_id: auth::new_id(IdKind::WorkflowRun)?,
            callback_effect_id: auth::new_id(IdKind::CallbackEffect)?,
        };
        let (workspace_id, agent) = (workspace_id.to_owned(), agent.to_owned());
        self.write(move |c| {
            admin::open_callback(c, &workspace_id, &agent, &callback).map(|()| callback)
        })
        .await
    }

    async fn complete_callback(
        &self,
        workspace_id: &str,
        callback_effect_id: &str,
    ) -> Result<(), Failure> {
        let (workspace_id, callback_effect_id) =
            (workspace_id.to_owned(), callback_effect_id.to_owned());
        self.write(move |c| admin::complete_callback(c, &workspace_id, &callback_effect_id))
            .await
    }
}

#[cfg(test)]
impl SqliteStore {
    /// Activity rows of one kind, for tests of "replay records nothing".
    pub(crate) fn count_events(&self, kind: &str) -> i64 {
        self.read(|c| {
            Ok(c.row_cached(
                "SELECT count(*) FROM task_events WHERE kind = ?1",
                [kind],
                |r| r.get(0),
            )?)
        })
        .unwrap_or(-1)
    }

    /// The detail of the last activity row of one kind, if there is one.
    pub(crate) fn last_event(&self, kind: &str) -> Option<Value> {
        let detail: Option<String> = self
            .read(|c| {
                let row = c.query_row(
                    "SELECT detail FROM task_events WHERE kind = ?1 ORDER BY id DESC LIMIT 1",
                    [kind],
                    |r| r.get(0),
                );
                Ok(rusqlite::OptionalExtension::optional(row)?)
            })
            .unwrap();
        detail.map(|detail| serde_json::from_str(&detail).unwrap())
    }
}

#[cfg(test)]
mod plan_tests;
