//! The CLI fault matrix (issue 5, item 1): every way the network, the server
//! or the credential process can fail, tried against the real `agentteam`
//! binary with a read (`task.get`, retried) and a non-idempotent mutation
//! (`task.update`, never resent). Each case must end with its documented exit
//! status and error code, exactly one JSON document on stdout, within its
//! bound, and the server must have seen the documented number of requests.
//!
//! `cli_exec` checks the single cases in depth; this module checks the
//! whole matrix in one table and prints it (`cargo test --test testsuite
//! cli_faults:: -- --nocapture`), the figure `docs/reliability.md` quotes.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use serde_json::json;

use crate::support::cli::Cli;
use crate::support::recorder::{Recorder, Reply};

const TOKEN: &str = "at_fault_matrix_secret_token";
const GET: &str = r#"{"channel":"eng","number":1}"#;
const UPDATE: &str = r#"{"channel":"eng","number":1,"title":"t"}"#;

/// Where the case's server lives and how to count what reached it.
enum Server {
    Recorder(Recorder),
    /// A raw TCP server counting accepted connections.
    Counting(String, Arc<AtomicUsize>),
    /// No server at all (refused, DNS).
    None(String),
}

impl Server {
    fn url(&self) -> String {
        match self {
            Server::Recorder(r) => r.url.clone(),
            Server::Counting(url, _) | Server::None(url) => url.clone(),
        }
    }

    /// Requests (or connections) that reached the server; `None` when there is no server.
    fn seen(&self) -> Option<usize> {
        match self {
            Server::Recorder(r) => Some(r.requests().len()),
            Server::Counting(_, n) => Some(n.load(Ordering::SeqCst)),
            Server::None(_) => None,
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

/// One row of the matrix.
struct Case {
    name: &'static str,
    server: fn() -> Server,
    /// Credential process script body; `None`: a stored token.
    credential_process: Option<&'static str>,
    /// Whether the stored token is left out (the credential process must run first).
    no_token: bool,
    exit: i32,
    code: &'static str,
    /// Requests the server may see for (read with --retries 1, update).
    seen: (Option<usize>, Option<usize>),
    /// Upper bound on the wall time of one run.
    within: Duration,
}

fn refused() -> Server {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    Server::None(format!("http://127.0.0.1:{port}"))
}

fn cases() -> Vec<Case> {
    let s = Duration::from_secs;
    let ok_token = r#"echo '{"token": "at_fresh_token"}'"#;
    vec![
        Case {
            name: "connection refused",
            server: refused,
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "network_error",
            seen: (None, None),
            within: s(5),
        },
        Case {
            name: "DNS failure (.invalid)",
            server: || Server::None("http://nonexistent.invalid:1".into()),
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "network_error",
            seen: (None, None),
            within: s(5),
        },
        Case {
            name: "TLS to a plain-HTTP port",
            server: || counting("https", plain_http_400),
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "network_error",
            seen: (Some(2), Some(1)),
            within: s(5),
        },
        Case {
            name: "accepts, never answers",
            server: || Server::Recorder(Recorder::start(vec![Reply::Hang])),
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "timeout",
            seen: (Some(2), Some(1)),
            within: s(6),
        },
        Case {
            name: "half a body, then close",
            server: || {
                Server::Recorder(Recorder::start(vec![Reply::Raw(
                    b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"items\"".to_vec(),
                )]))
            },
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "network_error",
            seen: (Some(2), Some(1)),
            within: s(5),
        },
        Case {
            name: "500 with HTML",
            server: || Server::Recorder(Recorder::start(vec![html(500)])),
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "server_error",
            seen: (Some(2), Some(1)),
            within: s(5),
        },
        Case {
            name: "502 with HTML",
            server: || Server::Recorder(Recorder::start(vec![html(502)])),
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "server_error",
            seen: (Some(2), Some(1)),
            within: s(5),
        },
        Case {
            name: "503 with HTML",
            server: || Server::Recorder(Recorder::start(vec![html(503)])),
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "server_error",
            seen: (Some(2), Some(1)),
            within: s(5),
        },
        Case {
            name: "429 with Retry-After: 1",
            server: || {
                Server::Recorder(Recorder::start(vec![Reply::Full(
                    429,
                    vec![("retry-after", "1".into())],
                    b"slow down".to_vec(),
                )]))
            },
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "rate_limited",
            seen: (Some(2), Some(1)),
            within: s(5),
        },
        Case {
            name: "429 without Retry-After",
            server: || Server::Recorder(Recorder::start(vec![html(429)])),
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "rate_limited",
            seen: (Some(2), Some(1)),
            within: s(5),
        },
        Case {
            name: "200, body not JSON",
            server: || {
                Server::Recorder(Recorder::start(vec![Reply::text(200, "text/plain", "OK")]))
            },
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "invalid_response",
            // A 2xx answer is final: the CLI does not resend after a success status.
            seen: (Some(1), Some(1)),
            within: s(5),
        },
        Case {
            name: "200, 50 MB body",
            server: || counting("http", fifty_megabytes),
            credential_process: None,
            no_token: false,
            exit: 5,
            code: "invalid_response",
            seen: (Some(2), Some(1)),
            within: s(10),
        },
        Case {
            name: "401 again after the refresh",
            server: || Server::Recorder(Recorder::start(vec![unauthorized()])),
            credential_process: Some(ok_token),
            no_token: false,
            exit: 3,
            // The 401 was not processed, so the one replay is no resend of a mutation.
            code: "unauthorized",
            seen: (Some(2), Some(2)),
            within: s(5),
        },
        Case {
            name: "credential process fails",
            server: || Server::Recorder(Recorder::expecting_no_request()),
            credential_process: Some("echo oops >&2; exit 7"),
            no_token: true,
            exit: 3,
            code: "credential_process_failed",
            seen: (Some(0), Some(0)),
            within: s(5),
        },
        Case {
            name: "credential process hangs",
            server: || Server::Recorder(Recorder::expecting_no_request()),
            credential_process: Some("sleep 30"),
            no_token: true,
            exit: 3,
            code: "credential_process_failed",
            seen: (Some(0), Some(0)),
            within: s(6),
        },
        Case {
            name: "credential process prints garbage",
            server: || Server::Recorder(Recorder::expecting_no_request()),
            credential_process: Some("echo '<html>'"),
            no_token: true,
            exit: 3,
            code: "credential_process_failed",
            seen: (Some(0), Some(0)),
            within: s(5),
        },
        Case {
            name: "credential process prints nothing",
            server: || Server::Recorder(Recorder::expecting_no_request()),
            credential_process: Some("true"),
            no_token: true,
            exit: 3,
            code: "credential_process_failed",
            seen: (Some(0), Some(0)),
            within: s(5),
        },
    ]
}

fn login(cli: &Cli, url: &str, case: &Case) {
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
    let process = case
        .credential_process
        .map(|body| cli.script("cred.sh", body));
    if let Some(process) = &process {
        args.extend_from_slice(&["--credential-process", process]);
    }
    let run = if case.no_token {
        cli.run(&args, None)
    } else {
        args.push("--token-stdin");
        cli.run(&args, Some(TOKEN))
    };
    assert_eq!(run.code, 0, "login for {}: {run:?}", case.name);
}

#[test]
fn fault_matrix() {
    let mut rows = Vec::new();
    for case in cases() {
        for (verb, input, expected_seen) in
            [("get", GET, case.seen.0), ("update", UPDATE, case.seen.1)]
        {
            let server = (case.server)();
            let cli = Cli::new();
            login(&cli, &server.url(), &case);
            let run = cli.exec("task", verb, input, &["--timeout", "2", "--retries", "1"]);
            let label = format!("{} / task.{verb}", case.name);
            // Exactly one JSON document on stdout, the documented error.
            let doc = run.json();
            assert_eq!(
                (run.code, doc["error"]["code"].as_str().unwrap_or_default()),
                (case.exit, case.code),
                "{label}: {run:?}"
            );
            assert_eq!(
                doc["error"]["retryable"],
                json!(case.exit == 5),
                "{label}: {doc}"
            );
            assert!(
                run.elapsed <= case.within,
                "{label}: took {:?}, bound {:?}",
                run.elapsed,
                case.within
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
            // Give a hanging server's accept thread a moment to record.
            let seen = server.seen();
            assert_eq!(seen, expected_seen, "{label}: requests seen by the server");
            rows.push(format!(
                "| {} | task.{verb} | {} | `{}` | {} | {:.2} s |",
                case.name,
                run.code,
                case.code,
                seen.map_or("–".to_string(), |n| n.to_string()),
                run.elapsed.as_secs_f64()
            ));
        }
    }
    eprintln!("| case | action | exit | code | requests seen | elapsed |");
    eprintln!("| --- | --- | --- | --- | --- | --- |");
    for row in rows {
        eprintln!("{row}");
    }
}
