//! The agent journey of docs/agents.md, measured: a release-planning session
//! run as an agent runs it, learning the tool only from its help, schemas
//! and errors, through the real CLI against the real runtime. It sums the
//! bytes the agent reads (stdout and stderr of every call, and the help it
//! needs) and holds them to a budget: at most 60% of the 61 KB the same
//! steps cost before the tool was tuned for agents. Every deliberate
//! mistake is fixed by one retry built from its error alone: the fixer of
//! each mistake sees the error document and the input it sent, nothing else.
//!
//! `cargo test --test testsuite agent_journey:: -- --nocapture` prints the
//! figures docs/agents.md quotes.

use serde_json::{Value, json};

use crate::support::cli::{Cli, Run};
use crate::support::runtime::Runtime;

/// The same steps cost this many bytes before (issue "every mistake fixed
/// in one retry, half the context per journey").
const BEFORE_BYTES: usize = 61_000;

/// What the journey may read: 60 % of [`BEFORE_BYTES`]. A longer help, a
/// description or an answer an agent reads is paid for here; find the
/// bytes elsewhere before raising it (README, "Adding an action").
const BUDGET_BYTES: usize = BEFORE_BYTES * 6 / 10;

/// What an agent read, by kind.
#[derive(Default)]
struct Figures {
    help_bytes: usize,
    help_reads: usize,
    ok_bytes: usize,
    ok_calls: usize,
    failed_bytes: usize,
    failed_calls: usize,
    mistakes: usize,
}

impl Figures {
    fn total(&self) -> usize {
        self.help_bytes + self.ok_bytes + self.failed_bytes
    }
}

/// A route and the JSON it reads on stdin.
#[derive(Clone, Debug)]
struct Call {
    args: Vec<String>,
    input: Value,
    /// Stdin as written, when it is not `input` (malformed input, NDJSON).
    raw: Option<String>,
}

impl Call {
    fn exec(verb: &str, input: Value) -> Call {
        Call {
            args: ["exec", "task", verb, "-"].map(String::from).to_vec(),
            input,
            raw: None,
        }
    }

    /// The call a suggested action describes: its `command`, with
    /// `arguments` on stdin.
    fn suggested(error: &Value) -> Call {
        let action = &error["suggested_action"];
        let command = action["command"]
            .as_str()
            .unwrap_or_else(|| panic!("no runnable suggestion in {error}"));
        let words: Vec<String> = command.split_whitespace().map(String::from).collect();
        assert_eq!(words[0], "agentteam", "{command}");
        Call {
            args: words[1..].to_vec(),
            input: action["arguments"].clone(),
            raw: None,
        }
    }

    /// `exec task <verb> -` with `words` as its (wrong) route instead.
    fn route(words: &[&str], input: Value) -> Call {
        Call {
            args: words.iter().map(|w| w.to_string()).collect(),
            ..Call::exec("", input)
        }
    }

    /// The same route with `raw` on stdin.
    fn raw(verb: &str, raw: &str) -> Call {
        Call {
            raw: Some(raw.to_string()),
            ..Call::exec(verb, Value::Null)
        }
    }

    fn with(mut self, field: &str, value: Value) -> Call {
        self.input[field] = value;
        self
    }

    fn without(mut self, field: &str) -> Call {
        self.input.as_object_mut().unwrap().remove(field);
        self
    }
}

struct Journey {
    cli: Cli,
    figures: Figures,
}

impl Journey {
    fn run(&mut self, call: &Call) -> Run {
        let args: Vec<&str> = call.args.iter().map(String::as_str).collect();
        let stdin = call.raw.clone().unwrap_or_else(|| call.input.to_string());
        self.cli.run(&args, Some(&stdin))
    }

    /// Reads help the agent needs, counted as help.
    fn help(&mut self, args: &[&str]) -> String {
        let run = self.cli.run(args, None);
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        self.figures.help_reads += 1;
        self.figures.help_bytes += run.stdout.len() + run.stderr.len();
        run.stdout
    }

    /// A call that must succeed; its whole document (`data` and `meta`).
    fn ok(&mut self, call: &Call) -> Value {
        let run = self.run(call);
        assert_eq!(run.code, 0, "{call:?}: {run:?}");
        self.figures.ok_calls += 1;
        self.figures.ok_bytes += run.stdout.len() + run.stderr.len();
        run.json()
    }

    /// A deliberate mistake: it must fail with `code`, and `fix`, from the
    /// error document and the call alone, must build one retry that
    /// succeeds. Returns the retry's document.
    fn mistake(&mut self, call: Call, code: &str, fix: impl FnOnce(&Value, Call) -> Call) -> Value {
        let run = self.run(&call);
        assert_ne!(run.code, 0, "{call:?} should have failed: {run:?}");
        self.figures.mistakes += 1;
        self.figures.failed_calls += 1;
        self.figures.failed_bytes += run.stdout.len() + run.stderr.len();
        assert!(
            run.stderr.lines().count() <= 1 && run.stderr.len() <= 200,
            "a failure costs one JSON document and one short stderr line: {run:?}"
        );
        let document: Value = serde_json::from_str(run.stdout.lines().last().unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e}: {run:?}"));
        let error = document["error"].clone();
        assert_eq!(error["code"], code, "{call:?}: {document}");
        let mut error = error;
        if let Some(line) = error["details"].get("line").cloned() {
            error["line"] = line;
        }
        let retry = fix(&error, call);
        self.ok(&retry)
    }
}

/// The problem the error names at `field`.
fn problem<'a>(error: &'a Value, field: &str) -> &'a str {
    error["field_errors"][field]
        .as_str()
        .unwrap_or_else(|| panic!("no field error at `{field}` in {error}"))
}

/// The value of the first candidate the error offers.
fn first_candidate(error: &Value) -> Value {
    error["candidates"][0]["value"].clone()
}

/// The value of the candidate titled `title`.
fn candidate_titled(error: &Value, title: &str) -> Value {
    error["candidates"]
        .as_array()
        .unwrap_or_else(|| panic!("no candidates in {error}"))
        .iter()
        .find(|c| c["title"] == title)
        .unwrap_or_else(|| panic!("no `{title}` among {error}"))["value"]
        .clone()
}

/// The name in backticks after `did you mean` in a field's problem.
fn meant(error: &Value, field: &str) -> String {
    let text = problem(error, field);
    let start = text
        .find("did you mean `")
        .map(|i| i + "did you mean `".len())
        .or_else(|| text.find("use `").map(|i| i + "use `".len()))
        .unwrap_or_else(|| panic!("no did-you-mean in {text}"));
    text[start..].split('`').next().unwrap().to_string()
}

/// Renames `from` to the field the error says was meant.
fn rename(mut call: Call, error: &Value, path: &[&str]) -> Call {
    let field = path.join("/");
    let to = meant(error, &field);
    let (last, parents) = path.split_last().unwrap();
    let mut object = &mut call.input;
    for step in parents {
        object = match step.parse::<usize>() {
            Ok(i) => &mut object[i],
            Err(_) => &mut object[*step],
        };
    }
    let value = object.as_object_mut().unwrap().remove(*last).unwrap();
    object[to.as_str()] = value;
    call
}

/// The task in a create or set_claim answer with `number`.
fn task(document: &Value, number: i64) -> Value {
    document["data"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["number"] == number)
        .unwrap_or_else(|| panic!("no #{number} in {document}"))
        .clone()
}

/// The suggested route, run with the input the agent already has plus the
/// suggestion's arguments.
fn suggested_route(error: &Value, call: Call) -> Call {
    let mut retry = Call::suggested(error);
    let mut input = call.input;
    for (k, v) in retry.input.as_object().unwrap() {
        input[k] = v.clone();
    }
    retry.input = input;
    retry
}

#[test]
fn a_release_planning_journey_fits_its_budget_and_every_mistake_takes_one_retry() {
    let runtime = Runtime::start();
    let workspace = runtime.workspace("acme");
    runtime.channel(&workspace, "demo");
    runtime.channel(&workspace, "ops");
    let agent = runtime.agent(&workspace, "demo-agent");
    let peer = runtime.agent(&workspace, "demo-peer");
    // The board already holds work: 14 tasks by the peer, two about releases.
    let mut titles: Vec<String> = (1..=12).map(|i| format!("Backlog item {i}")).collect();
    titles.push("Draft the release calendar".into());
    titles.push("Release 1.9 retrospective".into());
    for title in &titles {
        let reply = runtime.post(
            &peer,
            "/tasks",
            &json!({"channel": "demo", "tasks": [{"title": title}]}),
        );
        assert_eq!(reply.status, 201, "{:?}", reply.json());
    }
    let cli = Cli::new();
    cli.login_to(
        &runtime.base_url(),
        &agent.workspace_id,
        &agent.agent_id,
        &agent.token,
    );
    let mut j = Journey {
        cli,
        figures: Figures::default(),
    };

    // The help an agent reads: each action it uses, once.
    for verb in [
        "list",
        "create",
        "set_claim",
        "checkpoint",
        "update",
        "get",
        "delete",
    ] {
        j.help(&["exec", "task", verb, "--help"]);
    }

    // Search before creating, by a word form the titles do not use.
    let found = j.mistake(
        Call::route(
            &["exec", "task", "search", "-"],
            json!({"channel": "demo", "query": "releases", "status": "all", "limit": 5}),
        ),
        "usage_error",
        suggested_route,
    );
    assert_eq!(
        found["data"]["items"].as_array().unwrap().len(),
        2,
        "{found}"
    );

    // The parent, then its five subtasks in one call.
    let parent = j.mistake(
        Call::exec(
            "create",
            json!({"channel": "demo", "tasks": [{"title": "Release 2.0", "priority": "high", "tags": ["release"]}]}),
        ),
        "invalid_input",
        |error, call| rename(call, error, &["tasks", "0", "tags"]),
    );
    let parent = parent["data"]["tasks"][0]["number"].as_i64().unwrap();
    let created = j.ok(&Call::exec(
        "create",
        json!({"channel": "demo", "parent": parent, "tasks": [
            {"title": "Freeze the branch"},
            {"title": "Write the notes"},
            {"title": "Build the artifacts"},
            {"title": "Tag the release"},
            {"title": "Announce it"},
        ]}),
    ));
    let numbers: Vec<i64> = created["data"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["number"].as_i64().unwrap())
        .collect();
    let [freeze, notes, build, tag, announce] = numbers[..] else {
        panic!("five subtasks: {created}")
    };

    // Claim them: the answer carries each updated_at for the guards below.
    let claimed = j.mistake(
        Call::route(
            &["exec", "task", "claim", "-"],
            json!({"channel": "demo", "numbers": numbers}),
        ),
        "usage_error",
        |error, call| {
            assert!(
                error["message"]
                    .as_str()
                    .unwrap()
                    .contains("\"claimed\": true")
            );
            suggested_route(error, call).with("claimed", json!(true))
        },
    );
    let mine = j.mistake(
        Call::exec(
            "list",
            json!({"channel": "demo", "limit": 2, "filters": {"assigned_to_me": true, "assignee": "@demo-agent"}}),
        ),
        "invalid_input",
        |error, call| {
            assert!(problem(error, "filters/assigned_to_me").contains("exclusive"));
            call.with("filters", json!({"assigned_to_me": true}))
        },
    );
    let held = mine["data"]["items"].as_array().unwrap();
    assert!(
        held.len() == 2 && held.iter().all(|t| t["parent_number"] == parent),
        "the mine view holds the claimed subtasks: {mine}"
    );

    // A checkpoint, written with a synonym first.
    j.mistake(
        Call::exec(
            "checkpoint",
            json!({"channel": "demo", "number": freeze, "comment": "Branch frozen at 4f2a."}),
        ),
        "invalid_input",
        |error, call| rename(call, error, &["comment"]),
    );

    // Guarded updates, with no read in between.
    let guarded = |number: i64, at: &Value| {
        Call::exec(
            "update",
            json!({"channel": "demo", "number": number, "status": "in_review", "expected_updated_at": at}),
        )
    };
    let stale = task(&claimed, freeze)["updated_at"].clone();
    let reviewed = j.ok(&guarded(freeze, &stale));
    j.mistake(
        guarded(freeze, &stale).with("status", json!("done")),
        "task_update_conflict",
        |error, call| {
            let now = error["details"]["current_updated_at"].clone();
            assert_eq!(now, reviewed["data"]["updated_at"]);
            call.with("expected_updated_at", now)
        },
    );
    let exact = task(&claimed, notes)["updated_at"].clone();
    let seconds = format!("{}Z", exact.as_str().unwrap().split('.').next().unwrap());
    j.mistake(
        guarded(notes, &json!(seconds)),
        "task_update_conflict",
        |error, call| {
            assert!(error["message"].as_str().unwrap().contains("exact"));
            call.with(
                "expected_updated_at",
                error["details"]["current_updated_at"].clone(),
            )
        },
    );

    // Updates with wrong values.
    let update = |number: i64, change: Value| {
        let mut input = json!({"channel": "demo", "number": number});
        for (k, v) in change.as_object().unwrap() {
            input[k] = v.clone();
        }
        Call::exec("update", input)
    };
    j.mistake(
        update(build, json!({"priority": "critical"})),
        "invalid_input",
        |error, call| {
            assert!(problem(error, "priority").contains("`urgent`"));
            call.with("priority", json!("urgent"))
        },
    );
    j.mistake(
        update(build, json!({"status": "in-progress"})),
        "invalid_input",
        |error, call| {
            assert!(problem(error, "status").contains("`in_progress`"));
            call.with("status", json!("in_progress"))
        },
    );
    j.mistake(update(build, json!({})), "invalid_input", |error, call| {
        assert!(problem(error, "").contains("labels"));
        call.with("labels", json!(["ci"]))
    });
    j.mistake(
        update(build, json!({"labels": ["ci", "ci"]})),
        "invalid_input",
        |error, call| {
            assert!(problem(error, "labels").contains("distinct"));
            call.with("labels", json!(["ci"]))
        },
    );
    j.mistake(
        update(tag, json!({"title": "T".repeat(250)})),
        "invalid_input",
        |error, call| {
            assert!(problem(error, "title").contains("200"), "{error}");
            call.with("title", json!("T".repeat(200)))
        },
    );
    j.mistake(
        update(tag, json!({"urls": ["example.com/release/2.0"]})),
        "invalid_input",
        |error, call| {
            assert!(problem(error, "urls/0").contains("https://"), "{error}");
            call.with("urls", json!(["https://example.com/release/2.0"]))
        },
    );
    j.mistake(
        update(announce, json!({"assignee": "@demo-pear"})),
        "assignee_not_found",
        |error, call| call.with("assignee", first_candidate(error)),
    );

    // Three more subtasks, one rich: a field name with a typo, a key that
    // needs a workflow callback, and a parent number with a slip of the finger.
    j.mistake(
        Call::exec(
            "create",
            json!({"channel": "demo", "parent": parent, "tasks": [{"title": "Smoke-test staging", "assigne": "@demo-agent"}]}),
        ),
        "invalid_input",
        |error, call| rename(call, error, &["tasks", "0", "assigne"]),
    );
    j.mistake(
        Call::exec(
            "create",
            json!({"channel": "demo", "parent": parent, "idempotency_key": "release-2.0-changelog", "tasks": [{"title": "Check the changelog"}]}),
        ),
        "callback_not_active",
        |_, call| call.without("idempotency_key"),
    );
    j.mistake(
        Call::exec(
            "create",
            json!({"channel": "demo", "parent": parent * 10, "tasks": [{"title": "Update the docs"}]}),
        ),
        "parent_not_found",
        |error, call| call.with("parent", candidate_titled(error, "Release 2.0")),
    );

    // Reading one task, with a slip of route.
    let get = |channel: &str, number: Value| {
        Call::exec("get", json!({"channel": channel, "number": number}))
    };
    j.mistake(
        Call::route(&["exec", "task_get", "-"], get("demo", json!(build)).input),
        "usage_error",
        suggested_route,
    );
    // Claiming one more task, with slips of type, board and JSON.
    let claim = |channel: &str, number: Value| {
        Call::exec(
            "set_claim",
            json!({"channel": channel, "numbers": [number], "claimed": true}),
        )
    };
    j.mistake(
        claim("demo", json!(build.to_string())),
        "invalid_input",
        |error, call| {
            assert!(problem(error, "numbers/0").contains("integer"), "{error}");
            let number: i64 = call.input["numbers"][0].as_str().unwrap().parse().unwrap();
            call.with("numbers", json!([number]))
        },
    );
    j.mistake(
        claim("#demo", json!(build)),
        "invalid_input",
        |error, call| {
            assert!(problem(error, "channel").contains('#'));
            call.with("channel", json!("demo"))
        },
    );
    j.mistake(
        claim("dmeo", json!(build)),
        "channel_not_found",
        |error, call| call.with("channel", first_candidate(error)),
    );
    j.mistake(
        Call::raw(
            "set_claim",
            &format!(r#"{{"channel": "demo", "numbers": [{build}], "claimed": true,}}"#),
        ),
        "invalid_json",
        |error, call| {
            assert!(error["message"].as_str().unwrap().contains("column"));
            Call::raw("set_claim", &call.raw.unwrap().replace(",}", "}"))
        },
    );
    j.mistake(
        Call::raw(
            "set_claim",
            &format!(r#"[{{"channel": "demo", "numbers": [{build}], "claimed": true}}]"#),
        ),
        "invalid_json",
        |error, call| {
            assert!(
                error["message"]
                    .as_str()
                    .unwrap()
                    .contains("one JSON object")
            );
            let array: Value = serde_json::from_str(&call.raw.unwrap()).unwrap();
            Call::exec("set_claim", array[0].clone())
        },
    );

    // Paging through the board, one task at a time.
    let page = |extra: Value| {
        let mut input = json!({"channel": "demo", "limit": 1});
        for (k, v) in extra.as_object().unwrap() {
            input[k] = v.clone();
        }
        Call::exec("list", input)
    };
    let first = j.mistake(page(json!({"limit": 0})), "invalid_input", |error, call| {
        assert!(problem(error, "limit").contains("from 1 to 100"));
        call.with("limit", json!(1))
    });
    let cursor = first["meta"]["next_cursor"].clone();
    assert!(cursor.is_string(), "{first}");
    let second = j.ok(&page(json!({"cursor": cursor})));
    assert_ne!(first["data"]["items"][0], second["data"]["items"][0]);
    j.mistake(
        page(json!({"cursor": "bm90LWEtY3Vyc29y"})),
        "cursor_invalid",
        |_, call| call.without("cursor"),
    );
    j.mistake(
        page(json!({"sort": "relevance"})),
        "invalid_input",
        |error, call| {
            assert!(problem(error, "sort").contains("query"));
            call.without("sort")
        },
    );
    j.mistake(
        page(json!({"status": "all"})),
        "invalid_input",
        |error, call| {
            assert!(problem(error, "status").contains("query"));
            call.without("status")
        },
    );
    j.mistake(
        Call::route(
            &["exec", "task", "lsit", "-"],
            page(json!({"limit": 1})).input,
        ),
        "usage_error",
        suggested_route,
    );

    // A batch of three updates; line 2 is wrong and is sent again alone.
    let lines = [
        json!({"channel": "demo", "number": notes, "status": "in_progress"}),
        json!({"channel": "demo", "number": build, "statuss": "done"}),
        json!({"channel": "demo", "number": tag, "status": "in_progress"}),
    ];
    let batch = j.cli.run(
        &["exec", "task", "update", "--batch", "-"],
        Some(&lines.iter().map(|l| format!("{l}\n")).collect::<String>()),
    );
    assert_eq!(batch.code, 2, "{batch:?}");
    j.figures.mistakes += 1;
    j.figures.failed_calls += 1;
    j.figures.failed_bytes += batch.stdout.len() + batch.stderr.len();
    let failed: Value = batch
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l.get("error").is_some())
        .unwrap();
    let line = failed["error"]["details"]["line"].as_u64().unwrap() as usize;
    assert_eq!(line, 2, "{failed}");
    let field = failed["error"]["field_errors"]
        .as_object()
        .unwrap()
        .keys()
        .find(|k| k.as_str() != "")
        .unwrap()
        .clone();
    let error = failed["error"].clone();
    let retry = rename(
        Call::exec("update", lines[line - 1].clone()),
        &error,
        &[&field],
    );
    j.ok(&retry);

    // Done with the plan: delete the parent, keeping its subtasks.
    let deleted = j.mistake(
        Call::exec("delete", json!({"channel": "demo", "number": parent})),
        "subtask_mode_required",
        |error, call| {
            assert!(error["message"].as_str().unwrap().contains("`promote`"));
            call.with("subtask_mode", json!("promote"))
        },
    );
    assert_eq!(deleted["data"]["deleted_numbers"], json!([parent]));
    j.mistake(
        get("demo", json!(announce * 10)),
        "task_not_found",
        |error, call| call.with("number", candidate_titled(error, "Announce it")),
    );

    let figures = &j.figures;
    println!(
        "agent journey: {} bytes read in all: {} of help in {} reads, {} in {} successful calls, {} in {} failed calls; {} mistakes, each fixed in one retry (budget {} bytes)",
        figures.total(),
        figures.help_bytes,
        figures.help_reads,
        figures.ok_bytes,
        figures.ok_calls,
        figures.failed_bytes,
        figures.failed_calls,
        figures.mistakes,
        BUDGET_BYTES,
    );
    assert!(figures.mistakes >= 30, "{} mistakes", figures.mistakes);
    assert!(
        figures.total() <= BUDGET_BYTES,
        "the journey read {} bytes, {} over its budget (`BUDGET_BYTES` in tests/testsuite/agent_journey.rs, 60% of {BEFORE_BYTES}): \
         help {}, answers {}, errors {}. Find the bytes in what this change lengthened, or raise the budget with a reason; \
         docs/agents.md quotes these figures (`-- --nocapture` prints them).",
        figures.total(),
        figures.total() - BUDGET_BYTES,
        figures.help_bytes,
        figures.ok_bytes,
        figures.failed_bytes,
    );
}
