//! The Agent Runtime wire, written once and used by both ends: how the CLI
//! encodes a validated request and how the runtime decodes it, and the
//! reverse for answers. Model-facing names are snake_case; the wire is
//! camelCase. A success body is the `data` object itself
//! (a page also carries `nextCursor`, a cut result `truncated`); an error
//! body is `{"error": {"code", "message", "retryable", "fieldErrors",
//! "suggestedAction", "details"}}` with the HTTP status its error code registers.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use crate::case;
use crate::error::{Candidate, Failure, SuggestedAction, code};
use crate::registry::{Action, FieldErrors, HiddenContext, Method};

/// Largest request body the runtime reads, and the largest input the CLI sends.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// The most header fields the runtime reads (hyper's own bound, left as it
/// is: setting it moves every request's header parse to the heap), and about
/// the most bytes of request line and headers (its read buffer, checked
/// between reads); past either the HTTP layer answers 431 with no body.
pub const MAX_HEADERS: usize = 100;
pub const MAX_HEAD_BYTES: usize = 400 * 1024;
/// The longest request target (path and query) the HTTP layer parses (the
/// `http` crate's bound); past it the answer is 414 with no body.
pub const MAX_URI_BYTES: usize = 65_534;

/// The longest workflow context id (`workflowRunId`, `callbackEffectId`), in
/// characters (Unicode scalar values), as the OpenAPI document's
/// `maxLength` counts them.
pub const MAX_CONTEXT_ID_CHARS: usize = 128;
/// What a context id sent without an idempotency key is told.
const CONTEXT_WITHOUT_KEY: &str = "Travels only beside `idempotencyKey`, in a keyed create during a workflow callback; without a key it names nothing to check: leave it out.";

/// Hidden workflow context (§13.1), injected by the CLI only beside an `idempotency_key`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkflowContext {
    pub workflow_run_id: Option<String>,
    pub callback_effect_id: Option<String>,
}

/// A request ready to send, minus the base URL and credentials.
#[derive(Debug, Clone, PartialEq)]
pub struct WireRequest {
    pub method: Method,
    /// Path below the API base, with workspace and agent filled in.
    pub path: String,
    pub query: Vec<(String, String)>,
    /// Compact JSON body for POST.
    pub body: Option<Vec<u8>>,
}

/// Encodes validated, canonical snake_case input for `action`.
pub fn encode_request(
    action: &Action,
    workspace_id: &str,
    agent_id: &str,
    input: &Value,
    workflow: &WorkflowContext,
) -> WireRequest {
    let path = action.route_for(workspace_id, agent_id);
    let wire = case::to_wire(input.clone());
    match action.method {
        Method::Get => {
            let query = wire
                .as_object()
                .map(|object| {
                    object
                        .iter()
                        .map(|(k, v)| {
                            let text = match v {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            };
                            (k.clone(), text)
                        })
                        .collect()
                })
                .unwrap_or_default();
            WireRequest {
                method: Method::Get,
                path,
                query,
                body: None,
            }
        }
        Method::Post => {
            let mut body = wire;
            if carries_context(action, input) {
                let object = body.as_object_mut().expect("validated input is an object");
                if let Some(run) = &workflow.workflow_run_id {
                    object.insert("workflowRunId".into(), json!(run));
                }
                if let Some(effect) = &workflow.callback_effect_id {
                    object.insert("callbackEffectId".into(), json!(effect));
                }
            }
            let bytes = serde_json::to_vec(&body).expect("JSON values serialise");
            WireRequest {
                method: Method::Post,
                path,
                query: Vec::new(),
                body: Some(bytes),
            }
        }
    }
}

/// Server side: query pairs to snake_case input, each value typed by the
/// action's input schema (a string stays a string; anything else is JSON),
/// and the problems of the pairs left out of it (a name that is no wire
/// name, a name given twice, a value that is not its type), by path: the
/// caller says them with the input's other problems
/// ([`read_query`]).
pub fn decode_query(action: &Action, pairs: &[(String, String)]) -> (Value, FieldErrors) {
    let schema = action.cached_input_schema();
    let mut object = Map::new();
    let mut errors = FieldErrors::new();
    for (key, text) in pairs {
        let name = case::camel_to_snake(key);
        if case::is_no_wire_name(key) {
            let message = no_wire_name(action, &name, key);
            errors.insert(name, message);
            continue;
        }
        if object.contains_key(&name) {
            errors.insert(name, "Given more than once.".into());
            continue;
        }
        let ty = schema["properties"][&name]["type"]
            .as_str()
            .unwrap_or("string");
        let value = if ty == "string" {
            Value::String(text.clone())
        } else {
            match crate::json::from_str(text) {
                Err(crate::json::Error::DuplicateKey { key, line, column }) => {
                    let message = crate::json::Error::duplicate_message(&key, line, column);
                    errors.insert(name, message);
                    continue;
                }
                Ok(v) => {
                    let (value, misnamed) = case::from_wire_checked(v);
                    for (path, given) in misnamed {
                        let path = format!("{name}/{path}");
                        let message = no_wire_name(action, &path, &given);
                        errors.insert(path, message);
                    }
                    value
                }
                Err(_) => {
                    errors.insert(name, format!("Must be of type {ty}."));
                    continue;
                }
            }
        };
        object.insert(name, value);
    }
    (Value::Object(object), errors)
}

/// Server side: a GET's input as the runtime reads it: decoded from its
/// query pairs and validated exactly as the CLI validates it, every
/// problem in one answer.
pub fn read_query(action: &Action, pairs: &[(String, String)]) -> Result<Value, Failure> {
    let (input, problems) = decode_query(action, pairs);
    with_decoding_problems(crate::validate::validate(action, input), problems)
}

/// Server side: a POST's input and workflow context as the runtime reads
/// them: decoded from its body, the input validated exactly as the CLI
/// validates it, every problem in one answer.
pub fn read_body(action: &Action, bytes: &[u8]) -> Result<(Value, WorkflowContext), Failure> {
    let body = decode_body(action, bytes)?;
    let checked = crate::validate::validate(action, body.input);
    Ok((
        with_decoding_problems(checked, body.problems)?,
        body.workflow,
    ))
}

/// `checked`, the validation of an input decoded with the problems
/// `decoding` (keys left out of it), as one answer that names them all,
/// so one retry can fix every field; where both name a path, the
/// decoding's word stands (its key was left out, so validation may call
/// the field missing).
fn with_decoding_problems(
    checked: Result<Value, Failure>,
    decoding: FieldErrors,
) -> Result<Value, Failure> {
    if decoding.is_empty() {
        return checked;
    }
    let failure = match checked {
        Err(failure) if failure.is(code::INVALID_INPUT) => failure,
        _ => return Err(Failure::invalid_input(decoding)),
    };
    Err(failure.with_field_errors(decoding, |checked, said| {
        match checked.starts_with("Unknown field") {
            // Two keys, one path: `a_b` and `aB` sent side by side.
            true => format!("{said} {checked}"),
            false => said.to_string(),
        }
    }))
}

/// A request body, decoded.
pub struct Body {
    /// Snake_case input, without the keys in `problems`.
    pub input: Value,
    /// The hidden workflow context, where it was sent as it must be.
    pub workflow: WorkflowContext,
    /// Each key decoding left out of `input`, by its path: a key in
    /// snake_case, which is no wire name, and a workflow context id sent
    /// where it may not be or not as a string. The caller says them with
    /// the input's other problems ([`read_body`]).
    pub problems: FieldErrors,
}

/// Whether a request of `action` with `input` carries the hidden workflow
/// context: only beside an `idempotency_key` (product.md's rule, which
/// both the CLI's encoding and the runtime's decoding hold).
fn carries_context(action: &Action, input: &Value) -> bool {
    input.get("idempotency_key").is_some()
        && action
            .hidden_context
            .contains(&HiddenContext::WorkflowRunId)
}

/// Server side: a JSON body to snake_case input plus the hidden workflow
/// context, which only an action that reads it (§13.1) accepts: to any other
/// action `workflowRunId` and `callbackEffectId` are unknown fields, as its
/// OpenAPI schema says, not silently dropped.
pub fn decode_body(action: &Action, bytes: &[u8]) -> Result<Body, Failure> {
    let mut body: Value = crate::json::from_slice(bytes).map_err(|e| {
        let message = match e {
            crate::json::Error::Syntax(e) => format!(
                "The request body is not valid JSON (line {}, column {}): {}.",
                e.line(),
                e.column(),
                crate::json::describe(&e)
            ),
            crate::json::Error::DuplicateKey { key, line, column } => {
                crate::json::Error::duplicate_message(&key, line, column)
            }
        };
        Failure::new(code::INVALID_JSON, message)
    })?;
    let Some(object) = body.as_object_mut() else {
        return Err(Failure::new(
            code::INVALID_JSON,
            "The request body must be one JSON object.",
        ));
    };
    let reads_context = action
        .hidden_context
        .contains(&HiddenContext::WorkflowRunId);
    let sent: Vec<&str> = ["workflowRunId", "callbackEffectId"]
        .into_iter()
        .filter(|name| object.contains_key(*name))
        .collect();
    // Each problem of the context is said with the input's others, not
    // alone: one answer names every field to fix.
    let mut problems = FieldErrors::new();
    let mut take = |name: &str| -> Option<String> {
        let said = match object.remove(name)? {
            _ if !reads_context => "Unknown field.".to_string(),
            Value::String(s) if !s.is_empty() && s.chars().count() <= MAX_CONTEXT_ID_CHARS => {
                return Some(s);
            }
            _ => {
                format!("Must be a non-empty string of at most {MAX_CONTEXT_ID_CHARS} characters.")
            }
        };
        problems.insert(name.to_string(), said);
        None
    };
    let workflow = WorkflowContext {
        workflow_run_id: take("workflowRunId"),
        callback_effect_id: take("callbackEffectId"),
    };
    // A key in snake_case is no wire name: refused, as the OpenAPI
    // schemas say, rather than read as the model-facing name.
    let (input, misnamed) = case::from_wire_checked(body);
    // Context without a key names no callback to check it against: said,
    // not dropped in silence (a broken adapter sees its mistake), whatever
    // its type, since a retry must leave it out. A key sent in snake_case
    // is a key misnamed, said so; the context beside it is not stray.
    let keyed = carries_context(action, &input)
        || misnamed.iter().any(|(path, _)| path == "idempotency_key");
    if reads_context && !keyed {
        for name in ["workflowRunId", "callbackEffectId"] {
            if sent.contains(&name) {
                problems.insert(name.to_string(), CONTEXT_WITHOUT_KEY.to_string());
            }
        }
    }
    problems.extend(
        misnamed
            .into_iter()
            .take(crate::error::MAX_FIELD_ERRORS + 1)
            .map(|(path, given)| {
                let message = no_wire_name(action, &path, &given);
                (crate::redact::tokens(&path), message)
            }),
    );
    Ok(Body {
        input,
        workflow,
        problems,
    })
}

/// The field error for a key in snake_case on the wire
/// ([`case::is_no_wire_name`]) at the model-facing `path`: with the
/// camelCase name to use where the action has that field.
fn no_wire_name(action: &Action, path: &str, given: &str) -> String {
    // The error's key is the field's wire path (fieldErrors keys are
    // camelCase), so the message names the key as it was sent, in plain
    // quotes (a name in backticks is respelled for the wire).
    let redacted = crate::redact::tokens(given);
    let sent = crate::text::clip(&redacted, crate::text::ECHO_LIMIT);
    if crate::validate::names_a_field(action, path) {
        format!(
            "Unknown field '{sent}'; wire fields are camelCase: use `{}`.",
            case::snake_to_camel(given)
        )
    } else {
        format!("Unknown field '{sent}'.")
    }
}

/// The room a success body starts with: a task's detail without sections
/// (about 530 bytes) fits, so a task.get writes its body without growing
/// it (`serde_json::to_string` starts at 128 bytes and doubles), and the
/// buffer stays under glibc's 1,008-byte small-chunk limit, whose larger
/// requests sweep the allocator's free lists (docs/performance.md).
const SUCCESS_ROOM: usize = 1000;

/// Server side: the success body for snake_case `data`, as JSON text.
pub fn success_json(data: &Value) -> String {
    let mut body = Vec::with_capacity(SUCCESS_ROOM);
    serde_json::to_writer(&mut body, &case::Wire(data)).expect("a JSON value always serializes");
    String::from_utf8(body).expect("serde_json writes UTF-8")
}

/// Server side: the error body for a failure, as JSON text. The field
/// names it mentions are spelled as on the wire, like its keys.
pub fn error_json(failure: &Failure) -> String {
    let mut document = failure.to_document();
    respell_fields(&mut document["error"], Direction::ToWire);
    if let Some(errors) = document["error"].get_mut("field_errors") {
        *errors = wire_field_errors(errors.take());
    }
    serde_json::to_string(&case::Wire(&document)).expect("a JSON value always serializes")
}

/// Field errors keyed by their wire paths ([`case::wire_key`]), each key
/// once: two paths that meet there (`a_b` as sent and `aB`, both `aB`)
/// are said under one key, both problems in it, as one object cannot hold
/// a key twice.
fn wire_field_errors(errors: Value) -> Value {
    let Value::Object(errors) = errors else {
        return errors;
    };
    let mut out = serde_json::Map::with_capacity(errors.len());
    for (path, said) in errors {
        let path = case::wire_key(&path).into_owned();
        match (out.get_mut(&path), said) {
            (Some(Value::String(first)), Value::String(more)) => {
                if *first != more {
                    first.push(' ');
                    first.push_str(&more);
                }
            }
            (_, said) => {
                out.insert(path, said);
            }
        }
    }
    Value::Object(out)
}

/// Which way an error document's text is respelled.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// The runtime's answer: model-facing snake_case to the wire's camelCase.
    ToWire,
    /// The CLI's reading of it: back to snake_case.
    FromWire,
}

/// Respells the input fields an error document (`error`) names outside
/// its keys: each field error's path where the message quotes it, each
/// candidate's input path, and, for an unknown field, the names it suggests
/// (the candidate's value and every name its field error quotes), the field
/// errors' own name where the message points at them, and every other
/// mention, quoted or not, of a field name of the registry's schemas in the
/// message and the field errors ([`field_names`]). Keys are renamed with
/// the rest of the document; this is the text, so a wire client is never
/// told to send `parent_task_scope` and an agent never `parentTaskScope`.
/// Other words (a board's name, a member ref) are data and stay as written.
fn respell_fields(error: &mut Value, direction: Direction) {
    let (errors_key, rename): (&str, fn(&str) -> String) = match direction {
        Direction::ToWire => ("field_errors", |key| case::wire_key(key).into_owned()),
        Direction::FromWire => ("fieldErrors", case::camel_to_snake),
    };
    let names = field_names(direction);
    if let Some(message) = error_message(error).filter(|m| m.len() <= RESPELL_MAX_MESSAGE) {
        *message = respell_words(message, names);
    }
    let quoted = |name: &str| format!("`{name}`");
    let unknown: Vec<String> = match error.get_mut(errors_key).and_then(Value::as_object_mut) {
        None => Vec::new(),
        // A server's answer is bounded before it is read (`parse_error_document`
        // keeps 100 field errors of a message of 2,000 bytes); a larger one is
        // not respelled, so its size cannot multiply the work.
        Some(errors) if errors.len() > RESPELL_MAX_FIELDS => Vec::new(),
        Some(errors) => {
            let paths: Vec<String> = errors.keys().cloned().collect();
            if let Some(message) = error_message(error).filter(|m| m.len() <= RESPELL_MAX_MESSAGE) {
                // ("see field_errors" was respelled with the other field
                // names above.)
                let mut text = message.clone();
                for path in &paths {
                    text = text.replace(&quoted(path), &quoted(&rename(path)));
                }
                *message = text;
            }
            let errors = error[errors_key].as_object_mut().expect("checked above");
            let mut unknown = Vec::new();
            for (path, problem) in errors.iter_mut() {
                let Some(text) = problem.as_str().filter(|t| t.len() <= RESPELL_MAX_MESSAGE) else {
                    continue;
                };
                if text.starts_with("Unknown field") {
                    *problem = Value::from(respell_quoted(text, rename));
                    unknown.push(path.clone());
                } else {
                    *problem = Value::from(respell_words(text, names));
                }
            }
            unknown
        }
    };
    if let Some(candidates) = error.get_mut("candidates").and_then(Value::as_array_mut) {
        for candidate in candidates {
            let Some(field) = candidate["field"].as_str().map(str::to_string) else {
                continue;
            };
            if unknown.contains(&field)
                && let Some(name) = candidate["value"].as_str()
            {
                candidate["value"] = Value::from(rename(name));
            }
            candidate["field"] = Value::from(rename(&field));
        }
    }
}

/// The registry's field names whose wire spelling differs from the model's
/// (those with an underscore), each with its other spelling, keyed by the
/// spelling `direction` reads: every property name of every action's input
/// and output schema and of the error document's, and every name of a
/// failure's `details`.
fn field_names(direction: Direction) -> &'static HashMap<String, String> {
    static NAMES: OnceLock<[HashMap<String, String>; 2]> = OnceLock::new();
    let [to_wire, from_wire] = NAMES.get_or_init(|| {
        let mut names = BTreeSet::new();
        for action in crate::registry::ACTIONS {
            property_names(action.cached_input_schema(), &mut names);
            property_names(&action.output_schema(), &mut names);
        }
        property_names(&crate::error::error_schema(), &mut names);
        names.extend(
            crate::error::DETAIL_NAMES
                .iter()
                .map(|name| name.to_string()),
        );
        let to_wire: HashMap<String, String> = names
            .into_iter()
            .filter(|name| name.contains('_'))
            .map(|name| {
                let wire = case::snake_to_camel(&name);
                (name, wire)
            })
            .collect();
        let from_wire = to_wire
            .iter()
            .map(|(s, c)| (c.clone(), s.clone()))
            .collect();
        [to_wire, from_wire]
    });
    match direction {
        Direction::ToWire => to_wire,
        Direction::FromWire => from_wire,
    }
}

/// Adds every key of every `properties` object in `schema` to `names`.
fn property_names(schema: &Value, names: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(properties)) = map.get("properties") {
                names.extend(properties.keys().cloned());
            }
            map.values().for_each(|v| property_names(v, names));
        }
        Value::Array(items) => items.iter().for_each(|v| property_names(v, names)),
        _ => {}
    }
}

/// `text` with each mention of a field that `names` has replaced by its
/// other spelling; values stay as written. A mention is a whole word (a run
/// of ASCII letters, digits and `_`) in prose, or a quoted `` `name` `` that
/// is the name alone. A value is anything else a message quotes, a quote
/// that follows a word introducing one (`board `eng``, `agent `@bob``), a
/// text in double quotes (a summary quoted whole, backticks and all), and
/// any word of a token with `@`, `#` or `:` (a member ref, a target).
fn respell_words(text: &str, names: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(at) = rest.find(['`', '"']) {
        let (prose, from) = rest.split_at(at);
        out.push_str(&respell_prose(prose, names));
        let (mark, inner) = from.split_at(1);
        out.push_str(mark);
        // An unmatched mark quotes the rest: left as written.
        let end = match mark {
            "`" => inner.find('`'),
            _ => closing_quote(inner),
        };
        let Some(end) = end else {
            out.push_str(inner);
            return out;
        };
        let (quoted, after) = (&inner[..end], &inner[end + 1..]);
        let introduced = DATA_INTRODUCERS.contains(&last_word(prose));
        match names.get(quoted) {
            _ if mark == "\"" || introduced => out.push_str(quoted),
            Some(other) => out.push_str(other),
            None if quoted.starts_with(['{', '[']) => out.push_str(&respell_shape(quoted, names)),
            None => out.push_str(quoted),
        }
        out.push_str(mark);
        rest = after;
    }
    out.push_str(&respell_prose(rest, names));
    out
}

/// Where a double-quoted text that `inner` follows ends: its first `"`
/// that no `\` escapes (a quote written as Rust's `{:?}` writes it).
fn closing_quote(inner: &str) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in inner.char_indices() {
        match c {
            '"' if !escaped => return Some(at),
            '\\' => escaped = !escaped,
            _ => escaped = false,
        }
    }
    None
}

/// `text`, written with the model's field names (`expected_updated_at`),
/// with each one spelled as on the wire (`expectedUpdatedAt`), values left
/// as written: the registry's prose as the runtime's OpenAPI document says
/// it.
pub fn respell_to_wire(text: &str) -> String {
    // What the CLI prints under `meta` arrives at the body's top level.
    let mut text = text.to_string();
    for key in WIRE_META {
        text = text.replace(&format!("meta.{key}"), key);
    }
    respell_words(&text, field_names(Direction::ToWire))
}

/// A quoted input shape (`{"kind": …, "scope_id": …}`, a hint the
/// validator writes) with each `"name"` that `names` has respelled; its
/// values are `…`, so every quoted string in it is a field name.
fn respell_shape(shape: &str, names: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(shape.len() + 8);
    for (i, piece) in shape.split('"').enumerate() {
        if i > 0 {
            out.push('"');
        }
        // Odd pieces are inside quotes.
        match names.get(piece) {
            Some(other) if i % 2 == 1 => out.push_str(other),
            _ => out.push_str(piece),
        }
    }
    out
}

/// The words after which a message quotes a value, not a field.
const DATA_INTRODUCERS: &[&str] = &["board", "named", "agent", "target", "than"];

fn last_word(text: &str) -> &str {
    text.trim_end().rsplit(' ').next().unwrap_or_default()
}

/// [`respell_words`] outside quotes: each whole word `names` has, unless
/// its token (the run of non-blank characters around it) holds `@`, `#` or
/// `:`.
fn respell_prose(text: &str, names: &HashMap<String, String>) -> String {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.split_inclusive(char::is_whitespace)
        .map(|token| {
            if token.contains(['@', '#', ':']) {
                return token.to_string();
            }
            let mut out = String::with_capacity(token.len());
            let mut rest = token;
            while let Some(start) = rest.find(is_word) {
                out.push_str(&rest[..start]);
                let word = &rest[start..];
                let end = word.find(|c: char| !is_word(c)).unwrap_or(word.len());
                let (word, after) = word.split_at(end);
                out.push_str(names.get(word).map_or(word, String::as_str));
                rest = after;
            }
            out.push_str(rest);
            out
        })
        .collect()
}

/// The most field errors, and the longest message, that [`respell_fields`]
/// rewrites.
const RESPELL_MAX_FIELDS: usize = 100;
const RESPELL_MAX_MESSAGE: usize = 2_000;

fn error_message(error: &mut Value) -> Option<&mut String> {
    match error.get_mut("message")? {
        Value::String(message) => Some(message),
        _ => None,
    }
}

/// `text` with every `quoted` word renamed.
fn respell_quoted(text: &str, rename: fn(&str) -> String) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                rename(part)
            } else {
                part.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// A decoded success: `data` and `meta`, snake_case.
#[derive(Debug, Clone, PartialEq)]
pub struct Success {
    pub data: Value,
    pub meta: Map<String, Value>,
}

/// The longest cursor `task_list` takes back, as its input schema bounds
/// `cursor`.
const MAX_CURSOR_CHARS: usize = 512;

/// The keys of the CLI's `meta` that the wire carries at a success body's
/// top level, beside the data's own.
const WIRE_META: [&str; 2] = ["next_cursor", "truncated"];

/// Client side: a 2xx body to `data` + `meta`; `nextCursor` and `truncated`
/// (`WIRE_META`) move from the body's top level to `meta`.
pub fn decode_success(bytes: &[u8]) -> Result<Success, Failure> {
    let body: Value = serde_json::from_slice(bytes).map_err(|_| {
        Failure::new(
            code::INVALID_RESPONSE,
            "The server answered success with a body that is not JSON.",
        )
    })?;
    let Value::Object(mut data) = case::from_wire(body) else {
        return Err(Failure::new(
            code::INVALID_RESPONSE,
            "The server answered success with a body that is not a JSON object.",
        ));
    };
    let mut meta = Map::new();
    for key in WIRE_META {
        if let Some(v) = data.remove(key)
            && !v.is_null()
        {
            meta.insert(key.to_string(), v);
        }
    }
    // A cursor is a non-empty string (the input refuses any other): an
    // empty one is read as the last page, a cursor of another type is no
    // answer of this API.
    match meta.get("next_cursor") {
        Some(Value::String(cursor)) if cursor.is_empty() => {
            meta.remove("next_cursor");
        }
        Some(Value::String(cursor))
            if cursor.chars().count() <= MAX_CURSOR_CHARS
                && !cursor.chars().any(char::is_control) => {}
        None => {}
        Some(_) => {
            return Err(Failure::new(
                code::INVALID_RESPONSE,
                format!(
                    "The server answered a page whose nextCursor this CLI could not send back \
                     (not a string of at most {MAX_CURSOR_CHARS} characters without control characters)."
                ),
            ));
        }
    }
    Ok(Success {
        data: Value::Object(data),
        meta,
    })
}

/// Client side: a success status whose body is not an answer of `action`
/// is not a success, and is not printed as `data`: an error document
/// (`{"error": …}`, a field no answer of `action` has: a proxy's or another
/// server's failure sent with the wrong status), or data giving a field the
/// action's `--output-schema` names another JSON type (`{"items": "nope"}`
/// for a list, `{"tasks": 5}` for a create), which no caller could read.
/// A field left out passes (a minimal `{}` is the server's contract to
/// keep, and a reply a test's fake server makes), and so does a field the
/// schema does not name, as the published schema's open objects let it (a
/// later server's additions); values are not held to bounds or formats.
pub fn check_answer(action: &Action, data: &Value) -> Result<(), Failure> {
    let schema = action.cached_data_schema();
    let why = if data.get("error").is_some() && schema["properties"].get("error").is_none() {
        "an error document".to_string()
    } else if let Some((mut path, wanted)) = type_break(schema, data) {
        path.push("data".into());
        path.reverse();
        let wanted = match wanted {
            Value::Array(names) => names
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" or "),
            one => one.as_str().unwrap_or_default().to_string(),
        };
        format!(
            "data that is not {}'s (`{}` is not of type {wanted})",
            action.name(),
            path.join("/")
        )
    } else {
        return Ok(());
    };
    Err(Failure::new(
        code::INVALID_RESPONSE,
        format!(
            "The server answered success with {why}; check that api_url points at an Agent Runtime API of this version."
        ),
    ))
}

/// Where `value` first breaks `schema`'s `type`, followed through
/// `properties` and `items`: the path to it, innermost step first (built
/// only for a break: a good answer costs no allocation), and the type
/// wanted there.
fn type_break<'s>(schema: &'s Value, value: &Value) -> Option<(Vec<String>, &'s Value)> {
    if !crate::validate::is_type(schema, value) {
        return Some((Vec::new(), &schema["type"]));
    }
    let (step, found) = match value {
        Value::Object(fields) => {
            let properties = schema["properties"].as_object()?;
            fields.iter().find_map(|(name, field)| {
                let found = type_break(properties.get(name)?, field)?;
                Some((
                    crate::text::clip(name, crate::text::ECHO_LIMIT).into_owned(),
                    found,
                ))
            })?
        }
        Value::Array(items) => {
            let each = schema.get("items")?;
            items
                .iter()
                .enumerate()
                .find_map(|(i, item)| Some((i.to_string(), type_break(each, item)?)))?
        }
        _ => return None,
    };
    let (mut path, wanted) = found;
    path.push(step);
    Some((path, wanted))
}

/// Client side: a non-2xx answer to a failure. The class comes from the
/// status; the body contributes code, message and details only when it is the
/// documented error shape, so an HTML page or proxy text never leaks through.
pub fn decode_error(status: u16, bytes: &[u8], retry_after_seconds: Option<u64>) -> Failure {
    let class = crate::error::ExitClass::from_http_status(status);
    let fallback = match status {
        401 => Failure::new(code::UNAUTHORIZED, "The server rejected the credentials."),
        403 => Failure::new(
            code::FORBIDDEN,
            "The server refused access with these credentials.",
        ),
        404 => Failure::new(
            code::NOT_FOUND,
            "The server has no such route; check api_url.",
        ),
        405 => Failure::new(
            code::METHOD_NOT_ALLOWED,
            "The server does not accept this method on the route.",
        ),
        408 => Failure::new(code::TIMEOUT, "The server timed out the request."),
        413 => Failure::new(
            code::INPUT_TOO_LARGE,
            "The server refused the request as too large.",
        ),
        429 => Failure::new(code::RATE_LIMITED, "The server is rate limiting requests."),
        500..=599 => Failure::new(
            code::SERVER_ERROR,
            format!("The server failed (HTTP {status})."),
        ),
        _ => Failure::new(
            code::REQUEST_REJECTED,
            format!("The server refused the request (HTTP {status})."),
        ),
    };
    // Retryability follows the transport class, whatever the body claims.
    let retryable = class == crate::error::ExitClass::Transient;
    let mut failure = match parse_error_document(bytes) {
        // A code this CLI knows, whose retryability and exit status the
        // status agrees with: the server's own failure.
        Some(parsed)
            if crate::error::lookup(&parsed.code).is_some_and(|c| {
                let exit = c.exit_status_from_server().unwrap_or(c.class.code());
                c.retryable == retryable && exit == class.code()
            }) =>
        {
            parsed
        }
        // A code this CLI does not know (a newer server's), or one the
        // status contradicts (`task_not_found` with a 500, `forbidden` with
        // a 401): the status's code, so every printed code is one
        // `--error-schema` lists with the retryability and exit status it
        // documents; the server's code stays in details.
        Some(parsed) => {
            let server_code = parsed.code.clone();
            Failure {
                code: fallback.code,
                ..parsed
            }
            .detail("server_code", Value::from(server_code))
        }
        None => fallback,
    };
    failure.class = class;
    failure.http_status = status;
    failure.retryable = retryable;
    withhold_internals(&mut failure);
    // The wait `Retry-After` asks for, on a refusal for the rate or a
    // service unavailable for now, unless the server's own message says
    // when to retry already.
    if let Some(seconds) = retry_after_seconds
        && seconds > 0
        && matches!(status, 429 | 503)
        && !says_when_to_retry(&failure.message)
    {
        let more = format!("Retry after {seconds} s.");
        failure.message = crate::error::followed_by(&failure.message, &more);
    }
    failure
}

/// Said in place of a server's words that show its internals.
const WITHHELD: &str = "The server's own message was withheld: it showed internal details.";

/// A server's message, or field error, that shows its internals (a stack
/// trace, a file and line, an address or URL): replaced by the code's own
/// description, since no message may show stack traces or internal URLs
/// (docs/contract.md §8.2), whichever server answered.
fn withhold_internals(failure: &mut Failure) {
    if shows_internals(&failure.message) {
        let said = crate::error::lookup(&failure.code).map_or("", |c| c.description);
        failure.message = crate::error::followed_by(said, WITHHELD);
    }
    for message in failure.field_errors.values_mut() {
        if shows_internals(message) {
            *message = format!("Refused by the server. {WITHHELD}");
        }
    }
}

/// Whether `text` shows a server's internals: a URL with its host, an IPv4
/// address, or a stack trace's marks (a frame, a source file and line, a
/// panic, a Python traceback, a goroutine). Not a URL's scheme alone
/// ("an http:// or https:// URL", as field errors say).
fn shows_internals(text: &str) -> bool {
    static INTERNALS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(concat!(
            r#"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#`'"<>]+"#,
            r"|\b\d{1,3}(?:\.\d{1,3}){3}\b",
            r"|Traceback \(most recent call last\)|panicked at|goroutine \d+ \[",
            r"|\bat [\w$.<>:]+\([^)\n]*\)|\n\s+at\s",
            r"|\b[\w/.-]+\.(?:rs|py|js|ts|go|java|rb|c|cc|cpp|h|cs|php|kt|scala|exs?):\d+",
            r#"|File "[^"]+", line \d+"#,
        ))
        .expect("the pattern compiles")
    });
    INTERNALS.is_match(text)
}

/// Whether a server's message says when to retry: "retry shortly", or a
/// time after "retry after", "retry in", "try again in" or "retry-after"
/// (a colon or `=` between them too; "Do not retry in a loop" says no time).
fn says_when_to_retry(message: &str) -> bool {
    let lower = message.to_lowercase();
    if lower.contains("retry shortly") || lower.contains("try again shortly") {
        return true;
    }
    // "retry after: 30", "Retry-After 30", "retry after 30 s" alike.
    ["retry after", "retry in", "try again in", "retry-after"]
        .iter()
        .any(|phrase| {
            lower.match_indices(phrase).any(|(at, _)| {
                lower[at + phrase.len()..]
                    .trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == '=')
                    .starts_with(|c: char| c.is_ascii_digit())
            })
        })
}

fn parse_error_document(bytes: &[u8]) -> Option<Failure> {
    let mut body: Value = serde_json::from_slice(bytes).ok()?;
    if let Some(error) = body.get_mut("error") {
        respell_fields(error, Direction::FromWire);
    }
    let error = case::from_wire(body).get_mut("error")?.take();
    let code_name = error.get("code")?.as_str()?;
    let message = error.get("message")?.as_str()?;
    if !crate::case::is_snake_case(code_name) || code_name.len() > 64 || message.len() > 2_000 {
        return None;
    }
    let known = crate::error::lookup(code_name);
    let mut failure = match known {
        Some(c) => Failure::new(*c, message),
        None => Failure {
            code: code_name.to_string(),
            ..Failure::new(code::REQUEST_REJECTED, message)
        },
    };
    if let Some(fields) = error.get("field_errors").and_then(Value::as_object) {
        for (k, v) in fields.iter().take(100) {
            if let Some(s) = v.as_str() {
                failure
                    .field_errors
                    .insert(k.clone(), s.chars().take(500).collect());
            }
        }
    }
    if let Some(action) = error.get("suggested_action")
        && let Ok(action) = serde_json::from_value::<SuggestedAction>(action.clone())
    {
        failure.suggested_action = Some(Box::new(action));
    }
    // Bounded like field_errors: a server's answer never grows the
    // document past what a known failure carries.
    if let Some(details) = error.get("details").and_then(Value::as_object) {
        for (k, v) in details.iter().take(20) {
            if k.len() <= 64 && serde_json::to_vec(v).is_ok_and(|b| b.len() <= 2_000) {
                failure.details.insert(k.clone(), v.clone());
            }
        }
    }
    if let Some(candidates) = error.get("candidates").and_then(Value::as_array) {
        let kept: Vec<Candidate> = candidates
            .iter()
            .filter(|c| serde_json::to_vec(c).is_ok_and(|b| b.len() <= 1_000))
            .filter_map(|c| serde_json::from_value::<Candidate>(c.clone()).ok())
            .take(crate::error::MAX_CANDIDATES)
            .collect();
        failure.candidates = (!kept.is_empty()).then(|| Box::new(kept));
    }
    Some(failure)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;

    /// Two paths that meet on the wire (a key sent raw, `aB`, and one
    /// respelled to it, `a_b`) are one key with both problems, a problem
    /// said twice once; a key sent as no name stays as sent.
    #[test]
    fn field_errors_that_meet_on_the_wire_are_one_key() {
        let errors = wire_field_errors(json!({
            "a_b": "Unknown field 'a_b'.",
            "aB": "Not read.",
            "c_d": "Not read.",
            "cD": "Not read.",
            "__proto__": "Unknown field '__proto__'.",
        }));
        assert_eq!(
            errors,
            json!({
                "aB": "Unknown field 'a_b'. Not read.",
                "cD": "Not read.",
                "__proto__": "Unknown field '__proto__'.",
            })
        );
    }

    #[test]
    fn an_errors_field_names_are_spelled_as_its_keys_are() {
        let failure = Failure::new(
            code::INVALID_INPUT,
            "Invalid input at `parent_task_scop`; see field_errors.",
        )
        .field(
            "parent_task_scop",
            "Unknown field; did you mean `parent_task_scope`?",
        )
        .field("tasks/0/priority", "Must be one of `none`, `low`.")
        .candidates("parent_task_scop", [json!("parent_task_scope")]);
        let wire: Value = serde_json::from_str(&error_json(&failure)).unwrap();
        assert_eq!(
            wire,
            json!({"error": {"code": "invalid_input", "retryable": false,
                "message": "Invalid input at `parentTaskScop`; see fieldErrors.",
                "fieldErrors": {"parentTaskScop": "Unknown field; did you mean `parentTaskScope`?",
                                "tasks/0/priority": "Must be one of `none`, `low`."},
                "candidates": [{"field": "parentTaskScop", "value": "parentTaskScope"}]}})
        );
        // The CLI reads it back in the model's spelling, whole.
        let back = decode_error(422, wire.to_string().as_bytes(), None);
        assert_eq!(back.to_document(), failure.to_document());
        // A board's name is data, whatever its spelling.
        let board = crate::runtime::store::refusals::channel_not_found(
            "my_boarx",
            vec!["my_board".to_string()],
        );
        let wire = error_json(&board);
        assert!(
            wire.contains("`my_boarx`") && wire.contains(r#""value":"my_board""#),
            "{wire}"
        );
        let back = decode_error(404, wire.as_bytes(), None);
        assert_eq!(back.to_document(), board.to_document());
    }

    #[test]
    fn an_answer_is_held_to_its_fields_types_not_to_their_presence() {
        let list = find("task", "list").unwrap();
        for passes in [
            json!({}),
            json!({"items": [], "added_later": 5}),
            json!({"items": [{"number": 1, "title": "t", "extra": [1]}]}),
        ] {
            assert!(check_answer(list, &passes).is_ok(), "{passes}");
        }
        let broken = json!({"items": [{"number": 1}, {"number": "2"}]});
        let failure = check_answer(list, &broken).unwrap_err();
        assert_eq!(failure.code, "invalid_response");
        assert!(
            failure
                .message
                .contains("(`data/items/1/number` is not of type integer)"),
            "{}",
            failure.message
        );
        let failure = check_answer(list, &json!({"items": "nope"})).unwrap_err();
        assert!(
            failure
                .message
                .contains("`data/items` is not of type array"),
            "{}",
            failure.message
        );
    }

    #[test]
    fn a_body_of_many_misnamed_keys_is_answered_with_at_most_max_field_errors() {
        let action = find("task", "get").unwrap();
        let mut body = json!({"channel": "eng", "number": 1});
        let misnamed = (0..5000).map(|i| (format!("key_no_{i}"), json!(1)));
        body.as_object_mut().unwrap().extend(misnamed);
        let failure = read_body(action, body.to_string().as_bytes()).unwrap_err();
        assert_eq!(failure.field_errors.len(), crate::error::MAX_FIELD_ERRORS);
        assert!(failure.message.contains("more than"), "{}", failure.message);
    }

    #[test]
    fn field_names_a_message_mentions_are_spelled_as_on_the_wire_quoted_or_not() {
        let failure = Failure::new(
            code::INVALID_INPUT,
            "Give exactly one locator: `channel` or `parent_task_scope`.",
        )
        .field("channel", "Exclusive with `parent_task_scope`.")
        .field("filters/parent", "leave include_subtasks out or true.")
        .field(
            "expected_updated_at",
            "expected_updated_at is no updated_at task #1 had; see details.current_updated_at.",
        );
        let wire: Value = serde_json::from_str(&error_json(&failure)).unwrap();
        assert_eq!(
            wire["error"],
            json!({"code": "invalid_input", "retryable": false,
                "message": "Give exactly one locator: `channel` or `parentTaskScope`.",
                "fieldErrors": {
                    "channel": "Exclusive with `parentTaskScope`.",
                    "filters/parent": "leave includeSubtasks out or true.",
                    "expectedUpdatedAt": "expectedUpdatedAt is no updatedAt task #1 had; see details.currentUpdatedAt."}})
        );
        let back = decode_error(422, wire.to_string().as_bytes(), None);
        assert_eq!(back.to_document(), failure.to_document());
        // Values stay as written, whatever their spelling: a board, a
        // member ref or a target whose words are field names.
        for failure in [
            crate::runtime::store::refusals::task_not_found("updated_at", 5, &[], &[]),
            crate::runtime::store::refusals::channel_not_found("scope_id", vec!["eng".into()]),
            crate::runtime::store::refusals::target_conflict("#ops:th_1", "updated_at"),
            crate::runtime::store::refusals::assignee_not_found(
                "@created_by",
                "assignee",
                "alice",
                vec!["bob".into()],
            ),
            Failure::new(
                code::TARGET_CONFLICT,
                "target `#scope_id:updatedAt` is on another board than `updated_at`.",
            ),
        ] {
            let wire: Value = serde_json::from_str(&error_json(&failure)).unwrap();
            assert_eq!(wire["error"]["message"], failure.message.as_str(), "{wire}");
            let back = decode_error(failure.http_status, wire.to_string().as_bytes(), None);
            assert_eq!(back.message, failure.message);
            assert_eq!(back.field_errors, failure.field_errors);
        }
        // A summary quoted whole, backticks and all, as written both ways.
        let summary = "set includeSubtasks, `scope_id` and \"updated_at\"";
        let failure = crate::runtime::store::refusals::checkpoint_key_conflict(3, summary);
        let wire: Value = serde_json::from_str(&error_json(&failure)).unwrap();
        let said = wire["error"]["fieldErrors"]["idempotencyKey"]
            .as_str()
            .unwrap();
        assert!(said.contains(&format!("{summary:?}")), "{said}");
        let back = decode_error(failure.http_status, wire.to_string().as_bytes(), None);
        assert_eq!(back.field_errors, failure.field_errors);
        // Words that are not field names stay, in both directions.
        let names = field_names(Direction::ToWire);
        assert_eq!(
            respell_words("board `my_board`, task_x and subtask_mode", names),
            "board `my_board`, task_x and subtaskMode"
        );
        let names = field_names(Direction::FromWire);
        assert_eq!(
            respell_words("`myBoard` and subtaskMode.", names),
            "`myBoard` and subtask_mode."
        );
        // An input shape the validator quotes names its fields as the wire
        // does, and back; a value it quotes stays.
        let failure = Failure::new(code::INVALID_INPUT, "Invalid input.").field(
            "parent_task_scope",
            r#"Must be of type object: `{"kind": …, "scope_id": …}`; not board `{"scope_id"}`."#,
        );
        let wire: Value = serde_json::from_str(&error_json(&failure)).unwrap();
        assert_eq!(
            wire["error"]["fieldErrors"]["parentTaskScope"],
            r#"Must be of type object: `{"kind": …, "scopeId": …}`; not board `{"scope_id"}`."#
        );
        let back = decode_error(422, wire.to_string().as_bytes(), None);
        assert_eq!(back.to_document(), failure.to_document());
    }

    #[test]
    fn an_answer_past_the_bounds_is_not_respelled() {
        let errors: Map<String, Value> = (0..=RESPELL_MAX_FIELDS)
            .map(|i| (format!("fieldNo{i}"), json!("Unknown field.")))
            .collect();
        let mut error = json!({"message": "Bad `fieldNo0`.", "fieldErrors": errors});
        respell_fields(&mut error, Direction::FromWire);
        assert_eq!(error["message"], "Bad `fieldNo0`.");
        let mut error = json!({"message": format!("Bad `fieldNo0`.{}", " ".repeat(RESPELL_MAX_MESSAGE)),
                               "fieldErrors": {"fieldNo0": "Unknown field."}});
        respell_fields(&mut error, Direction::FromWire);
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .starts_with("Bad `fieldNo0`.")
        );
        let mut error =
            json!({"message": "Bad `fieldNo0`.", "fieldErrors": {"fieldNo0": "Unknown field."}});
        respell_fields(&mut error, Direction::FromWire);
        assert_eq!(
            error["message"], "Bad `field_no0`.",
            "within the bounds it is"
        );
    }

    #[test]
    fn a_code_unknown_or_contradicted_by_the_status_gives_way_to_the_statuss() {
        let body = |code: &str| {
            json!({"error": {"code": code, "message": "Said by the server.", "retryable": false}})
                .to_string()
        };
        for (status, server, printed, retryable) in [
            (404, "task_not_found", "task_not_found", false),
            (503, "server_error", "server_error", true),
            (409, "brand_new_code", "request_rejected", false),
            (502, "brand_new_code", "server_error", true),
            (500, "task_not_found", "server_error", true),
            (400, "server_error", "request_rejected", false),
            // Retryable alike, but of another exit status than the status's.
            (401, "forbidden", "unauthorized", false),
            (403, "unauthorized", "forbidden", false),
            (422, "invalid_input", "invalid_input", false),
        ] {
            let f = decode_error(status, body(server).as_bytes(), None);
            assert_eq!(
                (f.code.as_str(), f.retryable),
                (printed, retryable),
                "{status} {server}"
            );
            assert_eq!(f.message, "Said by the server.");
            let known = crate::error::lookup(&f.code).unwrap();
            assert_eq!(known.retryable, f.retryable, "{status} {server}");
            let exit = known
                .exit_status_from_server()
                .unwrap_or(known.class.code());
            assert_eq!(exit, f.class.code(), "{status} {server}");
            let kept = f.details.get("server_code").and_then(Value::as_str);
            assert_eq!(
                kept,
                (printed != server).then_some(server),
                "{status} {server}"
            );
        }
    }

    #[test]
    fn candidates_travel_bounded_and_typed() {
        let many: Vec<Value> = (0..30)
            .map(|i| json!({"field": "channel", "value": format!("b{i}")}))
            .chain([
                json!({"field": "x"}),
                json!({"field": "parent", "value": 3, "title": "t"}),
            ])
            .collect();
        let body = json!({"error": {"code": "channel_not_found", "message": "No board.", "retryable": false, "candidates": many}});
        let f = decode_error(404, body.to_string().as_bytes(), None);
        assert_eq!(f.candidate_list().len(), crate::error::MAX_CANDIDATES);
        assert_eq!(f.candidate_list()[0].value, json!("b0"));
        // A malformed one is dropped, not the document.
        let body = json!({"error": {"code": "parent_not_found", "message": "No parent.", "retryable": false,
            "candidates": [{"field": "x"}, {"field": "parent", "value": 3, "title": "t"}]}});
        let f = decode_error(404, body.to_string().as_bytes(), None);
        assert_eq!(
            f.to_document()["error"]["candidates"],
            json!([{"field": "parent", "value": 3, "title": "t"}])
        );
    }

    #[test]
    fn list_travels_as_a_typed_query_string() {
        let list = find("task", "list").unwrap();
        let input = json!({"channel": "eng", "include_subtasks": true, "limit": 5, "query": "a b", "filters": {"assigned_to_me": true}});
        let req = encode_request(list, "ws 1", "ag", &input, &WorkflowContext::default());
        assert_eq!(
            req.path,
            "/api/v1/workspaces/ws%201/agents/ag/runtime/tasks"
        );
        assert!(req.body.is_none());
        assert!(
            req.query
                .contains(&("includeSubtasks".into(), "true".into()))
        );
        assert!(
            req.query
                .contains(&("filters".into(), r#"{"assignedToMe":true}"#.into()))
        );
        assert_eq!(read_query(list, &req.query).unwrap(), input);
    }

    /// The context ids are counted in characters, as the OpenAPI document's
    /// `maxLength` counts them: 128 of them pass whatever their bytes.
    #[test]
    fn context_ids_are_limited_in_characters() {
        let create = find("task", "create").unwrap();
        let body = |run: &str| {
            serde_json::to_vec(&json!({"channel": "eng", "tasks": [{"title": "t"}],
                "idempotencyKey": "k", "workflowRunId": run, "callbackEffectId": "cb"}))
            .unwrap()
        };
        let longest = "é".repeat(MAX_CONTEXT_ID_CHARS);
        let workflow = decode_body(create, &body(&longest)).unwrap().workflow;
        assert_eq!(workflow.workflow_run_id.as_deref(), Some(longest.as_str()));
        let refused = read_body(create, &body(&format!("{longest}é"))).unwrap_err();
        assert_eq!(
            refused.field_errors.keys().collect::<Vec<_>>(),
            ["workflowRunId"]
        );
        assert!(read_body(create, &body("")).is_err());
    }

    #[test]
    fn workflow_context_rides_only_with_an_idempotency_key() {
        let create = find("task", "create").unwrap();
        let ctx = WorkflowContext {
            workflow_run_id: Some("run".into()),
            callback_effect_id: Some("cb".into()),
        };
        let plain = encode_request(
            create,
            "w",
            "a",
            &json!({"channel": "eng", "tasks": [{"title": "t"}]}),
            &ctx,
        );
        let body: Value = serde_json::from_slice(plain.body.as_ref().unwrap()).unwrap();
        assert_eq!(body, json!({"channel": "eng", "tasks": [{"title": "t"}]}));
        let keyed = encode_request(
            create,
            "w",
            "a",
            &json!({"channel": "eng", "tasks": [{"title": "t"}], "idempotency_key": "k"}),
            &ctx,
        );
        let (input, workflow) = read_body(create, keyed.body.as_ref().unwrap()).unwrap();
        assert_eq!(workflow, ctx);
        assert_eq!(input["idempotency_key"], "k");
        // Context without a key is refused, each id by its name.
        for (body, names) in [
            (
                json!({"channel": "eng", "tasks": [{"title": "t"}], "workflowRunId": "run"}),
                vec!["workflowRunId"],
            ),
            (
                json!({"channel": "eng", "tasks": [{"title": "t"}],
                    "workflowRunId": "run", "callbackEffectId": "cb"}),
                vec!["callbackEffectId", "workflowRunId"],
            ),
        ] {
            let refused = read_body(create, &serde_json::to_vec(&body).unwrap()).unwrap_err();
            assert_eq!(refused.code, "invalid_input");
            assert_eq!(refused.field_errors.keys().collect::<Vec<_>>(), names);
            assert!(refused.field_errors[names[0]].contains("`idempotencyKey`"));
        }
        // An action that does not read the context refuses it as unknown.
        let get = find("task", "get").unwrap();
        let body = br#"{"channel": "eng", "number": 1, "workflowRunId": "run"}"#;
        let refused = read_body(get, body).unwrap_err();
        assert_eq!(refused.code, "invalid_input");
        assert_eq!(refused.field_errors["workflowRunId"], "Unknown field.");
    }

    /// A context id sent wrongly is said beside the input's other problems,
    /// not alone: one answer names every field a retry must fix.
    #[test]
    fn a_misused_context_id_is_said_with_the_inputs_other_problems() {
        let create = find("task", "create").unwrap();
        for (body, expected) in [
            (
                json!({"idempotencyKey": 5, "workflowRunId": 3}),
                vec!["channel", "idempotency_key", "tasks", "workflowRunId"],
            ),
            (
                json!({"channel": "eng", "tasks": [{"title": 1}], "workflowRunId": "run"}),
                vec!["tasks/0/title", "workflowRunId"],
            ),
            (
                json!({"channel": "eng", "tasks": [{"title": "t"}], "idempotency_key": "k",
                    "callbackEffectId": ""}),
                vec!["callbackEffectId", "idempotency_key"],
            ),
        ] {
            let refused = read_body(create, &serde_json::to_vec(&body).unwrap()).unwrap_err();
            assert_eq!(refused.code, "invalid_input", "{body}");
            assert_eq!(
                refused.field_errors.keys().collect::<Vec<_>>(),
                expected,
                "{body}"
            );
        }
        // Without a key, a context id of any type is told to be left out,
        // the one change a retry needs; beside a key misnamed in
        // snake_case, it is no stray (the key's name is the fix).
        let body = json!({"channel": "eng", "tasks": [{"title": "t"}], "workflowRunId": 5});
        let refused = read_body(create, &serde_json::to_vec(&body).unwrap()).unwrap_err();
        assert_eq!(refused.field_errors["workflowRunId"], CONTEXT_WITHOUT_KEY);
        let body = json!({"channel": "eng", "tasks": [{"title": "t"}], "idempotency_key": "k",
            "workflowRunId": "run", "callbackEffectId": "cb"});
        let refused = read_body(create, &serde_json::to_vec(&body).unwrap()).unwrap_err();
        assert_eq!(
            refused.field_errors.keys().collect::<Vec<_>>(),
            ["idempotency_key"]
        );
        let get = find("task", "get").unwrap();
        let refused = read_body(get, br#"{"number": 1, "callbackEffectId": "cb"}"#).unwrap_err();
        assert_eq!(
            refused.field_errors.keys().collect::<Vec<_>>(),
            ["callbackEffectId", "channel"]
        );
    }

    #[test]
    fn html_error_bodies_never_leak() {
        let f = decode_error(
            502,
            b"<html><body>nginx upstream 10.0.0.7 failed</body></html>",
            None,
        );
        assert_eq!(f.code, "server_error");
        assert!(f.retryable);
        assert!(!f.message.contains("nginx"));
    }

    #[test]
    fn documented_error_bodies_are_normalised() {
        let body = br#"{"error": {"code": "task_update_conflict", "message": "Changed.", "retryable": false, "fieldErrors": {"expected_updated_at": "stale"}, "suggestedAction": {"tool": "task_get", "arguments": {"channel": "eng", "number": 3}}, "details": {"currentUpdatedAt": "2026-11-30T09:15:00.123456Z"}}}"#;
        let f = decode_error(409, body, None);
        assert_eq!(f.code, "task_update_conflict");
        assert_eq!(f.class, crate::error::ExitClass::Rejected);
        assert_eq!(
            f.details["current_updated_at"],
            "2026-11-30T09:15:00.123456Z"
        );
        assert_eq!(
            case::to_wire(f.to_document())["error"]["details"]["currentUpdatedAt"],
            "2026-11-30T09:15:00.123456Z"
        );
        assert_eq!(f.suggested_action.unwrap().tool, "task_get");
    }

    #[test]
    fn page_cursor_moves_to_meta() {
        let s = decode_success(br#"{"items": [], "nextCursor": "abc"}"#).unwrap();
        assert_eq!(s.data, json!({"items": []}));
        assert_eq!(s.meta["next_cursor"], "abc");
        assert!(decode_success(b"<html>").is_err());
        // An empty cursor is the last page (the input would refuse it); one
        // of another type is no answer of this API.
        let s = decode_success(br#"{"items": [], "nextCursor": ""}"#).unwrap();
        assert!(s.meta.is_empty(), "{:?}", s.meta);
        let f = decode_success(br#"{"items": [], "nextCursor": 2}"#).unwrap_err();
        assert_eq!(f.code, code::INVALID_RESPONSE.code);
        // One the CLI's own input would refuse is no cursor to follow.
        for cursor in ["c".repeat(513), "a\0b".into()] {
            let body = json!({"items": [], "nextCursor": cursor}).to_string();
            let f = decode_success(body.as_bytes()).unwrap_err();
            assert_eq!(f.code, code::INVALID_RESPONSE.code, "{cursor}");
        }
        let body = json!({"items": [], "nextCursor": "c".repeat(512)}).to_string();
        assert!(decode_success(body.as_bytes()).is_ok());
    }

    /// `Retry-After` is said once: added to a 429 or 503 whose message does
    /// not say when to retry, left out where the server's message does.
    #[test]
    fn the_wait_is_said_once() {
        let doc = |message: &str| {
            json!({"error": {"code": "rate_limited", "message": message, "retryable": true}})
                .to_string()
        };
        let f = decode_error(429, doc("Slow down.").as_bytes(), Some(30));
        assert_eq!(f.message, "Slow down. Retry after 30 s.");
        let f = decode_error(
            429,
            doc("Too many requests; retry after 1000 s.").as_bytes(),
            Some(1000),
        );
        assert_eq!(f.message, "Too many requests; retry after 1000 s.");
        let f = decode_error(503, b"<html>busy</html>", Some(120));
        assert_eq!(
            f.message,
            "The server failed (HTTP 503). Retry after 120 s."
        );
        for (said, again) in [
            ("Too many requests. Try again in 30 seconds.", false),
            ("Rate limited; retry-after: 30s", false),
            ("Slow down. Retry after: 30", false),
            ("Slow down. Retry-After 30", false),
            ("Do not retry in a loop.", true),
        ] {
            let f = decode_error(429, doc(said).as_bytes(), Some(30));
            assert_eq!(f.message.contains("Retry after 30 s."), again, "{said}");
        }
        let f = decode_error(429, doc("Slow down.").as_bytes(), Some(0));
        assert_eq!(f.message, "Slow down.");
        let busy = json!({"error": {"code": "server_error", "message": "The store is busy. Retry shortly.", "retryable": true}});
        let f = decode_error(503, busy.to_string().as_bytes(), Some(1));
        assert_eq!(f.message, "The store is busy. Retry shortly.");
        let f = decode_error(500, b"", Some(5));
        assert!(!f.message.contains("Retry after"), "{}", f.message);
    }

    /// A server's words that show its internals are withheld, in the
    /// message and in field errors, whatever the status; its other words,
    /// the runtime's among them, pass as they are.
    #[test]
    fn a_server_message_that_shows_internals_is_withheld() {
        let doc = |status: u16, code: &str, message: &str| {
            let body = json!({"error": {"code": code, "message": message, "retryable": status >= 500,
                "fieldErrors": {"title": message}}});
            decode_error(status, body.to_string().as_bytes(), None)
        };
        for leak in [
            "token at http://10.0.0.1/internal failed",
            "connect to db.internal failed: postgres://app@db.internal/agentteam",
            "connection to 10.9.8.7:5432 refused",
            "thread 'tokio' panicked at src/store.rs:42:9: boom",
            "NullPointerException\n    at com.acme.Store.get(Store.java:88)",
            "Traceback (most recent call last):\n  File \"/srv/app.py\", line 12, in get",
            "goroutine 7 [running]: main.handler()",
            "failed in handler.go:120",
        ] {
            for (status, code) in [(500, "server_error"), (422, "invalid_input")] {
                let f = doc(status, code, leak);
                assert_eq!(f.code, code, "{leak}");
                let described = crate::error::lookup(code).unwrap().description;
                assert_eq!(f.message, format!("{described} {WITHHELD}"), "{leak}");
                assert_eq!(
                    f.field_errors["title"],
                    format!("Refused by the server. {WITHHELD}")
                );
            }
        }
        for plain in [
            "The store is busy. Retry shortly.",
            "Must be an http:// or https:// URL, without blanks.",
            "No live task #9 on this board; candidates lists the ones it may have meant.",
            "Must be a time in the form a task's updated_at takes (`2026-12-02T08:03:34.466048Z`: date, `T`, time, offset): copy the task's updated_at exactly.",
            "Wait at 1.5 s intervals (version 1.2.3).",
        ] {
            let f = doc(422, "invalid_input", plain);
            assert_eq!(f.message, plain);
            assert_eq!(f.field_errors["title"], plain);
        }
    }
}
