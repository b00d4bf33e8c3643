//! Holding real traffic to `openapi.json`: [`Spec`] checks one request and
//! its answer against the document (operation, path and query parameters,
//! body, status, content type, answer body, and for a failure that its code
//! is one the operation documents for that status), and [`ConformingProxy`]
//! sits between the CLI and the runtime in the end-to-end tests, forwards
//! every exchange unchanged and checks each one. A proxy that saw a
//! violation, or no exchange at all, fails the test when it is dropped.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::Value;

/// The checked-in document, parsed, with every `$ref` replaced by what it
/// points at (the document's references are local and not recursive).
pub fn document() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.json");
    let text = std::fs::read_to_string(path).expect("openapi.json is checked in");
    let doc: Value = serde_json::from_str(&text).expect("openapi.json is JSON");
    inline_refs(&doc, &doc)
}

/// The same document with its results closed (`openapi::closed_document`:
/// the checked-in one, which a drift test holds to the registry, with no
/// field a result of this version may not carry), references inlined.
pub fn closed_document() -> Value {
    let doc = agentteam::openapi::closed_document();
    inline_refs(&doc, &doc)
}

fn inline_refs(root: &Value, value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref") {
                let pointer = target
                    .strip_prefix('#')
                    .unwrap_or_else(|| panic!("non-local $ref {target}"));
                let found = root
                    .pointer(pointer)
                    .unwrap_or_else(|| panic!("$ref {target} points at nothing"));
                return inline_refs(root, found);
            }
            Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), inline_refs(root, v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inline_refs(root, v)).collect()),
        other => other.clone(),
    }
}

/// One HTTP exchange as it travelled.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub method: String,
    /// Percent-encoded path, without the query string.
    pub path: String,
    /// Decoded query pairs.
    pub query: Vec<(String, String)>,
    pub request_headers: Vec<(String, String)>,
    pub request_body: Vec<u8>,
    pub status: u16,
    pub response_headers: Vec<(String, String)>,
    pub response_body: Vec<u8>,
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The document, ready to check exchanges against.
pub struct Spec {
    doc: Value,
}

impl Default for Spec {
    fn default() -> Self {
        Spec::new()
    }
}

impl Spec {
    /// Exchanges are checked against [`closed_document`]: a result field
    /// the document does not describe is a departure.
    pub fn new() -> Spec {
        Spec {
            doc: closed_document(),
        }
    }

    /// The operation for `method` and `path`, with the path parameters.
    fn operation(&self, method: &str, path: &str) -> Option<(Value, BTreeMap<String, String>)> {
        let segments: Vec<&str> = path.split('/').collect();
        for (template, item) in self.doc["paths"].as_object()? {
            let parts: Vec<&str> = template.split('/').collect();
            if parts.len() != segments.len() {
                continue;
            }
            let mut params = BTreeMap::new();
            let matched = parts.iter().zip(&segments).all(|(t, s)| {
                match t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
                    Some(name) => {
                        let decoded = percent_encoding::percent_decode_str(s)
                            .decode_utf8_lossy()
                            .into_owned();
                        params.insert(name.to_string(), decoded);
                        !s.is_empty()
                    }
                    None => t == s,
                }
            });
            if matched && let Some(op) = item.get(method.to_ascii_lowercase()) {
                let mut op = op.clone();
                // Path-level parameters apply to every operation of the path.
                if let Some(shared) = item.get("parameters").and_then(Value::as_array) {
                    let mut all = shared.clone();
                    all.extend(op["parameters"].as_array().cloned().unwrap_or_default());
                    op["parameters"] = Value::Array(all);
                }
                return Some((op, params));
            }
        }
        None
    }

    /// Every way `exchange` departs from the document; empty when it conforms.
    pub fn check(&self, x: &Exchange) -> Vec<String> {
        let mut problems = Vec::new();
        let Some((op, path_params)) = self.operation(&x.method, &x.path) else {
            return vec![format!("{} {}: no such operation", x.method, x.path)];
        };
        let op = &op;
        let name = op["operationId"].as_str().unwrap_or("?").to_string();
        let mut say = |what: String| problems.push(format!("{name}: {what}"));

        // The request.
        if !header(&x.request_headers, "authorization").is_some_and(|v| v.starts_with("Bearer ")) {
            say("request without a bearer token".into());
        }
        let params = op["parameters"].as_array().cloned().unwrap_or_default();
        for param in &params {
            let pname = param["name"].as_str().unwrap();
            let required = param["required"].as_bool().unwrap_or(false);
            let given: Option<String> = match param["in"].as_str() {
                Some("path") => path_params.get(pname).cloned(),
                Some("query") => x
                    .query
                    .iter()
                    .find(|(k, _)| k == pname)
                    .map(|(_, v)| v.clone()),
                other => {
                    say(format!("parameter {pname} in {other:?}"));
                    None
                }
            };
            let Some(text) = given else {
                if required {
                    say(format!("required parameter {pname} missing"));
                }
                continue;
            };
            let (schema, value) = if let Some(schema) = param.get("schema") {
                let value = match schema["type"].as_str() {
                    Some("string") => Value::String(text),
                    _ => match serde_json::from_str(&text) {
                        Ok(v) => v,
                        Err(_) => {
                            say(format!(
                                "parameter {pname}={text:?} is not a {}",
                                schema["type"]
                            ));
                            continue;
                        }
                    },
                };
                (schema, value)
            } else {
                let schema = &param["content"]["application/json"]["schema"];
                match serde_json::from_str(&text) {
                    Ok(v) => (schema, v),
                    Err(_) => {
                        say(format!("parameter {pname}={text:?} is not JSON"));
                        continue;
                    }
                }
            };
            for error in errors(schema, &value) {
                say(format!("parameter {pname}: {error}"));
            }
        }
        for (k, _) in &x.query {
            if !params.iter().any(|p| p["name"] == *k && p["in"] == "query") {
                say(format!("undocumented query parameter {k}"));
            }
        }
        match op.get("requestBody") {
            Some(body) => {
                let media = header(&x.request_headers, "content-type").unwrap_or("");
                if !media.starts_with("application/json") {
                    say(format!("request content type {media:?}"));
                }
                match serde_json::from_slice::<Value>(&x.request_body) {
                    Ok(value) => {
                        for error in errors(&body["content"]["application/json"]["schema"], &value)
                        {
                            say(format!("request body: {error}"));
                        }
                    }
                    Err(_) => say("request body is not JSON".into()),
                }
            }
            None if !x.request_body.is_empty() => say("a body on an operation without one".into()),
            None => {}
        }

        // The answer.
        let Some(response) = op["responses"].get(x.status.to_string()) else {
            say(format!("undocumented status {}", x.status));
            return problems;
        };
        // Its headers: each one the document declares, present and valid.
        let declared = response["headers"].as_object().cloned().unwrap_or_default();
        for (hname, declared) in &declared {
            match header(&x.response_headers, &hname.to_ascii_lowercase()) {
                None if declared["required"] == true => {
                    say(format!("status {}: no {hname} header", x.status));
                }
                None => {}
                Some(text) => {
                    let schema = &declared["schema"];
                    let value = match schema["type"].as_str() {
                        Some("string") => Value::String(text.to_string()),
                        _ => serde_json::from_str(text).unwrap_or(Value::Null),
                    };
                    for error in errors(schema, &value) {
                        say(format!("status {} header {hname}: {error}", x.status));
                    }
                }
            }
        }
        if response.get("content").is_none() {
            if !x.response_body.is_empty() {
                say(format!(
                    "status {}: a body where none is documented",
                    x.status
                ));
            }
            return problems;
        }
        let media = header(&x.response_headers, "content-type").unwrap_or("");
        let Some(content) = response["content"].get(media) else {
            say(format!(
                "status {}: undocumented content type {media:?}",
                x.status
            ));
            return problems;
        };
        let Ok(body) = serde_json::from_slice::<Value>(&x.response_body) else {
            say(format!("status {}: the answer is not JSON", x.status));
            return problems;
        };
        for error in errors(&content["schema"], &body) {
            say(format!("status {} answer: {error}", x.status));
        }
        if let Some(codes) = response.get("x-error-codes").and_then(Value::as_array)
            && !codes.contains(&body["error"]["code"])
        {
            say(format!(
                "status {} with code {}, which the operation does not document for it",
                x.status, body["error"]["code"]
            ));
        }
        problems
    }
}

fn errors(schema: &Value, value: &Value) -> Vec<String> {
    let validator = jsonschema::draft202012::new(schema)
        .unwrap_or_else(|e| panic!("openapi.json holds an invalid schema: {e}\n{schema}"));
    validator
        .iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// A forwarding HTTP/1.1 proxy on 127.0.0.1:0 in front of `target` that
/// checks every exchange against the document. One request per connection.
pub struct ConformingProxy {
    pub url: String,
    seen: Arc<Mutex<(usize, Vec<String>)>>,
}

impl ConformingProxy {
    pub fn start(target: SocketAddr) -> ConformingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new((0, Vec::new())));
        let spec = Arc::new(Spec::new());
        let shared = seen.clone();
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (spec, seen) = (spec.clone(), shared.clone());
                thread::spawn(move || {
                    forward(stream, target, |exchange| {
                        let problems = spec.check(exchange);
                        let mut seen = seen.lock().unwrap();
                        seen.0 += 1;
                        seen.1.extend(problems);
                    });
                });
            }
        });
        ConformingProxy { url, seen }
    }

    /// How many exchanges were checked, and every violation found.
    pub fn verdict(&self) -> (usize, Vec<String>) {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for ConformingProxy {
    fn drop(&mut self) {
        if thread::panicking() {
            return;
        }
        let (count, problems) = self.verdict();
        assert!(count > 0, "no exchange went through the conformance proxy");
        assert!(
            problems.is_empty(),
            "{} of the exchanges break openapi.json:\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
    }
}

/// Reads one request from `client`, sends it to `target`, hands the exchange
/// to `check`, then returns the answer to `client` unchanged (but for
/// `connection: close`): a client that has its answer has been checked.
fn forward(mut client: TcpStream, target: SocketAddr, check: impl FnOnce(&Exchange)) -> Option<()> {
    client.set_read_timeout(Some(Duration::from_secs(60))).ok();
    let mut reader = BufReader::new(client.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target_path = parts.next()?.to_string();
    let request_headers = read_headers(&mut reader)?;
    let length: usize = header(&request_headers, "content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut request_body = vec![0; length];
    reader.read_exact(&mut request_body).ok()?;

    let mut upstream = TcpStream::connect(target).ok()?;
    let mut head = format!("{method} {target_path} HTTP/1.1\r\n");
    for (k, v) in &request_headers {
        if !k.eq_ignore_ascii_case("connection") {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    head.push_str("connection: close\r\n\r\n");
    upstream.write_all(head.as_bytes()).ok()?;
    upstream.write_all(&request_body).ok()?;
    let mut answer = BufReader::new(upstream);
    let mut status_line = String::new();
    answer.read_line(&mut status_line).ok()?;
    let status: u16 = status_line.split_whitespace().nth(1)?.parse().ok()?;
    let response_headers = read_headers(&mut answer)?;
    let mut response_body = Vec::new();
    match header(&response_headers, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        Some(n) => {
            response_body.resize(n, 0);
            answer.read_exact(&mut response_body).ok()?;
        }
        None => {
            answer.read_to_end(&mut response_body).ok()?;
        }
    }

    let (path, query) = match target_path.split_once('?') {
        Some((p, q)) => (p.to_string(), decode_query(q)),
        None => (target_path, Vec::new()),
    };
    let exchange = Exchange {
        method,
        path,
        query,
        request_headers,
        request_body,
        status,
        response_headers,
        response_body,
    };
    check(&exchange);
    let (status_line, response_headers, response_body) = (
        status_line,
        exchange.response_headers,
        exchange.response_body,
    );

    let mut out = status_line.into_bytes();
    for (k, v) in &response_headers {
        if !k.eq_ignore_ascii_case("connection") && !k.eq_ignore_ascii_case("transfer-encoding") {
            out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
        }
    }
    if header(&response_headers, "content-length").is_none() {
        out.extend_from_slice(format!("content-length: {}\r\n", response_body.len()).as_bytes());
    }
    out.extend_from_slice(b"connection: close\r\n\r\n");
    out.extend_from_slice(&response_body);
    client.write_all(&out).ok()?;
    client.flush().ok()
}

fn read_headers(reader: &mut impl BufRead) -> Option<Vec<(String, String)>> {
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            return Some(headers);
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
}

fn decode_query(q: &str) -> Vec<(String, String)> {
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(&s.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}
