//! TLS between the runtime and PostgreSQL, as libpq's `sslmode`,
//! `sslrootcert`, `sslcert` and `sslkey` ask for it: a private cluster with
//! `ssl = on`, a certificate from the test's own CA, and a `pg_hba.conf`
//! that rejects every TCP connection without TLS, so a command that works
//! over TCP spoke TLS. Each refusal is one error document naming the
//! problem, exit 2, and no password on any stream.

use std::path::Path;
use std::process::Output;

use serde_json::json;

use crate::support::cli::Cli;
use crate::support::postgres::{Cluster, PASSWORD};
use crate::support::runtime::{Engine, Runtime, message, refused, runtime_in_env, succeeded};
use crate::support::tls::{CERT_USER, pki, tls_cluster};

/// `name` in `dir` holding `text`, private to its owner.
fn file(dir: &Path, name: &str, text: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path.display().to_string()
}

/// `agentteam-runtime --db DB ARGS…` in `dir`, its HOME (no
/// `~/.postgresql` of the machine's).
fn runtime(dir: &Path, db: &str, args: &[&str]) -> Output {
    let mut all = vec!["--db", db];
    all.extend_from_slice(args);
    runtime_in_env(dir, &all, &[])
}

/// The message of a command refused as a usage error (exit 2), after
/// checking that no stream shows the password.
fn refused_by_name(out: &Output) -> String {
    let doc = refused(out, 2, PASSWORD);
    assert_eq!(doc["error"]["code"], "usage_error", "{doc}");
    message(&doc)
}

/// Over TCP the cluster takes TLS only: a plain connection is refused by
/// name; `prefer` (the default) and `require` encrypt without checking the
/// certificate; `verify-full` checks it against the CA given and the host
/// name, and a replica on it serves the CLI end to end.
#[test]
fn the_runtime_speaks_tls_to_postgres_as_the_sslmode_asks() {
    let pki = pki(&["localhost", "127.0.0.1"]);
    let cluster = tls_cluster(&pki);
    let dir = tempfile::tempdir().unwrap();
    let ca = file(dir.path(), "ca.pem", &pki.ca);
    let db = cluster.new_database();
    let base = cluster.tcp_uri(&db);

    let message = refused_by_name(&runtime(
        dir.path(),
        &format!("{base}?sslmode=disable"),
        &["migrate"],
    ));
    assert!(message.contains("no encryption"), "{message}");

    for query in ["", "?sslmode=prefer", "?sslmode=require"] {
        succeeded(&runtime(
            dir.path(),
            &format!("{base}{query}"),
            &["migrate", "--status"],
        ));
    }
    let verified = format!("{base}?sslmode=verify-full&sslrootcert={ca}");
    succeeded(&runtime(dir.path(), &verified, &["migrate"]));
    // The same by name, as the certificate also names it; and with the
    // login bound to this TLS connection (SCRAM-SHA-256-PLUS), which a
    // plain connection cannot offer.
    let by_name = verified.replace("@127.0.0.1:", "@localhost:");
    succeeded(&runtime(dir.path(), &by_name, &["migrate", "--status"]));
    succeeded(&runtime(
        dir.path(),
        &format!("{verified}&channel_binding=require"),
        &["migrate", "--status"],
    ));

    // A replica on the TLS connection serves an agent end to end.
    let runtime = Runtime::serve(Engine::Postgres, &verified, &[]);
    let workspace = runtime.workspace("tls");
    runtime.channel(&workspace, "eng");
    let agent = runtime.agent(&workspace, "ada");
    let cli = Cli::new();
    cli.login_to(
        &runtime.base_url(),
        &workspace,
        &agent.agent_id,
        &agent.token,
    );
    let created = cli.exec(
        "task",
        "create",
        &json!({"channel": "eng", "tasks": [{"title": "Rotate the database certificate"}]})
            .to_string(),
        &[],
    );
    assert_eq!(created.code, 0, "{}", created.stderr);
    let got = cli
        .exec("task", "get", r#"{"channel": "eng", "number": 1}"#, &[])
        .json();
    assert_eq!(
        got["data"]["title"], "Rotate the database certificate",
        "{got}"
    );
    // Every connection of the replica is encrypted.
    let plain = cluster.psql(
        &db,
        "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
         WHERE a.application_name = 'agentteam-runtime' AND NOT s.ssl",
    );
    assert_eq!(plain.trim(), "0");
}

/// `verify-full` refuses a certificate for another host, and `verify-ca`
/// (the CA only) takes it; a certificate of another CA is refused by both;
/// `require` of a server without TLS is refused. Each names the problem.
#[test]
fn a_certificate_the_uri_does_not_trust_is_refused_by_name() {
    let pki_for_another_host = pki(&["db.internal"]);
    let cluster = tls_cluster(&pki_for_another_host);
    let dir = tempfile::tempdir().unwrap();
    let ca = file(dir.path(), "ca.pem", &pki_for_another_host.ca);
    let other_ca = file(dir.path(), "other-ca.pem", &pki(&["localhost"]).ca);
    let db = cluster.new_database();
    let base = cluster.tcp_uri(&db);

    let message = refused_by_name(&runtime(
        dir.path(),
        &format!("{base}?sslmode=verify-full&sslrootcert={ca}"),
        &["migrate", "--status"],
    ));
    assert!(
        message.contains("not one the URI trusts") && message.contains("db.internal"),
        "{message}"
    );
    succeeded(&runtime(
        dir.path(),
        &format!("{base}?sslmode=verify-ca&sslrootcert={ca}"),
        &["migrate", "--status"],
    ));
    for mode in ["verify-ca", "verify-full", "require"] {
        let message = refused_by_name(&runtime(
            dir.path(),
            &format!("{base}?sslmode={mode}&sslrootcert={other_ca}"),
            &["migrate", "--status"],
        ));
        assert!(
            message.contains("not one the URI trusts") && message.contains("UnknownIssuer"),
            "{mode}: {message}"
        );
    }

    // A server that offers no TLS, where the mode requires it.
    let plain = Cluster::shared();
    let db = plain.new_database();
    let message = refused_by_name(&runtime(
        dir.path(),
        &format!("{}?sslmode=require", plain.tcp_uri(&db)),
        &["migrate", "--status"],
    ));
    assert!(message.contains("does not offer TLS"), "{message}");
    let message = refused_by_name(&runtime(
        dir.path(),
        &format!("{}?channel_binding=require", plain.tcp_uri(&db)),
        &["migrate", "--status"],
    ));
    assert!(message.contains("channel binding"), "{message}");
}

/// A user whose pg_hba.conf line is `cert` logs in with its client
/// certificate and no password; without the certificate it is refused.
#[test]
fn a_client_certificate_logs_in_without_a_password() {
    let pki = pki(&["localhost", "127.0.0.1"]);
    let cluster = tls_cluster(&pki);
    let db = cluster.new_database();
    cluster.psql(
        "postgres",
        &format!("CREATE ROLE {CERT_USER} LOGIN; ALTER DATABASE {db} OWNER TO {CERT_USER}"),
    );
    let dir = tempfile::tempdir().unwrap();
    let ca = file(dir.path(), "ca.pem", &pki.ca);
    let cert = file(dir.path(), "client.crt", &pki.client_cert);
    let key = file(dir.path(), "client.key", &pki.client_key);
    let base = format!(
        "postgres://{CERT_USER}@localhost:{}/{db}?sslmode=verify-full&sslrootcert={ca}",
        cluster.port()
    );

    let status = succeeded(&runtime(
        dir.path(),
        &format!("{base}&sslcert={cert}&sslkey={key}"),
        &["migrate"],
    ));
    // Every migration, from the first to the version it reached.
    assert_eq!(
        status["applied"].as_array().map(Vec::len),
        status["version"].as_u64().map(|v| v as usize),
        "{status}"
    );

    let message = refused_by_name(&runtime(dir.path(), &base, &["migrate", "--status"]));
    assert!(message.contains(CERT_USER), "{message}");
}
