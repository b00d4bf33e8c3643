//! The real `agentteam` binary against a recording server on 127.0.0.1:0:
//! the exact wire request of every route, and every way a call can fail.

use std::time::Duration;

use agentteam::case;
use agentteam::registry::{ACTIONS, Method};
use serde_json::{Value, json};

use crate::support::cli::{Cli, Run};
use crate::support::closed_port::ClosedPort;
use crate::support::recorder::{Recorder, Reply};

const TOKEN: &str = "at_test_secret_token_value";

fn ok_body() -> Reply {
    Reply::json(200, json!({"items": [], "nextCursor": "c2"}))
}

fn setup(replies: Vec<Reply>) -> (Cli, Recorder) {
    Recorder::start(replies).logged_in(TOKEN)
}

#[test]
fn every_route_sends_its_exact_wire_request() {
    for action in ACTIONS {
        let (cli, server) = setup(vec![ok_body()]);
        let example = action.examples.last().unwrap().input;
        let input: Value = serde_json::from_str(example).unwrap();
        let run = cli.exec(action.domain, action.verb, example, &[]);
        assert_eq!(run.code, 0, "{}: {run:?}", action.name());
        let requests = server.requests();
        assert_eq!(requests.len(), 1, "{}", action.name());
        let r = &requests[0];
        assert_eq!(r.method, action.method.as_str(), "{}", action.name());
        assert_eq!(
            r.path,
            action
                .route_template()
                .replace("{workspaceId}", "ws_test")
                .replace("{agentId}", "ag_test")
        );
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {TOKEN}").as_str())
        );
        let mut expected = case::to_wire(input.clone());
        if let Some(key) = expected.get_mut("idempotencyKey") {
            *key = json!(key.as_str().unwrap().trim());
        }
        match action.method {
            Method::Get => {
                assert!(r.body.is_empty());
                let sent: serde_json::Map<String, Value> = r
                    .query
                    .iter()
                    .map(|(k, v)| {
                        let typed = if expected[k].is_string() {
                            json!(v)
                        } else {
                            serde_json::from_str(v).unwrap()
                        };
                        (k.clone(), typed)
                    })
                    .collect();
                assert_eq!(Value::Object(sent), expected, "{}", action.name());
            }
            Method::Post => {
                assert_eq!(r.header("content-type"), Some("application/json"));
                assert_eq!(r.json(), expected, "{}", action.name());
            }
        }
        // The answer comes back normalised inside the envelope.
        let out = run.json();
        assert_eq!(out["meta"]["next_cursor"], "c2");
        assert_eq!(out["data"], json!({"items": []}));
    }
}

#[test]
fn list_parameters_travel_in_the_query_string_in_camel_case() {
    let (cli, server) = setup(vec![ok_body()]);
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng","include_subtasks":true,"limit":5,"filters":{"assigned_to_me":true}}"#,
        &[],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let q = &server.requests()[0].query;
    assert!(q.contains(&("channel".into(), "eng".into())));
    assert!(q.contains(&("includeSubtasks".into(), "true".into())));
    assert!(q.contains(&("limit".into(), "5".into())));
    assert!(q.contains(&("filters".into(), r#"{"assignedToMe":true}"#.into())));
}

#[test]
fn responses_are_normalised_to_snake_case() {
    let body = json!({"tasks": [{"number": 1, "scopeId": "tsk_1", "parentNumber": null, "createdBy": "@a"}], "reused": false});
    let (cli, _server) = setup(vec![Reply::json(200, body)]);
    let run = cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"x"}]}"#,
        &[],
    );
    assert_eq!(
        run.json(),
        json!({"data": {"tasks": [{"number": 1, "scope_id": "tsk_1", "parent_number": null, "created_by": "@a"}], "reused": false}, "meta": {}})
    );
}

#[test]
fn workflow_context_is_injected_only_with_an_idempotency_key() {
    let (mut cli, server) = setup(vec![ok_body()]);
    cli.env
        .push(("AGENTTEAM_WORKFLOW_RUN_ID".into(), "run_1".into()));
    cli.env
        .push(("AGENTTEAM_CALLBACK_EFFECT_ID".into(), "cbe_1".into()));
    cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"x"}]}"#,
        &[],
    );
    cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"x"}],"idempotency_key":" k1 "}"#,
        &[],
    );
    cli.exec(
        "task",
        "update",
        r#"{"channel":"eng","number":1,"title":"y"}"#,
        &[],
    );
    let r = server.requests();
    assert_eq!(
        r[0].json(),
        json!({"channel": "eng", "tasks": [{"title": "x"}]})
    );
    assert_eq!(
        r[1].json(),
        json!({"channel": "eng", "tasks": [{"title": "x"}], "idempotencyKey": "k1", "workflowRunId": "run_1", "callbackEffectId": "cbe_1"})
    );
    assert!(r[2].json().get("workflowRunId").is_none());
}

#[test]
fn bad_input_exits_2_and_sends_nothing() {
    let (cli, server) = Recorder::expecting_no_request().logged_in(TOKEN);
    let cases: &[(&str, &str, &str, &str)] = &[
        ("list", "", "invalid_json", ""),
        ("list", "{\"channel\":", "invalid_json", ""),
        ("list", "[1]", "invalid_json", ""),
        ("list", "{} {}", "invalid_json", ""),
        // A key given twice: which one was meant is not guessed.
        (
            "get",
            r#"{"channel":"secret","number":1,"channel":"eng"}"#,
            "invalid_json",
            "",
        ),
        (
            "list",
            r#"{"channel":"eng","bogus":1}"#,
            "invalid_input",
            "bogus",
        ),
        (
            "list",
            r#"{"channel":"eng","includeSubtasks":true}"#,
            "invalid_input",
            "includeSubtasks",
        ),
        (
            "list",
            r#"{"channel":"eng","workspace_id":"w"}"#,
            "invalid_input",
            "workspace_id",
        ),
        (
            "list",
            r#"{"channel":"eng","agent_id":"a"}"#,
            "invalid_input",
            "agent_id",
        ),
        (
            "list",
            r#"{"channel":"eng","token":"t"}"#,
            "invalid_input",
            "token",
        ),
        (
            "list",
            r#"{"channel":"eng","status":"all"}"#,
            "invalid_input",
            "status",
        ),
        (
            "list",
            r#"{"channel":"eng","sort":"relevance"}"#,
            "invalid_input",
            "sort",
        ),
        (
            "list",
            r#"{"channel":"eng","limit":101}"#,
            "invalid_input",
            "limit",
        ),
        ("list", r#"{}"#, "invalid_input", "channel"),
        (
            "get",
            r#"{"channel":"eng","number":0}"#,
            "invalid_input",
            "number",
        ),
        (
            "create",
            r#"{"tasks":[{"title":"a"}]}"#,
            "invalid_input",
            "channel",
        ),
        (
            "create",
            r#"{"channel":"eng","parent_task_scope":{"kind":"task","scope_id":"t"},"tasks":[{"title":"a"}]}"#,
            "invalid_input",
            "parent_task_scope",
        ),
        (
            "create",
            r#"{"channel":"eng","tasks":[{"title":"a"},{"title":"b","priority":"high"}]}"#,
            "invalid_input",
            "tasks/1/priority",
        ),
        (
            "create",
            r#"{"channel":"eng","tasks":[]}"#,
            "invalid_input",
            "tasks",
        ),
        (
            "create",
            r#"{"channel":"eng","parent":-1,"tasks":[{"title":"a"}]}"#,
            "invalid_input",
            "parent",
        ),
        (
            "create",
            r#"{"channel":"eng","tasks":[{"title":"a"}],"idempotency_key":"  "}"#,
            "invalid_input",
            "idempotency_key",
        ),
        (
            "create",
            r#"{"channel":"eng","tasks":[{"title":"a"}],"workflow_run_id":"r"}"#,
            "invalid_input",
            "workflow_run_id",
        ),
        (
            "create",
            r#"{"parent_task_scope":{"kind":"channel","scope_id":"x"},"tasks":[{"title":"a"}]}"#,
            "invalid_input",
            "parent_task_scope/kind",
        ),
        (
            "update",
            r#"{"channel":"eng","number":1}"#,
            "invalid_input",
            "",
        ),
        (
            "update",
            r#"{"channel":"eng","number":1,"title":null}"#,
            "invalid_input",
            "title",
        ),
        (
            "update",
            r#"{"channel":"eng","number":1,"status":"x","expected_updated_at":"yesterday"}"#,
            "invalid_input",
            "expected_updated_at",
        ),
        (
            "set_claim",
            r#"{"channel":"eng","numbers":[1,1],"claimed":true}"#,
            "invalid_input",
            "numbers",
        ),
        (
            "set_claim",
            r#"{"channel":"eng","numbers":[1]}"#,
            "invalid_input",
            "claimed",
        ),
        (
            "checkpoint",
            r#"{"channel":"eng","number":1,"summary":"   "}"#,
            "invalid_input",
            "summary",
        ),
        (
            "delete",
            r#"{"channel":"eng","number":1,"subtask_mode":"orphan"}"#,
            "invalid_input",
            "subtask_mode",
        ),
    ];
    for (verb, input, code, field) in cases {
        let run = cli.exec("task", verb, input, &[]);
        assert_eq!(run.code, 2, "{verb} {input}: {run:?}");
        assert_eq!(run.error_code(), *code, "{verb} {input}");
        if !field.is_empty() {
            assert!(
                run.json()["error"]["field_errors"].get(*field).is_some(),
                "{verb} {input}: {}",
                run.stdout
            );
        }
        assert!(
            run.stderr.starts_with("error: "),
            "{verb} {input}: {}",
            run.stderr
        );
    }
    assert_eq!(server.requests().len(), 0);
}

#[test]
fn oversized_input_is_refused_without_sending() {
    let (cli, server) = Recorder::expecting_no_request().logged_in(TOKEN);
    let huge = format!(
        r#"{{"channel":"eng","query":"{}"}}"#,
        "x".repeat(3 * 1024 * 1024)
    );
    let run = cli.exec("task", "list", &huge, &[]);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (2, "input_too_large")
    );
    // What makes it large is said with the size limit, by its field, so
    // one retry fixes both: the query, cut off where the read stopped.
    let said_of_the_query = |run: &Run| {
        let error = &run.json()["error"];
        assert_eq!(
            error["message"],
            "The input exceeds 1024 KiB: `query` is longer than its field allows; see field_errors.",
            "{}",
            run.stdout
        );
        let said = error["field_errors"]["query"].as_str().unwrap();
        assert!(
            said.starts_with("Must be at most ") && said.contains("; this one has at least "),
            "{said}"
        );
    };
    said_of_the_query(&run);
    let path = cli.home.path().join("big.json");
    std::fs::write(&path, &huge).unwrap();
    let run = cli.run(&["exec", "task", "list", path.to_str().unwrap()], None);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (2, "input_too_large")
    );
    said_of_the_query(&run);
    // Large for another reason (a list far over its bound, of short
    // titles): the size limit alone.
    let many = format!(
        r#"{{"channel":"eng","tasks":[{}]}}"#,
        vec![r#"{"title":"t"}"#; 100_000].join(",")
    );
    let run = cli.exec("task", "create", &many, &[]);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (2, "input_too_large")
    );
    assert_eq!(
        run.json()["error"]["message"],
        "The input exceeds 1024 KiB."
    );
    assert!(
        run.json()["error"].get("field_errors").is_none(),
        "{}",
        run.stdout
    );
    // Large only for its `\u` escapes (no string over a field's limit):
    // the refusal says so, with the way out.
    let escaped = format!(
        r#"{{"channel":"eng","tasks":[{{"title":"t","notes":"{}"}}]}}"#,
        r"\ud83d\ude00".repeat(100_000)
    );
    let run = cli.exec("task", "create", &escaped, &[]);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (2, "input_too_large")
    );
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(
        message.contains("escapes") && message.contains("as UTF-8 it may fit"),
        "{message}"
    );
    // An escaped backslash before a `u` is no `\u` escape: no such hint.
    let paths = format!(
        r#"{{"channel":"eng","tasks":[{{"title":"t","notes":"{}"}}]}}"#,
        r"C:\\users\\u".repeat(100_000)
    );
    let run = cli.exec("task", "create", &paths, &[]);
    assert_eq!(run.error_code(), "input_too_large");
    assert_eq!(
        run.json()["error"]["message"],
        "The input exceeds 1024 KiB."
    );
    // Objects opened and never closed, each with a string: the scan for
    // long strings followed every one of them (60,000 deep), building each
    // string's path anew, and ran for hours; it stops where no field can
    // be. The watchdog is a thousand times what the refusal takes.
    let deep = r#"{"channel":"demo","#.repeat(60_000);
    let limit = Some(std::time::Duration::from_secs(60));
    for flags in [&[][..], &["--dry-run"][..]] {
        let run = cli.exec_within("task", "list", &deep, flags, limit);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "input_too_large"),
            "{flags:?} {run:?}"
        );
    }
    assert!(server.requests().is_empty());
}

#[test]
fn input_can_come_from_a_file() {
    let (cli, server) = setup(vec![ok_body()]);
    let path = cli.home.path().join("in.json");
    std::fs::write(&path, r#"{"channel":"eng","number":3}"#).unwrap();
    let run = cli.run(&["exec", "task", "get", path.to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        server.requests()[0].json(),
        json!({"channel": "eng", "number": 3})
    );
    let run = cli.run(&["exec", "task", "get", "/nonexistent/in.json"], None);
    assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
}

#[test]
fn missing_credentials_exit_3_and_send_nothing() {
    let server = Recorder::expecting_no_request();
    let cli = Cli::new();
    let run = cli.exec("task", "get", r#"{"channel":"eng","number":1}"#, &[]);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (3, "credentials_missing")
    );
    let run = cli.exec(
        "task",
        "get",
        r#"{"channel":"eng","number":1}"#,
        &["--profile", "other"],
    );
    assert_eq!(run.code, 3);
    assert!(server.requests().is_empty());
}

/// `--credential-process` written as a JSON list of words is that argv,
/// spaces inside a word kept; a `[` that is no list of strings is refused,
/// and so is a JSON object.
#[test]
fn a_credential_process_given_as_a_json_list_runs_as_that_argv() {
    let server = Recorder::start(vec![ok_body()]);
    let cli = Cli::new();
    let argv = json!([
        "sh",
        "-c",
        "printf '{\"token\": \"%s\"}' \"$1$2\"",
        "sh",
        "at_from",
        "_argv"
    ]);
    let login = |process: &str| login_with_process(&cli, &server.url, process);
    assert_eq!(login(&argv.to_string()).code, 0);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer at_from_argv")
    );
    for bad in [
        "[1, 2]",
        "[]",
        "[\"\"]",
        "[\"sh\"",
        "[\"sh\", \"a\\u0000b\"]",
        // An exec-plugin config's object is no command line either, nor
        // the whole command quoted twice, one word with a space.
        "{\"command\": \"aws-vault\"}",
        "\"sh -c true\"",
    ] {
        let run = login(bad);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "usage_error"),
            "{bad}: {run:?}"
        );
    }
}

/// Logs the default profile in to `url` with a credential process only.
fn login_with_process(cli: &Cli, url: &str, process: &str) -> Run {
    let login = [
        "auth",
        "login",
        "--api-url",
        url,
        "--workspace",
        "ws",
        "--agent",
        "ag",
        "--credential-process",
        process,
    ];
    cli.run(&login, None)
}

/// A login that lands while the credential process runs (here the process
/// itself logs the profile in as another agent) keeps its own token: the
/// process's token is used for the call in flight, not stored over it.
#[test]
fn a_login_while_the_credential_process_runs_keeps_its_token() {
    let server = Recorder::start(vec![ok_body()]);
    let cli = Cli::new();
    let bin = env!("CARGO_BIN_EXE_agentteam");
    let process = cli.script(
        "cred.sh",
        &format!(
            r#"printf 'at_peer_token' | '{bin}' auth login --agent ag_peer --token-stdin >/dev/null
echo '{{"token": "at_old_agent"}}'"#
        ),
    );
    assert_eq!(login_with_process(&cli, &server.url, &process).code, 0);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let store: Value = serde_json::from_str(&cli.store_text()).unwrap();
    let profile = &store["profiles"]["default"];
    assert_eq!(
        (profile["agent_id"].as_str(), profile["token"].as_str()),
        (Some("ag_peer"), Some("at_peer_token")),
        "{profile}"
    );
}

/// A store that cannot be written when a refreshed token comes back (here
/// the process leaves the config directory writable by others, which the
/// store refuses) does not waste the token: the call is made with it, and
/// a warning says it was not saved.
#[test]
fn a_token_the_store_cannot_keep_is_used_with_a_warning() {
    let server = Recorder::start(vec![ok_body()]);
    let cli = Cli::new();
    let config = cli.config_dir().display().to_string();
    let process = cli.script(
        "cred.sh",
        &format!(
            r#"chmod 0777 '{config}'
echo '{{"token": "at_unsaved_token_1"}}'"#
        ),
    );
    assert_eq!(login_with_process(&cli, &server.url, &process).code, 0);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer at_unsaved_token_1")
    );
    assert!(
        run.stderr
            .contains("the new token of profile `default` was not saved")
            && run.stderr.contains("chmod 700"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("at_unsaved_token_1"), "{}", run.stderr);
    std::fs::set_permissions(
        cli.config_dir(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    assert!(!cli.store_text().contains("at_unsaved_token_1"));
}

#[test]
fn a_401_refreshes_once_and_replays_the_same_request() {
    let server = Recorder::start(vec![
        Reply::json(
            401,
            json!({"error": {"code": "unauthorized", "message": "expired", "retryable": false}}),
        ),
        ok_body(),
    ]);
    let cli = Cli::new();
    let process = cli.script(
        "cred.sh",
        r#"echo '{"token": "at_fresh_token", "expires_at": "2099-01-01T00:00:00Z"}'"#,
    );
    cli.login(&server.url, TOKEN, Some(&process));
    let run = cli.exec(
        "task",
        "update",
        r#"{"channel":"eng","number":1,"title":"t"}"#,
        &[],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let r = server.requests();
    assert_eq!(r.len(), 2);
    assert_eq!(
        r[0].header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert_eq!(r[1].header("authorization"), Some("Bearer at_fresh_token"));
    assert_eq!(r[0].body, r[1].body);
    assert!(
        cli.store_text().contains("at_fresh_token"),
        "the refreshed token is stored"
    );
}

#[test]
fn a_second_401_gives_up_with_exit_3() {
    let server = Recorder::start(vec![Reply::json(
        401,
        json!({"error": {"code": "unauthorized", "message": "no", "retryable": false}}),
    )]);
    let cli = Cli::new();
    let process = cli.script("cred.sh", r#"echo '{"token": "at_fresh_token"}'"#);
    cli.login(&server.url, TOKEN, Some(&process));
    let run = cli.exec("task", "get", r#"{"channel":"eng","number":1}"#, &[]);
    assert_eq!((run.code, run.error_code().as_str()), (3, "unauthorized"));
    assert_eq!(server.requests().len(), 2);
    // The token just issued was refused: the process is what to look at.
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(
        message.contains("check that the process issues tokens"),
        "{message}"
    );
    // Not a login with a token, which would leave the process unused.
    assert!(!message.contains("--token-stdin"), "{message}");
}

#[test]
fn a_401_without_credential_process_exits_3_at_once() {
    let (cli, server) = setup(vec![Reply::json(
        401,
        json!({"error": {"code": "unauthorized", "message": "no", "retryable": false}}),
    )]);
    let run = cli.exec("task", "get", r#"{"channel":"eng","number":1}"#, &[]);
    assert_eq!((run.code, run.error_code().as_str()), (3, "unauthorized"));
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn failing_credential_processes_exit_3() {
    for body in [
        "exit 7",
        "echo not json",
        "echo '{}'",
        "true",
        "sleep 30",
        // Malformed tokens: the process's fault, never a retryable network error.
        r#"printf '%s\n' '{"token": "at_two words"}'"#,
        r#"printf '%s\n' '{"token": "at_\u0007bell"}'"#,
        r#"printf '%s\n' '{"token": "at_caf\u00e9"}'"#,
        // An expiry the CLI could not read would never have it refreshed.
        r#"printf '%s\n' '{"token": "at_ok", "expires_at": "not a date"}'"#,
        r#"printf '%s\n' '{"token": "at_ok", "expires_at": "2026-13-01T00:00:00Z"}'"#,
        // Already expired: the server would refuse it, and every later
        // command would run the process again.
        r#"printf '%s\n' '{"token": "at_ok", "expires_at": "2020-01-01T00:00:00Z"}'"#,
    ] {
        let server = Recorder::expecting_no_request();
        let cli = Cli::new();
        let process = cli.script("cred.sh", body);
        let run = cli.run(
            &[
                "auth",
                "login",
                "--api-url",
                &server.url,
                "--workspace",
                "w",
                "--agent",
                "a",
                "--credential-process",
                &process,
            ],
            None,
        );
        assert_eq!(run.code, 0, "{run:?}");
        let run = cli.exec(
            "task",
            "get",
            r#"{"channel":"eng","number":1}"#,
            &["--timeout", "1"],
        );
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (3, "credential_process_failed"),
            "{body}"
        );
        assert!(run.elapsed < Duration::from_secs(10), "{body}");
        assert!(server.requests().is_empty());
    }
}

/// A 3xx is never followed: one request, exit 4, nothing sent to where it
/// points. Where that is stays out of the document (a transport detail) and
/// is shown, bounded, with -v.
#[test]
fn redirects_are_not_followed_and_name_their_location_with_v() {
    let elsewhere = Recorder::expecting_no_request();
    let target = format!("{}/api/v1/elsewhere", elsewhere.url);
    for status in [301, 302, 307, 308] {
        let (cli, server) = setup(vec![Reply::Full(
            status,
            vec![("location", target.clone())],
            Vec::new(),
        )]);
        let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (4, "request_rejected"),
            "{status}: {run:?}"
        );
        let error = &run.json()["error"];
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("HTTP {status}, a redirect")),
            "{message}"
        );
        // The login it names changes the profile that was used.
        assert!(
            message.contains("`agentteam --profile default auth login --api-url …`"),
            "{message}"
        );
        assert!(!run.stdout.contains(&elsewhere.url) && !run.stderr.contains(&elsewhere.url));
        assert_eq!(server.requests().len(), 1, "not retried");
        // `-vv`, as kubectl and ssh users stack it, is the one level.
        for verbose in ["-v", "-vv"] {
            let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[verbose]);
            assert!(
                run.stderr.contains(&format!("< location: {target}")),
                "{run:?}"
            );
        }
        let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &["-v"]);
        assert!(!run.stdout.contains(&elsewhere.url), "{run:?}");
    }
    let long = format!("http://x/{}", "a".repeat(100_000));
    let (cli, _server) = setup(vec![Reply::Full(302, vec![("location", long)], Vec::new())]);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &["-v"]);
    assert_eq!(run.error_code(), "request_rejected");
    assert!(run.stdout.len() < 2_000, "{} bytes", run.stdout.len());
    assert!(run.stderr.len() < 4_000, "{} bytes", run.stderr.len());
    drop(elsewhere);
}

#[test]
fn server_errors_are_transient_and_html_never_leaks() {
    let html = Reply::text(
        502,
        "text/html",
        "<html><body><h1>502 Bad Gateway</h1>nginx/1.2 at 10.1.2.3</body></html>",
    );
    let (cli, server) = setup(vec![html.clone()]);
    let run = cli.exec(
        "task",
        "get",
        r#"{"channel":"eng","number":1}"#,
        &["--retries", "2"],
    );
    assert_eq!((run.code, run.error_code().as_str()), (5, "server_error"));
    assert_eq!(run.json()["error"]["retryable"], true);
    assert!(!run.stdout.contains("nginx") && !run.stderr.contains("nginx"));
    assert_eq!(
        server.requests().len(),
        3,
        "a read retries transient failures"
    );

    let (cli, server) = setup(vec![html]);
    let run = cli.exec(
        "task",
        "update",
        r#"{"channel":"eng","number":1,"title":"t"}"#,
        &["--retries", "2"],
    );
    assert_eq!(run.code, 5);
    assert_eq!(
        server.requests().len(),
        1,
        "a non-idempotent mutation is never resent"
    );
}

#[test]
fn keyed_writes_and_claims_retry_but_unkeyed_writes_do_not() {
    let fail = Reply::json(
        503,
        json!({"error": {"code": "server_error", "message": "busy", "retryable": true}}),
    );
    let (cli, server) = setup(vec![fail.clone(), ok_body()]);
    assert_eq!(
        cli.exec(
            "task",
            "create",
            r#"{"channel":"eng","tasks":[{"title":"a"}],"idempotency_key":"k"}"#,
            &[]
        )
        .code,
        0
    );
    assert_eq!(server.requests().len(), 2);
    let (cli, server) = setup(vec![fail.clone(), ok_body()]);
    assert_eq!(
        cli.exec(
            "task",
            "set_claim",
            r#"{"channel":"eng","numbers":[1],"claimed":true}"#,
            &[]
        )
        .code,
        0
    );
    assert_eq!(server.requests().len(), 2);
    let (cli, server) = setup(vec![fail.clone(), ok_body()]);
    assert_eq!(
        cli.exec(
            "task",
            "create",
            r#"{"channel":"eng","tasks":[{"title":"a"}]}"#,
            &[]
        )
        .code,
        5
    );
    assert_eq!(server.requests().len(), 1);
    // A checkpoint likewise: resent only with its key.
    for (input, sent, code) in [
        (
            r#"{"channel":"eng","number":1,"summary":"s","idempotency_key":"k"}"#,
            2,
            0,
        ),
        (r#"{"channel":"eng","number":1,"summary":"s"}"#, 1, 5),
    ] {
        let (cli, server) = setup(vec![fail.clone(), ok_body()]);
        assert_eq!(cli.exec("task", "checkpoint", input, &[]).code, code);
        assert_eq!(server.requests().len(), sent, "{input}");
    }
}

#[test]
fn rate_limits_honour_retry_after() {
    let limited = Reply::Full(
        429,
        vec![("retry-after", "1".into())],
        br#"{"error":{"code":"rate_limited","message":"slow down","retryable":true}}"#.to_vec(),
    );
    let (cli, server) = setup(vec![limited.clone(), ok_body()]);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(server.requests().len(), 2);
    assert!(
        run.elapsed >= Duration::from_millis(950),
        "waited {:?}",
        run.elapsed
    );

    let no_header = Reply::json(
        429,
        json!({"error": {"code": "rate_limited", "message": "slow down", "retryable": true}}),
    );
    let (cli, server) = setup(vec![no_header]);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &["--retries", "1"]);
    assert_eq!((run.code, run.error_code().as_str()), (5, "rate_limited"));
    assert_eq!(server.requests().len(), 2);

    // A 503 asking for longer than a command waits is not waited for; a
    // create answered so is still told it may have been acted on.
    let away = Reply::Full(
        503,
        vec![("retry-after", "120".into())],
        br#"{"error":{"code":"server_error","message":"Maintenance.","retryable":true}}"#.to_vec(),
    );
    let (cli, server) = setup(vec![away]);
    let run = cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"t"}]}"#,
        &[],
    );
    assert_eq!((run.code, run.error_code().as_str()), (5, "server_error"));
    assert_eq!(server.requests().len(), 1);
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(
        message.contains("Retry after 120 s.") && message.contains("not safe to send twice"),
        "{message}"
    );
}

#[test]
fn a_hanging_server_times_out() {
    let (cli, _server) = setup(vec![Reply::Hang]);
    let run = cli.exec(
        "task",
        "update",
        r#"{"channel":"eng","number":1,"title":"t"}"#,
        &["--timeout", "1"],
    );
    assert_eq!((run.code, run.error_code().as_str()), (5, "timeout"));
    assert!(run.elapsed < Duration::from_secs(5), "{:?}", run.elapsed);
    // The update may have been applied: the error says to look before
    // sending it again, which a retry of a read never needs.
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("not safe to send twice"), "{message}");
}

/// A mutation that is not safe to repeat, sent and then cut off or
/// answered 5xx, is told the server may have acted on it; a read, a keyed
/// create, a refused connection and a rate limit are not.
#[test]
fn a_mutation_cut_off_after_sending_is_told_to_look_before_resending() {
    let cut = || Reply::Raw(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"ta".to_vec());
    let failed = || {
        Reply::json(
            500,
            json!({"error": {"code": "server_error", "message": "The server failed.", "retryable": true}}),
        )
    };
    let create = r#"{"channel":"eng","tasks":[{"title":"t"}]}"#;
    let cut_error = || {
        Reply::Raw(b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 100\r\n\r\n{\"er".to_vec())
    };
    for reply in [cut_error(), failed()] {
        let (cli, server) = setup(vec![reply]);
        let run = cli.exec("task", "create", create, &[]);
        assert_eq!(run.code, 5, "{run:?}");
        let message = run.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(message.contains("not safe to send twice"), "{message}");
        assert!(!message.contains("Is the server running"), "{message}");
        assert_eq!(
            run.json()["error"]["details"]["may_have_taken_effect"],
            true,
            "{run:?}"
        );
        assert_eq!(server.requests().len(), 1, "never resent");
    }
    // A success cut off in its body: the action happened (the status came).
    let (cli, server) = setup(vec![cut()]);
    let run = cli.exec("task", "create", create, &[]);
    assert_eq!(run.code, 5, "{run:?}");
    assert_eq!(
        run.json()["error"]["details"]["took_effect"],
        true,
        "{run:?}"
    );
    assert_eq!(server.requests().len(), 1, "never resent");
    // A success whose body cannot be read: the action happened.
    let (cli, server) = setup(vec![Reply::text(201, "text/html", "<html>ok</html>")]);
    let run = cli.exec("task", "create", create, &[]);
    assert_eq!(run.error_code(), "invalid_response", "{run:?}");
    assert_eq!(
        run.json()["error"]["details"]["took_effect"],
        true,
        "{run:?}"
    );
    assert_eq!(server.requests().len(), 1, "never resent");
    let (cli, _server) = setup(vec![cut()]);
    let run = cli.exec("task", "create", create, &[]);
    assert!(
        run.stdout.contains("failed after the request was sent"),
        "{run:?}"
    );
    let (cli, _server) = setup(vec![failed()]);
    let run = cli.exec(
        "task",
        "get",
        r#"{"channel":"eng","number":1}"#,
        &["--retries", "0"],
    );
    assert!(!run.stdout.contains("not safe to send twice"), "{run:?}");
    let (cli, _server) = setup(vec![Reply::json(
        429,
        json!({"error": {"code": "rate_limited", "message": "Slow down.", "retryable": true}}),
    )]);
    let run = cli.exec("task", "create", create, &[]);
    assert!(!run.stdout.contains("not safe to send twice"), "{run:?}");
    let closed = ClosedPort::new();
    let cli = Cli::new();
    cli.login(&closed.url(), TOKEN, None);
    let run = cli.exec("task", "create", create, &[]);
    assert_eq!(run.error_code(), "network_error");
    assert!(!run.stdout.contains("not safe to send twice"), "{run:?}");
    assert!(run.stdout.contains("Is the server running"), "{run:?}");
}

/// A port whose accept queue is full: the kernel drops further SYNs, so a
/// connection to it is never made (a host that drops packets, locally).
fn port_that_never_connects() -> (std::net::TcpListener, Vec<std::net::TcpStream>, u16) {
    use std::os::fd::AsRawFd;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    // SAFETY: listen(2) on the socket this test owns.
    assert_eq!(unsafe { libc::listen(listener.as_raw_fd(), 0) }, 0);
    let port = listener.local_addr().unwrap().port();
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    // Fill the queue; connects beyond it time out.
    let mut held = Vec::new();
    while let Ok(stream) =
        std::net::TcpStream::connect_timeout(&address, Duration::from_millis(300))
    {
        held.push(stream);
        assert!(held.len() < 64, "the accept queue never filled");
    }
    (listener, held, port)
}

/// A connection never made within the attempt's bound is a timeout that
/// says the API could not be reached: nothing was sent, so even a
/// mutation not safe to repeat carries no "may have received" note.
#[test]
fn a_connection_never_made_is_unreachable_not_maybe_sent() {
    let (_listener, _held, port) = port_that_never_connects();
    let cli = Cli::new();
    cli.login(&format!("http://127.0.0.1:{port}"), TOKEN, None);
    let run = cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"t"}]}"#,
        &["--timeout", "2"],
    );
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (5, "timeout"),
        "{run:?}"
    );
    assert!(run.stdout.contains("Could not reach"), "{run:?}");
    assert!(run.stdout.contains("Is the server running"), "{run:?}");
    // The profile in use, not the default, is the one to look at.
    assert!(
        run.stdout
            .contains("agentteam --profile default auth status"),
        "{run:?}"
    );
    assert!(!run.stdout.contains("not safe to send twice"), "{run:?}");
    assert!(run.elapsed < Duration::from_secs(5), "{run:?}");
}

#[test]
fn connection_refused_is_a_network_error() {
    let closed = ClosedPort::new();
    let cli = Cli::new();
    cli.login(&closed.url(), TOKEN, None);
    let run = cli.exec(
        "task",
        "get",
        r#"{"channel":"eng","number":1}"#,
        &["--retries", "0"],
    );
    assert_eq!((run.code, run.error_code().as_str()), (5, "network_error"));
    assert!(
        run.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("refused")
    );
}

#[test]
fn non_json_and_cut_off_answers_are_invalid_responses() {
    let (cli, _s) = setup(vec![Reply::text(200, "text/plain", "OK")]);
    let run = cli.exec(
        "task",
        "update",
        r#"{"channel":"eng","number":1,"title":"t"}"#,
        &[],
    );
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (5, "invalid_response")
    );
    // The update took effect: sending it again would act twice. A read
    // answered so has nothing to warn of.
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("not safe to send twice"), "{message}");
    let (cli, _s) = setup(vec![Reply::text(200, "text/plain", "OK")]);
    let run = cli.exec("task", "get", r#"{"channel":"eng","number":1}"#, &[]);
    assert_eq!(run.error_code(), "invalid_response", "{run:?}");
    assert!(!run.stdout.contains("not safe"), "{run:?}");

    let (cli, _s) = setup(vec![Reply::Raw(
        b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"items\"".to_vec(),
    )]);
    let run = cli.exec(
        "task",
        "update",
        r#"{"channel":"eng","number":1,"title":"t"}"#,
        &[],
    );
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (5, "network_error"),
        "{run:?}"
    );

    let (cli, _s) = setup(vec![Reply::text(
        404,
        "text/html",
        "<html>Not Found</html>",
    )]);
    let run = cli.exec(
        "task",
        "update",
        r#"{"channel":"eng","number":1,"title":"t"}"#,
        &[],
    );
    assert_eq!((run.code, run.error_code().as_str()), (4, "not_found"));
}

#[test]
fn server_rejections_exit_4_with_the_servers_error() {
    let conflict = json!({"error": {"code": "task_update_conflict", "message": "The task changed.", "retryable": false,
        "fieldErrors": {"expected_updated_at": "stale"}, "suggestedAction": {"tool": "task_get", "arguments": {"channel": "eng", "number": 1}}}});
    let (cli, _s) = setup(vec![Reply::json(409, conflict)]);
    let run = cli.exec(
        "task",
        "update",
        r#"{"channel":"eng","number":1,"title":"t"}"#,
        &[],
    );
    assert_eq!(run.code, 4);
    assert_eq!(
        run.json(),
        json!({"error": {"code": "task_update_conflict", "message": "The task changed.", "retryable": false,
            "field_errors": {"expected_updated_at": "stale"}, "suggested_action": {"tool": "task_get", "arguments": {"channel": "eng", "number": 1}, "command": "agentteam exec task get -"}}})
    );
}

/// Input the server refuses after it was sent exits 4, not the 2 of the
/// same code found before sending; the error schema says both.
#[test]
fn input_the_server_refuses_exits_4_as_the_error_schema_says() {
    let refused =
        json!({"error": {"code": "input_too_large", "message": "Too large.", "retryable": false}});
    let (cli, _s) = setup(vec![Reply::json(413, refused)]);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (4, "input_too_large")
    );
    let errors = cli.run(&["exec", "--error-schema"], None).json();
    let entry = errors["x-error-codes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["code"] == "input_too_large")
        .unwrap()
        .clone();
    assert_eq!(
        (&entry["exit_status"], &entry["exit_status_from_server"]),
        (&json!(2), &json!(4))
    );
    // Any other code from a server gives way to its status's own code
    // (a 500 internal_error is server_error), so none says more.
    let others: Vec<&Value> = errors["x-error-codes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c.get("exit_status_from_server").is_some())
        .collect();
    assert_eq!(others.len(), 3, "{others:?}");
}

/// A proxy named in the environment never gets a request for a runtime on
/// this machine (with its token, in the clear, for a server the proxy
/// cannot reach); a request for another host still goes through it, as
/// the environment asks.
#[test]
fn a_proxy_in_the_environment_is_passed_over_for_loopback_only() {
    let proxy = Recorder::start(vec![ok_body()]);
    let proxied = |cli: &mut Cli| {
        for name in ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"] {
            cli.env.push((name.to_string(), proxy.url.clone()));
        }
    };
    let (mut cli, api) = setup(vec![ok_body()]);
    proxied(&mut cli);
    let run = cli.exec("task", "list", r#"{"channel": "eng"}"#, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(api.requests().len(), 1);
    assert!(proxy.requests().is_empty(), "{:?}", proxy.requests());

    let mut remote = Cli::new();
    remote.login("http://runtime.invalid:8787", TOKEN, None);
    proxied(&mut remote);
    let run = remote.exec("task", "list", r#"{"channel": "eng"}"#, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let through = proxy.requests();
    assert_eq!(through.len(), 1);
    assert_eq!(through[0].header("host"), Some("runtime.invalid:8787"));
}

#[test]
fn tokens_never_reach_any_output() {
    let (cli, _s) = setup(vec![Reply::json(
        500,
        json!({"error": {"code": "server_error", "message": "boom", "retryable": true}}),
    )]);
    let run = cli.exec(
        "task",
        "get",
        r#"{"channel":"eng","number":1}"#,
        &["-v", "--retries", "0"],
    );
    assert!(
        run.stderr.contains("authorization: Bearer <redacted>"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains(TOKEN) && !run.stderr.contains(TOKEN));
    // `-v` shows the URL as sent, a GET's query string included.
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng","limit":5}"#,
        &["-v", "--retries", "0"],
    );
    assert!(
        run.stderr.contains("/runtime/tasks?channel=eng&limit=5 "),
        "{}",
        run.stderr
    );
    let status = cli.run(&["auth", "status"], None);
    assert_eq!(status.code, 0);
    assert!(!status.stdout.contains(TOKEN));
    assert_eq!(status.json()["data"]["token"], "<redacted>");
}

/// A server (or a proxy) that echoes the bearer token back cannot make the
/// CLI print it: in an error's message and field errors, in a success's
/// data, in JSON and in text, on stdout and on stderr.
#[test]
fn a_token_the_server_echoes_is_never_printed() {
    let echoed_error = Reply::json(
        400,
        json!({"error": {"code": "invalid_input", "message": format!("Bad header: Bearer {TOKEN}"),
                         "retryable": false, "fieldErrors": {"channel": TOKEN}}}),
    );
    let echoed_data = Reply::json(
        200,
        json!({"items": [{"number": 1, "channel": "eng", "title": format!("token {TOKEN}")}]}),
    );
    for (reply, code) in [(echoed_error, 4), (echoed_data, 0)] {
        for format in ["json", "text"] {
            let (cli, server) = setup(vec![reply.clone()]);
            let run = cli.exec(
                "task",
                "list",
                r#"{"channel":"eng"}"#,
                &["--format", format, "-v", "--retries", "0"],
            );
            assert_eq!(run.code, code, "{run:?}");
            assert_eq!(
                server.requests()[0].header("authorization"),
                Some(format!("Bearer {TOKEN}").as_str())
            );
            assert!(
                !run.stdout.contains(TOKEN) && !run.stderr.contains(TOKEN),
                "{run:?}"
            );
            assert!(
                run.stdout.contains("<redacted>") || run.stderr.contains("<redacted>"),
                "{run:?}"
            );
        }
    }
}

/// Malformed input is told what is wrong, not only where: serde_json's own
/// words, with a second object and deep nesting said plainly. A UTF-8 byte
/// order mark before the object (as Windows tools write) is not a mistake.
#[test]
fn invalid_json_says_what_is_wrong() {
    let cli = Cli::new();
    // Bytes, some not UTF-8: given as the input file.
    let file = cli.home.path().join("input.json");
    let list = |input: &[u8]| {
        std::fs::write(&file, input).unwrap();
        cli.run(&["exec", "task", "list", file.to_str().unwrap()], None)
    };
    for (input, says) in [
        (
            &b"{\"channel\":\"eng\"}{\"channel\":\"eng\"}"[..],
            "another object follows the first",
        ),
        (b"{\"channel\":\"eng\"} x", "something follows the object"),
        (b"{\"channel\":\"eng\",}", "trailing comma"),
        (b"{\"channel\":\"e\xffng\"}", "must be UTF-8"),
        (
            b"{\"channel\":\"eng\",\"limit\":1e400}",
            "number out of range",
        ),
        (b"{\"channel\":\"eng\"", "EOF while parsing an object"),
    ] {
        let run = list(input);
        assert_eq!(run.code, 2, "{run:?}");
        assert_eq!(run.error_code(), "invalid_json");
        let message = run.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(message.contains(says), "{message}");
        assert!(message.contains("column"), "{message}");
    }
    let deep = "[".repeat(200);
    let run = list(deep.as_bytes());
    assert!(
        run.stdout.contains("nested more than 128 levels"),
        "{run:?}"
    );
    // UTF-16 (with or without its mark) and UTF-32 are named as such.
    let utf16le: Vec<u8> = "{\"channel\":\"eng\"}"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let utf16be: Vec<u8> = "{\"channel\":\"eng\"}"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    let utf32: Vec<u8> = "{}"
        .chars()
        .flat_map(|c| (c as u32).to_le_bytes())
        .collect();
    let utf32be: Vec<u8> = "{}"
        .chars()
        .flat_map(|c| (c as u32).to_be_bytes())
        .collect();
    // Each with the `iconv -f` that converts it: the plain name after a
    // byte order mark, else the byte order.
    for (input, encoding) in [
        ([&b"\xFF\xFE"[..], &utf16le].concat(), "UTF-16"),
        ([&b"\xFE\xFF"[..], &utf16be].concat(), "UTF-16"),
        (utf16le, "UTF-16LE"),
        (utf16be, "UTF-16BE"),
        ([&b"\xFF\xFE\x00\x00"[..], &utf32].concat(), "UTF-32"),
        (utf32, "UTF-32LE"),
        ([&b"\x00\x00\xFE\xFF"[..], &utf32be].concat(), "UTF-32"),
        (utf32be, "UTF-32BE"),
    ] {
        let run = list(&input);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "invalid_json"),
            "{run:?}"
        );
        let family = &encoding[..6];
        assert!(
            run.stdout.contains(&format!("The input is {family} text"))
                && run
                    .stdout
                    .contains(&format!("`iconv -f {encoding} -t UTF-8`")),
            "{input:?}: {run:?}"
        );
    }
    // Without a mark and with a first character that is not ASCII (a
    // pasted `é` or no-break space), the byte order is read from the NULs
    // of the code units after it.
    let text = "\u{e9}{\"channel\":\"eng\"}";
    for (input, encoding) in [
        (
            text.encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect::<Vec<u8>>(),
            "UTF-16LE",
        ),
        (
            text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
            "UTF-16BE",
        ),
        (
            text.chars()
                .flat_map(|c| (c as u32).to_le_bytes())
                .collect(),
            "UTF-32LE",
        ),
        (
            text.chars()
                .flat_map(|c| (c as u32).to_be_bytes())
                .collect(),
            "UTF-32BE",
        ),
    ] {
        let run = list(&input);
        assert!(
            run.stdout
                .contains(&format!("`iconv -f {encoding} -t UTF-8`")),
            "{encoding}: {run:?}"
        );
    }
    // Other bytes that are no JSON are not taken for UTF-16: gzip, a NUL
    // after an object, a lone NUL.
    for input in [&b"\x1f\x8b\x08\x00\x00"[..], b"{}\x00", b"\x00"] {
        let run = list(input);
        assert_eq!(run.error_code(), "invalid_json", "{run:?}");
        assert!(!run.stdout.contains("UTF-16"), "{input:?}: {run:?}");
    }
    // With a byte order mark the object is read: the call goes on to need
    // credentials.
    let run = list(b"\xEF\xBB\xBF{\"channel\":\"eng\"}");
    assert_eq!(run.error_code(), "credentials_missing", "{run:?}");
    // In a batch, a first line of only the mark is blank, and skipped.
    std::fs::write(&file, b"\xEF\xBB\xBF\n{\"channel\":\"eng\"}\n").unwrap();
    let run = cli.run(
        &["exec", "task", "list", "--batch", file.to_str().unwrap()],
        None,
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{run:?}");
    assert!(lines[0].contains(r#""line":2"#), "{run:?}");
    // A batch in UTF-16 is named once, from its start: its later lines,
    // split at a byte `\n`, would read as the other byte order (and a
    // blank first line would hide the start).
    for text in [
        "{\"channel\":\"eng\"}\n{\"channel\":\"eng\"}\n",
        "\n{\"channel\":\"eng\"}\n",
    ] {
        let wide: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        std::fs::write(&file, wide).unwrap();
        let run = cli.run(
            &["exec", "task", "list", "--batch", file.to_str().unwrap()],
            None,
        );
        let lines: Vec<&str> = run.stdout.lines().collect();
        assert_eq!(lines.len(), 1, "{text:?}: {run:?}");
        assert!(lines[0].contains("`iconv -f UTF-16LE -t UTF-8`"), "{run:?}");
        assert_eq!(run.code, 2, "{run:?}");
    }
}

/// A server that answers exactly the shapes product.md gives (a compact
/// task with its eleven fields and no more, a detail of those and its two
/// sections with their totals, set_claim without `tasks`, a checkpoint
/// without `reused`) gets documents the CLI's own
/// `--output-schema` accepts: the schemas require what product.md promises,
/// and agentteam-runtime's additions are optional.
#[test]
fn answers_in_product_md_shapes_validate_against_the_output_schemas() {
    for (verb, input, body) in product_md_answers() {
        let (cli, _server) = setup(vec![Reply::json(200, body)]);
        let run = cli.exec("task", verb, input, &[]);
        assert_eq!(run.code, 0, "{verb}: {run:?}");
        let problems = schema_problems(&output_schema(&cli, verb), &run.json());
        assert!(
            problems.is_empty(),
            "{verb}: {problems:?} in {}",
            run.stdout
        );
    }
}

/// A result field a later server adds (an additive change, §11.1), in
/// every object of every answer: the CLI prints it, snake_case, and the
/// document still validates against `--output-schema`, whose `data` is
/// open. The closed schema this version's runtime is held to refuses it.
#[test]
fn a_result_field_a_later_server_adds_is_printed_and_validates() {
    fn add_field(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.values_mut().for_each(add_field);
                map.insert("reviewedBy".into(), json!({"handle": "@carol"}));
            }
            Value::Array(items) => items.iter_mut().for_each(add_field),
            _ => {}
        }
    }
    for (verb, input, mut body) in product_md_answers() {
        add_field(&mut body);
        let (cli, _server) = setup(vec![Reply::json(200, body)]);
        let run = cli.exec("task", verb, input, &[]);
        assert_eq!(run.code, 0, "{verb}: {run:?}");
        let document = run.json();
        assert_eq!(
            document["data"]["reviewed_by"],
            json!({"handle": "@carol"}),
            "{verb}"
        );
        let problems = schema_problems(&output_schema(&cli, verb), &document);
        assert!(problems.is_empty(), "{verb}: {problems:?} in {document}");
        let closed = agentteam::registry::find("task", verb)
            .unwrap()
            .closed_output_schema();
        assert!(!schema_problems(&closed, &document).is_empty(), "{verb}");
    }
}

fn output_schema(cli: &Cli, verb: &str) -> Value {
    cli.run(&["exec", "task", verb, "--output-schema"], None)
        .json()
}

fn schema_problems(schema: &Value, document: &Value) -> Vec<String> {
    let validator = jsonschema::draft202012::new(schema).unwrap();
    validator
        .iter_errors(document)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

fn product_md_answers() -> Vec<(&'static str, &'static str, Value)> {
    let compact = json!({
        "number": 4, "channel": "eng", "scopeId": "tsk_4", "title": "Fix login",
        "status": "todo", "priority": "none", "assignee": null, "parentNumber": null,
        "createdBy": "@builder", "createdAt": "2026-12-02T10:00:00Z",
        "updatedAt": "2026-12-02T10:00:00Z"
    });
    vec![
        ("list", r#"{"channel":"eng"}"#, json!({"items": [compact]})),
        ("get", r#"{"channel":"eng","number":4}"#, {
            let mut detail = compact.clone();
            detail["subtasks"] = json!({"items": [], "total": 0});
            detail["checkpoints"] = json!({"items": [], "total": 0});
            detail
        }),
        (
            "create",
            r#"{"channel":"eng","tasks":[{"title":"Fix login"}]}"#,
            json!({"tasks": [compact], "reused": false}),
        ),
        (
            "update",
            r#"{"channel":"eng","number":4,"title":"Fix login"}"#,
            compact.clone(),
        ),
        (
            "checkpoint",
            r#"{"channel":"eng","number":4,"summary":"Found it"}"#,
            json!({"checkpoint": {"id": 1, "summary": "Found it", "createdBy": "@builder",
                   "createdAt": "2026-12-02T10:01:00Z"}, "task": compact}),
        ),
        (
            "set_claim",
            r#"{"channel":"eng","numbers":[4],"claimed":true}"#,
            json!({"claimed": true, "updatedCount": 1, "failures": []}),
        ),
        (
            "delete",
            r#"{"channel":"eng","number":4}"#,
            json!({"deletedNumbers": [4], "promotedNumbers": []}),
        ),
    ]
}
