//! Least privilege and token lifetimes, end to end (docs/security.md): the
//! real `agentteam` CLI against the real `agentteam-runtime`, on both
//! engines. Tokens are scoped by permission class and the runtime enforces
//! the class the registry gives each action; a profile caps itself below
//! its token and the CLI refuses above the cap before sending; tokens
//! expire, the CLI's refresh-once path replaces them, and dead tokens do
//! not pile up.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::cli::{Cli, Run};
use crate::support::runtime::{BIN, Engine, Runtime};

on_every_engine!(
    the_runtime_refuses_actions_above_the_tokens_scope,
    a_capped_profile_refuses_before_sending_and_the_catalog_says_what_it_allows,
    an_expired_token_is_refused_and_the_credential_process_replaces_it,
    forced_refreshes_do_not_pile_up_live_tokens,
);

struct Setup {
    runtime: Runtime,
    workspace: String,
    agent: String,
}

fn setup(engine: Engine) -> Setup {
    let runtime = Runtime::start_on(engine);
    let workspace = runtime.workspace("acme");
    runtime.channel(&workspace, "eng");
    let agent = runtime.agent(&workspace, "alice").agent_id;
    Setup {
        runtime,
        workspace,
        agent,
    }
}

impl Setup {
    /// `token issue` for alice with extra flags; its JSON answer.
    /// `token issue` for the agent with `flags`; it must succeed.
    fn issue(&self, flags: &[&str]) -> Value {
        let out = self.issue_output(flags);
        assert!(out.status.success(), "token issue {flags:?}: {out:?}");
        serde_json::from_slice(&out.stdout).expect("one JSON object")
    }

    /// `token issue` for the agent with `flags`, whatever its outcome.
    fn issue_output(&self, flags: &[&str]) -> std::process::Output {
        let mut args = vec![
            "token",
            "issue",
            "--workspace",
            &self.workspace,
            "--agent",
            &self.agent,
        ];
        args.extend_from_slice(flags);
        self.runtime.admin_output(&args)
    }

    fn counts(&self) -> Value {
        self.runtime.admin(&[
            "token",
            "count",
            "--workspace",
            &self.workspace,
            "--agent",
            &self.agent,
        ])
    }

    /// A CLI logged in as alice with `token`, plus extra `auth login` flags.
    fn login(&self, token: &str, flags: &[&str]) -> Cli {
        let cli = Cli::new();
        self.relogin(&cli, token, flags);
        cli
    }

    fn relogin(&self, cli: &Cli, token: &str, flags: &[&str]) {
        let base = self.runtime.base_url();
        let mut args = vec![
            "auth",
            "login",
            "--api-url",
            &base,
            "--workspace",
            &self.workspace,
            "--agent",
            &self.agent,
            "--token-stdin",
        ];
        args.extend_from_slice(flags);
        let run = cli.run(&args, Some(token));
        assert_eq!(run.code, 0, "{run:?}");
    }

    fn credential_process(&self, ttl: &str) -> String {
        format!(
            "{BIN} --db {} token issue --workspace {} --agent {} --ttl {ttl}",
            self.runtime.db, self.workspace, self.agent
        )
    }
}

fn exec(cli: &Cli, verb: &str, input: Value) -> Run {
    cli.exec("task", verb, &input.to_string(), &[])
}

fn refused(run: &Run) -> (i32, String, String) {
    let error = &run.json()["error"];
    (
        run.code,
        error["code"].as_str().unwrap_or_default().to_string(),
        error["message"].as_str().unwrap_or_default().to_string(),
    )
}

fn create_one(cli: &Cli) -> u64 {
    let run = exec(
        cli,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t"}]}),
    );
    assert_eq!(run.code, 0, "{run:?}");
    run.json()["data"]["tasks"][0]["number"].as_u64().unwrap()
}

fn the_runtime_refuses_actions_above_the_tokens_scope(engine: Engine) {
    let s = setup(engine);
    // The default is the widest class, as before scopes existed.
    let default = s.issue(&[]);
    assert_eq!(default["scope"], "destructive", "{default}");

    let reader = s.issue(&["--scope", "read_only"]);
    assert_eq!(reader["scope"], "read_only");
    let reader = s.login(reader["token"].as_str().unwrap(), &[]);
    assert_eq!(exec(&reader, "list", json!({"channel": "eng"})).code, 0);
    let (code, error, message) = refused(&exec(
        &reader,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t"}]}),
    ));
    assert_eq!((code, error.as_str()), (4, "forbidden"), "{message}");
    assert!(
        message.contains("task_create needs a token of scope agent_mutation")
            && message.contains("this token's scope is read_only"),
        "{message}"
    );

    let writer = s.issue(&["--scope", "agent_mutation"]);
    let writer = s.login(writer["token"].as_str().unwrap(), &[]);
    let number = create_one(&writer);
    let delete = json!({"channel": "eng", "number": number});
    let (code, error, message) = refused(&exec(&writer, "delete", delete.clone()));
    assert_eq!((code, error.as_str()), (4, "forbidden"));
    assert!(message.contains("scope destructive"), "{message}");
    // Refused before the store: the task is still there.
    assert_eq!(
        exec(&writer, "get", json!({"channel": "eng", "number": number})).code,
        0
    );

    // agent create takes the same scope; its first token is bounded by it.
    let out = s.runtime.admin(&[
        "agent",
        "create",
        "--workspace",
        &s.workspace,
        "--handle",
        "watcher",
        "--scope",
        "read_only",
        "--ttl",
        "1h",
    ]);
    assert_eq!(out["scope"], "read_only");
    let watcher = Cli::new();
    watcher.login_to(
        &s.runtime.base_url(),
        &s.workspace,
        out["agent_id"].as_str().unwrap(),
        out["token"].as_str().unwrap(),
    );
    let run = exec(
        &watcher,
        "checkpoint",
        json!({"channel": "eng", "number": number, "summary": "x"}),
    );
    assert_eq!(run.error_code(), "forbidden");
    // A widest-scope token of the task's creator still deletes.
    let mine = s.login(default["token"].as_str().unwrap(), &[]);
    assert_eq!(exec(&mine, "delete", delete).code, 0);
    // An unknown class is a usage error; nothing is issued.
    let out = s.issue_output(&["--scope", "admin"]);
    assert_eq!(out.status.code(), Some(2));
}

fn a_capped_profile_refuses_before_sending_and_the_catalog_says_what_it_allows(engine: Engine) {
    let s = setup(engine);
    let token = s.issue(&[])["token"].as_str().unwrap().to_string();
    let cli = s.login(&token, &["--max-permission", "agent_mutation"]);
    let status = cli.run(&["auth", "status"], None).json();
    assert_eq!(
        status["data"]["max_permission"], "agent_mutation",
        "{status}"
    );
    let number = create_one(&cli);

    let (code, error, message) = refused(&exec(
        &cli,
        "delete",
        json!({"channel": "eng", "number": number}),
    ));
    assert_eq!((code, error.as_str()), (4, "forbidden"));
    assert!(
        message.contains("capped at agent_mutation")
            && message.contains("Nothing was sent")
            // The cap is the operator's: no command that lifts it.
            && message.contains("ask them")
            && !message.contains("--max-permission"),
        "{message}"
    );
    assert_eq!(
        exec(&cli, "get", json!({"channel": "eng", "number": number})).code,
        0,
        "the task is still there"
    );
    // A new token for the profile keeps its cap: a login that leaves the
    // cap out (the one a refused token's hint gives) never widens it.
    let again = cli.run(
        &["auth", "login", "--token-stdin"],
        Some(s.issue(&[])["token"].as_str().unwrap()),
    );
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(again.json()["data"]["max_permission"], "agent_mutation");
    s.relogin(&cli, &token, &[]);
    let delete = json!({"channel": "eng", "number": number});
    assert_eq!(exec(&cli, "delete", delete.clone()).code, 4);
    // Only an explicit cap changes it.
    s.relogin(&cli, &token, &["--max-permission", "destructive"]);
    let status = cli.run(&["auth", "status"], None).json();
    assert_eq!(status["data"]["max_permission"], "destructive", "{status}");
    s.relogin(&cli, &token, &["--max-permission", "agent_mutation"]);
    // Nothing is sent: the same refusal with the server out of reach.
    let unreachable = Cli::new();
    let run = unreachable.run(
        &[
            "auth",
            "login",
            "--api-url",
            "http://127.0.0.1:9",
            "--workspace",
            &s.workspace,
            "--agent",
            &s.agent,
            "--token-stdin",
            "--max-permission",
            "read_only",
        ],
        Some(&token),
    );
    assert_eq!(run.code, 0);
    let run = exec(
        &unreachable,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t"}]}),
    );
    assert_eq!((run.code, run.error_code().as_str()), (4, "forbidden"));
    let run = unreachable.run(
        &["exec", "task", "update", "--batch", "-"],
        Some("{\"channel\":\"eng\",\"number\":1,\"title\":\"x\"}\n"),
    );
    assert_eq!(run.code, 4, "{run:?}");
    assert!(run.stdout.contains("\"forbidden\""), "{}", run.stdout);

    // The catalog says, for the active profile, what the cap allows.
    let catalog = cli.run(&["exec", "--catalog"], None).json();
    assert_eq!(
        catalog["profile"],
        json!({
            "name": "default",
            "max_permission": "agent_mutation",
            "allowed": ["task_list", "task_get", "task_create", "task_update", "task_set_claim", "task_checkpoint"],
            "refused": ["task_delete"],
        })
    );
    let catalog = unreachable
        .run(&["exec", "--catalog", "--full"], None)
        .json();
    assert_eq!(catalog["profile"]["refused"].as_array().unwrap().len(), 5);
    // Without a profile the catalog is the registry alone.
    let catalog = Cli::new().run(&["exec", "--catalog"], None).json();
    assert!(catalog.get("profile").is_none());
    // A profile named that is not there is refused, as for any command:
    // the registry alone would read as a catalog no cap limits.
    let run = cli.run(&["exec", "--catalog", "--profile", "defualt"], None);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (3, "credentials_missing"),
        "{run:?}"
    );
    assert_eq!(
        run.json()["error"]["candidates"][0]["value"],
        "default",
        "{run:?}"
    );
    let mut by_env = Cli::new();
    by_env.env.push(("AGENTTEAM_PROFILE".into(), "ci".into()));
    let run = by_env.run(&["exec", "--catalog"], None);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (3, "credentials_missing"),
        "{run:?}"
    );
    // An unknown class is refused at login.
    let run = cli.run(
        &[
            "auth",
            "login",
            "--api-url",
            "http://127.0.0.1:9",
            "--workspace",
            "w",
            "--agent",
            "a",
            "--token-stdin",
            "--max-permission",
            "admin",
        ],
        Some(&token),
    );
    assert_eq!(run.code, 2);
}

fn an_expired_token_is_refused_and_the_credential_process_replaces_it(engine: Engine) {
    let s = setup(engine);
    let short = s.issue(&["--ttl", "1s"]);
    let expires = time::OffsetDateTime::parse(
        short["expires_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert!(expires - time::OffsetDateTime::now_utc() <= time::Duration::seconds(1));
    let token = short["token"].as_str().unwrap();
    // Logged in with the token alone, its expiry unknown to the profile: the
    // CLI sends it, the runtime refuses it with 401, and the credential
    // process runs once.
    let cli = s.login(
        token,
        &["--credential-process", &s.credential_process("15m")],
    );
    std::thread::sleep(Duration::from_millis(1200));
    let path = format!(
        "/api/v1/workspaces/{}/agents/{}/runtime/tasks?channel=eng",
        s.workspace, s.agent
    );
    let reply = s.runtime.http("GET", &path, Some(token), None);
    assert_eq!((reply.status, reply.code().as_str()), (401, "unauthorized"));
    let run = cli.run(
        &["exec", "task", "list", "-", "--verbose"],
        Some(r#"{"channel":"eng"}"#),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("401: refreshing"), "{}", run.stderr);
    let store: Value = serde_json::from_str(&cli.store_text()).unwrap();
    assert!(
        store["profiles"]["default"]["token_expires_at"].is_string(),
        "the refreshed token's expiry is kept: {store}"
    );
    // Too long a lifetime is a usage error.
    let out = s.issue_output(&["--ttl", "91d"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Five refreshes forced by a refused token leave the agent's live token
/// count where the first left it: each issue deletes the dead tokens.
fn forced_refreshes_do_not_pile_up_live_tokens(engine: Engine) {
    let s = setup(engine);
    let cli = Cli::new();
    let bogus = format!("at_{}", "A".repeat(43));
    let process = s.credential_process("1s");
    let mut seen = Vec::new();
    for round in 0..5 {
        // A refused token in the profile forces a 401 and a refresh.
        s.relogin(&cli, &bogus, &["--credential-process", &process]);
        let run = cli.run(
            &["exec", "task", "list", "-", "--verbose"],
            Some(r#"{"channel":"eng"}"#),
        );
        assert_eq!(run.code, 0, "round {round}: {run:?}");
        assert!(run.stderr.contains("401: refreshing"), "{}", run.stderr);
        std::thread::sleep(Duration::from_millis(1100));
        seen.push(s.counts());
    }
    let pairs: Vec<_> = seen
        .iter()
        .map(|c| (c["live"].as_u64().unwrap(), c["stored"].as_u64().unwrap()))
        .collect();
    eprintln!("tokens (live, stored) after each forced refresh: {pairs:?}");
    // agent create's first token (24 h) and at most the one just issued.
    for counts in &seen {
        assert!(counts["live"].as_u64().unwrap() <= 2, "{seen:?}");
        assert!(counts["stored"].as_u64().unwrap() <= 2, "{seen:?}");
    }
    assert_eq!(seen[1], seen[4], "no growth: {seen:?}");
    // Revoking is explicit, and counts only live tokens.
    let revoked = s.runtime.admin(&[
        "token",
        "revoke",
        "--workspace",
        &s.workspace,
        "--agent",
        &s.agent,
    ]);
    assert_eq!(revoked["revoked"], 1, "only agent create's token was live");
    assert_eq!(s.counts()["live"], 0);
}
