//! Crash durability: `kill -9` of the real runtime at a
//! random moment of a create/update/delete/keyed-create load, then the store
//! is checked directly with SQLite and the runtime restarted on it, round
//! after round. After every round:
//!
//! - every acknowledged create is present with its scope id, unless an
//!   acknowledged delete removed it; its title is the last acknowledged
//!   update's or the one update that was in flight at the kill;
//! - every acknowledged delete stays deleted;
//! - no number is reused: each number keeps the scope id it was first
//!   acknowledged with, and the board's next number is past every number;
//! - no idempotency receipt is orphaned: each names tasks that exist, and
//!   every acknowledged keyed create has its receipt;
//! - `PRAGMA integrity_check` says `ok`.
//!
//! 20 rounds of 100–300 ms of load by default; `AGENTTEAM_CRASH_ROUNDS` sets more.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::runtime::{Agent, Runtime, try_post};

/// What the clients know about one task.
#[derive(Debug, Clone, Default)]
struct Known {
    scope_id: String,
    /// The last acknowledged title.
    title: String,
    /// An update sent but not acknowledged when the server died.
    pending_title: Option<String>,
    deleted: bool,
    /// A delete sent but not acknowledged.
    pending_delete: bool,
}

#[derive(Default)]
struct Ledger {
    tasks: BTreeMap<i64, Known>,
    /// (key, numbers) of acknowledged keyed creates.
    keyed: Vec<(String, Vec<i64>)>,
    acked: u64,
}

/// One client's load until the server dies or `stop` is set.
fn load(
    addr: SocketAddr,
    agent: Agent,
    worker: usize,
    round: usize,
    callback: Value,
    ledger: Arc<Mutex<Ledger>>,
    stop: Arc<AtomicBool>,
) {
    let mut own: Vec<i64> = Vec::new();
    let mut n = 0usize;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        match n % 4 {
            // Update one of our tasks.
            1 if !own.is_empty() => {
                let number = own[n % own.len()];
                let title = format!("r{round} w{worker} update {n}");
                ledger
                    .lock()
                    .unwrap()
                    .tasks
                    .get_mut(&number)
                    .unwrap()
                    .pending_title = Some(title.clone());
                let Some((status, _)) = try_post(
                    addr,
                    &agent,
                    "/tasks/update",
                    &json!({"channel": "eng", "number": number, "title": title}),
                ) else {
                    return;
                };
                assert_eq!(status, 200);
                let mut l = ledger.lock().unwrap();
                let known = l.tasks.get_mut(&number).unwrap();
                known.title = title;
                known.pending_title = None;
                l.acked += 1;
            }
            // Delete the oldest of our tasks.
            2 if own.len() > 2 => {
                let number = own.remove(0);
                ledger
                    .lock()
                    .unwrap()
                    .tasks
                    .get_mut(&number)
                    .unwrap()
                    .pending_delete = true;
                let Some((status, _)) = try_post(
                    addr,
                    &agent,
                    "/tasks/delete",
                    &json!({"channel": "eng", "number": number}),
                ) else {
                    return;
                };
                assert_eq!(status, 200);
                let mut l = ledger.lock().unwrap();
                l.tasks.get_mut(&number).unwrap().deleted = true;
                l.acked += 1;
            }
            // A keyed create inside the round's workflow callback.
            3 if worker == 0 => {
                let key = format!("r{round}-{n}");
                let body = json!({"channel": "eng", "tasks": [{"title": format!("keyed {key}")}],
                    "idempotencyKey": key,
                    "workflowRunId": callback["workflow_run_id"],
                    "callbackEffectId": callback["callback_effect_id"]});
                let Some((status, data)) = try_post(addr, &agent, "/tasks", &body) else {
                    return;
                };
                assert_eq!(status, 201, "{data}");
                let task = &data["tasks"][0];
                let number = task["number"].as_i64().unwrap();
                let mut l = ledger.lock().unwrap();
                record_create(&mut l, number, task);
                l.keyed.push((key, vec![number]));
                l.acked += 1;
                own.push(number);
            }
            // Create a task.
            _ => {
                let body = json!({"channel": "eng", "tasks": [{"title": format!("r{round} w{worker} {n}")}]});
                let Some((status, data)) = try_post(addr, &agent, "/tasks", &body) else {
                    return;
                };
                assert_eq!(status, 201, "{data}");
                let task = &data["tasks"][0];
                let number = task["number"].as_i64().unwrap();
                let mut l = ledger.lock().unwrap();
                record_create(&mut l, number, task);
                l.acked += 1;
                own.push(number);
            }
        }
    }
}

fn record_create(l: &mut Ledger, number: i64, task: &Value) {
    let scope_id = task["scopeId"].as_str().unwrap().to_string();
    if let Some(previous) = l.tasks.get(&number) {
        panic!(
            "number {number} reused: {} then {scope_id}",
            previous.scope_id
        );
    }
    l.tasks.insert(
        number,
        Known {
            scope_id,
            title: task["title"].as_str().unwrap().to_string(),
            ..Known::default()
        },
    );
}

/// Checks the store file against the ledger; returns the live task count.
fn check_store(db: &std::path::Path, ledger: &Ledger) -> usize {
    let conn = rusqlite::Connection::open(db).expect("open the store");
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let rows: BTreeMap<i64, (String, String, bool)> = conn
        .prepare(
            "SELECT t.number, t.scope_id, t.title, t.deleted_at IS NOT NULL FROM tasks t \
             JOIN channels c ON c.id = t.channel_id WHERE c.name = 'eng'",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    for (number, known) in &ledger.tasks {
        let (scope_id, title, deleted) = rows
            .get(number)
            .unwrap_or_else(|| panic!("acknowledged task {number} is missing"));
        assert_eq!(scope_id, &known.scope_id, "number {number} was reused");
        if known.deleted {
            assert!(deleted, "acknowledged delete of {number} was lost");
        } else if !known.pending_delete {
            assert!(!deleted, "task {number} vanished");
        }
        let allowed = title == &known.title || known.pending_title.as_ref() == Some(title);
        assert!(
            allowed,
            "task {number}: title {title:?}, acknowledged {:?}, in flight {:?}",
            known.title, known.pending_title
        );
    }
    let next: i64 = conn
        .query_row(
            "SELECT next_number FROM channels WHERE name = 'eng'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let max = rows.keys().max().copied().unwrap_or(0);
    assert!(next > max, "next_number {next} is not past {max}");
    // Receipts: each names existing tasks; each acknowledged keyed create has one.
    let receipts: Vec<(String, String)> = conn
        .prepare("SELECT key, task_ids FROM idempotency_receipts")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    for (key, ids) in &receipts {
        let ids: Vec<i64> = serde_json::from_str(ids).unwrap();
        assert!(!ids.is_empty(), "receipt {key} names no task");
        for id in ids {
            let exists: bool = conn
                .query_row("SELECT count(*) FROM tasks WHERE id = ?1", [id], |r| {
                    r.get::<_, i64>(0).map(|n| n == 1)
                })
                .unwrap();
            assert!(exists, "receipt {key} is orphaned: task id {id} is missing");
        }
    }
    for (key, _) in &ledger.keyed {
        assert!(
            receipts.iter().any(|(k, _)| k == key),
            "acknowledged keyed create {key} has no receipt"
        );
    }
    rows.values().filter(|(_, _, deleted)| !deleted).count()
}

fn rounds() -> usize {
    std::env::var("AGENTTEAM_CRASH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

#[test]
fn acknowledged_writes_survive_kill_9_at_random_points() {
    let mut rt = Runtime::start();
    let ws = rt.workspace("w");
    rt.channel(&ws, "eng");
    let agents: Vec<Agent> = (0..3).map(|i| rt.agent(&ws, &format!("c{i}"))).collect();
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    // A fixed-seed sequence of kill delays between 100 and 300 ms.
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let started = Instant::now();
    let rounds = rounds();
    for round in 0..rounds {
        let callback = rt.open_callback(&ws, "@c0");
        // A fresh process compiles its validators on the first request;
        // warm it so the kill lands in the load, not in start-up.
        let warm = try_post(
            rt.addr,
            &agents[0],
            "/tasks/get",
            &json!({"channel": "eng", "number": 1_000_000}),
        );
        assert_eq!(warm.map(|(status, _)| status), Some(404));
        let stop = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = agents
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, agent)| {
                let (ledger, stop, callback, addr) =
                    (ledger.clone(), stop.clone(), callback.clone(), rt.addr);
                thread::spawn(move || load(addr, agent, i, round, callback, ledger, stop))
            })
            .collect();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        thread::sleep(Duration::from_millis(100 + seed % 200));
        // SIGKILL mid-load: no shutdown, no flush, requests cut in flight.
        let _ = rt.child.kill();
        let _ = rt.child.wait();
        stop.store(true, Ordering::Relaxed);
        for worker in workers {
            worker.join().expect("a client saw an undocumented answer");
        }
        check_store(rt.db.as_ref(), &ledger.lock().unwrap());
        rt.kill9_and_restart();
    }
    // The restarted runtime serves on, and numbers continue past every one seen.
    let (status, data) = try_post(
        rt.addr,
        &agents[1],
        "/tasks",
        &json!({"channel": "eng", "tasks": [{"title": "after the crashes"}]}),
    )
    .expect("the restarted runtime answers");
    assert_eq!(status, 201);
    let ledger = ledger.lock().unwrap();
    let max = ledger.tasks.keys().max().copied().unwrap_or(0);
    assert!(data["tasks"][0]["number"].as_i64().unwrap() > max);
    let live = check_store(rt.db.as_ref(), &ledger);
    eprintln!(
        "crash: {rounds} kill -9 rounds in {:.1} s, {} acknowledged writes ({} creates, {} keyed, {} deletes), {} live tasks, 0 lost, 0 numbers reused, 0 orphaned receipts, integrity_check ok",
        started.elapsed().as_secs_f64(),
        ledger.acked,
        ledger.tasks.len(),
        ledger.keyed.len(),
        ledger.tasks.values().filter(|k| k.deleted).count(),
        live
    );
}
