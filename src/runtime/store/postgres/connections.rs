//! The PostgreSQL connections: the pool every operation draws from and
//! the bound on requests waiting for it, the session each connection runs,
//! the query helpers every operation uses, how a transaction that lost to
//! contention waits before it runs again, and how a database error reaches
//! a client.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use deadpool_postgres::{
    GenericClient, Manager, ManagerConfig, Object, Pool, PoolError, QueueMode, RecyclingMethod,
    Runtime as PoolRuntime, TimeoutType, Timeouts,
};
use futures_util::FutureExt;
use tokio_postgres::Row;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{PoolOptions, Target};
use crate::error::{Failure, code};
use crate::runtime::log::{SAMPLED_LINES_PER_SECOND, Sampler};

/// Attempts of a transaction that hits a deadlock or serialisation failure.
pub(super) const ATTEMPTS: u32 = 8;
/// Session settings of every pooled connection, before the URI's own
/// `options` (which therefore win): durable commits, and no statement or
/// abandoned transaction holding a connection (and its locks) for long.
const SESSION_OPTIONS: &str = "-c synchronous_commit=on -c statement_timeout=15000 \
     -c idle_in_transaction_session_timeout=60000";

/// The pool and the bound on requests waiting for it; shared by the
/// store's direct operations and its group of creates.
#[derive(Clone)]
pub(super) struct Connections {
    pool: Pool,
    queue: usize,
    /// One connection of its own for `/readyz`, so that "the store is
    /// reachable" is answered while every request connection is busy: a
    /// saturated replica is not an unreachable database.
    probe: Pool,
    /// The connections' TLS, for the cancel of an abandoned statement.
    tls: MakeRustlsConnect,
}

impl Connections {
    /// The pool of connections to `target`, each opened with the session
    /// settings above; it connects on first use.
    pub(super) fn open(target: &Target, options: PoolOptions) -> Result<Connections, Failure> {
        let mut config = target.config.clone();
        config.options(match config.get_options() {
            Some(own) => format!("{SESSION_OPTIONS} {own}"),
            None => SESSION_OPTIONS.to_string(),
        });
        // Both pools: their size, and the order they hand connections out.
        let build = |size: usize, queue_mode: QueueMode| {
            let manager = Manager::from_connect(
                config.clone(),
                Connector(target.tls.clone()),
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(size)
                .queue_mode(queue_mode)
                .wait_timeout(Some(options.wait))
                .create_timeout(Some(target.connect_timeout()))
                .recycle_timeout(Some(Duration::from_secs(5)))
                .runtime(PoolRuntime::Tokio1)
                .build()
                .map_err(|e| Failure::new(code::SERVER_ERROR, format!("No connection pool: {e}.")))
        };
        // The connection returned last: the batched reads then run on the
        // few backends whose caches are warm, not on each of the pool in
        // turn (a fifth to two thirds more task.gets a second,
        // docs/performance.md).
        let pool = build(options.size.max(1), QueueMode::Lifo)?;
        let probe = build(1, QueueMode::Fifo)?;
        Ok(Connections {
            pool,
            queue: options.queue,
            probe,
            tls: target.tls.clone(),
        })
    }

    /// Whether the database answers: on a pooled connection that is free
    /// now, as a request would; when none is, on the probe's own (opened on
    /// first use, and again after it broke), so that a busy pool is not
    /// taken for an unreachable database.
    pub(super) async fn probe(&self) -> Result<(), Failure> {
        let client = match self.pool.timeout_get(&self.now()).await {
            Ok(client) => client,
            Err(PoolError::Timeout(TimeoutType::Wait)) => {
                self.probe.get().await.map_err(pool_failure)?
            }
            Err(e) => return Err(pool_failure(e)),
        };
        client
            .simple_query("SELECT 1")
            .await
            .map(drop)
            .map_err(|e| failure(&e))
    }

    /// A pooled connection only if one is free now (or may be opened now):
    /// none, rather than a wait, when every one is busy.
    pub(super) async fn free_now(&self) -> Option<Object> {
        self.pool.timeout_get(&self.now()).await.ok()
    }

    /// The pool's timeouts with no wait for a busy connection.
    fn now(&self) -> Timeouts {
        Timeouts {
            wait: Some(Duration::ZERO),
            ..self.pool.timeouts()
        }
    }

    /// Connections the pool keeps at most.
    pub(super) fn max_size(&self) -> usize {
        self.pool.status().max_size
    }

    /// The store's first connection: a wrong password, a missing database
    /// or an unreachable server is reported here, by name.
    pub(super) async fn first(&self, target: &Target) -> Result<Object, Failure> {
        self.pool.get().await.map_err(|e| open_failure(target, e))
    }

    /// [`Self::get`], for a request's own future to use: see [`Conn`].
    pub(super) async fn hold(&self) -> Result<Conn, Failure> {
        self.get()
            .await
            .map(|object| Conn(Some(object), self.tls.clone()))
    }

    /// A pooled connection, or 503 when none frees up in time (or too many
    /// requests already wait for one).
    pub(super) async fn get(&self) -> Result<Object, Failure> {
        if self.pool.status().waiting >= self.queue {
            return Err(Failure::unavailable(
                "The server is saturated. Retry shortly.",
            ));
        }
        self.pool.get().await.map_err(pool_failure)
    }
}

/// A pooled connection used by a request's own future, which may be
/// dropped at any await: its `--store-timeout` ran out while a statement
/// waited for a row lock, say. Handed back to the pool then, the connection
/// would still be running that statement on the server, and the next
/// request to take it would queue behind it, past its own limits. So
/// unless it is handed back with [`Conn::release`] once its work has
/// ended, a `Conn` leaves the pool as it drops: its statement is cancelled
/// and the connection closed, and the pool opens another when one is
/// wanted.
pub(super) struct Conn(Option<Object>, MakeRustlsConnect);

impl Conn {
    /// Back to the pool: the work on it has ended, well or not.
    pub(super) fn release(mut self) {
        drop(self.0.take());
    }
}

impl std::ops::Deref for Conn {
    type Target = Object;

    fn deref(&self) -> &Object {
        self.0.as_ref().expect("held until released or dropped")
    }
}

impl std::ops::DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut Object {
        self.0.as_mut().expect("held until released or dropped")
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        let Some(object) = self.0.take() else {
            return;
        };
        let client = Object::take(object);
        let cancel = client.cancel_token();
        let tls = self.1.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = cancel.cancel_query(tls).await {
                    tracing::debug!(error = described(&e), "cancelling an abandoned statement");
                }
                // Closed once the cancel has been asked for.
                drop(client);
            });
        }
    }
}

/// The store's fault warnings, process-wide: while the database is down or
/// contended, every request meets the same fault, and a line for each (a
/// thousand a second) would bury what the log is read for.
static FAULTS: Sampler = Sampler::new();

/// Logs a store fault (`what`, with the database's `error`) as a warning,
/// unless the sampler leaves it out; notes how many it left out since the
/// last one let through.
fn warn_sampled(error: &str, what: &str) {
    match FAULTS.admit() {
        None => {}
        Some(0) => tracing::warn!(error, "{what}"),
        Some(suppressed) => tracing::warn!(
            error,
            suppressed,
            "{what} ({suppressed} store faults before it not logged: at most {SAMPLED_LINES_PER_SECOND} a second are)"
        ),
    }
}

/// Why no connection was had: the database's answer, a wait that ran out,
/// or the pool itself.
fn pool_failure(e: PoolError) -> Failure {
    match e {
        // A connection the database will not open now, whatever it says
        // (a password changed, the database dropped, under a serving
        // replica): the store is unavailable to this replica, a 503 its
        // load balancer acts on, as for a server that is down; not a bug's
        // 500. Why goes to the log. (At start, `first` names it instead.)
        PoolError::Backend(e) => {
            let error = described(&e);
            match fault(&e) {
                Fault::Broken => tracing::error!(error, "the store refused a new connection"),
                _ => warn_sampled(&error, "store unavailable"),
            }
            Failure::unavailable("The store is unavailable. Retry shortly.")
        }
        PoolError::Timeout(_) => Failure::unavailable("The server is saturated. Retry shortly."),
        other => {
            warn_sampled(&other.to_string(), "no store connection");
            Failure::unavailable("The store is unavailable. Retry shortly.")
        }
    }
}

/// Why the first connection failed, naming the server and the problem
/// (never the password).
fn open_failure(target: &Target, e: PoolError) -> Failure {
    let server = target.refused_by();
    let db_error = match &e {
        PoolError::Backend(e) => e.as_db_error(),
        _ => None,
    };
    if let Some(db) = db_error {
        let state = db.code();
        let (message, field) = if *state == SqlState::INVALID_PASSWORD
            || *state == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
        {
            (
                format!(
                    "PostgreSQL at {server} refused user `{}`: {}.",
                    target.user(),
                    db.message()
                ),
                "Check the user and password (in the URI, PGPASSWORD or ~/.pgpass).",
            )
        } else if matches!(fault_of_state(state), Some(Fault::Unavailable)) {
            // Too many connections, or a server starting or stopping: a
            // moment to wait out, not a setting to change.
            return Failure::unavailable(format!(
                "PostgreSQL at {server} cannot take a connection now: {}.",
                db.message()
            ))
            .field("db", "Retry shortly; if it persists, see the server's max_connections and the replicas' --pool-size.");
        } else if *state == SqlState::INVALID_CATALOG_NAME {
            (
                format!(
                    "Database `{}` does not exist on PostgreSQL at {server}; create it first (createdb {}).",
                    target.dbname(),
                    target.dbname()
                ),
                "No such database.",
            )
        } else {
            (
                format!(
                    "PostgreSQL at {server} refused the connection: {}.",
                    db.message()
                ),
                "The server refused the connection.",
            )
        };
        return Failure::new(code::USAGE_ERROR, message).field("db", field);
    }
    let why = match &e {
        PoolError::Backend(e) => {
            std::error::Error::source(e).map_or_else(|| e.to_string(), ToString::to_string)
        }
        PoolError::Timeout(_) => "timed out".to_string(),
        other => other.to_string(),
    };
    // The server asked for a password and none was given: a setting to fix,
    // like a wrong one, not a server to wait for. tokio-postgres says so only
    // in its error's text (a configuration error, "password missing").
    if why.contains("password missing") {
        let ignored = super::target::ignored_passfile()
            .map(|(path, mode)| {
                format!(
                    " The password file {} was ignored: its mode is {mode:o}, and it is read only when private to its owner (chmod 600 it).",
                    path.display()
                )
            })
            .unwrap_or_default();
        return Failure::new(
            code::USAGE_ERROR,
            format!(
                "PostgreSQL at {server} asks user `{}` for a password, and none was given.{ignored}",
                target.user()
            ),
        )
        .field(
            "db",
            "Give the password in PGPASSWORD or ~/.pgpass (or in the URI).",
        );
    }
    // A parameter the server or the client cannot work with (channel
    // binding required of a server that offers none, say): to fix in the
    // URI, not to wait out. tokio-postgres tells its kinds of error apart
    // only by their text.
    if let PoolError::Backend(e) = &e
        && ["invalid configuration", "authentication error"].contains(&e.to_string().as_str())
    {
        return Failure::new(
            code::USAGE_ERROR,
            format!("PostgreSQL at {server} cannot be used as the URI asks: {why}."),
        )
        .field("db", "Check the URI's parameters.");
    }
    if let PoolError::Backend(e) = &e
        && let Some(refusal) = super::tls::refusal(&server, e)
    {
        return refusal;
    }
    // Something answered, but not in PostgreSQL's protocol (an HTTP
    // server on that port, say): a wrong host or port, which no retry fixes.
    // ("bytes remaining on stream": it closed in the middle of what would
    // be a message, as an HTTP server does after its 400.)
    if let PoolError::Backend(e) = &e
        && ([
            "error parsing response from server",
            "unexpected message from server",
        ]
        .contains(&e.to_string().as_str())
            || why == "bytes remaining on stream")
    {
        return Failure::new(
            code::USAGE_ERROR,
            format!("The server at {server} did not answer as PostgreSQL does ({why}); is that the database's host and port?"),
        )
        .field("db", "Check the URI's host and port.");
    }
    Failure::unavailable(format!("Cannot reach PostgreSQL at {server}: {why}."))
        .field("db", "Is the server running and reachable?")
}

/// A failure to read or migrate the schema. A refusal by the database's
/// rules (SQLSTATE class 42: a privilege the user lacks, a table of the
/// same name that is not the runtime's) is a setting for the operator to
/// fix, named as PostgreSQL names it; anything else is answered as any
/// store error is.
pub(super) fn schema_failure(e: Error) -> Failure {
    // Anything but a passing fault (a server going down, contention) is
    // this database's setting, which no retry changes: said by name.
    if let Error::Db(db) = &e
        && let Some(refusal) = db.as_db_error()
        && fault(db) == Fault::Broken
    {
        tracing::error!(error = described(db), "schema refused");
        let state = refusal.code().code();
        let fix = if state.starts_with("42") {
            "The user must own the database (or hold CREATE on its schema), or the schema be migrated first by one that does (`agentteam-runtime migrate`); and the database must hold no other tables of the runtime's names: give the runtime a database of its own."
        } else if state == SqlState::INVALID_SCHEMA_NAME.code() {
            "The user's search_path names no schema it may create in: set one (ALTER ROLE … SET search_path), or drop the URI's `options=-csearch_path=…`."
        } else {
            "A setting of this database or of the URI: fix it, then run the command again."
        };
        return Failure::new(
            code::USAGE_ERROR,
            format!(
                "PostgreSQL refused the runtime's schema: {} ({state}).",
                refusal.message()
            ),
        )
        .field("db", fix);
    }
    settle(e)
}

/// The runtime keeps UTF-8 text (any language, emoji): a database of
/// another encoding (LATIN1, SQL_ASCII) is refused at open, by name, rather
/// than failing a migration's or a task's first character it cannot hold.
pub(super) async fn check_encoding<C: GenericClient>(
    c: &C,
    target: &Target,
) -> Result<(), Failure> {
    const ENCODING: &str = "SELECT current_setting('server_encoding')";
    let encoding: String = one(c, ENCODING, &[]).await.map_err(settle)?.get(0);
    if encoding == "UTF8" {
        return Ok(());
    }
    Err(Failure::new(
        code::USAGE_ERROR,
        format!(
            "Database `{}` on PostgreSQL at {} is encoded {encoding}; the runtime stores UTF-8 text and needs a UTF8 database (createdb --encoding UTF8 --template template0 …).",
            target.dbname(),
            target.server()
        ),
    )
    .field("db", "Not a UTF8 database."))
}

/// What a store operation fails with inside this module: a refusal the
/// caller gets as it is, or a database error still to be classified.
pub(super) enum Error {
    Refused(Failure),
    Db(tokio_postgres::Error),
}

impl From<Failure> for Error {
    fn from(f: Failure) -> Error {
        Error::Refused(f)
    }
}

impl From<tokio_postgres::Error> for Error {
    fn from(e: tokio_postgres::Error) -> Error {
        Error::Db(e)
    }
}

pub(super) type Result<T, E = Error> = std::result::Result<T, E>;

/// How a database error is answered.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Fault {
    /// A deadlock or serialisation failure: the transaction was rolled
    /// back and may simply run again.
    Contention,
    /// The database cannot be reached, is shutting down or restarting, is
    /// out of connections, or cancelled a statement that ran too long.
    Unavailable,
    /// Anything else is a bug or a broken database.
    Broken,
}

pub(super) fn fault(e: &tokio_postgres::Error) -> Fault {
    if let Some(state) = e.code() {
        return fault_of_state(state).unwrap_or(Fault::Broken);
    }
    // No SQLSTATE: the connection itself failed (closed, reset, timed out).
    let io = std::iter::successors(std::error::Error::source(e), |s| s.source())
        .any(|s| s.is::<std::io::Error>());
    if e.is_closed() || io {
        Fault::Unavailable
    } else {
        Fault::Broken
    }
}

/// The fault a SQLSTATE names, if it names one of the passing kinds.
fn fault_of_state(state: &SqlState) -> Option<Fault> {
    match *state {
        SqlState::T_R_DEADLOCK_DETECTED | SqlState::T_R_SERIALIZATION_FAILURE => {
            Some(Fault::Contention)
        }
        SqlState::ADMIN_SHUTDOWN
        | SqlState::CRASH_SHUTDOWN
        | SqlState::CANNOT_CONNECT_NOW
        | SqlState::TOO_MANY_CONNECTIONS
        | SqlState::QUERY_CANCELED
        | SqlState::LOCK_NOT_AVAILABLE
        | SqlState::IDLE_IN_TRANSACTION_SESSION_TIMEOUT
        // A server that takes no writes: a standby a failover left this
        // replica's connections on, or a database set read-only for
        // maintenance. Writes wait for a primary; reads go on.
        | SqlState::READ_ONLY_SQL_TRANSACTION => Some(Fault::Unavailable),
        ref other if other.code().starts_with("08") => Some(Fault::Unavailable),
        _ => None,
    }
}

/// The answer to a database error: never its text, which goes to the log.
fn failure(e: &tokio_postgres::Error) -> Failure {
    let error = described(e);
    match fault(e) {
        Fault::Contention => {
            warn_sampled(&error, "store contention outlasted the retries");
            Failure::unavailable("The store is busy. Retry shortly.")
        }
        Fault::Unavailable => {
            warn_sampled(&error, "store unavailable");
            Failure::unavailable("The store is unavailable. Retry shortly.")
        }
        Fault::Broken => {
            tracing::error!(error, "store error");
            Failure::new(code::SERVER_ERROR, "The store failed. Retry later.")
        }
    }
}

/// Opens a pooled connection as deadpool's own connector does, and logs
/// the end of one that fails with PostgreSQL's message and SQLSTATE
/// (`terminating connection due to administrator command (57P01)`), where
/// deadpool's says only "db error".
struct Connector(MakeRustlsConnect);

type Connected =
    Result<(tokio_postgres::Client, tokio::task::JoinHandle<()>), tokio_postgres::Error>;

impl deadpool_postgres::Connect for Connector {
    fn connect(
        &self,
        config: &tokio_postgres::Config,
    ) -> std::pin::Pin<Box<dyn Future<Output = Connected> + Send + '_>> {
        let config = config.clone();
        let tls = self.0.clone();
        Box::pin(async move {
            let (client, connection) = config.connect(tls).await?;
            let task = tokio::spawn(async move {
                if let Err(e) = connection.await {
                    tracing::warn!(error = described(&e), "a store connection ended");
                }
            });
            Ok((client, task))
        })
    }
}

/// A database error for the operator's log: PostgreSQL's own message and
/// SQLSTATE (`permission denied for schema public (42501)`), or the chain
/// of causes of a connection's failure. tokio-postgres's `Display` says
/// only "db error". Never the error's detail, which may quote stored
/// values.
fn described(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => super::target::with_causes(e),
    }
}

/// The answer to a request whose work panicked (the store's background
/// tasks answer each caller, and a caller left unanswered gets this).
pub(super) fn failed() -> Failure {
    Failure::new(code::SERVER_ERROR, "The server failed on this request.")
}

/// The answers `work` gives the `callers` requests it serves together (a
/// group of creates, a batch of reads), or [`failed`] for each if it
/// panicked: a background task outlives a panic in one group.
pub(super) async fn answers_of<T>(
    callers: usize,
    work: impl Future<Output = Vec<Result<T, Failure>>>,
    panicked: &str,
) -> Vec<Result<T, Failure>> {
    match AssertUnwindSafe(work).catch_unwind().await {
        Ok(answers) => answers,
        Err(_) => {
            tracing::error!("{panicked}");
            (0..callers).map(|_| Err(failed())).collect()
        }
    }
}

pub(super) fn settle(e: Error) -> Failure {
    match e {
        Error::Refused(f) => f,
        Error::Db(e) => failure(&e),
    }
}

/// A short randomised wait before a retry, growing with the attempt, so
/// the transactions that collided do not collide again in step.
pub(super) fn backoff(attempt: u32) -> Duration {
    let mut byte = [0u8; 1];
    let jitter = u64::from(getrandom::fill(&mut byte).map_or(128, |()| byte[0]));
    Duration::from_micros((500 << attempt.min(6)) * (256 + jitter) / 256)
}

// ---------------------------------------------------------------- queries

pub(super) async fn all<C: GenericClient>(
    c: &C,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<Row>> {
    let statement = c.prepare_cached(sql).await?;
    Ok(c.query(&statement, params).await?)
}

pub(super) async fn one<C: GenericClient>(
    c: &C,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Row> {
    let statement = c.prepare_cached(sql).await?;
    Ok(c.query_one(&statement, params).await?)
}

pub(super) async fn maybe<C: GenericClient>(
    c: &C,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Option<Row>> {
    let statement = c.prepare_cached(sql).await?;
    Ok(c.query_opt(&statement, params).await?)
}

pub(super) async fn exec<C: GenericClient>(
    c: &C,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<u64> {
    let statement = c.prepare_cached(sql).await?;
    Ok(c.execute(&statement, params).await?)
}

/// The database's clock in microseconds: one reading per mutation, the
/// same for every replica.
const NOW: &str = "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint";

/// The database's time now, in microseconds: a mutation's one clock
/// reading, taken once it holds its locks, so that its times follow the
/// order in which mutations of the same rows commit.
pub(super) async fn clock<C: deadpool_postgres::GenericClient>(c: &C) -> Result<i64> {
    Ok(one(c, NOW, &[]).await?.get(0))
}
