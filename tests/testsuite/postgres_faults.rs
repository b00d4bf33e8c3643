//! The PostgreSQL engine when its database misbehaves, each on a server of
//! the test's own that it stops, starts and locks at will: a restart under
//! load is a prompt, retryable 503 with no internals and heals without
//! restarting the runtime; an exhausted pool queues briefly, then answers
//! 503, and so does a read queued behind stuck shared statements; a
//! deadlock is retried inside the runtime and never reaches the client.
//! Each test prints its figure (`-- --nocapture`).

use std::io::Write;
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use agentteam::registry::find;
use serde_json::{Value, json};

use crate::support::postgres::Cluster;
use crate::support::runtime::{Agent, Engine, Runtime, try_post};

/// A runtime on a fresh database of `cluster`, with a workspace, one agent
/// and board `eng` holding tasks 1 and 2.
fn runtime_on(cluster: &Cluster, serve_args: &[&str]) -> (Runtime, Agent) {
    runtime_on_db(&cluster.create_database(), serve_args)
}

/// [`runtime_on`] the database of URI `db`.
fn runtime_on_db(db: &str, serve_args: &[&str]) -> (Runtime, Agent) {
    let rt = Runtime::serve(Engine::Postgres, db, serve_args);
    let ws = rt.workspace("w");
    rt.channel(&ws, "eng");
    let agent = rt.agent(&ws, "a");
    let created = rt.call(
        &agent,
        find("task", "create").unwrap(),
        &json!({"channel": "eng", "tasks": [{"title": "one"}, {"title": "two"}]}),
    );
    assert_eq!(created.status, 201);
    (rt, agent)
}

/// A psql session of the test's own running `script` on `db` in the
/// background; it stops at the first error.
fn session(cluster: &Cluster, db: &str, script: &str) -> std::process::Child {
    let mut psql = cluster
        .client_command("psql")
        .arg("-h")
        .arg(cluster.socket_dir())
        .arg("-p")
        .arg(cluster.port().to_string())
        .args([
            "-U",
            crate::support::postgres::SUPERUSER,
            "-d",
            db,
            "-X",
            "-q",
        ])
        .args(["-v", "ON_ERROR_STOP=1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("psql");
    psql.stdin
        .take()
        .expect("psql's stdin")
        .write_all(script.as_bytes())
        .expect("the script reaches psql");
    psql
}

/// A psql session that holds the tasks table (`ACCESS EXCLUSIVE`) for
/// `seconds`, returned once it holds it: a read of a task waits for it.
fn hold_tasks(cluster: &Cluster, db: &str, seconds: u32) -> std::process::Child {
    let holder = session(
        cluster,
        db,
        &format!(
            "BEGIN;\nLOCK TABLE tasks IN ACCESS EXCLUSIVE MODE;\nSELECT pg_sleep({seconds});\nCOMMIT;\n"
        ),
    );
    until(
        cluster,
        db,
        "SELECT count(*) FROM pg_locks WHERE relation = 'tasks'::regclass AND mode = 'AccessExclusiveLock' AND granted",
        ("1", Duration::from_secs(10)),
        "the lock was never taken",
    );
    holder
}

/// Waits until `sql` on `db` answers `value`, failing with `never` after
/// `within`.
fn until(cluster: &Cluster, db: &str, sql: &str, (value, within): (&str, Duration), never: &str) {
    let deadline = Instant::now() + within;
    while cluster.psql(db, sql).trim() != value {
        assert!(Instant::now() < deadline, "{never}");
        thread::sleep(Duration::from_millis(20));
    }
}

/// task.get of task `number` on board `eng`: status and body.
fn get_task(addr: SocketAddr, agent: &Agent, number: i64) -> (u16, Value) {
    try_post(
        addr,
        agent,
        "/tasks/get",
        &json!({"channel": "eng", "number": number}),
    )
    .expect("an answer")
}

/// An answer that tells nothing of the store: the `server_error` document
/// with nothing but its generic message.
fn assert_opaque_503(status: u16, body: &Value) {
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "server_error", "{body}");
    assert_eq!(body["error"]["retryable"], true, "{body}");
    let text = body.to_string().to_lowercase();
    for internal in [
        "postgres",
        "sql",
        "socket",
        "db error",
        "connection",
        "/tmp",
    ] {
        assert!(!text.contains(internal), "{internal} leaked: {body}");
    }
}

#[test]
fn a_database_restart_under_load_is_a_prompt_503_and_heals_by_itself() {
    let cluster = Cluster::start();
    let (rt, agent) = runtime_on(&cluster, &[]);
    let addr = rt.addr;
    let stop = Arc::new(AtomicBool::new(false));
    // (when, status, body, how long it took) of every answer.
    type Seen = Vec<(Instant, u16, Value, Duration)>;
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let clients: Vec<_> = (0..3)
        .map(|i| {
            let (stop, seen, agent) = (stop.clone(), seen.clone(), agent.clone());
            thread::spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let (route, body) = if (n + i) % 2 == 0 {
                        ("/tasks/get", json!({"channel": "eng", "number": 1}))
                    } else {
                        (
                            "/tasks",
                            json!({"channel": "eng", "tasks": [{"title": format!("c{i} {n}")}]}),
                        )
                    };
                    let sent = Instant::now();
                    let (status, body) =
                        try_post(addr, &agent, route, &body).expect("the runtime answers");
                    seen.lock()
                        .unwrap()
                        .push((sent, status, body, sent.elapsed()));
                    thread::sleep(Duration::from_millis(5));
                }
            })
        })
        .collect();
    thread::sleep(Duration::from_millis(500));
    let stopped = Instant::now();
    cluster.stop();
    thread::sleep(Duration::from_millis(500));
    let readyz_down = rt.http("GET", "/readyz", None, None);
    let healthz_down = rt.http("GET", "/healthz", None, None);
    thread::sleep(Duration::from_millis(1000));
    let restarted = Instant::now();
    cluster.restart();
    // Recovery: the next successes come without restarting the runtime.
    let deadline = Instant::now() + Duration::from_secs(15);
    let healed = loop {
        let recent = seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(at, status, _, _)| *at > restarted && (200..300).contains(status))
            .count();
        if recent >= 10 {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        thread::sleep(Duration::from_millis(50));
    };
    let readyz_up = rt.http("GET", "/readyz", None, None);
    stop.store(true, Ordering::Relaxed);
    clients.into_iter().for_each(|c| c.join().unwrap());
    let seen = seen.lock().unwrap();

    assert!(healed, "no successes within 15 s of the database's return");
    assert_eq!((readyz_down.status, healthz_down.status), (503, 200));
    assert_eq!(readyz_down.header("retry-after"), Some("1"));
    assert!(readyz_down.body.len() < 200 && healthz_down.body.is_empty());
    assert_eq!(readyz_up.status, 200);
    assert!(readyz_up.body.is_empty());
    let outage: Vec<_> = seen
        .iter()
        .filter(|(at, ..)| *at > stopped + Duration::from_millis(100) && *at < restarted)
        .collect();
    assert!(!outage.is_empty());
    let slowest = seen.iter().map(|(.., took)| *took).max().unwrap();
    for (_, status, body, took) in outage.iter() {
        assert_opaque_503(*status, body);
        assert!(*took < Duration::from_secs(3), "a hang of {took:?}");
    }
    for (_, status, body, _) in seen.iter() {
        if !(200..300).contains(status) {
            assert_opaque_503(*status, body);
        }
    }
    // The operator's log says why the pooled connections ended, in
    // PostgreSQL's words (a fast shutdown's 57P01), not as "db error".
    let log = rt.log_containing("a store connection ended");
    assert!(
        log.contains("terminating connection due to administrator command (57P01)"),
        "{log}"
    );
    assert!(!log.contains("db error"), "{log}");
    // Every request of the outage met the same fault, but the log says so
    // at most ten times a second (and how many it left out), not once for
    // each: an outage must not bury the lines that explain it.
    let faults = log
        .lines()
        .filter(|l| l.contains("store unavailable") || l.contains("no store connection"))
        .count();
    let failed = seen.iter().filter(|(_, status, ..)| *status == 503).count();
    let lasted = seen.last().unwrap().0.duration_since(stopped).as_secs() as usize + 1;
    assert!(
        faults >= 1 && faults <= 10 * (lasted + 1) && faults < failed,
        "{faults} fault lines for {failed} failed requests in {lasted} s:\n{log}"
    );
    eprintln!(
        "database restart: {} answers, {} during the outage (all 503), slowest {:.0} ms, healed without a runtime restart",
        seen.len(),
        outage.len(),
        slowest.as_secs_f64() * 1000.0
    );
}

#[test]
fn an_exhausted_pool_queues_briefly_then_answers_503() {
    let cluster = Cluster::start();
    let (rt, agent) = runtime_on(&cluster, &["--pool-size", "1", "--pool-wait-ms", "300"]);
    let db = crate::support::runtime::dbname(&rt.db);
    // A session that holds the tasks table, so a read of a task keeps the
    // runtime's one connection busy until it lets go.
    let mut holder = hold_tasks(&cluster, &db, 2);
    let first = {
        let (addr, agent) = (rt.addr, agent.clone());
        thread::spawn(move || get_task(addr, &agent, 1))
    };
    thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    let (status, body) = get_task(rt.addr, &agent, 2);
    let waited = sent.elapsed();
    assert_opaque_503(status, &body);
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(2),
        "waited {waited:?} for a connection"
    );
    // The database is reachable, though every request connection is busy:
    // /readyz says so (a load balancer must not take a busy replica for a
    // broken one).
    let ready = rt.http("GET", "/readyz", None, None);
    assert_eq!(ready.status, 200, "{ready:?}");
    let (status, body) = first.join().unwrap();
    assert_eq!(
        status, 200,
        "the queued-behind-the-lock read completes: {body}"
    );
    assert!(holder.wait().unwrap().success());
    assert_eq!(get_task(rt.addr, &agent, 2).0, 200);
    eprintln!(
        "pool of 1 held by a locked read: the next request waited {:.0} ms, then 503",
        waited.as_secs_f64() * 1000.0
    );
}

/// A request whose `--store-timeout` runs out while its statement waits
/// for a row lock does not hand its connection back still waiting: the
/// statement is cancelled and the connection closed, so the next request
/// (here on a pool of one) gets a connection of its own at once instead of
/// queueing behind the lock until the pool wait refuses it.
#[test]
fn a_request_past_its_store_timeout_leaves_no_statement_behind() {
    let cluster = Cluster::start();
    abandoned_statements_are_cancelled(&cluster, &cluster.create_database());
}

/// The same over TLS: the cancel is sent over TLS as the connection was
/// (a cancel refused would leave the statement waiting, silently).
#[test]
fn a_request_past_its_store_timeout_leaves_no_statement_behind_over_tls() {
    let pki = crate::support::tls::pki(&["localhost"]);
    let cluster = crate::support::tls::tls_cluster(&pki);
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &pki.ca).unwrap();
    let uri = format!(
        "postgres://{}:{}@localhost:{}/{}?sslmode=verify-full&sslrootcert={}",
        crate::support::postgres::SUPERUSER,
        crate::support::postgres::PASSWORD,
        cluster.port(),
        cluster.new_database(),
        ca.display()
    );
    abandoned_statements_are_cancelled(&cluster, &uri);
}

/// A pool of one on `uri` (a database of `cluster`), a set_claim abandoned
/// behind a row lock, and what must follow.
fn abandoned_statements_are_cancelled(cluster: &Cluster, uri: &str) {
    let (rt, agent) = runtime_on_db(
        uri,
        &[
            "--pool-size",
            "1",
            "--pool-wait-ms",
            "300",
            "--store-timeout",
            "1",
        ],
    );
    let db = crate::support::runtime::dbname(&rt.db);
    let mut holder = session(
        cluster,
        &db,
        "BEGIN;\nSELECT 1 FROM tasks WHERE number = 1 FOR UPDATE;\nSELECT pg_sleep(5);\nCOMMIT;\n",
    );
    until(
        cluster,
        &db,
        "SELECT count(*) FROM pg_locks WHERE relation = 'tasks'::regclass AND mode = 'RowShareLock' AND granted",
        ("1", Duration::from_secs(10)),
        "the row lock was never taken",
    );
    let claim = json!({"channel": "eng", "numbers": [1], "claimed": true});
    let (status, body) = try_post(rt.addr, &agent, "/tasks/set-claim", &claim).expect("an answer");
    assert_opaque_503(status, &body);
    let sent = Instant::now();
    let (status, body) = get_task(rt.addr, &agent, 2);
    let waited = sent.elapsed();
    assert_eq!(
        status, 200,
        "the next request queued behind the lock: {body}"
    );
    // The abandoned UPDATE no longer waits for the lock on the server, well
    // before the session holding it lets go (it sleeps 5 s).
    until(
        cluster,
        &db,
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
        ("0", Duration::from_secs(3)),
        "the timed-out statement still waits",
    );
    assert!(holder.wait().unwrap().success());
    // Nothing was claimed by the abandoned request.
    let task = get_task(rt.addr, &agent, 1).1;
    assert_eq!(task["assignee"], Value::Null, "{task}");
    eprintln!(
        "a set_claim abandoned behind a row lock: the next request answered in {:.0} ms",
        waited.as_secs_f64() * 1000.0
    );
}

/// Reads of one kind share statements, a few at a time (`reads.rs`). When
/// those statements are stuck (here, behind a lock), a read queued behind
/// them is answered 503 once it has waited `--pool-wait-ms`, as a request
/// waiting for a pooled connection is, not when they come unstuck.
#[test]
fn a_read_queued_behind_stuck_reads_answers_503_after_the_pool_wait() {
    let cluster = Cluster::start();
    let (rt, agent) = runtime_on(&cluster, &["--pool-size", "8", "--pool-wait-ms", "300"]);
    let db = crate::support::runtime::dbname(&rt.db);
    let mut holder = hold_tasks(&cluster, &db, 3);
    // Gets one after another, each its own statement, until every
    // statement a replica runs at once waits for the lock.
    let stuck: Vec<_> = (1..=4)
        .map(|number| {
            let (addr, agent) = (rt.addr, agent.clone());
            let get = thread::spawn(move || get_task(addr, &agent, number));
            thread::sleep(Duration::from_millis(100));
            get
        })
        .collect();
    let sent = Instant::now();
    let (status, body) = get_task(rt.addr, &agent, 2);
    let waited = sent.elapsed();
    assert_opaque_503(status, &body);
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_millis(1500),
        "waited {waited:?} behind stuck reads"
    );
    for get in stuck {
        let (status, body) = get.join().unwrap();
        assert!(status == 200 || status == 503, "{status}: {body}");
    }
    assert!(holder.wait().unwrap().success());
    assert_eq!(get_task(rt.addr, &agent, 2).0, 200);
    eprintln!(
        "reads stuck behind a lock: the next read waited {:.0} ms, then 503",
        waited.as_secs_f64() * 1000.0
    );
}

#[test]
fn a_deadlock_is_retried_inside_the_runtime() {
    let cluster = Cluster::start();
    let (rt, agent) = runtime_on(&cluster, &[]);
    let db = crate::support::runtime::dbname(&rt.db);
    let deadlocks = || -> i64 {
        cluster
            .psql(
                &db,
                "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
            )
            .trim()
            .parse()
            .unwrap()
    };
    let before = deadlocks();
    // A session that locks task 2 and then, once the runtime holds task 1
    // and waits for task 2 (a lock not granted), asks for task 1: a
    // deadlock, whatever the load. Its own deadlock check waits 10 s, so
    // the runtime's (after 1 s) finds it and is the victim.
    let mut other = session(
        &cluster,
        &db,
        "SET deadlock_timeout = '10s';\nSET application_name = 'deadlock-peer';\nBEGIN;\n\
         SELECT 1 FROM tasks WHERE number = 2 FOR UPDATE;\n\
         DO $$ BEGIN FOR i IN 1..1000 LOOP \
         EXIT WHEN EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted); \
         PERFORM pg_sleep(0.01); END LOOP; END $$;\n\
         SELECT 1 FROM tasks WHERE number = 1 FOR UPDATE;\nCOMMIT;\n",
    );
    until(
        &cluster,
        &db,
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'deadlock-peer' AND query LIKE 'DO%'",
        ("1", Duration::from_secs(10)),
        "the other session never locked task 2",
    );
    let started = Instant::now();
    let reply = rt.call(
        &agent,
        find("task", "set_claim").unwrap(),
        &json!({"channel": "eng", "numbers": [1, 2], "claimed": true}),
    );
    let took = started.elapsed();
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let data = agentteam::wire::decode_success(&reply.body).unwrap().data;
    assert_eq!(data["updated_count"], 2, "{data}");
    assert!(
        other.wait().unwrap().success(),
        "the other session was not the deadlock's victim"
    );
    // The victim's backend counts the deadlock in its pending statistics,
    // flushed at most about once a second: look until it shows, within a
    // bound.
    let counted = (0..150).any(|_| {
        let seen = deadlocks() > before;
        if !seen {
            thread::sleep(Duration::from_millis(100));
        }
        seen
    });
    assert!(counted, "no deadlock happened");
    eprintln!(
        "deadlock: the runtime was the victim, retried, and answered 200 after {:.0} ms",
        took.as_secs_f64() * 1000.0
    );
}

/// The postmaster of `cluster` and its children (backends and helpers).
fn cluster_pids(cluster: &Cluster) -> Vec<u32> {
    let postmaster = cluster.postmaster_pid().expect("the cluster runs");
    let mut pids = vec![postmaster];
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces, so after the `)`.
        let parent = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|ppid| ppid.parse::<u32>().ok());
        if parent == Some(postmaster) {
            pids.push(pid);
        }
    }
    pids
}

/// Stopped processes, continued when this is dropped, a failed assertion
/// included: a test never leaves a frozen server behind.
struct Frozen(Vec<u32>);

impl Frozen {
    fn stop(pids: Vec<u32>) -> Frozen {
        signal(&pids, libc::SIGSTOP);
        Frozen(pids)
    }
}

impl Drop for Frozen {
    fn drop(&mut self) {
        // Children first: a continued postmaster may reap one that had
        // exited, and its pid is gone by the time it would be signalled.
        let (postmaster, children) = self.0.split_first().expect("the postmaster");
        signal(children, libc::SIGCONT);
        signal(&[*postmaster], libc::SIGCONT);
    }
}

/// Sends `signal` to each of `pids`; one that has exited meanwhile (its
/// pid gone) is skipped.
fn signal(pids: &[u32], signal: libc::c_int) {
    for &pid in pids {
        let pid = libc::pid_t::try_from(pid).expect("a pid");
        // SAFETY: kill(2) with a pid and a signal number; no memory is shared.
        let sent = unsafe { libc::kill(pid, signal) };
        let error = std::io::Error::last_os_error();
        assert!(
            sent == 0 || error.raw_os_error() == Some(libc::ESRCH),
            "kill({pid}, {signal}): {error}"
        );
    }
}

/// A database that stops answering hangs no request: a lock held for
/// long, then a frozen server (every PostgreSQL process stopped, its
/// sockets still open). Each request is answered 503 once its store call
/// has taken `--store-timeout`, `/readyz` too, while `/healthz` stays 200;
/// all heals by itself when the database answers again.
#[test]
fn a_database_that_stops_answering_is_a_503_after_the_store_timeout() {
    let cluster = Cluster::start();
    let (rt, agent) = runtime_on(&cluster, &["--store-timeout", "1"]);
    let db = crate::support::runtime::dbname(&rt.db);
    // The deadline is 1 s; a loaded CI machine may add some, never a hang
    // (try_post gives up after 5 s).
    let prompt =
        |waited: Duration| waited >= Duration::from_millis(900) && waited < Duration::from_secs(5);

    let mut holder = hold_tasks(&cluster, &db, 3);
    let sent = Instant::now();
    let (status, body) = get_task(rt.addr, &agent, 1);
    let held = sent.elapsed();
    assert_opaque_503(status, &body);
    assert!(prompt(held), "a get behind a held lock waited {held:?}");
    assert!(holder.wait().unwrap().success());
    assert_eq!(get_task(rt.addr, &agent, 1).0, 200);

    let frozen = Frozen::stop(cluster_pids(&cluster));
    let answers = {
        let sent = Instant::now();
        let ready = rt.http("GET", "/readyz", None, None);
        let ready_waited = sent.elapsed();
        let live = rt.http("GET", "/healthz", None, None);
        let sent = Instant::now();
        let get = try_post(
            rt.addr,
            &agent,
            "/tasks/get",
            &json!({"channel": "eng", "number": 2}),
        );
        (ready, ready_waited, live, get, sent.elapsed())
    };
    drop(frozen);
    let (ready, ready_waited, live, get, get_waited) = answers;
    assert_eq!((ready.status, live.status), (503, 200));
    assert!(prompt(ready_waited), "/readyz waited {ready_waited:?}");
    let (status, body) = get.expect("an answer, not a hang");
    assert_opaque_503(status, &body);
    assert!(prompt(get_waited), "a get waited {get_waited:?}");

    let healed = Instant::now() + Duration::from_secs(20);
    while get_task(rt.addr, &agent, 2).0 != 200
        || rt.http("GET", "/readyz", None, None).status != 200
    {
        assert!(Instant::now() < healed, "never healed");
        thread::sleep(Duration::from_millis(200));
    }
    eprintln!(
        "a store that stops answering: 503 after {:.1} s (held lock), {:.1} s (/readyz, frozen), {:.1} s (get, frozen)",
        held.as_secs_f64(),
        ready_waited.as_secs_f64(),
        get_waited.as_secs_f64()
    );
}

/// A database that refuses a serving replica's new connections (its role's
/// password rotated under it) leaves the store unavailable to that replica:
/// a 503 its load balancer acts on, as for a server that is down, not a
/// bug's 500; the log says why; the replica serves again once the login
/// works, without a restart.
#[test]
fn a_login_refused_under_a_serving_replica_is_a_503_until_it_works_again() {
    let cluster = Cluster::shared();
    let db = cluster.new_database();
    let role = format!("{db}_owner");
    cluster.psql(
        &db,
        &format!(
            "CREATE ROLE {role} LOGIN PASSWORD 'first-pw'; ALTER DATABASE {db} OWNER TO {role}"
        ),
    );
    let uri = format!(
        "postgres://{role}:first-pw@127.0.0.1:{}/{db}",
        cluster.port()
    );
    let rt = Runtime::serve(Engine::Postgres, &uri, &["--pool-size", "2"]);
    let ws = rt.workspace("w");
    rt.channel(&ws, "eng");
    let agent = rt.agent(&ws, "a");
    assert_eq!(rt.http("GET", "/readyz", None, None).status, 200);

    cluster.psql(
        &db,
        &format!(
            "ALTER ROLE {role} PASSWORD 'second-pw'; SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = '{role}'"
        ),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let refused = loop {
        let ready = rt.http("GET", "/readyz", None, None);
        if ready.status != 200 || Instant::now() > deadline {
            break ready;
        }
        thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        refused.status,
        503,
        "{}",
        String::from_utf8_lossy(&refused.body)
    );
    assert_eq!(refused.header("retry-after"), Some("1"));
    // Each get is refused; the log names the refusal once a get has met
    // the database's answer (on a loaded machine the first may instead
    // have waited out the pool, which logs nothing).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, body) = get_task(rt.addr, &agent, 1);
        assert_opaque_503(status, &body);
        let log = std::fs::read_to_string(rt.dir.path().join("runtime.log")).unwrap_or_default();
        if log.contains("the store refused a new connection") || Instant::now() > deadline {
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    let log = rt.log_containing("the store refused a new connection");
    assert!(log.contains("(28P01)"), "{log}");
    assert!(
        !log.contains("first-pw") && !log.contains("second-pw"),
        "{log}"
    );

    cluster.psql(&db, &format!("ALTER ROLE {role} PASSWORD 'first-pw'"));
    let deadline = Instant::now() + Duration::from_secs(10);
    while rt.http("GET", "/readyz", None, None).status != 200 {
        assert!(Instant::now() < deadline, "not ready again within 10 s");
        thread::sleep(Duration::from_millis(50));
    }
    let (status, body) = get_task(rt.addr, &agent, 1);
    // No task 1 on this board: the store answers again.
    assert_eq!(status, 404, "{body}");
}

/// A database that takes no writes (a standby a failover left a replica's
/// connections on; `default_transaction_read_only` for maintenance):
/// each write is the prompt, retryable 503 of an unavailable store, reads
/// go on, and writes work again once the database takes them.
#[test]
fn a_read_only_database_refuses_writes_with_a_503_and_serves_reads() {
    let cluster = Cluster::shared();
    let db = cluster.new_database();
    let (rt, agent) = runtime_on_db(&cluster.socket_uri(&db), &[]);
    let terminate = format!(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '{db}' AND pid <> pg_backend_pid()"
    );
    let create = json!({"channel": "eng", "tasks": [{"title": "three"}]});
    cluster.psql(
        "postgres",
        &format!("ALTER DATABASE {db} SET default_transaction_read_only = on"),
    );
    cluster.psql("postgres", &terminate);
    // The first write may meet a terminated connection (a 503 too); the
    // read-only refusal is the one the log names.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let refused = rt.post(&agent, "/tasks", &create);
        assert_opaque_503(refused.status, &refused.json());
        assert_eq!(refused.header("retry-after"), Some("1"));
        let log = std::fs::read_to_string(rt.dir.path().join("runtime.log")).unwrap_or_default();
        if log.contains("(25006)") || Instant::now() > deadline {
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    rt.log_containing("(25006)");
    let (status, body) = get_task(rt.addr, &agent, 1);
    assert_eq!(status, 200, "{body}");

    cluster.psql(
        "postgres",
        &format!("ALTER DATABASE {db} RESET default_transaction_read_only"),
    );
    cluster.psql("postgres", &terminate);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let created = rt.post(&agent, "/tasks", &create);
        if created.status == 201 {
            assert_eq!(created.json()["tasks"][0]["number"], 3);
            break;
        }
        assert!(Instant::now() < deadline, "writes never came back");
        thread::sleep(Duration::from_millis(100));
    }
}
