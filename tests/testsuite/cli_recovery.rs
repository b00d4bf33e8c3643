//! Recovery from mistakes: every error the CLI prints for a wrong route,
//! a wrong field or a bad token says what to run instead, and what it says
//! runs. The real CLI against the real runtime where a server answers.

use serde_json::{Value, json};

use crate::support::cli::{Cli, Run};
use crate::support::runtime::{Agent, Runtime};

/// A CLI logged in as a member of a workspace with the board `eng`, and
/// that member.
fn member(runtime: &Runtime) -> (Cli, Agent) {
    let workspace = runtime.workspace("acme");
    runtime.channel(&workspace, "eng");
    let agent = runtime.agent(&workspace, "alice");
    let cli = Cli::new();
    cli.login_to(
        &runtime.base_url(),
        &agent.workspace_id,
        &agent.agent_id,
        &agent.token,
    );
    (cli, agent)
}

/// [`member`] of a board `eng` with one task, #1 "Fix login".
fn member_with_one_task(runtime: &Runtime) -> Cli {
    let (cli, _) = member(runtime);
    let created = cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"Fix login"}]}"#,
        &[],
    );
    assert_eq!(created.code, 0, "{created:?}");
    cli
}

/// Runs a suggested `command` (`agentteam exec task get -`) with `input` on stdin.
fn run_command(cli: &Cli, command: &Value, input: &Value) -> Run {
    let words: Vec<&str> = command
        .as_str()
        .expect("a command string")
        .split_whitespace()
        .collect();
    assert_eq!(words[0], "agentteam", "{command}");
    cli.run(&words[1..], Some(&input.to_string()))
}

#[test]
fn a_suggested_action_carries_the_command_that_runs_it() {
    let runtime = Runtime::start();
    let (cli, _) = member(&runtime);
    let created = cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"t"}]}"#,
        &[],
    );
    let updated_at = created.json()["data"]["tasks"][0]["updated_at"].clone();
    let first =
        json!({"channel": "eng", "number": 1, "title": "u", "expected_updated_at": updated_at});
    assert_eq!(cli.exec("task", "update", &first.to_string(), &[]).code, 0);
    let stale = cli.exec("task", "update", &first.to_string(), &[]);
    assert_eq!(stale.error_code(), "task_update_conflict", "{stale:?}");
    let suggestion = stale.json()["error"]["suggested_action"].clone();
    assert_eq!(suggestion["command"], "agentteam exec task get -");
    let run = run_command(&cli, &suggestion["command"], &suggestion["arguments"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["data"]["title"], "u");
    // In JSON mode the document carries the command; stderr stays one
    // short line (the runnable pipeline is the text view's hint).
    assert!(
        stale.stderr.lines().count() <= 1 && stale.stderr.len() <= 200,
        "{}",
        stale.stderr
    );
}

/// A call made with `--profile` is told commands with it: following a
/// suggestion acts as the same agent, not as the default profile's.
#[test]
fn a_suggested_command_keeps_the_profile_it_was_given() {
    let runtime = Runtime::start();
    let (cli, alice) = member(&runtime);
    let bob = runtime.agent(&alice.workspace_id, "bob");
    let login = cli.run(
        &[
            "--profile",
            "peer",
            "auth",
            "login",
            "--api-url",
            &runtime.base_url(),
            "--workspace",
            &bob.workspace_id,
            "--agent",
            &bob.agent_id,
            "--token-stdin",
        ],
        Some(&bob.token),
    );
    assert_eq!(login.code, 0, "{login:?}");
    // A board typo: the suggestion creates on the board meant, as bob.
    let typo = cli.exec(
        "task",
        "create",
        r#"{"channel":"egn","tasks":[{"title":"t"}]}"#,
        &["--profile", "peer"],
    );
    let suggestion = typo.json()["error"]["suggested_action"].clone();
    assert_eq!(
        suggestion["command"], "agentteam --profile peer exec task create -",
        "{typo:?}"
    );
    let run = run_command(&cli, &suggestion["command"], &suggestion["arguments"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.json()["data"]["tasks"][0]["created_by"],
        "@bob",
        "{run:?}"
    );
    // The text view's hint too.
    let text = cli.exec(
        "task",
        "create",
        r#"{"channel":"egn","tasks":[{"title":"t"}]}"#,
        &["--profile", "peer", "--format", "text"],
    );
    assert!(
        text.stderr
            .contains("| agentteam --profile peer exec task create -"),
        "{text:?}"
    );
    // A token typed as the profile is not repeated.
    let token_named = cli.run(
        &[
            "--profile",
            "at_ioYKu4895Rs2CF1SdG06Zg5E66t5ft7X3uV7EAJc7gg",
            "exec",
            "task",
            "lsit",
            "-",
        ],
        None,
    );
    assert!(!token_named.stdout.contains("ioYKu4895"), "{token_named:?}");
    // A mistyped route, refused before any profile is read, the same.
    let route = cli.run(&["--profile=peer", "exec", "task", "lsit", "-"], None);
    assert_eq!(
        route.json()["error"]["suggested_action"]["command"],
        "agentteam --profile peer exec task list -",
        "{route:?}"
    );
}

#[test]
fn a_wrong_route_names_the_right_one() {
    let cli = Cli::new();
    for (args, tool, says) in [
        (&["exec", "task_get", "-"][..], "task_get", ""),
        (&["exec", "task.get", "-"], "task_get", ""),
        (
            &["exec", "task", "claim", "-"],
            "task_set_claim",
            "\"claimed\": true",
        ),
        (&["exec", "task", "set-claim", "-"], "task_set_claim", ""),
        (&["exec", "task", "search", "-"], "task_list", "`query`"),
        (
            &["exec", "task", "remove", "-"],
            "task_delete",
            "No input is filled in for a destructive action",
        ),
        (&["task", "list", "-"], "task_list", ""),
        (&["exec", "list", "-"], "task_list", ""),
        // Another tool's words for calling one, before its name or id.
        (&["exec", "mcp", "task_list", "-"], "task_list", ""),
        (&["exec", "tools", "call", "task.get", "-"], "task_get", ""),
        // clap's nearest suggestion, not its first (`create` for `delte`).
        (&["exec", "task", "delte", "-"], "task_delete", ""),
        (&["--format", "json", "task", "claim"], "task_set_claim", ""),
        // clap's spelling tip, made runnable.
        (
            &["exec", "task", "lsit", "-"],
            "task_list",
            "similar subcommand exists: 'list'",
        ),
        (
            &["exec", "tsk", "get", "-"],
            "task_get",
            "similar subcommand exists: 'task'",
        ),
    ] {
        let run = cli.run(args, None);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "usage_error"),
            "{args:?}"
        );
        let error = run.json()["error"].clone();
        let message = error["message"].as_str().unwrap();
        assert_eq!(error["suggested_action"]["tool"], tool, "{args:?}: {error}");
        let command = error["suggested_action"]["command"].as_str().unwrap();
        assert!(message.contains(command), "{message}");
        assert!(message.contains(says), "{args:?}: {message}");
        // The command names a real route.
        let words: Vec<&str> = command.split_whitespace().skip(1).collect();
        let schema = cli.run(
            &[&words[..words.len() - 1], &["--input-schema"]].concat(),
            None,
        );
        assert_eq!(schema.code, 0, "{command}: {schema:?}");
    }
}

/// What clap cannot say well for an action, the JSON error says: a field
/// given as a flag goes in the input, an option's values are listed, an
/// unknown action lists the actions there are, and JSON given as the file
/// argument goes on stdin. clap's `-- --flag` tip, wrong for an action,
/// is never passed on.
#[test]
fn command_line_mistakes_say_how_to_fix_them() {
    let cli = Cli::new();
    let message = |args: &[&str]| {
        let run = cli.run(args, None);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "usage_error"),
            "{args:?}: {run:?}"
        );
        run.json()["error"]["message"].as_str().unwrap().to_string()
    };
    let said = message(&["exec", "task", "list", "--channel", "eng"]);
    assert!(
        said.contains(r#"`channel` is a field of the action's JSON input, not a flag: `echo '{"channel": …}' | agentteam exec task list -`"#),
        "{said}"
    );
    assert!(!said.contains("-- --channel"), "{said}");
    // The suggestion carries what the flags meant, when that is valid input.
    let suggested = |args: &[&str]| {
        cli.run(args, None).json()["error"]["suggested_action"]["arguments"].clone()
    };
    assert_eq!(
        suggested(&["exec", "task", "list", "--channel", "eng", "--limit", "5"]),
        json!({"channel": "eng", "limit": 5})
    );
    assert_eq!(
        suggested(&["exec", "task", "get", "--channel", "eng"]),
        json!({})
    );
    // A flag after `-` joins the input on stdin: the retry needs both.
    let with_stdin = |args: &[&str], stdin: &str| {
        cli.run(args, Some(stdin)).json()["error"]["suggested_action"]["arguments"].clone()
    };
    assert_eq!(
        with_stdin(
            &["exec", "task", "list", "-", "--limit", "5"],
            r#"{"channel": "eng"}"#
        ),
        json!({"channel": "eng", "limit": 5})
    );
    assert_eq!(
        with_stdin(
            &["exec", "list", "-", "--limit", "5"],
            r#"{"channel": "eng"}"#
        ),
        json!({"channel": "eng", "limit": 5}),
        "a verb without its domain keeps its flags too"
    );
    // A flag that says otherwise than the input: which one was meant is
    // not the suggestion's to guess (the recovery audit's `update --number
    // 9` with `"number": 3` suggested a change to task 9).
    assert_eq!(
        with_stdin(
            &["exec", "task", "get", "-", "--number", "3"],
            r#"{"channel": "eng", "number": 2}"#
        ),
        json!({})
    );
    assert_eq!(
        with_stdin(
            &["exec", "task", "get", "-", "--number", "2"],
            r#"{"channel": "eng", "number": 2}"#
        ),
        json!({"channel": "eng", "number": 2})
    );
    assert_eq!(
        suggested(&[
            "exec",
            "task",
            "delete",
            "--channel",
            "eng",
            "--number",
            "3"
        ]),
        json!({}),
        "never a filled-in delete"
    );
    let said = message(&["--format", "yaml", "exec", "task", "list", "-"]);
    assert!(said.contains("[possible values: json, text]"), "{said}");
    let said = message(&["exec", "task", "frobnicate", "-"]);
    assert!(
        said.contains("`agentteam exec task` needs one of: `list`, `get`, `create`, `update`, `set_claim`, `checkpoint`, `delete`"),
        "{said}"
    );
    let said = message(&["exec", "task", "get", "--paginate", "-"]);
    assert!(
        said.contains("`agentteam exec task get --help` lists the flags it takes"),
        "{said}"
    );
    let said = message(&["exec", "task", "list", r#"{"channel": "eng"}"#]);
    assert!(
        said.contains(r#"pipe the JSON to stdin instead, `echo '{"channel": "eng"}' | agentteam exec task list -`"#),
        "{said}"
    );
}

/// A wrong route given its input on stdin suggests the right action with
/// that input recast for it, so the suggestion runs as given.
#[test]
fn a_wrong_routes_suggestion_carries_the_input_recast() {
    let cli = Cli::new();
    for (route, input, arguments) in [
        (
            &["exec", "task", "claim", "-"][..],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "numbers": [2], "claimed": true}),
        ),
        (
            &["exec", "task", "release", "-"],
            r#"{"channel": "eng", "numbers": [2, 3]}"#,
            json!({"channel": "eng", "numbers": [2, 3], "claimed": false}),
        ),
        (
            &["exec", "task_get", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "number": 2}),
        ),
        // A verb with its domain in one word, as tools are named.
        (
            &["exec", "task", "complete_task", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "number": 2, "status": "done"}),
        ),
        (
            &["exec", "claimTask", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "numbers": [2], "claimed": true}),
        ),
        (
            &["exec", "task", "my_tasks", "-"],
            r#"{"channel": "eng"}"#,
            json!({"channel": "eng", "filters": {"assigned_to_me": true}}),
        ),
        // A read of a task's history or subtasks is the read that has them.
        (
            &["exec", "task", "checkpoints", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "number": 2}),
        ),
        (
            &["exec", "task", "subtasks", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "filters": {"parent": 2}}),
        ),
        // A synonym's value moves to the field it means.
        (
            &["exec", "task", "comment", "-"],
            r#"{"channel": "eng", "number": 2, "note": "hi"}"#,
            json!({"channel": "eng", "number": 2, "summary": "hi"}),
        ),
        (
            &["exec", "task", "search", "-"],
            r#"{"channel": "eng", "search": "release notes"}"#,
            json!({"channel": "eng", "query": "release notes"}),
        ),
        // Input that cannot be made valid: no arguments rather than wrong ones.
        (
            &["exec", "task", "claim", "-"],
            r#"{"channel": "eng"}"#,
            json!({}),
        ),
        (&["exec", "task", "claim", "-"], "not json", json!({})),
        // A batch's stream is not read for it.
        (
            &["exec", "task", "claim", "--batch", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({}),
        ),
        // Nor is a delete ever filled in from a mistyped route.
        (
            &["exec", "task", "remove", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({}),
        ),
        // Closing a task is a status: never a delete, whatever the spelling.
        (
            &["exec", "task", "complete", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "number": 2, "status": "done"}),
        ),
        (
            &["exec", "task", "cancel", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "number": 2, "status": "canceled"}),
        ),
        (
            &["exec", "task", "read", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "number": 2}),
        ),
        // Words for an update's changes, and a checkpoint's.
        (
            &["exec", "task", "assign", "-"],
            r#"{"channel": "eng", "number": 2, "assignee": "@bob"}"#,
            json!({"channel": "eng", "number": 2, "assignee": "@bob"}),
        ),
        (
            &["exec", "task", "reopen", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "number": 2, "status": "todo"}),
        ),
        (
            &["exec", "task", "archive", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "number": 2, "status": "canceled"}),
        ),
        (
            &["exec", "task", "note", "-"],
            r#"{"channel": "eng", "number": 2, "text": "halfway"}"#,
            json!({"channel": "eng", "number": 2, "summary": "halfway"}),
        ),
        (
            &["exec", "task", "destroy", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({}),
        ),
        // A slip clap's similarity passes over.
        (
            &["exec", "task", "gte", "-"],
            r#"{"channel": "eng", "number": 2}"#,
            json!({"channel": "eng", "number": 2}),
        ),
        // A task's fields at the top of a create: the one task they make.
        (
            &["exec", "task", "add", "-"],
            r#"{"channel": "eng", "title": "Ship it", "priority": "high"}"#,
            json!({"channel": "eng", "tasks": [{"title": "Ship it", "priority": "high"}]}),
        ),
        // A change that cannot place every field it was given: none (a
        // subtask's `number` dropped made a top-level create).
        (
            &["exec", "task", "subtask", "-"],
            r#"{"channel": "eng", "number": 1, "title": "x"}"#,
            json!({}),
        ),
        (
            &["exec", "task", "add", "-"],
            r#"{"channel": "eng", "title": "x", "under": 1}"#,
            json!({}),
        ),
        // Another tracker's name for a field, placed as that field.
        (
            &["exec", "task", "add", "-"],
            r#"{"channel": "eng", "title": "x", "parent_id": 1}"#,
            json!({"channel": "eng", "parent": 1, "tasks": [{"title": "x"}]}),
        ),
        // A read drops what it cannot place.
        (
            &["exec", "task", "show", "-"],
            r#"{"channel": "eng", "number": 2, "verbose": true}"#,
            json!({"channel": "eng", "number": 2}),
        ),
        // The input's own word against the route's reading: not guessed.
        (
            &["exec", "task", "claim", "-"],
            r#"{"channel": "eng", "numbers": [2], "claimed": false}"#,
            json!({}),
        ),
        // One number in a list where one is taken; another action's
        // field (a close's reason, a checkpoint's summary) said beside.
        (
            &["exec", "task", "close", "-"],
            r#"{"channel": "eng", "numbers": [2], "reason": "duplicate of 3"}"#,
            json!({"channel": "eng", "number": 2, "status": "done"}),
        ),
        (
            &["exec", "task", "close", "-"],
            r#"{"channel": "eng", "numbers": [2, 3]}"#,
            json!({}),
        ),
        // A list's filters given at the top: in `filters`, not dropped (a
        // list of every task would answer in their place).
        (
            &["exec", "task", "list_tasks", "-"],
            r#"{"channel": "eng", "assignee": "@bob", "labels": ["bug"]}"#,
            json!({"channel": "eng", "filters": {"assignee": "@bob", "labels": ["bug"]}}),
        ),
        (
            &["exec", "task", "search", "-"],
            r#"{"channel": "eng", "text": "login"}"#,
            json!({"channel": "eng", "query": "login"}),
        ),
        // A filter by another name, one value for a list of them.
        (
            &["exec", "task", "ls", "-"],
            r#"{"channel": "eng", "label": "security", "mine": true}"#,
            json!({"channel": "eng", "filters": {"labels": ["security"], "assigned_to_me": true}}),
        ),
        // A column is a status, its value as the board writes it.
        (
            &["exec", "task", "move", "-"],
            r#"{"channel": "eng", "number": 8, "column": "Done"}"#,
            json!({"channel": "eng", "number": 8, "status": "done"}),
        ),
    ] {
        let run = cli.run(route, Some(input));
        assert_eq!(run.code, 2, "{route:?}");
        let suggested = run.json()["error"]["suggested_action"].clone();
        assert_eq!(suggested["arguments"], arguments, "{route:?} {input}");
    }
    // Nor is the route's reading then said as what to pass: a release
    // would be made a claim.
    let run = cli.run(
        &["exec", "task", "claim", "-"],
        Some(r#"{"channel": "eng", "numbers": [2], "claimed": false}"#),
    );
    let said = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(!said.contains("pass `\"claimed\": true`"), "{said}");
    assert!(said.contains("keeping `\"claimed\": false`"), "{said}");
    let said = |input: &str| {
        let run = cli.run(&["exec", "task", "close", "-"], Some(input));
        run.json()["error"]["message"].as_str().unwrap().to_string()
    };
    let reason = said(r#"{"channel": "eng", "number": 2, "reason": "duplicate of 3"}"#);
    assert!(
        reason.contains("`reason` is no field of task_update: it is task_checkpoint's `summary`"),
        "{reason}"
    );
    let several = said(r#"{"channel": "eng", "numbers": [2, 3], "reason": "obsolete"}"#);
    assert!(
        several.contains(
            "task_update takes one `number`: for several, one input per line with `--batch`"
        ),
        "{several}"
    );
    assert!(
        several.contains("`reason` is no field of task_update"),
        "{several}"
    );
    // A route merely like `delete` is not taken for it; a slip of it is,
    // with nothing filled in.
    let complete = cli.run(&["exec", "task", "complete", "-"], Some("{}"));
    let said = complete.json()["error"].clone();
    assert_eq!(said["suggested_action"]["tool"], "task_update", "{said}");
    assert!(
        !said["message"].as_str().unwrap().contains("task delete"),
        "{said}"
    );
    for slip in ["delte", "deleet"] {
        let run = cli.run(
            &["exec", "task", slip, "-"],
            Some(r#"{"channel": "eng", "number": 2}"#),
        );
        let said = run.json()["error"].clone();
        assert_eq!(said["suggested_action"]["tool"], "task_delete", "{said}");
        assert_eq!(said["suggested_action"]["arguments"], json!({}), "{said}");
    }
    // A field flag that says otherwise than the input: not guessed either.
    let run = cli.run(
        &["exec", "task", "update", "--number", "9", "-"],
        Some(r#"{"channel": "eng", "number": 3, "status": "done"}"#),
    );
    assert_eq!(
        run.json()["error"]["suggested_action"]["arguments"],
        json!({})
    );
}

/// Output flags other CLIs have are answered with this one's rule, and the
/// command without them.
#[test]
fn an_output_flag_of_another_cli_is_told_stdout_is_json() {
    let cli = Cli::new();
    for flags in [
        &["--output", "json"][..],
        &["--json"],
        &["-o", "json"],
        &["--output=json"],
        &["-ojson"],
        &["--output", "text"],
    ] {
        let mut args = vec!["exec", "task", "list"];
        args.extend_from_slice(flags);
        args.push("-");
        let run = cli.run(&args, Some(r#"{"channel": "eng"}"#));
        assert_eq!(run.code, 2, "{run:?}");
        let message = run.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(
            message.contains("stdout is JSON")
                && message.ends_with("drop it: `agentteam exec task list -`."),
            "{message}"
        );
        assert!(!message.contains("--output-schema"), "{message}");
    }
    // `gh`'s `--json` takes the fields to show: dropped with it, but an
    // input file's path after it is kept.
    let path = cli.home.path().join("in.json");
    std::fs::write(&path, r#"{"channel": "eng"}"#).unwrap();
    let path = path.to_str().unwrap();
    for (args, meant) in [
        (
            &["exec", "task", "list", "--json", "number,title", "-"][..],
            "agentteam exec task list -".to_string(),
        ),
        (
            &["exec", "task", "list", "--json", path],
            format!("agentteam exec task list {path}"),
        ),
    ] {
        let run = cli.run(args, Some(r#"{"channel": "eng"}"#));
        let message = run.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(
            message.ends_with(&format!("drop it: `{meant}`.")),
            "{message}"
        );
    }
}

/// A wrong route's usage error does not wait on a stdin that never ends
/// (a harness that leaves its pipe open): it answers within its short wait.
#[test]
fn a_wrong_route_does_not_wait_on_an_open_stdin() {
    let cli = Cli::new();
    let mut child = cli
        .command(&["exec", "task", "claim", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _open = child.stdin.take();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("still waiting on stdin after 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(2));
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    assert!(out.contains("\"usage_error\""), "{out}");
}

#[test]
fn clap_tips_reach_the_json_error() {
    let run = Cli::new().run(&["exec", "task", "list", "--pagnate"], None);
    assert_eq!(run.error_code(), "usage_error");
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("'--paginate'"), "{message}");
}

#[test]
fn unknown_fields_and_a_hashed_channel_get_a_fix_from_both_ends() {
    let runtime = Runtime::start();
    let (cli, agent) = member(&runtime);
    let input =
        json!({"channel": "#eng", "tasks": [{"title": "a", "assigne": "@alice", "tags": ["x"]}]});
    let expected = json!({
        "channel": "Drop the leading `#`: the name is written without it.",
        "tasks/0/assigne": "Unknown field; did you mean `assignee`?",
        "tasks/0/tags": "Unknown field; use `labels`.",
    });
    let run = cli.exec("task", "create", &input.to_string(), &[]);
    assert_eq!(run.error_code(), "invalid_input", "{run:?}");
    assert_eq!(run.json()["error"]["field_errors"], expected);
    // The names meant are candidates too, the proposed one first.
    let candidates = run.json()["error"]["candidates"].clone();
    let first_for = |field: &str| {
        candidates
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["field"] == field)
            .map(|c| c["value"].clone())
    };
    assert_eq!(
        first_for("tasks/0/assigne"),
        Some(json!("assignee")),
        "{candidates}"
    );
    assert_eq!(
        first_for("tasks/0/tags"),
        Some(json!("labels")),
        "{candidates}"
    );
    assert_eq!(first_for("channel"), None, "{candidates}");
    // The runtime validates the same way for any client.
    let reply = runtime.post(&agent, "/tasks", &input);
    assert_eq!(reply.json()["error"]["fieldErrors"], expected, "{reply:?}");
    // The retry built from those messages succeeds.
    let fixed =
        json!({"channel": "eng", "tasks": [{"title": "a", "assignee": "@alice", "labels": ["x"]}]});
    assert_eq!(cli.exec("task", "create", &fixed.to_string(), &[]).code, 0);
}

#[test]
fn login_refuses_a_json_document_and_a_refused_token_names_the_fix() {
    let runtime = Runtime::start();
    let workspace = runtime.workspace("acme");
    runtime.channel(&workspace, "eng");
    let agent = runtime.agent(&workspace, "alice");
    let cli = Cli::new();
    let login = |token: &str| {
        cli.run(
            &[
                "--profile",
                "work",
                "auth",
                "login",
                "--api-url",
                &runtime.base_url(),
                "--workspace",
                &agent.workspace_id,
                "--agent",
                &agent.agent_id,
                "--token-stdin",
            ],
            Some(token),
        )
    };
    // What `agentteam-runtime token issue` prints, piped as it is.
    let document = json!({"token": agent.token}).to_string();
    let run = login(&document);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (2, "usage_error"),
        "{run:?}"
    );
    assert!(run.stdout.contains("jq -r .token"), "{run:?}");
    assert!(!run.stdout.contains(&agent.token) && !run.stderr.contains(&agent.token));
    assert!(!cli.store_text().contains("work"), "nothing was saved");
    for bad in ["two words", "a{b}"] {
        assert_eq!(login(bad).error_code(), "usage_error", "{bad}");
    }
    // A well-shaped token the server does not know: the 401 says which
    // profile and how to log in again.
    assert_eq!(login("at_not_a_real_token").code, 0);
    let run = cli.run(
        &["--profile", "work", "exec", "task", "list", "-"],
        Some(r#"{"channel":"eng"}"#),
    );
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (3, "unauthorized"),
        "{run:?}"
    );
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("profile `work`"), "{message}");
    let fix = "printf %s \"$TOKEN\" | agentteam --profile work auth login --token-stdin`";
    assert!(message.contains(fix), "{message}");
    // Hidden context and the transport stay out of every message (§8.2).
    for hidden in [
        "at_not_a_real_token",
        &agent.workspace_id,
        &agent.agent_id,
        &runtime.base_url(),
    ] {
        assert!(!run.stdout.contains(hidden), "{hidden} in {run:?}");
        assert!(!run.stderr.contains(hidden), "{hidden} in {run:?}");
    }
    // The login it names, run as named, mends the profile: it keeps the
    // profile's API URL, workspace and agent.
    let relogin = cli.run(
        &["--profile", "work", "auth", "login", "--token-stdin"],
        Some(&agent.token),
    );
    assert_eq!(relogin.code, 0, "{relogin:?}");
    let run = cli.run(
        &["--profile", "work", "exec", "task", "list", "-"],
        Some(r#"{"channel":"eng"}"#),
    );
    assert_eq!(run.code, 0, "{run:?}");
    // A capped profile's hint keeps its cap.
    let capped = cli.run(
        &[
            "--profile",
            "work",
            "auth",
            "login",
            "--token-stdin",
            "--max-permission",
            "read_only",
        ],
        Some("at_not_a_real_token"),
    );
    assert_eq!(capped.code, 0, "{capped:?}");
    let run = cli.run(
        &["--profile", "work", "exec", "task", "list", "-"],
        Some(r#"{"channel":"eng"}"#),
    );
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(
        message.contains("auth login --token-stdin --max-permission read_only`"),
        "{message}"
    );
    // A new profile still needs its place, and is refused before anything
    // is written.
    let before = cli.store_text();
    let run = cli.run(
        &[
            "--profile",
            "fresh",
            "auth",
            "login",
            "--token-stdin",
            "--agent",
            "a",
        ],
        Some(&agent.token),
    );
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (2, "usage_error"),
        "{run:?}"
    );
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(
        message.contains("Profile `fresh` is new, so it needs --api-url, --workspace;"),
        "{message}"
    );
    assert_eq!(cli.store_text(), before);
}

#[test]
fn first_hour_errors_name_the_way_out() {
    let cli = Cli::new();
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(run.error_code(), "credentials_missing", "{run:?}");
    assert!(
        run.stdout.contains("agentteam-runtime quickstart"),
        "{run:?}"
    );

    // Nothing listens on the discard port.
    cli.login("http://127.0.0.1:9", "t", None);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &["--retries", "0"]);
    assert_eq!(run.error_code(), "network_error", "{run:?}");
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("`agentteam-runtime serve`"), "{message}");
    // The profile in use, which `auth status` alone would not show.
    assert!(
        message.contains("`agentteam --profile default auth status`"),
        "{message}"
    );
    // The URL is a transport detail: on stderr with -v, never in a message.
    assert!(!run.stdout.contains("127.0.0.1:9"), "{run:?}");
    assert!(!run.stderr.contains("127.0.0.1:9"), "{run:?}");
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng"}"#,
        &["--retries", "0", "-v"],
    );
    assert!(run.stderr.contains("> GET http://127.0.0.1:9/"), "{run:?}");

    // A bad second line of a batch is reported as line 2.
    let run = cli.exec(
        "task",
        "list",
        "{\"channel\":\"eng\"}\n{\"channel\":\n",
        &["--batch", "--retries", "0"],
    );
    let second: Value = serde_json::from_str(run.stdout.lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["error"]["details"]["line"], 2, "{run:?}");
    assert_eq!(second["error"]["code"], "invalid_json");
    let message = second["error"]["message"].as_str().unwrap();
    assert!(message.contains("(line 2, column"), "{message}");
}

#[test]
fn an_action_flag_before_the_route_is_told_where_it_goes() {
    let cli = Cli::new();
    // A synonym's input is recast as its own route's would be.
    let run = cli.run(
        &["--dry-run", "exec", "task", "close", "-"],
        Some(r#"{"channel": "eng", "number": 1}"#),
    );
    assert_eq!(
        run.json()["error"]["suggested_action"]["arguments"],
        json!({"channel": "eng", "number": 1, "status": "done"})
    );
    for args in [
        &["--dry-run", "exec", "task", "list", "-"][..],
        &["exec", "--dry-run", "task", "list", "-"],
    ] {
        let run = cli.run(args, None);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "usage_error"),
            "{args:?}"
        );
        let error = run.json()["error"].clone();
        let command = "agentteam exec task list --dry-run -";
        assert_eq!(error["suggested_action"]["command"], command, "{error}");
        assert!(
            error["message"].as_str().unwrap().contains(command),
            "{error}"
        );
    }
    // A flag's value moves with it, and the other flags stay: the command
    // given parses as written.
    for (args, command) in [
        (
            &["--concurrency", "4", "exec", "task", "list", "--batch", "-"][..],
            "agentteam exec task list --concurrency 4 --batch -",
        ),
        (
            &[
                "--timeout",
                "5",
                "--max-items=3",
                "exec",
                "task",
                "list",
                "--paginate",
                "-",
            ],
            "agentteam --timeout 5 exec task list --max-items=3 --paginate -",
        ),
        // A route by another word: the command names the action's own.
        (
            &["--dry-run", "exec", "task", "close", "-"],
            "agentteam exec task update --dry-run -",
        ),
        (
            &["--dry-run", "exec", "task_get", "-"],
            "agentteam exec task get --dry-run -",
        ),
    ] {
        let run = cli.run(args, Some(""));
        assert_eq!(run.error_code(), "usage_error", "{args:?}: {run:?}");
        let error = run.json()["error"].clone();
        assert_eq!(error["suggested_action"]["command"], command, "{error}");
        let words: Vec<&str> = command.split(' ').skip(1).collect();
        let again = cli.run(&words, Some(""));
        assert!(
            !again.stdout.contains("usage_error"),
            "{command}: {again:?}"
        );
    }
}

/// Runs the suggested action of a failed run as the document gives it.
fn run_suggestion(cli: &Cli, failed: &Run) -> Run {
    let suggestion = failed.json()["error"]["suggested_action"].clone();
    assert!(suggestion.is_object(), "{failed:?}");
    run_command(cli, &suggestion["command"], &suggestion["arguments"])
}

#[test]
fn lookup_failures_name_candidates_and_a_command_that_runs() {
    let runtime = Runtime::start();
    let (cli, agent) = member(&runtime);
    runtime.channel(&agent.workspace_id, "ops");
    runtime.agent(&agent.workspace_id, "bob");
    let exec = |verb: &str, input: Value| cli.exec("task", verb, &input.to_string(), &[]);
    assert_eq!(
        exec(
            "create",
            json!({"channel": "eng", "tasks": [{"title": "one"}]})
        )
        .code,
        0
    );

    // An unknown board: the boards this agent may use, and a list of the nearest.
    let failed = exec("list", json!({"channel": "egn"}));
    assert_eq!(failed.error_code(), "channel_not_found", "{failed:?}");
    assert_eq!(
        failed.json()["error"]["candidates"],
        json!([{"field": "channel", "value": "eng"}, {"field": "channel", "value": "ops"}])
    );
    let run = run_suggestion(&cli, &failed);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["data"]["items"][0]["title"], "one");
    // The text view names them on stderr.
    let text = cli.exec(
        "task",
        "list",
        r#"{"channel": "egn"}"#,
        &["--format", "text"],
    );
    assert!(
        text.stderr.contains("channel candidates: eng, ops"),
        "{}",
        text.stderr
    );

    // A mistyped member: the same create with the member meant.
    let failed = exec(
        "create",
        json!({"channel": "eng", "tasks": [{"title": "two", "assignee": "@alicee"}]}),
    );
    assert_eq!(failed.error_code(), "assignee_not_found", "{failed:?}");
    assert_eq!(failed.json()["error"]["candidates"][0]["value"], "@alice");
    let run = run_suggestion(&cli, &failed);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["data"]["tasks"][0]["assignee"], "@alice");

    // An unknown parent: the nearest live numbers, and the list to find it in.
    let failed = exec(
        "create",
        json!({"channel": "eng", "parent": 7, "tasks": [{"title": "x"}]}),
    );
    assert_eq!(failed.error_code(), "parent_not_found", "{failed:?}");
    assert_eq!(
        failed.json()["error"]["candidates"][0],
        json!({"field": "parent", "value": 2, "title": "two"})
    );
    let run = run_suggestion(&cli, &failed);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["data"]["items"].as_array().unwrap().len(), 2);
}

#[test]
fn a_cut_section_of_task_get_names_the_call_that_reads_the_rest() {
    let runtime = Runtime::start();
    let (cli, _) = member(&runtime);
    let exec = |verb: &str, input: &Value, flags: &[&str]| {
        let run = cli.exec("task", verb, &input.to_string(), flags);
        assert_eq!(run.code, 0, "{verb} {input}: {run:?}");
        run
    };
    exec(
        "create",
        &json!({"channel": "eng", "tasks": [{"title": "parent"}]}),
        &[],
    );
    let kids: Vec<Value> = (0..21).map(|i| json!({"title": format!("k{i}")})).collect();
    exec(
        "create",
        &json!({"channel": "eng", "parent": 1, "tasks": kids}),
        &[],
    );
    for i in 0..6 {
        exec(
            "checkpoint",
            &json!({"channel": "eng", "number": 1, "summary": format!("cp {i}")}),
            &[],
        );
    }
    let got = exec("get", &json!({"channel": "eng", "number": 1}), &[]).json()["data"].clone();
    // Each `next` runs as given, through the route its tool names.
    let follow = |next: &Value| {
        let tool = next["tool"].as_str().unwrap();
        let verb = tool.strip_prefix("task_").unwrap();
        exec(verb, &next["arguments"], &[]).json()["data"].clone()
    };
    let rest = follow(&got["subtasks"]["next"]);
    assert_eq!(rest["items"].as_array().unwrap().len(), 1, "{rest}");
    assert_eq!(rest["items"][0]["number"], 22);
    let older = follow(&got["checkpoints"]["next"]);
    assert_eq!(
        older["checkpoints"]["items"][0]["summary"], "cp 0",
        "{older}"
    );
    assert_eq!(older["checkpoints"]["next"], Value::Null);
    // The text view prints the command.
    let text = exec(
        "get",
        &json!({"channel": "eng", "number": 1}),
        &["--format", "text"],
    )
    .stdout;
    assert!(text.contains("more: echo '"), "{text}");
    assert!(text.contains("| agentteam exec task list -"), "{text}");
}

/// A command line clap refuses is printed in the format asked for, as any
/// other error is: with `--format text`, the message and the command that
/// runs on stderr, nothing on stdout.
#[test]
fn a_refused_command_line_follows_format_text() {
    let cli = Cli::new();
    let run = cli.run(
        &["--format", "text", "exec", "task", "lsit", "-"],
        Some(r#"{"channel": "eng"}"#),
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stdout, "", "{run:?}");
    assert!(
        run.stderr
            .starts_with("error: usage_error: unrecognized subcommand 'lsit'"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("The route is `agentteam exec task list -`"),
        "{}",
        run.stderr
    );
    // Piped and not asked for text: the JSON document, as before.
    let run = cli.run(
        &["exec", "task", "lsit", "-"],
        Some(r#"{"channel": "eng"}"#),
    );
    assert_eq!(run.error_code(), "usage_error");
}

/// Input that is valid for one other action of the domain, sent to this
/// one, names that action and suggests the same input there, which runs;
/// never a destructive one, and never for input whose every field this
/// action has (an update that changes nothing is no get).
#[test]
fn input_for_another_action_names_it() {
    let runtime = Runtime::start();
    let (cli, _) = member(&runtime);
    let created = cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"t"}]}"#,
        &[],
    );
    assert_eq!(created.code, 0, "{created:?}");
    for (verb, input, meant) in [
        (
            "update",
            json!({"channel": "eng", "numbers": [1], "claimed": true}),
            "task_set_claim",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "summary": "started"}),
            "task_checkpoint",
        ),
        ("list", json!({"channel": "eng", "number": 1}), "task_get"),
    ] {
        let run = cli.exec("task", verb, &input.to_string(), &[]);
        assert_eq!(run.error_code(), "invalid_input", "{run:?}");
        let error = run.json()["error"].clone();
        assert_eq!(error["suggested_action"]["tool"], meant, "{error}");
        assert_eq!(error["suggested_action"]["arguments"], input, "{error}");
        let retry = run_command(&cli, &error["suggested_action"]["command"], &input);
        assert_eq!(retry.code, 0, "{retry:?}");
    }
    for (verb, input) in [
        // Every field is the update's own: what is missing is a change.
        ("update", json!({"channel": "eng", "number": 1})),
        // Valid for a delete only: never suggested.
        (
            "update",
            json!({"channel": "eng", "number": 1, "subtask_mode": "delete"}),
        ),
        // Never a riskier call than the one meant (the regression hunt's):
        // a read is no change, and a create or a checkpoint no overwrite
        // of an existing task.
        (
            "list",
            json!({"channel": "eng", "number": 1, "labels": ["bug"]}),
        ),
        (
            "get",
            json!({"channel": "eng", "number": 1, "status": "done"}),
        ),
        (
            "list",
            json!({"channel": "eng", "numbers": [1], "claimed": true}),
        ),
        (
            "create",
            json!({"channel": "eng", "number": 1, "title": "x"}),
        ),
        (
            "checkpoint",
            json!({"channel": "eng", "number": 1, "description": "hi"}),
        ),
    ] {
        let run = cli.exec("task", verb, &input.to_string(), &[]);
        assert!(
            run.json()["error"].get("suggested_action").is_none(),
            "{run:?}"
        );
    }
}

/// Another CLI's input flag (`--input '{…}'`) is told where an action's
/// input goes, with the JSON it carried as the suggestion's arguments; a
/// route written as one word with a dash, or with its domain twice, is the
/// route meant.
#[test]
fn an_input_flag_or_a_dashed_route_is_told_the_route_that_runs() {
    let cli = Cli::new();
    // Any flag given a JSON object is one (`--json`, which `gh` reads as
    // an output flag, and `-j` too), and so is JSON written as a word
    // beside `-`.
    for args in [
        &["exec", "task", "list", "--input", r#"{"channel": "eng"}"#][..],
        &["exec", "task", "list", r#"--data={"channel": "eng"}"#],
        &["exec", "task", "list", "--args", r#"{"channel": "eng"}"#],
        &["exec", "task", "list", "--json", r#"{"channel": "eng"}"#],
        &["exec", "task", "list", "-j", r#"{"channel": "eng"}"#],
        &["exec", "task", "list", r#"{"channel": "eng"}"#, "-"],
    ] {
        let run = cli.run(args, None);
        assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
        let error = run.json()["error"].clone();
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("is no flag here")
                || message.contains("JSON is not read as a word of the command line"),
            "{error}"
        );
        assert!(
            message.contains("an action's input is its last word"),
            "{error}"
        );
        assert!(
            !error["message"]
                .as_str()
                .unwrap()
                .contains("--input-schema")
        );
        assert_eq!(
            error["suggested_action"]["arguments"],
            json!({"channel": "eng"})
        );
        assert_eq!(
            error["suggested_action"]["command"],
            "agentteam exec task list -"
        );
    }
    // Never a filled-in delete.
    let run = cli.run(
        &[
            "exec",
            "task",
            "delete",
            "--input",
            r#"{"channel": "eng", "number": 1}"#,
        ],
        None,
    );
    assert_eq!(
        run.json()["error"]["suggested_action"]["arguments"],
        json!({})
    );
    for (args, tool) in [
        (&["exec", "task-list", "-"][..], "task_list"),
        (&["exec", "task", "task-update", "-"], "task_update"),
        (&["exec", "task", "task.get", "-"], "task_get"),
    ] {
        let run = cli.run(args, Some(r#"{"channel": "eng", "number": 1}"#));
        let error = run.json()["error"].clone();
        assert_eq!(error["suggested_action"]["tool"], tool, "{args:?}: {error}");
    }
}

/// A flag this CLI has under another name (`--schema`) or in another place
/// (`--catalog` after a route) is told the one it has, and where.
#[test]
fn a_flag_named_or_placed_otherwise_is_told_the_one_there_is() {
    let cli = Cli::new();
    for (args, said) in [
        (
            &["exec", "task", "list", "--schema"][..],
            "`--input-schema` and `--output-schema`",
        ),
        (&["exec", "task", "--catalog"], "`agentteam exec --catalog`"),
        (
            &["exec", "task", "get", "--catalog"],
            "`agentteam exec --catalog`",
        ),
        (
            &["exec", "task", "get", "--error-schema"],
            "`agentteam exec --error-schema`",
        ),
    ] {
        let run = cli.run(args, None);
        assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
        let message = run.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(message.contains(said), "{args:?}: {message}");
        assert!(!message.contains("similar argument"), "{message}");
    }
    // What it points to runs.
    assert_eq!(cli.run(&["exec", "--catalog"], None).code, 0);
    assert_eq!(cli.run(&["exec", "--error-schema"], None).code, 0);
}

/// A wrong route given its input as a file's path is recast from the file,
/// as from stdin; never for a delete.
#[test]
fn a_wrong_routes_input_file_is_recast_as_stdin_is() {
    let cli = Cli::new();
    let path = cli.home.path().join("get1.json");
    std::fs::write(&path, r#"{"channel": "eng", "number": 2}"#).unwrap();
    let path = path.to_str().unwrap();
    for (verb, arguments) in [
        (
            "claim",
            json!({"channel": "eng", "numbers": [2], "claimed": true}),
        ),
        (
            "complete",
            json!({"channel": "eng", "number": 2, "status": "done"}),
        ),
        ("remove", json!({})),
    ] {
        let run = cli.run(&["exec", "task", verb, path], None);
        assert_eq!(run.error_code(), "usage_error", "{run:?}");
        assert_eq!(
            run.json()["error"]["suggested_action"]["arguments"],
            arguments,
            "{verb}"
        );
    }
}

/// Input cut inside a string, as a shell apostrophe cuts single-quoted
/// JSON (`echo '{"title":"Don't…'`), is told why, in one clause.
#[test]
fn input_cut_inside_a_string_names_the_shell_apostrophe() {
    let cli = Cli::new();
    let run = cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"Don"#,
        &[],
    );
    assert_eq!((run.code, run.error_code().as_str()), (2, "invalid_json"));
    assert_eq!(
        run.json()["error"]["message"],
        "The input is not valid JSON (line 1, column 39): EOF while parsing a string; an apostrophe inside shell single quotes ends them: write the input to a file or use a heredoc."
    );
    for (input, ending) in [
        // As `echo` or a heredoc cuts it: its line's end inside the string.
        (
            "{\"channel\":\"eng\",\"tasks\":[{\"title\":\"Don\n",
            "an apostrophe inside shell single quotes ends them: write the input to a file or use a heredoc.",
        ),
        // A path's backslash read as an escape.
        (
            r#"{"channel":"eng","tasks":[{"title":"Move to D:\data"}]}"#,
            "invalid escape; a backslash is written `\\\\` in JSON (`C:\\\\data`).",
        ),
    ] {
        let run = cli.exec("task", "create", input, &[]);
        assert_eq!(run.code, 2, "{run:?}");
        let message = run.json()["error"]["message"].clone();
        assert!(message.as_str().unwrap().ends_with(ending), "{message}");
    }
}

/// A task or a board written as words where the input goes (`get 2`, `get
/// eng#1`, `get eng 1`, `list eng`), which name no file: still a usage
/// error, saying the input is one JSON object, with the call those words
/// mean; whole, it is the suggestion, and it runs.
#[test]
fn words_where_the_input_goes_are_told_the_input_they_mean() {
    let runtime = Runtime::start();
    let cli = member_with_one_task(&runtime);
    for (args, file, arguments) in [
        (
            &["get", "eng#1"][..],
            true,
            json!({"channel": "eng", "number": 1}),
        ),
        (
            &["get", "eng", "1"],
            false,
            json!({"channel": "eng", "number": 1}),
        ),
        (
            &["get", "eng", "1", "-"],
            false,
            json!({"channel": "eng", "number": 1}),
        ),
        (&["list", "eng"], true, json!({"channel": "eng"})),
    ] {
        let run = cli.run(&[&["exec", "task"][..], args].concat(), None);
        assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
        let error = run.json()["error"].clone();
        let message = error["message"].as_str().unwrap();
        assert_eq!(
            message.starts_with("Cannot open input file"),
            file,
            "{args:?}: {message}"
        );
        assert!(
            message.contains("The input is one JSON object, on stdin (`-`) or in a file"),
            "{args:?}: {message}"
        );
        let suggestion = &error["suggested_action"];
        assert_eq!(suggestion["arguments"], arguments, "{args:?}: {error}");
        let run = run_command(&cli, &suggestion["command"], &suggestion["arguments"]);
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
    }
    // A number alone, or with a `#`: the board is still to be given, so
    // nothing is filled in, and the message shows what is missing.
    for word in ["1", "#1"] {
        let run = cli.run(&["exec", "task", "get", word], None);
        assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
        let error = run.json()["error"].clone();
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains(r#"`echo '{"channel": …, "number": 1}' | agentteam exec task get -`"#),
            "{error}"
        );
        // No call with `{}` for what is missing: it would be refused.
        assert!(error.get("suggested_action").is_none(), "{error}");
    }
    // Never a filled-in delete: its message shows the input, and no call.
    let run = cli.run(&["exec", "task", "delete", "eng#1"], None);
    assert!(
        run.json()["error"].get("suggested_action").is_none(),
        "{run:?}"
    );
    // A path that names no file and reads as no input is told only that.
    let run = cli.run(&["exec", "task", "get", "missing.json"], None);
    let error = run.json()["error"].clone();
    assert!(error.get("suggested_action").is_none(), "{error}");
}

/// `-f PATH`, as kubectl and docker take a file, is told as `--input PATH`
/// is: the path is the last word, and the file's input is the suggestion.
#[test]
fn a_file_given_to_f_is_told_the_path_goes_last() {
    let runtime = Runtime::start();
    let cli = member_with_one_task(&runtime);
    let path = cli.home.path().join("in.json");
    std::fs::write(&path, r#"{"channel": "eng", "number": 1}"#).unwrap();
    let path = path.to_str().unwrap();
    for flag in ["-f", "--input"] {
        let run = cli.run(&["exec", "task", "get", flag, path], None);
        assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
        let error = run.json()["error"].clone();
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(&format!(
                "`{flag}` is no flag here: an action's input is its last word"
            )) && message.contains(&format!("`agentteam exec task get {path}`")),
            "{message}"
        );
        let suggestion = &error["suggested_action"];
        let run = run_command(&cli, &suggestion["command"], &suggestion["arguments"]);
        assert_eq!(run.code, 0, "{flag}: {run:?}");
        assert_eq!(run.json()["data"]["title"], "Fix login");
    }
}

/// `--batch --dry-run` checks every line and sends none: each line's
/// result is its dry run, in the batch's shape, and the exit status is
/// the worst line's.
#[test]
fn a_batch_dry_run_checks_every_line_and_sends_none() {
    let runtime = Runtime::start();
    let (cli, _) = member(&runtime);
    let lines =
        "{\"channel\":\"eng\",\"tasks\":[{\"title\":\"a\"}]}\n{\"channel\":\"eng\",\"tasks\":[]}\n";
    let path = cli.home.path().join("batch.jsonl");
    std::fs::write(&path, lines).unwrap();
    let path = path.to_str().unwrap();
    for (args, stdin) in [
        (
            &["exec", "task", "create", "--batch", path, "--dry-run"][..],
            None,
        ),
        (
            &["exec", "task", "create", "-", "--batch", "--dry-run"],
            Some(lines),
        ),
    ] {
        let run = cli.run(args, stdin);
        assert_eq!(run.code, 2, "{run:?}");
        let results: Vec<Value> = run
            .stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(results.len(), 2, "{run:?}");
        assert_eq!(results[0]["data"]["dry_run"], true, "{run:?}");
        assert_eq!(results[0]["data"]["body"]["tasks"][0]["title"], "a");
        assert_eq!(results[0]["meta"]["line"], 1);
        assert_eq!(results[1]["error"]["code"], "invalid_input");
        assert_eq!(results[1]["error"]["details"]["line"], 2);
    }
    let listed = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(listed.json()["data"]["items"], json!([]), "{listed:?}");
}
