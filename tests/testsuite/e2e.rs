//! End to end: the real `agentteam` CLI against the real `agentteam-runtime`
//! on 127.0.0.1:0 with a temp store — every rule of product.md §7 as an
//! agent sees it, through stdin, the credential store and real HTTP. Every
//! success document is checked against the action's `--output-schema`, and
//! every request and answer on the wire against openapi.json (the CLIs call
//! the runtime through a `ConformingProxy`).

use agentteam::registry;
use serde_json::{Value, json};

use crate::support::cli::{Cli, Run};
use crate::support::openapi::ConformingProxy;
use crate::support::runtime::{Agent, Engine, Runtime};

on_every_engine!(
    numbers_are_board_local_and_never_reused,
    a_rich_single_task_keeps_every_field,
    subtasks_by_parent_and_by_exact_scope,
    bad_task_scopes_are_refused_before_any_write,
    target_is_provenance_and_a_conflicting_board_is_refused,
    list_browses_searches_filters_and_pages,
    update_clears_nullable_fields_and_guards_stale_writes,
    checkpoints_append_and_get_bounds_them,
    set_claim_is_a_desired_state_with_per_task_failures,
    many_agents_claiming_one_task_leave_exactly_one_owner,
    delete_rules,
    idempotent_creates_replay_inside_a_callback,
    concurrent_replays_create_once,
    concurrent_keyed_checkpoints_append_once,
    a_refreshing_credential_process_recovers_from_a_revoked_token,
    dry_run_and_batch_against_the_runtime,
);

/// One agent's view: a hermetic CLI logged in with that agent's token.
struct Member {
    cli: Cli,
    agent: Agent,
}

impl Member {
    fn join(api_url: &str, agent: Agent) -> Member {
        let cli = Cli::new();
        let run = cli.run(
            &[
                "auth",
                "login",
                "--api-url",
                api_url,
                "--workspace",
                &agent.workspace_id,
                "--agent",
                &agent.agent_id,
                "--token-stdin",
            ],
            Some(&agent.token),
        );
        assert_eq!(run.code, 0, "{run:?}");
        Member { cli, agent }
    }

    /// Runs an action; a success is validated against its output schema.
    fn exec(&self, verb: &str, input: Value) -> Run {
        let run = self.cli.exec("task", verb, &input.to_string(), &[]);
        if run.code == 0 {
            let action = registry::find("task", verb).unwrap();
            let validator = jsonschema::draft202012::new(&action.closed_output_schema()).unwrap();
            let doc = run.json();
            let errors: Vec<String> = validator
                .iter_errors(&doc)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(
                errors.is_empty(),
                "{verb} output breaks its schema: {errors:?}\n{doc}"
            );
        }
        run
    }

    fn ok(&self, verb: &str, input: Value) -> Value {
        let run = self.exec(verb, input.clone());
        assert_eq!(run.code, 0, "{verb} {input}: {run:?}");
        run.json()["data"].take()
    }

    fn fails(&self, verb: &str, input: Value, code: &str, exit: i32) -> Value {
        let run = self.exec(verb, input.clone());
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (exit, code),
            "{verb} {input}: {run:?}"
        );
        run.json()["error"].take()
    }

    fn create(&self, input: Value) -> Vec<Value> {
        self.ok("create", input)["tasks"]
            .as_array()
            .unwrap()
            .clone()
    }
}

struct Board {
    runtime: Runtime,
    /// What the CLIs call: every exchange is checked against openapi.json.
    proxy: ConformingProxy,
    workspace: String,
    alice: Member,
    bob: Member,
}

fn board(engine: Engine) -> Board {
    let runtime = Runtime::start_on(engine);
    let proxy = ConformingProxy::start(runtime.addr);
    let workspace = runtime.workspace("acme");
    runtime.channel(&workspace, "eng");
    runtime.channel(&workspace, "ops");
    let alice = Member::join(&proxy.url, runtime.agent(&workspace, "alice"));
    let bob = Member::join(&proxy.url, runtime.agent(&workspace, "bob"));
    Board {
        runtime,
        proxy,
        workspace,
        alice,
        bob,
    }
}

fn numbers(tasks: &[Value]) -> Vec<u64> {
    tasks
        .iter()
        .map(|t| t["number"].as_u64().unwrap())
        .collect()
}

fn numbers_are_board_local_and_never_reused(engine: Engine) {
    let b = board(engine);
    let first = b.alice.create(
        json!({"channel": "eng", "tasks": [{"title": "a"}, {"title": "b"}, {"title": "c"}]}),
    );
    assert_eq!(numbers(&first), vec![1, 2, 3]);
    assert_eq!(
        numbers(
            &b.alice
                .create(json!({"channel": "ops", "tasks": [{"title": "x"}]}))
        ),
        vec![1],
        "numbers are per board"
    );
    b.alice.ok("delete", json!({"channel": "eng", "number": 3}));
    assert_eq!(
        numbers(
            &b.alice
                .create(json!({"channel": "eng", "tasks": [{"title": "d"}]}))
        ),
        vec![4],
        "3 is never reused"
    );
    b.alice.fails(
        "get",
        json!({"channel": "eng", "number": 3}),
        "task_not_found",
        4,
    );
}

fn a_rich_single_task_keeps_every_field(engine: Engine) {
    let b = board(engine);
    let task = &b.alice.create(json!({"channel": "eng", "tasks": [{
        "title": "Fix login", "description": "Token refresh races logout.", "status": "in_progress", "priority": "high",
        "assignee": "@bob", "labels": ["auth", "bug"], "checklist": [{"text": "repro"}, {"text": "fix", "done": true}],
        "urls": ["https://example.com/issue/1"], "attachments": [{"name": "trace.txt", "url": "https://example.com/trace.txt", "size_bytes": 120}],
        "blocker": "needs staging access"}]}))[0];
    assert_eq!(
        (
            task["status"].as_str(),
            task["priority"].as_str(),
            task["assignee"].as_str()
        ),
        (Some("in_progress"), Some("high"), Some("@bob"))
    );
    assert_eq!(task["created_by"], "@alice");
    let detail = b.bob.ok("get", json!({"channel": "eng", "number": 1}));
    assert_eq!(detail["description"], "Token refresh races logout.");
    assert_eq!(
        detail["checklist"],
        json!([{"text": "repro", "done": false}, {"text": "fix", "done": true}])
    );
    assert_eq!(detail["attachments"][0]["size_bytes"], 120);
    assert_eq!(detail["attachments"][0]["media_type"], Value::Null);
    assert_eq!(detail["blocker"], "needs staging access");
    b.alice.fails(
        "create",
        json!({"channel": "eng", "tasks": [{"title": "x", "assignee": "@nobody"}]}),
        "assignee_not_found",
        4,
    );
    b.alice.fails(
        "create",
        json!({"channel": "nope", "tasks": [{"title": "x"}]}),
        "channel_not_found",
        4,
    );
}

fn subtasks_by_parent_and_by_exact_scope(engine: Engine) {
    let b = board(engine);
    let parent = b
        .alice
        .create(json!({"channel": "eng", "tasks": [{"title": "epic"}]}))[0]
        .clone();
    let kids = b.alice.create(
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "k1"}, {"title": "k2"}]}),
    );
    assert!(kids.iter().all(|k| k["parent_number"] == 1));
    let scoped = b.bob.create(json!({"parent_task_scope": {"kind": "task", "scope_id": parent["scope_id"]}, "tasks": [{"title": "k3"}]}));
    assert_eq!(
        (
            scoped[0]["channel"].as_str(),
            scoped[0]["parent_number"].as_u64(),
            scoped[0]["number"].as_u64()
        ),
        (Some("eng"), Some(1), Some(4))
    );
    let detail = b.alice.ok("get", json!({"channel": "eng", "number": 1}));
    assert_eq!(detail["subtasks"]["total"], 3);
    // Top-level browse hides subtasks unless asked.
    assert_eq!(
        numbers(
            b.alice.ok("list", json!({"channel": "eng"}))["items"]
                .as_array()
                .unwrap()
        ),
        vec![1]
    );
    let all = b.alice.ok(
        "list",
        json!({"channel": "eng", "include_subtasks": true, "sort": "number_asc"}),
    );
    assert_eq!(numbers(all["items"].as_array().unwrap()), vec![1, 2, 3, 4]);
    b.alice.fails(
        "create",
        json!({"channel": "eng", "parent": 99, "tasks": [{"title": "x"}]}),
        "parent_not_found",
        4,
    );
}

fn bad_task_scopes_are_refused_before_any_write(engine: Engine) {
    let b = board(engine);
    let parent = b
        .alice
        .create(json!({"channel": "eng", "tasks": [{"title": "p"}, {"title": "doomed"}]}));
    b.alice.ok("delete", json!({"channel": "eng", "number": 2}));
    let scope = |id: &Value| json!({"parent_task_scope": {"kind": "task", "scope_id": id}, "tasks": [{"title": "x"}]});
    b.alice.fails(
        "create",
        scope(&json!("tsk_does_not_exist")),
        "task_scope_not_found",
        4,
    );
    b.alice.fails(
        "create",
        scope(&parent[1]["scope_id"]),
        "task_scope_not_found",
        4,
    );
    b.alice.fails(
        "create",
        json!({"parent_task_scope": {"kind": "board", "scope_id": "x"}, "tasks": [{"title": "x"}]}),
        "invalid_input",
        2,
    );
    // Another workspace's task is not visible at all.
    let other_ws = b.runtime.workspace("other");
    b.runtime.channel(&other_ws, "eng");
    let eve = Member::join(&b.proxy.url, b.runtime.agent(&other_ws, "eve"));
    eve.fails(
        "create",
        scope(&parent[0]["scope_id"]),
        "task_scope_not_found",
        4,
    );
    // A private board's task refuses non-members.
    b.runtime.private_channel(&b.workspace, "secret", "@alice");
    let hidden = b
        .alice
        .create(json!({"channel": "secret", "tasks": [{"title": "s"}]}));
    // A private board answers a non-member as a missing one would.
    b.bob.fails(
        "create",
        scope(&hidden[0]["scope_id"]),
        "task_scope_not_found",
        4,
    );
    b.bob
        .fails("list", json!({"channel": "secret"}), "channel_not_found", 4);
    // Nothing was written by any refusal.
    let eng = b
        .alice
        .ok("list", json!({"channel": "eng", "include_subtasks": true}));
    assert_eq!(numbers(eng["items"].as_array().unwrap()), vec![1]);
}

fn target_is_provenance_and_a_conflicting_board_is_refused(engine: Engine) {
    let b = board(engine);
    let task = &b.alice.create(
        json!({"channel": "eng", "target": "#eng:th_42", "tasks": [{"title": "from a thread"}]}),
    )[0];
    assert_eq!(
        b.alice
            .ok("get", json!({"channel": "eng", "number": task["number"]}))["source_target"],
        "#eng:th_42"
    );
    let error = b.alice.fails(
        "create",
        json!({"channel": "eng", "target": "#ops:th_1", "tasks": [{"title": "x"}]}),
        "target_conflict",
        4,
    );
    assert!(error["field_errors"].get("target").is_some());
    let scope = task["scope_id"].clone();
    b.alice.fails("create", json!({"parent_task_scope": {"kind": "task", "scope_id": scope}, "target": "#ops:th_1", "tasks": [{"title": "x"}]}), "target_conflict", 4);
}

fn list_browses_searches_filters_and_pages(engine: Engine) {
    let b = board(engine);
    let titles: Vec<Value> = (1..=25)
        .map(|i| json!({"title": format!("chore {i}")}))
        .collect();
    b.alice.create(json!({"channel": "eng", "tasks": titles}));
    b.alice.create(json!({"channel": "eng", "tasks": [{"title": "Login times out", "description": "refresh token race", "labels": ["auth"]}]}));
    b.alice.ok(
        "update",
        json!({"channel": "eng", "number": 26, "status": "done"}),
    );
    b.bob.ok(
        "set_claim",
        json!({"channel": "eng", "numbers": [1, 2], "claimed": true}),
    );

    let page = b.alice.exec("list", json!({"channel": "eng"}));
    assert_eq!(
        page.json()["data"]["items"].as_array().unwrap().len(),
        20,
        "default limit 20"
    );
    let cursor = page.json()["meta"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    let rest = b
        .alice
        .exec("list", json!({"channel": "eng", "cursor": cursor}));
    assert_eq!(rest.json()["data"]["items"].as_array().unwrap().len(), 5);
    assert!(
        rest.json()["meta"].get("next_cursor").is_none(),
        "no cursor on the last page"
    );
    b.alice.fails(
        "list",
        json!({"channel": "eng", "cursor": cursor, "filters": {"assigned_to_me": true}}),
        "cursor_invalid",
        4,
    );
    b.alice.fails(
        "list",
        json!({"channel": "eng", "cursor": "garbage"}),
        "cursor_invalid",
        4,
    );

    let hits = b.alice.ok(
        "list",
        json!({"channel": "eng", "query": "token race", "status": "all"}),
    );
    assert_eq!(
        numbers(hits["items"].as_array().unwrap()),
        vec![26],
        "search covers descriptions and every status"
    );
    assert!(
        b.alice
            .ok("list", json!({"channel": "eng", "query": "token race"}))["items"]
            .as_array()
            .unwrap()
            .is_empty(),
        "active view hides done"
    );
    let mine = b.bob.ok(
        "list",
        json!({"channel": "eng", "filters": {"assigned_to_me": true}, "sort": "number_asc"}),
    );
    assert_eq!(numbers(mine["items"].as_array().unwrap()), vec![1, 2]);
    let bobs = b.alice.ok(
        "list",
        json!({"channel": "eng", "filters": {"assignee": "@bob"}, "sort": "number_asc"}),
    );
    assert_eq!(numbers(bobs["items"].as_array().unwrap()), vec![1, 2]);
    // The mine view includes the subtasks the caller holds.
    b.alice
        .create(json!({"channel": "eng", "parent": 3, "tasks": [{"title": "sub"}]}));
    b.bob.ok(
        "set_claim",
        json!({"channel": "eng", "numbers": [27], "claimed": true}),
    );
    let mine = b.bob.ok(
        "list",
        json!({"channel": "eng", "filters": {"assigned_to_me": true}, "sort": "number_asc"}),
    );
    assert_eq!(numbers(mine["items"].as_array().unwrap()), vec![1, 2, 27]);
    let top = b.bob.ok(
        "list",
        json!({"channel": "eng", "include_subtasks": false, "filters": {"assigned_to_me": true}, "sort": "number_asc"}),
    );
    assert_eq!(numbers(top["items"].as_array().unwrap()), vec![1, 2]);
    // A search that finds only a subtask, which it leaves out by default,
    // answers the call that finds it; as text, that call as a command.
    let search = json!({"channel": "eng", "query": "sub"});
    let empty = b.alice.ok("list", search.clone());
    assert_eq!(empty["items"], json!([]));
    let call = &empty["subtasks_match"];
    assert_eq!(
        call,
        &json!({"tool": "task_list", "arguments": {"channel": "eng", "query": "sub", "include_subtasks": true}})
    );
    let found = b.alice.ok("list", call["arguments"].clone());
    assert_eq!(numbers(found["items"].as_array().unwrap()), vec![27]);
    let text = b
        .alice
        .cli
        .exec("task", "list", &search.to_string(), &["--format", "text"]);
    assert!(
        text.stdout.contains(r#"subtasks match: echo '{"channel":"eng","query":"sub","include_subtasks":true}' | agentteam exec task list -"#),
        "{text:?}"
    );
    let stream = b
        .alice
        .cli
        .exec("task", "list", &search.to_string(), &["--paginate"]);
    assert_eq!((stream.code, stream.stdout.as_str()), (0, ""), "{stream:?}");
    assert!(
        stream.stderr.contains("`subtasks_match` names the call"),
        "{stream:?}"
    );
    let labelled = b.alice.ok(
        "list",
        json!({"channel": "eng", "status": "done", "filters": {"labels": ["auth"]}}),
    );
    assert_eq!(numbers(labelled["items"].as_array().unwrap()), vec![26]);
    assert_eq!(
        b.alice.ok("list", json!({"channel": "eng", "limit": 100}))["items"]
            .as_array()
            .unwrap()
            .len(),
        25
    );
    b.alice.fails(
        "list",
        json!({"channel": "eng", "limit": 101}),
        "invalid_input",
        2,
    );
    let by_number = b.alice.ok(
        "list",
        json!({"channel": "eng", "sort": "number_asc", "limit": 3}),
    );
    assert_eq!(
        numbers(by_number["items"].as_array().unwrap()),
        vec![1, 2, 3]
    );
    // A search that finds only a done task, which it leaves out by
    // default, answers the call that finds it; as text, as a command.
    b.alice.ok(
        "create",
        json!({"channel": "eng", "tasks": [{"title": "Retire the fax gateway", "status": "done"}]}),
    );
    let search = json!({"channel": "eng", "query": "fax"});
    let empty = b.alice.ok("list", search.clone());
    assert_eq!(empty["items"], json!([]));
    assert_eq!(
        empty["closed_match"],
        json!({"tool": "task_list", "arguments": {"channel": "eng", "query": "fax", "status": "all"}})
    );
    let found = b
        .alice
        .ok("list", empty["closed_match"]["arguments"].clone());
    assert_eq!(found["items"][0]["title"], "Retire the fax gateway");
    let text = b
        .alice
        .cli
        .exec("task", "list", &search.to_string(), &["--format", "text"]);
    assert!(
        text.stdout.contains(r#"done or canceled tasks match: echo '{"channel":"eng","query":"fax","status":"all"}' | agentteam exec task list -"#),
        "{text:?}"
    );
    // A word too many, as text: the call without it, as a command.
    let search = json!({"channel": "eng", "query": "fax gateway outage", "status": "all"});
    let empty = b.alice.ok("list", search.clone());
    assert_eq!(empty["items"], json!([]));
    assert_eq!(
        empty["words_match"]["arguments"]["query"], "fax gateway",
        "{empty}"
    );
    let text = b
        .alice
        .cli
        .exec("task", "list", &search.to_string(), &["--format", "text"]);
    assert!(
        text.stdout.contains(r#"with a word fewer: echo '{"channel":"eng","query":"fax gateway","status":"all"}' | agentteam exec task list -"#),
        "{text:?}"
    );
}

fn update_clears_nullable_fields_and_guards_stale_writes(engine: Engine) {
    let b = board(engine);
    let task = b.alice.create(json!({"channel": "eng", "tasks": [{"title": "t", "description": "d", "assignee": "@bob", "blocker": "b"}]}))[0].clone();
    let updated = b.alice.ok("update", json!({"channel": "eng", "number": 1, "description": null, "assignee": null, "blocker": null, "priority": "urgent", "expected_updated_at": task["updated_at"]}));
    assert_eq!(updated["assignee"], Value::Null);
    assert_ne!(updated["updated_at"], task["updated_at"]);
    let detail = b.alice.ok("get", json!({"channel": "eng", "number": 1}));
    assert_eq!(
        (detail["description"].clone(), detail["blocker"].clone()),
        (Value::Null, Value::Null)
    );
    let conflict = b.bob.fails("update", json!({"channel": "eng", "number": 1, "title": "stale", "expected_updated_at": task["updated_at"]}), "task_update_conflict", 4);
    assert_eq!(conflict["suggested_action"]["tool"], "task_get");
    assert_eq!(
        conflict["suggested_action"]["arguments"],
        json!({"channel": "eng", "number": 1})
    );
    // The current updated_at is a field of the error: the retry needs no read.
    let current = conflict["details"]["current_updated_at"].clone();
    assert_eq!(current, updated["updated_at"]);
    // A value cut to seconds never was the task's: the error asks for the
    // exact value instead of claiming a change.
    let cut = format!("{}Z", &current.as_str().unwrap()[..19]);
    let inexact = b.bob.fails(
        "update",
        json!({"channel": "eng", "number": 1, "title": "x", "expected_updated_at": cut}),
        "task_update_conflict",
        4,
    );
    let message = inexact["message"].as_str().unwrap();
    assert!(
        message.contains("exact updated_at from task_get") && !message.contains("changed"),
        "{message}"
    );
    assert_eq!(inexact["details"]["current_updated_at"], current);
    // Any RFC3339 offset is the same instant: the UTC time written as +00:00.
    let offset = current.as_str().unwrap().replace('Z', "+00:00");
    assert_eq!(
        b.bob.ok(
            "update",
            json!({"channel": "eng", "number": 1, "title": "fresh", "expected_updated_at": offset})
        )["title"],
        "fresh"
    );
    assert_eq!(
        b.alice.ok("get", json!({"channel": "eng", "number": 1}))["title"],
        "fresh",
        "the stale writes changed nothing; the guarded retry did"
    );
    b.alice
        .create(json!({"channel": "eng", "parent": 1, "tasks": [{"title": "child"}]}));
    b.alice.fails(
        "update",
        json!({"channel": "eng", "number": 1, "parent": 2}),
        "invalid_parent",
        4,
    );
    assert_eq!(
        b.alice.ok(
            "update",
            json!({"channel": "eng", "number": 2, "parent": null})
        )["parent_number"],
        Value::Null
    );
    b.alice.fails(
        "update",
        json!({"channel": "eng", "number": 9, "title": "x"}),
        "task_not_found",
        4,
    );
}

fn checkpoints_append_and_get_bounds_them(engine: Engine) {
    let b = board(engine);
    b.alice
        .create(json!({"channel": "eng", "tasks": [{"title": "t"}]}));
    for i in 1..=7 {
        let out = b.alice.ok(
            "checkpoint",
            json!({"channel": "eng", "number": 1, "summary": format!("step {i}")}),
        );
        assert_eq!(out["checkpoint"]["summary"], format!("step {i}"));
        assert_eq!(out["task"]["number"], 1);
    }
    let run = b.alice.exec("get", json!({"channel": "eng", "number": 1}));
    assert_eq!(run.code, 0, "{run:?}");
    // The cut section makes the answer explicitly truncated (§8.3).
    assert_eq!(run.json()["meta"]["truncated"], true);
    let detail = run.json()["data"].take();
    assert_eq!(detail["checkpoints"]["total"], 7);
    assert_eq!(detail["checkpoints"]["truncated"], true);
    let shown: Vec<&str> = detail["checkpoints"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["summary"].as_str().unwrap())
        .collect();
    assert_eq!(
        shown,
        vec!["step 7", "step 6", "step 5", "step 4", "step 3"]
    );
}

fn set_claim_is_a_desired_state_with_per_task_failures(engine: Engine) {
    let b = board(engine);
    b.alice.create(
        json!({"channel": "eng", "tasks": [{"title": "a"}, {"title": "b"}, {"title": "c"}]}),
    );
    let out = b.alice.ok(
        "set_claim",
        json!({"channel": "eng", "numbers": [1, 2], "claimed": true}),
    );
    let at =
        |n: u64| b.alice.ok("get", json!({"channel": "eng", "number": n}))["updated_at"].clone();
    // Each claimed task's updated_at comes back, ready for a guarded update.
    assert_eq!(
        out,
        json!({"claimed": true, "updated_count": 2, "failures": [],
               "tasks": [{"number": 1, "updated_at": at(1)}, {"number": 2, "updated_at": at(2)}]})
    );
    b.alice.ok("update", json!({"channel": "eng", "number": 2, "priority": "high", "expected_updated_at": out["tasks"][1]["updated_at"]}));
    assert_eq!(
        b.alice.ok(
            "set_claim",
            json!({"channel": "eng", "numbers": [1, 2], "claimed": true})
        )["updated_count"],
        2,
        "idempotent, never a toggle"
    );
    let out = b.bob.ok(
        "set_claim",
        json!({"channel": "eng", "numbers": [1, 3, 9], "claimed": true}),
    );
    assert_eq!(out["updated_count"], 1);
    let failures = out["failures"].as_array().unwrap();
    assert_eq!(
        failures
            .iter()
            .map(|f| (f["number"].as_u64().unwrap(), f["code"].as_str().unwrap()))
            .collect::<Vec<_>>(),
        vec![(1, "task_claimed_by_other"), (9, "task_not_found")]
    );
    let out = b.bob.ok(
        "set_claim",
        json!({"channel": "eng", "numbers": [2], "claimed": false}),
    );
    assert_eq!(out["failures"][0]["code"], "not_assignee");
    assert_eq!(
        b.alice.ok(
            "set_claim",
            json!({"channel": "eng", "numbers": [2], "claimed": false})
        )["updated_count"],
        1
    );
    assert_eq!(
        b.alice.ok("get", json!({"channel": "eng", "number": 2}))["assignee"],
        Value::Null
    );
    assert_eq!(
        b.alice.ok("get", json!({"channel": "eng", "number": 1}))["assignee"],
        "@alice"
    );
}

fn many_agents_claiming_one_task_leave_exactly_one_owner(engine: Engine) {
    let b = board(engine);
    b.alice
        .create(json!({"channel": "eng", "tasks": [{"title": "contested"}]}));
    let members: Vec<Member> = (0..12)
        .map(|i| {
            Member::join(
                &b.proxy.url,
                b.runtime.agent(&b.workspace, &format!("racer{i}")),
            )
        })
        .collect();
    let outcomes: Vec<Value> = std::thread::scope(|s| {
        let handles: Vec<_> = members
            .iter()
            .map(|m| {
                s.spawn(|| {
                    m.ok(
                        "set_claim",
                        json!({"channel": "eng", "numbers": [1], "claimed": true}),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        outcomes.iter().filter(|o| o["updated_count"] == 1).count(),
        1
    );
    assert_eq!(
        outcomes
            .iter()
            .filter(|o| o["failures"][0]["code"] == "task_claimed_by_other")
            .count(),
        11
    );
}

fn delete_rules(engine: Engine) {
    let b = board(engine);
    b.alice
        .create(json!({"channel": "eng", "tasks": [{"title": "parent"}]}));
    b.alice.create(
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "k1"}, {"title": "k2"}]}),
    );
    b.alice
        .create(json!({"channel": "eng", "parent": 2, "tasks": [{"title": "grandkid"}]}));
    b.bob.fails(
        "delete",
        json!({"channel": "eng", "number": 1}),
        "not_task_creator",
        4,
    );
    let e = b.alice.fails(
        "delete",
        json!({"channel": "eng", "number": 1}),
        "subtask_mode_required",
        4,
    );
    assert!(e["field_errors"].get("subtask_mode").is_some());
    let out = b.alice.ok(
        "delete",
        json!({"channel": "eng", "number": 1, "subtask_mode": "promote"}),
    );
    assert_eq!(
        out,
        json!({"deleted_numbers": [1], "promoted_numbers": [2, 3]})
    );
    assert_eq!(
        b.alice.ok("get", json!({"channel": "eng", "number": 2}))["parent_number"],
        Value::Null
    );
    assert_eq!(
        b.alice.ok("get", json!({"channel": "eng", "number": 4}))["parent_number"],
        2,
        "grandchildren stay under their parent"
    );

    b.bob
        .create(json!({"channel": "eng", "parent": 2, "tasks": [{"title": "bob's"}]}));
    b.alice.fails(
        "delete",
        json!({"channel": "eng", "number": 2, "subtask_mode": "delete"}),
        "subtask_creator_mismatch",
        4,
    );
    assert_eq!(
        b.alice.ok("get", json!({"channel": "eng", "number": 4}))["title"],
        "grandkid",
        "nothing deleted"
    );
    b.bob.ok("delete", json!({"channel": "eng", "number": 5}));
    let out = b.alice.ok(
        "delete",
        json!({"channel": "eng", "number": 2, "subtask_mode": "delete"}),
    );
    assert_eq!(
        out,
        json!({"deleted_numbers": [2, 4], "promoted_numbers": []})
    );
    b.alice.fails(
        "get",
        json!({"channel": "eng", "number": 4}),
        "task_not_found",
        4,
    );
}

fn idempotent_creates_replay_inside_a_callback(engine: Engine) {
    let b = board(engine);
    let opened = b
        .runtime
        .open_callback(&b.workspace, &b.alice.agent.agent_id);
    let (run, effect) = (
        opened["workflow_run_id"].as_str().unwrap().to_string(),
        opened["callback_effect_id"].as_str().unwrap().to_string(),
    );
    let input = json!({"channel": "eng", "tasks": [{"title": "once"}], "idempotency_key": "k-1"});

    // Outside a callback the key is refused.
    b.alice
        .fails("create", input.clone(), "callback_not_active", 4);

    let mut alice = Member {
        cli: Cli {
            home: tempfile::tempdir().unwrap(),
            config: b.alice.cli.config.clone(),
            env: Vec::new(),
        },
        agent: b.alice.agent.clone(),
    };
    alice.cli.env = vec![
        ("AGENTTEAM_WORKFLOW_RUN_ID".into(), run.clone()),
        ("AGENTTEAM_CALLBACK_EFFECT_ID".into(), effect.clone()),
    ];
    let first = alice.ok("create", input.clone());
    assert_eq!(first["reused"], false);
    let replay = alice.ok("create", input.clone());
    assert_eq!(replay["reused"], true);
    assert_eq!(replay["tasks"][0]["number"], first["tasks"][0]["number"]);
    alice.fails(
        "create",
        json!({"channel": "eng", "tasks": [{"title": "other"}], "idempotency_key": "k-1"}),
        "idempotency_conflict",
        4,
    );
    alice.fails(
        "create",
        json!({"channel": "ops", "tasks": [{"title": "once"}], "idempotency_key": "k-1"}),
        "idempotency_conflict",
        4,
    );
    alice.fails("create", json!({"channel": "eng", "target": "#eng:t1", "tasks": [{"title": "once"}], "idempotency_key": "k-1"}), "idempotency_conflict", 4);

    // The responder is revalidated: bob cannot use alice's callback.
    let mut bob = Member {
        cli: Cli {
            home: tempfile::tempdir().unwrap(),
            config: b.bob.cli.config.clone(),
            env: Vec::new(),
        },
        agent: b.bob.agent.clone(),
    };
    bob.cli.env = alice.cli.env.clone();
    bob.fails("create", input.clone(), "callback_not_active", 4);

    // Replays still work after the callback completes; new keys do not.
    b.runtime.admin(&[
        "callback",
        "complete",
        "--workspace",
        &b.workspace,
        "--callback-effect",
        &effect,
    ]);
    assert_eq!(alice.ok("create", input.clone())["reused"], true);
    alice.fails(
        "create",
        json!({"channel": "eng", "tasks": [{"title": "late"}], "idempotency_key": "k-2"}),
        "callback_not_active",
        4,
    );
    // Replays allocated nothing.
    assert_eq!(
        numbers(
            &b.alice
                .create(json!({"channel": "eng", "tasks": [{"title": "next"}]}))
        ),
        vec![2]
    );
}

fn concurrent_replays_create_once(engine: Engine) {
    let b = board(engine);
    let opened = b
        .runtime
        .open_callback(&b.workspace, &b.alice.agent.agent_id);
    let mut alice = Member {
        cli: Cli {
            home: tempfile::tempdir().unwrap(),
            config: b.alice.cli.config.clone(),
            env: Vec::new(),
        },
        agent: b.alice.agent.clone(),
    };
    alice.cli.env = vec![
        (
            "AGENTTEAM_WORKFLOW_RUN_ID".into(),
            opened["workflow_run_id"].as_str().unwrap().into(),
        ),
        (
            "AGENTTEAM_CALLBACK_EFFECT_ID".into(),
            opened["callback_effect_id"].as_str().unwrap().into(),
        ),
    ];
    let input = json!({"channel": "eng", "tasks": [{"title": "once"}, {"title": "twice"}], "idempotency_key": "race"});
    let outcomes = ten_at_once(&alice, "create", &input);
    assert_eq!(outcomes.iter().filter(|o| o["reused"] == false).count(), 1);
    assert!(
        outcomes
            .iter()
            .all(|o| numbers(o["tasks"].as_array().unwrap()) == vec![1, 2])
    );
}

/// `verb` with `input`, ten times at once, as retries after a timeout may
/// race the first attempt: each answer's `data`.
fn ten_at_once(member: &Member, verb: &str, input: &Value) -> Vec<Value> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..10)
            .map(|_| s.spawn(|| member.ok(verb, input.clone())))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// A checkpoint retried with its idempotency_key, ten times at once,
/// appends once.
fn concurrent_keyed_checkpoints_append_once(engine: Engine) {
    let b = board(engine);
    b.alice
        .create(json!({"channel": "eng", "tasks": [{"title": "t"}]}));
    let input =
        json!({"channel": "eng", "number": 1, "summary": "handed off", "idempotency_key": "race"});
    let outcomes = ten_at_once(&b.alice, "checkpoint", &input);
    assert_eq!(outcomes.iter().filter(|o| o["reused"] == false).count(), 1);
    assert!(
        outcomes
            .iter()
            .all(|o| o["checkpoint"] == outcomes[0]["checkpoint"])
    );
    let detail = b.alice.ok("get", json!({"channel": "eng", "number": 1}));
    assert_eq!(detail["checkpoints"]["total"], 1);
    // Another summary under the same key is a conflict, exit 4.
    let mut other = input.clone();
    other["summary"] = json!("something else");
    b.alice
        .fails("checkpoint", other, "idempotency_conflict", 4);
}

fn a_refreshing_credential_process_recovers_from_a_revoked_token(engine: Engine) {
    let b = board(engine);
    let cli = Cli::new();
    let process = format!(
        "{} --db {} token issue --workspace {} --agent {}",
        crate::support::runtime::BIN,
        b.runtime.db,
        b.workspace,
        b.alice.agent.agent_id
    );
    let run = cli.run(
        &[
            "auth",
            "login",
            "--api-url",
            &b.proxy.url,
            "--workspace",
            &b.workspace,
            "--agent",
            &b.alice.agent.agent_id,
            "--token-stdin",
            "--credential-process",
            &process,
        ],
        Some(&b.alice.agent.token),
    );
    assert_eq!(run.code, 0);
    b.runtime.admin(&[
        "token",
        "revoke",
        "--workspace",
        &b.workspace,
        "--agent",
        &b.alice.agent.agent_id,
    ]);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(run.code, 0, "401 → credential process → replay: {run:?}");
    // Another workspace's path is refused even with a valid token.
    let other = b.runtime.workspace("other");
    let fresh = b.runtime.admin(&[
        "token",
        "issue",
        "--workspace",
        &b.workspace,
        "--agent",
        &b.alice.agent.agent_id,
    ]);
    let run = b.alice.cli.run(
        &[
            "auth",
            "login",
            "--api-url",
            &b.proxy.url,
            "--workspace",
            &other,
            "--agent",
            &b.alice.agent.agent_id,
            "--token-stdin",
            "--profile",
            "cross",
        ],
        Some(fresh["token"].as_str().unwrap()),
    );
    assert_eq!(run.code, 0);
    let run = b.alice.cli.exec(
        "task",
        "list",
        r#"{"channel":"eng"}"#,
        &["--profile", "cross"],
    );
    assert_eq!((run.code, run.error_code().as_str()), (4, "forbidden"));
}

fn dry_run_and_batch_against_the_runtime(engine: Engine) {
    let b = board(engine);
    let mut input: String = (1..=30)
        .map(|i| format!("{{\"channel\":\"eng\",\"tasks\":[{{\"title\":\"t{i}\"}}]}}\n"))
        .collect();
    // Line 31 is refused by the runtime, line 32 by the CLI.
    input.push_str("{\"channel\":\"nope\",\"tasks\":[{\"title\":\"x\"}]}\n{\"channel\":\"eng\"}\n");
    let run = b.alice.cli.run(
        &[
            "exec",
            "task",
            "create",
            "--batch",
            "-",
            "--concurrency",
            "8",
        ],
        Some(&input),
    );
    assert_eq!(run.code, 4, "the worst line's exit status: {run:?}");
    // Each line is the document of one call, so it fits the action's
    // output schema or the error schema; the input line is in it.
    let action = registry::find("task", "create").unwrap();
    let success = jsonschema::draft202012::new(&action.closed_output_schema()).unwrap();
    let failure = jsonschema::draft202012::new(&agentteam::error::error_schema()).unwrap();
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 32, "{run:?}");
    for (i, line) in lines.iter().enumerate() {
        let (schema, at) = match line.get("error") {
            None => (&success, &line["meta"]["line"]),
            Some(error) => (&failure, &error["details"]["line"]),
        };
        let errors: Vec<String> = schema.iter_errors(line).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:?}\n{line}");
        assert_eq!(at.as_u64(), Some(i as u64 + 1), "in input order: {line}");
    }
    assert_eq!(lines[30]["error"]["code"], "channel_not_found");
    assert_eq!(lines[31]["error"]["code"], "invalid_input");
    let mut created: Vec<u64> = lines[..30]
        .iter()
        .map(|l| l["data"]["tasks"][0]["number"].as_u64().unwrap())
        .collect();
    created.sort();
    assert_eq!(
        created,
        (1..=30).collect::<Vec<_>>(),
        "gapless, no duplicates"
    );
    // Checkpoints are a timeline: by default a batch stores them in the
    // order of its lines.
    let steps: String = (1..=5)
        .map(|i| format!("{{\"channel\":\"eng\",\"number\":1,\"summary\":\"step {i}\"}}\n"))
        .collect();
    let run = b.alice.cli.run(
        &["exec", "task", "checkpoint", "--batch", "-"],
        Some(&steps),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let detail = b.alice.ok("get", json!({"channel": "eng", "number": 1}));
    let newest_first: Vec<&str> = detail["checkpoints"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["summary"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (1..=5).rev().map(|i| format!("step {i}")).collect();
    assert_eq!(newest_first, expected);
    let run = b.alice.cli.exec(
        "task",
        "delete",
        r#"{"channel":"eng","number":1}"#,
        &["--dry-run"],
    );
    assert_eq!(run.code, 0);
    b.alice.ok("get", json!({"channel": "eng", "number": 1}));
    let run = b.alice.cli.exec(
        "task",
        "list",
        r#"{"channel":"eng","limit":7}"#,
        &["--paginate"],
    );
    assert_eq!(run.stdout.lines().count(), 30);
    // Cut by --max-items, the walk goes on from the cursor it names,
    // with nothing skipped or repeated.
    let numbers = |run: &Run| -> Vec<u64> {
        run.stdout
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["number"]
                    .as_u64()
                    .unwrap()
            })
            .collect()
    };
    let first = b.alice.cli.exec(
        "task",
        "list",
        r#"{"channel":"eng","limit":7,"sort":"number_asc"}"#,
        &["--paginate", "--max-items", "10"],
    );
    assert_eq!(first.code, 0, "{first:?}");
    let cursor = first
        .stderr
        .split("\"cursor\": \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no cursor: {first:?}"));
    let rest = b.alice.cli.exec(
        "task",
        "list",
        &json!({"channel": "eng", "limit": 7, "sort": "number_asc", "cursor": cursor}).to_string(),
        &["--paginate"],
    );
    let mut all = numbers(&first);
    assert_eq!(all, (1..=10).collect::<Vec<_>>());
    all.extend(numbers(&rest));
    assert_eq!(all, (1..=30).collect::<Vec<_>>(), "{rest:?}");
}

/// `scripts/demo.sh`, run for real against the binaries under test (a stub
/// `cargo` on PATH stands in for the build): both modes finish, neither
/// touches the user's profiles, and `--default-store` leaves the demo data
/// in the default store, closed cleanly (no `-wal` or `-shm` beside it).
#[test]
fn the_demo_leaves_profiles_alone_in_both_modes() {
    let cli = Cli::new();
    cli.login("http://127.0.0.1:8787", "at_users_own_token", None);
    let profiles = cli.store_text();
    assert!(profiles.contains("at_users_own_token"));

    let home = cli.home.path();
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_agentteam"))
        .parent()
        .expect("target/debug");
    let target_dir = bin_dir.parent().expect("target");
    let stub_dir = home.join("stub-bin");
    std::fs::create_dir_all(&stub_dir).unwrap();
    let cargo = stub_dir.join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\ncase \"$1\" in metadata) printf '{{\"target_directory\":\"%s\"}}\\n' '{}' ;; esac\n",
            target_dir.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    let data_home = home.join("data");
    let default_store = data_home.join("agentteam").join("runtime.db");

    let demo = |args: &[&str]| {
        let out = std::process::Command::new("sh")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/demo.sh"))
            .args(args)
            .env_clear()
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    stub_dir.display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("HOME", home)
            .env("XDG_DATA_HOME", &data_home)
            .env("AGENTTEAM_CONFIG_DIR", cli.config_dir())
            .env("TMPDIR", home)
            .output()
            .expect("run scripts/demo.sh");
        assert!(
            out.status.success(),
            "demo.sh {args:?}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };

    let stdout = demo(&[]);
    assert!(
        stdout.contains("\"deleted_numbers\""),
        "the session ran: {stdout}"
    );
    assert_eq!(
        cli.store_text(),
        profiles,
        "the plain demo changed the profiles"
    );
    assert!(
        !default_store.exists(),
        "the plain demo used the default store"
    );

    demo(&["--default-store"]);
    assert_eq!(
        cli.store_text(),
        profiles,
        "--default-store changed the profiles"
    );
    assert!(default_store.exists(), "--default-store left no store");
    for suffix in ["-wal", "-shm"] {
        let sidecar = format!("{}{suffix}", default_store.display());
        assert!(!std::path::Path::new(&sidecar).exists(), "{sidecar} left");
    }
    let workspaces: i64 = rusqlite::Connection::open(&default_store)
        .unwrap()
        .query_row("SELECT count(*) FROM workspaces", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        workspaces, 1,
        "the demo workspace stays in the default store"
    );
    assert!(
        std::fs::read_dir(home).unwrap().flatten().all(|e| !e
            .file_name()
            .to_string_lossy()
            .starts_with("agentteam-demo.")),
        "the demo's temp directory is removed"
    );
}
