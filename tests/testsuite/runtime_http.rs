//! The real `agentteam-runtime` over real HTTP: every registry route is
//! served, every refusal is the JSON error body with its status, every
//! success body decodes (through the CLI's own wire decoder) to a document
//! that validates against the action's `--output-schema`, and an
//! acknowledged write survives `kill -9`.

use agentteam::registry::{ACTIONS, Action, find};
use serde_json::{Value, json};

use crate::support::runtime::{Agent, Engine, Reply, Runtime, raw_http};

on_every_engine!(
    every_registry_route_is_served_and_the_session_validates_against_the_schemas,
    refusals_are_json_with_their_status,
    a_task_get_refuses_its_token_before_its_input,
    input_a_route_does_not_read_is_refused_and_changes_nothing,
    a_mistyped_board_is_corrected_without_an_error_in_the_log,
    admin_commands_print_one_json_object,
    acknowledged_writes_survive_kill_9,
    sigterm_shuts_down_gracefully,
    quickstart_writes_a_profile_whose_credential_process_works_and_is_rerunnable,
    quickstarts_at_once_on_one_store_all_reuse_one_demo,
);

/// A runtime with workspace `w` (agents alice, bob; open board `eng`,
/// board `secret` for alice only) and workspace `x` (agent xavier).
struct Fixture {
    rt: Runtime,
    alice: Agent,
    bob: Agent,
    xavier: Agent,
}

fn fixture(engine: Engine) -> Fixture {
    let rt = Runtime::start_on(engine);
    let w = rt.workspace("w");
    let alice = rt.agent(&w, "alice");
    let bob = rt.agent(&w, "bob");
    rt.channel(&w, "eng");
    rt.private_channel(&w, "secret", "@alice");
    let x = rt.workspace("x");
    let xavier = rt.agent(&x, "xavier");
    rt.channel(&x, "eng");
    Fixture {
        rt,
        alice,
        bob,
        xavier,
    }
}

/// Decodes a success the way the CLI does and checks the whole document
/// against the action's output schema; returns `data`.
fn success(action: &Action, reply: &Reply) -> Value {
    assert!(
        (200..300).contains(&reply.status),
        "{} answered {}: {}",
        action.name(),
        reply.status,
        String::from_utf8_lossy(&reply.body)
    );
    let decoded = agentteam::wire::decode_success(&reply.body).expect("a JSON object");
    let document = json!({"data": decoded.data, "meta": decoded.meta});
    let validator = jsonschema::draft202012::options()
        .should_validate_formats(false)
        .build(&action.closed_output_schema())
        .expect("output schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&document)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{} output breaks its schema: {errors:?}\n{document}",
        action.name()
    );
    document["data"].clone()
}

fn call(rt: &Runtime, who: &Agent, verb: &str, input: Value) -> Reply {
    rt.call(who, find("task", verb).expect("registered"), &input)
}

fn ok(rt: &Runtime, who: &Agent, verb: &str, input: Value) -> Value {
    success(
        find("task", verb).expect("registered"),
        &call(rt, who, verb, input),
    )
}

fn assert_error(reply: &Reply, status: u16, code: &str) -> Value {
    assert_eq!(
        (reply.status, reply.code().as_str()),
        (status, code),
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.header("content-type"), Some("application/json"));
    reply.json()
}

fn every_registry_route_is_served_and_the_session_validates_against_the_schemas(engine: Engine) {
    let Fixture { rt, alice, bob, .. } = fixture(engine);
    // A full session, every answer checked against its output schema.
    let created = call(
        &rt,
        &alice,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "Fix login timeout", "description": "hangs",
            "labels": ["auth"], "checklist": [{"text": "repro"}],
            "attachments": [{"name": "log.txt", "url": "https://e.x/log.txt"}]}]}),
    );
    assert_eq!(created.status, 201, "a fresh create is 201 Created");
    let created = success(find("task", "create").unwrap(), &created);
    assert_eq!(created["tasks"][0]["number"], 1);
    ok(
        &rt,
        &alice,
        "create",
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "a"}, {"title": "b"}, {"title": "c"}]}),
    );
    let page = ok(
        &rt,
        &alice,
        "list",
        json!({"channel": "eng", "include_subtasks": true, "limit": 2, "filters": {"labels": ["auth"]}}),
    );
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    let decoded = agentteam::wire::decode_success(
        &call(
            &rt,
            &alice,
            "list",
            json!({"channel": "eng", "include_subtasks": true, "limit": 2}),
        )
        .body,
    )
    .unwrap();
    let cursor = decoded.meta["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_string();
    let rest = ok(
        &rt,
        &alice,
        "list",
        json!({"channel": "eng", "include_subtasks": true, "limit": 2, "cursor": cursor}),
    );
    assert_eq!(rest["items"].as_array().unwrap().len(), 2);
    let found = ok(
        &rt,
        &alice,
        "list",
        json!({"channel": "eng", "query": "login hang", "status": "all"}),
    );
    assert_eq!(found["items"][0]["number"], 1);
    let claim = ok(
        &rt,
        &bob,
        "set_claim",
        json!({"channel": "eng", "numbers": [1, 2], "claimed": true}),
    );
    assert_eq!(claim["updated_count"], 2);
    let cp = ok(
        &rt,
        &bob,
        "checkpoint",
        json!({"channel": "eng", "number": 1, "summary": "Root cause found."}),
    );
    assert_eq!(cp["checkpoint"]["created_by"], "@bob");
    let updated = ok(
        &rt,
        &alice,
        "update",
        json!({"channel": "eng", "number": 1, "status": "in_review", "description": null,
               "expected_updated_at": cp["task"]["updated_at"]}),
    );
    assert_eq!(updated["status"], "in_review");
    let detail = ok(&rt, &alice, "get", json!({"channel": "eng", "number": 1}));
    assert_eq!(detail["subtasks"]["total"], 3);
    assert_eq!(
        detail["checkpoints"]["items"][0]["summary"],
        "Root cause found."
    );
    assert!(detail["description"].is_null());
    let conflict = call(
        &rt,
        &alice,
        "update",
        json!({"channel": "eng", "number": 1, "title": "x", "expected_updated_at": cp["task"]["updated_at"]}),
    );
    let body = assert_error(&conflict, 409, "task_update_conflict");
    assert_eq!(body["error"]["suggestedAction"]["tool"], "task_get");
    let deleted = ok(
        &rt,
        &alice,
        "delete",
        json!({"channel": "eng", "number": 1, "subtask_mode": "delete"}),
    );
    assert_eq!(deleted["deleted_numbers"], json!([1, 2, 3, 4]));
    // Each route answers with a product answer, never the router's own refusals.
    for action in ACTIONS {
        let input = serde_json::from_str(action.examples[0].input).expect("example");
        let reply = call(&rt, &alice, action.verb, input);
        assert!(
            !["not_found", "method_not_allowed"].contains(&reply.code().as_str()),
            "{} is not served: {}",
            action.name(),
            String::from_utf8_lossy(&reply.body)
        );
    }
}

fn refusals_are_json_with_their_status(engine: Engine) {
    let Fixture {
        rt,
        alice,
        bob,
        xavier,
    } = fixture(engine);
    let get = alice.path("/tasks/get");
    let input = br#"{"channel": "eng", "number": 1}"#;
    // Every answer, a success or a refusal, an API route or not, is marked
    // not to be sniffed as another type nor kept by a cache.
    let created = rt.http(
        "POST",
        &alice.path("/tasks"),
        Some(&alice.token),
        Some(br#"{"channel": "eng", "tasks": [{"title": "marked"}]}"#),
    );
    for reply in [
        created,
        rt.http("POST", &get, Some(&alice.token), Some(input)),
        rt.http("POST", &get, None, Some(input)),
        rt.http("GET", "/no/such/route", None, None),
        rt.http("GET", "/healthz", None, None),
        rt.http("GET", "/api/v1/openapi.json", None, None),
    ] {
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{}",
            reply.status
        );
        assert_eq!(
            reply.header("cache-control"),
            Some("no-store"),
            "{}",
            reply.status
        );
    }
    // 401: missing, garbage, unknown; never data.
    assert_error(
        &rt.http("POST", &get, None, Some(input)),
        401,
        "unauthorized",
    );
    let reply = rt.http("POST", &get, Some("garbage"), Some(input));
    assert_error(&reply, 401, "unauthorized");
    assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
    // Two Authorization headers, even both valid: neither is taken.
    let twice = |first: &str| {
        let headers: Vec<(String, String)> = [first, &alice.token]
            .iter()
            .map(|t| ("Authorization".to_string(), format!("Bearer {t}")))
            .chain([
                ("Content-Type".to_string(), "application/json".to_string()),
                ("Content-Length".to_string(), input.len().to_string()),
            ])
            .collect();
        raw_http(rt.addr, "POST", &get, &headers, input)
    };
    for first in [alice.token.as_str(), "garbage"] {
        let reply = assert_error(&twice(first), 401, "unauthorized");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("one Authorization header"),
            "{reply}"
        );
    }
    assert_error(
        &rt.http(
            "POST",
            &get,
            Some("at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
            Some(input),
        ),
        401,
        "unauthorized",
    );
    // 403: a valid token on another workspace's or agent's path.
    for path in [xavier.path("/tasks/get"), {
        let mut other = alice.clone();
        other.agent_id = "ag_someone_else".into();
        other.path("/tasks/get")
    }] {
        let body = assert_error(
            &rt.http("POST", &path, Some(&alice.token), Some(input)),
            403,
            "forbidden",
        );
        assert_eq!(
            body.as_object().unwrap().len(),
            1,
            "nothing but the error: {body}"
        );
    }
    let reply = rt.post(
        &alice,
        "/tasks",
        &json!({"channel": "secret", "tasks": [{"title": "t"}]}),
    );
    assert_eq!(reply.status, 201);
    let scope = reply.json()["tasks"][0]["scopeId"]
        .as_str()
        .unwrap()
        .to_string();
    // xavier's workspace cannot see alice's scope: 404, no data.
    let reply = rt.post(
        &xavier,
        "/tasks",
        &json!({"parentTaskScope": {"kind": "task", "scopeId": scope}, "tasks": [{"title": "t"}]}),
    );
    assert_error(&reply, 404, "task_scope_not_found");
    // bob is not a member of `secret`: it answers him as a missing board.
    for channel in ["secret", "secrex"] {
        let body = assert_error(
            &rt.post(
                &bob,
                "/tasks/get",
                &json!({"channel": channel, "number": 1}),
            ),
            404,
            "channel_not_found",
        );
        let candidates = body["error"]["candidates"].to_string();
        assert!(!candidates.contains("\"secret\""), "{body}");
    }
    // 422 for a 300 KB unknown field name: the name is not sent back whole.
    let name = "x".repeat(300_000);
    let reply = rt.post(
        &alice,
        "/tasks/get",
        &json!({"channel": "eng", "number": 1, &name: 1}),
    );
    assert_error(&reply, 422, "invalid_input");
    assert!(reply.body.len() < 2_000, "{} bytes", reply.body.len());
    // 404 and 405 from the router.
    let missing = assert_error(&rt.http("GET", "/nope", None, None), 404, "not_found");
    // It says where the routes are, one place per domain.
    assert_eq!(
        missing["error"]["message"],
        "No such route. Agent Runtime routes live under /api/v1/workspaces/{workspaceId}/agents/{agentId}/runtime/tasks.",
    );
    let reply = rt.http("DELETE", &get, Some(&alice.token), None);
    assert_error(&reply, 405, "method_not_allowed");
    assert_eq!(reply.header("allow"), Some("POST"));
    // A route with a GET names HEAD too, which is answered as GET is (here
    // refused for its missing token, not as a method the route lacks).
    let tasks = get.trim_end_matches("/get");
    let reply = rt.http("DELETE", tasks, Some(&alice.token), None);
    assert_error(&reply, 405, "method_not_allowed");
    assert_eq!(reply.header("allow"), Some("GET, HEAD, POST"));
    assert_eq!(rt.http("HEAD", tasks, None, None).status, 401);
    // 400: malformed JSON, a non-object, a bad query value.
    assert_error(
        &rt.http("POST", &get, Some(&alice.token), Some(b"{\"channel\":")),
        400,
        "invalid_json",
    );
    assert_error(
        &rt.http("POST", &get, Some(&alice.token), Some(b"[1]")),
        400,
        "invalid_json",
    );
    // Valid JSON nested past the parser's bound is said as such, as the
    // CLI says it.
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
    let refusal = assert_error(
        &rt.http("POST", &get, Some(&alice.token), Some(deep.as_bytes())),
        400,
        "invalid_json",
    );
    assert!(
        refusal["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nested more than 128 levels deep"),
        "{refusal}"
    );
    // A key given twice, in a body or a JSON query parameter.
    let twice = br#"{"channel": "secret", "number": 1, "channel": "eng"}"#;
    let refusal = assert_error(
        &rt.http("POST", &get, Some(&alice.token), Some(twice)),
        400,
        "invalid_json",
    );
    assert!(
        refusal["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`channel` is given twice"),
        "{refusal}"
    );
    let filters = percent_encoding::utf8_percent_encode(
        r#"{"parent":1,"parent":2}"#,
        percent_encoding::NON_ALPHANUMERIC,
    );
    let refusal = assert_error(
        &rt.http(
            "GET",
            &format!("{}?channel=eng&filters={filters}", alice.path("/tasks")),
            Some(&alice.token),
            None,
        ),
        422,
        "invalid_input",
    );
    assert!(
        refusal["error"]["fieldErrors"]["filters"]
            .as_str()
            .unwrap()
            .contains("`parent` is given twice"),
        "{refusal}"
    );
    let body = assert_error(
        &rt.http(
            "GET",
            &format!("{}?channel=eng&limit=lots", alice.path("/tasks")),
            Some(&alice.token),
            None,
        ),
        422,
        "invalid_input",
    );
    assert!(body["error"]["fieldErrors"]["limit"].is_string());
    // 400: bytes that are not UTF-8 in a query, as in a body; UTF-8
    // percent-encoded is read.
    for (query, status) in [("%ff", 400), ("caf%C3", 400), ("caf%C3%A9", 200)] {
        let reply = rt.http(
            "GET",
            &format!("{}?channel=eng&query={query}", alice.path("/tasks")),
            Some(&alice.token),
            None,
        );
        assert_eq!(reply.status, status, "{query}");
        if status == 400 {
            let body = assert_error(&reply, 400, "invalid_json");
            // Named, as a refused field is.
            assert!(body["error"]["fieldErrors"]["query"].is_string(), "{body}");
        }
    }
    // 422: unknown fields, hidden context, a 10 MB-class title caught by the shared validation.
    let body = assert_error(
        &rt.post(
            &alice,
            "/tasks",
            &json!({"channel": "eng", "tasks": [{"title": "x".repeat(5000)}], "workspaceId": "w"}),
        ),
        422,
        "invalid_input",
    );
    assert!(
        body["error"]["fieldErrors"]["tasks/0/title"].is_string(),
        "{body}"
    );
    assert!(
        body["error"]["fieldErrors"]["workspaceId"].is_string(),
        "{body}"
    );
    // 422: a key in snake_case is no wire name, alone or beside its
    // camelCase spelling, in a body, a query parameter or a query's JSON,
    // and nothing is created.
    let snakes = || {
        ok(
            &rt,
            &alice,
            "list",
            json!({"channel": "eng", "status": "all", "query": "snake"}),
        )
    };
    let before = snakes();
    let snake_create =
        json!({"channel": "eng", "tasks": [{"title": "snake"}], "idempotency_key": "k"});
    let body = assert_error(
        &rt.post(&alice, "/tasks", &snake_create),
        422,
        "invalid_input",
    );
    assert_eq!(
        body["error"]["fieldErrors"]["idempotencyKey"],
        "Unknown field 'idempotency_key'; wire fields are camelCase: use `idempotencyKey`.",
        "{body}"
    );
    assert_eq!(before, snakes(), "a refused create wrote nothing");
    // Said with the input's other problems, in one answer: a client fixes
    // them all in one retry, not the misnamed key first and the rest after.
    let many = json!({"channel": "eng", "tasks": [{"title": ""}], "idempotency_key": "k",
        "colour": "red"});
    let body = assert_error(&rt.post(&alice, "/tasks", &many), 422, "invalid_input");
    let fields = body["error"]["fieldErrors"].as_object().unwrap();
    assert_eq!(
        fields.keys().collect::<Vec<_>>(),
        ["colour", "idempotencyKey", "tasks/0/title"],
        "{body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("3 fields"),
        "{body}"
    );
    let list = format!(
        "{}?channel=eng&include_subtasks=true&limit=0",
        alice.path("/tasks")
    );
    let body = assert_error(
        &rt.http("GET", &list, Some(&alice.token), None),
        422,
        "invalid_input",
    );
    let fields = body["error"]["fieldErrors"].as_object().unwrap();
    assert_eq!(
        fields.keys().collect::<Vec<_>>(),
        ["includeSubtasks", "limit"],
        "{body}"
    );
    assert_eq!(before, snakes(), "a refused create wrote nothing");
    let twice =
        br#"{"channel": "eng", "number": 1, "checkpointsBefore": 1, "checkpoints_before": 2}"#;
    let body = assert_error(
        &rt.http("POST", &get, Some(&alice.token), Some(twice)),
        422,
        "invalid_input",
    );
    assert_eq!(
        body["error"]["fieldErrors"]["checkpointsBefore"],
        "Unknown field 'checkpoints_before'; wire fields are camelCase: use `checkpointsBefore`.",
        "{body}"
    );
    let filters = "%7B%22assignedToMe%22%3Atrue%2C%22assigned_to_me%22%3Afalse%7D";
    let list = format!(
        "{}?channel=eng&include_subtasks=true&filters={filters}",
        alice.path("/tasks")
    );
    let body = assert_error(
        &rt.http("GET", &list, Some(&alice.token), None),
        422,
        "invalid_input",
    );
    assert_eq!(
        body["error"]["fieldErrors"],
        json!({
            "filters/assignedToMe": "Unknown field 'assigned_to_me'; wire fields are camelCase: use `assignedToMe`.",
            "includeSubtasks": "Unknown field 'include_subtasks'; wire fields are camelCase: use `includeSubtasks`.",
        }),
        "{body}"
    );
    // A name no camelCase spelling makes a field of the action (hidden
    // context, a typo) is only unknown: no hint that would fail again.
    let hidden = json!({"channel": "eng", "number": 1, "workspace_id": "w", "check_points": 1});
    let body = assert_error(
        &rt.post(&alice, "/tasks/get", &hidden),
        422,
        "invalid_input",
    );
    assert_eq!(
        body["error"]["fieldErrors"],
        json!({"workspaceId": "Unknown field 'workspace_id'.", "checkPoints": "Unknown field 'check_points'."}),
        "{body}"
    );
    // 413: a declared oversized body is refused before it is sent.
    let headers = vec![
        (
            "Authorization".to_string(),
            format!("Bearer {}", alice.token),
        ),
        ("Content-Length".to_string(), (2 * 1024 * 1024).to_string()),
    ];
    assert_error(
        &raw_http(rt.addr, "POST", &get, &headers, b""),
        413,
        "input_too_large",
    );
    // 413: an undeclared (chunked) oversized body is refused at the limit.
    let chunk = vec![b' '; 256 * 1024];
    let mut chunked = Vec::new();
    for _ in 0..5 {
        chunked.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend_from_slice(&chunk);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let headers = vec![
        (
            "Authorization".to_string(),
            format!("Bearer {}", alice.token),
        ),
        ("Transfer-Encoding".to_string(), "chunked".to_string()),
    ];
    assert_error(
        &raw_http(rt.addr, "POST", &get, &headers, &chunked),
        413,
        "input_too_large",
    );
    // The scheme's name in any case (RFC 9110 §11.1): the token is read
    // (the task is then not found, not the caller refused).
    let missing: &[u8] = br#"{"channel": "eng", "number": 999}"#;
    for scheme in ["BEARER", "bEaReR"] {
        let headers = vec![
            (
                "Authorization".to_string(),
                format!("{scheme} {}", alice.token),
            ),
            ("Content-Length".to_string(), missing.len().to_string()),
        ];
        assert_error(
            &raw_http(rt.addr, "POST", &get, &headers, missing),
            404,
            "task_not_found",
        );
    }
    // A revoked token stops working at once.
    let out = rt.admin(&[
        "token",
        "revoke",
        "--workspace",
        &alice.workspace_id,
        "--agent",
        &alice.agent_id,
    ]);
    assert_eq!(out["revoked"], 1);
    assert_error(
        &rt.http("POST", &get, Some(&alice.token), Some(input)),
        401,
        "unauthorized",
    );
    // The log never carries a token.
    let log = rt.log_containing("status=401");
    assert!(!log.contains(&alice.token) && !log.contains("Bearer"));
}

/// A board name one typo from a board the caller uses is answered with
/// the call on that board, whatever the action, and is the caller's
/// mistake, not the server's: nothing is logged as an error.
fn a_mistyped_board_is_corrected_without_an_error_in_the_log(engine: Engine) {
    let Fixture { rt, alice, .. } = fixture(engine);
    let created = call(
        &rt,
        &alice,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t"}]}),
    );
    assert_eq!(created.status, 201);
    for (verb, input) in [
        ("list", json!({"channel": "eng"})),
        ("get", json!({"channel": "eng", "number": 1})),
        (
            "create",
            json!({"channel": "eng", "tasks": [{"title": "u"}]}),
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "title": "v"}),
        ),
        (
            "checkpoint",
            json!({"channel": "eng", "number": 1, "summary": "s"}),
        ),
        (
            "set_claim",
            json!({"channel": "eng", "numbers": [1], "claimed": true}),
        ),
    ] {
        let mut typo = input.clone();
        typo["channel"] = json!("engg");
        let reply = call(&rt, &alice, verb, typo);
        let body = assert_error(&reply, 404, "channel_not_found");
        let wire = agentteam::case::to_wire(input);
        assert_eq!(
            body["error"]["suggestedAction"]["arguments"], wire,
            "{verb}"
        );
    }
    // The first 200 of the run: its line follows theirs in the log.
    let get = call(&rt, &alice, "get", json!({"channel": "eng", "number": 1}));
    assert_eq!(get.status, 200);
    let log = rt.log_containing("status=200");
    assert!(!log.contains("ERROR"), "{log}");
}

/// A `task_get` reads its input before its token where the store reads the
/// token and the task at once (PostgreSQL), yet its refusals come in the
/// order of every other request's: the token (401), then its path (403),
/// then the input (400, 422), then the task (404).
fn a_task_get_refuses_its_token_before_its_input(engine: Engine) {
    let Fixture {
        rt, alice, xavier, ..
    } = fixture(engine);
    let get = alice.path("/tasks/get");
    let unknown = "at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let malformed: &[u8] = b"{\"channel\":";
    let invalid: &[u8] = br#"{"channel": "eng"}"#;
    let unknown_field: &[u8] = br#"{"channel": "eng", "number": 1, "numbr": 1}"#;
    let missing: &[u8] = br#"{"channel": "eng", "number": 9}"#;
    for body in [malformed, invalid, unknown_field, missing] {
        for token in [None, Some(unknown)] {
            assert_error(
                &rt.http("POST", &get, token, Some(body)),
                401,
                "unauthorized",
            );
        }
        let elsewhere = rt.http(
            "POST",
            &xavier.path("/tasks/get"),
            Some(&alice.token),
            Some(body),
        );
        assert_error(&elsewhere, 403, "forbidden");
    }
    let own = |body: &[u8]| rt.http("POST", &get, Some(&alice.token), Some(body));
    assert_error(&own(malformed), 400, "invalid_json");
    assert_error(&own(invalid), 422, "invalid_input");
    let refusal = assert_error(&own(unknown_field), 422, "invalid_input");
    assert!(
        refusal["error"]["fieldErrors"]["numbr"].is_string(),
        "{refusal}"
    );
    assert_error(&own(missing), 404, "task_not_found");
}

/// No POST route reads a query string: one given (`?dryRun=true` on a
/// delete, which a caller believes in) is refused, after the token as any
/// input is, and nothing changes; each key is named. Nor does a GET read
/// a body.
fn input_a_route_does_not_read_is_refused_and_changes_nothing(engine: Engine) {
    let Fixture {
        rt, alice, xavier, ..
    } = fixture(engine);
    ok(
        &rt,
        &alice,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "kept"}]}),
    );
    let delete = br#"{"channel": "eng", "number": 1}"#;
    let create = br#"{"channel": "eng", "tasks": [{"title": "not made"}]}"#;
    let tasks = alice.path("/tasks");
    for (path, body) in [
        (alice.path("/tasks/delete?dryRun=true"), &delete[..]),
        (format!("{tasks}?channel=eng&dryRun=1"), &create[..]),
        (alice.path("/tasks/get?number=1"), &delete[..]),
    ] {
        assert_error(
            &rt.http("POST", &path, None, Some(body)),
            401,
            "unauthorized",
        );
        let elsewhere = path.replace(&alice.workspace_id, &xavier.workspace_id);
        let reply = rt.http("POST", &elsewhere, Some(&alice.token), Some(body));
        assert_error(&reply, 403, "forbidden");
        let refusal = assert_error(
            &rt.http("POST", &path, Some(&alice.token), Some(body)),
            422,
            "invalid_input",
        );
        let named = refusal["error"]["fieldErrors"].as_object().unwrap();
        let query = path.split_once('?').unwrap().1;
        let keys: Vec<&str> = query
            .split('&')
            .map(|p| p.split('=').next().unwrap())
            .collect();
        assert_eq!(named.keys().collect::<Vec<_>>(), keys, "{refusal}");
        assert!(named[keys[0]].as_str().unwrap().starts_with("Not read: "));
    }
    // The body's own problems are named with the query's keys: one retry
    // fixes both.
    let refusal = assert_error(
        &rt.http(
            "POST",
            &alice.path("/tasks/delete?dryRun=true"),
            Some(&alice.token),
            Some(br#"{"channel": "eng", "numbr": 1}"#),
        ),
        422,
        "invalid_input",
    );
    let named = refusal["error"]["fieldErrors"].as_object().unwrap();
    assert_eq!(
        named.keys().collect::<Vec<_>>(),
        ["dryRun", "numbr"],
        "{refusal}"
    );
    assert!(named["dryRun"].as_str().unwrap().starts_with("Not read: "));
    // A key in both keeps the body's word, with the query's after it.
    let refusal = assert_error(
        &rt.http(
            "POST",
            &alice.path("/tasks/get?number=1"),
            Some(&alice.token),
            Some(br#"{"channel": "eng", "number": "x"}"#),
        ),
        422,
        "invalid_input",
    );
    let said = refusal["error"]["fieldErrors"]["number"].as_str().unwrap();
    assert!(
        said.starts_with("Must be of type integer")
            && said.contains("Also in the query string: Not read: "),
        "{refusal}"
    );
    // More keys than an answer names are said to be more.
    let many: Vec<String> = (0..=100).map(|i| format!("k{i}=1")).collect();
    let refusal = assert_error(
        &rt.http(
            "POST",
            &alice.path(&format!("/tasks/get?{}", many.join("&"))),
            Some(&alice.token),
            Some(delete),
        ),
        422,
        "invalid_input",
    );
    assert!(
        refusal["error"]["message"]
            .as_str()
            .unwrap()
            .contains("more than 100"),
        "{refusal}"
    );
    // A body that is no JSON is said beside the keys.
    let refusal = assert_error(
        &rt.http(
            "POST",
            &alice.path("/tasks/get?dryRun=1"),
            Some(&alice.token),
            Some(br#"{"channel": "eng","#),
        ),
        422,
        "invalid_input",
    );
    let message = refusal["error"]["message"].as_str().unwrap();
    assert!(message.contains("The body too: "), "{refusal}");
    // A body declared but not sent is not waited for: the query's refusal
    // alone, at once (not the body's timeout).
    let headers = [
        (
            "Authorization".to_string(),
            format!("Bearer {}", alice.token),
        ),
        ("Content-Type".to_string(), "application/json".to_string()),
        ("Content-Length".to_string(), "50".to_string()),
    ];
    let refusal = assert_error(
        &raw_http(
            rt.addr,
            "POST",
            &alice.path("/tasks/get?dryRun=1"),
            &headers,
            b"",
        ),
        422,
        "invalid_input",
    );
    assert!(
        refusal["error"]["fieldErrors"]["dryRun"].is_string(),
        "{refusal}"
    );
    // A key that is not UTF-8 text once decoded is not shown.
    let reply = rt.http(
        "POST",
        &alice.path("/tasks/delete?%ff=1"),
        Some(&alice.token),
        Some(delete),
    );
    let refusal = assert_error(&reply, 422, "invalid_input");
    assert!(refusal["error"].get("fieldErrors").is_none(), "{refusal}");
    // Nothing was deleted or made; without the query, the same calls work.
    let list = ok(&rt, &alice, "list", json!({"channel": "eng"}));
    let titles: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["kept"]);
    assert_eq!(
        rt.http(
            "POST",
            &alice.path("/tasks/delete?"),
            Some(&alice.token),
            Some(delete)
        )
        .status,
        200
    );
    // A list's input sent as a body is refused, not answered unfiltered;
    // an empty body is no input.
    let list = format!("{tasks}?channel=eng");
    let filters = br#"{"filters": {"assignee": "@bob"}}"#;
    assert_error(
        &rt.http("GET", &list, None, Some(filters)),
        401,
        "unauthorized",
    );
    let refusal = assert_error(
        &rt.http("GET", &list, Some(&alice.token), Some(filters)),
        422,
        "invalid_input",
    );
    let message = refusal["error"]["message"].as_str().unwrap();
    assert!(message.contains("query string alone"), "{refusal}");
    // The query's own problems are said with it.
    let refusal = assert_error(
        &rt.http(
            "GET",
            &format!("{list}&limt=5"),
            Some(&alice.token),
            Some(filters),
        ),
        422,
        "invalid_input",
    );
    assert!(
        refusal["error"]["fieldErrors"]["limt"].is_string(),
        "{refusal}"
    );
    let message = refusal["error"]["message"].as_str().unwrap();
    assert!(message.contains("The body too: Not read"), "{refusal}");
    let reply = rt.http("GET", &list, Some(&alice.token), Some(b""));
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
}

fn admin_commands_print_one_json_object(engine: Engine) {
    let rt = Runtime::start_on(engine);
    let ws = rt.workspace("w");
    let agent = rt.agent(&ws, "@ann");
    rt.channel(&ws, "eng");
    // token issue is what a credential_process prints: a usable token.
    let issued = rt.admin(&["token", "issue", "--workspace", &ws, "--agent", "@ann"]);
    let mut keys: Vec<_> = issued.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["expires_at", "scope", "token"], "{issued}");
    let fresh = Agent {
        token: issued["token"].as_str().unwrap().to_string(),
        ..agent.clone()
    };
    assert_eq!(
        call(&rt, &fresh, "list", json!({"channel": "eng"})).status,
        200
    );
    assert_eq!(
        call(&rt, &agent, "list", json!({"channel": "eng"})).status,
        200
    );
    let callback = rt.open_callback(&ws, &agent.agent_id);
    let effect = callback["callback_effect_id"].as_str().unwrap();
    assert!(effect.starts_with("cbe_"));
    assert!(
        callback["workflow_run_id"]
            .as_str()
            .unwrap()
            .starts_with("run_")
    );
    let done = rt.admin(&[
        "callback",
        "complete",
        "--workspace",
        &ws,
        "--callback-effect",
        effect,
    ]);
    assert_eq!(
        done,
        json!({"callback_effect_id": effect, "status": "completed"})
    );
    // The longest names the registry's fields allow are accepted.
    rt.admin(&[
        "agent",
        "create",
        "--workspace",
        &ws,
        "--handle",
        &"h".repeat(39),
    ]);
    rt.admin(&[
        "channel",
        "create",
        "--workspace",
        &ws,
        "--name",
        &"c".repeat(80),
    ]);
    let (long_handle, long_channel) = ("h".repeat(40), "c".repeat(81));
    // Refusals: one error document on stdout, a non-zero exit.
    for args in [
        vec![
            "agent",
            "create",
            "--workspace",
            &ws,
            "--handle",
            "Bad Handle",
        ],
        vec!["agent", "create", "--workspace", &ws, "--handle", "ann"],
        vec![
            "agent",
            "create",
            "--workspace",
            "ws_nope",
            "--handle",
            "zed",
        ],
        vec!["channel", "create", "--workspace", &ws, "--name", "eng"],
        vec![
            "channel",
            "create",
            "--workspace",
            &ws,
            "--name",
            "p",
            "--members",
            "@ghost",
        ],
        vec!["token", "issue", "--workspace", &ws, "--agent", "@ghost"],
        // Names follow the registry's own fields: member ref ≤ 40 with the
        // `@`, channel ≤ 80, their patterns.
        vec![
            "agent",
            "create",
            "--workspace",
            &ws,
            "--handle",
            &long_handle,
        ],
        vec!["channel", "create", "--workspace", &ws, "--name", "Eng"],
        vec![
            "channel",
            "create",
            "--workspace",
            &ws,
            "--name",
            &long_channel,
        ],
    ] {
        let out = rt.admin_output(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
        assert_eq!(doc["error"]["code"], "invalid_input", "{args:?}");
    }
    // A bad flag is refused by the argument parser before anything starts.
    let out = rt.admin_output(&["serve", "--listen", "127.0.0.1:0", "--workers", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--workers"));
}

// Concurrent claims, keyed replays and gapless numbering under concurrent
// writers are tested at scale in `reliability_concurrency`.

fn acknowledged_writes_survive_kill_9(engine: Engine) {
    let mut rt = Runtime::start_on(engine);
    let ws = rt.workspace("w");
    rt.channel(&ws, "eng");
    let agent = rt.agent(&ws, "a");
    for i in 0..5 {
        ok(
            &rt,
            &agent,
            "create",
            json!({"channel": "eng", "tasks": [{"title": format!("durable {i}")}]}),
        );
    }
    ok(
        &rt,
        &agent,
        "checkpoint",
        json!({"channel": "eng", "number": 5, "summary": "acked"}),
    );
    rt.kill9_and_restart();
    let detail = ok(&rt, &agent, "get", json!({"channel": "eng", "number": 5}));
    assert_eq!(detail["title"], "durable 4");
    assert_eq!(detail["checkpoints"]["total"], 1);
    let next = ok(
        &rt,
        &agent,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "after"}]}),
    );
    assert_eq!(next["tasks"][0]["number"], 6);
}

fn sigterm_shuts_down_gracefully(engine: Engine) {
    let mut rt = Runtime::start_on(engine);
    let status = std::process::Command::new("kill")
        .args(["-TERM", &rt.child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let exit = rt.child.wait().expect("wait");
    assert!(exit.success(), "{exit:?}");
    let log = std::fs::read_to_string(rt.dir.path().join("runtime.log")).unwrap();
    assert!(log.contains("shutting down"), "{log}");
}

/// A clean stop of the SQLite runtime checkpoints and closes every
/// connection: no `-wal` or `-shm` file is left beside the store, and what
/// was written is in the database file itself.
#[test]
fn sqlite_clean_stop_leaves_no_wal_or_shm_and_keeps_the_data() {
    let mut rt = Runtime::start_on(Engine::Sqlite);
    let ws = rt.workspace("w");
    rt.channel(&ws, "eng");
    let agent = rt.agent(&ws, "a");
    ok(
        &rt,
        &agent,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "kept"}]}),
    );
    let sidecar = |suffix: &str| std::path::PathBuf::from(format!("{}{suffix}", rt.db));
    assert!(sidecar("-wal").exists(), "a serving store is in WAL mode");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &rt.child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    assert!(rt.child.wait().expect("wait").success());
    for suffix in ["-wal", "-shm"] {
        assert!(
            !sidecar(suffix).exists(),
            "{suffix} left after a clean stop"
        );
    }
    // The data is in the database file, read without the server.
    assert_eq!(
        rt.scalar("SELECT count(*) FROM tasks WHERE title = 'kept'"),
        1
    );
    rt.kill9_and_restart();
    let detail = ok(&rt, &agent, "get", json!({"channel": "eng", "number": 1}));
    assert_eq!(detail["title"], "kept");
}

fn quickstart_writes_a_profile_whose_credential_process_works_and_is_rerunnable(engine: Engine) {
    let rt = Runtime::start_on(engine);
    let config = rt.dir.path().join("config");
    let quickstart = |profile: &str| -> Value {
        let out = std::process::Command::new(crate::support::runtime::BIN)
            .arg("--db")
            .arg(&rt.db)
            .args([
                "quickstart",
                "--api-url",
                &rt.base_url(),
                "--profile",
                profile,
            ])
            .env("AGENTTEAM_CONFIG_DIR", &config)
            .output()
            .expect("quickstart");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("one JSON object")
    };
    let first = quickstart("default");
    assert_eq!(first["created"].as_array().unwrap().len(), 4, "{first}");
    assert!(
        first["next"][1]
            .as_str()
            .unwrap()
            .contains("agentteam exec task list -")
    );
    let again = quickstart("second");
    assert_eq!(again["created"], json!([]), "a rerun reuses everything");
    assert_eq!(again["agent_id"], first["agent_id"]);

    let file: Value =
        serde_json::from_slice(&std::fs::read(config.join("credentials.json")).unwrap()).unwrap();
    assert_eq!(file["default_profile"], "default");
    let profile = &file["profiles"]["default"];
    assert_eq!(profile["api_url"], rt.base_url());
    assert!(
        profile.get("token").is_none(),
        "tokens come from the credential process"
    );
    let argv: Vec<String> = serde_json::from_value(profile["credential_process"].clone()).unwrap();
    let out = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .output()
        .unwrap();
    assert!(out.status.success());
    let token: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Short-lived: the process asks for 15 minutes and says when it ends.
    assert_eq!(argv[argv.len() - 2..], ["--ttl", "15m"], "{argv:?}");
    let expires = time::OffsetDateTime::parse(
        token["expires_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let left = expires - time::OffsetDateTime::now_utc();
    assert!(
        left > time::Duration::minutes(14) && left <= time::Duration::minutes(15),
        "{token}"
    );
    assert_eq!(token["scope"], "destructive");
    let agent = Agent {
        workspace_id: profile["workspace_id"].as_str().unwrap().to_string(),
        agent_id: profile["agent_id"].as_str().unwrap().to_string(),
        token: token["token"].as_str().unwrap().to_string(),
    };
    let listed = ok(&rt, &agent, "list", json!({"channel": "demo"}));
    assert_eq!(listed["items"], json!([]));
}

/// Quickstarts run at once on one fresh store (two replicas' start-up
/// scripts): each finds or creates the demo, and one made by another
/// meanwhile is reused, never refused as existing.
fn quickstarts_at_once_on_one_store_all_reuse_one_demo(engine: Engine) {
    let rt = Runtime::start_on(engine);
    let runs: Vec<std::process::Child> = (0..6)
        .map(|i| {
            let config = rt.dir.path().join(format!("config{i}"));
            std::process::Command::new(crate::support::runtime::BIN)
                .arg("--db")
                .arg(&rt.db)
                .args(["quickstart", "--api-url", &rt.base_url()])
                .env("AGENTTEAM_CONFIG_DIR", &config)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("quickstart")
        })
        .collect();
    let answers: Vec<Value> = runs
        .into_iter()
        .map(|run| {
            let out = run.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).expect("one JSON object")
        })
        .collect();
    let agents: std::collections::BTreeSet<&str> = answers
        .iter()
        .map(|a| a["agent_id"].as_str().unwrap())
        .collect();
    assert_eq!(agents.len(), 1, "{answers:?}");
    let created: usize = answers
        .iter()
        .map(|a| a["created"].as_array().unwrap().len())
        .sum();
    assert_eq!(created, 4, "each part created once: {answers:?}");
}

/// A method HTTP does not define is refused, and the request's log line
/// does not carry it: any token is a method on the wire, of any length
/// (one of 350 KB made a 350 KB line per request).
#[test]
fn a_method_http_does_not_define_is_refused_and_not_logged() {
    let rt = Runtime::start_on(Engine::Sqlite);
    let method = "X".repeat(100_000);
    let reply = raw_http(rt.addr, &method, "/healthz", &[], b"");
    assert_error(&reply, 405, "method_not_allowed");
    let log = rt.log_containing("method=<other>");
    assert!(!log.contains("XXXX"), "the method was logged");
}

/// RFC 9112 §3.2: an HTTP/1.1 request without exactly one `Host` that is a
/// host and port is answered 400, with no body, and its connection closed;
/// a create sent so makes nothing. HTTP/1.0 may omit it; an empty one is a
/// host-less authority and is served.
#[test]
fn a_request_without_one_valid_host_is_refused() {
    use std::io::{Read, Write};

    let rt = Runtime::start_on(Engine::Sqlite);
    let w = rt.workspace("w");
    let alice = rt.agent(&w, "alice");
    rt.channel(&w, "eng");
    let ask = |head: String| -> String {
        let mut stream = std::net::TcpStream::connect(rt.addr).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        let mut answer = Vec::new();
        // To the end: a refused request's connection is closed.
        stream.read_to_end(&mut answer).unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    };
    let refused = |head: &str| {
        let answer = ask(format!("{head}\r\n"));
        // HTTP/1.0 is answered in its own version.
        assert!(answer[8..].starts_with(" 400 "), "{head:?}: {answer}");
        assert!(
            answer.ends_with("\r\n\r\n"),
            "a body for {head:?}: {answer}"
        );
        assert!(answer.contains("connection: close"), "{head:?}: {answer}");
    };
    refused("GET /healthz HTTP/1.1\r\n");
    refused("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n");
    refused("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: a\r\n");
    refused("GET /healthz HTTP/1.1\r\nHost: user@a\r\n");
    refused("GET /healthz HTTP/1.1\r\nHost: a/b\r\n");
    refused("GET /healthz HTTP/1.0\r\nHost: a\r\nHost: b\r\n");
    let body = r#"{"channel":"eng","tasks":[{"title":"Sent without a Host"}]}"#;
    refused(&format!(
        "POST {} HTTP/1.1\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        alice.path("/tasks"),
        alice.token,
        body.len()
    ));
    let list = ok(&rt, &alice, "list", json!({ "channel": "eng" }));
    assert_eq!(list["items"], json!([]), "the create was made");

    for head in [
        "GET /healthz HTTP/1.0\r\n",
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nConnection: close\r\n",
        "GET /healthz HTTP/1.1\r\nHost: [::1]:8787\r\nConnection: close\r\n",
        "GET /healthz HTTP/1.1\r\nHost: agentteam.internal\r\nConnection: close\r\n",
        "GET /healthz HTTP/1.1\r\nHost:\r\nConnection: close\r\n",
    ] {
        let answer = ask(format!("{head}\r\n"));
        assert!(answer[8..].starts_with(" 200 "), "{head:?}: {answer}");
    }
}

/// Field errors are keyed by wire paths. A key sent as no name is named
/// as sent (`_` and `__` were both `""`, `a_1` was `a1`), and two that
/// still meet (`a_b` as sent and `aB`) are said under one key with both
/// problems: the answer is one JSON object with distinct keys (it held
/// `""` twice) and loses no error (`a_b`'s was lost).
#[test]
fn field_errors_are_keyed_as_sent_and_each_key_said_once() {
    let rt = Runtime::start_on(Engine::Sqlite);
    let w = rt.workspace("w");
    let alice = rt.agent(&w, "alice");
    rt.channel(&w, "eng");
    let field_errors = |query: &str, body: &[u8]| -> serde_json::Map<String, Value> {
        let path = format!("{}{query}", alice.path("/tasks/get"));
        let reply = rt.http("POST", &path, Some(&alice.token), Some(body));
        let text = String::from_utf8_lossy(&reply.body).into_owned();
        assert_eq!(reply.status, 422, "{text}");
        let document =
            agentteam::json::from_slice(&reply.body).unwrap_or_else(|e| panic!("{e:?}: {text}"));
        document["error"]["fieldErrors"]
            .as_object()
            .unwrap()
            .clone()
    };
    let get = br#"{"channel":"eng","number":1}"#;
    let keys = |errors: &serde_json::Map<String, Value>| errors.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        keys(&field_errors("?_=1&__=2&a_1=3", get)),
        ["_", "__", "a_1"]
    );
    let errors = field_errors(
        "",
        br#"{"channel":"eng","number":1,"_":1,"__proto__":2,"a_b":1,"aB":2}"#,
    );
    assert_eq!(keys(&errors), ["_", "__proto__", "aB"], "{errors:?}");
    for (key, names) in [
        ("_", &["'_'"][..]),
        ("__proto__", &["'__proto__'"]),
        ("aB", &["'a_b'", "Unknown field; the fields here are"]),
    ] {
        let said = errors[key].as_str().unwrap();
        for name in names {
            assert!(said.contains(name), "{key}: {said}");
        }
    }
}
