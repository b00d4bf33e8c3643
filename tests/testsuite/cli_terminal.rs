//! Behaviour at a terminal, under a real pseudo-terminal made by `script(1)`:
//! text is the default, colour appears only on a terminal and never with
//! NO_COLOR, and a missing input is explained instead of awaited. Without
//! `script` these tests fail, saying how to install it.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

use serde_json::json;

use crate::support::cli::Cli;
use crate::support::recorder::{Recorder, Reply};

/// `script(1)` in the directories of `path` (a PATH value), or why not and
/// how to install it.
fn find_script(path: &OsStr) -> Result<PathBuf, String> {
    std::env::split_paths(path)
        .map(|dir| dir.join("script"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            "script(1) is not installed, and the terminal tests need it for a pseudo-terminal: \
             install it (Debian and Ubuntu: `apt-get install bsdutils`; elsewhere it is part \
             of util-linux)"
                .to_string()
        })
}

/// Runs `agentteam args…` on a pseudo-terminal: its exit status and what
/// the terminal showed (stdout and stderr together).
fn on_terminal(cli: &Cli, args: &str, extra_env: &[(&str, &str)]) -> (i32, String) {
    typed_on_terminal(cli, args, extra_env, "")
}

/// [`on_terminal`], with `typed` typed at the terminal and then its end
/// (script(1) passes the end of its own input on as Ctrl-D).
fn typed_on_terminal(
    cli: &Cli,
    args: &str,
    extra_env: &[(&str, &str)],
    typed: &str,
) -> (i32, String) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let script = find_script(&path).unwrap_or_else(|why| panic!("{why}"));
    let line = format!("{} {args}", env!("CARGO_BIN_EXE_agentteam"));
    let mut cmd = Command::new("timeout");
    cmd.arg("10")
        .arg(script)
        .args(["-qec", &line, "/dev/null"])
        .env_clear()
        .env("PATH", path)
        .env("HOME", cli.home.path())
        .env("AGENTTEAM_CONFIG_DIR", &cli.config)
        .env("COLUMNS", "80");
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = crate::support::cli::output_with_stdin(&mut cmd, typed);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"),
    )
}

#[test]
fn a_missing_script_fails_saying_how_to_install_it() {
    let why = find_script(OsStr::new("/nonexistent:/also/nonexistent")).unwrap_err();
    assert!(
        why.contains("bsdutils") && why.contains("util-linux"),
        "{why}"
    );
}

#[test]
fn no_input_on_a_terminal_says_how_to_give_one() {
    let cli = Cli::new();
    let (code, out) = on_terminal(&cli, "exec task list", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("usage_error") && out.contains("pipe one JSON object"),
        "{out}"
    );
}

/// `-` names stdin: what is typed at the terminal is read, to its end, as
/// `cat -` reads it, with a word on how to end it.
#[test]
fn dash_on_a_terminal_reads_what_is_typed() {
    let page = json!({"items": []});
    let server = Recorder::start(vec![Reply::json(200, page)]);
    let cli = Cli::new();
    cli.login(&server.url, "at_tty_token", None);
    let (code, out) = typed_on_terminal(
        &cli,
        "--format json exec task list -",
        &[],
        "{\"channel\": \"eng\", \"limit\": 3}\n",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("end it with Ctrl-D"), "{out}");
    assert!(out.contains("\"items\": []"), "{out}");
    let sent = server.requests();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(
        sent[0].query.contains(&("limit".into(), "3".into())),
        "{:?}",
        sent[0].query
    );
}

#[test]
fn text_is_the_default_on_a_terminal_with_colour_unless_no_color_or_dumb() {
    let page = json!({"items": [{"number": 1, "channel": "eng", "scopeId": "tsk_1", "title": "Ship it", "status": "done",
        "priority": "high", "assignee": "@a", "parentNumber": null, "labels": [], "createdBy": "@a",
        "createdAt": "2026-11-30T00:00:00Z", "updatedAt": "2026-11-30T00:00:00Z"}]});
    let server = Recorder::start(vec![Reply::json(200, page)]);
    let cli = Cli::new();
    cli.login(&server.url, "at_tty_token", None);
    let input = cli.home.path().join("in.json");
    std::fs::write(&input, r#"{"channel":"eng"}"#).unwrap();
    let args = format!("exec task list {}", input.display());
    let (code, out) = on_terminal(&cli, &args, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("NUMBER") && out.contains("Ship it"),
        "a table, not JSON: {out}"
    );
    assert!(
        out.contains("\x1b[32mdone"),
        "status is coloured on a terminal: {out:?}"
    );
    let (_, plain) = on_terminal(&cli, &args, &[("NO_COLOR", "1")]);
    assert!(
        plain.contains("Ship it") && !plain.contains("\x1b["),
        "{plain:?}"
    );
    // A terminal that shows escapes as text gets none; an empty NO_COLOR
    // is unset (no-color.org).
    let (_, dumb) = on_terminal(&cli, &args, &[("TERM", "dumb")]);
    assert!(
        dumb.contains("Ship it") && !dumb.contains("\x1b["),
        "{dumb:?}"
    );
    let (_, empty) = on_terminal(&cli, &args, &[("NO_COLOR", "")]);
    assert!(empty.contains("\x1b[32mdone"), "{empty:?}");
    let (_, json_out) = on_terminal(&cli, &format!("--format json {args}"), &[]);
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
    let (code, out) = on_terminal(
        &cli,
        &format!("exec task list --paginate {}", input.display()),
        &[],
    );
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
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("2 done,"), "{out:?}");
}

/// `--paginate` at a terminal prints what `task list` prints there, a
/// table, not NDJSON: one header, then each page's rows in order as the
/// page arrives. `--format json` keeps the NDJSON stream.
#[test]
fn paginate_on_a_terminal_prints_one_table_page_by_page() {
    let task = |number: u64, title: &str| {
        json!({"number": number, "channel": "eng", "scopeId": format!("tsk_{number}"), "title": title,
            "status": "todo", "priority": "none", "assignee": null, "parentNumber": null, "labels": [],
            "createdBy": "@a", "createdAt": "2026-11-30T00:00:00Z", "updatedAt": "2026-11-30T00:00:00Z"})
    };
    let server = Recorder::start(vec![
        Reply::json(
            200,
            json!({"items": [task(1, "first page a"), task(2, "first page b")], "nextCursor": "p2"}),
        ),
        Reply::json(200, json!({"items": [task(3, "second page")]})),
        Reply::json(
            200,
            json!({"items": [task(1, "first page a")], "nextCursor": "p2"}),
        ),
        Reply::json(200, json!({"items": [task(3, "second page")]})),
    ]);
    let cli = Cli::new();
    cli.login(&server.url, "at_tty_token", None);
    let input = cli.home.path().join("in.json");
    std::fs::write(&input, r#"{"channel":"eng"}"#).unwrap();
    let args = format!("exec task list --paginate {}", input.display());
    let (code, out) = on_terminal(&cli, &args, &[("NO_COLOR", "1")]);
    assert_eq!(code, 0, "{out}");
    // Progress lines are erased with \r\x1b[2K; what stays is the table.
    let out = out.replace("\x1b[2K", "");
    let shown: Vec<&str> = out
        .split(['\n', '\r'])
        .filter(|l| l.contains("NUMBER") || l.contains("page"))
        .collect();
    assert_eq!(shown.len(), 4, "one header, three rows: {out:?}");
    assert!(shown[0].starts_with("NUMBER"), "{out:?}");
    for (line, title) in shown[1..]
        .iter()
        .zip(["first page a", "first page b", "second page"])
    {
        assert!(line.contains(title), "{line:?} in {out:?}");
    }
    assert!(!out.contains("{\"number\""), "no NDJSON: {out:?}");

    let (code, out) = on_terminal(&cli, &format!("--format json {args}"), &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("{\"number\":1,"),
        "NDJSON with --format json: {out:?}"
    );
    assert_eq!(server.requests().len(), 4);
}
