//! `--db` as a user types it: a file path or a PostgreSQL URI, chosen by
//! the scheme alone. Each mistake (a bad URI, another scheme, a server that
//! is not there, a wrong password, a missing database, a schema newer than
//! the binary) is one error document that names the problem and never the
//! password, a non-zero exit, and nothing created. `migrate` and
//! `migrate --status` on both engines.

use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::postgres::{Cluster, PASSWORD, SUPERUSER};
use crate::support::runtime::{
    BIN, Engine, Runtime, admin_output, dbname, fresh_db, message, refused, runtime_in_env,
    succeeded,
};

/// `agentteam-runtime ARGS…` in `dir`, with `--db` only from the arguments.
fn runtime_in(dir: &std::path::Path, args: &[&str]) -> Output {
    runtime_in_env(dir, args, &[])
}

/// [`runtime_in`] `dir` with `--db db` before the arguments.
fn on_db<'a>(dir: &'a std::path::Path, db: &'a str) -> impl Fn(&[&str]) -> Output + 'a {
    move |args| {
        let mut all = vec!["--db", db];
        all.extend_from_slice(args);
        runtime_in(dir, &all)
    }
}

/// What a refused command (exit 2) says of its `field`.
fn field_problem(out: &Output, field: &str) -> String {
    refused(out, 2, "no secret here")["error"]["field_errors"][field]
        .as_str()
        .unwrap()
        .to_string()
}

/// A password in `--db` is in the process's arguments, which every local
/// user can read while it runs: the runtime says so, without the password,
/// and says nothing of one given in the environment.
#[test]
fn a_password_on_the_command_line_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let uri = "postgres://al:s3cret@127.0.0.1:1/db";
    let warning = "holds a password, which any local user can read";
    let out = runtime_in(dir.path(), &["--db", uri, "migrate", "--status"]);
    refused(&out, 5, "s3cret");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(warning),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = runtime_in_env(
        dir.path(),
        &["migrate", "--status"],
        &[("AGENTTEAM_RUNTIME_DB", uri)],
    );
    refused(&out, 5, "s3cret");
    assert!(!String::from_utf8_lossy(&out.stderr).contains(warning));
    // No password, no warning.
    let out = runtime_in(
        dir.path(),
        &[
            "--db",
            "postgres://al@127.0.0.1:1/db",
            "migrate",
            "--status",
        ],
    );
    refused(&out, 5, "s3cret");
    assert!(!String::from_utf8_lossy(&out.stderr).contains(warning));
}

#[test]
fn a_uri_is_never_taken_for_a_path() {
    let dir = tempfile::tempdir().unwrap();
    for (db, names) in [
        // A URI tokio-postgres cannot read: it says what is wrong.
        (
            "postgres://al:s3cret@db.example/tasks?sslmode=sometimes",
            "sslmode",
        ),
        (
            "postgres://al:s3cret@db.example:99999/tasks",
            "invalid value for option `port`",
        ),
        (
            "postgres://al:s3cret@db.example/tasks?bogus=1",
            "unknown option `bogus`",
        ),
        // A broken percent escape, which libpq refuses too (the password
        // holding it is not quoted).
        ("postgres://al:s3cret%g@db.example/tasks", "two hex digits"),
        // Another engine's scheme.
        ("mysql://al:s3cret@db.example/tasks", "`mysql:`"),
        ("sqlite://al:s3cret@x/tasks", "`sqlite:`"),
        ("file:s3cret.db", "`file:`"),
        // What starts like a PostgreSQL URI but is not one: never a file
        // named `postgres:`.
        ("postgres:/var/run/s3cret", "starts with postgres://"),
        (
            "postgresql:/al:s3cret@127.0.0.1/tasks",
            "starts with postgres://",
        ),
        ("postgres:", "starts with postgres://"),
        ("postgres ://al:s3cret@h/tasks", "starts with postgres://"),
        // libpq's key=value form: never a file named after it.
        (
            "host=127.0.0.1 port=5432 user=al password=s3cret dbname=tasks",
            "key=value connection string",
        ),
        (
            "dbname=tasks PASSWORD=s3cret",
            "key=value connection string",
        ),
        (
            "host = 127.0.0.1 user = al password = s3cret",
            "key=value connection string",
        ),
        (
            "target_session_attrs=any password=s3cret",
            "key=value connection string",
        ),
        // Quotes an env file kept, and a slipped colon: never a path
        // named after the URI, password and all.
        ("\"postgres://al:s3cret@db.example/tasks\"", "in quotes"),
        ("'postgres://al:s3cret@db.example/tasks'", "in quotes"),
        ("postgres//al:s3cret@db.example/tasks", "`://` mistyped"),
        ("postgresql;//al:s3cret@db.example/tasks", "`://` mistyped"),
        // An unexpanded `~`: never a directory named `~` here.
        ("~/store.db", "expanded only by a shell"),
        ("~", "expanded only by a shell"),
        (" ~/store.db", "expanded only by a shell"),
        ("~other/store.db", "expanded only by a shell"),
    ] {
        for command in [vec!["serve"], vec!["workspace", "create", "--name", "w"]] {
            let mut args = vec!["--db", db];
            args.extend(&command);
            let doc = refused(&runtime_in(dir.path(), &args), 2, "s3cret");
            assert_eq!(doc["error"]["code"], "usage_error", "{doc}");
            assert!(message(&doc).contains(names), "{doc}");
            assert!(doc["error"]["field_errors"]["db"].is_string(), "{doc}");
        }
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "created {left:?}");
}

#[test]
fn an_unreachable_server_is_named_and_transient() {
    let dir = tempfile::tempdir().unwrap();
    // Port 1 on loopback: nothing listens there.
    let uri = "postgres://al:s3cret@127.0.0.1:1/tasks";
    let doc = refused(
        &runtime_in(
            dir.path(),
            &[
                "--db",
                uri,
                "token",
                "issue",
                "--workspace",
                "w",
                "--agent",
                "@a",
            ],
        ),
        5,
        "s3cret",
    );
    assert_eq!(doc["error"]["code"], "server_error");
    assert_eq!(doc["error"]["retryable"], true);
    let text = message(&doc);
    assert!(
        text.contains("Cannot reach PostgreSQL at al@127.0.0.1:1/tasks"),
        "{text}"
    );
    assert!(text.to_lowercase().contains("refused"), "{text}");
    // The scheme in capitals is the same URI (RFC 3986): the same answer.
    let upper = uri.replacen("postgres", "POSTGRES", 1);
    let doc = refused(
        &runtime_in(dir.path(), &["--db", &upper, "migrate", "--status"]),
        5,
        "s3cret",
    );
    assert!(
        message(&doc).contains("Cannot reach PostgreSQL at al@127.0.0.1:1/tasks"),
        "{doc}"
    );
}

/// A port where something else answers (an HTTP server) is a wrong host
/// or port, said as such and not retryable: no wait makes it PostgreSQL.
#[test]
fn a_port_that_is_not_postgresql_is_named_a_setting_to_fix() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        use std::io::{Read, Write};
        if let Ok((mut stream, _)) = listener.accept() {
            let mut first = [0u8; 4096];
            let _ = stream.read(&mut first);
            let _ = stream.write_all(
                b"HTTP/1.1 400 Bad Request\r\ncontent-length: 11\r\nconnection: close\r\n\r\nbad request",
            );
            // Closed only once the client has read the answer (a reset
            // would hide it).
            let _ = stream.shutdown(std::net::Shutdown::Write);
            let _ = stream.read(&mut first);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let uri = format!("postgres://al:s3cret@127.0.0.1:{port}/tasks");
    let doc = refused(
        &runtime_in(dir.path(), &["--db", &uri, "migrate", "--status"]),
        2,
        "s3cret",
    );
    assert_eq!(doc["error"]["retryable"], false, "{doc}");
    assert!(
        message(&doc).contains("did not answer as PostgreSQL"),
        "{doc}"
    );
    server.join().unwrap();
}

/// An empty --db, or an empty AGENTTEAM_RUNTIME_DB, is a usage error that
/// says so; no store is looked for or created.
#[test]
fn an_empty_store_setting_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let doc = refused(
        &runtime_in(dir.path(), &["--db", "", "migrate"]),
        2,
        "\u{0}",
    );
    assert!(message(&doc).contains("is empty"), "{doc}");
    let out = Command::new(BIN)
        .args(["migrate"])
        .current_dir(dir.path())
        .env("AGENTTEAM_RUNTIME_DB", "  ")
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .output()
        .unwrap();
    let doc = refused(&out, 2, "\u{0}");
    assert!(message(&doc).contains("is empty"), "{doc}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing created"
    );
}

#[test]
fn a_wrong_password_or_a_missing_database_is_named_and_nothing_is_created() {
    let cluster = Cluster::shared();
    let db = cluster.new_database();
    let dir = tempfile::tempdir().unwrap();
    let wrong = format!(
        "postgres://{SUPERUSER}:not-the-password@127.0.0.1:{}/{db}",
        cluster.port()
    );
    let doc = refused(
        &runtime_in(
            dir.path(),
            &["--db", &wrong, "workspace", "create", "--name", "w"],
        ),
        2,
        "not-the-password",
    );
    assert_eq!(doc["error"]["code"], "usage_error");
    assert!(
        message(&doc).contains(&format!("refused user `{SUPERUSER}`")),
        "{doc}"
    );
    assert_eq!(
        cluster
            .psql(
                &db,
                "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
            )
            .trim(),
        "0",
        "a refused connection created nothing"
    );
    // No password where the server asks for one: a setting to fix (exit 2),
    // not a server to wait for.
    let bare = format!("postgres://{SUPERUSER}@127.0.0.1:{}/{db}", cluster.port());
    let doc = refused(
        &runtime_in(
            dir.path(),
            &["--db", &bare, "workspace", "create", "--name", "w"],
        ),
        2,
        PASSWORD,
    );
    assert_eq!(doc["error"]["code"], "usage_error");
    assert!(
        message(&doc).contains(&format!("asks user `{SUPERUSER}` for a password")),
        "{doc}"
    );
    // A password file others may read is ignored, as libpq ignores it, and
    // the refusal says so rather than leave the operator to guess.
    use std::os::unix::fs::PermissionsExt;
    let passfile = dir.path().join("no-pgpass");
    std::fs::write(
        &passfile,
        format!("127.0.0.1:{}:*:{SUPERUSER}:{PASSWORD}\n", cluster.port()),
    )
    .unwrap();
    std::fs::set_permissions(&passfile, std::fs::Permissions::from_mode(0o644)).unwrap();
    let doc = refused(
        &runtime_in(dir.path(), &["--db", &bare, "migrate", "--status"]),
        2,
        PASSWORD,
    );
    assert!(
        message(&doc).contains("was ignored: its mode is 644"),
        "{doc}"
    );
    // Private, it is read: for the host of a multi-host URI that has a
    // line, though the first host has none (and refuses connections).
    std::fs::set_permissions(&passfile, std::fs::Permissions::from_mode(0o600)).unwrap();
    let two_hosts = format!(
        "postgres://{SUPERUSER}@127.0.0.1:1,127.0.0.1:{}/{db}",
        cluster.port()
    );
    succeeded(&runtime_in(
        dir.path(),
        &["--db", &two_hosts, "migrate", "--status"],
    ));
    std::fs::remove_file(&passfile).unwrap();
    // The right password works, from the URI or from PGPASSWORD.
    let right = cluster.tcp_uri(&db);
    let out = runtime_in(
        dir.path(),
        &["--db", &right, "workspace", "create", "--name", "w"],
    );
    succeeded(&out);
    // The port given only as a parameter, as libpq reads it.
    let query_port = format!(
        "postgres://{SUPERUSER}:{PASSWORD}@127.0.0.1/{db}?port={}",
        cluster.port()
    );
    succeeded(&runtime_in(
        dir.path(),
        &["--db", &query_port, "workspace", "create", "--name", "w3"],
    ));
    let bare = format!("postgres://{SUPERUSER}@127.0.0.1:{}/{db}", cluster.port());
    let out = Command::new(BIN)
        .args(["--db", &bare, "workspace", "create", "--name", "w2"])
        .env("PGPASSWORD", PASSWORD)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    succeeded(&out);

    let missing = format!("{}_missing", db);
    let doc = refused(
        &runtime_in(
            dir.path(),
            &[
                "--db",
                &cluster.tcp_uri(&missing),
                "workspace",
                "create",
                "--name",
                "w",
            ],
        ),
        2,
        PASSWORD,
    );
    assert!(
        message(&doc).contains(&format!("Database `{missing}` does not exist")),
        "{doc}"
    );
}

/// A database the runtime's user may not build or read in, or one that
/// holds a table of the runtime's names, is a setting to fix (exit 2),
/// named as PostgreSQL names it; a role out of connections is a moment to
/// wait out (exit 5). Nothing is half-created.
#[test]
fn refusals_by_the_database_are_named_and_classed() {
    let cluster = Cluster::shared();
    let as_role = |role: &str, db: &str| {
        cluster
            .socket_uri(db)
            .replacen(&format!("//{SUPERUSER}@"), &format!("//{role}@"), 1)
    };
    // Another application's table of one of the runtime's names.
    let db = cluster.new_database();
    cluster.psql(&db, "CREATE TABLE tasks (x int)");
    let doc = refused(
        &admin_output(&cluster.socket_uri(&db), &["migrate"]),
        2,
        "\u{0}",
    );
    assert_eq!(doc["error"]["code"], "usage_error");
    assert!(
        message(&doc).contains("relation \"tasks\" already exists"),
        "{doc}"
    );
    assert_eq!(
        cluster
            .psql(
                &db,
                "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
            )
            .trim(),
        "1",
        "the failed migration left nothing of its own"
    );
    // A user who may not read another's store (one who may not build a
    // store: a_refused_migration_names_the_reason_in_the_answer_and_the_log).
    let role = format!("reader_{db}");
    cluster.psql(&db, &format!("CREATE ROLE {role} LOGIN"));
    let built = cluster.new_database();
    succeeded(&admin_output(&cluster.socket_uri(&built), &["migrate"]));
    let doc = refused(
        &admin_output(&as_role(&role, &built), &["migrate", "--status"]),
        2,
        "\u{0}",
    );
    assert!(
        message(&doc).contains("permission denied for table agentteam_schema"),
        "{doc}"
    );
    // A parameter the server cannot meet (channel binding from a server
    // that trusts the socket): a setting, not an outage.
    let binding = format!("{}&channel_binding=require", cluster.socket_uri(&built));
    let doc = refused(
        &admin_output(&binding, &["migrate", "--status"]),
        2,
        "\u{0}",
    );
    assert!(message(&doc).contains("channel binding"), "{doc}");
    // A role that may open no connection now: retryable.
    let limited = format!("limited_{db}");
    cluster.psql(
        &db,
        &format!("CREATE ROLE {limited} LOGIN CONNECTION LIMIT 0"),
    );
    let doc = refused(
        &admin_output(&as_role(&limited, &built), &["migrate", "--status"]),
        5,
        "\u{0}",
    );
    assert_eq!(
        (&doc["error"]["code"], &doc["error"]["retryable"]),
        (&json!("server_error"), &json!(true)),
        "{doc}"
    );
    assert!(
        message(&doc).contains("cannot take a connection now"),
        "{doc}"
    );
}

#[test]
fn a_schema_newer_than_the_binary_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    // PostgreSQL: a version this binary does not know.
    let cluster = Cluster::shared();
    let uri = cluster.create_database();
    let db = dbname(&uri);
    let out = admin_output(&uri, &["migrate"]);
    assert!(out.status.success());
    cluster.psql(
        &db,
        "INSERT INTO agentteam_schema (version, name, applied_at) VALUES (999, 'future', 0)",
    );
    let doc = refused(
        &admin_output(&uri, &["workspace", "create", "--name", "w"]),
        2,
        "\u{0}",
    );
    assert!(message(&doc).contains("version 999"), "{doc}");
    assert_eq!(
        cluster.psql(&db, "SELECT count(*) FROM workspaces").trim(),
        "0"
    );
    let doc = refused(&admin_output(&uri, &["reindex"]), 2, "\u{0}");
    assert!(message(&doc).contains("version 999"), "{doc}");
    // SQLite: the same through `PRAGMA user_version`.
    let file = dir.path().join("runtime.db");
    let path = file.to_str().unwrap();
    assert!(admin_output(path, &["migrate"]).status.success());
    let workspace = succeeded(&admin_output(path, &["workspace", "create", "--name", "w"]));
    let workspace = workspace["workspace_id"].as_str().unwrap().to_string();
    let agent = succeeded(&admin_output(
        path,
        &[
            "agent",
            "create",
            "--workspace",
            &workspace,
            "--handle",
            "a",
        ],
    ));
    let agent = agent["agent_id"].as_str().unwrap().to_string();
    rusqlite::Connection::open(&file)
        .unwrap()
        .pragma_update(None, "user_version", 999)
        .unwrap();
    // An agent's credential process mid-upgrade (this binary older than
    // the schema): retryable, exit 5, so the CLI says to retry shortly.
    let issue = [
        "token",
        "issue",
        "--workspace",
        &workspace,
        "--agent",
        &agent,
    ];
    let doc = refused(&admin_output(path, &issue), 5, "\u{0}");
    assert_eq!(doc["error"]["retryable"], true, "{doc}");
    assert!(message(&doc).contains("version 999"), "{doc}");
    let doc = refused(&admin_output(path, &["serve"]), 2, "\u{0}");
    assert!(message(&doc).contains("version 999"), "{doc}");
    let doc = refused(&admin_output(path, &["reindex"]), 2, "\u{0}");
    assert!(message(&doc).contains("version 999"), "{doc}");
    // The status still reports it, so an operator can see why.
    let out = admin_output(path, &["migrate", "--status"]);
    assert!(out.status.success());
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["version"], 999);
    assert!(
        status["note"]
            .as_str()
            .unwrap()
            .contains("newer than this agentteam-runtime knows"),
        "{status}"
    );
}

/// Runners that migrate a fresh database at once (a release step beside
/// replicas starting): one applies every migration, the rest wait for it
/// and find nothing to do; none fails.
#[test]
fn runners_that_migrate_a_fresh_database_at_once_all_succeed() {
    let cluster = Cluster::shared();
    let uri = cluster.create_database();
    let runners: Vec<_> = (0..6)
        .map(|_| {
            let uri = uri.clone();
            std::thread::spawn(move || admin_output(&uri, &["migrate"]))
        })
        .collect();
    let docs: Vec<Value> = runners
        .into_iter()
        .map(|runner| succeeded(&runner.join().unwrap()))
        .collect();
    let latest = docs[0]["version"].as_u64().unwrap() as usize;
    let mut applied: Vec<usize> = docs
        .iter()
        .map(|doc| {
            assert_eq!(doc["version"], latest, "{doc}");
            doc["applied"].as_array().unwrap().len()
        })
        .collect();
    applied.sort();
    assert_eq!(
        applied,
        [0, 0, 0, 0, 0, latest],
        "one runner applied them all"
    );
}

fn migrate_reports_and_applies(engine: Engine) {
    let dir = tempfile::tempdir().unwrap();
    let db = fresh_db(engine, dir.path());
    let name = engine.name();
    if engine == Engine::Sqlite {
        // No store yet: the status says so and creates nothing.
        let out = admin_output(&db, &["migrate", "--status"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(!std::path::Path::new(&db).exists());
    } else {
        let out = admin_output(&db, &["migrate", "--status"]);
        assert!(out.status.success());
        let status: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(status["version"], 0, "{status}");
        assert!(
            status["migrations"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["applied"] == false)
        );
    }
    let out = admin_output(&db, &["migrate"]);
    let applied = succeeded(&out);
    assert_eq!(applied["engine"], name);
    let latest = applied["version"].as_u64().unwrap();
    assert!(latest >= 1);
    assert_eq!(
        applied["applied"].as_array().unwrap().len() as u64,
        latest,
        "{applied}"
    );
    let out = admin_output(&db, &["migrate"]);
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        again,
        json!({"engine": name, "applied": [], "version": latest})
    );
    let out = admin_output(&db, &["migrate", "--status"]);
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (status["engine"].clone(), status["version"].clone()),
        (json!(name), json!(latest))
    );
    assert_eq!(status["latest"], latest);
    assert!(status.get("note").is_none(), "{status}");
    assert!(
        status["migrations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["applied"] == true)
    );
    // A server on the migrated store serves.
    let rt = Runtime::serve(engine, &db, &[]);
    assert_eq!(rt.http("GET", "/readyz", None, None).status, 200);
}

/// `reindex` beside a serving replica: it reads every task, prints
/// `{"engine", "reindexed"}`, and search answers as before. On SQLite,
/// a store that is not there is refused, not created.
fn reindex_reads_every_task(engine: Engine) {
    let dir = tempfile::tempdir().unwrap();
    let db = fresh_db(engine, dir.path());
    let name = engine.name();
    // A store not made yet is refused, and not made: no file, no schema;
    // so is every listing and every command that names a workspace.
    for command in [
        &["reindex"][..],
        &["workspace", "list"],
        &["agent", "list", "--workspace", "ws_x"],
        &["agent", "create", "--workspace", "ws_x", "--handle", "a"],
        &["channel", "list", "--workspace", "ws_x"],
        &["channel", "create", "--workspace", "ws_x", "--name", "eng"],
        &["token", "count", "--workspace", "ws_x", "--agent", "ag_x"],
        &["token", "issue", "--workspace", "ws_x", "--agent", "ag_x"],
        &["token", "revoke", "--workspace", "ws_x", "--agent", "ag_x"],
        &["callback", "open", "--workspace", "ws_x", "--agent", "ag_x"],
    ] {
        let doc = refused(&admin_output(&db, command), 2, "\u{0}");
        assert!(message(&doc).contains("No store at"), "{command:?}: {doc}");
        // A new store would hold no workspace: a command that names one
        // is told to check --db, the others how to make the store.
        let fix = if ["agent", "channel", "token", "callback"].contains(&command[0]) {
            "check --db"
        } else {
            "migrate` creates it"
        };
        assert!(message(&doc).contains(fix), "{command:?}: {doc}");
    }
    if engine == Engine::Sqlite {
        assert!(!std::path::Path::new(&db).exists());
    } else {
        let status = succeeded(&admin_output(&db, &["migrate", "--status"]));
        assert_eq!(status["version"], 0, "{status}");
    }
    let rt = Runtime::serve(engine, &db, &[]);
    let ws = rt.workspace("w");
    rt.channel(&ws, "eng");
    let agent = rt.agent(&ws, "a");
    let create = agentteam::registry::find("task", "create").unwrap();
    let tasks = json!({"channel": "eng", "tasks": [{"title": "Release notes"}, {"title": "b"}, {"title": "c"}]});
    assert_eq!(rt.call(&agent, create, &tasks).status, 201);

    let out = admin_output(&db, &["reindex"]);
    assert_eq!(succeeded(&out), json!({"engine": name, "reindexed": 3}));
    let list = agentteam::registry::find("task", "list").unwrap();
    let found = rt.call(
        &agent,
        list,
        &json!({"channel": "eng", "query": "releases"}),
    );
    assert_eq!(found.status, 200);
    let body: Value = serde_json::from_slice(&found.body).unwrap();
    assert_eq!(body["items"][0]["number"], 1, "{body}");
}

#[test]
fn reindex_reads_every_task_on_sqlite() {
    reindex_reads_every_task(Engine::Sqlite);
}

#[test]
fn reindex_reads_every_task_on_postgres() {
    reindex_reads_every_task(Engine::Postgres);
}

#[test]
fn migrate_reports_and_applies_on_sqlite() {
    migrate_reports_and_applies(Engine::Sqlite);
}

#[test]
fn migrate_reports_and_applies_on_postgres() {
    migrate_reports_and_applies(Engine::Postgres);
}

#[test]
fn the_log_and_the_quickstart_never_carry_the_password() {
    let cluster = Cluster::shared();
    let db = cluster.new_database();
    let uri = cluster.tcp_uri(&db);
    let rt = Runtime::serve(Engine::Postgres, &uri, &[]);
    let log = rt.log_containing("agentteam-runtime serving");
    assert!(!log.contains(PASSWORD), "{log}");
    let stdout_db = format!("postgres://{SUPERUSER}@127.0.0.1:{}/{db}", cluster.port());
    // The quickstart's credential process never carries the password.
    let config = rt.dir.path().join("config");
    let out = Command::new(BIN)
        .args(["--db", &uri, "quickstart", "--api-url", &rt.base_url()])
        .env("AGENTTEAM_CONFIG_DIR", &config)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let answer = succeeded(&out);
    assert_eq!(answer["db"], stdout_db);
    assert!(answer["note"].as_str().unwrap().contains("pgpass"));
    let stored = std::fs::read_to_string(config.join("credentials.json")).unwrap();
    assert!(
        !stored.contains(PASSWORD)
            && !out
                .stdout
                .windows(PASSWORD.len())
                .any(|w| w == PASSWORD.as_bytes())
    );
    // With the password in PGPASSWORD, that credential process issues a token.
    let argv: Vec<String> = serde_json::from_value(answer["credential_process"].clone()).unwrap();
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .env("PGPASSWORD", PASSWORD)
        .output()
        .unwrap();
    let token = succeeded(&out);
    assert!(token["token"].as_str().unwrap().starts_with("at_"));
}

/// `serve` on an address already taken says which flag picks another.
#[test]
fn serve_on_a_busy_port_names_the_listen_flag() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let db = dir.path().join("rt.db");
    let out = runtime_in(
        dir.path(),
        &["--db", db.to_str().unwrap(), "serve", "--listen", &address],
    );
    let doc = refused(&out, 2, "no secret here");
    assert_eq!(doc["error"]["code"], "usage_error", "{doc}");
    assert!(message(&doc).contains("--listen"), "{doc}");
    assert!(message(&doc).contains(&address), "{doc}");
}

/// The runtime exits with the statuses its `--help`, man page and README
/// list: 0, 2 for a refusal, 3 for a credential store `quickstart` may not
/// write (the profile unwritten), and each is one it documents.
#[test]
fn the_runtimes_exit_statuses_are_the_documented_ones() {
    let documented: Vec<i32> = agentteam::runtime::cli::EXIT_STATUSES
        .iter()
        .map(|(class, _)| class.code())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db = db.to_str().unwrap();
    let created = runtime_in(
        dir.path(),
        &["--db", db, "workspace", "create", "--name", "w"],
    );
    succeeded(&created);
    let unknown = runtime_in(
        dir.path(),
        &[
            "--db",
            db,
            "agent",
            "create",
            "--workspace",
            "ws_none",
            "--handle",
            "a",
        ],
    );
    refused(&unknown, 2, "no secret here");
    let config = dir.path().join("config");
    std::fs::create_dir(&config).unwrap();
    let store = config.join("credentials.json");
    std::fs::write(&store, "{}").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o644)).unwrap();
    // On a store not made yet: refused before it is made, so nothing of
    // the demo is left half-made.
    let fresh = dir.path().join("fresh.db");
    let quickstart_on_fresh = || {
        Command::new(BIN)
            .args(["--db", fresh.to_str().unwrap(), "quickstart"])
            .env("AGENTTEAM_CONFIG_DIR", &config)
            .env("RUST_LOG", "warn")
            .output()
            .unwrap()
    };
    let quickstart = quickstart_on_fresh();
    let doc = refused(&quickstart, 3, "no secret here");
    assert_eq!(doc["error"]["code"], "credential_store_insecure", "{doc}");
    assert_eq!(
        std::fs::read_to_string(&store).unwrap(),
        "{}",
        "the profile was not written"
    );
    assert!(!fresh.exists(), "the runtime store was made");
    // A store that reads but cannot be written (its lock cannot be made)
    // is refused as early.
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o600)).unwrap();
    let lock = config.join("credentials.json.lock");
    let _ = std::fs::remove_file(&lock);
    std::fs::create_dir(&lock).unwrap();
    let doc = refused(&quickstart_on_fresh(), 3, "no secret here");
    assert_eq!(doc["error"]["code"], "credential_store_invalid", "{doc}");
    assert!(!fresh.exists(), "the runtime store was made");
    // A quickstart refused by the runtime store (here one that is not a
    // database) leaves no credential store behind either: not its
    // directory, not its lock.
    let not_a_db = dir.path().join("not-a.db");
    std::fs::write(&not_a_db, "not a database, just some text").unwrap();
    let unmade = dir.path().join("unmade").join("config");
    let out = Command::new(BIN)
        .args(["--db", not_a_db.to_str().unwrap(), "quickstart"])
        .env("AGENTTEAM_CONFIG_DIR", &unmade)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert!(
        !dir.path().join("unmade").exists(),
        "the refused quickstart made the config directory"
    );
    // An --api-url the CLI could not use is refused before anything is
    // made, without repeating it (its password).
    let quickstart_to = |api_url: &str, config: &std::path::Path, db: &std::path::Path| {
        Command::new(BIN)
            .args([
                "--db",
                db.to_str().unwrap(),
                "quickstart",
                "--api-url",
                api_url,
            ])
            .env("AGENTTEAM_CONFIG_DIR", config)
            .env("RUST_LOG", "warn")
            .output()
            .unwrap()
    };
    let bad_url = quickstart_to("http://bob:Hunter2pw@10.0.0.1:8787", &unmade, &fresh);
    let doc = refused(&bad_url, 2, "Hunter2pw");
    assert_eq!(doc["error"]["code"], "invalid_input", "{doc}");
    assert!(
        message(&doc).contains("must not carry credentials"),
        "{doc}"
    );
    assert!(!fresh.exists(), "the runtime store was made");
    assert!(!dir.path().join("unmade").exists(), "a config dir was made");
    // Plain http to another host is written, with auth login's warning.
    let remote = quickstart_to("http://10.0.0.1:8787/", &unmade, &fresh);
    assert_eq!(remote.status.code(), Some(0), "{remote:?}");
    let said = String::from_utf8_lossy(&remote.stderr);
    assert!(
        said.contains("warning: http://10.0.0.1:8787 is plain http to another host"),
        "{said}"
    );
    let local = quickstart_to("http://127.0.0.1:8787", &unmade, &fresh);
    assert!(
        !String::from_utf8_lossy(&local.stderr).contains("warning"),
        "{local:?}"
    );
    for out in [&created, &unknown, &quickstart, &bad_url] {
        let code = out.status.code().unwrap();
        assert!(documented.contains(&code), "exit {code} is not documented");
    }
}

/// `workspace list`, `agent list` and `channel list` print what was
/// created, as the other commands take it (ids, member refs), and never a
/// token.
#[test]
fn admin_lists_print_what_was_created() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db = db.to_str().unwrap();
    let on_db = on_db(dir.path(), db);
    let run = |args: &[&str]| succeeded(&on_db(args));
    // A listing makes no store: a mistyped --db is refused.
    let doc = refused(&on_db(&["workspace", "list"]), 2, "no secret here");
    assert!(message(&doc).contains("No store at"), "{doc}");
    // The operator's own path, as given (a dated name is no token), so the
    // suggested command can be pasted.
    let dated = dir.path().join("backup-2024-12-01-prod.db");
    let dated = dated.to_str().unwrap();
    let doc = refused(
        &runtime_in(dir.path(), &["--db", dated, "workspace", "list"]),
        2,
        "no secret here",
    );
    assert!(
        message(&doc).contains(&format!("--db={dated} migrate")),
        "{doc}"
    );
    // `--db=`, so a value starting with `-` would still be one.
    assert!(message(&doc).contains("agentteam-runtime --db="), "{doc}");
    assert!(!std::path::Path::new(db).exists());
    let ws = run(&["workspace", "create", "--name", "acme"])["workspace_id"]
        .as_str()
        .unwrap()
        .to_string();
    let agent = run(&["agent", "create", "--workspace", &ws, "--handle", "alice"]);
    run(&["channel", "create", "--workspace", &ws, "--name", "eng"]);
    run(&[
        "channel",
        "create",
        "--workspace",
        &ws,
        "--name",
        "ops",
        "--members",
        "@alice",
    ]);

    let workspaces = run(&["workspace", "list"]);
    assert_eq!(
        workspaces["workspaces"][0]["workspace_id"],
        ws.as_str(),
        "{workspaces}"
    );
    assert_eq!(workspaces["workspaces"][0]["name"], "acme", "{workspaces}");
    let agents = run(&["agent", "list", "--workspace", &ws]);
    assert_eq!(
        agents["agents"][0]["agent_id"], agent["agent_id"],
        "{agents}"
    );
    assert_eq!(agents["agents"][0]["member_ref"], "@alice", "{agents}");
    let token = agent["token"].as_str().unwrap();
    assert!(!agents.to_string().contains(token), "{agents}");
    let channels = run(&["channel", "list", "--workspace", &ws]);
    assert_eq!(channels["channels"][0]["name"], "eng", "{channels}");
    assert_eq!(channels["channels"][0]["private"], false, "{channels}");
    assert!(
        channels["channels"][0].get("members").is_none(),
        "{channels}"
    );
    assert_eq!(
        channels["channels"][1]["members"],
        json!(["@alice"]),
        "{channels}"
    );
    for listed in [
        &workspaces["workspaces"][0],
        &agents["agents"][0],
        &channels["channels"][1],
    ] {
        let at = listed["created_at"].as_str().unwrap();
        assert!(at.ends_with('Z') && at.len() >= 20, "{listed}");
    }
}

/// A member named without its `@` (`alice` for `@alice`) is told how to
/// write it; a ref that names no one, written as one, is not; and the board
/// is not created either way.
#[test]
fn a_member_without_its_at_is_told_to_add_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db = db.to_str().unwrap();
    let run = on_db(dir.path(), db);
    let ws = succeeded(&run(&["workspace", "create", "--name", "w"]))["workspace_id"]
        .as_str()
        .unwrap()
        .to_string();
    let agent = |handle: &str| {
        succeeded(&run(&[
            "agent",
            "create",
            "--workspace",
            &ws,
            "--handle",
            handle,
        ]))
    };
    agent("alice");
    // The words a caller writes for itself (`@me`) name no member.
    for word in ["me", "self", "myself"] {
        let out = run(&["agent", "create", "--workspace", &ws, "--handle", word]);
        let problem = field_problem(&out, "handle");
        assert!(problem.contains("choose another handle"), "{problem}");
    }
    let create = |members: &str| {
        let out = run(&[
            "channel",
            "create",
            "--workspace",
            &ws,
            "--name",
            "p",
            "--members",
            members,
        ]);
        field_problem(&out, "members")
    };
    let bare = create("alice");
    assert!(bare.contains("member ref is `@alice`"), "{bare}");
    // A handle is no secret, though dated like a token's shape.
    agent("builder-2024-agent-x");
    let dated = create("builder-2024-agent-x");
    assert!(
        dated.contains("No agent `builder-2024-agent-x`")
            && dated.contains("member ref is `@builder-2024-agent-x`"),
        "{dated}"
    );
    // Every member that needs its `@` is said at once, with the whole
    // corrected value, so one retry makes the board.
    let both = create("alice,builder-2024-agent-x");
    assert!(
        both.contains("`@alice`")
            && both.contains("`@builder-2024-agent-x`")
            && both.contains("Together: `--members @alice,@builder-2024-agent-x`."),
        "{both}"
    );
    // A bare word that is no handle either is not told to add an `@`.
    let unknown = create("carol");
    assert!(!unknown.contains("`@carol`"), "{unknown}");
    assert!(unknown.contains("agent list --workspace"), "{unknown}");
    for named in ["@bob", "ag_0000", "ag_000000000000000000000000", ""] {
        let problem = create(named);
        assert!(
            !problem.contains("member ref is") && !problem.contains("<redacted>"),
            "{named}: {problem}"
        );
    }
    // An --agent the same way.
    let agent_problem = |agent: &str| {
        let out = run(&["token", "issue", "--workspace", &ws, "--agent", agent]);
        field_problem(&out, "agent")
    };
    let problem = agent_problem("alice");
    assert!(problem.contains("member ref is `@alice`"), "{problem}");
    let problem = agent_problem("ag_000000000000000000000000");
    assert_eq!(problem, "No such agent in the workspace.");
    succeeded(&run(&[
        "channel",
        "create",
        "--workspace",
        &ws,
        "--name",
        "p",
        "--members",
        "@alice",
    ]));
}

/// `serve`'s PostgreSQL-only flags, typed against a SQLite store, are a
/// usage error naming them, not ignored; nothing is created.
#[test]
fn postgres_only_serve_flags_are_refused_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rt.db");
    let db = db.to_str().unwrap();
    for (flags, named) in [
        (&["--pool-size", "4"][..], "--pool-size applies"),
        (&["--pool-wait-ms", "10"][..], "--pool-wait-ms applies"),
        (
            &["--pool-size", "4", "--pool-wait-ms", "10"][..],
            "--pool-size and --pool-wait-ms apply",
        ),
    ] {
        // Under `timeout`: a serve that took the flags would run on; then
        // the test fails (exit 124) rather than hang.
        let mut args = vec!["20", BIN, "--db", db, "serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(flags);
        let out = Command::new("timeout")
            .args(&args)
            .env("RUST_LOG", "warn")
            .output()
            .expect("run timeout(1)");
        let doc = refused(&out, 2, "no secret here");
        assert_eq!(doc["error"]["code"], "usage_error", "{doc}");
        assert!(message(&doc).contains(named), "{doc}");
        assert!(message(&doc).contains("PostgreSQL"), "{doc}");
        assert!(
            !std::path::Path::new(db).exists(),
            "{flags:?} created the store"
        );
    }
}

/// The store holds private boards: under the most permissive umask (0), the
/// runtime creates its data directories 0700 and `rt.db`, `rt.db-wal` and
/// `rt.db-shm` 0600. A directory that already exists is left as it is.
#[test]
fn the_store_files_and_directories_it_creates_are_private() {
    use std::io::BufRead;
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let home = tempfile::tempdir().unwrap();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let db = home.path().join("data/sub/rt.db");
    let mut serve = Command::new(BIN);
    serve
        .arg("--db")
        .arg(&db)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    // SAFETY: umask(2) is async-signal-safe and touches no memory.
    unsafe {
        serve.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    let mut child = serve.spawn().expect("start agentteam-runtime");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("listen"), "{line}");
    let mode = |p: &std::path::Path| {
        std::fs::metadata(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .permissions()
            .mode()
            & 0o777
    };
    let modes: Vec<(String, u32)> = [
        home.path().join("data"),
        home.path().join("data/sub"),
        db.clone(),
        home.path().join("data/sub/rt.db-wal"),
        home.path().join("data/sub/rt.db-shm"),
    ]
    .iter()
    .map(|p| (p.display().to_string(), mode(p)))
    .collect();
    let _ = child.kill();
    let _ = child.wait();
    let expected: Vec<u32> = vec![0o700, 0o700, 0o600, 0o600, 0o600];
    assert_eq!(
        modes.iter().map(|(_, m)| *m).collect::<Vec<_>>(),
        expected,
        "{modes:?}"
    );
    assert_eq!(
        mode(home.path()),
        0o755,
        "an existing directory is left alone"
    );
}

/// A store path that is a symbolic link to nothing (another user's trap in
/// a shared directory) is refused: SQLite would create the link's target
/// with the umask's mode. Nothing is created; a link to a store that
/// exists still opens it.
#[test]
fn a_store_link_to_nothing_is_refused_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("loot.db");
    let link = dir.path().join("rt.db");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let path = link.to_str().unwrap();
    for args in [&["migrate"][..], &["workspace", "create", "--name", "w"]] {
        let doc = refused(&admin_output(path, args), 2, "\u{0}");
        assert!(message(&doc).contains("symbolic link"), "{args:?}: {doc}");
        let entries: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(entries, vec![std::ffi::OsString::from("rt.db")], "{args:?}");
    }
    // Once the target is a store, the link opens it.
    assert!(
        admin_output(target.to_str().unwrap(), &["migrate"])
            .status
            .success()
    );
    let out = admin_output(path, &["workspace", "create", "--name", "w"]);
    assert!(out.status.success(), "{out:?}");
}

/// `serve` on PostgreSQL opens its whole pool before it announces its
/// address, so a replica's first requests do not each wait for PostgreSQL
/// to start a backend (docs/performance.md: 70–90 ms on two busy cores).
#[test]
fn serve_opens_its_pool_before_it_announces_its_address() {
    let cluster = Cluster::shared();
    let db = cluster.create_database();
    let name = dbname(&db);
    let _rt = Runtime::serve(Engine::Postgres, &db, &["--pool-size", "5"]);
    let backends = cluster.psql(
        &name,
        &format!(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = '{name}' \
             AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
        ),
    );
    assert_eq!(
        backends.trim(),
        "5",
        "the runtime's connections when it announced"
    );
}

/// A `--db` file that is not an SQLite database, or a path that cannot be
/// opened as one, is named with what to do, exit 2 and not retryable, and
/// the file is left exactly as it was.
#[test]
fn a_path_that_is_not_a_store_is_named_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.db");
    std::fs::write(&file, b"these are my notes, not a database").unwrap();
    let shown = file.to_str().unwrap();
    for args in [
        vec!["--db", shown, "workspace", "create", "--name", "w"],
        vec!["--db", shown, "serve", "--listen", "127.0.0.1:0"],
    ] {
        let doc = refused(&runtime_in(dir.path(), &args), 2, "\u{0}");
        assert_eq!(doc["error"]["code"], "usage_error", "{doc}");
        assert_eq!(doc["error"]["retryable"], false, "{doc}");
        let said = message(&doc);
        assert!(
            said.contains(shown) && said.contains("is not an SQLite database"),
            "{said}"
        );
    }
    assert_eq!(
        std::fs::read(&file).unwrap(),
        b"these are my notes, not a database"
    );
    assert!(!dir.path().join("notes.db-wal").exists());

    let a_dir = dir.path().join("boards");
    std::fs::create_dir(&a_dir).unwrap();
    let doc = refused(
        &runtime_in(dir.path(), &["--db", a_dir.to_str().unwrap(), "migrate"]),
        2,
        "\u{0}",
    );
    assert_eq!(doc["error"]["code"], "usage_error", "{doc}");
    assert!(message(&doc).starts_with("Cannot open the store"), "{doc}");
}

/// A migration the database refuses by its rules names PostgreSQL's own
/// reason in the answer and the log, so the operator need not search the
/// server's log: here a role that may not create tables (PostgreSQL 15's
/// default for a role that does not own its database's schema). The
/// password is in neither.
#[test]
fn a_refused_migration_names_the_reason_in_the_answer_and_the_log() {
    let cluster = Cluster::shared();
    let db = cluster.new_database();
    cluster.psql(
        &db,
        &format!(
            "CREATE ROLE weak_{db} LOGIN PASSWORD 'weak-pw'; GRANT CONNECT ON DATABASE {db} TO weak_{db};"
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    let uri = format!(
        "postgres://weak_{db}:weak-pw@127.0.0.1:{}/{db}",
        cluster.port()
    );
    let out = runtime_in(dir.path(), &["--db", &uri, "migrate"]);
    let doc = refused(&out, 2, "weak-pw");
    assert_eq!(doc["error"]["code"], "usage_error", "{doc}");
    assert!(
        message(&doc).contains("permission denied for schema public (42501)"),
        "{doc}"
    );
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        log.contains("permission denied for schema public (42501)"),
        "{log}"
    );
}

/// Replicas can run as a role that may only read and write the runtime's
/// rows (docs/deploy.md, "A role for the replicas"): while the schema is
/// behind, that role is refused by name and nothing is made; once the
/// schema's owner has migrated, it runs `migrate` (nothing to do), the
/// admin commands and `serve`, and an agent's whole loop works through it.
#[test]
fn replicas_serve_as_a_role_that_cannot_change_the_schema() {
    let cluster = Cluster::shared();
    let db = cluster.new_database();
    let (owner, app) = (format!("owner_{db}"), format!("app_{db}"));
    cluster.psql(
        "postgres",
        &format!("CREATE ROLE {owner} LOGIN; CREATE ROLE {app} LOGIN; ALTER DATABASE {db} OWNER TO {owner}"),
    );
    let as_role = |role: &str| {
        cluster
            .socket_uri(&db)
            .replacen(&format!("{SUPERUSER}@"), &format!("{role}@"), 1)
    };
    let dir = tempfile::tempdir().unwrap();

    let doc = refused(
        &runtime_in(dir.path(), &["--db", &as_role(&app), "serve"]),
        2,
        "no secret here",
    );
    assert!(
        message(&doc).contains("permission denied for schema public (42501)"),
        "{doc}"
    );
    assert!(
        doc["error"]["field_errors"]["db"]
            .as_str()
            .unwrap()
            .contains("agentteam-runtime migrate"),
        "{doc}"
    );
    let tables = cluster.psql(
        &db,
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'",
    );
    assert_eq!(tables.trim(), "0", "nothing is made");

    cluster.psql(
        &db,
        &format!(
            "ALTER DEFAULT PRIVILEGES FOR ROLE {owner} IN SCHEMA public \
               GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {app}; \
             ALTER DEFAULT PRIVILEGES FOR ROLE {owner} IN SCHEMA public \
               GRANT USAGE, SELECT ON SEQUENCES TO {app}"
        ),
    );
    succeeded(&runtime_in(
        dir.path(),
        &["--db", &as_role(&owner), "migrate"],
    ));
    let status = succeeded(&runtime_in(
        dir.path(),
        &["--db", &as_role(&app), "migrate"],
    ));
    assert_eq!(status["applied"], json!([]), "{status}");

    let runtime = Runtime::serve(Engine::Postgres, &as_role(&app), &[]);
    let workspace = runtime.workspace("least");
    runtime.channel(&workspace, "eng");
    let agent = runtime.agent(&workspace, "ada");
    let cli = crate::support::cli::Cli::new();
    cli.login_to(
        &runtime.base_url(),
        &workspace,
        &agent.agent_id,
        &agent.token,
    );
    let steps = [
        (
            "create",
            r#"{"channel": "eng", "tasks": [{"title": "Least privilege"}]}"#,
        ),
        ("list", r#"{"channel": "eng", "query": "privilege"}"#),
        (
            "set_claim",
            r#"{"channel": "eng", "numbers": [1], "claimed": true}"#,
        ),
        (
            "checkpoint",
            r#"{"channel": "eng", "number": 1, "summary": "Served by a role that cannot change the schema"}"#,
        ),
        (
            "update",
            r#"{"channel": "eng", "number": 1, "status": "done"}"#,
        ),
        ("get", r#"{"channel": "eng", "number": 1}"#),
        ("delete", r#"{"channel": "eng", "number": 1}"#),
    ];
    for (action, input) in steps {
        let run = cli.exec("task", action, input, &[]);
        assert_eq!(run.code, 0, "{action}: {}\n{}", run.stdout, run.stderr);
    }
    // The role holds no privilege beyond the rows.
    let may_create = cluster.psql(
        &db,
        &format!("SELECT has_schema_privilege('{app}', 'public', 'CREATE')"),
    );
    assert_eq!(may_create.trim(), "f");

    // Mid-upgrade (the schema a version behind this binary, which the
    // role may not migrate): an agent's credential process is told to
    // retry (exit 5, `retryable`), not that its credentials failed.
    cluster.psql(
        &db,
        "DELETE FROM agentteam_schema WHERE version = (SELECT max(version) FROM agentteam_schema)",
    );
    let issue = [
        "--db",
        &as_role(&app),
        "token",
        "issue",
        "--workspace",
        &workspace,
        "--agent",
        &agent.agent_id,
    ];
    let doc = refused(&runtime_in(dir.path(), &issue), 5, "no secret here");
    assert_eq!(doc["error"]["retryable"], true, "{doc}");
    assert!(
        message(&doc).contains("During a rolling upgrade this passes"),
        "{doc}"
    );
    // Another admin command is refused as before: the operator's to fix.
    let count = [
        "--db",
        &as_role(&app),
        "token",
        "count",
        "--workspace",
        &workspace,
        "--agent",
        &agent.agent_id,
    ];
    refused(&runtime_in(dir.path(), &count), 2, "no secret here");
}

/// A database the runtime cannot keep its schema in for a setting of its
/// own, not a passing fault, is a usage error naming PostgreSQL's reason
/// (it was exit 5, "The store failed. Retry later."), and nothing is made:
/// a search_path with no schema to create in, a database not in UTF8.
#[test]
fn a_database_setting_the_schema_cannot_live_with_is_named() {
    let cluster = Cluster::shared();
    let dir = tempfile::tempdir().unwrap();
    let db = cluster.new_database();
    let uri = format!(
        "{}&options=-csearch_path%3Dnowhere",
        cluster.socket_uri(&db)
    );
    for command in [&["migrate"][..], &["workspace", "create", "--name", "w"]] {
        let mut args = vec!["--db", uri.as_str()];
        args.extend_from_slice(command);
        let doc = refused(&runtime_in(dir.path(), &args), 2, "no secret here");
        assert!(message(&doc).contains("(3F000)"), "{doc}");
        assert!(
            doc["error"]["field_errors"]["db"]
                .as_str()
                .unwrap()
                .contains("search_path"),
            "{doc}"
        );
    }
    let latin = cluster.new_database();
    let latin = format!("{latin}_latin1");
    cluster.psql(
        "postgres",
        &format!("CREATE DATABASE {latin} ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"),
    );
    let uri = cluster.socket_uri(&latin);
    for command in [&["migrate"][..], &["serve"], &["migrate", "--status"]] {
        let mut args = vec!["--db", uri.as_str()];
        args.extend_from_slice(command);
        let doc = refused(&runtime_in(dir.path(), &args), 2, "no secret here");
        assert!(message(&doc).contains("is encoded LATIN1"), "{doc}");
    }
    let tables = cluster.psql(
        &latin,
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'",
    );
    assert_eq!(tables.trim(), "0", "nothing is made in it");
}

/// What a URI leaves out comes from libpq's variables, as psql takes it
/// (PGHOST, PGPORT, PGDATABASE, PGUSER, and PGSSLMODE); what the URI says
/// wins; libpq's `sslmode=allow` is a plain connection too.
#[test]
fn what_the_uri_leaves_out_comes_from_libpqs_variables() {
    let cluster = Cluster::shared();
    let dir = tempfile::tempdir().unwrap();
    let db = cluster.new_database();
    let socket = cluster.socket_dir().to_str().unwrap().to_string();
    let port = cluster.port().to_string();
    let env = [
        ("PGHOST", socket.as_str()),
        ("PGPORT", port.as_str()),
        ("PGDATABASE", db.as_str()),
        ("PGUSER", SUPERUSER),
    ];
    let status = succeeded(&runtime_in_env(
        dir.path(),
        &["--db", "postgres://", "migrate"],
        &env,
    ));
    // Every migration, from the first to the version it reached.
    assert_eq!(
        status["applied"].as_array().map(Vec::len),
        status["version"].as_u64().map(|v| v as usize),
        "{status}"
    );
    // PGPORT also where the URI names a host but no port, as libpq takes
    // it (tokio-postgres would give such a host 5432); a bad one is named.
    let host_only = format!("postgres://{SUPERUSER}:{PASSWORD}@127.0.0.1/{db}");
    succeeded(&runtime_in_env(
        dir.path(),
        &["--db", &host_only, "migrate", "--status"],
        &env,
    ));
    let mut bad_port = env.to_vec();
    bad_port.retain(|(name, _)| *name != "PGPORT");
    bad_port.push(("PGPORT", "abc"));
    let doc = refused(
        &runtime_in_env(
            dir.path(),
            &["--db", &host_only, "migrate", "--status"],
            &bad_port,
        ),
        2,
        PASSWORD,
    );
    assert!(
        message(&doc).contains("PGPORT is not a port number"),
        "{doc}"
    );
    // A user left empty is no user: PGUSER's.
    let tcp = format!("postgres://:{PASSWORD}@127.0.0.1:{port}/{db}");
    succeeded(&runtime_in_env(
        dir.path(),
        &["--db", &tcp, "migrate", "--status"],
        &env,
    ));
    // A mode that checks the server's certificate, from the environment,
    // with no root certificate to check it against: refused by name, not
    // dropped for a plain connection.
    let mut tls = env.to_vec();
    tls.push(("PGSSLMODE", "verify-full"));
    let doc = refused(
        &runtime_in_env(dir.path(), &["--db", "postgres://", "migrate"], &tls),
        2,
        "no secret here",
    );
    assert!(
        message(&doc).contains("PGSSLMODE asks for sslmode=verify-full")
            && message(&doc).contains("root certificate"),
        "{doc}"
    );
    // The URI's own sslmode wins over the environment's; `allow` is plain.
    for mode in ["disable", "allow", "prefer"] {
        let uri = format!("postgres://?sslmode={mode}");
        succeeded(&runtime_in_env(
            dir.path(),
            &["--db", &uri, "migrate", "--status"],
            &tls,
        ));
    }
    // PostgreSQL speaks no TLS on a Unix socket, and libpq asks for none
    // there: `require` over the socket connects.
    succeeded(&runtime_in_env(
        dir.path(),
        &["--db", "postgres://?sslmode=require", "migrate", "--status"],
        &env,
    ));
}

/// A store this user may only read is refused by every command that writes,
/// as a usage error naming it (SQLite opens such a file read-only without a
/// word, and every write failed later as a retryable store error); `migrate
/// --status` still reads it. A device or pipe is no store either. As root
/// (CI) the file's mode binds no one, so the commands run as `postgres`.
#[test]
fn a_store_this_user_may_only_read_is_refused_by_commands_that_write() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db = db.to_str().unwrap();
    succeeded(&runtime_in(dir.path(), &["--db", db, "migrate"]));
    std::fs::set_permissions(db, std::fs::Permissions::from_mode(0o400)).unwrap();
    // SAFETY: geteuid(2) has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        for path in [dir.path(), std::path::Path::new(db)] {
            let status = Command::new("chown")
                .args(["postgres:postgres", path.to_str().unwrap()])
                .status()
                .unwrap();
            assert!(status.success());
        }
    }
    let run = |args: &[&str]| -> Output {
        let mut command = if root {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--", BIN]);
            command
        } else {
            Command::new(BIN)
        };
        command
            .args(args)
            .current_dir(dir.path())
            .env_remove("AGENTTEAM_RUNTIME_DB")
            .env("RUST_LOG", "warn")
            .output()
            .unwrap()
    };
    let out = run(&["--db", db, "workspace", "create", "--name", "w"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let error: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["error"]["code"], "usage_error", "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("this user may"),
        "{error}"
    );
    let status = run(&["--db", db, "migrate", "--status"]);
    assert_eq!(status.status.code(), Some(0), "{status:?}");
    for device in ["/dev/null", dir.path().to_str().unwrap()] {
        let out = run(&["--db", device, "workspace", "create", "--name", "w"]);
        assert_eq!(out.status.code(), Some(2), "{device}: {out:?}");
        let error: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(error["error"]["code"], "usage_error", "{error}");
    }
}

/// An SQLite file of another application's, with a table of the runtime's
/// names, is a usage error naming the clash, as on PostgreSQL (it was a
/// retryable store error, and the log carried the schema's whole SQL).
#[test]
fn an_sqlite_file_with_other_tables_of_the_runtimes_names_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("app.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE tasks (x)")
        .unwrap();
    let out = runtime_in(
        dir.path(),
        &[
            "--db",
            db.to_str().unwrap(),
            "workspace",
            "create",
            "--name",
            "w",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let error: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["error"]["code"], "usage_error", "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("table tasks already exists"), "{message}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("CREATE TABLE"), "{stderr}");
    // `migrate --status` changes nothing, not even the journal mode.
    let before = std::fs::read(&db).unwrap();
    let out = runtime_in(
        dir.path(),
        &["--db", db.to_str().unwrap(), "migrate", "--status"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "migrate --status wrote"
    );
}

/// `channel create --members ""` is refused: a private board no agent may
/// use could never be used, and its name never given again.
#[test]
fn a_private_board_without_members_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db = db.to_str().unwrap();
    let ws = succeeded(&runtime_in(
        dir.path(),
        &["--db", db, "workspace", "create", "--name", "w"],
    ))["workspace_id"]
        .as_str()
        .unwrap()
        .to_string();
    for members in ["", " , "] {
        let out = runtime_in(
            dir.path(),
            &[
                "--db",
                db,
                "channel",
                "create",
                "--workspace",
                &ws,
                "--name",
                "p",
                "--members",
                members,
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let error: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            error["error"]["field_errors"]["members"], "Empty.",
            "{error}"
        );
    }
    // The name is still free.
    succeeded(&runtime_in(
        dir.path(),
        &[
            "--db",
            db,
            "channel",
            "create",
            "--workspace",
            &ws,
            "--name",
            "p",
        ],
    ));
}

/// A store others may change is refused before it is opened: one group or
/// others can write (anyone who can write it can add a token), or one
/// another user owns (put where the store was to be made, it is theirs to
/// rewrite); one they can only read is used, as its owner may intend.
/// SQLite reads the files it keeps beside a store (`-wal`, `-shm`,
/// `-journal`) as the store's own: one another user put there, in a
/// directory others may write, could replace the whole store with theirs
/// (a write-ahead log is replayed into it) or take its writes where they
/// can read them. Each is refused as the store would be, before anything
/// is opened, made or changed.
#[test]
fn files_others_put_beside_the_store_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let run = on_db(dir.path(), db.to_str().unwrap());
    succeeded(&run(&["workspace", "create", "--name", "w"]));
    let before = std::fs::read(&db).unwrap();
    let beside = |suffix: &str| dir.path().join(format!("s.db{suffix}"));
    let message = |out: &Output| {
        refused(out, 2, "no secret here")["error"]["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for suffix in ["-wal", "-shm", "-journal"] {
        let planted = beside(suffix);
        std::fs::write(&planted, b"").unwrap();
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o666)).unwrap();
        let out = run(&["workspace", "list"]);
        assert_eq!(field_problem(&out, "db"), "Others may change this file.");
        let said = message(&out);
        assert!(said.contains(&format!("s.db{suffix}")), "{said}");
        assert!(said.contains("writable by group or others"), "{said}");
        std::fs::remove_file(&planted).unwrap();
    }
    // A link, followed, would put the store's log where its maker chose.
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), beside("-wal")).unwrap();
    let out = run(&["workspace", "list"]);
    assert_eq!(
        field_problem(&out, "db"),
        "Not a regular file beside the store."
    );
    std::fs::remove_file(beside("-wal")).unwrap();
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        std::fs::write(beside("-wal"), b"").unwrap();
        std::os::unix::fs::chown(beside("-wal"), Some(65534), None).unwrap();
        let said = message(&run(&["workspace", "list"]));
        assert!(said.contains("belongs to uid 65534"), "{said}");
        std::fs::remove_file(beside("-wal")).unwrap();
    }
    // Through a link to the store, SQLite keeps them beside its target.
    let link = dir.path().join("link.db");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    std::fs::write(beside("-wal"), b"").unwrap();
    std::fs::set_permissions(beside("-wal"), std::fs::Permissions::from_mode(0o666)).unwrap();
    let said = message(&on_db(dir.path(), link.to_str().unwrap())(&[
        "workspace",
        "list",
    ]));
    assert!(said.contains("s.db-wal"), "{said}");
    std::fs::remove_file(beside("-wal")).unwrap();
    assert_eq!(std::fs::read(&db).unwrap(), before, "the store was changed");
    succeeded(&run(&["workspace", "list"]));
    // Planted before the store is made: nothing is made.
    let new = dir.path().join("new.db");
    std::fs::write(dir.path().join("new.db-wal"), b"").unwrap();
    std::fs::set_permissions(
        dir.path().join("new.db-wal"),
        std::fs::Permissions::from_mode(0o666),
    )
    .unwrap();
    let out = on_db(dir.path(), new.to_str().unwrap())(&["workspace", "create", "--name", "w"]);
    assert_eq!(field_problem(&out, "db"), "Others may change this file.");
    assert!(!new.exists(), "the refused store was made");
}

#[test]
fn a_store_others_may_change_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let run = on_db(dir.path(), db.to_str().unwrap());
    succeeded(&run(&["workspace", "create", "--name", "w"]));
    let mode = |m: u32| std::fs::set_permissions(&db, std::fs::Permissions::from_mode(m)).unwrap();
    mode(0o666);
    let before = std::fs::read(&db).unwrap();
    let problem = field_problem(&run(&["workspace", "list"]), "db");
    assert_eq!(problem, "Others may change this file.");
    // What a refused open says, exit 2.
    let refusal = || {
        let out = run(&["workspace", "list"]);
        let doc = refused(&out, 2, "no secret here");
        doc["error"]["message"].as_str().unwrap().to_string()
    };
    let said = refusal();
    assert!(said.contains("writable by group or others"), "{said}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the refused store was changed"
    );
    mode(0o644);
    succeeded(&run(&["workspace", "list"]));
    // In a directory anyone may write (not /tmp's sticky 1777): anyone
    // could put their own file in its place; refused before it is made.
    let open_dir = dir.path().join("open");
    std::fs::create_dir(&open_dir).unwrap();
    std::fs::set_permissions(&open_dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let there = open_dir.join("s.db");
    let create_there = || {
        let db = there.to_str().unwrap();
        runtime_in(
            dir.path(),
            &["--db", db, "workspace", "create", "--name", "w"],
        )
    };
    let problem = field_problem(&create_there(), "db");
    assert_eq!(problem, "In a directory anyone may write.");
    assert!(!there.exists(), "the refused store was made");
    std::fs::set_permissions(&open_dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
    succeeded(&create_there());
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        mode(0o600);
        std::os::unix::fs::chown(&db, Some(65534), None).unwrap();
        let said = refusal();
        assert!(said.contains("belongs to uid 65534"), "{said}");
    }
}
