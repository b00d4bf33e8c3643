//! The `agentteam-runtime` command line: `serve`, the admin commands,
//! `migrate` and `quickstart`, on whichever store `--db` names (a SQLite
//! file, or a PostgreSQL database shared by any number of servers). Every
//! admin command opens the same store as a running server (SQLite's WAL and
//! PostgreSQL's transactions let both work at once) and prints exactly one
//! JSON object on stdout: its result, or the error document (§8.2) with the
//! exit status of the error's class. Logs and human notes go to stderr.

use std::ffi::OsString;
use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};

use crate::credentials::{CredentialStore, Profile};
use crate::error::{ExitClass, Failure, code};
use crate::registry::Permission;
use crate::registry::common;
use crate::runtime::shed::RateLimit;
use crate::runtime::store::postgres::{PgStore, PoolOptions};
use crate::runtime::store::schema::OnOpen;
use crate::runtime::store::sqlite::SqliteStore;
use crate::runtime::store::{Admin, Location, NewToken};
use crate::runtime::{auth, clock, server};

/// The reference Agent Runtime API server for agentteam, on an embedded
/// SQLite store or a PostgreSQL database.
#[derive(Debug, Parser)]
#[command(name = "agentteam-runtime", version)]
struct Cli {
    /// The store: a SQLite file (created with its directory by serve,
    /// migrate, quickstart or workspace create),
    /// or a PostgreSQL URI, postgres://USER[:PASSWORD]@HOST[:PORT]/DB or
    /// postgres://USER@/DB?host=/socket/dir (the database must exist), with
    /// TLS as libpq's sslmode, sslrootcert, sslcert and sslkey ask.
    /// Default: runtime.db in the platform data dir.
    #[arg(long, global = true, value_name = "PATH|URI", env = crate::env_vars::RUNTIME_DB.name)]
    db: Option<OsString>,
    #[command(subcommand)]
    command: Command,
}

/// Where `serve` listens, and `quickstart`'s profile points, by default.
macro_rules! default_listen {
    () => {
        "127.0.0.1:8787"
    };
}

/// The longest workspace name, in characters.
const MAX_WORKSPACE_NAME: usize = 100;

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the Agent Runtime API until SIGINT or SIGTERM.
    Serve {
        /// Address to listen on; port 0 picks a free port (printed on stdout).
        #[arg(long, default_value = default_listen!(), value_name = "ADDR")]
        listen: SocketAddr,
        /// Async worker threads [default: twice the CPUs on SQLite, the CPUs
        /// on PostgreSQL]. SQLite's reads run in place on these workers and
        /// may briefly wait on the store's locks, so more workers than CPUs
        /// keep other connections moving meanwhile.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
        workers: Option<u16>,
        /// PostgreSQL only (refused on SQLite): connections this server keeps for requests, all
        /// opened before it announces its address (/readyz has one more of
        /// its own). Every replica has its own pool; keep their sum under
        /// the server's max_connections.
        #[arg(long, value_name = "N", default_value_t = PoolOptions::DEFAULT_SIZE,
              value_parser = clap::value_parser!(u16).range(1..=1024))]
        pool_size: u16,
        /// PostgreSQL only (refused on SQLite): how long a request waits for a free connection
        /// before it is answered 503.
        #[arg(long, value_name = "MS", default_value_t = PoolOptions::DEFAULT_WAIT_MS,
              value_parser = clap::value_parser!(u64).range(1..=600_000))]
        pool_wait_ms: u64,
        /// Connections served at once. One more is answered 503
        /// `server_error` with Retry-After, without parsing its request,
        /// and closed once what it sends is read and discarded (at most
        /// 2 s).
        #[arg(long, value_name = "N", default_value_t = server::DEFAULT_MAX_CONNECTIONS,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65_536))]
        max_connections: usize,
        /// Connections served at once from one client address (one more
        /// is refused as above), so one host that reconnects as fast as it
        /// is cut cannot hold every slot. Off unless set: behind a load
        /// balancer every connection comes from its address.
        #[arg(long, value_name = "N",
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65_536))]
        max_connections_per_address: Option<usize>,
        /// Requests each token may make, as N/s, N/m or N/h (e.g. 200/s; a
        /// burst of N, then refilled at that rate); beyond it, 429
        /// `rate_limited` with Retry-After. Off unless set.
        #[arg(long, value_name = "RATE")]
        rate_limit: Option<RateLimit>,
        /// Seconds an answer may wait for its client to read any of it (a
        /// client that pipelines requests and never reads); then the
        /// connection is closed. An idle connection is closed after 10 s.
        #[arg(long, value_name = "SECONDS",
              default_value_t = server::DEFAULT_WRITE_TIMEOUT.as_secs(),
              value_parser = clap::value_parser!(u64).range(1..=3600))]
        write_timeout: u64,
        /// Seconds one store call of a request may take; then the request
        /// is answered 503 `server_error` (retryable, Retry-After), so a
        /// database that stops answering hangs no client. `/readyz` too.
        #[arg(long, value_name = "SECONDS",
              default_value_t = server::DEFAULT_STORE_TIMEOUT.as_secs(),
              value_parser = clap::value_parser!(u64).range(1..=3600))]
        store_timeout: u64,
    },
    /// Apply the store's pending schema migrations; prints {"engine", "applied", "version"}.
    /// Every other command also applies them when it opens the store.
    Migrate {
        /// Only report each migration and whether it is applied; change nothing.
        #[arg(long)]
        status: bool,
    },
    /// Recompute every stored task's search terms, a batch of tasks per transaction, while
    /// replicas serve; prints {"engine", "reindexed"}. Run it once a rolling upgrade whose
    /// migrations recomputed them is complete (docs/deploy.md).
    Reindex,
    /// Manage workspaces.
    #[command(subcommand)]
    Workspace(WorkspaceCommand),
    /// Manage agents.
    #[command(subcommand)]
    Agent(AgentCommand),
    /// Manage channels (task boards).
    #[command(subcommand)]
    Channel(ChannelCommand),
    /// Issue, count or revoke agent tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Open or complete workflow callbacks (for idempotent task creation).
    #[command(subcommand)]
    Callback(CallbackCommand),
    /// Print the OpenAPI 3.1 document of the Agent Runtime API (the checked-in
    /// openapi.json; the server also serves it at GET /api/v1/openapi.json).
    Openapi,
    /// Create or reuse a demo workspace, agents and channel, and write an agentteam profile.
    Quickstart {
        /// The API URL the profile points at.
        #[arg(long, default_value = concat!("http://", default_listen!()), value_name = "URL")]
        api_url: String,
        /// The agentteam profile to write.
        #[arg(long, default_value = "default", value_name = "NAME",
              value_parser = clap::builder::NonEmptyStringValueParser::new())]
        profile: String,
    },
}

#[derive(Debug, Subcommand)]
enum WorkspaceCommand {
    /// Create a workspace; prints {"workspace_id"}.
    Create {
        /// The workspace's name, 1–100 characters (names need not be
        /// unique: the id tells two apart).
        #[arg(long)]
        name: String,
    },
    /// List every workspace, oldest first; prints {"workspaces": [{"workspace_id", "name",
    /// "created_at"}]} (names are not unique: the id tells two apart).
    List,
}

#[derive(Debug, Subcommand)]
enum AgentCommand {
    /// Create an agent and its first token; prints {"agent_id", "token",
    /// "scope", "expires_at"}. The first token is an ordinary token: it
    /// expires like any other (`token issue` makes more).
    Create {
        /// Workspace id (`ws_…`), as `workspace create` printed it
        #[arg(long, value_name = "WS")]
        workspace: String,
        /// The agent's handle; its member ref is `@HANDLE`.
        #[arg(long)]
        handle: String,
        #[command(flatten)]
        token: TokenOptions,
    },
    /// List the workspace's agents by handle; prints {"agents": [{"agent_id", "member_ref",
    /// "created_at"}]} (never a token).
    List {
        /// Workspace id (`ws_…`), as `workspace create` printed it
        #[arg(long, value_name = "WS")]
        workspace: String,
    },
}

/// The scope and lifetime of a token being issued.
#[derive(Debug, Args)]
struct TokenOptions {
    /// The widest permission class the token may use; each class includes
    /// the ones before it (read_only < agent_mutation < destructive). The
    /// runtime refuses an action above it with 403 `forbidden`.
    #[arg(long, value_name = "CLASS", default_value = "destructive",
          value_parser = Permission::ALL.map(Permission::as_str))]
    scope: String,
    /// How long the token lives: seconds, or a number with s, m, h or d
    /// (e.g. 15m); at most 90d. Once expired it is refused with 401, and the
    /// store deletes it at the next issue.
    #[arg(long, value_name = "DURATION", default_value = "24h", allow_hyphen_values = true,
          value_parser = auth::parse_ttl)]
    ttl: Duration,
}

impl TokenOptions {
    fn new_token(&self, hash: [u8; 32]) -> NewToken {
        NewToken {
            hash,
            scope: Permission::parse(&self.scope).unwrap_or(Permission::ReadOnly),
            ttl_us: auth::micros(self.ttl),
        }
    }
}

#[derive(Debug, Subcommand)]
enum ChannelCommand {
    /// Create a channel; prints {"channel"}.
    Create {
        /// Workspace id (`ws_…`), as `workspace create` printed it
        #[arg(long, value_name = "WS")]
        workspace: String,
        /// The board's name, as tasks name it in `channel` (lowercase
        /// letters, digits, `-` and `_`; a leading `#` is dropped)
        #[arg(long)]
        name: String,
        /// Only these agents (`@a,@b`) may use the board. Default: every agent of the workspace.
        #[arg(long, value_delimiter = ',', value_name = "@A,@B")]
        members: Option<Vec<String>>,
    },
    /// List the workspace's channels by name; prints {"channels": [{"name", "private",
    /// "members", "created_at"}]}, `members` (member refs) only for a private board.
    List {
        /// Workspace id (`ws_…`), as `workspace create` printed it
        #[arg(long, value_name = "WS")]
        workspace: String,
    },
}

#[derive(Debug, Args)]
struct AgentRef {
    /// Workspace id (`ws_…`), as `workspace create` printed it
    #[arg(long, value_name = "WS")]
    workspace: String,
    /// Agent id (`ag_…`) or member ref (`@handle`).
    #[arg(long, value_name = "AGENT")]
    agent: String,
}

#[derive(Debug, Subcommand)]
enum TokenCommand {
    /// Issue a fresh token; prints {"token", "scope", "expires_at"}, so it can
    /// serve as a credential_process. Deletes the store's expired and revoked
    /// tokens first; revokes no live one.
    Issue {
        #[command(flatten)]
        agent: AgentRef,
        #[command(flatten)]
        token: TokenOptions,
    },
    /// Revoke every live token of an agent at once; prints {"revoked"}, how many.
    Revoke(AgentRef),
    /// Count an agent's tokens; prints {"live", "stored"}: those that still
    /// authenticate, and every row kept (dead ones until the next issue).
    Count(AgentRef),
}

#[derive(Debug, Subcommand)]
enum CallbackCommand {
    /// Open a workflow callback for an agent; prints {"workflow_run_id", "callback_effect_id"}.
    Open(AgentRef),
    /// Complete a callback; keyed replays of it still work afterwards.
    Complete {
        /// Workspace id (`ws_…`), as `workspace create` printed it
        #[arg(long, value_name = "WS")]
        workspace: String,
        #[arg(long, value_name = "ID")]
        callback_effect: String,
    },
}

/// The clap command of `agentteam-runtime`, for its generated man pages (`crate::generate`).
/// The runtime's exit statuses, each with what it means: a subset of the
/// CLI's classes (`ExitClass`), so a script reads both binaries alike.
pub const EXIT_STATUSES: [(ExitClass, &str); 5] = [
    (
        ExitClass::Success,
        "success: the command's one JSON document is on stdout (`serve`: stopped by SIGINT or SIGTERM once its requests were answered)",
    ),
    (ExitClass::Internal, "internal error (a bug)"),
    (
        ExitClass::Usage,
        "usage error or invalid input: a bad command line, an unknown workspace, agent or callback effect, a store path or URI that cannot be used, a schema newer than the binary; nothing was changed",
    ),
    (
        ExitClass::Credentials,
        "`quickstart` only: the agentteam credential store it writes the profile to is open to others or not valid (as for `agentteam`); checked first, so nothing was created or written",
    ),
    (
        ExitClass::Transient,
        "the store is unreachable, busy or failing, or, for `token issue`, its schema and this binary differ mid-upgrade (`retryable: true`): run the command again later",
    ),
];

pub fn command() -> clap::Command {
    let exits: String = EXIT_STATUSES
        .iter()
        .map(|(class, meaning)| {
            let wrapped = crate::cli::help::wrap(meaning, "     ");
            format!("  {}  {}", class.code(), wrapped.trim_start())
        })
        .collect();
    <Cli as clap::CommandFactory>::command().after_long_help(format!(
        "Exit status:\n{exits}\nEnvironment:\n{}",
        crate::cli::help::environment("agentteam-runtime")
    ))
}

pub fn run() -> ExitCode {
    let parsed = command().try_get_matches().and_then(|matches| {
        let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)?;
        let db_in_argv = matches.value_source("db") == Some(clap::parser::ValueSource::CommandLine);
        Ok((cli, postgres_only_flags_given(&matches), db_in_argv))
    });
    let (cli, postgres_only, db_in_argv) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => return command_line_failure(&e),
    };
    if let Command::Openapi = cli.command {
        // Needs no store: printed before --db is even looked at.
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(crate::openapi::text().as_bytes());
        let _ = out.flush();
        return ExitCode::SUCCESS;
    }
    init_logging();
    let code = match execute(cli, &postgres_only, db_in_argv) {
        Ok(Some(value)) => {
            print_json(&value);
            ExitCode::SUCCESS
        }
        Ok(None) => ExitCode::SUCCESS,
        Err(failure) => {
            print_json(&failure.to_document());
            eprint!(
                "{}",
                crate::output::stderr_line(&format!("error: {failure}"))
            );
            ExitCode::from(u8::try_from(failure.class.code()).unwrap_or(1))
        }
    };
    crate::runtime::log::flush(Duration::from_secs(2));
    code
}

/// A command line clap refuses: like any failure, one JSON `usage_error`
/// on stdout (clap's words, without its tips) and clap's own text on
/// stderr, exit 2; `--help` and `--version` print as clap prints them.
fn command_line_failure(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    // clap repeats what was typed: a token typed by mistake is not
    // repeated back, on stdout or stderr.
    let rendered = crate::redact::tokens(&e.render().to_string());
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand
    ) {
        // clap's text is then the help page: name what is missing instead.
        let mut reached = command();
        // Options and their values are passed over.
        for arg in std::env::args().skip(1) {
            if let Some(next) = reached.find_subcommand(&arg) {
                reached = next.clone();
            }
        }
        let names: Vec<String> = reached
            .get_subcommands()
            .filter(|c| !c.is_hide_set() && c.get_name() != "help")
            .map(|c| format!("`{}`", c.get_name()))
            .collect();
        let failure = Failure::new(
            code::USAGE_ERROR,
            format!(
                "`{}` needs a command: {} (see --help).",
                reached.get_name(),
                names.join(", ")
            ),
        );
        print_json(&failure.to_document());
        eprint!(
            "{}",
            crate::output::stderr_line(&format!("error: {failure}"))
        );
        return ExitCode::from(2);
    }
    let said: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect();
    let message = said.join(" ");
    let message = message.trim_start_matches("error: ");
    let failure = Failure::new(code::USAGE_ERROR, format!("{message} (see --help)"));
    print_json(&failure.to_document());
    eprint!("{rendered}");
    ExitCode::from(u8::try_from(failure.class.code()).unwrap_or(2))
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env(crate::env_vars::RUNTIME_LOG.name)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        // Never blocks a request on a slow or full stderr pipe.
        .with_writer(crate::runtime::log::NonBlockingStderr)
        .with_ansi(false)
        .try_init();
}

/// One JSON document on one line of stdout, flushed (tests and scripts read it).
fn print_json(value: &Value) {
    let mut out = std::io::stdout().lock();
    // A closed stdout is the reader's choice, not an error worth a panic.
    let _ = writeln!(out, "{value}");
    let _ = out.flush();
}

fn default_db() -> Result<OsString, Failure> {
    directories::ProjectDirs::from("dev", "agentteam", "agentteam")
        .map(|dirs| dirs.data_dir().join("runtime.db").into_os_string())
        .ok_or_else(|| {
            Failure::new(
                code::USAGE_ERROR,
                "No home directory for the default store; pass --db PATH.",
            )
        })
}

fn open_sqlite(path: &Path, on_open: OnOpen) -> Result<SqliteStore, Failure> {
    let parent = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = parent.filter(|d| !d.exists()) {
        use std::os::unix::fs::DirBuilderExt;
        // The store holds every board: every directory the runtime makes for
        // it is private (0700) from the start. One that exists is left as
        // it is; the store file itself is created 0600 (`SqliteStore::open`).
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| {
                Failure::new(
                    code::USAGE_ERROR,
                    format!("Cannot create {}: {e}.", dir.display()),
                )
            })?;
    }
    SqliteStore::open(path, on_open)
}

fn usage(field: &str, problem: &str) -> Failure {
    Failure::invalid_input([(field.to_string(), problem.to_string())].into())
}

/// Refuses `text` unless it fits the registry string field `field` (its
/// `pattern` and `maxLength`), so an admin command accepts exactly the names
/// task inputs do; `subject` names what is checked in the message.
fn check_field(key: &str, field: &Value, text: &str, subject: &str) -> Result<(), Failure> {
    let max = field["maxLength"].as_u64().unwrap_or(0);
    let pattern = field["pattern"].as_str().unwrap_or("$^");
    if text.chars().count() as u64 <= max
        && regex::Regex::new(pattern).is_ok_and(|re| re.is_match(text))
    {
        return Ok(());
    }
    Err(usage(
        key,
        &format!("{subject} must match {pattern}, at most {max} characters."),
    ))
}

/// A handle, given without its `@`: the member ref `@handle` must fit the
/// registry's field, so the handle is one character shorter than its bound.
fn check_handle(handle: &str) -> Result<(), Failure> {
    // A caller writes `@me` for itself (docs/agents.md): no member is
    // named so, so the word is never taken for another's ref.
    if crate::registry::synonyms::is_self_handle(handle) {
        return Err(usage(
            "handle",
            &format!(
                "`{handle}` is kept for a caller naming itself (`@{handle}`); choose another handle."
            ),
        ));
    }
    let field = common::member_ref("");
    check_field("handle", &field, &format!("@{handle}"), "").map_err(|_| {
        let max = field["maxLength"].as_u64().unwrap_or(1);
        let pattern = field["pattern"].as_str().unwrap_or_default();
        usage(
            "handle",
            &format!(
                "A handle is at most {} characters, given without its `@`; the member ref `@handle` must match {pattern}.",
                max - 1
            ),
        )
    })
}

fn check_channel(name: &str) -> Result<(), Failure> {
    check_field("name", &common::channel(), name, "The channel name")
}

/// Threads tokio may start for blocking work. Store operations wait on
/// their engine without a thread (SQLite's writer thread answers over a
/// channel; PostgreSQL is network I/O), so this is only for the odd
/// blocking call such as a host name lookup, and for the validation of a
/// large body (at most `server::LARGE_BODIES_AT_ONCE` of them), and owes
/// nothing to the size of a group commit: no mutation holds one of these
/// threads while it waits for its group.
pub const MAX_BLOCKING_THREADS: usize = 8;

/// On SQLite twice the CPUs: its reads run on the workers, so a worker
/// waiting on the disk should not leave a CPU idle. On PostgreSQL the CPUs:
/// no worker waits there (the store is network I/O), and more workers only
/// park and wake each other (figures of both in docs/performance.md).
fn default_workers(location: &Location) -> usize {
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    match location {
        Location::Sqlite(_) => cpus * 2,
        Location::Postgres(_) => cpus,
    }
}

/// The flags of `serve` that only a PostgreSQL store reads, as typed on
/// the command line (their defaults do not count).
fn postgres_only_flags_given(matches: &clap::ArgMatches) -> Vec<&'static str> {
    let Some(serve) = matches.subcommand_matches("serve") else {
        return Vec::new();
    };
    [
        ("pool_size", "--pool-size"),
        ("pool_wait_ms", "--pool-wait-ms"),
    ]
    .into_iter()
    .filter(|(id, _)| serve.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
    .map(|(_, flag)| flag)
    .collect()
}

/// `postgres_only`: the PostgreSQL-only flags given, refused on SQLite
/// rather than ignored (a pool size that silently does nothing misleads
/// whoever tunes it). `db_in_argv`: `--db` was given on the command line,
/// where a password in it is the process's for every local user to read.
fn execute(
    mut cli: Cli,
    postgres_only: &[&str],
    db_in_argv: bool,
) -> Result<Option<Value>, Failure> {
    let db = match cli.db {
        Some(db) => db,
        None => default_db()?,
    };
    let location = Location::parse(&db)?;
    if let Location::Postgres(target) = &location
        && target.had_password()
        && db_in_argv
    {
        tracing::warn!(
            "the --db URI holds a password, which any local user can read in this process's arguments (ps, /proc) while it runs; give it in PGPASSWORD or ~/.pgpass (or the whole URI in {}) instead",
            crate::env_vars::RUNTIME_DB.name
        );
    }
    if let (Location::Sqlite(_), [first, ..]) = (&location, postgres_only) {
        return Err(Failure::new(
            code::USAGE_ERROR,
            format!(
                "{} {} to a PostgreSQL store only; the store {} is a SQLite file.",
                postgres_only.join(" and "),
                if postgres_only.len() == 1 {
                    "applies"
                } else {
                    "apply"
                },
                location.shown()
            ),
        )
        .field(first.trim_start_matches("--"), "PostgreSQL only."));
    }
    if let Command::Quickstart { api_url, .. } = &mut cli.command {
        // Held to `agentteam auth login`'s rule, so the profile it writes is
        // one the CLI can use; checked here rather than by clap, whose
        // refusal repeats the value (a password in it too).
        *api_url = crate::credentials::check_api_url(api_url)?;
        // The profile is written last: a credential store it could not be
        // written to (insecure, not valid, not a directory, read-only) is
        // refused before the runtime store is opened, so nothing is
        // half-made.
        CredentialStore::locate()?.check_writable()?;
    }
    let runtime = match &cli.command {
        Command::Serve { workers, .. } => {
            let workers = workers.map_or_else(|| default_workers(&location), usize::from);
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(workers)
                .max_blocking_threads(MAX_BLOCKING_THREADS)
                .enable_all()
                .build()
        }
        _ => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    }
    .map_err(|e| Failure::new(code::SERVER_ERROR, format!("No async runtime: {e}.")))?;
    runtime.block_on(execute_on(location, cli.command))
}

/// Opens the store `location` names and runs `command` on it.
/// Commands that need a store made already: they read it (the listings),
/// rework what it holds (`reindex`) or name a workspace in it (every
/// agent, channel, token and callback command), so a mistyped `--db` is
/// refused rather than given a new, empty store, and exit 2 still means
/// nothing was changed. `serve`, `migrate`, `quickstart` and `workspace
/// create` make a store.
fn needs_a_store(command: &Command) -> bool {
    matches!(
        command,
        Command::Reindex
            | Command::Workspace(WorkspaceCommand::List)
            | Command::Agent(_)
            | Command::Channel(_)
            | Command::Token(_)
            | Command::Callback(_)
    )
}

/// A `token issue` refused because the store's schema and this binary
/// differ and this run may not bring them together (a schema written by a
/// newer binary; one behind that its role may not migrate): during a
/// rolling upgrade that is passing, so it is said as retryable, and an
/// agent's credential process (`credential_process_unavailable`, exit 5)
/// rides the upgrade out rather than being told to log in again. Any
/// other refusal, or a schema already at this binary's version, as it is.
fn mid_upgrade(status: &crate::runtime::store::SchemaStatus, refused: Failure) -> Failure {
    if status.version == status.latest || refused.class != ExitClass::Usage {
        return refused;
    }
    Failure::unavailable(format!(
        "{} During a rolling upgrade this passes once the binary and the schema (version {}, this binary's {}) agree: retry shortly.",
        refused.message.trim_end(),
        status.version,
        status.latest
    ))
    .field("db", "Schema and binary differ.")
}

/// The refusal of a command that needs a store at `location`, which has
/// none yet; the command it suggests is quoted for a shell. The location
/// is the operator's own `--db` (a PostgreSQL password already left out),
/// shown as given so the command can be pasted.
/// A command that names a workspace (`command`) cannot be helped by a new
/// store, which holds none: it is told to check `--db` instead.
fn no_store_yet(location: &Location, command: &Command) -> Failure {
    let shown = location.shown();
    let quoted = shlex::try_quote(&shown).map_or_else(|_| shown.clone(), |q| q.into_owned());
    let names_workspace = matches!(
        command,
        Command::Agent(_) | Command::Channel(_) | Command::Token(_) | Command::Callback(_)
    );
    // `--db=VALUE`, so a value starting with `-` is not read as a flag.
    let message = if names_workspace {
        format!(
            "No store at {shown}, so no workspace either: check --db (or {}), which should name the store the workspace was created in.",
            crate::env_vars::RUNTIME_DB.name
        )
    } else {
        // The password is never printed: the command shown goes without it.
        let password = match location {
            Location::Postgres(target) if target.had_password() => {
                " (give the password as before, in PGPASSWORD or ~/.pgpass: it is not shown here)"
            }
            _ => "",
        };
        format!(
            "No store at {shown} yet; `agentteam-runtime --db={quoted} migrate`{password} creates it."
        )
    };
    Failure::new(code::USAGE_ERROR, message).field("db", "No store here.")
}

async fn execute_on(location: Location, command: Command) -> Result<Option<Value>, Failure> {
    let on_open = if matches!(command, Command::Migrate { .. }) || needs_a_store(&command) {
        OnOpen::Inspect
    } else {
        OnOpen::Migrate
    };
    match &location {
        Location::Sqlite(path) => {
            if (matches!(command, Command::Migrate { status: true }) || needs_a_store(&command))
                && !path.exists()
            {
                return Err(no_store_yet(&location, &command));
            }
            let store = open_sqlite(path, on_open)?;
            run_command(store, &location, command).await
        }
        Location::Postgres(target) => {
            let pool = match &command {
                Command::Serve {
                    pool_size,
                    pool_wait_ms,
                    ..
                } => PoolOptions {
                    size: usize::from(*pool_size),
                    wait: Duration::from_millis(*pool_wait_ms),
                    ..PoolOptions::default()
                },
                // One command, one connection at a time.
                _ => PoolOptions {
                    size: 1,
                    ..PoolOptions::default()
                },
            };
            let store = PgStore::open(target, on_open, pool).await?;
            run_command(store, &location, command).await
        }
    }
}

async fn run_command<S: Admin>(
    store: S,
    location: &Location,
    command: Command,
) -> Result<Option<Value>, Failure> {
    if needs_a_store(&command) {
        // As on a missing SQLite file: a database without the schema is no
        // store yet. One that has it gets its pending migrations, as every
        // command applies them.
        let status = store.schema_status().await?;
        if status.version == 0 {
            return Err(no_store_yet(location, &command));
        }
        if let Err(refused) = store.migrate().await {
            return Err(match command {
                Command::Token(TokenCommand::Issue { .. }) => mid_upgrade(&status, refused),
                _ => refused,
            });
        }
    }
    match command {
        Command::Serve {
            listen,
            max_connections,
            max_connections_per_address,
            rate_limit,
            write_timeout,
            store_timeout,
            ..
        } => {
            let bound = server::bind(listen).await?;
            store.warm().await;
            let (address, db) = (bound.address(), location.shown());
            print_json(&json!({"listen": address.to_string(), "db": db}));
            tracing::info!(listen = %address, db, "agentteam-runtime serving");
            let timeouts = server::Timeouts {
                write: Duration::from_secs(write_timeout),
                store: Duration::from_secs(store_timeout),
                ..server::Timeouts::default()
            };
            let limits = server::Limits {
                max_connections,
                per_address: max_connections_per_address,
                rate_limit,
            };
            bound.serve(Arc::new(store), timeouts, limits).await;
            Ok(None)
        }
        Command::Migrate { status: true } => Ok(Some(json!(store.schema_status().await?))),
        Command::Migrate { status: false } => {
            let applied = store.migrate().await?;
            let status = store.schema_status().await?;
            Ok(Some(json!({
                "engine": status.engine,
                "applied": applied,
                "version": status.version,
            })))
        }
        Command::Reindex => {
            let reindexed = store.reindex_search().await?;
            let status = store.schema_status().await?;
            Ok(Some(
                json!({"engine": status.engine, "reindexed": reindexed}),
            ))
        }
        Command::Workspace(WorkspaceCommand::Create { name }) => {
            let name = name.trim();
            if name.is_empty()
                || name.chars().count() > MAX_WORKSPACE_NAME
                || name.chars().any(char::is_control)
            {
                let rule =
                    format!("1–{MAX_WORKSPACE_NAME} characters, not blank, no control characters.");
                return Err(usage("name", &rule));
            }
            Ok(Some(
                json!({"workspace_id": store.create_workspace(name).await?}),
            ))
        }
        Command::Workspace(WorkspaceCommand::List) => {
            let workspaces: Vec<Value> = store
                .list_workspaces()
                .await?
                .into_iter()
                .map(|w| {
                    json!({
                        "workspace_id": w.workspace_id,
                        "name": w.name,
                        "created_at": clock::format(w.created_at),
                    })
                })
                .collect();
            Ok(Some(json!({ "workspaces": workspaces })))
        }
        Command::Agent(AgentCommand::List { workspace }) => {
            let agents: Vec<Value> = store
                .list_agents(&workspace)
                .await?
                .into_iter()
                .map(|a| {
                    json!({
                        "agent_id": a.agent_id,
                        "member_ref": format!("@{}", a.handle),
                        "created_at": clock::format(a.created_at),
                    })
                })
                .collect();
            Ok(Some(json!({ "agents": agents })))
        }
        Command::Channel(ChannelCommand::List { workspace }) => {
            let channels: Vec<Value> = store
                .list_channels(&workspace)
                .await?
                .into_iter()
                .map(|c| {
                    let mut channel = json!({
                        "name": c.name,
                        "private": c.members.is_some(),
                        "created_at": clock::format(c.created_at),
                    });
                    if let Some(members) = c.members {
                        let refs: Vec<String> = members.iter().map(|h| format!("@{h}")).collect();
                        channel["members"] = json!(refs);
                    }
                    channel
                })
                .collect();
            Ok(Some(json!({ "channels": channels })))
        }
        Command::Agent(AgentCommand::Create {
            workspace,
            handle,
            token: options,
        }) => {
            let handle = handle.strip_prefix('@').unwrap_or(&handle).to_string();
            check_handle(&handle)?;
            let (token, hash) = auth::new_token()?;
            let new = options.new_token(hash);
            let (agent_id, expires_at) = store.create_agent(&workspace, &handle, &new).await?;
            Ok(Some(json!({
                "agent_id": agent_id,
                "token": token,
                "scope": new.scope,
                "expires_at": clock::format(expires_at),
            })))
        }
        Command::Channel(ChannelCommand::Create {
            workspace,
            name,
            members,
        }) => {
            let name = name.strip_prefix('#').unwrap_or(&name).to_string();
            check_channel(&name)?;
            let members = members.map(|m| {
                m.into_iter()
                    .map(|r| r.trim().to_string())
                    .filter(|r| !r.is_empty())
                    .collect::<Vec<_>>()
            });
            // A private board no one may use could never be used, nor its
            // name given again: no command adds members or deletes a board.
            if members.as_ref().is_some_and(Vec::is_empty) {
                return Err(Failure::new(
                    code::USAGE_ERROR,
                    "--members names no agent: list the board's members (`@a,@b`), or leave the flag out for a board every agent may use.",
                )
                .field("members", "Empty."));
            }
            store
                .create_channel(&workspace, &name, members.as_deref())
                .await?;
            Ok(Some(json!({"channel": name})))
        }
        Command::Token(TokenCommand::Issue {
            agent,
            token: options,
        }) => {
            let (token, hash) = auth::new_token()?;
            let new = options.new_token(hash);
            let expires_at = store
                .issue_token(&agent.workspace, &agent.agent, &new)
                .await?;
            Ok(Some(json!({
                "token": token,
                "scope": new.scope,
                "expires_at": clock::format(expires_at),
            })))
        }
        Command::Token(TokenCommand::Count(agent)) => Ok(Some(json!(
            store.count_tokens(&agent.workspace, &agent.agent).await?
        ))),
        Command::Token(TokenCommand::Revoke(agent)) => {
            let revoked = store.revoke_tokens(&agent.workspace, &agent.agent).await?;
            Ok(Some(json!({"revoked": revoked})))
        }
        Command::Callback(CallbackCommand::Open(agent)) => {
            let callback = store.open_callback(&agent.workspace, &agent.agent).await?;
            Ok(Some(json!({
                "workflow_run_id": callback.workflow_run_id,
                "callback_effect_id": callback.callback_effect_id,
            })))
        }
        Command::Callback(CallbackCommand::Complete {
            workspace,
            callback_effect,
        }) => {
            store
                .complete_callback(&workspace, &callback_effect)
                .await?;
            Ok(Some(
                json!({"callback_effect_id": callback_effect, "status": "completed"}),
            ))
        }
        Command::Quickstart { api_url, profile } => {
            quickstart(&store, location, &api_url, &profile)
                .await
                .map(Some)
        }
        // `run` prints the document before any store is opened.
        Command::Openapi => Ok(Some(crate::openapi::document())),
    }
}

const DEMO_WORKSPACE: &str = "demo";
const DEMO_AGENT: &str = "demo-agent";
const DEMO_PEER: &str = "demo-peer";
const DEMO_CHANNEL: &str = "demo";
/// The lifetime of the tokens quickstart's credential process issues.
const QUICKSTART_TTL: &str = "15m";

/// Creates what is missing of the demo setup, then writes a profile whose
/// credential_process is this binary's `token issue`, through the same
/// credential store code as `agentteam auth login`.
async fn quickstart<S: Admin>(
    store: &S,
    location: &Location,
    api_url: &str,
    profile: &str,
) -> Result<Value, Failure> {
    // Each part is found, or created; quickstarts at once on one store (two
    // replicas' start-up scripts) reuse one demo: the workspace is found or
    // created in one operation, and an agent or board that another made
    // meanwhile (its create refused: they are unique) is found then.
    let mut created = Vec::new();
    let (workspace_id, new) = store.find_or_create_workspace(DEMO_WORKSPACE).await?;
    if new {
        created.push(format!("workspace {DEMO_WORKSPACE}"));
    }
    let mut agent_ids = Vec::new();
    for handle in [DEMO_AGENT, DEMO_PEER] {
        let member_ref = format!("@{handle}");
        let find_agent = async || {
            let found = store.find_agent(&workspace_id, &member_ref).await?;
            Ok::<_, Failure>(found.map(|agent| agent.agent_id))
        };
        let id = match find_agent().await? {
            Some(id) => id,
            None => {
                // The first token is never shown: the profile's credential
                // process issues the ones used; it expires within a second.
                let (_, hash) = auth::new_token()?;
                let first = NewToken {
                    ttl_us: auth::micros(Duration::from_secs(1)),
                    ..NewToken::new(hash)
                };
                match store.create_agent(&workspace_id, handle, &first).await {
                    Ok((id, _)) => {
                        created.push(format!("agent @{handle}"));
                        id
                    }
                    Err(failure) => find_agent().await?.ok_or(failure)?,
                }
            }
        };
        agent_ids.push(id);
    }
    if !store.channel_exists(&workspace_id, DEMO_CHANNEL).await? {
        match store
            .create_channel(&workspace_id, DEMO_CHANNEL, None)
            .await
        {
            Ok(_) => created.push(format!("channel {DEMO_CHANNEL}")),
            Err(failure) => {
                if !store.channel_exists(&workspace_id, DEMO_CHANNEL).await? {
                    return Err(failure);
                }
            }
        }
    }
    let agent_id = agent_ids[0].clone();
    let exe = std::env::current_exe().map_err(|e| {
        Failure::new(
            code::USAGE_ERROR,
            format!("Cannot locate this program: {e}."),
        )
    })?;
    // The credential process names the store as it may appear in argv: an
    // absolute path, or the URI without its password.
    let (db, password_dropped) = match location {
        Location::Sqlite(path) => (
            std::path::absolute(path)
                .unwrap_or_else(|_| path.clone())
                .display()
                .to_string(),
            false,
        ),
        Location::Postgres(target) => (target.shown().to_string(), target.had_password()),
    };
    let credential_process = vec![
        exe.display().to_string(),
        "--db".to_string(),
        db.clone(),
        "token".to_string(),
        "issue".to_string(),
        "--workspace".to_string(),
        workspace_id.clone(),
        "--agent".to_string(),
        agent_id.clone(),
        // Short-lived: a leaked token is good for minutes, and the CLI runs
        // this again when it expires.
        "--ttl".to_string(),
        QUICKSTART_TTL.to_string(),
    ];
    let credentials = CredentialStore::locate()?;
    let mut new_profile = Profile {
        api_url: api_url.trim_end_matches('/').to_string(),
        workspace_id: workspace_id.clone(),
        agent_id: agent_id.clone(),
        token: None,
        token_expires_at: None,
        credential_process: Some(credential_process.clone()),
        max_permission: None,
    };
    credentials.update(|file| {
        // A profile that is capped stays capped: a new place is no reason to
        // let it do more (`agentteam auth login --max-permission` changes it).
        new_profile.max_permission = file.profiles.get(profile).and_then(|p| p.max_permission);
        file.profiles.insert(profile.to_string(), new_profile);
        if file.default_profile.is_none() {
            file.default_profile = Some(profile.to_string());
        }
        Ok(())
    })?;
    if let Some(warning) = crate::credentials::cleartext_warning(api_url) {
        eprintln!("agentteam-runtime: warning: {warning}");
    }
    let profile_flag = if profile == "default" {
        String::new()
    } else {
        format!(" {}", crate::credentials::profile_flag(profile))
    };
    let mut answer = json!({
        "created": created,
        "workspace_id": workspace_id,
        "agent_id": agent_id,
        "agent": format!("@{DEMO_AGENT}"),
        "peer_agent_id": agent_ids[1],
        "peer": format!("@{DEMO_PEER}"),
        "channel": DEMO_CHANNEL,
        "db": db,
        "profile": profile,
        "credentials": credentials.path().display().to_string(),
        "credential_process": credential_process,
        "next": [
            format!(
                "agentteam-runtime --db {} serve --listen {}",
                shlex::try_quote(&db).unwrap_or_default(),
                listen_of(api_url)
            ),
            format!("echo '{{\"channel\":\"{DEMO_CHANNEL}\"}}' | agentteam{profile_flag} exec task list -"),
        ],
    });
    if password_dropped {
        // A password never goes into argv, where any user can read it.
        answer["note"] = json!(
            "The credential process connects without the URI's password: give it in ~/.pgpass (or PGPASSWORD) to the user that runs agentteam."
        );
    }
    Ok(answer)
}

/// The `serve --listen` address that answers at `api_url`: its IP address
/// (`localhost` as 127.0.0.1; a host name as every interface, 0.0.0.0) and
/// its port, or the scheme's (443 for https).
fn listen_of(api_url: &str) -> String {
    let Ok(url) = reqwest::Url::parse(api_url) else {
        return default_listen!().to_string();
    };
    let port = url.port_or_known_default().unwrap_or(80);
    let host = url.host_str().unwrap_or_default();
    let ip = match host.trim_start_matches('[').trim_end_matches(']') {
        "localhost" => std::net::IpAddr::from([127, 0, 0, 1]),
        host => host.parse().unwrap_or(std::net::IpAddr::from([0, 0, 0, 0])),
    };
    std::net::SocketAddr::new(ip, port).to_string()
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    /// The hint for a store not made yet can be pasted; where the URI's
    /// password had to be left out of it, it says how to give it.
    #[test]
    fn the_migrate_hint_says_where_the_password_went() {
        let status = Command::Migrate { status: true };
        let with = Location::parse(OsStr::new("postgres://al:s3cret@h/db")).unwrap();
        let said = no_store_yet(&with, &status).message;
        assert!(!said.contains("s3cret"), "{said}");
        assert!(
            said.contains("--db=postgres://al@h/db migrate` (give the password as before"),
            "{said}"
        );
        let without = Location::parse(OsStr::new("postgres://al@h/db")).unwrap();
        let said = no_store_yet(&without, &status).message;
        assert!(said.ends_with("migrate` creates it."), "{said}");
    }

    #[test]
    fn only_sqlite_gets_more_workers_than_cpus() {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let sqlite = Location::parse(OsStr::new("/tmp/agentteam.db")).unwrap();
        let postgres = Location::parse(OsStr::new("postgres://u@localhost/agentteam")).unwrap();
        assert_eq!(default_workers(&sqlite), cpus * 2);
        assert_eq!(default_workers(&postgres), cpus);
    }

    #[test]
    fn a_handle_is_one_character_shorter_than_its_member_ref() {
        assert!(check_handle(&"a".repeat(39)).is_ok());
        let refused = check_handle(&"a".repeat(40)).unwrap_err();
        assert!(
            refused.field_errors["handle"].contains("at most 39 characters"),
            "{refused:?}"
        );
    }

    #[test]
    fn quickstart_suggests_a_listen_address_serve_takes() {
        for (api_url, listen) in [
            ("http://127.0.0.1:8787", "127.0.0.1:8787"),
            ("http://localhost:9000", "127.0.0.1:9000"),
            ("https://tasks.example.com", "0.0.0.0:443"),
            ("http://tasks.example.com", "0.0.0.0:80"),
            ("http://[::1]:8080", "[::1]:8080"),
        ] {
            assert_eq!(listen_of(api_url), listen, "{api_url}");
            listen.parse::<std::net::SocketAddr>().unwrap();
        }
    }
}
