//! What one validation costs in-process, as the runtime validates a request
//! body on receipt: `validate` of a task.create and a task.get input by each
//! schema engine, the clone of the input it consumes included (timed alone
//! too), and a refused create (every field error worded). Median of five
//! rounds, ns per call.
//!
//!   cargo run --release --example validatebench [-- ITERATIONS]

use std::hint::black_box;
use std::time::Instant;

use agentteam::registry::find;
use agentteam::validate::{Engine, validate_with};
use serde_json::{Value, json};

/// Median over five rounds of `n` calls, in ns per call.
fn time(n: u32, mut f: impl FnMut()) -> f64 {
    for _ in 0..n.min(1_000) {
        f();
    }
    let mut rounds: Vec<f64> = (0..5)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..n {
                f();
            }
            started.elapsed().as_secs_f64() * 1e9 / f64::from(n)
        })
        .collect();
    rounds.sort_by(f64::total_cmp);
    rounds[2]
}

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let create = find("task", "create").expect("task create");
    let get = find("task", "get").expect("task get");
    let rich = json!({
        "channel": "eng",
        "tasks": [{
            "title": "Fix login timeout",
            "description": "Sessions expire after 5 minutes instead of 30.",
            "priority": "high",
            "assignee": "@alice",
            "labels": ["auth", "bug"],
            "checklist": [{"text": "Reproduce"}, {"text": "Fix", "done": false}],
            "urls": ["https://example.com/issues/12"]
        }],
        "target": "#eng:thread_1",
        "idempotency_key": "k1"
    });
    let titles = json!({
        "channel": "eng",
        "tasks": (0..10).map(|i| json!({"title": format!("task {i}")})).collect::<Vec<_>>()
    });
    let one_get = json!({"channel": "eng", "number": 42});
    let refused = json!({
        "channel": "Eng",
        "tasks": [{"title": " ", "priority": "urgent!", "labels": ["a", "a"]}],
        "workspaceId": "w"
    });
    let cases: [(&str, &agentteam::registry::Action, &Value, bool); 4] = [
        ("task.create, one rich task", create, &rich, true),
        ("task.create, ten titles", create, &titles, true),
        ("task.get", get, &one_get, true),
        (
            "task.create refused (5 field errors)",
            create,
            &refused,
            false,
        ),
    ];
    println!(
        "{:<40} {:>12} {:>12}",
        "ns per validate", "compiled", "evaluator"
    );
    for (name, action, input, valid) in cases {
        let mut row = Vec::new();
        for engine in [Engine::Compiled, Engine::Evaluator] {
            assert_eq!(
                validate_with(engine, action, input.clone()).is_ok(),
                valid,
                "{name}"
            );
            row.push(time(n, || {
                black_box(validate_with(engine, action, black_box(input).clone()).is_ok());
            }));
        }
        println!("{name:<40} {:>12.0} {:>12.0}", row[0], row[1]);
    }
    let clone = time(n, || {
        black_box(black_box(&rich).clone());
    });
    println!(
        "{:<40} {clone:>12.0}",
        "(of which the input clone, rich create)"
    );
}
