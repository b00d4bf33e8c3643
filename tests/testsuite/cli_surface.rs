//! `auth`, help, schemas, the catalog and process behaviour of the real binary.

use std::os::unix::fs::PermissionsExt;

use agentteam::registry::ACTIONS;
use serde_json::json;

use crate::support::cli::Cli;

#[test]
fn login_status_logout_round_trip() {
    let cli = Cli::new();
    let run = cli.run(
        &[
            "auth",
            "login",
            "--api-url",
            "http://127.0.0.1:9/",
            "--workspace",
            "ws_1",
            "--agent",
            "ag_1",
            "--token-stdin",
        ],
        Some("at_secret\n"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stdout.contains("at_secret"));
    let status = cli.run(&["auth", "status"], None).json();
    assert_eq!(status["data"]["profile"], "default");
    assert_eq!(status["data"]["api_url"], "http://127.0.0.1:9");
    assert_eq!(status["data"]["workspace_id"], "ws_1");
    assert_eq!(status["data"]["token"], "<redacted>");
    let meta = std::fs::metadata(cli.config_dir().join("credentials.json")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(
        std::fs::metadata(cli.config_dir())
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o700
    );

    // A second, named profile selected by flag or environment.
    let run = cli.run(
        &[
            "--profile",
            "ci",
            "auth",
            "login",
            "--api-url",
            "http://h:1",
            "--workspace",
            "ws_2",
            "--agent",
            "ag_2",
            "--credential-process",
            "printf '{\"token\":\"t\"}'",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{run:?}");
    let ci = cli.run(&["auth", "status", "--profile", "ci"], None).json();
    assert_eq!(
        ci["data"]["credential_process"],
        json!(["printf", "{\"token\":\"t\"}"])
    );
    let mut with_env = Cli {
        home: tempfile::tempdir().unwrap(),
        config: cli.config.clone(),
        env: vec![("AGENTTEAM_PROFILE".into(), "ci".into())],
    };
    assert_eq!(
        with_env.run(&["auth", "status"], None).json()["data"]["workspace_id"],
        "ws_2"
    );
    with_env.env.clear();

    let out = cli.run(&["auth", "logout", "--profile", "ci"], None).json();
    assert_eq!(out["data"], json!({"profile": "ci", "removed": true}));
    assert_eq!(
        cli.run(&["auth", "status", "--profile", "ci"], None).code,
        3
    );
    assert_eq!(
        cli.run(&["auth", "status"], None).code,
        0,
        "other profiles survive"
    );
}

#[test]
fn a_token_in_argv_is_refused() {
    let cli = Cli::new();
    let run = cli.run(
        &[
            "auth",
            "login",
            "--api-url",
            "http://h:1",
            "--workspace",
            "w",
            "--agent",
            "a",
            "--token",
            "at_secret",
        ],
        None,
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.error_code(), "usage_error");
    assert!(!cli.config_dir().join("credentials.json").exists());
}

#[test]
fn login_validates_its_inputs() {
    let cli = Cli::new();
    for url in ["ftp://h", "not a url", "http://user:pw@h:1"] {
        let run = cli.run(
            &[
                "auth",
                "login",
                "--api-url",
                url,
                "--workspace",
                "w",
                "--agent",
                "a",
                "--token-stdin",
            ],
            Some("t"),
        );
        assert_eq!(run.code, 2, "{url}: {run:?}");
    }
    let run = cli.run(
        &[
            "auth",
            "login",
            "--api-url",
            "http://h:1",
            "--workspace",
            "w",
            "--agent",
            "a",
        ],
        None,
    );
    assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
}

#[test]
fn a_store_others_can_read_is_refused() {
    let cli = Cli::new();
    cli.login("http://127.0.0.1:9", "at_secret", None);
    std::fs::set_permissions(
        cli.config_dir().join("credentials.json"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let run = cli.exec("task", "get", r#"{"channel":"eng","number":1}"#, &[]);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (3, "credential_store_insecure")
    );
    assert!(
        run.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("chmod 600")
    );
}

#[test]
fn every_route_has_help_and_schemas() {
    let cli = Cli::new();
    for action in ACTIONS {
        let help = cli.run(&["exec", action.domain, action.verb, "--help"], None);
        assert_eq!(help.code, 0);
        for needle in [
            action.summary,
            "Input fields",
            "Examples:",
            "Exit status:",
            "--input-schema",
            "--output-schema",
        ] {
            assert!(
                help.stdout.contains(needle),
                "{} --help lacks {needle}",
                action.name()
            );
        }
        let input = cli.run(
            &["exec", action.domain, action.verb, "--input-schema"],
            None,
        );
        assert_eq!(input.json(), (action.input_schema)());
        let output = cli.run(
            &["exec", action.domain, action.verb, "--output-schema"],
            None,
        );
        assert_eq!(output.json(), action.output_schema());
    }
    let exec_help = cli.run(&["exec", "--help"], None).stdout;
    assert!(exec_help.contains("task"));
    let task_help = cli.run(&["exec", "task", "--help"], None).stdout;
    for action in ACTIONS {
        assert!(
            task_help.contains(action.verb),
            "exec task --help lacks {}",
            action.verb
        );
    }
}

#[test]
fn catalog_and_error_schema() {
    let cli = Cli::new();
    let catalog = cli.run(&["exec", "--catalog"], None).json();
    assert_eq!(catalog["actions"].as_array().unwrap().len(), ACTIONS.len());
    assert_eq!(catalog["actions"][0]["action_id"], "task.list");
    let errors = cli.run(&["exec", "--error-schema"], None).json();
    assert!(
        errors["x-error-codes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["code"] == "task_not_found" && c["retryable"] == false)
    );
}

#[test]
fn usage_errors_are_json_with_exit_2() {
    let cli = Cli::new();
    for args in [
        &["exec", "task", "frobnicate", "-"][..],
        &["exec", "nodomain", "list"],
        &["exec", "task", "list", "-", "--nope"],
        &["exec", "task", "list", "--input-schema", "-"],
    ] {
        let run = cli.run(args, None);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "usage_error"),
            "{args:?}"
        );
    }
}

#[test]
fn no_input_on_a_closed_stdin_is_invalid_json() {
    let cli = Cli::new();
    cli.login("http://127.0.0.1:9", "t", None);
    let run = cli.run(&["exec", "task", "list"], None);
    assert_eq!((run.code, run.error_code().as_str()), (2, "invalid_json"));
}

#[test]
fn a_closed_stdout_pipe_exits_quietly() {
    let cli = Cli::new();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = cli
        .command(&["exec", "--catalog"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
