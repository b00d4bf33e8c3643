//! A recording HTTP/1.1 server on 127.0.0.1:0 for the CLI's wire tests: it
//! records every request exactly as received and answers from a script, so a
//! test can see what the client sent and inject faults (hangs, HTML, cut-off
//! bodies). It closes every connection after one answer.
//!
//! It also holds the test to what it expects of the client: a server made
//! with [`Recorder::start`] fails the test when it is dropped without having
//! been called, one made with [`Recorder::expecting_no_request`] when it was.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Path without the query string.
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// When the whole request had arrived.
    pub received: Instant,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

#[derive(Debug, Clone)]
pub enum Reply {
    /// Status, extra headers, body.
    Full(u16, Vec<(&'static str, String)>, Vec<u8>),
    /// Accept, read the request, never answer.
    Hang,
    /// Send these raw bytes and close.
    Raw(Vec<u8>),
}

impl Reply {
    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply::Full(
            status,
            vec![("content-type", "application/json".into())],
            body.to_string().into_bytes(),
        )
    }

    pub fn text(status: u16, content_type: &str, body: &str) -> Reply {
        Reply::Full(
            status,
            vec![("content-type", content_type.to_string())],
            body.as_bytes().to_vec(),
        )
    }
}

/// How long a dropped [`Recorder`] that saw nothing waits for a request
/// still being read before it fails the test. Only that failure waits.
const LATE_REQUEST_GRACE: Duration = Duration::from_secs(5);

pub struct Recorder {
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    expects_requests: bool,
    /// Whether [`Recorder::verdict`] has run (then dropping checks nothing).
    judged: bool,
}

impl Recorder {
    /// A hermetic CLI with a profile on this server, logged in with `token`.
    pub fn logged_in(self, token: &str) -> (crate::support::cli::Cli, Recorder) {
        let cli = crate::support::cli::Cli::new();
        cli.login(&self.url, token, None);
        (cli, self)
    }

    /// Serves `replies` in order; the last one repeats. The test fails if
    /// no request has arrived when the server is dropped.
    pub fn start(replies: Vec<Reply>) -> Recorder {
        Recorder::listen(replies, true)
    }

    /// A server the client must not call (input refused before sending, a
    /// dry run, credentials that fail first): the test fails if a request
    /// arrives. It answers one with a 500.
    pub fn expecting_no_request() -> Recorder {
        let unexpected = Reply::json(
            500,
            serde_json::json!({"error": {"code": "server_error", "message": "This test expects no request.", "retryable": false}}),
        );
        Recorder::listen(vec![unexpected], false)
    }

    fn listen(replies: Vec<Reply>, expects_requests: bool) -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        thread::spawn(move || {
            let mut served = 0usize;
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let reply = replies[served.min(replies.len() - 1)].clone();
                served += 1;
                let recorded = recorded.clone();
                thread::spawn(move || serve(stream, reply, recorded));
            }
        });
        Recorder {
            url,
            requests,
            expects_requests,
            judged: false,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

impl Recorder {
    /// Whether the client did what the test expected of it: called this
    /// server, or not. A server that saw nothing waits up to `grace` for a
    /// request still being read.
    fn verdict(&mut self, grace: Duration) -> Result<(), String> {
        self.judged = true;
        let deadline = Instant::now() + grace;
        while self.expects_requests
            && self.requests.lock().unwrap().is_empty()
            && Instant::now() < deadline
        {
            thread::sleep(Duration::from_millis(10));
        }
        let requests = self.requests();
        match (self.expects_requests, requests.len()) {
            (true, 0) => Err(format!(
                "the recording server at {} was never called",
                self.url
            )),
            (false, n) if n > 0 => Err(format!(
                "the recording server at {} expected no request and got {n}: {:?}",
                self.url,
                requests
                    .iter()
                    .map(|r| format!("{} {}", r.method, r.path))
                    .collect::<Vec<_>>()
            )),
            _ => Ok(()),
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if self.judged || thread::panicking() {
            return;
        }
        if let Err(why) = self.verdict(LATE_REQUEST_GRACE) {
            panic!("{why}");
        }
    }
}

fn serve(mut stream: TcpStream, reply: Reply, recorded: Arc<Mutex<Vec<Recorded>>>) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let Some(request) = read_request(&mut stream) else {
        return;
    };
    recorded.lock().unwrap().push(request);
    match reply {
        Reply::Full(status, headers, body) => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
        Reply::Raw(bytes) => {
            let _ = stream.write_all(&bytes);
        }
        Reply::Hang => thread::sleep(Duration::from_secs(30)),
    }
    let _ = stream.flush();
}

fn read_request(stream: &mut TcpStream) -> Option<Recorded> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), parse_query(q)),
        None => (target, Vec::new()),
    };
    Some(Recorded {
        method,
        path,
        query,
        headers,
        body,
        received: Instant::now(),
    })
}

fn parse_query(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// A query component as sent in a form: `+` is a space, `%XX` a byte.
fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(&s.replace('+', " "))
        .decode_utf8()
        .expect("the client sends UTF-8 query components")
        .into_owned()
}

#[test]
fn a_recorder_fails_a_test_whose_client_did_not_do_what_it_expected() {
    fn get(url: &str) {
        let mut stream = TcpStream::connect(url.trim_start_matches("http://")).unwrap();
        stream
            .write_all(b"GET /tasks HTTP/1.1\r\nhost: x\r\n\r\n")
            .unwrap();
        let _ = stream.read_to_end(&mut Vec::new());
    }

    let mut uncalled = Recorder::start(vec![Reply::json(200, serde_json::json!({}))]);
    let url = uncalled.url.clone();
    assert_eq!(
        uncalled.verdict(Duration::ZERO),
        Err(format!("the recording server at {url} was never called"))
    );
    let mut called = Recorder::start(vec![Reply::json(200, serde_json::json!({}))]);
    get(&called.url);
    assert_eq!(called.verdict(Duration::ZERO), Ok(()));

    let mut called_anyway = Recorder::expecting_no_request();
    get(&called_anyway.url);
    let url = called_anyway.url.clone();
    assert_eq!(
        called_anyway.verdict(Duration::ZERO),
        Err(format!(
            "the recording server at {url} expected no request and got 1: [\"GET /tasks\"]"
        ))
    );
    let mut untouched = Recorder::expecting_no_request();
    assert_eq!(untouched.verdict(Duration::ZERO), Ok(()));
}
