//! Limits, over raw HTTP against the real runtime, as a
//! client that skips the CLI would send them:
//!
//! - every string and array bound in every input schema is enforced by the
//!   runtime: each registry example is pushed one past each bound it
//!   touches (and a 10 MB title past the body limit), the answer is 413 or
//!   422 naming the field, and nothing is stored;
//! - results stay within their action's result budget (§8.3): a page whose
//!   items would pass the Page budget ends early with `truncated: true` and a
//!   `nextCursor` that continues right after its last item; a detail past the
//!   Detail budget is cut, says so, and keeps the sections' totals.

use std::collections::HashSet;

use agentteam::registry::{ACTIONS, Action, BudgetClass, find};
use serde_json::{Value, json};

use crate::support::runtime::{Agent, Engine, Reply, Runtime};

on_every_engine!(
    every_schema_bound_is_enforced_by_the_runtime,
    a_page_past_its_budget_is_cut_with_a_cursor_that_continues,
    a_detail_past_its_budget_is_cut_explicitly,
);

fn call(rt: &Runtime, who: &Agent, action: &Action, input: &Value) -> Reply {
    rt.call(who, action, input)
}

/// Counts of every kind of row a mutation could add or change.
fn footprint(rt: &Runtime) -> Vec<i64> {
    [
        "SELECT count(*) FROM tasks",
        "SELECT count(*) FROM checkpoints",
        "SELECT count(*) FROM task_events",
        "SELECT count(*) FROM idempotency_receipts",
        "SELECT coalesce(sum(length(title) + length(coalesce(description, '')) + length(CAST(labels AS TEXT)) + length(CAST(checklist AS TEXT)) + length(CAST(urls AS TEXT)) + length(CAST(attachments AS TEXT)) + length(coalesce(blocker, ''))), 0) FROM tasks",
        "SELECT coalesce(max(updated_at), 0) FROM tasks",
    ]
    .iter()
    .map(|sql| rt.scalar(sql))
    .collect()
}

/// Every (path, over-the-bound value) the example reaches: strings one
/// character past `maxLength`, arrays one item past `maxItems`.
fn overs(schema: &Value, value: &Value, path: &str, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let sub = &schema["properties"][key];
                let p = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}/{key}")
                };
                overs(sub, v, &p, out);
            }
        }
        Value::Array(items) => {
            if let Some(max) = schema["maxItems"].as_u64() {
                let mut longer = items.clone();
                let mut i = 0;
                while longer.len() as u64 <= max {
                    // Distinct items, so only the length bound is broken.
                    let mut item = items[0].clone();
                    if let Some(n) = item.as_i64() {
                        item = json!(n + 1000 + i);
                    } else if let Some(s) = item.as_str() {
                        item = json!(format!("{s}{i}"));
                    }
                    longer.push(item);
                    i += 1;
                }
                out.push((path.to_string(), Value::Array(longer)));
            }
            if let Some(first) = items.first() {
                overs(&schema["items"], first, &format!("{path}/0"), out);
            }
        }
        Value::String(s) => {
            if let Some(max) = schema["maxLength"].as_u64() {
                // Keep a pattern's prefix (`@`, `https://`, `#`) so only length breaks.
                let keep: String = s.chars().take(12).collect();
                let pad = (max as usize + 1).saturating_sub(keep.chars().count());
                out.push((
                    path.to_string(),
                    json!(format!("{keep}{}", "a".repeat(pad))),
                ));
            }
        }
        _ => {}
    }
}

fn set_path(value: &mut Value, path: &str, new: Value) {
    let mut at = value;
    for part in path.split('/') {
        at = match part.parse::<usize>() {
            Ok(i) if at.is_array() => &mut at[i],
            _ => &mut at[part],
        };
    }
    *at = new;
}

fn every_schema_bound_is_enforced_by_the_runtime(engine: Engine) {
    let rt = Runtime::start_on(engine);
    let ws = rt.workspace("w");
    rt.channel(&ws, "demo");
    let alice = rt.agent(&ws, "alice");
    // The board and tasks the examples refer to (numbers 1..12, a parent with subtasks).
    for i in 0..12 {
        let reply = rt.post(
            &alice,
            "/tasks",
            &json!({"channel": "demo", "tasks": [{"title": format!("seed {i}")}]}),
        );
        assert_eq!(reply.status, 201);
    }
    let before = footprint(&rt);
    let mut tried = 0;
    let mut fields = HashSet::new();
    for action in ACTIONS {
        let schema = (action.input_schema)();
        for example in action.examples {
            let input: Value = serde_json::from_str(example.input).unwrap();
            let mut cases = Vec::new();
            overs(&schema, &input, "", &mut cases);
            for (path, over) in cases {
                let mut bad = input.clone();
                set_path(&mut bad, &path, over);
                let reply = call(&rt, &alice, action, &bad);
                let body = reply.json();
                assert!(
                    reply.status == 422 || reply.status == 413,
                    "{} {path}: {} {body}",
                    action.name(),
                    reply.status
                );
                if reply.status == 422 {
                    let wire_path = path
                        .split('/')
                        .map(agentteam::case::snake_to_camel)
                        .collect::<Vec<_>>()
                        .join("/");
                    let named = body["error"]["fieldErrors"]
                        .as_object()
                        .unwrap()
                        .keys()
                        .any(|k| k == &path || k == &wire_path);
                    assert!(named, "{} {path}: {body}", action.name());
                }
                fields.insert(format!("{}:{path}", action.name()));
                tried += 1;
            }
        }
    }
    // A 10 MB title: past the 1 MiB body limit, refused before it is read.
    let huge = json!({"channel": "eng", "tasks": [{"title": "x".repeat(10 * 1024 * 1024)}]});
    let started = std::time::Instant::now();
    let reply = rt.post(&alice, "/tasks", &huge);
    assert_eq!(
        (reply.status, reply.code().as_str()),
        (413, "input_too_large")
    );
    // Under the body limit but past the title bound: 422.
    let big = json!({"channel": "eng", "tasks": [{"title": "x".repeat(900 * 1024)}]});
    let reply = rt.post(&alice, "/tasks", &big);
    assert_eq!(reply.status, 422);
    assert!(reply.json()["error"]["fieldErrors"]["tasks/0/title"].is_string());
    // Nothing was stored or changed by any refused request.
    assert_eq!(
        footprint(&rt),
        before,
        "a refused request changed the store"
    );
    eprintln!(
        "schema bounds at the runtime: {tried} over-the-bound requests on {} fields of {} actions → all 422/413, nothing stored; 10 MB title → 413 in {:.0} ms",
        fields.len(),
        ACTIONS.len(),
        started.elapsed().as_secs_f64() * 1000.0
    );
}

/// `n` characters that JSON escapes to six bytes each (`\u0001`): the worst
/// case for a budget, inside every schema bound.
fn escaped(n: usize, tag: &str) -> String {
    let mut s: String = "\u{1}".repeat(n.saturating_sub(tag.len()));
    s.push_str(tag);
    s
}

fn a_page_past_its_budget_is_cut_with_a_cursor_that_continues(engine: Engine) {
    let rt = Runtime::start_on(engine);
    let ws = rt.workspace("w");
    rt.channel(&ws, "eng");
    let alice = rt.agent(&ws, "alice");
    let create = find("task", "create").unwrap();
    for i in 0..100 {
        let labels: Vec<String> = (0..20).map(|j| escaped(50, &format!("{i}.{j}"))).collect();
        let input = json!({"channel": "eng", "tasks": [{"title": escaped(200, &format!("t{i}")), "labels": labels}]});
        let reply = call(&rt, &alice, create, &input);
        assert_eq!(
            reply.status,
            201,
            "{}",
            String::from_utf8_lossy(&reply.body)
        );
    }
    let list = find("task", "list").unwrap();
    let budget = BudgetClass::Page.bytes();
    let mut input = json!({"channel": "eng", "limit": 100, "sort": "number_asc"});
    let mut seen = Vec::new();
    let mut pages = Vec::new();
    loop {
        let reply = call(&rt, &alice, list, &input);
        assert_eq!(reply.status, 200);
        assert!(
            reply.body.len() <= budget,
            "{} > {budget}",
            reply.body.len()
        );
        let page = agentteam::wire::decode_success(&reply.body).unwrap();
        let items = page.data["items"].as_array().unwrap();
        seen.extend(items.iter().map(|t| t["number"].as_i64().unwrap()));
        pages.push((
            reply.body.len(),
            items.len(),
            page.meta.get("truncated").cloned(),
        ));
        match page.meta.get("next_cursor") {
            Some(cursor) => input["cursor"] = cursor.clone(),
            None => break,
        }
    }
    assert!(pages.len() >= 2, "{pages:?}");
    assert_eq!(
        pages[0].2,
        Some(json!(true)),
        "the cut page says so: {pages:?}"
    );
    assert_eq!(pages.last().unwrap().2, None, "the last page is complete");
    assert_eq!(
        seen,
        (1..=100).collect::<Vec<_>>(),
        "no item lost or repeated"
    );
    eprintln!(
        "page budget ({budget} B): limit 100 of worst-case tasks → pages {:?} (bytes, items, truncated), all 100 items once",
        pages
    );
}

fn a_detail_past_its_budget_is_cut_explicitly(engine: Engine) {
    let rt = Runtime::start_on(engine);
    let ws = rt.workspace("w");
    rt.channel(&ws, "eng");
    let alice = rt.agent(&ws, "alice");
    let create = find("task", "create").unwrap();
    let url = |i: usize| format!("https://{}", escaped(1_990, &i.to_string()));
    let input = json!({"channel": "eng", "tasks": [{
        "title": escaped(200, "big"),
        "description": escaped(10_000, "end"),
        "checklist": (0..50).map(|i| json!({"text": escaped(500, &i.to_string())})).collect::<Vec<_>>(),
        "urls": (0..20).map(url).collect::<Vec<_>>(),
        "attachments": (0..20).map(|i| json!({"name": escaped(200, &i.to_string()), "url": url(i)})).collect::<Vec<_>>(),
    }]});
    let reply = call(&rt, &alice, create, &input);
    assert_eq!(
        reply.status,
        201,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    for i in 0..25 {
        let sub = json!({"channel": "eng", "parent": 1, "tasks": [{"title": escaped(200, &format!("s{i}")),
            "labels": (0..20).map(|j| escaped(50, &format!("{i}.{j}"))).collect::<Vec<_>>()}]});
        assert_eq!(call(&rt, &alice, create, &sub).status, 201);
    }
    for i in 0..6 {
        let reply = rt.post(
            &alice,
            "/tasks/add-checkpoint",
            &json!({"channel": "eng", "number": 1, "summary": escaped(4_000, &i.to_string())}),
        );
        assert_eq!(reply.status, 200);
    }
    let get = find("task", "get").unwrap();
    let reply = call(&rt, &alice, get, &json!({"channel": "eng", "number": 1}));
    assert_eq!(reply.status, 200);
    let budget = BudgetClass::Detail.bytes();
    assert!(
        reply.body.len() <= budget,
        "{} > {budget}",
        reply.body.len()
    );
    let detail = agentteam::wire::decode_success(&reply.body).unwrap();
    assert_eq!(detail.meta.get("truncated"), Some(&json!(true)));
    let data = &detail.data;
    assert_eq!(data["subtasks"]["total"], 25);
    assert_eq!(data["subtasks"]["truncated"], true);
    assert_eq!(data["checkpoints"]["total"], 6);
    assert_eq!(data["checkpoints"]["truncated"], true);
    let description = data["description"].as_str().unwrap();
    assert!(
        description.ends_with("[truncated by the result budget]") || description.ends_with("end"),
        "{}",
        &description[description.len().saturating_sub(60)..]
    );
    // The lists keep every item (their strings cut, with the marker): a
    // list that only lost items would look whole.
    for (list, all) in [("checklist", 50), ("urls", 20), ("attachments", 20)] {
        assert_eq!(data[list].as_array().unwrap().len(), all, "{list}");
    }
    // The same document validates against the action's output schema.
    let document = json!({"data": detail.data, "meta": detail.meta});
    let validator = jsonschema::draft202012::options()
        .should_validate_formats(false)
        .build(&get.closed_output_schema())
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&document)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    eprintln!(
        "detail budget ({budget} B): worst-case task ({} B stored as JSON) → {} B answer, meta.truncated, subtasks {}/25, checkpoints {}/6, checklist {}/50, urls {}/20, attachments {}/20",
        serde_json::to_vec(&input).unwrap().len(),
        reply.body.len(),
        data["subtasks"]["items"].as_array().unwrap().len(),
        data["checkpoints"]["items"].as_array().unwrap().len(),
        data["checklist"].as_array().unwrap().len(),
        data["urls"].as_array().unwrap().len(),
        data["attachments"].as_array().unwrap().len(),
    );
}
