//! The three fuzz targets of issue 5, item 2, as plain functions over bytes,
//! shared by the cargo-fuzz harnesses in `fuzz/fuzz_targets/` and the
//! stable-Rust smoke test `tests/testsuite/reliability_fuzz.rs` (which CI runs). Each
//! function panics when an invariant breaks; returning means the input was
//! handled as documented.
//!
//! - [`cli_input`]: raw stdin bytes → `parse_input` → `validate` →
//!   `encode_request`, for every registry action. A rejection is a `Failure`
//!   of exit class 2 (usage), never retryable; an accepted input encodes to
//!   a request the runtime decodes and validates back to the same input.
//! - [`response_body`]: answer bytes → `decode_success` / `decode_error`.
//!   A success body is an object or `invalid_response` (exit 5); an error's
//!   class comes from the HTTP status alone and its text stays bounded.
//! - [`runtime_request`]: the runtime's reading of a POST body
//!   (`read_body`) or a GET query (`read_query`): decoded and validated,
//!   then the typed store input. A rejection is a 4xx; an accepted input always
//!   converts to the store's typed input (a failure there would be a 500).

#![allow(dead_code)]

use agentteam::error::{ExitClass, Failure};
use agentteam::registry::task::Operation as Task;
use agentteam::registry::{ACTIONS, Action, Method, Operation};
use agentteam::runtime::store::{
    self, CheckpointInput, CreateInput, DeleteInput, ListQuery, Principal, SetClaimInput,
    TaskLocator, UpdateInput,
};
use agentteam::validate::validate;
use agentteam::wire::{self, WorkflowContext};

/// Counts of accepted and rejected (action, input) pairs.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub accepted: u64,
    pub rejected: u64,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Tally) {
        self.accepted += other.accepted;
        self.rejected += other.rejected;
    }
}

fn assert_usage(failure: &Failure, what: &str) {
    assert_eq!(
        failure.class,
        ExitClass::Usage,
        "{what}: a rejected input must exit 2, got {failure:?}"
    );
    assert!(!failure.retryable, "{what}: {failure:?}");
    assert!(
        failure.message.len() <= 2_000,
        "{what}: the message echoes input ({} bytes)",
        failure.message.len()
    );
}

/// (a) Raw stdin bytes → a validated, encoded request, for every action.
pub fn cli_input(data: &[u8]) -> Tally {
    let mut tally = Tally::default();
    for action in ACTIONS {
        match agentteam::exec::parse_input(data).and_then(|v| validate(action, v)) {
            Err(failure) => {
                assert_usage(&failure, &action.name());
                tally.rejected += 1;
            }
            Ok(input) => {
                let request = wire::encode_request(
                    action,
                    "ws_fuzz",
                    "ag_fuzz",
                    &input,
                    &WorkflowContext::default(),
                );
                assert_eq!(
                    request.path,
                    format!(
                        "/api/v1/workspaces/ws_fuzz/agents/ag_fuzz/runtime{}",
                        action.route
                    )
                );
                // What the CLI sends, the runtime reads back as the same input.
                let again = match action.method {
                    Method::Get => wire::read_query(action, &request.query),
                    Method::Post => {
                        let body = request.body.as_deref().expect("POST has a body");
                        assert!(body.len() <= wire::MAX_BODY_BYTES * 2);
                        wire::read_body(action, body).map(|(input, _)| input)
                    }
                }
                .unwrap_or_else(|f| {
                    panic!("{}: the runtime refuses {input}: {f:?}", action.name())
                });
                assert_eq!(
                    again,
                    input,
                    "{}: the round trip changed the input",
                    action.name()
                );
                // The store's typed input exists; only a runtime domain check
                // (an unknown cursor, an impossible date) may still refuse, with a 4xx.
                if let Err(f) = typed_input(action, again) {
                    assert!(
                        (400..500).contains(&f.http_status),
                        "{}: {input}: {f:?}",
                        action.name()
                    );
                }
                tally.accepted += 1;
            }
        }
    }
    tally
}

/// (b) Response body bytes → the normalised success or failure.
pub fn response_body(data: &[u8]) -> Tally {
    let mut tally = Tally::default();
    match wire::decode_success(data) {
        Ok(success) => {
            assert!(success.data.is_object());
            assert!(
                success
                    .meta
                    .keys()
                    .all(|k| k == "next_cursor" || k == "truncated")
            );
            assert!(success.data.get("next_cursor").is_none());
            tally.accepted += 1;
        }
        Err(failure) => {
            assert_eq!(failure.code, "invalid_response", "{failure:?}");
            assert_eq!(failure.class, ExitClass::Transient);
            tally.rejected += 1;
        }
    }
    // The first two bytes pick a status, so every class is exercised.
    let status = match data {
        [a, b, ..] => 100 + (u16::from_le_bytes([*a, *b]) % 500),
        _ => 500,
    };
    let retry_after = data.first().map(|b| u64::from(*b));
    let failure = wire::decode_error(status, data, retry_after);
    let class = ExitClass::from_http_status(status);
    assert_eq!(failure.class, class, "status {status}: {failure:?}");
    assert_eq!(failure.retryable, class == ExitClass::Transient);
    assert_eq!(failure.http_status, status);
    assert!(agentteam::case::is_snake_case(&failure.code), "{failure:?}");
    assert!(failure.message.len() <= 2_100, "unbounded message");
    assert!(failure.field_errors.len() <= 100);
    let document = failure.to_document();
    assert!(document["error"]["code"].is_string());
    tally
}

/// (c) The runtime's request decoding: `data` is a POST body for the POST
/// actions and, split at `&` and `=`, a query string for the GET actions.
pub fn runtime_request(data: &[u8]) -> Tally {
    let mut tally = Tally::default();
    let pairs = query_pairs(data);
    for action in ACTIONS {
        let read = match action.method {
            Method::Post => wire::read_body(action, data).map(|(input, _)| input),
            Method::Get => wire::read_query(action, &pairs),
        };
        match read {
            Err(failure) => {
                assert!(
                    (400..500).contains(&failure.http_status),
                    "{}: a rejected request must be a 4xx, got {failure:?}",
                    action.name()
                );
                tally.rejected += 1;
            }
            Ok(input) => {
                match typed_input(action, input.clone()) {
                    Ok(()) => tally.accepted += 1,
                    // A domain check after typing (an impossible date) is still a 4xx.
                    Err(f) if (400..500).contains(&f.http_status) => tally.rejected += 1,
                    Err(f) => panic!("{}: valid input {input} fails with {f:?}", action.name()),
                }
            }
        }
    }
    tally
}

/// `k=v&k2=v2` with `+` and `%XX` decoded, as the runtime's `Query` extractor does.
fn query_pairs(data: &[u8]) -> Vec<(String, String)> {
    fn decode(part: &[u8]) -> String {
        let mut out = Vec::with_capacity(part.len());
        let mut i = 0;
        while i < part.len() {
            match part[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < part.len() => {
                    match std::str::from_utf8(&part[i + 1..i + 3])
                        .ok()
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                    {
                        Some(b) => {
                            out.push(b);
                            i += 2;
                        }
                        None => out.push(b'%'),
                    }
                }
                b => out.push(b),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    }
    data.split(|&b| b == b'&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let mut it = pair.splitn(2, |&b| b == b'=');
            let k = it.next().unwrap_or_default();
            let v = it.next().unwrap_or_default();
            (decode(k), decode(v))
        })
        .collect()
}

/// The store's typed input for a validated `input`, as `store::dispatch` builds it.
fn typed_input(action: &Action, input: serde_json::Value) -> Result<(), Failure> {
    let principal = Principal {
        workspace_id: "ws_fuzz".into(),
        agent_id: "ag_fuzz".into(),
        handle: "fuzz".into(),
    };
    // Every operation, as `store::dispatch` matches them: a new one fails
    // to compile here until the fuzzing reads its input too.
    match action.operation {
        Operation::Task(operation) => match operation {
            Task::List => ListQuery::from_input(&principal, input).map(drop),
            Task::Get => store::typed::<TaskLocator>(input).map(drop),
            Task::Create => CreateInput::from_input(input).map(drop),
            Task::Update => store::typed::<UpdateInput>(input)?
                .expected_micros()
                .map(drop),
            Task::SetClaim => store::typed::<SetClaimInput>(input).map(drop),
            Task::Checkpoint => store::typed::<CheckpointInput>(input).map(drop),
            Task::Delete => store::typed::<DeleteInput>(input).map(drop),
        },
    }
}
