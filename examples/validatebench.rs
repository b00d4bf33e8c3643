//! What one validation costs in-process, as the runtime validates a request
//! body on receipt: `validate` of a task.create and a task.get input, the
//! clone of the input it consumes included (timed alone too), and a
//! refused create (every field error worded). Median of five rounds, ns per call, of the thread's CPU time (what the call costs,
//! whatever else shares the cores) and of the wall clock.
//!
//!   cargo run --release --example validatebench [-- ITERATIONS]

// An example sees every dependency of the package and uses a few.
#![allow(unused_crate_dependencies)]

use std::hint::black_box;
use std::time::Instant;

use agentteam::registry::find;
use agentteam::validate::validate;
use serde_json::{Value, json};

/// This thread's CPU time, in ns.
fn thread_cpu_ns() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}

/// Medians over five rounds of `n` calls: (CPU, wall) ns per call.
fn time(n: u32, mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..n.min(1_000) {
        f();
    }
    let (mut cpu, mut wall): (Vec<f64>, Vec<f64>) = (0..5)
        .map(|_| {
            let (cpu, wall) = (thread_cpu_ns(), Instant::now());
            for _ in 0..n {
                f();
            }
            let per = |total: f64| total / f64::from(n);
            (
                per(thread_cpu_ns() - cpu),
                per(wall.elapsed().as_secs_f64() * 1e9),
            )
        })
        .unzip();
    cpu.sort_by(f64::total_cmp);
    wall.sort_by(f64::total_cmp);
    (cpu[2], wall[2])
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
    println!("{:<40} {:>22}", "ns per validate", "CPU / wall");
    let cell = |(cpu, wall): (f64, f64)| format!("{cpu:.0} / {wall:.0}");
    for (name, action, input, valid) in cases {
        assert_eq!(validate(action, input.clone()).is_ok(), valid, "{name}");
        let row = time(n, || {
            black_box(validate(action, black_box(input).clone()).is_ok());
        });
        println!("{name:<40} {:>22}", cell(row));
    }
    let clone = time(n, || {
        black_box(black_box(&rich).clone());
    });
    let name = "(of which the input clone, rich create)";
    println!("{name:<40} {:>22}", cell(clone));
}
