//! The stable-Rust smoke run of the three fuzz targets:
//! the same functions cargo-fuzz drives in `fuzz/` (see
//! `docs/reliability.md`), each over a bounded number of inputs generated
//! with a fixed seed from the registry's examples: byte-level mutations
//! (flips, inserts, deletes, splices, JSON tokens) and structural ones
//! (replaced values of every JSON type, extra and dropped keys, long and
//! odd strings, deep nesting). A panic anywhere fails the test; so does any
//! rejection that is not exit 2 (CLI) or a 4xx (runtime).
//!
//! `AGENTTEAM_FUZZ_ITERATIONS` raises the count for a longer local run.

#[path = "../../fuzz/targets.rs"]
mod targets;

use std::time::Instant;

use agentteam::registry::ACTIONS;
use serde_json::{Map, Value, json};
use targets::Tally;

/// xorshift64*: small, fast, reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "true",
    "false",
    "0",
    "-1",
    "1e999",
    "-0",
    "2147483648",
    "9223372036854775808",
    "1.5",
    "\"\"",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "\\",
    "\u{feff}",
    "\u{202e}",
    "é",
    "🦀",
    " ",
    "\n",
    "\t",
];

/// Inputs per target: `default` unless `AGENTTEAM_FUZZ_ITERATIONS` says
/// otherwise. The defaults keep the debug-build run of `cargo test` to a few
/// seconds per target; schema validation of seven actions per input is the
/// cost.
fn iterations(default: usize) -> usize {
    std::env::var("AGENTTEAM_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Every registry example plus a few hand-picked seeds.
fn corpus() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = ACTIONS
        .iter()
        .flat_map(|a| a.examples.iter().map(|e| e.input.as_bytes().to_vec()))
        .collect();
    for extra in [
        r#"{"channel":"eng","number":1,"title":"t","expected_updated_at":"2026-02-30T00:00:00Z"}"#,
        r#"{"channel":"eng","cursor":"abc","limit":100,"sort":"number_asc"}"#,
        r#"{"parent_task_scope":{"kind":"task","scope_id":"tsk_1"},"tasks":[{"title":"a"}],"idempotency_key":" k "}"#,
        r#"{"channel":"eng","numbers":[1,2,3],"claimed":false}"#,
        r#"{"items":[],"nextCursor":"c","truncated":true}"#,
        r#"{"error":{"code":"task_not_found","message":"m","fieldErrors":{"number":"x"},"suggestedAction":{"tool":"task_list","arguments":{}}}}"#,
        "channel=eng&limit=5&includeSubtasks=true&filters=%7B%22assignedToMe%22%3Atrue%7D",
    ] {
        seeds.push(extra.as_bytes().to_vec());
    }
    seeds
}

fn random_string(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => String::new(),
        // Rarely past every string bound (10,000 is the longest).
        1 if rng.chance(5) => "x".repeat(10_000 + rng.below(2_000)),
        1 => "x".repeat(rng.below(300)),
        2 => "\u{0001}".repeat(rng.below(300)),
        3 => " ".repeat(rng.below(5) + 1),
        4 => format!("@{}", "a".repeat(rng.below(50))),
        _ => TOKENS[rng.below(TOKENS.len())].repeat(rng.below(4) + 1),
    }
}

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 3 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.next() as i64 >> rng.below(64)),
        3 => json!([0.5, -1.0, 1e300, 2147483647.0, 1.0][rng.below(5)]),
        4 | 5 => json!(random_string(rng)),
        6 => Value::Array({
            let most = if rng.chance(10) { 60 } else { 6 };
            (0..rng.below(most))
                .map(|_| random_value(rng, depth + 1))
                .collect()
        }),
        _ => {
            let keys = [
                "title",
                "channel",
                "number",
                "tasks",
                "text",
                "done",
                "kind",
                "scope_id",
                "assignee",
                "labels",
                "x",
                "workspaceId",
                "token",
            ];
            Value::Object(
                (0..rng.below(5))
                    .map(|_| {
                        (
                            keys[rng.below(keys.len())].to_string(),
                            random_value(rng, depth + 1),
                        )
                    })
                    .collect(),
            )
        }
    }
}

/// A random path into `value` and a structural change there.
fn mutate_value(rng: &mut Rng, value: &mut Value) {
    match value {
        Value::Object(map) if !map.is_empty() && rng.chance(70) => {
            let key = map.keys().nth(rng.below(map.len())).cloned().unwrap();
            match rng.below(5) {
                0 => {
                    map.remove(&key);
                }
                1 => {
                    map.insert(key, random_value(rng, 0));
                }
                // Every scalar from here down boxed in an object of its own
                // (`{"title": {"text": …}}`), as a tool that wraps each
                // parameter writes them: each is judged unboxed.
                2 => {
                    for value in map.values_mut() {
                        box_scalars(value);
                    }
                }
                _ => mutate_value(rng, map.get_mut(&key).unwrap()),
            }
        }
        Value::Array(items) if !items.is_empty() && rng.chance(70) => {
            let i = rng.below(items.len());
            match rng.below(4) {
                0 => {
                    items.remove(i);
                }
                1 => {
                    let copy = items[i].clone();
                    for _ in 0..rng.below(60) {
                        items.push(copy.clone());
                    }
                }
                _ => mutate_value(rng, &mut items[i]),
            }
        }
        Value::Object(map) => {
            let names = [
                "channel",
                "query",
                "status",
                "limit",
                "cursor",
                "sort",
                "filters",
                "number",
                "numbers",
                "claimed",
                "summary",
                "subtask_mode",
                "parent",
                "target",
                "idempotency_key",
                "expected_updated_at",
                "description",
                "workflow_run_id",
                "includeSubtasks",
            ];
            map.insert(
                names[rng.below(names.len())].to_string(),
                random_value(rng, 0),
            );
        }
        other => *other = random_value(rng, 0),
    }
}

/// Each scalar in `value`, at any depth, as `{"value": scalar}`.
fn box_scalars(value: &mut Value) {
    match value {
        Value::Object(map) => map.values_mut().for_each(box_scalars),
        Value::Array(items) => items.iter_mut().for_each(box_scalars),
        scalar => *scalar = json!({"value": scalar.take()}),
    }
}

fn mutate_bytes(rng: &mut Rng, bytes: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    for _ in 0..=rng.below(4) {
        let len = bytes.len();
        match rng.below(6) {
            0 if len > 0 => {
                let i = rng.below(len);
                bytes[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(len + 1);
                bytes.insert(i, rng.next() as u8);
            }
            2 if len > 0 => {
                let i = rng.below(len);
                let j = (i + rng.below(16)).min(len);
                bytes.drain(i..j);
            }
            3 => {
                let i = rng.below(len + 1);
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                bytes.splice(i..i, token.iter().copied());
            }
            4 => {
                let other = &corpus[rng.below(corpus.len())];
                let cut = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                bytes.truncate(cut);
                bytes.extend_from_slice(&other[from..]);
            }
            _ => {
                let depth = rng.below(200);
                let mut nested = "[".repeat(depth).into_bytes();
                nested.extend(std::iter::repeat_n(b']', depth));
                let i = rng.below(len + 1);
                bytes.splice(i..i, nested);
            }
        }
    }
}

/// One generated input: a seed mutated structurally (when it parses) or byte-wise.
fn generate(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = generate_unbounded(rng, corpus);
    // Past the CLI's 1 MiB input cap nothing is parsed; 64 KiB keeps the run fast.
    bytes.truncate(64 * 1024);
    bytes
}

fn generate_unbounded(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let seed = &corpus[rng.below(corpus.len())];
    match serde_json::from_slice::<Value>(seed) {
        Ok(mut value) if rng.chance(60) => {
            for _ in 0..=rng.below(3) {
                mutate_value(rng, &mut value);
            }
            if !value.is_object() {
                value = Value::Object(Map::new());
            }
            let mut bytes = value.to_string().into_bytes();
            if rng.chance(10) {
                mutate_bytes(rng, &mut bytes, corpus);
            }
            bytes
        }
        _ => {
            let mut bytes = seed.clone();
            mutate_bytes(rng, &mut bytes, corpus);
            bytes
        }
    }
}

fn run(name: &str, seed: u64, default_iterations: usize, target: fn(&[u8]) -> Tally) {
    let corpus = corpus();
    let mut rng = Rng(seed);
    let n = iterations(default_iterations);
    let started = Instant::now();
    let mut tally = Tally::default();
    // The seeds themselves first: the examples must all be accepted by (a).
    for input in &corpus {
        tally += target(input);
    }
    for _ in 0..n {
        let input = generate(&mut rng, &corpus);
        tally += target(&input);
    }
    eprintln!(
        "fuzz smoke {name}: {} inputs ({} action checks: {} accepted, {} rejected) in {:.2} s, 0 panics",
        n + corpus.len(),
        tally.accepted + tally.rejected,
        tally.accepted,
        tally.rejected,
        started.elapsed().as_secs_f64()
    );
    assert!(
        tally.accepted > 0 && tally.rejected > 0,
        "{name}: the generator must reach both outcomes: {tally:?}"
    );
}

#[test]
fn cli_input_target_never_panics_and_rejects_with_exit_2() {
    run("cli_input", 0x5EED_0001, 3_000, targets::cli_input);
}

#[test]
fn response_body_target_never_panics_and_classifies_by_status() {
    run("response_body", 0x5EED_0002, 20_000, targets::response_body);
}

#[test]
fn runtime_request_target_never_panics_and_rejects_with_4xx() {
    run(
        "runtime_request",
        0x5EED_0003,
        3_000,
        targets::runtime_request,
    );
}
