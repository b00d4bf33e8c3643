//! The CLI fault matrix: every way the network, the server or the
//! credential process can fail, one test per fault, each tried against the
//! real `agentteam` binary with a read (`task.get`, retried) and a
//! non-idempotent mutation (`task.update`, never resent). Each must end with
//! its documented exit status and error code, exactly one JSON document on
//! stdout and nothing internal on either stream, and the server must have
//! seen the documented number of requests. No test bounds how long a run
//! takes, except as a watchdog where the point is that the CLI does not hang.
//!
//! `cli_exec` checks the single cases in depth. Each test here prints its
//! rows of the matrix (`cargo test --test testsuite cli_faults:: --
//! --nocapture --test-threads=1`), the figure `docs/reliability.md` quotes.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use serde_json::json;

use crate::support::cli::{Cli, Run};
use crate::support::closed_port::ClosedPort;
use crate::support::recorder::{Recorder, Reply};

const TOKEN: &str = "at_fault_matrix_secret_token";
const GET: &str = r#"{"channel":"eng","number":1}"#;
const UPDATE: &str = r#"{"channel":"eng","number":1,"title":"t"}"#;

/// Where the case's server lives and how to count what reached it.
enum Server {
    Recorder(Recorder),
    /// A raw TCP server counting accepted connections.
    Counting(String, Arc<AtomicUsize>),
    /// A port held closed: every connection is refused.
    Closed(ClosedPort),
    /// No server at all (DNS).
    None(String),
}

impl Server {
    fn url(&self) -> String {
        match self {
            Server::Recorder(r) => r.url.clone(),
            Server::Counting(url, _) | Server::None(url) => url.clone(),
            Server::Closed(port) => port.url(),
        }
    }

    /// Requests (or connections) that reached the server; `None` when there is no server.
    fn seen(&self) -> Option<usize> {
        match self {
            Server::Recorder(r) => Some(r.requests().len()),
            Server::Counting(_, n) => Some(n.load(Ordering::SeqCst)),
            Server::Closed(_) | Server::None(_) => None,
        }
    }
}

/// A server that accepts, reads whatever arrives and answers with
/// `answer(connection)`: raw bytes written before closing.
fn counting(scheme: &str, answer: fn(&mut std::net::TcpStream)) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("{scheme}://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            seen.fetch_add(1, Ordering::SeqCst);
            thread::spawn(move || answer(&mut stream));
        }
    });
    Server::Counting(url, count)
}

/// What a plain HTTP/1.1 server does with a TLS ClientHello: 400 and close.
fn plain_http_400(stream: &mut std::net::TcpStream) {
    let mut buf = [0u8; 4096];
    stream
        .set_read_timeout(Some(Duration::from_millis(500)))
        .ok();
    let _ = stream.read(&mut buf);
    let _ = stream.write_all(
        b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/html\r\ncontent-length: 24\r\nconnection: close\r\n\r\n<html>Bad Request</html>",
    );
}

/// A 200 declaring 50 MB and streaming it as fast as the client reads.
fn fifty_megabytes(stream: &mut std::net::TcpStream) {
    let mut buf = [0u8; 8192];
    stream
        .set_read_timeout(Some(Duration::from_millis(500)))
        .ok();
    let _ = stream.read(&mut buf);
    let total = 50 * 1024 * 1024;
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {total}\r\n\r\n"
    );
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    let chunk = vec![b' '; 64 * 1024];
    let mut sent = 0;
    while sent < total {
        if stream.write_all(&chunk).is_err() {
            return; // the client stopped reading: what we want
        }
        sent += chunk.len();
    }
}

fn html(status: u16) -> Reply {
    Reply::text(
        status,
        "text/html",
        &format!("<html><body><h1>{status}</h1>nginx at 10.9.8.7</body></html>"),
    )
}

fn unauthorized() -> Reply {
    Reply::json(
        401,
        json!({"error": {"code": "unauthorized", "message": "no", "retryable": false}}),
    )
}

/// A watchdog for the faults whose point is that the CLI does not hang: far
/// above the `--timeout 2` (twice for the retried read) it must give up
/// after, so only a hang reaches it.
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// One fault and what the CLI must make of it.
struct Fault {
    name: &'static str,
    server: Server,
    /// Credential process script body; `None`: a stored token.
    credential_process: Option<&'static str>,
    /// Whether the stored token is left out (the credential process must run first).
    no_token: bool,
    exit: i32,
    code: &'static str,
    /// Requests the server may see for (read with --retries 1, update).
    seen: (Option<usize>, Option<usize>),
    /// Whether the CLI runs under the [`HANG_LIMIT`] watchdog.
    may_hang: bool,
}

impl Fault {
    /// A fault of the server (or the way to it), with a stored token.
    fn server(name: &'static str, server: Server, exit: i32, code: &'static str) -> Fault {
        Fault {
            name,
            server,
            credential_process: None,
            no_token: false,
            exit,
            code,
            seen: (Some(2), Some(1)),
            may_hang: false,
        }
    }

    /// A credential process that fails before any request: exit 3, and the
    /// server is never called.
    fn credential_process(name: &'static str, body: &'static str) -> Fault {
        Fault {
            name,
            server: Server::Recorder(Recorder::expecting_no_request()),
            credential_process: Some(body),
            no_token: true,
            exit: 3,
            code: "credential_process_failed",
            seen: (Some(0), Some(0)),
            may_hang: false,
        }
    }

    fn seen(self, get: Option<usize>, update: Option<usize>) -> Fault {
        Fault {
            seen: (get, update),
            ..self
        }
    }

    fn may_hang(self) -> Fault {
        Fault {
            may_hang: true,
            ..self
        }
    }
}

fn refused() -> Server {
    Server::Closed(ClosedPort::new())
}

fn recorder(reply: Reply) -> Server {
    Server::Recorder(Recorder::start(vec![reply]))
}

fn login(cli: &Cli, url: &str, fault: &Fault) {
    let mut args = vec![
        "auth",
        "login",
        "--api-url",
        url,
        "--workspace",
        "ws_test",
        "--agent",
        "ag_test",
    ];
    let process = fault
        .credential_process
        .map(|body| cli.script("cred.sh", body));
    if let Some(process) = &process {
        args.extend_from_slice(&["--credential-process", process]);
    }
    let run = if fault.no_token {
        cli.run(&args, None)
    } else {
        args.push("--token-stdin");
        cli.run(&args, Some(TOKEN))
    };
    assert_eq!(run.code, 0, "login for {}: {run:?}", fault.name);
}

/// One run of the matrix: the fault's server after the run, the CLI's home
/// and what it printed.
struct Tried {
    server: Server,
    cli: Cli,
    run: Run,
}

/// Runs `task.get` (with `--retries 1`) and then `task.update` against the
/// fault `make()` sets up, each on a fresh server and CLI, checks what every
/// fault must satisfy and prints the two rows of the matrix.
fn try_fault(make: fn() -> Fault) -> [Tried; 2] {
    ["get", "update"].map(|verb| {
        let fault = make();
        let cli = Cli::new();
        login(&cli, &fault.server.url(), &fault);
        let (input, expected_seen) = match verb {
            "get" => (GET, fault.seen.0),
            _ => (UPDATE, fault.seen.1),
        };
        let flags = ["--timeout", "2", "--retries", "1"];
        let limit = fault.may_hang.then_some(HANG_LIMIT);
        let run = cli.exec_within("task", verb, input, &flags, limit);
        let label = format!("{} / task.{verb}", fault.name);
        // Exactly one JSON document on stdout, the documented error.
        let doc = run.json();
        assert_eq!(
            (run.code, doc["error"]["code"].as_str().unwrap_or_default()),
            (fault.exit, fault.code),
            "{label}: {run:?}"
        );
        assert_eq!(
            doc["error"]["retryable"],
            json!(fault.exit == 5),
            "{label}: {doc}"
        );
        // Nothing internal leaks: no HTML, no proxy address, no token.
        for text in [&run.stdout, &run.stderr] {
            assert!(
                !text.contains("nginx") && !text.contains("10.9.8.7"),
                "{label}"
            );
            assert!(
                !text.contains(TOKEN) && !text.contains("at_fresh_token"),
                "{label}"
            );
        }
        let seen = fault.server.seen();
        assert_eq!(seen, expected_seen, "{label}: requests seen by the server");
        eprintln!(
            "| {} | task.{verb} | {} | `{}` | {} | {:.2} s |",
            fault.name,
            run.code,
            fault.code,
            seen.map_or("–".to_string(), |n| n.to_string()),
            run.elapsed.as_secs_f64()
        );
        Tried {
            server: fault.server,
            cli,
            run,
        }
    })
}

#[test]
fn connection_refused() {
    try_fault(|| {
        Fault::server("connection refused", refused(), 5, "network_error").seen(None, None)
    });
}

#[test]
fn dns_failure() {
    try_fault(|| {
        Fault::server(
            "DNS failure (.invalid)",
            Server::None("http://nonexistent.invalid:1".into()),
            5,
            "network_error",
        )
        .seen(None, None)
    });
}

#[test]
fn tls_to_a_plain_http_port() {
    try_fault(|| {
        Fault::server(
            "TLS to a plain-HTTP port",
            counting("https", plain_http_400),
            5,
            "network_error",
        )
    });
}

#[test]
fn a_server_that_accepts_and_never_answers() {
    try_fault(|| {
        Fault::server(
            "accepts, never answers",
            recorder(Reply::Hang),
            5,
            "timeout",
        )
        .may_hang()
    });
}

#[test]
fn half_a_body_then_close() {
    try_fault(|| {
        Fault::server(
            "half a body, then close",
            recorder(Reply::Raw(
                b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"items\"".to_vec(),
            )),
            5,
            "network_error",
        )
    });
}

#[test]
fn status_500_with_html() {
    try_fault(|| Fault::server("500 with HTML", recorder(html(500)), 5, "server_error"));
}

/// The documented error shape whose message shows the server's
/// internals (a panic, a file and line, an address): withheld.
#[test]
fn status_500_whose_message_shows_internals() {
    try_fault(|| {
        Fault::server(
            "500 whose message shows internals",
            recorder(Reply::json(
                500,
                json!({"error": {"code": "server_error", "retryable": true,
                    "message": "panicked at src/db.rs:42: connect to 10.9.8.7:5432 (see http://nginx.internal/trace)"}}),
            )),
            5,
            "server_error",
        )
    });
}

#[test]
fn status_502_with_html() {
    try_fault(|| Fault::server("502 with HTML", recorder(html(502)), 5, "server_error"));
}

#[test]
fn status_503_with_html() {
    try_fault(|| Fault::server("503 with HTML", recorder(html(503)), 5, "server_error"));
}

#[test]
fn status_429_with_retry_after() {
    let [get, _] = try_fault(|| {
        Fault::server(
            "429 with Retry-After: 1",
            recorder(Reply::Full(
                429,
                vec![("retry-after", "1".into())],
                b"slow down".to_vec(),
            )),
            5,
            "rate_limited",
        )
    });
    // The read waited out the server's Retry-After before its one retry, as
    // the server saw it.
    let Server::Recorder(server) = &get.server else {
        unreachable!("a recording server")
    };
    let requests = server.requests();
    let waited = requests[1].received - requests[0].received;
    assert!(waited >= Duration::from_secs(1), "retried after {waited:?}");
}

#[test]
fn status_429_without_retry_after() {
    try_fault(|| {
        Fault::server(
            "429 without Retry-After",
            recorder(html(429)),
            5,
            "rate_limited",
        )
    });
}

#[test]
fn status_200_with_a_body_that_is_not_json() {
    try_fault(|| {
        Fault::server(
            "200, body not JSON",
            recorder(Reply::text(200, "text/plain", "OK")),
            5,
            "invalid_response",
        )
        // A 2xx answer is final: the CLI does not resend after a success status.
        .seen(Some(1), Some(1))
    });
}

/// JSON, but not an answer of this API (another server's, a proxy's): not
/// printed as `data`.
#[test]
fn status_200_with_json_of_another_shape() {
    try_fault(|| {
        Fault::server(
            "200, JSON of another shape",
            recorder(Reply::json(200, json!({"error": "weird"}))),
            5,
            "invalid_response",
        )
        .seen(Some(1), Some(1))
    });
    // A field of the answer in another JSON type than its schema says.
    let tried = try_fault(|| {
        Fault::server(
            "200, a field of another type",
            recorder(Reply::json(200, json!({"number": "one", "title": "t"}))),
            5,
            "invalid_response",
        )
        .seen(Some(1), Some(1))
    });
    for Tried { run, .. } in &tried {
        let message = run.json()["error"]["message"].to_string();
        assert!(
            message.contains("`data/number` is not of type integer"),
            "{message}"
        );
    }
}

/// An error status whose body is too large to read is classified by its
/// status, as a body that is not JSON is: a 404 is not found (exit 4, not
/// retried), not an unreadable answer.
#[test]
fn status_404_with_a_10_mb_body() {
    try_fault(|| {
        let body = "<html>".to_string() + &" ".repeat(10 * 1024 * 1024) + "</html>";
        Fault::server(
            "404, 10 MB body",
            recorder(Reply::text(404, "text/html", &body)),
            4,
            "not_found",
        )
        .seen(Some(1), Some(1))
    });
}

#[test]
fn status_200_with_a_50_mb_body() {
    let tried = try_fault(|| {
        Fault::server(
            "200, 50 MB body",
            counting("http", fifty_megabytes),
            5,
            "invalid_response",
        )
        .may_hang()
        // A 2xx answer is final: too large once, too large again.
        .seen(Some(1), Some(1))
    });
    // Refused at the CLI's cap, not read to the end.
    let cap = format!(
        "exceeds {} MiB",
        agentteam::client::MAX_RESPONSE_BYTES / (1024 * 1024)
    );
    for Tried { run, .. } in &tried {
        let message = run.json()["error"]["message"].to_string();
        assert!(message.contains(&cap), "{message}");
    }
}

#[test]
fn a_401_again_after_the_refresh() {
    try_fault(|| Fault {
        credential_process: Some(r#"echo '{"token": "at_fresh_token"}'"#),
        // The 401 was not processed, so the one replay is no resend of a mutation.
        seen: (Some(2), Some(2)),
        ..Fault::server(
            "401 again after the refresh",
            recorder(unauthorized()),
            3,
            "unauthorized",
        )
    });
}

#[test]
fn a_credential_process_that_fails() {
    try_fault(|| Fault::credential_process("credential process fails", "echo oops >&2; exit 7"));
}

/// A process that prints its token on stderr and fails: its stderr never
/// reaches ours whole; the failure quotes its last line, the token
/// redacted (the harness checks that no stream carries `at_fresh_token`).
#[test]
fn a_credential_process_that_prints_a_token_on_stderr() {
    try_fault(|| {
        Fault::credential_process(
            "credential process prints a token on stderr",
            "echo 'issued at_fresh_token_4f8a9b2c1d7e' >&2; echo 'refused: at_fresh_token_4f8a9b2c1d7e' >&2; exit 1",
        )
    });
}

/// A process that prints far more than a token document is stopped once
/// the CLI stops reading, and told so (it died of SIGPIPE, reported as
/// "exit status: 141").
#[test]
fn a_credential_process_that_prints_too_much() {
    let tried = try_fault(|| {
        Fault::credential_process(
            "credential process prints 200 KB",
            "head -c 200000 /dev/zero | tr '\\0' a",
        )
    });
    for Tried { run, .. } in &tried {
        let message = run.json()["error"]["message"].to_string();
        assert!(message.contains("more than 64 KiB"), "{message}");
    }
}

#[test]
fn a_credential_process_that_hangs() {
    let tried = try_fault(|| {
        Fault::credential_process(
            "credential process hangs",
            r#"echo $$ > "$0.pid"; exec sleep 30"#,
        )
        .may_hang()
    });
    // Given up at the timeout, and killed: not waited for, not left behind.
    for Tried { cli, run, .. } in &tried {
        let message = run.json()["error"]["message"].to_string();
        assert!(message.contains("did not finish within 2 s"), "{message}");
        let pid_file = cli.home.path().join("cred.sh.pid");
        let pid = std::fs::read_to_string(&pid_file).expect("the process wrote its pid");
        let pid = pid.trim();
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "the credential process {pid} still runs"
        );
    }
}

#[test]
fn a_credential_process_whose_background_child_holds_stdout() {
    // The process prints a token and exits at once, but a child it left in
    // the background keeps its stdout open for 30 s: the deadline covers
    // reading the output, so the CLI gives up at `--timeout 2` and kills
    // the whole process group, the child included.
    let tried = try_fault(|| {
        Fault::credential_process(
            "credential process leaves a child holding stdout",
            r#"echo '{"token": "at_fresh_token"}'
sh -c 'echo $$ > "$1.pid"; exec sleep 30' child "$0" &
sleep 0.2"#,
        )
        .may_hang()
    });
    for Tried { cli, run, .. } in &tried {
        let message = run.json()["error"]["message"].to_string();
        assert!(
            message.contains("did not finish within 2 s")
                && message.contains("something it started still held its stdout"),
            "{message}"
        );
        assert!(
            run.elapsed < Duration::from_secs(25),
            "waited for the child: {:?}",
            run.elapsed
        );
        let pid_file = cli.home.path().join("cred.sh.pid");
        let pid = std::fs::read_to_string(&pid_file).expect("the child wrote its pid");
        let proc = format!("/proc/{}", pid.trim());
        // Killed, not just left: a zombie reaped by init vanishes shortly.
        let gone = (0..100).any(|_| {
            let alive = std::fs::read_to_string(format!("{proc}/stat"))
                .is_ok_and(|stat| !stat.contains(") Z "));
            if alive {
                std::thread::sleep(Duration::from_millis(50));
            }
            !alive
        });
        assert!(gone, "the background child {proc} still runs");
    }
}

/// A process that says its failure is passing, as `agentteam-runtime token
/// issue` does when its store is down: retryable, exit 5, not "log in
/// again".
#[test]
fn a_credential_process_whose_store_is_unavailable() {
    try_fault(|| Fault {
        exit: 5,
        code: "credential_process_unavailable",
        ..Fault::credential_process(
            "credential process store unavailable",
            r#"echo '{"error": {"code": "server_error", "message": "The store is unavailable.", "retryable": true}}'; exit 5"#,
        )
    });
}

/// A process whose error document names a token: the message quotes its
/// words with the token redacted, as the last line of its stderr is.
#[test]
fn a_credential_process_error_document_never_passes_a_token_on() {
    let token = "at_6aEU56b_EptJ67Q_LS32i4Yb";
    let cli = Cli::new();
    let server = Recorder::expecting_no_request();
    let fault = Fault::credential_process(
        "credential process names a token",
        r#"echo '{"error": {"code": "usage_error", "message": "Refused at_6aEU56b_EptJ67Q_LS32i4Yb for ag_test.", "retryable": false}}'; exit 2"#,
    );
    login(&cli, &server.url, &fault);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (3, "credential_process_failed"),
        "{run:?}"
    );
    assert!(
        !run.stdout.contains(token) && !run.stderr.contains(token),
        "{run:?}"
    );
    assert!(
        run.stdout.contains("Refused <redacted> for ag_test"),
        "{run:?}"
    );
}

/// A process that says why it failed for good: its words in the message.
#[test]
fn a_credential_process_that_says_why_it_failed() {
    let cli = Cli::new();
    let server = Recorder::expecting_no_request();
    let fault = Fault::credential_process(
        "credential process refuses",
        r#"echo '{"error": {"code": "usage_error", "message": "No agent ag_test in the workspace.", "retryable": false}}'; exit 2"#,
    );
    login(&cli, &server.url, &fault);
    let run = cli.exec("task", "list", r#"{"channel":"eng"}"#, &[]);
    assert_eq!(run.code, 3, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["error"]["code"], "credential_process_failed");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with(": No agent ag_test in the workspace."),
        "{doc}"
    );
}

#[test]
fn a_credential_process_that_prints_garbage() {
    try_fault(|| Fault::credential_process("credential process prints garbage", "echo '<html>'"));
}

#[test]
fn a_credential_process_that_prints_nothing() {
    try_fault(|| Fault::credential_process("credential process prints nothing", "true"));
}

/// A signal that stops the CLI while its credential process runs stops that
/// process's whole group too (a group of its own, which a Ctrl-C at a
/// terminal never reaches), and ends the CLI as the signal does.
#[test]
fn a_signal_while_a_credential_process_runs_stops_its_group_too() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let cli = Cli::new();
        let port = ClosedPort::new();
        let process = cli.script(
            "cred.sh",
            r#"sh -c 'echo $$ > "$1.child"; exec sleep 60' child "$0" &
echo $$ > "$0.pid"; wait"#,
        );
        let url = port.url();
        let login = [
            "auth",
            "login",
            "--api-url",
            &url,
            "--workspace",
            "ws_test",
            "--agent",
            "ag_test",
            "--credential-process",
            &process,
        ];
        assert_eq!(cli.run(&login, None).code, 0);
        let mut command = cli.command(&["exec", "task", "get", "-"]);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // The CLI keeps a signal it was started ignoring ignored, and a
        // test run in the background (`cmd &` in a script, `nohup`) starts
        // it ignoring SIGINT: give it the default dispositions, as a
        // terminal's foreground job has.
        // SAFETY: signal(2) is async-signal-safe; nothing else runs between
        // fork and exec.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| {
                for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                    libc::signal(signal, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        let mut run = command.spawn().unwrap();
        let mut stdin = run.stdin.take().unwrap();
        stdin
            .write_all(br#"{"channel": "eng", "number": 1}"#)
            .unwrap();
        drop(stdin);
        let pids = ["cred.sh.pid", "cred.sh.child"].map(|name| cli.home.path().join(name));
        let started = (0..400).any(|_| {
            let both = pids
                .iter()
                .all(|p| std::fs::read_to_string(p).is_ok_and(|pid| pid.ends_with('\n')));
            if !both {
                thread::sleep(Duration::from_millis(25));
            }
            both
        });
        assert!(started, "the credential process never started");
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(run.id() as i32, signal) };
        let status = run.wait().unwrap();
        assert_eq!(status.signal(), Some(signal), "{status:?}");
        for pid in &pids {
            let pid = std::fs::read_to_string(pid).unwrap();
            let proc = format!("/proc/{}/stat", pid.trim());
            // Killed: gone, or a zombie until init reaps it.
            let gone = (0..100).any(|_| {
                let alive = std::fs::read_to_string(&proc).is_ok_and(|stat| !stat.contains(") Z "));
                if alive {
                    thread::sleep(Duration::from_millis(50));
                }
                !alive
            });
            assert!(gone, "{proc} still runs after signal {signal}");
        }
    }
}
