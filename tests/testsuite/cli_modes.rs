//! The exec modes beyond one request: --dry-run, --example, --format text,
//! --batch and --paginate, against a recording server.

use agentteam::registry::ACTIONS;
use serde_json::{Value, json};

use crate::support::cli::Cli;
use crate::support::recorder::{Recorder, Reply};

const TOKEN: &str = "at_mode_secret_token";

fn setup(replies: Vec<Reply>) -> (Cli, Recorder) {
    Recorder::start(replies).logged_in(TOKEN)
}

fn task(number: u64, title: &str) -> Value {
    json!({"number": number, "channel": "eng", "scopeId": format!("tsk_{number}"), "title": title, "status": "todo",
           "priority": "high", "assignee": null, "parentNumber": null, "labels": [], "createdBy": "@a",
           "createdAt": "2026-11-30T00:00:00Z", "updatedAt": "2026-11-30T00:00:00Z"})
}

#[test]
fn dry_run_prints_the_request_and_sends_nothing() {
    let (mut cli, server) = Recorder::expecting_no_request().logged_in(TOKEN);
    cli.env
        .push(("AGENTTEAM_WORKFLOW_RUN_ID".into(), "run_9".into()));
    cli.env
        .push(("AGENTTEAM_CALLBACK_EFFECT_ID".into(), "cbe_9".into()));
    let run = cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"x"}],"idempotency_key":"k"}"#,
        &["--dry-run"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let data = &run.json()["data"];
    assert_eq!(data["method"], "POST");
    assert_eq!(
        data["url"],
        format!(
            "{}/api/v1/workspaces/ws_test/agents/ag_test/runtime/tasks",
            server.url
        )
    );
    assert_eq!(data["headers"]["authorization"], "Bearer <redacted>");
    assert_eq!(
        data["body"],
        json!({"channel": "eng", "tasks": [{"title": "x"}], "idempotencyKey": "k", "workflowRunId": "run_9", "callbackEffectId": "cbe_9"})
    );
    assert!(!run.stdout.contains(TOKEN));

    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng","query":"a b"}"#,
        &["--dry-run"],
    );
    assert_eq!(
        run.json()["data"]["url"],
        format!(
            "{}/api/v1/workspaces/ws_test/agents/ag_test/runtime/tasks?channel=eng&query=a+b",
            server.url
        )
    );
    assert_eq!(run.json()["data"]["body"], Value::Null);
    assert!(server.requests().is_empty());

    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng","status":"all"}"#,
        &["--dry-run"],
    );
    assert_eq!(run.code, 2, "invalid input still fails a dry run");
}

/// README "Dry runs": the text view shows what the JSON one does, method
/// and URL, headers with the token redacted, and the body.
#[test]
fn dry_run_text_shows_method_url_headers_and_body() {
    let (cli, server) = Recorder::expecting_no_request().logged_in(TOKEN);
    let run = cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"x"}]}"#,
        &["--dry-run", "--format", "text"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let url = format!(
        "{}/api/v1/workspaces/ws_test/agents/ag_test/runtime/tasks",
        server.url
    );
    let (head, body) = run
        .stdout
        .split_once("\n\n")
        .expect("headers, blank line, body");
    assert_eq!(
        head.lines().collect::<Vec<_>>(),
        [
            format!("POST {url}").as_str(),
            "authorization: Bearer <redacted>",
            "content-type: application/json",
            "accept: */*",
            &format!("user-agent: agentteam/{}", env!("CARGO_PKG_VERSION")),
        ],
        "{}",
        run.stdout
    );
    let body: Value = serde_json::from_str(body).expect("the body is JSON");
    assert_eq!(body, json!({"channel": "eng", "tasks": [{"title": "x"}]}));
    assert!(!run.stdout.contains(TOKEN) && !run.stderr.contains(TOKEN));

    // A GET has no body, and says so by ending after its headers.
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng"}"#,
        &["--dry-run", "--format", "text"],
    );
    assert_eq!(
        run.stdout,
        format!(
            "GET {url}?channel=eng\nauthorization: Bearer <redacted>\naccept: */*\nuser-agent: agentteam/{}\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}

/// README "Dry runs": the exact request. Its headers are the ones sent,
/// but for what the connection adds (`host`, `content-length`).
#[test]
fn a_dry_runs_headers_are_the_ones_sent() {
    let answer = json!({"tasks": [], "reused": false});
    let (cli, server) = Recorder::start(vec![Reply::json(201, answer)]).logged_in(TOKEN);
    let input = r#"{"channel":"eng","tasks":[{"title":"x"}]}"#;
    let dry = cli.exec("task", "create", input, &["--dry-run"]);
    let shown = dry.json()["data"]["headers"].clone();
    assert_eq!(cli.exec("task", "create", input, &[]).code, 0);
    let sent = &server.requests()[0];
    let sent: serde_json::Map<String, Value> = sent
        .headers
        .iter()
        .filter(|(name, _)| !["host", "content-length"].contains(&name.as_str()))
        .map(|(name, value)| match name.as_str() {
            "authorization" => (name.clone(), json!("Bearer <redacted>")),
            _ => (name.clone(), json!(value)),
        })
        .collect();
    let sorted = |headers: &serde_json::Map<String, Value>| {
        let mut pairs: Vec<String> = headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        pairs.sort();
        pairs
    };
    assert_eq!(sorted(shown.as_object().unwrap()), sorted(&sent));
}

#[test]
fn dry_run_without_credentials_says_what_is_missing() {
    let cli = Cli::new();
    let run = cli.exec(
        "task",
        "get",
        r#"{"channel":"eng","number":1}"#,
        &["--dry-run"],
    );
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (3, "credentials_missing")
    );
    assert!(
        run.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Dry run")
    );
    // A profile without a token: the missing piece is named.
    let run = cli.run(
        &[
            "auth",
            "login",
            "--api-url",
            "http://127.0.0.1:9",
            "--workspace",
            " ",
            "--agent",
            "a",
            "--token-stdin",
        ],
        Some("t"),
    );
    assert_eq!(run.code, 2);
}

#[test]
fn example_prints_a_valid_input() {
    let cli = Cli::new();
    for action in ACTIONS {
        let run = cli.run(&["exec", action.domain, action.verb, "--example"], None);
        assert_eq!(run.code, 0);
        let example = run.json();
        assert!(
            agentteam::validate::validate(action, example).is_ok(),
            "{}",
            action.name()
        );
    }
}

#[test]
fn text_format_renders_a_table_and_one_line_errors() {
    let page = json!({"items": [task(1, "Fix login"), task(2, "Write docs")], "nextCursor": "c"});
    let (cli, _s) = setup(vec![Reply::json(200, page)]);
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng"}"#,
        &["--format", "text"],
    );
    assert_eq!(run.code, 0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].starts_with("NUMBER") && lines[0].contains("TITLE"),
        "{}",
        run.stdout
    );
    assert!(lines[1].starts_with('1') && lines[1].contains("Fix login"));
    assert!(run.stdout.contains("cursor"));
    assert!(!run.stdout.contains("\x1b["), "no colour when piped");

    let (cli, _s) = setup(vec![Reply::json(
        404,
        json!({"error": {"code": "task_not_found", "message": "No task 9.", "retryable": false}}),
    )]);
    let run = cli.exec(
        "task",
        "get",
        r#"{"channel":"eng","number":9}"#,
        &["--format", "text"],
    );
    assert_eq!(run.code, 4);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "error: task_not_found: No task 9.\n");
}

/// A claim's per-task failure shows the tasks it may have meant, as its
/// JSON carries them.
#[test]
fn a_claim_failure_in_text_names_its_candidates() {
    let answer = json!({"claimed": true, "updatedCount": 0, "tasks": [], "failures": [
        {"number": 9, "code": "task_not_found", "message": "No live task #9 on this board; candidates lists the ones it may have meant.",
         "candidates": [{"number": 8, "title": "Fix login"}, {"number": 2, "title": "Docs"}]},
        {"number": 3, "code": "task_not_found", "message": "Task #3 was deleted; it cannot be claimed or released."}
    ]});
    let (cli, _s) = setup(vec![Reply::json(200, answer)]);
    let run = cli.exec(
        "task",
        "set_claim",
        r#"{"channel":"eng","numbers":[9,3],"claimed":true}"#,
        &["--format", "text"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "claimed: 0 task(s) in that state, 2 failure(s)\n  \
         #9 task_not_found: No live task #9 on this board; candidates lists the ones it may have meant.\n    \
         candidates: #8 Fix login, #2 Docs\n  \
         #3 task_not_found: Task #3 was deleted; it cannot be claimed or released.\n"
    );
}

/// Titles (and a server's error message) with ESC, BEL, CSI, DEL, C1 codes
/// and bidi overrides reach a `--format text` view only as visible escapes;
/// JSON output carries them exactly, escaped.
#[test]
fn text_views_escape_control_and_bidi_characters() {
    let hostile = [
        "\u{1b}]0;pwned\u{7}title",
        "\u{1b}[2J\u{1b}[31mred",
        "csi\u{9b}1mC1\u{85}nel\u{7f}",
        "rev\u{202e}txt.exe\u{202c}",
        "iso\u{2066}x\u{2069}\u{2067}y\u{2068}",
        "two\nlines\rback",
    ];
    let items: Vec<Value> = hostile
        .iter()
        .enumerate()
        .map(|(i, t)| task(i as u64 + 1, t))
        .collect();
    let page = json!({"items": items});
    let unsafe_char = |c: char| {
        c.is_control() && c != '\n'
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    let (cli, _s) = setup(vec![Reply::json(200, page.clone())]);
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng"}"#,
        &["--format", "text"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stdout.chars().any(unsafe_char), "{:?}", run.stdout);
    for visible in [
        "\\u{1b}]0;pwned\\u{7}title",
        "\\u{1b}[2J\\u{1b}[31mred",
        "csi\\u{9b}1mC1\\u{85}nel\\u{7f}",
        "rev\\u{202e}txt.exe\\u{202c}",
        "iso\\u{2066}x\\u{2069}\\u{2067}y\\u{2068}",
        "two lines back",
    ] {
        assert!(run.stdout.contains(visible), "{visible} in {}", run.stdout);
    }
    assert_eq!(
        run.stdout.lines().count(),
        1 + hostile.len(),
        "{}",
        run.stdout
    );

    // A detail view and a text-mode error from the server, the same.
    let (cli, _s) = setup(vec![Reply::json(
        404,
        json!({"error": {"code": "task_not_found", "message": "No \u{1b}[2Jtask\u{202e}.", "retryable": false}}),
    )]);
    let run = cli.exec(
        "task",
        "get",
        r#"{"channel":"eng","number":9}"#,
        &["--format", "text"],
    );
    assert_eq!(run.code, 4);
    assert_eq!(
        run.stderr,
        "error: task_not_found: No \\u{1b}[2Jtask\\u{202e}.\n"
    );

    // JSON carries the exact strings, every one of these characters as its
    // `\uXXXX` escape: none reaches the terminal raw (serde_json escapes
    // only C0 controls; a raw U+009B is a CSI on many terminals).
    let (cli, _s) = setup(vec![Reply::json(200, page)]);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert!(!run.stdout.chars().any(unsafe_char), "{:?}", run.stdout);
    assert!(run.stdout.contains("csi\\u009b1mC1"), "{}", run.stdout);
    let titles: Vec<String> = run.json()["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["title"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(titles, hostile);
}

#[test]
fn piped_output_is_compact_json_by_default() {
    let (cli, _s) = setup(vec![Reply::json(200, json!({"items": []}))]);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(run.stdout, "{\"data\":{\"items\":[]},\"meta\":{}}\n");
}

/// The input line a `--batch` result answers: in a success's meta, in a
/// failure's details.
fn input_line(result: &Value) -> u64 {
    match result.get("error") {
        None => result["meta"]["line"].as_u64().unwrap(),
        Some(error) => error["details"]["line"].as_u64().unwrap(),
    }
}

#[test]
fn batch_answers_each_line_in_order_and_a_bad_line_fails_alone() {
    let (cli, server) = setup(vec![Reply::json(200, json!({"items": []}))]);
    let input = "{\"channel\":\"eng\",\"number\":1}\n\n{\"channel\":\"eng\"}\nnot json\n{\"channel\":\"eng\",\"number\":2}\n";
    let run = cli.run(
        &["exec", "task", "get", "--batch", "-", "--concurrency", "2"],
        Some(input),
    );
    assert_eq!(run.code, 2, "the worst class seen: {run:?}");
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "blank lines are skipped: {}", run.stdout);
    assert_eq!(
        lines.iter().map(input_line).collect::<Vec<_>>(),
        vec![1, 3, 4, 5]
    );
    assert!(lines[0]["data"].is_object());
    assert_eq!(lines[1]["error"]["code"], "invalid_input");
    assert_eq!(lines[2]["error"]["code"], "invalid_json");
    assert!(lines[3]["data"].is_object());
    assert_eq!(server.requests().len(), 2);
    // One short line on stderr says so, naming the worst line's code.
    // and which, so a retry resends those alone.
    assert_eq!(
        run.stderr,
        "error: invalid_input (2 of 4 lines failed: lines 3, 4)\n"
    );
}

#[test]
fn batch_of_valid_lines_exits_0() {
    let (cli, server) = setup(vec![Reply::json(200, json!({"items": []}))]);
    let input: String = (1..=20)
        .map(|n| format!("{{\"channel\":\"eng\",\"number\":{n}}}\n"))
        .collect();
    let run = cli.run(&["exec", "task", "get", "--batch", "-"], Some(&input));
    assert_eq!(run.code, 0, "{run:?}");
    let numbers: Vec<u64> = run
        .stdout
        .lines()
        .map(|l| input_line(&serde_json::from_str::<Value>(l).unwrap()))
        .collect();
    assert_eq!(numbers, (1..=20).collect::<Vec<_>>());
    assert_eq!(server.requests().len(), 20);
    assert_eq!(run.stderr, "", "nothing failed");
}

#[test]
fn paginate_follows_cursors_and_streams_items() {
    let pages = vec![
        Reply::json(
            200,
            json!({"items": [task(1, "a"), task(2, "b")], "nextCursor": "p2"}),
        ),
        Reply::json(200, json!({"items": [task(3, "c")]})),
    ];
    let (cli, server) = setup(pages);
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng","limit":2}"#,
        &["--paginate"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let numbers: Vec<u64> = run
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["number"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(numbers, vec![1, 2, 3]);
    let r = server.requests();
    assert_eq!(r.len(), 2);
    assert!(r[1].query.contains(&("cursor".into(), "p2".into())));
    assert_eq!(run.stderr, "", "no progress when stderr is not a terminal");
}

/// A page that fails ends a stream of JSON lines with the error's line;
/// under a text table, the text view's error on stderr, as any text call.
#[test]
fn a_failed_page_ends_the_stream_in_the_streams_format() {
    let failed = || {
        vec![
            Reply::json(200, json!({"items": [task(1, "a")], "nextCursor": "p2"})),
            Reply::json(
                404,
                json!({"error": {"code": "channel_not_found", "message": "Gone.", "retryable": false}}),
            ),
        ]
    };
    let (cli, _s) = setup(failed());
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &["--paginate"]);
    assert_eq!(run.code, 4, "{run:?}");
    let last: Value = serde_json::from_str(run.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["error"]["code"], "channel_not_found");
    // It says where to go on: the failed page's cursor.
    let message = last["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(r#"1 items were printed; to go on, pass "cursor": "p2""#),
        "{message}"
    );
    let (cli, _s) = setup(failed());
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng"}"#,
        &["--paginate", "--format", "text"],
    );
    assert_eq!(run.code, 4, "{run:?}");
    assert!(!run.stdout.contains("\"error\""), "{}", run.stdout);
    assert!(
        run.stderr.contains("error: channel_not_found: Gone."),
        "{}",
        run.stderr
    );
}

/// `--paginate` over pages whose `nextCursor`s are `cursors`, one page
/// each: it must stop with `invalid_response` after `requests` requests
/// (bounded, so a CLI that followed the cursors on fails the watchdog).
fn paginate_stops_with_invalid_response(cursors: &[&str], requests: usize) {
    let pages = cursors
        .iter()
        .enumerate()
        .map(|(n, next)| {
            Reply::json(
                200,
                json!({"items": [task(n as u64 + 1, "a")], "nextCursor": next}),
            )
        })
        .collect();
    let (cli, server) = setup(pages);
    let run = cli.exec_within(
        "task",
        "list",
        r#"{"channel":"eng"}"#,
        &["--paginate"],
        Some(std::time::Duration::from_secs(30)),
    );
    assert_eq!(run.code, 5, "{run:?}");
    let last: Value = serde_json::from_str(run.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["error"]["code"], "invalid_response");
    assert_eq!(server.requests().len(), requests);
}

/// A server that answers a page with the cursor it was asked for is not
/// followed forever (the one page repeats for every request).
#[test]
fn paginate_stops_at_a_cursor_that_repeats() {
    paginate_stops_with_invalid_response(&["same"], 2);
}

/// Nor is one whose cursors come round again after more than one page.
#[test]
fn paginate_stops_at_a_cursor_cycle() {
    paginate_stops_with_invalid_response(&["A", "B", "A"], 3);
}

/// A cursor the server refuses mid-way is no place to go on from: the
/// error says to list again without one, and names no cursor to pass.
#[test]
fn paginate_refused_cursor_is_not_offered_to_go_on() {
    let (cli, _server) = setup(vec![
        Reply::json(200, json!({"items": [task(1, "a")], "nextCursor": "c2"})),
        Reply::json(
            400,
            json!({"error": {"code": "cursor_invalid", "message": "The cursor is no longer valid; list again without a cursor.", "retryable": false}}),
        ),
    ]);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &["--paginate"]);
    assert_eq!(run.code, 4, "{run:?}");
    let last: Value = serde_json::from_str(run.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["error"]["code"], "cursor_invalid");
    let message = last["error"]["message"].as_str().unwrap();
    assert!(!message.contains("\"cursor\": \"c2\""), "{message}");
}

#[test]
fn paginate_stops_at_max_items() {
    let (cli, server) = setup(vec![Reply::json(
        200,
        json!({"items": [task(1, "a"), task(2, "b")], "nextCursor": "more"}),
    )]);
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng"}"#,
        &["--paginate", "--max-items", "3"],
    );
    assert_eq!(run.stdout.lines().count(), 3);
    // Each page asks for no more than remain, so the last page's cursor
    // goes on right after the last item printed; the cut is said.
    let limits: Vec<String> = server
        .requests()
        .iter()
        .map(|r| {
            r.query
                .iter()
                .find(|(k, _)| k == "limit")
                .unwrap()
                .1
                .clone()
        })
        .collect();
    assert_eq!(limits, ["3", "1"]);
    assert_eq!(
        run.stderr,
        "agentteam: stopped at --max-items 3; more remain: pass \"cursor\": \"more\" with the same input to go on\n"
    );
    // A limit smaller than what remains is kept; an end without a cursor
    // says nothing.
    let (cli, server) = setup(vec![Reply::json(200, json!({"items": [task(1, "a")]}))]);
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng","limit":2}"#,
        &["--paginate", "--max-items", "5"],
    );
    assert_eq!((run.code, run.stdout.lines().count()), (0, 1), "{run:?}");
    assert_eq!(
        server.requests()[0]
            .query
            .iter()
            .find(|(k, _)| k == "limit")
            .unwrap()
            .1,
        "2"
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn paginate_ends_a_failing_stream_with_the_error_line() {
    let pages = vec![
        Reply::json(200, json!({"items": [task(1, "a")], "nextCursor": "p2"})),
        Reply::json(
            400,
            json!({"error": {"code": "cursor_invalid", "message": "Stale cursor.", "retryable": false}}),
        ),
    ];
    let (cli, _server) = setup(pages);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &["--paginate"]);
    assert_eq!(run.code, 4, "{run:?}");
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["number"], 1);
    assert_eq!(lines[1]["error"]["code"], "cursor_invalid");
    assert_eq!(run.stderr, "error: cursor_invalid\n");
}

/// `n` tasks of about 1.2 KB each, numbered from `first`.
fn big_tasks(first: u64, n: u64) -> Vec<Value> {
    (first..first + n)
        .map(|i| task(i, &"t".repeat(1000)))
        .collect()
}

fn limit_of(request: &crate::support::recorder::Recorded) -> Option<u64> {
    request
        .query
        .iter()
        .find(|(k, _)| k == "limit")
        .map(|(_, v)| v.parse().unwrap())
}

const PAGE_BUDGET: usize = 512 * 1024;

/// §8.3 on the CLI side: a server's page past the action's budget is not
/// passed on. The CLI asks again for the items that fit, so the page it
/// prints carries a cursor right after its last item, and says `truncated`.
#[test]
fn an_oversized_page_is_asked_again_for_what_fits() {
    let (cli, server) = setup(vec![
        Reply::json(
            200,
            json!({"items": big_tasks(1, 1000), "nextCursor": "past_1000"}),
        ),
        Reply::json(
            200,
            json!({"items": big_tasks(1, 300), "nextCursor": "after_300"}),
        ),
    ]);
    let run = cli.exec("task", "list", r#"{"channel":"eng","limit":100}"#, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.len() <= PAGE_BUDGET,
        "{} bytes",
        run.stdout.len()
    );
    let doc = run.json();
    assert_eq!(doc["meta"]["truncated"], true);
    assert_eq!(
        doc["meta"]["next_cursor"], "after_300",
        "the cursor of the page that fits"
    );
    assert_eq!(doc["data"]["items"].as_array().unwrap().len(), 300);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(limit_of(&requests[0]), Some(100));
    let asked = limit_of(&requests[1]).expect("the second request sets limit");
    assert!((300..1000).contains(&asked), "asked for {asked}");
}

/// A server that ignores the smaller limit too gets its page cut: the
/// items that fit, `truncated`, and no cursor (the server's would skip the
/// items cut). `--paginate` cannot continue from there and says so.
#[test]
fn a_server_that_keeps_oversizing_gets_its_page_cut_without_a_cursor() {
    let oversized = Reply::json(
        200,
        json!({"items": big_tasks(1, 1000), "nextCursor": "past_1000"}),
    );
    let (cli, _server) = setup(vec![oversized.clone(), oversized.clone()]);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.len() <= PAGE_BUDGET,
        "{} bytes",
        run.stdout.len()
    );
    let doc = run.json();
    assert_eq!(doc["meta"]["truncated"], true);
    assert!(doc["meta"].get("next_cursor").is_none(), "{}", doc["meta"]);
    let kept = doc["data"]["items"].as_array().unwrap();
    assert!(kept.len() > 100 && kept.len() < 1000, "{}", kept.len());
    assert_eq!(kept[0]["number"], 1, "a prefix, in order");

    let (cli, _server) = setup(vec![oversized.clone(), oversized]);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &["--paginate"]);
    assert_eq!(run.code, 5, "{run:?}");
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.last().unwrap();
    assert_eq!(last["error"]["code"], "invalid_response", "{last}");
    assert!(lines.len() > 100, "the items that fit were streamed first");
}

/// A detail past its budget is cut by the store's own rules (oldest
/// sections first, each keeping its total), a small result by the generic
/// cut; both say `meta.truncated` and fit.
#[test]
fn oversized_detail_and_receipt_answers_are_cut_to_their_budgets() {
    let checkpoints: Vec<Value> = (0..600)
        .map(|i| json!({"id": i, "summary": "s".repeat(1000), "createdBy": "@a", "createdAt": "2026-11-30T00:00:00Z"}))
        .collect();
    let mut detail = task(1, "kept title");
    detail["description"] = json!("short");
    detail["subtasks"] = json!({"items": [], "total": 0, "truncated": false});
    detail["checkpoints"] = json!({"items": checkpoints, "total": 600, "truncated": false});
    let (cli, _server) = setup(vec![Reply::json(200, detail)]);
    let run = cli.exec("task", "get", r#"{"channel":"eng","number":1}"#, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.len() <= 256 * 1024, "{} bytes", run.stdout.len());
    let doc = run.json();
    assert_eq!(doc["meta"]["truncated"], true);
    let section = &doc["data"]["checkpoints"];
    assert_eq!(
        (section["total"].clone(), section["truncated"].clone()),
        (json!(600), json!(true))
    );
    assert!(section["items"].as_array().unwrap().len() < 600);
    assert_eq!(doc["data"]["title"], "kept title");

    let (cli, _server) = setup(vec![Reply::json(
        200,
        json!({"tasks": [task(1, &"x".repeat(200_000))]}),
    )]);
    let run = cli.exec(
        "task",
        "create",
        r#"{"channel":"eng","tasks":[{"title":"x"}]}"#,
        &[],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.len() <= 64 * 1024, "{} bytes", run.stdout.len());
    let doc = run.json();
    assert_eq!(doc["meta"]["truncated"], true);
    let title = doc["data"]["tasks"][0]["title"].as_str().unwrap();
    assert!(
        title.ends_with("[truncated by the result budget]"),
        "{}",
        &title[title.len() - 60..]
    );
}

/// `--batch` prints JSON lines whatever the terminal; `--format text` named
/// with it is refused, not ignored.
#[test]
fn a_batch_refuses_a_text_format_asked_for_by_name() {
    let (cli, server) = Recorder::expecting_no_request().logged_in(TOKEN);
    let run = cli.run(
        &["exec", "task", "get", "--batch", "--format", "text", "-"],
        Some("{\"channel\":\"eng\",\"number\":1}\n"),
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("usage_error"), "{run:?}");
    assert!(server.requests().is_empty());
}

/// All a spawned child wrote on stderr, read to its end.
fn stderr_of(child: &mut std::process::Child) -> String {
    use std::io::Read;
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr piped")
        .read_to_string(&mut stderr)
        .expect("stderr read");
    stderr
}

/// `args` run with `stdin`, its stdout's reader gone before anything is
/// written (as `| head -c0` leaves it): the exit status and stderr.
fn with_stdout_closed(cli: &Cli, args: &[&str], stdin: &str) -> (i32, String) {
    use std::io::Write;
    let mut child = cli.spawn(args);
    drop(child.stdout.take());
    let mut input = child.stdin.take().unwrap();
    // The CLI may stop reading once its output has nowhere to go.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    let stderr = stderr_of(&mut child);
    (child.wait().unwrap().code().unwrap_or(-1), stderr)
}

/// A reader that left (`| head -1`) is no failure of its own, and hides
/// none: a failed call keeps its status and its stderr line (it exited 0
/// with nothing said); a change whose answer was lost, and a batch of
/// changes, which stops sending, say so, with the status of a process
/// ended by SIGPIPE; a read stream just stops.
#[test]
fn a_closed_stdout_hides_no_failure_and_no_unsent_change() {
    let missing = Reply::json(
        404,
        json!({"error": {"code": "channel_not_found", "message": "No board.", "retryable": false}}),
    );
    let (cli, _server) = setup(vec![missing]);
    let (code, stderr) = with_stdout_closed(
        &cli,
        &["exec", "task", "list", "-"],
        r#"{"channel":"nope"}"#,
    );
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.starts_with("error: channel_not_found"), "{stderr}");

    // One change whose answer was lost: said, not exit 0 in silence.
    let created = Reply::json(201, json!({"tasks": [task(1, "a")]}));
    let (cli, server) = setup(vec![created.clone()]);
    let (code, stderr) = with_stdout_closed(
        &cli,
        &["exec", "task", "create", "-"],
        r#"{"channel":"eng","tasks":[{"title":"a"}]}"#,
    );
    assert_eq!(code, 141, "{stderr}");
    assert_eq!(
        stderr,
        "error: stdout closed: the answer was lost (the change was made)\n"
    );
    assert_eq!(server.requests().len(), 1);

    let (cli, server) = setup(vec![created]);
    let lines: String = (1..=50)
        .map(|n| format!("{{\"channel\":\"eng\",\"tasks\":[{{\"title\":\"t{n}\"}}]}}\n"))
        .collect();
    let (code, stderr) = with_stdout_closed(
        &cli,
        &[
            "exec",
            "task",
            "create",
            "--batch",
            "--concurrency",
            "8",
            "-",
        ],
        &lines,
    );
    assert_eq!(code, 141, "{stderr}");
    // The lines in flight are waited for, and the message names the last
    // line sent: resuming after it repeats nothing (it named the first
    // unread line while later ones had been sent and taken effect).
    let last: usize = stderr
        .split("the lines after line ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        stderr.starts_with("error: stdout closed: the answer"),
        "{stderr}"
    );
    assert_eq!(server.requests().len(), last, "{stderr}");
    assert!(last < 50, "the batch went on after its reader left");

    let page = Reply::json(
        200,
        json!({"items": [task(1, "a"), task(2, "b")], "nextCursor": "p2"}),
    );
    let (cli, server) = setup(vec![page]);
    let (code, stderr) = with_stdout_closed(
        &cli,
        &["exec", "task", "list", "--paginate", "-"],
        r#"{"channel":"eng"}"#,
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(server.requests().len(), 1, "no page after the reader left");
}

/// Piped `--format text` is cut only to a width `COLUMNS` asks for: a
/// long title reached a file or `grep` cut to 100 columns.
#[test]
fn piped_text_is_cut_only_to_columns_asked_for() {
    let title = format!("{} ENDMARK", "long title ".repeat(17));
    let page = json!({"items": [task(1, &title)]});
    let (mut cli, _s) = setup(vec![Reply::json(200, page)]);
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng"}"#,
        &["--format", "text"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("ENDMARK"), "{}", run.stdout);
    cli.env.push(("COLUMNS".into(), "60".into()));
    let run = cli.exec(
        "task",
        "list",
        r#"{"channel":"eng"}"#,
        &["--format", "text"],
    );
    assert!(!run.stdout.contains("ENDMARK"), "{}", run.stdout);
    assert!(
        run.stdout.lines().all(|l| l.chars().count() <= 60),
        "{}",
        run.stdout
    );
}

/// A SIGINT stops a `--batch` from sending more lines, and every line it
/// did send is answered on stdout, whole, before it ends by the signal: a
/// kill lost the answers of lines in flight (created, never reported) and
/// could cut a line in half.
#[test]
fn an_interrupted_batch_answers_every_line_it_sent() {
    use std::io::{Read, Write};
    use std::os::unix::process::ExitStatusExt;
    let created = Reply::json(201, json!({"tasks": [task(1, "a")]}));
    let (cli, server) = setup(vec![created]);
    let lines: String = (1..=20_000)
        .map(|n| format!("{{\"channel\":\"eng\",\"tasks\":[{{\"title\":\"t{n}\"}}]}}\n"))
        .collect();
    let mut child = cli.spawn(&["exec", "task", "create", "--batch", "-"]);
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(lines.as_bytes());
    });
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).unwrap();
        out
    });
    // Some lines answered, many more to go.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while server.requests().len() < 20 {
        assert!(
            std::time::Instant::now() < deadline,
            "the batch never got going"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let status = child.wait().unwrap();
    let out = reader.join().unwrap();
    let _ = writer.join();
    let stderr = stderr_of(&mut child);
    assert_eq!(status.signal(), Some(libc::SIGINT), "{stderr}");
    assert!(
        stderr.contains("error: interrupted: each line sent has its answer above"),
        "{stderr}"
    );
    let answered: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("whole lines"))
        .collect();
    assert!(
        answered.len() < 20_000,
        "the batch went on after the signal"
    );
    assert_eq!(
        answered.len(),
        server.requests().len(),
        "a line sent without its answer"
    );
}

/// A `--batch` line past the 1 MiB bound is answered as soon as it passes
/// it, not when it ends: a stream with no newline (`/dev/zero`) never ends
/// its line, and the batch ran on at full CPU with nothing said. The
/// answer names the field that makes it long, as for one input.
#[test]
fn an_overlong_batch_line_is_answered_before_it_ends() {
    use std::io::{BufRead, BufReader, Write};
    let (cli, _server) = setup(vec![Reply::json(200, json!({"items": []}))]);
    let mut child = cli.spawn(&["exec", "task", "list", "--batch", "-"]);
    let mut input = child.stdin.take().unwrap();
    input.write_all(b"{\"channel\":\"eng\"}\n").unwrap();
    // Two MiB of one line, a query that goes on, and the stream left open.
    input
        .write_all(b"{\"channel\":\"eng\",\"query\":\"")
        .unwrap();
    input.write_all(&vec![b'a'; 2 << 20]).unwrap();
    input.flush().unwrap();
    // A run that only answers at the line's end never answers here: ended
    // after 20 s, so the test fails rather than hangs.
    let (done, watch) = std::sync::mpsc::channel::<()>();
    let pid = child.id() as libc::pid_t;
    std::thread::spawn(move || {
        if watch
            .recv_timeout(std::time::Duration::from_secs(20))
            .is_err()
        {
            // SAFETY: kill(2) of the child, which has not been waited for.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["meta"]["line"], 1, "{first}");
    let second: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(second["error"]["code"], "input_too_large", "{second}");
    assert_eq!(second["error"]["details"]["line"], 2, "{second}");
    // What makes it long is named, as for an input over the limit.
    assert_eq!(
        second["error"]["message"],
        "The line exceeds 1024 KiB: `query` is longer than its field allows; see field_errors.",
        "{second}"
    );
    assert!(
        second["error"]["field_errors"]["query"]
            .as_str()
            .is_some_and(|said| said.contains("; this one has at least ")),
        "{second}"
    );
    done.send(()).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    drop(input);
}

/// A stdin that cannot be read (a directory) is a usage error in single
/// and batch mode alike: no JSON was there to judge.
#[test]
fn an_unreadable_stdin_is_a_usage_error_in_every_mode() {
    use std::process::Stdio;
    let (cli, _server) = Recorder::expecting_no_request().logged_in(TOKEN);
    for extra in [&[][..], &["--batch"]] {
        let mut args = vec!["exec", "task", "list"];
        args.extend_from_slice(extra);
        args.push("-");
        let out = cli
            .command(&args)
            .stdin(Stdio::from(
                std::fs::File::open(cli.config_dir().parent().unwrap()).unwrap(),
            ))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let doc: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
        assert_eq!(doc["error"]["code"], "usage_error", "{extra:?}: {doc}");
    }
}

/// The input limit is the input's, not its file's: an input of exactly
/// 1 MiB is read with a final line ending (`\n` or `\r\n`), alone and as a
/// `--batch` line, and one byte more is refused either way.
#[test]
fn an_input_of_the_limit_is_read_with_its_line_ending() {
    let (cli, server) = Recorder::expecting_no_request().logged_in(TOKEN);
    let limit = agentteam::wire::MAX_BODY_BYTES;
    let padded = |size: usize| {
        let (start, end) = (r#"{"channel":"eng""#, "}");
        format!("{start}{}{end}", " ".repeat(size - start.len() - end.len()))
    };
    for ending in ["", "\n", "\r\n"] {
        let run = cli.exec("task", "list", &(padded(limit) + ending), &["--dry-run"]);
        assert_eq!(run.code, 0, "{ending:?}: {}", run.stdout);
        let run = cli.exec(
            "task",
            "list",
            &(padded(limit + 1) + ending),
            &["--dry-run"],
        );
        assert_eq!(run.error_code(), "input_too_large", "{ending:?}");
    }
    assert_eq!(server.requests().len(), 0);
    let (cli, server) = setup(vec![Reply::json(200, json!({"items": []}))]);
    let lines = [padded(limit), padded(limit + 1), padded(limit)].join("\r\n") + "\r\n";
    let run = cli.run(&["exec", "task", "list", "--batch", "-"], Some(&lines));
    let answers: Vec<Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let said: Vec<_> = answers
        .iter()
        .map(|answer| answer["error"]["code"].as_str().unwrap_or("ok"))
        .collect();
    assert_eq!(said, ["ok", "input_too_large", "ok"], "{}", run.stderr);
    assert_eq!(server.requests().len(), 2);
    // A `\r` the stream ends on is no line ending: counted, as alone.
    let run = cli.run(
        &["exec", "task", "list", "--batch", "-"],
        Some(&(padded(limit) + "\r")),
    );
    assert!(run.stdout.contains("input_too_large"), "{}", run.stdout);
    assert_eq!(server.requests().len(), 2);
}
