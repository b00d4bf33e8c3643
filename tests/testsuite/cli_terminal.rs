//! Behaviour at a terminal, under a real pseudo-terminal made by `script(1)`:
//! text is the default, colour appears only on a terminal and never with
//! NO_COLOR, and a missing input is explained instead of awaited.

use std::process::Command;

use serde_json::json;

use crate::support::cli::Cli;
use crate::support::recorder::{Recorder, Reply};

/// Runs `agentteam args…` on a pseudo-terminal; None when `script` is missing.
fn on_terminal(cli: &Cli, args: &str, extra_env: &[(&str, &str)]) -> Option<(i32, String)> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("note: script(1) is not installed; terminal behaviour not checked");
        return None;
    }
    let line = format!("{} {args}", env!("CARGO_BIN_EXE_agentteam"));
    let mut cmd = Command::new("timeout");
    cmd.args(["10", "script", "-qec", &line, "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", cli.home.path())
        .env("AGENTTEAM_CONFIG_DIR", &cli.config)
        .env("COLUMNS", "80");
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"),
    ))
}

#[test]
fn no_input_on_a_terminal_says_how_to_give_one() {
    let cli = Cli::new();
    let Some((code, out)) = on_terminal(&cli, "exec task list", &[]) else {
        return;
    };
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("usage_error") && out.contains("pipe one JSON object"),
        "{out}"
    );
}

#[test]
fn text_is_the_default_on_a_terminal_with_colour_unless_no_color() {
    let page = json!({"items": [{"number": 1, "channel": "eng", "scopeId": "tsk_1", "title": "Ship it", "status": "done",
        "priority": "high", "assignee": "@a", "parentNumber": null, "labels": [], "createdBy": "@a",
        "createdAt": "2026-11-30T00:00:00Z", "updatedAt": "2026-11-30T00:00:00Z"}]});
    let server = Recorder::start(vec![Reply::json(200, page)]);
    let cli = Cli::new();
    cli.login(&server.url, "at_tty_token", None);
    let input = cli.home.path().join("in.json");
    std::fs::write(&input, r#"{"channel":"eng"}"#).unwrap();
    let args = format!("exec task list {}", input.display());
    let Some((code, out)) = on_terminal(&cli, &args, &[]) else {
        return;
    };
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("NUMBER") && out.contains("Ship it"),
        "a table, not JSON: {out}"
    );
    assert!(
        out.contains("\x1b[32mdone"),
        "status is coloured on a terminal: {out:?}"
    );
    let (_, plain) = on_terminal(&cli, &args, &[("NO_COLOR", "1")]).unwrap();
    assert!(
        plain.contains("Ship it") && !plain.contains("\x1b["),
        "{plain:?}"
    );
    let (_, json_out) = on_terminal(&cli, &format!("--format json {args}"), &[]).unwrap();
    assert!(
        json_out.starts_with("{\n  \"data\""),
        "indented JSON on a terminal: {json_out}"
    );
}

#[test]
fn paginate_and_batch_show_progress_on_a_terminal() {
    let task = json!({"number": 1, "channel": "eng", "scopeId": "tsk_1", "title": "t", "status": "todo",
        "priority": "none", "assignee": null, "parentNumber": null, "labels": [], "createdBy": "@a",
        "createdAt": "2026-11-30T00:00:00Z", "updatedAt": "2026-11-30T00:00:00Z"});
    let server = Recorder::start(vec![
        Reply::json(200, json!({"items": [task.clone()], "nextCursor": "p2"})),
        Reply::json(200, json!({"items": [task]})),
    ]);
    let cli = Cli::new();
    cli.login(&server.url, "at_tty_token", None);
    let input = cli.home.path().join("in.json");
    std::fs::write(&input, r#"{"channel":"eng"}"#).unwrap();
    let Some((code, out)) = on_terminal(
        &cli,
        &format!("exec task list --paginate {}", input.display()),
        &[],
    ) else {
        return;
    };
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("2 items,"),
        "progress on a terminal's stderr: {out:?}"
    );
    let lines = cli.home.path().join("lines.ndjson");
    std::fs::write(
        &lines,
        "{\"channel\":\"eng\",\"number\":1}\n{\"channel\":\"eng\",\"number\":2}\n",
    )
    .unwrap();
    let (code, out) = on_terminal(
        &cli,
        &format!("exec task get --batch {}", lines.display()),
        &[],
    )
    .unwrap();
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("2 done,"), "{out:?}");
}
