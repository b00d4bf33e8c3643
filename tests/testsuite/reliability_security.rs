//! Security, the parts not already proven elsewhere:
//! tokens are only hashed at rest, slow clients cannot hold the server,
//! secrets stay out of the runtime's log even at trace level, and 100
//! concurrent `auth login` processes never corrupt the credential store or
//! lose a profile. (Cross-workspace/agent 403, missing/garbage/revoked 401
//! and the 413 body limit are in `runtime_http`
//! `refusals_are_json_with_their_status`; the CLI's `-v` redaction is in
//! `cli_exec` `tokens_never_reach_any_output`.)

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentteam::runtime::auth;
use agentteam::runtime::server::{Timeouts, router_with, serve_on};
use agentteam::runtime::store::schema::OnOpen;
use agentteam::runtime::store::sqlite::SqliteStore;
use agentteam::runtime::store::{Admin, NewToken};
use serde_json::{Value, json};

use crate::support::runtime::{Engine, Runtime};

#[test]
fn tokens_are_only_hashed_at_rest() {
    let rt = Runtime::start();
    let ws = rt.workspace("w");
    rt.channel(&ws, "eng");
    let agent = rt.agent(&ws, "alice");
    let issued = rt.admin(&["token", "issue", "--workspace", &ws, "--agent", "@alice"]);
    let issued = issued["token"].as_str().unwrap().to_string();
    for token in [&agent.token, &issued] {
        let mut who = agent.clone();
        who.token = token.clone();
        let reply = rt.post(
            &who,
            "/tasks",
            &json!({"channel": "eng", "tasks": [{"title": "t"}]}),
        );
        assert_eq!(reply.status, 201);
    }
    // Every file of the store (database, WAL, shared memory) and the log.
    let mut scanned = 0;
    for entry in std::fs::read_dir(rt.dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        scanned += bytes.len();
        for token in [&agent.token, &issued] {
            let secret = token.trim_start_matches(auth::TOKEN_PREFIX).as_bytes();
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret),
                "{} holds a raw token",
                path.display()
            );
        }
    }
    // The hash is what is stored.
    let conn = rusqlite::Connection::open(&rt.db).unwrap();
    let hash = auth::hash_token(&agent.token);
    let found: i64 = conn
        .query_row(
            "SELECT count(*) FROM tokens WHERE hash = ?1",
            [hash.as_slice()],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(found, 1);
    eprintln!(
        "tokens at rest: 2 live tokens, {scanned} bytes of store and log scanned, 0 raw tokens, SHA-256 only"
    );
}

#[test]
fn secrets_stay_out_of_the_log_even_at_trace_level() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runtime.db");
    let admin = |args: &[&str]| -> Value {
        let out = std::process::Command::new(crate::support::runtime::BIN)
            .arg("--db")
            .arg(&db)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let ws = admin(&["workspace", "create", "--name", "w"])["workspace_id"]
        .as_str()
        .unwrap()
        .to_string();
    admin(&["channel", "create", "--workspace", &ws, "--name", "eng"]);
    let agent = admin(&["agent", "create", "--workspace", &ws, "--handle", "a"]);
    let token = agent["token"].as_str().unwrap();
    let agent_id = agent["agent_id"].as_str().unwrap();
    let mut child = std::process::Command::new(crate::support::runtime::BIN)
        .arg("--db")
        .arg(&db)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("RUST_LOG", "trace")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let addr: std::net::SocketAddr = serde_json::from_str::<Value>(&line).unwrap()["listen"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let path = format!("/api/v1/workspaces/{ws}/agents/{agent_id}/runtime/tasks");
    let body = json!({"channel": "eng", "tasks": [{"title": "secret title 7f3a"}]}).to_string();
    for auth in [format!("Bearer {token}"), "Bearer at_wrong".into()] {
        let headers = vec![
            ("Authorization".to_string(), auth),
            ("Content-Length".to_string(), body.len().to_string()),
        ];
        crate::support::runtime::raw_http(addr, "POST", &path, &headers, body.as_bytes());
    }
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("status=201"), "{log}");
    // A request's latency is whole microseconds: `latency_ms=3.589`.
    for latency in log.split("latency_ms=").skip(1) {
        let value = latency.split_whitespace().next().unwrap_or_default();
        let decimals = value.split_once('.').map_or(0, |(_, d)| d.len());
        assert!(value.parse::<f64>().is_ok() && decimals <= 3, "{value}");
    }
    for secret in [token, "at_wrong", "Bearer", "secret title 7f3a"] {
        assert!(!log.contains(secret), "the trace log shows {secret:?}");
    }
    eprintln!(
        "runtime log at RUST_LOG=trace: {} lines, no token, no Authorization, no body",
        log.lines().count()
    );
}

/// An in-process runtime with short timeouts, for the slow-client tests.
struct Server {
    addr: std::net::SocketAddr,
    path: String,
    token: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: std::sync::mpsc::Receiver<()>,
    _dir: tempfile::TempDir,
}

fn server(timeouts: Timeouts) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("runtime.db"), OnOpen::Migrate).unwrap();
    let setup = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let ws = setup.block_on(store.create_workspace("w")).unwrap();
    let (token, hash) = auth::new_token().unwrap();
    let (agent, _) = setup
        .block_on(store.create_agent(&ws, "a", &NewToken::new(hash)))
        .unwrap();
    setup
        .block_on(store.create_channel(&ws, "eng", None))
        .unwrap();
    let store = Arc::new(store);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (finished, done) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            serve_on(listener, router_with(store, timeouts), timeouts, async {
                let _ = stopped.await;
            })
            .await;
        });
        let _ = finished.send(());
    });
    Server {
        addr,
        path: format!("/api/v1/workspaces/{ws}/agents/{agent}/runtime/tasks/get"),
        token,
        stop: Some(stop),
        done,
        _dir: dir,
    }
}

/// Reads until the server closes; how long after `opened` that was, and what came.
fn read_until_closed(
    stream: &mut TcpStream,
    opened: Instant,
    limit: Duration,
) -> (Duration, Vec<u8>) {
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    (opened.elapsed(), out)
}

/// A `task_get`'s body is read before its token is judged only while it
/// comes with its headers: a forged token whose body is held back is
/// refused after a second or so, not after the body timeout; a real
/// token's late body is still read, once the token is admitted, and
/// answered.
#[test]
fn a_held_back_body_waits_for_its_token_not_for_the_body_timeout() {
    let timeouts = Timeouts {
        header_read: Duration::from_secs(10),
        body_read: Duration::from_secs(20),
        write: Duration::from_secs(10),
        shutdown_grace: Duration::from_secs(5),
        ..Timeouts::default()
    };
    let srv = server(timeouts);
    let body = br#"{"channel": "eng", "number": 9}"#;
    let head = |token: &str| {
        format!(
            "POST {} HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            srv.path,
            body.len()
        )
    };
    let opened = Instant::now();
    let mut forged = TcpStream::connect(srv.addr).unwrap();
    forged
        .write_all(head("at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").as_bytes())
        .unwrap();
    let (after, reply) = read_until_closed(&mut forged, opened, Duration::from_secs(30));
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 401"), "{reply}");
    assert!(after < Duration::from_secs(10), "answered after {after:?}");
    let mut late = TcpStream::connect(srv.addr).unwrap();
    late.write_all(head(&srv.token).as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    late.write_all(body).unwrap();
    let (_, reply) = read_until_closed(&mut late, Instant::now(), Duration::from_secs(30));
    let reply = String::from_utf8_lossy(&reply);
    assert!(
        reply.starts_with("HTTP/1.1 404") && reply.contains("task_not_found"),
        "{reply}"
    );
}

#[test]
fn slow_clients_are_cut_off_while_others_are_served() {
    let timeouts = Timeouts {
        header_read: Duration::from_secs(1),
        body_read: Duration::from_secs(1),
        write: Duration::from_secs(1),
        shutdown_grace: Duration::from_secs(5),
        ..Timeouts::default()
    };
    let mut srv = server(timeouts);
    // 1. Connects and never sends a byte; 2. dribbles a header byte every 100 ms.
    let opened = Instant::now();
    let mut silent = TcpStream::connect(srv.addr).unwrap();
    let mut dribbler = TcpStream::connect(srv.addr).unwrap();
    let dribble = std::thread::spawn(move || {
        let started = Instant::now();
        let head = b"POST /x HTTP/1.1\r\nHost: a\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";
        for byte in head.iter().cycle() {
            if dribbler.write_all(&[*byte]).is_err() || started.elapsed() > Duration::from_secs(10)
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        started.elapsed()
    });
    // 3. Sends its headers, then 10 of the 100 body bytes it announced, then stalls.
    let mut stalled = TcpStream::connect(srv.addr).unwrap();
    let head = format!(
        "POST {} HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {}\r\nContent-Length: 100\r\n\r\n{{\"channel\"",
        srv.path, srv.token
    );
    stalled.write_all(head.as_bytes()).unwrap();
    // Meanwhile a normal client is served at once, repeatedly.
    let started = Instant::now();
    let mut served = 0;
    while started.elapsed() < Duration::from_millis(600) {
        let reply = crate::support::runtime::raw_http(
            srv.addr,
            "POST",
            &srv.path,
            &[
                ("Authorization".into(), format!("Bearer {}", srv.token)),
                ("Content-Length".into(), "31".into()),
            ],
            br#"{"channel": "eng", "number": 9}"#,
        );
        assert_eq!(reply.status, 404, "{reply:?}");
        served += 1;
    }
    let (silent_after, silent_bytes) =
        read_until_closed(&mut silent, opened, Duration::from_secs(10));
    let (stalled_after, stalled_bytes) =
        read_until_closed(&mut stalled, opened, Duration::from_secs(10));
    let dribbled_for = dribble.join().unwrap();
    let stalled_text = String::from_utf8_lossy(&stalled_bytes);
    assert!(
        silent_after < Duration::from_secs(3),
        "a silent connection was held {silent_after:?}"
    );
    assert!(
        silent_bytes.is_empty()
            || String::from_utf8_lossy(&silent_bytes).starts_with("HTTP/1.1 408"),
        "{:?}",
        String::from_utf8_lossy(&silent_bytes)
    );
    assert!(
        dribbled_for < Duration::from_secs(4),
        "a dribbling client was held {dribbled_for:?}"
    );
    assert!(
        stalled_text.starts_with("HTTP/1.1 408") && stalled_text.contains("\"code\":\"timeout\""),
        "{stalled_text}"
    );
    assert!(stalled_after < Duration::from_secs(3));
    // Shutdown stays graceful with the custom accept loop.
    let stop_started = Instant::now();
    let _ = srv.stop.take().unwrap().send(());
    srv.done
        .recv_timeout(Duration::from_secs(10))
        .expect("the server stops");
    eprintln!(
        "slow clients (header and body timeouts 1 s): silent cut after {:.1} s, dribbler after {:.1} s, stalled body 408 after {:.1} s; {served} normal requests served meanwhile; shutdown in {:.0} ms",
        silent_after.as_secs_f64(),
        dribbled_for.as_secs_f64(),
        stalled_after.as_secs_f64(),
        stop_started.elapsed().as_secs_f64() * 1000.0
    );
}

#[test]
fn a_hundred_concurrent_logins_lose_no_profile() {
    let cli = crate::support::cli::Cli::new();
    let started = Instant::now();
    let children: Vec<_> = (0..100)
        .map(|i| {
            crate::support::cli::spawn_with_stdin(
                &mut cli.command(&[
                    "auth",
                    "login",
                    "--profile",
                    &format!("p{i}"),
                    "--api-url",
                    "http://127.0.0.1:9",
                    "--workspace",
                    "ws_1",
                    "--agent",
                    &format!("ag_{i}"),
                    "--token-stdin",
                ]),
                &format!("at_token_{i}"),
            )
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let elapsed = started.elapsed();
    let file: Value = serde_json::from_str(&cli.store_text()).expect("the store parses");
    let profiles = file["profiles"].as_object().unwrap();
    assert_eq!(profiles.len(), 100, "profiles lost");
    for i in 0..100 {
        assert_eq!(profiles[&format!("p{i}")]["agent_id"], format!("ag_{i}"));
        assert_eq!(profiles[&format!("p{i}")]["token"], format!("at_token_{i}"));
    }
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(cli.config_dir().join("credentials.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    eprintln!(
        "credential store: 100 concurrent `auth login` processes in {:.1} s, 100 profiles, file parses, mode 0600",
        elapsed.as_secs_f64()
    );
}

/// A client that pipelines requests and never reads the answers: once the
/// answers fill its window and the server's buffer, the server's write makes
/// no progress, and after the write timeout (1 s here) the connection is
/// closed, while other clients are served throughout.
#[test]
fn a_client_that_pipelines_and_never_reads_is_cut_off() {
    let timeouts = Timeouts {
        header_read: Duration::from_secs(1),
        body_read: Duration::from_secs(1),
        write: Duration::from_secs(1),
        shutdown_grace: Duration::from_secs(5),
        ..Timeouts::default()
    };
    let mut srv = server(timeouts);
    let mut hog = TcpStream::connect(srv.addr).unwrap();
    hog.set_write_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    // Unknown routes: each answer is a 404 document of a few hundred bytes.
    let batch = "GET /no/such/route HTTP/1.1\r\nHost: a\r\n\r\n".repeat(200);
    let started = Instant::now();
    let mut sent = 0usize;
    let cut = loop {
        match hog.write(batch.as_bytes()) {
            Ok(n) => sent += n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => break Some(e),
        }
        if started.elapsed() > Duration::from_secs(90) {
            break None;
        }
    };
    let held = started.elapsed();
    let cut = cut.unwrap_or_else(|| panic!("a non-reading client was held {held:?}"));
    // Another client is served at once afterwards (and was meanwhile: the
    // server never blocked on the hog).
    let reply = crate::support::runtime::raw_http(srv.addr, "GET", "/healthz", &[], b"");
    assert_eq!(reply.status, 200);
    let _ = srv.stop.take().unwrap().send(());
    srv.done
        .recv_timeout(Duration::from_secs(10))
        .expect("the server stops");
    eprintln!(
        "a pipelining client that never reads: {sent} request bytes sent, connection closed after {:.1} s ({cut}); write timeout 1 s",
        held.as_secs_f64()
    );
}

/// Reads one answer without a body (`/healthz`) from a keep-alive stream.
fn read_head(stream: &mut TcpStream) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            other => panic!(
                "no answer head: {other:?} after {:?}",
                String::from_utf8_lossy(&head)
            ),
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// `--max-connections 2`: with two connections open, a third is answered
/// 503 with Retry-After at once and closed; when one of the two goes, new
/// connections are served again. The refusal is logged.
#[test]
fn connections_beyond_the_cap_are_refused_at_once() {
    let store = Runtime::start();
    let rt = Runtime::serve(Engine::Sqlite, &store.db, &["--max-connections", "2"]);
    let healthz = HEALTHZ;
    let mut held = hold_connections(rt.addr, 2);
    let started = Instant::now();
    let mut third = TcpStream::connect(rt.addr).unwrap();
    third
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut answer = Vec::new();
    let _ = third.read_to_end(&mut answer);
    let refused_after = started.elapsed();
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 503")
            && answer.contains("retry-after: 1")
            && answer.contains("x-content-type-options: nosniff")
            && answer.contains("cache-control: no-store"),
        "{answer}"
    );
    let body = answer.split("\r\n\r\n").nth(1).unwrap();
    let doc: Value = serde_json::from_str(body).unwrap();
    assert_eq!(doc["error"]["code"], "server_error");
    assert_eq!(doc["error"]["retryable"], true);
    assert!(refused_after < Duration::from_secs(10), "{refused_after:?}");
    // The two held connections are still served.
    for stream in &mut held {
        stream.write_all(healthz).unwrap();
        assert!(read_head(stream).starts_with("HTTP/1.1 200"));
    }
    // One goes; its slot is free again once the server sees it close.
    held.pop();
    let freed = Instant::now();
    loop {
        let reply = crate::support::runtime::raw_http(rt.addr, "GET", "/healthz", &[], b"");
        if reply.status == 200 {
            break;
        }
        assert_eq!(reply.status, 503);
        assert!(
            freed.elapsed() < Duration::from_secs(30),
            "the slot never came back"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    rt.log_containing("connection refused: at --max-connections");
    eprintln!(
        "--max-connections 2: the third connection refused 503 after {:.0} ms; a slot freed in {:.0} ms",
        refused_after.as_secs_f64() * 1000.0,
        freed.elapsed().as_secs_f64() * 1000.0
    );
}

/// A connection refused at the cap while its client sends a large body
/// still gets the 503: the server reads and discards the request after its
/// answer rather than closing on unread bytes, which resets the connection
/// (the client's writes then fail with a broken pipe, and a 503 it had not
/// read yet is lost).
#[test]
fn a_refused_connection_drains_the_request_before_it_closes() {
    let store = Runtime::start();
    let rt = Runtime::serve(Engine::Sqlite, &store.db, &["--max-connections", "1"]);
    let _held = hold_connections(rt.addr, 1);
    for attempt in 0..3 {
        let mut refused = TcpStream::connect(rt.addr).unwrap();
        refused
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let body = vec![b'x'; 1024 * 1024];
        let head = format!(
            "POST /api/v1/workspaces/w/agents/a/tasks HTTP/1.1\r\nHost: a\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        refused.write_all(head.as_bytes()).unwrap();
        for (i, chunk) in body.chunks(16 * 1024).enumerate() {
            if let Err(e) = refused.write_all(chunk) {
                panic!("attempt {attempt}: writing the body failed after {i} chunks: {e}");
            }
        }
        let mut answer = Vec::new();
        if let Err(e) = refused.read_to_end(&mut answer) {
            panic!(
                "attempt {attempt}: reading the answer failed: {e} after {:?}",
                String::from_utf8_lossy(&answer)
            );
        }
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
        assert!(answer.contains("\"server_error\""), "{answer}");
    }
}

/// A request refused before its body is read (a forged token, no such
/// route, a declared size over the limit) while its client still sends
/// the body: the rest is read and discarded, so the client, which writes
/// it all before it reads (as Python's `http.client` does), neither gets
/// a broken pipe nor loses the answer, and the connection, drained, then
/// serves another request. A client waiting for `100 Continue` is not
/// asked for a body it need not send.
#[test]
fn a_request_refused_before_its_body_is_read_still_has_its_answer_read() {
    let rt = Runtime::start();
    let w = rt.workspace("w");
    let alice = rt.agent(&w, "alice");
    let create = alice.path("/tasks");
    let cases = [
        (
            create.as_str(),
            "at_forgedforgedforgedforgedforgedforged1",
            1_000_000,
            "401",
        ),
        ("/no/such/route", alice.token.as_str(), 1_000_000, "404"),
        (
            create.as_str(),
            alice.token.as_str(),
            2 * 1024 * 1024,
            "413",
        ),
    ];
    for (path, token, length, status) in cases {
        for attempt in 0..5 {
            let mut stream = TcpStream::connect(rt.addr).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            let head = format!(
                "POST {path} HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {token}\r\ncontent-type: application/json\r\ncontent-length: {length}\r\n\r\n"
            );
            stream.write_all(head.as_bytes()).unwrap();
            let body = vec![b' '; length];
            for (i, chunk) in body.chunks(16 * 1024).enumerate() {
                if let Err(e) = stream.write_all(chunk) {
                    panic!(
                        "{status} attempt {attempt}: writing the body failed after {i} chunks: {e}"
                    );
                }
            }
            answered_then_served(&mut stream, status);
        }
    }
    // A small body that comes a moment after its head is drained too.
    for attempt in 0..5 {
        let mut stream = TcpStream::connect(rt.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let body = format!(
            r#"{{"channel":"eng","tasks":[{{"title":"{}"}}]}}"#,
            "t".repeat(400)
        );
        let head = format!(
            "POST {create} HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer at_forgedforgedforgedforgedforgedforged1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        if let Err(e) = stream.write_all(body.as_bytes()) {
            panic!("small body, attempt {attempt}: {e}");
        }
        answered_then_served(&mut stream, "401");
    }
    let mut waiting = TcpStream::connect(rt.addr).unwrap();
    let head = format!(
        "POST {create} HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer at_forgedforgedforgedforgedforgedforged1\r\ncontent-type: application/json\r\ncontent-length: 1000000\r\nExpect: 100-continue\r\n\r\n"
    );
    waiting.write_all(head.as_bytes()).unwrap();
    let answer = read_head(&mut waiting);
    assert!(
        answer.starts_with("HTTP/1.1 401"),
        "asked for the body: {answer}"
    );
}

/// Reads an answer of `status` whole from `stream`, then has the same
/// connection serve a health check: the request before was drained to
/// its end.
fn answered_then_served(stream: &mut TcpStream, status: &str) {
    let answer = read_head(stream);
    assert!(
        answer.starts_with(&format!("HTTP/1.1 {status}")),
        "{answer}"
    );
    let length: usize = answer
        .lines()
        .find_map(|line| line.strip_prefix("content-length: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{answer}"));
    let mut document = vec![0; length];
    stream.read_exact(&mut document).unwrap();
    stream.write_all(HEALTHZ).unwrap();
    assert!(
        read_head(stream).starts_with("HTTP/1.1 200"),
        "after a {status}"
    );
}

/// A bare health check, one request on a kept-alive connection.
const HEALTHZ: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n";

/// `n` connections to `addr`, each served one health check and held open.
fn hold_connections(addr: std::net::SocketAddr, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut stream = TcpStream::connect(addr).unwrap();
            stream.write_all(HEALTHZ).unwrap();
            assert!(read_head(&mut stream).starts_with("HTTP/1.1 200"));
            stream
        })
        .collect()
}

/// `--max-connections-per-address 2`: a third connection from the same
/// address is refused as one beyond `--max-connections` is, though the
/// server has slots to spare, and is served again once one of the two
/// ends; so one host cannot hold every slot.
#[test]
fn connections_beyond_the_cap_of_one_address_are_refused() {
    let store = Runtime::start();
    let rt = Runtime::serve(
        Engine::Sqlite,
        &store.db,
        &[
            "--max-connections",
            "8",
            "--max-connections-per-address",
            "2",
        ],
    );
    let healthz = HEALTHZ;
    let mut held = hold_connections(rt.addr, 2);
    let reply = crate::support::runtime::raw_http(rt.addr, "GET", "/healthz", &[], b"");
    assert_eq!(reply.status, 503);
    rt.log_containing("connection refused: at --max-connections-per-address");
    for stream in &mut held {
        stream.write_all(healthz).unwrap();
        assert!(read_head(stream).starts_with("HTTP/1.1 200"));
    }
    held.pop();
    let freed = Instant::now();
    while crate::support::runtime::raw_http(rt.addr, "GET", "/healthz", &[], b"").status != 200 {
        assert!(
            freed.elapsed() < Duration::from_secs(30),
            "the address's slot never came back"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `--rate-limit 3/m`: a token's fourth request within the minute is 429
/// `rate_limited` with Retry-After; another token has its own allowance;
/// without the flag nothing is limited.
#[test]
fn a_rate_limit_answers_429_with_retry_after_per_token() {
    let rt = Runtime::start();
    let ws = rt.workspace("w");
    rt.channel(&ws, "eng");
    let alice = rt.agent(&ws, "alice");
    let bob = rt.agent(&ws, "bob");
    let get = json!({"channel": "eng", "number": 1});
    // Off by default: a burst far past any limit is served.
    for _ in 0..30 {
        assert_eq!(rt.post(&alice, "/tasks/get", &get).status, 404);
    }
    let limited = Runtime::serve(Engine::Sqlite, &rt.db, &["--rate-limit", "3/m"]);
    for _ in 0..3 {
        assert_eq!(limited.post(&alice, "/tasks/get", &get).status, 404);
    }
    let refused = limited.post(&alice, "/tasks/get", &get);
    assert_eq!(refused.status, 429, "{refused:?}");
    assert_eq!(refused.json()["error"]["code"], "rate_limited");
    assert_eq!(refused.json()["error"]["retryable"], true);
    let retry_after: u64 = refused
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("retry-after"))
        .and_then(|(_, v)| v.parse().ok())
        .expect("a Retry-After in seconds");
    assert!((1..=20).contains(&retry_after), "{retry_after}");
    // Through the CLI the wait is said once, from the header.
    let cli = crate::support::cli::Cli::new();
    cli.login_to(
        &limited.base_url(),
        &alice.workspace_id,
        &alice.agent_id,
        &alice.token,
    );
    let run = cli.exec("task", "get", &get.to_string(), &["--retries", "0"]);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (5, "rate_limited"),
        "{run:?}"
    );
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert_eq!(message.matches(" s.").count(), 1, "{message}");
    assert!(message.contains("Retry after"), "{message}");
    // Another token is not throttled by alice's use.
    assert_eq!(limited.post(&bob, "/tasks/get", &get).status, 404);
    // Nor is an unauthenticated request counted against anyone: it is 401.
    let forged = limited.http(
        "POST",
        &alice.path("/tasks/get"),
        Some("at_forged"),
        Some(b"{}"),
    );
    assert_eq!(forged.status, 401);
}

/// Thousands of refused requests write a few sampled log lines, not one
/// each, and the left-out count is logged.
#[test]
fn refused_requests_are_logged_sampled() {
    let rt = Runtime::start();
    let ws = rt.workspace("w");
    let agent = rt.agent(&ws, "alice");
    let path = agent.path("/tasks/get");
    let count = 3000;
    let request = format!("POST {path} HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{{}}");
    let mut stream = TcpStream::connect(rt.addr).unwrap();
    let mut reader = stream.try_clone().unwrap();
    let read = std::thread::spawn(move || {
        reader
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut seen = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        let needle = b"HTTP/1.1 401";
        let mut answers = 0;
        while answers < count {
            let n = reader.read(&mut buf).expect("answers keep coming");
            assert!(n > 0, "closed after {answers} answers");
            seen.extend_from_slice(&buf[..n]);
            answers = seen.windows(needle.len()).filter(|w| w == needle).count();
        }
        answers
    });
    let started = Instant::now();
    stream.write_all(request.repeat(count).as_bytes()).unwrap();
    assert_eq!(read.join().unwrap(), count);
    let took = started.elapsed();
    // One more a second later opens a new window and reports the rest.
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(rt.http("POST", &path, None, Some(b"{}")).status, 401);
    let log = rt.log_containing("refused requests not logged");
    let logged = log.lines().filter(|l| l.contains("status=401")).count();
    let bound = 10 * (took.as_secs() as usize + 3);
    assert!(
        logged <= bound && logged < count / 10,
        "{logged} lines for {count} refused requests in {took:?}"
    );
    eprintln!(
        "{count} refused requests in {:.1} s: {logged} log lines ({} bytes of log in all)",
        took.as_secs_f64(),
        log.len()
    );
}

/// A runtime whose stderr is a pipe nobody reads: once the pipe is full, a
/// blocking log writer would freeze every worker. Requests are answered
/// throughout, at `RUST_LOG=trace` (many lines a request).
#[test]
fn a_full_stderr_pipe_does_not_stall_requests() {
    use std::io::BufRead;
    let store = Runtime::start();
    let mut child = std::process::Command::new(crate::support::runtime::BIN)
        .arg("--db")
        .arg(&store.db)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("RUST_LOG", "trace")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let listening: Value = serde_json::from_str(&line).unwrap();
    let addr: std::net::SocketAddr = listening["listen"].as_str().unwrap().parse().unwrap();
    let started = Instant::now();
    // Each answer within raw_http's 30 s read timeout, or it panics. 1000
    // request lines alone are twice what a 64 KiB pipe holds.
    for _ in 0..1000 {
        let reply = crate::support::runtime::raw_http(addr, "GET", "/healthz", &[], b"");
        assert_eq!(reply.status, 200);
    }
    let took = started.elapsed();
    // The log went to the pipe, which filled up (what is left in it is what
    // it held when the runtime was killed).
    let mut stderr = child.stderr.take().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let mut held = Vec::new();
    let _ = stderr.read_to_end(&mut held);
    assert!(held.len() >= 48 * 1024, "only {} bytes logged", held.len());
    eprintln!(
        "1000 requests with a full, unread stderr pipe at RUST_LOG=trace: {:.1} s",
        took.as_secs_f64()
    );
}

/// A request hyper refuses before any route (a `Content-Length` that is
/// no number: 400; a target too long: 414; too many headers: 431) is
/// logged as a refusal, as the router's are, naming no byte of it.
#[test]
fn a_request_refused_before_any_route_is_logged() {
    let rt = Runtime::start();
    let long_target = format!("/{}", "q".repeat(70_000));
    let many_headers: String = (0..120)
        .map(|i| format!("X-Secret-{i}: hunter2\r\n"))
        .collect();
    let heads = [
        "POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n".to_string(),
        format!("GET {long_target} HTTP/1.1\r\nHost: a\r\n\r\n"),
        format!("GET /healthz HTTP/1.1\r\nHost: a\r\n{many_headers}\r\n"),
    ];
    for (head, status) in heads.iter().zip(["400", "414", "431"]) {
        let mut stream = TcpStream::connect(rt.addr).unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        let answer = read_head(&mut stream);
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{answer}"
        );
    }
    // Each connection's line is written when hyper gives it up, after its
    // answer: wait for all three.
    let deadline = Instant::now() + Duration::from_secs(10);
    let log = loop {
        let log = rt.log_containing("request refused before any route");
        let lines = log.matches("request refused before any route").count();
        if lines >= 3 || Instant::now() > deadline {
            break log;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        log.matches("request refused before any route").count(),
        3,
        "{log}"
    );
    assert!(!log.contains("hunter2") && !log.contains("qqqq"), "{log}");
}
