//! Snapshots of everything a model or a person reads about each action:
//! `--help`, `--input-schema` and `--output-schema` of the real binary, and
//! the `--format text` views of its results against the real runtime, so a
//! change to any of them is a reviewed diff in
//! `tests/testsuite/snapshots/*.snap`.
//!
//! After an intended change, accept the new snapshots with one command and
//! review the diff before committing:
//!
//! ```sh
//! INSTA_UPDATE=always cargo test --test testsuite snapshots::     # or: cargo insta test --accept
//! ```

use std::process::{Command, Stdio};

use agentteam::registry::{self, ACTIONS};
use regex::Regex;
use serde_json::{Value, json};

use crate::support::cli::Cli;
use crate::support::runtime::Runtime;

/// Runs `agentteam` hermetically: nothing from the developer's environment,
/// a fresh HOME and config dir, and a fixed width so help wraps the same
/// everywhere.
fn agentteam(args: &[&str]) -> String {
    let home = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_agentteam"))
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("AGENTTEAM_CONFIG_DIR", home.path().join("config"))
        .env("COLUMNS", "100")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "agentteam {args:?} exited {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("stdout is UTF-8")
}

fn json(args: &[&str]) -> Value {
    let stdout = agentteam(args);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("agentteam {args:?}: stdout is not JSON ({e}):\n{stdout}"))
}

#[test]
fn action_help() {
    for action in ACTIONS {
        let help = agentteam(&["exec", action.domain, action.verb, "--help"]);
        insta::assert_snapshot!(format!("{}_help", action.name()), help);
    }
}

#[test]
fn action_input_schema() {
    for action in ACTIONS {
        let schema = json(&["exec", action.domain, action.verb, "--input-schema"]);
        insta::assert_json_snapshot!(format!("{}_input_schema", action.name()), schema);
    }
}

#[test]
fn action_output_schema() {
    for action in ACTIONS {
        let schema = json(&["exec", action.domain, action.verb, "--output-schema"]);
        insta::assert_json_snapshot!(format!("{}_output_schema", action.name()), schema);
    }
}

/// The binary prints what the registry holds, so the registry's tests cover
/// `agentteam exec --catalog`: its schemas are checked against the 2020-12
/// meta-schema (`catalog_schemas_are_valid_json_schema_2020_12`) and the
/// CLI's help (`check_04_catalog_and_schema_parity`) there.
#[test]
fn binary_schemas_are_the_catalog_schemas() {
    let catalog = json(&["exec", "--catalog", "--full"]);
    assert_eq!(catalog, registry::catalog());
    for (action, entry) in ACTIONS.iter().zip(catalog["actions"].as_array().unwrap()) {
        let input = json(&["exec", action.domain, action.verb, "--input-schema"]);
        let output = json(&["exec", action.domain, action.verb, "--output-schema"]);
        assert_eq!(input, entry["input_schema"], "{}", action.name());
        assert_eq!(output, entry["output_schema"], "{}", action.name());
    }
    assert_eq!(json(&["exec", "--error-schema"]), catalog["error_schema"]);
}

/// What the runtime makes up differs from run to run: times and ids become
/// `[time]` and `[id]`, so a snapshot holds only what the views decide.
fn normalised(text: &str) -> String {
    let time = Regex::new(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z").unwrap();
    let id = Regex::new(r"\b[a-z]{2,4}_[0-9a-f]{24,32}\b").unwrap();
    let text = time.replace_all(text, "[time]");
    id.replace_all(&text, "[id]").into_owned()
}

/// The `--format text` views of a task's detail, of what a create made (or
/// replayed) and of a list, for a board the test fills through the CLI.
#[test]
fn text_views() {
    let rt = Runtime::start();
    let workspace = rt.workspace("acme");
    rt.channel(&workspace, "eng");
    let alice = rt.agent(&workspace, "alice");
    let mut cli = Cli::new();
    cli.env.push(("COLUMNS".into(), "100".into()));
    cli.login_to(
        &rt.base_url(),
        &alice.workspace_id,
        &alice.agent_id,
        &alice.token,
    );
    let text = |cli: &Cli, verb: &str, input: Value| {
        let run = cli.exec("task", verb, &input.to_string(), &["--format", "text"]);
        assert_eq!(run.code, 0, "task {verb} {input}: {run:?}");
        normalised(&run.stdout)
    };

    let created = text(
        &cli,
        "create",
        json!({"channel": "eng", "tasks": [{
            "title": "Fix the login timeout",
            "description": "Sessions end after 5 minutes instead of 30.",
            "status": "in_progress",
            "priority": "high",
            "assignee": "@alice",
            "labels": ["auth", "web"],
            "checklist": [{"text": "Reproduce", "done": true}, {"text": "Fix the refresh"}],
            "urls": ["https://example.com/issues/1"]
        }]}),
    );
    insta::assert_snapshot!("task_create_text", created);
    let subtasks = text(
        &cli,
        "create",
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "Write a failing test"}, {"title": "Renew the refresh token"}]}),
    );
    insta::assert_snapshot!("task_create_subtasks_text", subtasks);
    text(
        &cli,
        "checkpoint",
        json!({"channel": "eng", "number": 1, "summary": "Root cause: the refresh token is never renewed."}),
    );
    let detail = text(&cli, "get", json!({"channel": "eng", "number": 1}));
    insta::assert_snapshot!("task_get_text", detail);
    let list = text(
        &cli,
        "list",
        json!({"channel": "eng", "include_subtasks": true, "sort": "number_asc"}),
    );
    insta::assert_snapshot!("task_list_text", list);

    // A keyed create inside a workflow callback, then its replay.
    let opened = rt.open_callback(&workspace, &alice.agent_id);
    for (name, key) in [
        ("AGENTTEAM_WORKFLOW_RUN_ID", "workflow_run_id"),
        ("AGENTTEAM_CALLBACK_EFFECT_ID", "callback_effect_id"),
    ] {
        let value = opened[key].as_str().expect(key).to_string();
        cli.env.push((name.into(), value));
    }
    let keyed = json!({"channel": "eng", "tasks": [{"title": "Announce the fix"}], "idempotency_key": "announce-1"});
    text(&cli, "create", keyed.clone());
    let replayed = text(&cli, "create", keyed);
    insta::assert_snapshot!("task_create_replayed_text", replayed);
}
