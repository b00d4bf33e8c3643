//! A recording HTTP/1.1 server on 127.0.0.1:0 for the CLI's wire tests: it
//! records every request exactly as received and answers from a script, so a
//! test can see what the client sent and inject faults (hangs, HTML, cut-off
//! bodies). It closes every connection after one answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Path without the query string.
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
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

pub struct Recorder {
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Recorder {
    /// Serves `replies` in order; the last one repeats.
    pub fn start(replies: Vec<Reply>) -> Recorder {
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
        Recorder { url, requests }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
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

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).unwrap()
}
