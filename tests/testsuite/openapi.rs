//! openapi.json: valid OpenAPI 3.1, served and printed as checked in, and
//! true to the server. (The drift test holds the file to the registry; the
//! end-to-end tests hold every exchange they make to it through
//! `support::openapi::ConformingProxy`; scripts/schemathesis.sh fuzzes it.)

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::openapi::{self, Exchange, Spec};
use crate::support::runtime::{BIN, Runtime};

fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn checked_in() -> String {
    std::fs::read_to_string(root().join("openapi.json")).unwrap()
}

/// The OpenAPI 3.1 schema (https://spec.openapis.org/oas/3.1/schema/2022-10-07),
/// vendored: CI has no network.
fn oas_schema() -> Value {
    let text = std::fs::read_to_string(root().join("tests/openapi/oas-3.1-schema-2022-10-07.json"))
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn the_document_is_valid_openapi_3_1() {
    let schema = oas_schema();
    assert_eq!(
        schema["$id"],
        "https://spec.openapis.org/oas/3.1/schema/2022-10-07"
    );
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let doc: Value = serde_json::from_str(&checked_in()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "openapi.json breaks OAS 3.1: {errors:#?}"
    );

    // The meta-schema holds the document's structure; its schemas must also
    // be JSON Schema 2020-12, its references resolve, its examples fit.
    let doc = openapi::document();
    for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
        jsonschema::meta::validate(schema).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            operations += 1;
            if let Some(body) = op.get("requestBody") {
                let media = &body["content"]["application/json"];
                let validator = jsonschema::draft202012::new(&media["schema"]).unwrap();
                for (name, example) in media["examples"].as_object().unwrap() {
                    let errors: Vec<String> = validator
                        .iter_errors(&example["value"])
                        .map(|e| e.to_string())
                        .collect();
                    assert!(errors.is_empty(), "{method} {path} {name}: {errors:?}");
                    // A key the runtime replays only inside a workflow
                    // callback comes with the context the CLI sends beside
                    // it, or the example could never succeed on the wire.
                    let action = agentteam::registry::ACTIONS
                        .iter()
                        .find(|a| op["operationId"] == a.name())
                        .unwrap();
                    if example["value"].get("idempotencyKey").is_some() {
                        for context in action.hidden_context {
                            if let Some(wire) = context.wire_name() {
                                assert!(
                                    example["value"][wire].is_string(),
                                    "{path} {name}: no {wire} beside its idempotencyKey"
                                );
                            }
                        }
                    }
                }
            }
            for param in op["parameters"].as_array().into_iter().flatten() {
                let schema = param
                    .get("schema")
                    .unwrap_or(&param["content"]["application/json"]["schema"]);
                jsonschema::meta::validate(schema).unwrap();
            }
            for (status, response) in op["responses"].as_object().unwrap() {
                let Some(content) = response.get("content") else {
                    // Only the HTTP layer's own refusals, and the health
                    // routes' successes, have no body.
                    let health = ["/healthz", "/readyz"].contains(&path.as_str());
                    assert!(
                        ["414", "431"].contains(&status.as_str()) || (health && status == "200"),
                        "{path} {status}"
                    );
                    continue;
                };
                let schema = &content["application/json"]["schema"];
                jsonschema::meta::validate(schema)
                    .unwrap_or_else(|e| panic!("{method} {path} {status}: {e}"));
            }
        }
    }
    // Every action, and the three service routes (health, readiness, this
    // document).
    assert_eq!(operations, agentteam::registry::ACTIONS.len() + 3);
}

/// The vendored schema is the real one: it refuses what OAS 3.1 refuses.
#[test]
fn the_oas_schema_refuses_a_broken_document() {
    let validator = jsonschema::draft202012::new(&oas_schema()).unwrap();
    let mut doc: Value = serde_json::from_str(&checked_in()).unwrap();
    assert!(validator.is_valid(&doc));
    doc["openapi"] = json!("3.0.3");
    assert!(!validator.is_valid(&doc), "3.0 is not 3.1");
    let mut doc: Value = serde_json::from_str(&checked_in()).unwrap();
    let paths = doc["paths"].as_object_mut().unwrap();
    let (_, item) = paths.iter_mut().next().unwrap();
    item["post"]["responses"] = json!({"2000": {"description": "bad status"}});
    assert!(!validator.is_valid(&doc), "a status is three digits");
}

#[test]
fn the_runtime_serves_and_prints_the_checked_in_document() {
    let runtime = Runtime::start();
    let reply = runtime.http("GET", "/api/v1/openapi.json", None, None);
    assert_eq!(reply.status, 200, "no token needed: {reply:?}");
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(String::from_utf8(reply.body.clone()).unwrap(), checked_in());
    // Another method is the JSON 405 every route answers, here and on the
    // other unauthenticated routes.
    for path in ["/api/v1/openapi.json", "/healthz", "/readyz"] {
        let reply = runtime.http("POST", path, None, Some(b"{}"));
        assert_eq!(reply.status, 405, "{path}: {reply:?}");
        assert_eq!(reply.code(), "method_not_allowed", "{path}");
        assert_eq!(reply.header("allow"), Some("GET, HEAD"), "{path}");
        // HEAD, which `Allow` names, is answered as GET is, without a body.
        let reply = runtime.http("HEAD", path, None, None);
        assert_eq!(reply.status, 200, "{path}: {reply:?}");
        assert!(reply.body.is_empty(), "{path}");
    }

    let output = Command::new(BIN)
        .arg("openapi")
        .env_clear()
        .env("HOME", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8(output.stdout).unwrap(), checked_in());
}

/// The conformance check the end-to-end tests rely on finds what it should.
#[test]
fn the_conformance_check_finds_departures_from_the_document() {
    let spec = Spec::new();
    let get = |status: u16, answer: Value| Exchange {
        method: "POST".into(),
        path: "/api/v1/workspaces/ws_1/agents/ag_1/runtime/tasks/get".into(),
        query: Vec::new(),
        request_headers: vec![
            ("Authorization".into(), "Bearer at_x".into()),
            ("Content-Type".into(), "application/json".into()),
        ],
        request_body: br#"{"channel": "eng", "number": 3}"#.to_vec(),
        status,
        response_headers: vec![("content-type".into(), "application/json".into())],
        response_body: answer.to_string().into_bytes(),
    };
    let not_found =
        json!({"error": {"code": "task_not_found", "message": "No.", "retryable": false}});
    assert_eq!(
        spec.check(&get(404, not_found.clone())),
        Vec::<String>::new()
    );

    // What `serve --rate-limit` answers a token past its limit.
    let limited = json!({"error": {"code": "rate_limited", "message": "Retry in 20 s.",
        "retryable": true, "details": {"retryAfterSeconds": 20}}});
    let mut x = get(429, limited);
    x.response_headers.push(("retry-after".into(), "20".into()));
    assert_eq!(spec.check(&x), Vec::<String>::new());
    // ... and with the headers the document declares for its status.
    let mut without = x.clone();
    without.response_headers.pop();
    assert!(
        spec.check(&without)
            .join("\n")
            .contains("no Retry-After header")
    );
    x.response_headers[1].1 = "soon".into();
    assert!(spec.check(&x).join("\n").contains("header Retry-After"));
    let unauthorized =
        json!({"error": {"code": "unauthorized", "message": "No.", "retryable": false}});
    let mut x = get(401, unauthorized);
    assert!(
        spec.check(&x)
            .join("\n")
            .contains("no WWW-Authenticate header")
    );
    x.response_headers
        .push(("www-authenticate".into(), "Bearer".into()));
    assert_eq!(spec.check(&x), Vec::<String>::new());

    let problems = |x: Exchange| spec.check(&x).join("\n");
    assert!(problems(get(418, not_found.clone())).contains("undocumented status 418"));
    let conflict =
        json!({"error": {"code": "task_update_conflict", "message": "No.", "retryable": false}});
    assert!(problems(get(409, conflict)).contains("undocumented status 409"));
    let wrong_code =
        json!({"error": {"code": "channel_not_found", "message": "No.", "retryable": false}});
    assert_eq!(problems(get(404, wrong_code)), "");
    let forbidden_as_404 =
        json!({"error": {"code": "not_task_creator", "message": "No.", "retryable": false}});
    assert!(problems(get(404, forbidden_as_404)).contains("does not document"));
    let snake = json!({"error": {"code": "invalid_input", "message": "No.", "retryable": false, "field_errors": {}}});
    assert!(problems(get(422, snake)).contains("field_errors"));

    let mut x = get(404, not_found.clone());
    x.request_body = br#"{"channel": "eng", "number": 3, "expected_updated_at": "x"}"#.to_vec();
    assert!(problems(x).contains("request body"));
    let mut x = get(404, not_found.clone());
    x.request_headers.remove(0);
    assert!(problems(x).contains("bearer"));
    let mut x = get(404, not_found);
    x.response_headers[0].1 = "text/html".into();
    assert!(problems(x).contains("content type"));

    let list = |query: Vec<(&str, &str)>| Exchange {
        method: "GET".into(),
        path: "/api/v1/workspaces/ws_1/agents/ag_1/runtime/tasks".into(),
        query: query
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        request_headers: vec![("Authorization".into(), "Bearer at_x".into())],
        request_body: Vec::new(),
        status: 200,
        response_headers: vec![("content-type".into(), "application/json".into())],
        response_body: br#"{"items": [], "nextCursor": "c"}"#.to_vec(),
    };
    assert_eq!(
        spec.check(&list(vec![
            ("channel", "eng"),
            ("limit", "5"),
            ("filters", r#"{"assignedToMe":true}"#)
        ])),
        Vec::<String>::new()
    );
    assert!(problems(list(vec![])).contains("required parameter channel"));
    assert!(problems(list(vec![("channel", "eng"), ("limit", "500")])).contains("limit"));
    assert!(
        problems(list(vec![("channel", "eng"), ("include_subtasks", "true")]))
            .contains("undocumented query parameter")
    );
    // A result field this version does not describe is a departure here,
    // though the published document leaves results open to one a later
    // version adds (§11.1).
    let mut added = list(vec![("channel", "eng")]);
    added.response_body = br#"{"items": [], "addedLater": 1}"#.to_vec();
    assert!(problems(added).contains("addedLater"));
    let published = &openapi::document()["components"]["schemas"]["TaskListResponse"];
    assert!(published["properties"]["items"].is_object());
    assert!(
        published.get("additionalProperties").is_none(),
        "{published}"
    );
}

/// What the HTTP layer refuses before the API reads it (a request target
/// or a head past its bounds) is answered as the document says: 414 or
/// 431, with no body.
#[test]
fn the_http_layers_own_refusals_are_documented() {
    use crate::support::runtime::raw_http;
    use agentteam::wire::{MAX_HEAD_BYTES, MAX_HEADERS, MAX_URI_BYTES};

    let runtime = Runtime::start();
    let w = runtime.workspace("w");
    let agent = runtime.agent(&w, "alice");
    runtime.channel(&w, "eng");
    let list = agent.path("/tasks");
    let auth = vec![(
        "Authorization".to_string(),
        format!("Bearer {}", agent.token),
    )];
    let spec = Spec::new();
    let check = |reply: &crate::support::runtime::Reply| Exchange {
        method: "GET".into(),
        path: list.clone(),
        query: vec![("channel".into(), "eng".into())],
        request_headers: auth.clone(),
        request_body: Vec::new(),
        status: reply.status,
        response_headers: reply.headers.clone(),
        response_body: reply.body.clone(),
    };

    let target = format!("{list}?channel=eng&query={}", "a".repeat(MAX_URI_BYTES));
    let reply = raw_http(runtime.addr, "GET", &target, &auth, b"");
    assert_eq!((reply.status, reply.body.len()), (414, 0), "{reply:?}");
    assert_eq!(spec.check(&check(&reply)), Vec::<String>::new());

    // The head's byte bound is checked between reads (`wire::MAX_HEAD_BYTES`),
    // so both bounds are passed twice over.
    let many: Vec<(String, String)> = (0..2 * MAX_HEADERS)
        .map(|i| (format!("X-Extra-{i}"), "1".to_string()))
        .chain(auth.clone())
        .collect();
    let big = vec![
        ("X-Big".to_string(), "b".repeat(2 * MAX_HEAD_BYTES)),
        auth[0].clone(),
    ];
    for headers in [many, big] {
        let reply = raw_http(
            runtime.addr,
            "GET",
            &format!("{list}?channel=eng"),
            &headers,
            b"",
        );
        assert_eq!((reply.status, reply.body.len()), (431, 0), "{reply:?}");
        assert_eq!(spec.check(&check(&reply)), Vec::<String>::new());
    }
    // Within both bounds the API answers.
    let near: Vec<(String, String)> = (0..MAX_HEADERS - 4)
        .map(|i| (format!("X-Extra-{i}"), "1".to_string()))
        .chain([("X-Big".to_string(), "b".repeat(MAX_HEAD_BYTES / 2))])
        .chain(auth.clone())
        .collect();
    let reply = raw_http(
        runtime.addr,
        "GET",
        &format!("{list}?channel=eng"),
        &near,
        b"",
    );
    assert_eq!(reply.status, 200, "{reply:?}");
}
