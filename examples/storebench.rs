//! Where a runtime request's time goes, without HTTP: each step of the
//! server's task.get and task.create path timed alone, in one thread, on a
//! real store file (synchronous=FULL, so a create includes its fsync).
//! The figures docs/performance.md splits a request into.
//!
//!   cargo run --release --example storebench [-- ITERATIONS]

// An example sees every dependency of the package and uses a few.
#![allow(unused_crate_dependencies)]

use std::time::Instant;

use agentteam::registry::find;
use agentteam::runtime::auth;
use agentteam::runtime::store::schema::OnOpen;
use agentteam::runtime::store::sqlite::SqliteStore;
use agentteam::runtime::store::{Admin, CreateInput, Store, TaskLocator, typed};
use agentteam::validate::validate;
use agentteam::wire::{WorkflowContext, decode_body, read_body};
use serde_json::json;

fn time(name: &str, n: u32, mut f: impl FnMut(u32)) {
    for i in 0..n.min(100) {
        f(i);
    }
    let started = Instant::now();
    for i in 0..n {
        f(i);
    }
    let per = started.elapsed().as_secs_f64() * 1e6 / f64::from(n);
    println!("{name:<44} {per:>9.1} µs/op  ({:>8.0} op/s)", 1e6 / per);
}

/// The store's operations are async; a read runs in place and a mutation
/// waits for its group commit, so one current-thread runtime drives them.
fn block<T>(future: impl Future<Output = T>) -> T {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
    }
    RUNTIME.with(|rt| rt.block_on(future))
}

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let dir = std::env::temp_dir().join(format!("agentteam-storebench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let store = SqliteStore::open(&dir.join("rt.db"), OnOpen::Migrate).expect("store");
    let ws = block(store.create_workspace("bench")).expect("workspace");
    let (_, hash) = auth::new_token().expect("token");
    block(store.create_agent(
        &ws,
        "bench",
        &agentteam::runtime::store::NewToken::new(hash),
    ))
    .expect("agent");
    block(store.create_channel(&ws, "bench", None)).expect("channel");
    let me = block(store.find_agent(&ws, "@bench"))
        .expect("find")
        .expect("agent");
    let create = find("task", "create").expect("task create");
    let get = find("task", "get").expect("task get");
    let none = WorkflowContext::default();
    for b in 0..20 {
        let tasks: Vec<_> = (0..50)
            .map(|i| json!({"title": format!("seed task {}", b * 50 + i)}))
            .collect();
        let input = validate(create, json!({"channel": "bench", "tasks": tasks})).expect("valid");
        block(store.create(&me, &CreateInput::from_input(input).expect("typed"), &none))
            .expect("create");
    }

    let body = br#"{"channel":"bench","number":42}"#;
    time("decode_body (task.get JSON)", n, |_| {
        decode_body(get, body).expect("decode");
    });
    let input = decode_body(get, body).expect("decode").input;
    time("validate (task.get)", n, |_| {
        validate(get, input.clone()).expect("valid");
    });
    time("find_token", n, |_| {
        block(store.find_token(&hash))
            .expect("lookup")
            .expect("token");
    });
    time("store.get", n, |i| {
        let locator = TaskLocator {
            channel: "bench".into(),
            number: i64::from(i % 1000 + 1),
            checkpoints_before: None,
        };
        block(store.get(&me, &locator)).expect("get");
    });
    time("typed + store.get + to_string", n, |i| {
        let input = json!({"channel": "bench", "number": i % 1000 + 1});
        let locator: TaskLocator = typed(input).expect("typed");
        block(store.get(&me, &locator)).expect("get").to_string();
    });
    let create_body = br#"{"channel":"bench","tasks":[{"title":"load task"}]}"#;
    time("decode + validate (task.create)", n, |_| {
        read_body(create, create_body).expect("valid");
    });
    let (input, _) = read_body(create, create_body).expect("valid");
    time("store.create (1 task, fsync)", n.min(2_000), |_| {
        block(store.create(
            &me,
            &CreateInput::from_input(input.clone()).expect("typed"),
            &none,
        ))
        .expect("create");
    });
    let _ = std::fs::remove_dir_all(&dir);
}
