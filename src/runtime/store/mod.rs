//! The runtime's one storage boundary. [`Store`] has one method per task
//! operation of §13.2 plus the admin operations and the token lookup; each
//! method is atomic: all of it or nothing. Inputs are the validated, canonical
//! snake_case inputs of the registry, deserialised here into typed structs;
//! outputs are the `data` values of the registry's data schemas, built here
//! from backend-neutral rows ([`TaskRow`]), so every backend answers with
//! the same shapes. No backend type or query language appears outside the
//! backend's own module ([`sqlite`], [`postgres`]); what both engines must
//! say alike lives here once: refusals ([`refusals`]), search words
//! ([`search`]), cursors ([`cursor`]), migrations ([`schema`]) and
//! [`dispatch`], the one place a registry action becomes a store call; the
//! typed inputs of the operations are in `inputs.rs`.

mod columns;
pub mod cursor;
mod hints;
mod inputs;
pub mod postgres;
pub mod refusals;
pub mod schema;
pub mod search;
pub mod sqlite;

#[cfg(test)]
mod tests;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::budget;
use crate::error::{Failure, code};
use crate::registry::task::list::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::registry::task::update::Field;
use crate::registry::{Action, Operation, Permission};
use crate::runtime::auth::hex;
use crate::runtime::clock;
use crate::wire::WorkflowContext;

pub use crate::registry::task::fit::fit_detail;
pub use cursor::After;
pub use inputs::*;
pub use schema::SchemaStatus;

/// Where a store lives, as `--db` names it: a PostgreSQL URI
/// (`postgres://` or `postgresql://`) or else a SQLite file path. The
/// engine is chosen by the URI scheme alone, and a string that looks like
/// any URI is never taken for a path.
#[derive(Debug, Clone)]
pub enum Location {
    Sqlite(PathBuf),
    /// Boxed: a parsed connection configuration is a few hundred bytes.
    Postgres(Box<postgres::Target>),
}

impl Location {
    pub fn parse(db: &OsStr) -> Result<Location, Failure> {
        let Some(text) = db.to_str() else {
            return Ok(Location::Sqlite(PathBuf::from(db)));
        };
        // Blanks around a URI come from env files and quoting, never mean
        // anything, and must not turn a URI into a path.
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(Failure::new(
                code::USAGE_ERROR,
                "--db (or AGENTTEAM_RUNTIME_DB) is empty: give a SQLite file path or a postgres:// URI, or leave both unset for the default store.",
            )
            .field("db", "Empty."));
        }
        // Quotes an env file kept (`docker --env-file` does): taken for a
        // path, a quoted URI made a file named after it, password and all.
        if let [first @ (b'"' | b'\''), .., last] = trimmed.as_bytes()
            && first == last
        {
            return Err(Failure::new(
                code::USAGE_ERROR,
                "--db (or AGENTTEAM_RUNTIME_DB) is in quotes, which are part of its value here (an env file read without a shell keeps them): remove them.",
            )
            .field("db", "Without quotes."));
        }
        if postgres::is_uri(trimmed) {
            // A scheme is case-insensitive (RFC 3986); tokio-postgres reads
            // only the lowercase spelling.
            let (scheme, rest) = trimmed.split_once("://").expect("a URI has ://");
            let uri = format!("{}://{rest}", scheme.to_ascii_lowercase());
            return postgres::Target::parse(&uri).map(|t| Location::Postgres(Box::new(t)));
        }
        // A PostgreSQL URI with its colon slipped (`postgres//…`,
        // `postgres;//…`): as a path, it made directories named after it.
        if postgres::is_mistyped_uri(trimmed) {
            return Err(Failure::new(
                code::USAGE_ERROR,
                "--db looks like a PostgreSQL URI with its `://` mistyped: write it postgres://USER@HOST/DATABASE (or postgres:///DATABASE?host=/socket/dir). A file path can be given as ./NAME.",
            )
            .field("db", "A file path, or postgres://USER@HOST/DATABASE."));
        }
        // Anything that starts like a URI (`word:`), however it goes on
        // (`postgres:/run`, `postgresql:`, `file:x.db`, `postgres ://…`), is
        // refused rather than created as a file of that name.
        if let Some((scheme, _)) = trimmed.split_once(':') {
            let scheme = scheme.trim();
            if scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            {
                let hint = if postgres::is_uri(&format!("{scheme}://")) {
                    " A PostgreSQL URI starts with postgres:// (postgres://USER@HOST/DATABASE, or postgres:///DATABASE?host=/socket/dir)."
                } else {
                    ""
                };
                return Err(Failure::new(
                    code::USAGE_ERROR,
                    format!(
                        "`{scheme}:` makes --db look like a URI, and it is not one agentteam-runtime can use: --db takes a SQLite file path or a postgres:// URI.{hint} A file whose name has a colon can be given as ./NAME."
                    ),
                )
                .field("db", "A file path, or postgres://USER@HOST/DATABASE."));
            }
        }
        // libpq's other form, `host=… user=… password=…`, is no path: taken
        // for one, it made a file named after it, password and all, and
        // `serve` printed that name. Refused without quoting it.
        if postgres::is_conninfo(trimmed) {
            return Err(Failure::new(
                code::USAGE_ERROR,
                "--db looks like a libpq key=value connection string, which agentteam-runtime does not take: give a postgres:// URI (postgres://USER@HOST:PORT/DATABASE, the password in PGPASSWORD or ~/.pgpass). A file whose name has `=` can be given as ./NAME.",
            )
            .field("db", "A file path, or postgres://USER@HOST/DATABASE."));
        }
        // `~/…` reaches us only unexpanded (quoted, or from an env file or a
        // unit's Environment=): taken as it is, it made a directory named
        // `~` in the working directory. Refused, with the path meant.
        if trimmed.starts_with('~') {
            // `~/x` is under HOME; `~user/x` is another user's, not named.
            let meant = trimmed
                .strip_prefix("~/")
                .or((trimmed == "~").then_some(""))
                .zip(std::env::var_os("HOME"))
                .map(|(rest, home)| format!(" (here: {})", Path::new(&home).join(rest).display()))
                .unwrap_or_default();
            return Err(Failure::new(
                code::USAGE_ERROR,
                format!(
                    "--db starts with `~`, which is expanded only by a shell, unquoted: give the full path{meant}. A directory named `~` can be given as ./~/NAME."
                ),
            )
            .field("db", "A full file path, or postgres://USER@HOST/DATABASE."));
        }
        Ok(Location::Sqlite(PathBuf::from(text)))
    }

    /// The location as it may be printed, logged or passed in argv: a path,
    /// or the URI without its password.
    pub fn shown(&self) -> String {
        match self {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(target) => target.shown().to_string(),
        }
    }
}

/// The authenticated caller: every task operation acts as exactly this agent
/// in exactly this workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub workspace_id: String,
    pub agent_id: String,
    /// Without the `@`.
    pub handle: String,
}

impl Principal {
    pub fn member_ref(&self) -> String {
        format!("@{}", self.handle)
    }
}

/// What a token lookup finds: the stored hash (compared in constant time by
/// the caller) and whom it authenticates.
#[derive(Debug, Clone)]
pub struct TokenRecord {
    pub hash: Vec<u8>,
    pub principal: Principal,
    /// The widest permission class (§9.2) the token may use.
    pub scope: Permission,
}

/// What [`Store::find_token_and_get`] finds for a live token: its record
/// and, where the engine read it with the token, the get's answer for the
/// token's principal.
pub type TokenGet = (TokenRecord, Option<Result<Value, Failure>>);

/// A token to store: the SHA-256 of its text, its scope and its lifetime.
#[derive(Debug, Clone, Copy)]
pub struct NewToken {
    pub hash: [u8; 32],
    pub scope: Permission,
    /// Microseconds from the store's clock at issue to its expiry.
    pub ttl_us: i64,
}

impl NewToken {
    /// A token of the widest class that lives [`crate::runtime::auth::DEFAULT_TTL`].
    pub fn new(hash: [u8; 32]) -> NewToken {
        NewToken {
            hash,
            scope: Permission::Destructive,
            ttl_us: crate::runtime::auth::micros(crate::runtime::auth::DEFAULT_TTL),
        }
    }
}

/// A scope as the tokens table keeps it; an unknown one (never written)
/// reads as the narrowest class.
pub(crate) fn stored_scope(text: &str) -> Permission {
    Permission::parse(text).unwrap_or(Permission::ReadOnly)
}

/// How many tokens an agent has: `live` ones authenticate, `stored` counts
/// every row kept for it (live, or dead and not yet pruned).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TokenCounts {
    pub live: u64,
    pub stored: u64,
}

/// A workspace as `workspace list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceInfo {
    pub workspace_id: String,
    pub name: String,
    pub created_at: i64,
}

/// An agent as `agent list` shows it (its tokens never).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentInfo {
    pub agent_id: String,
    pub handle: String,
    pub created_at: i64,
}

/// A channel as `channel list` shows it: `members`, the handles of a
/// private board's members in order, is `None` for a board every agent of
/// the workspace may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelInfo {
    pub name: String,
    pub members: Option<Vec<String>>,
    pub created_at: i64,
}

impl ChannelInfo {
    /// Folds rows of (name, private, created_at, member handle or none),
    /// ordered by name then handle, into one channel each.
    pub fn fold(rows: impl IntoIterator<Item = (String, bool, i64, Option<String>)>) -> Vec<Self> {
        let mut channels: Vec<ChannelInfo> = Vec::new();
        for (name, private, created_at, member) in rows {
            if channels.last().is_none_or(|last| last.name != name) {
                channels.push(ChannelInfo {
                    name,
                    members: private.then(Vec::new),
                    created_at,
                });
            }
            if let (Some(members), Some(handle)) =
                (&mut channels.last_mut().expect("pushed").members, member)
            {
                members.push(handle);
            }
        }
        channels
    }
}

/// A workflow callback as the admin surface reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callback {
    pub workflow_run_id: String,
    pub callback_effect_id: String,
}

/// The most labels [`Store::board_labels`] reads of one board.
pub const MAX_BOARD_LABELS: usize = 1000;

/// The storage boundary as requests use it ([`Admin`] is the operator's).
/// Every method is atomic and serialisable (a backend
/// may commit concurrent mutations together, as the SQLite one does, but
/// never answers before its mutation is durable); a `Failure` means nothing
/// was written. Methods are async so a networked engine waits for its
/// database without holding a thread; the futures are `Send` so the server
/// can run them on any worker.
pub trait Store: Send + Sync + 'static {
    /// Finds a live (unrevoked, unexpired) token by the SHA-256 of its text.
    fn find_token(
        &self,
        token_hash: &[u8; 32],
    ) -> impl Future<Output = Result<Option<TokenRecord>, Failure>> + Send;

    fn list(
        &self,
        principal: &Principal,
        query: &ListQuery,
    ) -> impl Future<Output = Result<Value, Failure>> + Send;
    fn get(
        &self,
        principal: &Principal,
        input: &TaskLocator,
    ) -> impl Future<Output = Result<Value, Failure>> + Send;
    /// The labels the live tasks of board `channel` have, each once, the
    /// longest-standing first, at most [`MAX_BOARD_LABELS`]: what an empty
    /// page's label filter is compared with (`labels_match`).
    fn board_labels(
        &self,
        principal: &Principal,
        channel: &str,
    ) -> impl Future<Output = Result<Vec<String>, Failure>> + Send;
    /// The names of the boards of the caller's workspace it may use
    /// (public, or a member), in name order: where an empty search looks
    /// next (`channel_match`).
    fn usable_boards(
        &self,
        principal: &Principal,
    ) -> impl Future<Output = Result<Vec<String>, Failure>> + Send;
    /// The names of the boards of the caller's workspace it may use, but
    /// `query.channel`, on which search `query` finds a live task (its
    /// board aside; no `parent`), in name order: one read for every board,
    /// where an empty search looks next (`channel_match`). Empty for a
    /// browse.
    fn other_boards_with(
        &self,
        principal: &Principal,
        query: &ListQuery,
    ) -> impl Future<Output = Result<Vec<String>, Failure>> + Send;
    /// [`Store::find_token`] and, where the engine can read both at once
    /// (PostgreSQL), [`Store::get`] for the token's principal in the same
    /// read, so that a `task_get` costs one round trip, not two. `None`: no
    /// live token. The answer is `None` where the engine did not read it
    /// (SQLite, whose reads cost no round trip): the caller admits the
    /// token, then calls `get`. An answer read is given only once the
    /// caller has admitted the token ([`get_for_token`]).
    fn find_token_and_get(
        &self,
        token_hash: &[u8; 32],
        input: &TaskLocator,
    ) -> impl Future<Output = Result<Option<TokenGet>, Failure>> + Send {
        let _ = input;
        async move {
            Ok(self
                .find_token(token_hash)
                .await?
                .map(|record| (record, None)))
        }
    }
    /// `data.reused` tells a fresh creation from a receipt replay.
    fn create(
        &self,
        principal: &Principal,
        input: &CreateInput,
        workflow: &WorkflowContext,
    ) -> impl Future<Output = Result<Value, Failure>> + Send;
    fn update(
        &self,
        principal: &Principal,
        input: &UpdateInput,
    ) -> impl Future<Output = Result<Value, Failure>> + Send;
    fn set_claim(
        &self,
        principal: &Principal,
        input: &SetClaimInput,
    ) -> impl Future<Output = Result<Value, Failure>> + Send;
    fn checkpoint(
        &self,
        principal: &Principal,
        input: &CheckpointInput,
    ) -> impl Future<Output = Result<Value, Failure>> + Send;
    fn delete(
        &self,
        principal: &Principal,
        input: &DeleteInput,
    ) -> impl Future<Output = Result<Value, Failure>> + Send;

    /// Whether the store can serve requests now (`GET /readyz`).
    fn ready(&self) -> impl Future<Output = Result<(), Failure>> + Send;
    /// Opens, before `serve` announces its address, what its first
    /// requests would otherwise wait for (PostgreSQL: the whole pool).
    /// Best effort: what cannot be opened now is opened on first use.
    fn warm(&self) -> impl Future<Output = ()> + Send {
        async {}
    }
}

/// The operator's side of a store, which `agentteam-runtime`'s commands
/// use and its HTTP surface never does: the schema, workspaces, agents,
/// tokens, boards and callbacks.
pub trait Admin: Store {
    /// The schema version found and the migrations this binary knows.
    fn schema_status(&self) -> impl Future<Output = Result<SchemaStatus, Failure>> + Send;
    /// Applies the pending migrations; returns the versions applied.
    fn migrate(&self) -> impl Future<Output = Result<Vec<u32>, Failure>> + Send;
    /// Recomputes every stored task's search terms from its title and
    /// description, a batch of tasks per transaction, while the store
    /// serves (`agentteam-runtime reindex`): for the tasks a replica of an
    /// older version wrote during a rolling upgrade. A task written
    /// meanwhile keeps the terms its writer gave it. Returns how many
    /// tasks it read.
    fn reindex_search(&self) -> impl Future<Output = Result<u64, Failure>> + Send;

    // Admin operations. `agent` is an agent id (`ag_…`) or a member ref (`@handle`).
    fn create_workspace(&self, name: &str) -> impl Future<Output = Result<String, Failure>> + Send;
    /// The oldest workspace with this name, created if there is none, and
    /// whether it was: one operation, so that callers at once (two
    /// replicas' `quickstart`s) get the same one (names are not unique).
    fn find_or_create_workspace(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<(String, bool), Failure>> + Send;
    /// Creates the agent and its first token atomically; returns its id and
    /// the token's expiry (microseconds). Prunes dead tokens, as `issue_token`.
    fn create_agent(
        &self,
        workspace_id: &str,
        handle: &str,
        token: &NewToken,
    ) -> impl Future<Output = Result<(String, i64), Failure>> + Send;
    fn find_agent(
        &self,
        workspace_id: &str,
        agent: &str,
    ) -> impl Future<Output = Result<Option<Principal>, Failure>> + Send;
    /// Stores a new token of the agent; returns its expiry (microseconds).
    /// Deletes every dead token of the store first (expired or revoked), so
    /// refreshes cannot pile tokens up; no live token is touched.
    fn issue_token(
        &self,
        workspace_id: &str,
        agent: &str,
        token: &NewToken,
    ) -> impl Future<Output = Result<i64, Failure>> + Send;
    /// Live tokens of the agent (unrevoked, unexpired) and rows kept for it
    /// in all, for `token list`-style checks and tests.
    fn count_tokens(
        &self,
        workspace_id: &str,
        agent: &str,
    ) -> impl Future<Output = Result<TokenCounts, Failure>> + Send;
    /// Revokes every live token of the agent; returns how many.
    fn revoke_tokens(
        &self,
        workspace_id: &str,
        agent: &str,
    ) -> impl Future<Output = Result<u64, Failure>> + Send;
    /// Every workspace, oldest first (names are not unique: the id tells
    /// two of one name apart).
    fn list_workspaces(&self) -> impl Future<Output = Result<Vec<WorkspaceInfo>, Failure>> + Send;
    /// The workspace's agents by handle; an unknown workspace is refused.
    fn list_agents(
        &self,
        workspace_id: &str,
    ) -> impl Future<Output = Result<Vec<AgentInfo>, Failure>> + Send;
    /// The workspace's channels by name; an unknown workspace is refused.
    fn list_channels(
        &self,
        workspace_id: &str,
    ) -> impl Future<Output = Result<Vec<ChannelInfo>, Failure>> + Send;
    /// `members: None` opens the channel to every agent of the workspace.
    fn create_channel(
        &self,
        workspace_id: &str,
        name: &str,
        members: Option<&[String]>,
    ) -> impl Future<Output = Result<(), Failure>> + Send;
    fn channel_exists(
        &self,
        workspace_id: &str,
        name: &str,
    ) -> impl Future<Output = Result<bool, Failure>> + Send;
    fn open_callback(
        &self,
        workspace_id: &str,
        agent: &str,
    ) -> impl Future<Output = Result<Callback, Failure>> + Send;
    fn complete_callback(
        &self,
        workspace_id: &str,
        callback_effect_id: &str,
    ) -> impl Future<Output = Result<(), Failure>> + Send;
}

/// Runs one validated operation of the registry against the store.
pub async fn dispatch<S: Store>(
    store: &S,
    action: &Action,
    principal: &Principal,
    input: Value,
    workflow: &WorkflowContext,
) -> Result<Value, Failure> {
    use crate::registry::task::Operation as Task;
    // Kept for the failure path: a lookup failure's suggestion is this
    // same call with the failing field corrected (and for an empty
    // page's `subtasks_match`, this call with subtasks included).
    let original = input.clone();
    match action.operation {
        Operation::Task(operation) => {
            let result = match operation {
                Task::List => hints::list(store, principal, input, &original).await,
                Task::Get => store.get(principal, &typed(input)?).await,
                Task::Create => {
                    store
                        .create(principal, &CreateInput::from_input(input)?, workflow)
                        .await
                }
                Task::Update => hints::update(store, principal, &typed(input)?).await,
                Task::SetClaim => store.set_claim(principal, &typed(input)?).await,
                Task::Checkpoint => store.checkpoint(principal, &typed(input)?).await,
                Task::Delete => store.delete(principal, &typed(input)?).await,
            };
            // A task call's refusal, with the call that names what was
            // meant (a task's board and number): the task domain's own.
            match result {
                Ok(answer) => Ok(answer),
                Err(failure) => {
                    let failure = corrected_call(action, principal, &original, failure);
                    Err(named_target(store, action, principal, failure).await)
                }
            }
        }
    }
}

/// A write suggested on the board a mistyped one meant ([`corrected_call`]:
/// `demo2` for `demo`) changes the task of that number there, which may be
/// another than the caller had in mind: the message names it (its title
/// and status), read now, and a number no task there has is no call to
/// suggest. One read, on such refusals only.
async fn named_target<S: Store>(
    store: &S,
    action: &Action,
    principal: &Principal,
    mut failure: Failure,
) -> Failure {
    let target = failure
        .suggested_action
        .as_ref()
        .filter(|_| failure.is(code::CHANNEL_NOT_FOUND) && !action.read_only())
        .filter(|suggested| suggested.tool == action.name())
        .and_then(|suggested| {
            let channel = suggested.arguments["channel"].as_str()?.to_string();
            let number = suggested.arguments["number"].as_i64()?;
            Some(TaskLocator {
                channel,
                number,
                checkpoints_before: None,
            })
        });
    let Some(locator) = target else {
        return failure;
    };
    let (board, number) = (&locator.channel, locator.number);
    match store.get(principal, &locator).await {
        Ok(task) => {
            let title = crate::redact::tokens(task["title"].as_str().unwrap_or_default());
            let title = crate::text::clip(&title, 80);
            let status = task["status"].as_str().unwrap_or_default();
            failure.message = format!(
                "{} Task {number} on `{board}` is {title:?} ({status}): the suggested call changes that task.",
                failure.message
            );
        }
        Err(_) => {
            failure.suggested_action = None;
            failure.message = format!(
                "{} No task {number} is on `{board}` either: find the task meant with task_list.",
                failure.message
            );
        }
    }
    failure
}

/// Whether the server may answer `action` by [`get_for_token`]: `task_get`.
pub fn reads_with_token(action: &Action) -> bool {
    matches!(
        action.operation,
        Operation::Task(crate::registry::task::Operation::Get)
    )
}

/// `task_get` of the validated `input` for the bearer token whose hash is
/// `token_hash`, its token and its task read at once where the engine can
/// ([`Store::find_token_and_get`]). `admit` judges the token's record
/// (`None`: no live token) as the server judges every request's, and
/// returns whom the get is for; an answer already read is given only once
/// the token is admitted, and a refused token gets the refusal alone.
pub async fn get_for_token<S: Store>(
    store: &S,
    action: &Action,
    token_hash: &[u8; 32],
    input: Value,
    admit: impl FnOnce(Option<TokenRecord>) -> Result<Principal, Failure>,
) -> Result<Value, Failure> {
    let original = input.clone();
    let locator: TaskLocator = typed(input)?;
    let (record, answer) = match store.find_token_and_get(token_hash, &locator).await? {
        Some((record, answer)) => (Some(record), answer),
        None => (None, None),
    };
    let principal = admit(record)?;
    let answer = match answer {
        Some(answer) => answer,
        None => store.get(&principal, &locator).await,
    };
    answer.map_err(|failure| corrected_call(action, &principal, &original, failure))
}

/// For a lookup failure whose first candidate is what the input meant,
/// suggests the same call with the failing field replaced by it (§5.2),
/// only when the given value is a typo of the candidate, so no call is
/// proposed on a board or member the caller did not mean; a `task_list`
/// keeps its cursor where the cursor continues the list on the board meant
/// (a typo of the board it was made on), and loses it otherwise. A delete
/// is never filled in: the task it names is read on the board meant. A
/// board or member that is no typo gets no call (`candidates` lists the
/// boards or members): a call on the nearest would be a guess, and a task
/// by its number on another board another task; but a task_get of a task
/// only one other board has is that read, there (it changes nothing, and
/// the candidate's title says which task it is). Other failures pass
/// unchanged.
fn corrected_call(
    action: &Action,
    principal: &Principal,
    input: &Value,
    failure: Failure,
) -> Failure {
    let is = |c| failure.is(c);
    if is(code::CURSOR_INVALID) {
        // What the message says to do: the same list from its first page.
        let mut arguments = input.clone();
        if let Some(fields) = arguments.as_object_mut() {
            fields.remove("cursor");
        }
        return failure.suggest(&action.name(), arguments);
    }
    if is(code::TASK_SCOPE_CLOSED)
        && let Some(read) = &failure.suggested_action
        && let Some(fields) = input.as_object()
    {
        // What the message says to do: the same create, on the task's board
        // by its number, which takes subtasks of a task in any status.
        let mut arguments = fields.clone();
        arguments.remove("parent_task_scope");
        arguments.insert("channel".into(), read.arguments["channel"].clone());
        arguments.insert("parent".into(), read.arguments["number"].clone());
        return failure.suggest(&action.name(), Value::Object(arguments));
    }
    // A read of a task one other board has, and this one has not: that
    // read, there (a read changes nothing, and the candidate's title says
    // whether it is the task meant). A write is never moved to another
    // board: there it would change another task.
    if is(code::TASK_NOT_FOUND)
        && action.read_only()
        && let [elsewhere] = failure
            .candidate_list()
            .iter()
            .filter(|c| c.field == "channel")
            .collect::<Vec<_>>()[..]
        && let Some(fields) = input.as_object()
    {
        let mut arguments = fields.clone();
        arguments.insert("channel".into(), elsewhere.value.clone());
        // A checkpoint's id is of this task's checkpoints, not that one's.
        arguments.remove("checkpoints_before");
        return failure.suggest(&action.name(), Value::Object(arguments));
    }
    if !(is(code::CHANNEL_NOT_FOUND) || is(code::ASSIGNEE_NOT_FOUND)) {
        return failure;
    }
    // A member named exactly who may not use the private board: no other
    // member is what the caller meant, however near the spelling.
    if failure.details.contains_key("private_board") {
        return failure;
    }
    let Some(first) = failure.candidate_list().first() else {
        return failure;
    };
    let second = failure
        .candidate_list()
        .get(1)
        .filter(|second| second.field == first.field)
        .and_then(|second| second.value.as_str())
        .map(handle_of);
    let pointer = format!("/{}", first.field);
    let (Some(given), Some(meant)) = (
        input.pointer(&pointer).and_then(Value::as_str),
        first.value.as_str(),
    ) else {
        return failure;
    };
    if is(code::ASSIGNEE_NOT_FOUND) && refusals::is_self_ref(given) {
        // The first candidate is the caller: a list asks for its own tasks
        // the way the schema says, a write names the caller by its ref.
        let mut arguments = input.clone();
        if first.field == "filters/assignee" {
            if let Some(filters) = arguments.get_mut("filters").and_then(Value::as_object_mut) {
                filters.remove("assignee");
                filters.insert("assigned_to_me".into(), json!(true));
            }
        } else if let Some(slot) = arguments.pointer_mut(&pointer) {
            *slot = json!(meant);
        }
        return failure.suggest(&action.name(), arguments);
    }
    let board = is(code::CHANNEL_NOT_FOUND);
    // A typo of one name only: one as near as another is no correction.
    let typo = refusals::is_typo_of_only(handle_of(given), handle_of(meant), second);
    let meant = meant.to_string();
    if board && action.destructive() {
        return match input.get("number") {
            Some(number) if typo => {
                failure.suggest("task_get", json!({"channel": meant, "number": number}))
            }
            // The refusal's own browse of the board a typo meant, if any.
            _ => failure,
        };
    }
    let list = matches!(
        action.operation,
        Operation::Task(crate::registry::task::Operation::List)
    );
    if typo {
        let mut arguments = input.clone();
        if let Some(slot) = arguments.pointer_mut(&pointer) {
            *slot = json!(meant);
        }
        // Only a list has a cursor, and only a list's input reads as a
        // list query.
        let cursor_continues = || {
            ListQuery::from_input(principal, arguments.clone())
                .is_ok_and(|query| query.cursor_refused.is_none())
        };
        if board
            && list
            && !cursor_continues()
            && let Some(object) = arguments.as_object_mut()
        {
            object.remove("cursor");
        }
        return failure.suggest(&action.name(), arguments);
    }
    failure
}

/// One task as a backend reads it; [`TaskRow::compact`] and
/// [`TaskRow::detail`] are the only places the output shapes are built.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRow {
    pub number: i64,
    pub channel: String,
    pub scope_id: String,
    pub title: String,
    pub description: Option<String>,
    pub status: String,
    pub priority: String,
    /// Handle without `@`.
    pub assignee: Option<String>,
    pub parent_number: Option<i64>,
    pub labels: Vec<String>,
    pub checklist: Vec<ChecklistItem>,
    pub urls: Vec<String>,
    pub attachments: Vec<Attachment>,
    pub blocker: Option<String>,
    pub source_target: Option<String>,
    /// Handle without `@`.
    pub created_by: String,
    /// Microseconds since the Unix epoch.
    pub created_at: i64,
    pub updated_at: i64,
}

/// A bounded section of `task_get`: the first items and the total.
pub struct Section {
    pub items: Vec<Value>,
    pub total: i64,
}

impl Section {
    fn to_value(&self) -> Value {
        json!({
            "items": self.items,
            "total": self.total,
            "truncated": (self.items.len() as i64) < self.total,
        })
    }
}

impl TaskRow {
    pub fn compact(&self) -> Value {
        Value::Object(self.compact_fields(Map::with_capacity(COMPACT_FIELDS)))
    }

    pub fn detail(&self, subtasks: Section, checkpoints: Section) -> Value {
        let mut task = self.compact_fields(Map::with_capacity(COMPACT_FIELDS + 8));
        task.extend(named([
            ("description", json!(self.description)),
            ("checklist", json!(self.checklist)),
            ("urls", json!(self.urls)),
            ("attachments", json!(self.attachments)),
            ("blocker", json!(self.blocker)),
            ("source_target", json!(self.source_target)),
            ("subtasks", subtasks.to_value()),
            ("checkpoints", checkpoints.to_value()),
        ]));
        Value::Object(task)
    }

    /// The compact task's fields, in order, added to `task` (which has room
    /// for them: a task.get builds its detail without growing its map).
    fn compact_fields(&self, mut task: Map<String, Value>) -> Map<String, Value> {
        task.extend(named([
            ("number", json!(self.number)),
            ("channel", json!(self.channel)),
            ("scope_id", json!(self.scope_id)),
            ("title", json!(self.title)),
            ("status", json!(self.status)),
            ("priority", json!(self.priority)),
            (
                "assignee",
                json!(self.assignee.as_ref().map(|h| format!("@{h}"))),
            ),
            ("parent_number", json!(self.parent_number)),
            ("labels", json!(self.labels)),
            ("created_by", json!(format!("@{}", self.created_by))),
            ("created_at", json!(clock::format(self.created_at))),
            ("updated_at", json!(clock::format(self.updated_at))),
        ]));
        task
    }
}

/// How many fields a compact task has.
const COMPACT_FIELDS: usize = 12;

fn named<const N: usize>(fields: [(&str, Value); N]) -> impl Iterator<Item = (String, Value)> {
    fields
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
}

/// One list page held to `budget` bytes (§8.3). `items` are the page's
/// compact tasks in order, each with the cursor position just after it;
/// `more` says whether the query had more rows than the page limit. When
/// the budget cuts the page short, the page says `truncated: true` and its
/// `next_cursor` continues right after the last item it carries, so no item
/// is lost or repeated. A compact task is bounded by its schema to a few
/// KiB, so the first item always fits and a page always makes progress.
pub fn fit_page(items: Vec<(Value, After)>, more: bool, digest: &str, budget: usize) -> Value {
    let kept = budget::fit_items(
        budget::json_len(&json!({"items": []})),
        items.iter().map(|(item, _)| budget::json_len(item)),
        budget.saturating_sub(budget::ENVELOPE_RESERVE),
    );
    let cut = kept < items.len();
    let last = kept.checked_sub(1).map(|i| items[i].1);
    let mut data =
        json!({"items": items.into_iter().take(kept).map(|(v, _)| v).collect::<Vec<_>>()});
    if cut {
        data["truncated"] = json!(true);
    }
    if let (true, Some(after)) = (cut || more, last) {
        data["next_cursor"] = json!(cursor::encode(digest, after));
    }
    data
}

/// The `task_list` answer from the page query's rows (`q.limit + 1` at
/// most, each with its relevance score; the extra row only says a next
/// page exists), cut to the action's result budget.
pub fn list_page(mut rows: Vec<(TaskRow, f64)>, q: &ListQuery) -> Value {
    let more = rows.len() as i64 > q.limit;
    rows.truncate(usize::try_from(q.limit).unwrap_or(0));
    // Each item with the cursor position after it, so the page budget can
    // end the page at any item and continue right there.
    let items = rows
        .iter()
        .map(|(last, score)| {
            let number = last.number;
            let after = match q.sort {
                Sort::UpdatedDesc => After::Updated {
                    at: last.updated_at,
                    number,
                },
                Sort::CreatedDesc => After::Created {
                    at: last.created_at,
                    number,
                },
                Sort::NumberAsc => After::Number { number },
                Sort::Relevance => After::Relevance {
                    score: *score,
                    number,
                },
            };
            (last.compact(), after)
        })
        .collect();
    fit_page(
        items,
        more,
        &q.digest,
        crate::registry::task::list::ACTION.budget.bytes(),
    )
}

/// Names in each cut section of a `task_get` answer the call that reads
/// the rest (§8.3), after [`fit_detail`] made its cuts, so the call starts
/// right after the last item the section still carries: for subtasks, a
/// `task_list` of the task's direct subtasks in number order with the
/// cursor after that item; for checkpoints, this `task_get` with
/// `checkpoints_before` the oldest checkpoint shown. `next` is null in a
/// section that is whole. A cut section also marks the whole answer
/// `truncated` (the CLI's `meta.truncated`), so the detail does not look
/// complete to a reader that checks only the top (§8.3).
pub fn link_sections(mut detail: Value, principal: &Principal, input: &TaskLocator) -> Value {
    let truncated = |detail: &Value, section: &str| detail[section]["truncated"] == json!(true);
    if truncated(&detail, "subtasks") || truncated(&detail, "checkpoints") {
        detail["truncated"] = json!(true);
    }
    let last_number = detail["subtasks"]["items"]
        .as_array()
        .and_then(|items| items.last())
        .and_then(|item| item["number"].as_i64());
    detail["subtasks"]["next"] = if truncated(&detail, "subtasks") {
        let mut arguments = json!({
            "channel": input.channel,
            "status": "all",
            "sort": "number_asc",
            "limit": MAX_LIMIT,
            "filters": {"parent": input.number},
        });
        if let Some(number) = last_number
            && let Ok(query) = ListQuery::from_input(principal, arguments.clone())
        {
            arguments["cursor"] = json!(cursor::encode(&query.digest, After::Number { number }));
        }
        json!({"tool": "task_list", "arguments": arguments})
    } else {
        Value::Null
    };
    let oldest_shown = detail["checkpoints"]["items"]
        .as_array()
        .and_then(|items| items.last())
        .and_then(|item| item["id"].as_i64());
    detail["checkpoints"]["next"] = if truncated(&detail, "checkpoints") {
        let mut arguments = json!({"channel": input.channel, "number": input.number});
        if let Some(before) = oldest_shown.or(input.checkpoints_before) {
            arguments["checkpoints_before"] = json!(before);
        }
        json!({"tool": "task_get", "arguments": arguments})
    } else {
        Value::Null
    };
    detail
}

/// One checkpoint as `task_get` and `task_checkpoint` show it.
pub fn checkpoint_value(id: i64, summary: &str, author_handle: &str, created_at: i64) -> Value {
    json!({
        "id": id,
        "summary": summary,
        "created_by": format!("@{author_handle}"),
        "created_at": clock::format(created_at),
    })
}

/// A `task_create` answer: the tasks it made, none of them a replay's.
pub fn created(tasks: Vec<Value>) -> Value {
    json!({"tasks": tasks, "reused": false})
}

/// A `task_delete` answer: the numbers deleted (the task and, with
/// `subtask_mode: delete`, its subtree) and those promoted to the top.
pub fn deletion(deleted: &[(i64, i64)], promoted: Vec<i64>) -> Value {
    json!({
        "deleted_numbers": deleted.iter().map(|(_, number)| number).collect::<Vec<_>>(),
        "promoted_numbers": promoted,
    })
}

/// A keyed create's replay: its original tasks as they are now, and the
/// numbers of those deleted since (listed as they were when deleted, which
/// no other answer shows as live), when there are any.
pub fn replayed(tasks: Vec<Value>, mut deleted: Vec<i64>) -> Value {
    let mut answer = json!({"tasks": tasks, "reused": true});
    if !deleted.is_empty() {
        deleted.sort_unstable();
        answer["deleted_numbers"] = json!(deleted);
    }
    answer
}

/// The `task_checkpoint` answer: the checkpoint appended (or, `reused`,
/// the one its idempotency_key appended before) and its task as it is now.
pub fn checkpoint_answer(checkpoint: Value, task: Value, reused: bool) -> Value {
    json!({"checkpoint": checkpoint, "task": task, "reused": reused})
}

/// The channel a `#channel:thread` target names.
pub fn target_channel(target: &str) -> &str {
    target
        .trim_start_matches('#')
        .split(':')
        .next()
        .unwrap_or_default()
}

/// A member ref's handle: `@alice` → `alice`.
pub fn handle_of(member_ref: &str) -> &str {
    member_ref.strip_prefix('@').unwrap_or(member_ref)
}

/// JSON with object keys sorted at every level, whatever map order
/// serde_json was built with, so equal values always digest equally.
pub fn canonical_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical_json(&map[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(canonical_json).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}
