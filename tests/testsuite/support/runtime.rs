//! The real `agentteam-runtime` for integration tests: a fresh store on
//! either engine (a temp SQLite file, or a database of its own on the
//! tests' PostgreSQL server), the server on 127.0.0.1:0 (its port read from
//! the one JSON line it prints), admin commands against the same store, and
//! a tiny HTTP/1.1 client. The child is killed when the [`Runtime`] is
//! dropped. `on_every_engine!` runs a test written once on both engines.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

use super::postgres::Cluster;

pub const BIN: &str = env!("CARGO_BIN_EXE_agentteam-runtime");

/// The store engine a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

impl Engine {
    /// The engine's name, as `migrate` and `reindex` print it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Sqlite => "sqlite",
            Engine::Postgres => "postgres",
        }
    }
}

/// Each named test, once per engine: `sqlite::NAME` and `postgres::NAME`
/// call `NAME(Engine::Sqlite)` and `NAME(Engine::Postgres)`. Every test
/// module sees it (`#[macro_use]` on `support` and on this module).
macro_rules! on_every_engine {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $( #[test] fn $name() { super::$name($crate::support::runtime::Engine::Sqlite) } )*
        }
        mod postgres {
            $( #[test] fn $name() { super::$name($crate::support::runtime::Engine::Postgres) } )*
        }
    };
}

pub struct Runtime {
    pub addr: SocketAddr,
    pub engine: Engine,
    /// `--db`: the SQLite file's path, or the PostgreSQL database's URI.
    pub db: String,
    pub child: Child,
    pub dir: tempfile::TempDir,
}

/// A fresh store's `--db` on `engine`; a SQLite file lives in `dir`.
pub fn fresh_db(engine: Engine, dir: &std::path::Path) -> String {
    match engine {
        Engine::Sqlite => dir.join("runtime.db").display().to_string(),
        Engine::Postgres => Cluster::shared().create_database(),
    }
}

/// A workspace member created by [`Runtime::agent`].
#[derive(Debug, Clone)]
pub struct Agent {
    pub workspace_id: String,
    pub agent_id: String,
    pub token: String,
}

impl Agent {
    /// The Agent Runtime path of `route` (e.g. `/tasks/get`) for this agent.
    pub fn path(&self, route: &str) -> String {
        format!(
            "/api/v1/workspaces/{}/agents/{}/runtime{route}",
            self.workspace_id, self.agent_id
        )
    }
}

impl Runtime {
    /// A fresh SQLite store and a server on a free port.
    pub fn start() -> Runtime {
        Runtime::start_on(Engine::Sqlite)
    }

    /// A fresh store on `engine` and a server on a free port.
    pub fn start_on(engine: Engine) -> Runtime {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = fresh_db(engine, dir.path());
        let (child, addr) = spawn(&db, dir.path());
        Runtime {
            addr,
            engine,
            db,
            child,
            dir,
        }
    }

    /// Another server on the same store: a replica (PostgreSQL) or a
    /// second process on the same file (SQLite).
    pub fn replica(&self) -> Runtime {
        Runtime::serve(self.engine, &self.db, &[])
    }

    /// A server on the existing store `db`, with `serve` flags `args`.
    pub fn serve(engine: Engine, db: &str, args: &[&str]) -> Runtime {
        let dir = tempfile::tempdir().expect("temp dir");
        let (child, addr) = spawn_with(db, dir.path(), args);
        Runtime {
            addr,
            engine,
            db: db.to_string(),
            child,
            dir,
        }
    }

    /// One number the store computes with `sql` (plain SQL both engines
    /// speak), read straight from the store, not through the server.
    pub fn scalar(&self, sql: &str) -> i64 {
        match self.engine {
            Engine::Sqlite => rusqlite::Connection::open(&self.db)
                .expect("open the store")
                .query_row(sql, [], |r| r.get(0))
                .unwrap_or_else(|e| panic!("{sql}: {e}")),
            Engine::Postgres => {
                let text = Cluster::shared().psql(&dbname(&self.db), sql);
                text.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("{sql}: not a number: {text:?}"))
            }
        }
    }

    /// Kills the server with SIGKILL (no shutdown, no flush) and starts a
    /// new one on the same store.
    pub fn kill9_and_restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let (child, addr) = spawn(&self.db, self.dir.path());
        self.child = child;
        self.addr = addr;
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Runs an admin command on this store; it must succeed and print one JSON object.
    pub fn admin(&self, args: &[&str]) -> Value {
        let out = self.admin_output(args);
        assert!(
            out.status.success(),
            "agentteam-runtime {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("admin output is one JSON object")
    }

    pub fn admin_output(&self, args: &[&str]) -> Output {
        admin_output(&self.db, args)
    }

    pub fn workspace(&self, name: &str) -> String {
        self.admin(&["workspace", "create", "--name", name])["workspace_id"]
            .as_str()
            .expect("workspace_id")
            .to_string()
    }

    pub fn agent(&self, workspace_id: &str, handle: &str) -> Agent {
        let out = self.admin(&[
            "agent",
            "create",
            "--workspace",
            workspace_id,
            "--handle",
            handle,
        ]);
        Agent {
            workspace_id: workspace_id.to_string(),
            agent_id: out["agent_id"].as_str().expect("agent_id").to_string(),
            token: out["token"].as_str().expect("token").to_string(),
        }
    }

    pub fn channel(&self, workspace_id: &str, name: &str) {
        self.create_channel(workspace_id, name, &[]);
    }

    /// A board only `members` (`@a,@b`) may use.
    pub fn private_channel(&self, workspace_id: &str, name: &str, members: &str) {
        self.create_channel(workspace_id, name, &["--members", members]);
    }

    fn create_channel(&self, workspace_id: &str, name: &str, more: &[&str]) {
        let mut args = vec![
            "channel",
            "create",
            "--workspace",
            workspace_id,
            "--name",
            name,
        ];
        args.extend_from_slice(more);
        self.admin(&args);
    }

    /// Opens a workflow callback for `agent` (an id or `@handle`): its
    /// `workflow_run_id` and `callback_effect_id`.
    pub fn open_callback(&self, workspace_id: &str, agent: &str) -> Value {
        self.admin(&[
            "callback",
            "open",
            "--workspace",
            workspace_id,
            "--agent",
            agent,
        ])
    }

    /// One HTTP/1.1 request with `Connection: close`.
    pub fn http(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&[u8]>,
    ) -> Reply {
        let mut headers = Vec::new();
        if let Some(token) = token {
            headers.push(("Authorization".to_string(), format!("Bearer {token}")));
        }
        if let Some(body) = body {
            headers.push(("Content-Type".to_string(), "application/json".to_string()));
            headers.push(("Content-Length".to_string(), body.len().to_string()));
        }
        raw_http(self.addr, method, path, &headers, body.unwrap_or_default())
    }

    /// The server's log once it holds `needle` (the runtime writes its log
    /// from a thread of its own, a moment after the answer); panics after
    /// 10 s without it.
    pub fn log_containing(&self, needle: &str) -> String {
        let started = std::time::Instant::now();
        loop {
            let log =
                std::fs::read_to_string(self.dir.path().join("runtime.log")).unwrap_or_default();
            if log.contains(needle) {
                return log;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the log never showed {needle:?}:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// POST `input` as JSON to `route` as `agent`.
    pub fn post(&self, agent: &Agent, route: &str, input: &Value) -> Reply {
        self.http(
            "POST",
            &agent.path(route),
            Some(&agent.token),
            Some(input.to_string().as_bytes()),
        )
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `agentteam-runtime --db DB ARGS…` to completion.
pub fn admin_output(db: &str, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("--db")
        .arg(db)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run agentteam-runtime")
}

/// `agentteam-runtime ARGS…` in `dir`, which is also its HOME (no
/// `~/.postgresql` or data directory of the machine's), with `--db` only
/// from the arguments and libpq's variables `env` (no other PG* variable
/// of the test's own environment, and no password file).
pub fn runtime_in_env(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env_remove("AGENTTEAM_RUNTIME_DB")
        .env("PGPASSFILE", dir.join("no-pgpass"))
        .env("RUST_LOG", "warn");
    for (name, _) in std::env::vars() {
        if name.starts_with("PG") && name != "PGPASSFILE" {
            command.env_remove(name);
        }
    }
    command.envs(env.iter().copied());
    command.output().expect("run agentteam-runtime")
}

/// The one JSON document a successful command (an admin command, say)
/// prints.
pub fn succeeded(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

/// The one error document a refused command prints, after checking the
/// exit status and that no stream carries `secret`.
pub fn refused(out: &Output, exit: i32, secret: &str) -> Value {
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(exit), "{stdout}\n{stderr}");
    assert!(
        !stdout.contains(secret) && !stderr.contains(secret),
        "the password leaked:\n{stdout}\n{stderr}"
    );
    let doc: Value = serde_json::from_str(stdout.trim()).expect("one JSON document");
    assert!(doc["error"]["message"].is_string(), "{doc}");
    doc
}

/// The message of an error document.
pub fn message(doc: &Value) -> String {
    doc["error"]["message"].as_str().unwrap().to_string()
}

/// The database name of a PostgreSQL URI `postgres://user@host/NAME?…`.
pub fn dbname(uri: &str) -> String {
    let path = uri.split_once("://").map_or(uri, |(_, rest)| rest);
    let path = path.split_once('/').map_or("", |(_, rest)| rest);
    path.split('?').next().unwrap_or_default().to_string()
}

/// Starts `agentteam-runtime --db DB serve` on a free port, logging into
/// `dir/runtime.log`; returns the child and the address it announced.
pub fn spawn(db: &str, dir: &std::path::Path) -> (Child, SocketAddr) {
    spawn_with(db, dir, &[])
}

/// [`spawn`] with more `serve` flags.
pub fn spawn_with(db: &str, dir: &std::path::Path, args: &[&str]) -> (Child, SocketAddr) {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("runtime.log"))
        .expect("log file");
    let mut child = Command::new(BIN)
        .arg("--db")
        .arg(db)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("start agentteam-runtime");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read the listen line");
    let listening: Value = serde_json::from_str(&line)
        .unwrap_or_else(|_| panic!("the first stdout line is JSON: {line:?}"));
    let addr = listening["listen"]
        .as_str()
        .and_then(|a| a.parse().ok())
        .expect("listen address");
    (child, addr)
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|_| {
            panic!(
                "HTTP {} body is not JSON: {:?}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The error code of an error body.
    pub fn code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// A request with exactly these headers (plus Host and Connection: close).
pub fn raw_http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("write head");
    // The server may answer (413) and close before reading a body.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    parse_reply(&raw)
}

fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size_text = String::from_utf8_lossy(&data[..eol]).to_string();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("0").trim(), 16)
            .unwrap_or(0);
        if size == 0 || data.len() < eol + 2 + size {
            return out;
        }
        out.extend_from_slice(&data[eol + 2..eol + 2 + size]);
        data = &data[(eol + 4 + size).min(data.len())..];
    }
}

/// A POST that may fail because the server dies under it: `None` then.
pub fn try_post(
    addr: SocketAddr,
    agent: &Agent,
    route: &str,
    body: &Value,
) -> Option<(u16, Value)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let body = body.to_string();
    let head = format!(
        "POST {} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        agent.path(route),
        agent.token,
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body.as_bytes()).ok()?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).ok()?;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let status: u16 = String::from_utf8_lossy(&raw[..split])
        .split(' ')
        .nth(1)?
        .parse()
        .ok()?;
    let body: Value = serde_json::from_slice(&raw[split + 4..]).ok()?;
    Some((status, body))
}

/// Percent-encodes one query component: every byte but RFC 3986's unreserved ones.
pub fn encode(text: &str) -> String {
    const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    utf8_percent_encode(text, UNRESERVED).to_string()
}

impl Runtime {
    /// One action over HTTP exactly as the CLI sends it: the library's own
    /// wire encoder, so these tests and the CLI cannot disagree on the wire.
    pub fn call(&self, who: &Agent, action: &agentteam::registry::Action, input: &Value) -> Reply {
        let request = agentteam::wire::encode_request(
            action,
            &who.workspace_id,
            &who.agent_id,
            input,
            &Default::default(),
        );
        match action.method {
            agentteam::registry::Method::Post => self.http(
                "POST",
                &request.path,
                Some(&who.token),
                request.body.as_deref(),
            ),
            agentteam::registry::Method::Get => {
                let query: Vec<String> = request
                    .query
                    .iter()
                    .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
                    .collect();
                self.http(
                    "GET",
                    &format!("{}?{}", request.path, query.join("&")),
                    Some(&who.token),
                    None,
                )
            }
        }
    }
}
