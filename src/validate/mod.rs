//! Input validation, shared by the CLI and the runtime so both refuse exactly
//! the same input with exactly the same field errors: the action's JSON
//! Schema, then its branch rules, then canonicalisation. Every bad field is
//! reported, not just the first.
//!
//! The schema is checked by the validator jsonschema compiled from the
//! action's schema file at build time (src/schemas/): valid input costs
//! one `is_valid` pass; invalid input is checked again for every error, and
//! each error (instance path and keyword) becomes one field error worded
//! here. Rules a flat schema cannot state live in the registry (each
//! action's `check`); the hints for unknown fields (snake_case, the
//! registry's synonyms, the nearest name), the `#` hint and the
//! rewrite of integral numbers (`42.0` → `42`) are here, over the schema.

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Number, Value};

use crate::error::{Failure, MAX_FIELD_ERRORS};
use crate::registry::synonyms::{
    BY_WORDS, ByWords, MISSING_BESIDE, PATTERN_FIXES, SELF_AS_ASSIGNEE, SELF_AS_FILTER,
    VALUE_WORDS, VALUES_MEANT, is_self_word,
};
use crate::registry::{Action, FieldErrors, schema, synonyms};
use crate::schemas;

mod again;
mod oversize;
mod unknown;

pub use oversize::oversized_strings;

use unknown::{ANSWER_COPIED, FIELDS_HERE, Fix, unknown_field};
pub use unknown::{is_type, names_a_field, others_setting};

/// The schema keywords the registry may use (tested), each with its
/// 2020-12 meaning; `Kind` words a violation of each.
pub const KEYWORDS: &[&str] = &[
    "type",
    "title",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "uniqueItems",
];

/// Validates `input` for `action` and returns it canonicalised, or an
/// `invalid_input` failure naming every bad field.
pub fn validate(action: &Action, mut input: Value) -> Result<Value, Failure> {
    let _budget = again::Budget::start();
    if !input.is_object() {
        return Err(Failure::new(
            crate::error::code::INVALID_JSON,
            "Input must be one JSON object.",
        ));
    }
    decode_call_arguments(&mut input);
    let (mut errors, candidates, fixes) = judged(action, &input);
    // An input with more problems than an answer carries is said as found
    // (the answer says it was cut); fixes are worked through for the rest.
    let fixed = if fixes.is_empty() || errors.len() > MAX_FIELD_ERRORS {
        None
    } else {
        said_once_fixed(action, &input, &fixes, &mut errors)
    };
    checked(action, input, errors, candidates, fixed.as_ref())
}

/// A call sent whole whose `arguments` is the JSON text of an object (as
/// OpenAI's tool calls carry it, `{"name", "arguments": "{…}"}`): judged
/// as the call with that object, so it is said and suggested as one. Such
/// an input is never valid (`name` and `arguments` are no fields).
fn decode_call_arguments(input: &mut Value) {
    // OpenAI's whole tool call (`{"type": "function", "function": {"name",
    // "arguments"}}`, or one in `tool_calls`): the call it holds.
    // Gemini's (`{"functionCall": {"name", "args"}}`) likewise.
    let call = input
        .get("tool_calls")
        .and_then(Value::as_array)
        .filter(|calls| calls.len() == 1)
        .map_or(&*input, |calls| &calls[0]);
    let held = ["function", "functionCall", "function_call"]
        .iter()
        .find_map(|key| call.get(key))
        .filter(|function| function.get("name").is_some())
        .cloned();
    if let Some(function) = held {
        *input = function;
    }
    let names_an_action = ["tool", "name", "tool_name"].iter().any(|key| {
        input
            .get(key)
            .and_then(Value::as_str)
            .and_then(crate::registry::find_by_name)
            .is_some()
    });
    let decoded = input
        .get("arguments")
        .and_then(Value::as_str)
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .filter(Value::is_object);
    if let (true, Some(arguments)) = (names_an_action, decoded) {
        input["arguments"] = arguments;
    }
}

/// The schema's problems with `input`, worded (at most one more than an
/// answer carries), the names unknown keys may have meant, and the fixes
/// their messages propose.
fn judged(
    action: &Action,
    input: &Value,
) -> (FieldErrors, NameCandidates, Vec<(String, String, Fix)>) {
    let mut errors = FieldErrors::new();
    let mut candidates = Vec::new();
    let mut fixes = Vec::new();
    for violation in &violations(action, input) {
        if errors.len() > MAX_FIELD_ERRORS {
            break;
        }
        record(
            violation,
            action,
            input,
            &mut errors,
            &mut candidates,
            &mut fixes,
        );
    }
    (errors, candidates, fixes)
}

/// What is wrong inside the values of unknown keys whose messages propose
/// one fix (a rename, an unwrap), said now: the input is judged again as
/// if the fixes were made, and each problem within what they moved is
/// added at its place in the fixed input ("Once renamed: …"), so one retry
/// fixes both levels (`parentTaskScope: {scopeId}` also lacks `kind`).
fn said_once_fixed(
    action: &Action,
    input: &Value,
    fixes: &[(String, String, Fix)],
    errors: &mut FieldErrors,
) -> Option<Value> {
    let mut fixed = input.clone();
    // Each path the fixes put a value at, and what the fix was.
    let mut moved: Vec<(String, &str)> = Vec::new();
    // What the fixed forms still get wrong, by path: a later round (fixes
    // inside what an earlier one moved, `task: [{Attachments}]`) says a
    // place again, better.
    let mut said = FieldErrors::new();
    let mut pending = fixes.to_vec();
    let mut last = FieldErrors::new();
    for _ in 0..FIX_ROUNDS {
        let before = moved.len();
        apply_fixes(action, &mut fixed, &pending, &mut moved);
        if moved.len() == before {
            break;
        }
        let (again, _, next) = judged(action, &fixed);
        for (path, message) in &again {
            let Some((_, how)) = moved.iter().find(|(at, _)| within(path, at)) else {
                continue;
            };
            // A camelCase key inside a renamed value is said with the
            // rename ("Inside it too").
            if !message.starts_with("Unknown field; fields are snake_case") {
                said.insert(path.clone(), format!("{how}: {message}"));
            }
        }
        last = again;
        pending = next;
    }
    if moved.is_empty() {
        return None;
    }
    for (at, _) in &moved {
        // A place the fixes fill is not missing once they are made, nor is
        // what holds it (`tasks`, for a `title` moved into it): what the
        // fixed input says of it (if anything) stands instead.
        let mut place = at.as_str();
        loop {
            if errors.get(place).is_some_and(|m| m.starts_with("Required")) {
                errors.remove(place);
            }
            match place.rsplit_once('/') {
                Some((holder, _)) => place = holder,
                None => break,
            }
        }
        if said.get(at).is_some_and(|m| m.contains(": Required")) && !last.contains_key(at) {
            said.remove(at);
        }
    }
    for (path, message) in said {
        if errors.len() > MAX_FIELD_ERRORS {
            break;
        }
        errors.entry(path).or_insert(message);
    }
    Some(fixed)
}

/// How many times fixes inside what earlier fixes moved are made in turn
/// (`Tasks: [{Attachments: [{mediaType}]}]` takes three).
const FIX_ROUNDS: usize = 3;

/// Makes `fixes` in `fixed`, noting each path a value is put at in `moved`
/// (with how: renamed or unwrapped).
fn apply_fixes(
    action: &Action,
    fixed: &mut Value,
    fixes: &[(String, String, Fix)],
    moved: &mut Vec<(String, &'static str)>,
) {
    for (parent, key, fix) in fixes {
        let Some(object) = object_at(fixed, parent) else {
            continue;
        };
        match fix {
            Fix::Rename(field) if !object.contains_key(field) => {
                if let Some(mut value) = object.remove(key) {
                    // With the camelCase keys inside renamed, as its
                    // message says ("Inside it too").
                    let at = join(parent, field);
                    snake_fields(action, &at, &mut value);
                    object.insert(field.clone(), value);
                    moved.push((at, "Once renamed"));
                }
            }
            Fix::Unwrap => {
                let inner = object.remove(key);
                if let Some(inner) = inner.as_ref().and_then(unknown::wrapped) {
                    for (name, value) in inner {
                        if !object.contains_key(name) {
                            moved.push((join(parent, name), "Once unwrapped"));
                            object.insert(name.clone(), value.clone());
                        }
                    }
                }
            }
            Fix::Reshape(field, value) if !object.contains_key(field) => {
                if object.remove(key).is_some() {
                    let at = join(parent, field);
                    object.insert(field.clone(), value.clone());
                    moved.push((at, "Once rewritten"));
                }
            }
            Fix::Move(home, field, instead) => {
                let Some(value) = object.get(key).cloned() else {
                    continue;
                };
                // Nowhere to put it (a list of several tasks): left as it is.
                let Some((holder, at)) = moved_to(fixed, home, field) else {
                    continue;
                };
                holder.insert(field.clone(), instead.clone().unwrap_or(value));
                moved.push((at, "Once moved"));
                if let Some(object) = object_at(fixed, parent) {
                    object.remove(key);
                }
            }
            Fix::Rename(_) | Fix::Reshape(..) => {}
        }
    }
}

/// The object at input `path` of `fixed` (`""`: the input itself).
fn object_at<'a>(
    fixed: &'a mut Value,
    path: &str,
) -> Option<&'a mut serde_json::Map<String, Value>> {
    let at = if path.is_empty() {
        Some(fixed)
    } else {
        fixed.pointer_mut(&format!("/{}", path.replace('~', "~0")))
    };
    at.and_then(Value::as_object_mut)
}

/// The object at `home` (a path of fields, an item of a list as `*`) that
/// a field moved there goes in, made where it is missing, with the path
/// the field then has: `None` where `home` holds something else, a `*`
/// a list of other than one object, or the field already.
fn moved_to<'a>(
    fixed: &'a mut Value,
    home: &str,
    field: &str,
) -> Option<(&'a mut serde_json::Map<String, Value>, String)> {
    let mut at = fixed;
    let mut path = Vec::new();
    let mut segments = home.split('/').filter(|s| !s.is_empty()).peekable();
    while let Some(segment) = segments.next() {
        at = if segment == "*" {
            let Value::Array(items) = at else {
                return None;
            };
            if items.is_empty() {
                items.push(Value::Object(Default::default()));
            }
            path.push("0".to_string());
            match items.as_mut_slice() {
                [one] => one,
                _ => return None,
            }
        } else {
            let Value::Object(object) = at else {
                return None;
            };
            path.push(segment.to_string());
            // A list where the next segment is an item of it.
            let empty = if segments.peek() == Some(&"*") {
                Value::Array(Vec::new())
            } else {
                Value::Object(Default::default())
            };
            object.entry(segment).or_insert(empty)
        };
    }
    let holder = at.as_object_mut()?;
    if holder.contains_key(field) {
        return None;
    }
    path.push(field.to_string());
    Some((holder, path.join("/")))
}

/// Renames, within `value` at input `path`, each camelCase key whose
/// snake_case spelling is a field there and not given too.
fn snake_fields(action: &Action, path: &str, value: &mut Value) {
    match value {
        Value::Object(object) => {
            let keys: Vec<String> = object.keys().cloned().collect();
            for key in keys {
                let snake = crate::case::camel_to_snake(&key);
                let name = if snake != key
                    && !object.contains_key(&snake)
                    && names_a_field(action, &join(path, &snake))
                {
                    let inner = object.remove(&key).expect("a key of the object");
                    object.insert(snake.clone(), inner);
                    snake
                } else {
                    key
                };
                if let Some(inner) = object.get_mut(&name) {
                    snake_fields(action, &join(path, &name), inner);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                snake_fields(action, &join(path, &i.to_string()), item);
            }
        }
        _ => {}
    }
}

/// [`validate`] of `input` when it holds to the action's schema; `None`,
/// without wording why, when it does not. For the runtime, which reads a
/// `task_get` before its token is judged: a refusal's words (an unknown
/// field's nearest names among them) cost far more than a schema check, so
/// they wait for the token (`server::run`).
pub fn validate_if_schema_holds(action: &Action, input: Value) -> Option<Result<Value, Failure>> {
    let holds = input.is_object() && (schemas::compiled(action).is_valid)(&input);
    holds.then(|| checked(action, input, FieldErrors::new(), Vec::new(), None))
}

/// `input`, whose schema `errors` and `candidates` judged, after the
/// action's branch rules: refused, or canonicalised. With `fixed`, the
/// input as the unknown keys' fixes would make it: a branch rule only the
/// unfixed input breaks (`channel` or `parent_task_scope`, while
/// `parentTaskScope` is there) is not said, and one the fixed input breaks
/// is, as what follows the fixes.
fn checked(
    action: &Action,
    mut input: Value,
    mut errors: FieldErrors,
    candidates: NameCandidates,
    fixed: Option<&Value>,
) -> Result<Value, Failure> {
    match fixed {
        None => (action.check)(&input, &mut errors),
        Some(fixed) => {
            let mut rules = FieldErrors::new();
            (action.check)(&input, &mut rules);
            let mut after = FieldErrors::new();
            (action.check)(fixed, &mut after);
            // As `check` itself writes them: over a schema problem there.
            for (path, message) in rules {
                if after.contains_key(&path) {
                    errors.insert(path, message);
                }
            }
            for (path, message) in after {
                errors
                    .entry(path)
                    .or_insert_with(|| format!("Once fixed: {message}"));
            }
        }
    }
    if holds_nul(&input) {
        nul_characters(&input, "", &mut errors);
    }
    nulls_beside_refused_ones(action, &input, &mut errors);
    if !errors.is_empty() {
        // A call sent whole (its `arguments` an unknown field, so never
        // on a valid input's path). One of another action lacks this
        // action's fields because it is no input of this action: said of
        // the call alone, so no one adds `channel` beside `arguments`.
        let call = unknown::called(&input);
        if let Some(called) = &call
            && called.action.name() != action.name()
        {
            errors.retain(|path, _| path == called.arguments || path == called.name);
        }
        // A path's list items, by the schema: a field named `7` is none.
        let is_list =
            |path: &str| schema_at(action, path).is_some_and(|sub| sub["type"] == "array");
        let mut failure = Failure::invalid_input_of(errors, is_list);
        // Candidates for fields it still names (a repeated one is said once).
        for (field, names) in candidates {
            if failure.field_errors.contains_key(&field) {
                failure = failure.candidates(&field, names.into_iter().map(Value::from));
            }
        }
        // The call itself, to run as it is meant, when its `arguments`
        // hold for the action it names: not a destructive one, which is
        // run only as its own route's input.
        if let Some(called) = call
            && !called.action.destructive()
            && validate(called.action, input[called.arguments].clone()).is_ok()
        {
            failure = failure.suggest(&called.action.name(), input[called.arguments].clone());
        }
        // A call an answer gave, pasted in as a field (`next`): that call,
        // when it reads or is this action's own (a read never suggests a
        // change).
        let pasted = input
            .as_object()
            .into_iter()
            .flatten()
            .find_map(|(key, value)| {
                let pasted = unknown::called(value)?;
                let arguments = value[pasted.arguments].clone();
                (failure.field_errors.contains_key(key)
                    && (pasted.action.read_only() || pasted.action.name() == action.name())
                    && !pasted.action.destructive()
                    && validate(pasted.action, arguments.clone()).is_ok())
                .then_some((pasted.action, arguments))
            });
        if let Some((action, arguments)) = pasted
            && failure.suggested_action.is_none()
        {
            failure = failure.suggest(&action.name(), arguments);
        }
        return Err(found_by_title(
            action,
            found_by_words(action, failure, &input),
            &input,
        ));
    }
    integers(action.cached_input_schema(), &mut input);
    (action.canonicalize)(&mut input);
    Ok(input)
}

/// Whether any string of `value` holds U+0000 (no path built on the way).
fn holds_nul(value: &Value) -> bool {
    match value {
        Value::String(text) => text.contains('\0'),
        Value::Object(object) => object.values().any(holds_nul),
        Value::Array(items) => items.iter().any(holds_nul),
        _ => false,
    }
}

/// Refuses every string of `value` that holds U+0000, by its path: no
/// stored text may (PostgreSQL's `text` cannot hold it), so both engines
/// refuse it alike, before anything is stored or searched.
fn nul_characters(value: &Value, path: &str, errors: &mut FieldErrors) {
    if errors.len() > MAX_FIELD_ERRORS {
        return;
    }
    match value {
        Value::String(text) if text.contains('\0') => {
            errors
                .entry(path.to_string())
                .or_insert_with(|| "Must not contain the NUL character (U+0000).".to_string());
        }
        Value::Object(object) => object
            .iter()
            .for_each(|(name, child)| nul_characters(child, &join(path, name), errors)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .for_each(|(at, item)| nul_characters(item, &join(path, &at.to_string()), errors)),
        _ => {}
    }
}

/// `input`'s schema violations, those of one path in keyword order (the
/// order [`Kind`] lists them in), so the message kept for a path with
/// several is always the same one, whatever order the validator found
/// them in.
fn violations(action: &Action, input: &Value) -> Vec<Violation> {
    let compiled = schemas::compiled(action);
    if (compiled.is_valid)(input) {
        return Vec::new();
    }
    // Enough to find one more bad field than an answer carries, but no
    // more, however much of the input is wrong.
    let mut out: Vec<Violation> = (compiled.iter_errors)(input)
        .take(4 * MAX_FIELD_ERRORS)
        .map(|e| Violation::from_error(&e))
        .collect();
    out.sort_by_key(|v| v.kind.rank());
    out
}

/// One schema violation at an instance path (`/`-joined, `""` for the root).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Violation {
    pub path: String,
    pub kind: Kind,
}

/// What was violated, with what its message needs, in the order keywords
/// are checked at one path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// The allowed type names, in [`TYPE_NAMES`] order.
    Type(Vec<&'static str>),
    Enum(Vec<Value>),
    Minimum(Number),
    Maximum(Number),
    MinLength(u64),
    MaxLength(u64),
    MinItems(u64),
    MaxItems(u64),
    Required(String),
    Pattern(String),
    UniqueItems,
    /// Instance properties `additionalProperties: false` does not allow.
    Additional(Vec<String>),
    /// A keyword outside [`KEYWORDS`] (none is used; tested).
    Other,
}

impl Kind {
    fn rank(&self) -> u8 {
        match self {
            Kind::Type(_) => 0,
            Kind::Enum(_) => 1,
            Kind::Minimum(_) => 2,
            Kind::Maximum(_) => 3,
            Kind::MinLength(_) => 4,
            Kind::MaxLength(_) => 5,
            Kind::MinItems(_) => 6,
            Kind::MaxItems(_) => 7,
            Kind::Required(_) => 8,
            Kind::Pattern(_) => 9,
            Kind::UniqueItems => 10,
            Kind::Additional(_) => 11,
            Kind::Other => 12,
        }
    }
}

impl Violation {
    /// The violation one jsonschema error reports.
    pub(crate) fn from_error(error: &ValidationError<'_>) -> Violation {
        let path = error
            .instance_path()
            .segments()
            .map(|segment| segment.to_string())
            .collect::<Vec<_>>()
            .join("/");
        let number = |limit: &Value| limit.as_number().cloned();
        let kind = match error.kind() {
            ValidationErrorKind::Type { kind } => {
                let names: Vec<String> = match kind {
                    TypeKind::Single(t) => vec![t.to_string()],
                    TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
                };
                Kind::Type(
                    TYPE_NAMES
                        .into_iter()
                        .filter(|t| names.iter().any(|n| n == t))
                        .collect(),
                )
            }
            ValidationErrorKind::Enum { options } => {
                Kind::Enum(options.as_array().cloned().unwrap_or_default())
            }
            ValidationErrorKind::Minimum { limit } => {
                number(limit).map_or(Kind::Other, Kind::Minimum)
            }
            ValidationErrorKind::Maximum { limit } => {
                number(limit).map_or(Kind::Other, Kind::Maximum)
            }
            ValidationErrorKind::MinLength { limit } => Kind::MinLength(*limit),
            ValidationErrorKind::MaxLength { limit } => Kind::MaxLength(*limit),
            ValidationErrorKind::MinItems { limit } => Kind::MinItems(*limit),
            ValidationErrorKind::MaxItems { limit } => Kind::MaxItems(*limit),
            ValidationErrorKind::Required { property } => property
                .as_str()
                .map_or(Kind::Other, |p| Kind::Required(p.to_string())),
            ValidationErrorKind::Pattern { pattern } => Kind::Pattern(pattern.clone()),
            ValidationErrorKind::UniqueItems => Kind::UniqueItems,
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                Kind::Additional(unexpected.clone())
            }
            _ => Kind::Other,
        };
        Violation { path, kind }
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}/{name}")
    }
}

/// JSON Schema's primitive type names, in the order messages list them.
const TYPE_NAMES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// 2^53 - 1, the largest integer every JSON reader holds exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Rewrites integral numbers written with a fraction or exponent (`3.0`,
/// `3e0`) where the schema wants an integer, so every later reader of the
/// validated input sees the integer `3`.
fn integers(schema: &Value, value: &mut Value) {
    let Some(schema) = schema.as_object() else {
        return;
    };
    match value {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            let wants_integer = match schema.get("type") {
                Some(Value::String(t)) => t == "integer",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
                _ => false,
            };
            // Every integral f64 up to 2^53 - 1 (the largest bound the
            // registry sets, JSON's safe integers) is exactly an i64; one
            // past it fails the schema's bound as a number.
            if let Some(f) = n.as_f64()
                && wants_integer
                && f.fract() == 0.0
                && f.abs() <= MAX_SAFE_INTEGER
            {
                *value = Value::from(f as i64);
            }
        }
        Value::Object(object) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            for (name, child) in object.iter_mut() {
                if let Some(sub) = properties.and_then(|p| p.get(name)) {
                    integers(sub, child);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                items.iter_mut().for_each(|item| integers(sub, item));
            }
        }
        _ => {}
    }
}

/// The known names an unknown field may have meant, by the unknown field's path.
type NameCandidates = Vec<(String, Vec<String>)>;

fn record(
    violation: &Violation,
    action: &Action,
    input: &Value,
    errors: &mut FieldErrors,
    candidates: &mut NameCandidates,
    fixes: &mut Vec<(String, String, Fix)>,
) {
    let path = violation.path.as_str();
    match &violation.kind {
        Kind::Additional(unexpected) => {
            // The fields of an object are listed once, at its first unknown
            // field that names none of them.
            let mut listed: Option<String> = None;
            for name in unexpected {
                if errors.len() > MAX_FIELD_ERRORS {
                    break;
                }
                let parent = if path.is_empty() {
                    Some(input)
                } else {
                    input.pointer(&format!("/{}", path.replace('~', "~0")))
                };
                let (mut message, names, fix) = unknown_field(name, path, action, parent);
                if let Some(fix) = fix {
                    fixes.push((path.to_string(), name.clone(), fix));
                }
                // The unknown key is repeated as the error's path and in
                // its siblings' messages: a token pasted as a key is not.
                let shown = crate::redact::tokens(name);
                if message.starts_with(FIELDS_HERE) || message.starts_with(ANSWER_COPIED) {
                    match &listed {
                        Some(first) if message.starts_with(ANSWER_COPIED) => {
                            message =
                                format!("Unknown field; the answer's, as `{first}` says: drop it.");
                        }
                        Some(first) => {
                            message = format!(
                                "Unknown field; the fields here are listed at `{first}` beside it."
                            );
                        }
                        None => listed = Some(crate::text::clip(&shown, 64).into_owned()),
                    }
                }
                let mut at = join(path, &shown);
                // Two hidden keys are two problems: neither overwrites the other.
                let mut n = 2;
                while shown != *name && errors.contains_key(&at) {
                    at = join(path, &format!("{shown} {n}"));
                    n += 1;
                }
                if !names.is_empty() {
                    candidates.push((at.clone(), names));
                }
                errors.insert(at, message);
            }
        }
        Kind::Required(name) => {
            let field = join(path, name);
            // A field of one allowed value says it (`kind`: `task`).
            let only = schema_at(action, &field)
                .and_then(|sub| sub["enum"].as_array())
                .filter(|values| values.len() == 1)
                .map(|values| format!("Required: `\"{name}\": {}`, its one value.", values[0]));
            // An item of a list an update replaces whole (`checklist: [{"done":
            // true}]`, one item ticked): the retry must give every item.
            let whole = path
                .rsplit_once('/')
                .filter(|(_, index)| index.parse::<usize>().is_ok())
                .and_then(|(list, _)| schema_at(action, list))
                .is_some_and(replaced_list);
            // Inside a list's item, what the field is (`url`: where the
            // file lives, an http(s) URL): an item's fields are read less
            // often than the top level's, which every route's help lists.
            let what = (!path.is_empty())
                .then(|| schema_at(action, &field))
                .flatten()
                .and_then(|sub| sub["description"].as_str())
                .map(|description| {
                    let said = description.trim_end_matches("Required.").trim_end();
                    if whole {
                        let said = said.trim_end_matches('.');
                        format!("Required: {said}; the list replaces the whole list, so give every item it is to have, each whole, the kept ones too.")
                    } else {
                        format!("Required: {said}")
                    }
                });
            // At the top, beside the field its value was likely put in.
            let beside = path
                .is_empty()
                .then(|| {
                    MISSING_BESIDE.iter().find(|(of, missing, present, _)| {
                        *of == action.name() && missing == name && input.get(present).is_some()
                    })
                })
                .flatten()
                .map(|(_, _, _, what)| format!("Required: {what}"));
            errors.entry(field).or_insert_with(|| {
                only.or(what)
                    .or(beside)
                    .unwrap_or_else(|| "Required.".to_string())
            });
        }
        kind => {
            errors.entry(path.to_string()).or_insert_with(|| {
                // A word for "nobody" (or null) where the field is cleared
                // another way: say that way, not the value's format
                // (`@none` is a member never found).
                let none_word = given_str(input, path).is_some_and(means_none);
                // `false` for "none" (`blocker: false`), where no boolean goes.
                let null =
                    input_at(input, path).is_some_and(|v| v.is_null() || *v == Value::Bool(false));
                if matches!(kind, Kind::Pattern(_) | Kind::Type(_))
                    && (none_word || null)
                    && let Some(way) = how_to_clear(action, path)
                {
                    let said = if none_word {
                        "A word is a value, not an absence".to_string()
                    } else {
                        describe(kind).trim_end_matches('.').to_string()
                    };
                    return format!("{said}: {way}");
                }
                // A filter's word for its own default (`any`), or for the
                // caller (`me`), which the filter has its own field for.
                if let (Kind::Pattern(_), Some(word)) = (kind, given_str(input, path))
                    && let Some(said) =
                        filter_word(action, path, word).or_else(|| self_word(action, path, word))
                {
                    return said.to_string();
                }
                if let Some(text) = given_str(input, path)
                    && let Some(said) = several_in_one(action, kind, path, text)
                {
                    return said;
                }
                // `"<task_number>"`, `"${PARENT}"`, `"{{steps.create.number}}"`:
                // a template's slot, not a value, said before what the value
                // must be (a number field's own words, a search for the
                // slot's text, are left out: it finds nothing).
                let slot = given_str(input, path)
                    .filter(|_| matches!(kind, Kind::Pattern(_) | Kind::Type(_) | Kind::Enum(_)))
                    .and_then(|text| {
                        let shell = match placeholder(text)? {
                            true => " (a shell expands no `$` inside single quotes)",
                            false => "",
                        };
                        let text = crate::text::clip(&crate::redact::tokens(text.trim()), 64)
                            .into_owned();
                        Some(format!(
                            "`{text}` is a placeholder left unfilled{shell}; write the value it stands for"
                        ))
                    });
                if let (Some(slot), Kind::Type(names)) = (&slot, kind) {
                    return format!(
                        "Must be of type {}: {slot}, from the answer that gave it.",
                        names.join(" or ")
                    );
                }
                let said = match kind {
                    Kind::Pattern(pattern) => {
                        pattern_fix(pattern, input, path).unwrap_or_else(|| describe(kind))
                    }
                    Kind::Type(names) => unboxed(action, input, path, names)
                        .unwrap_or_else(|| wrong_type(action, input, path, names)),
                    Kind::Enum(_) => {
                        with_value_word(action, describe(kind), path, input_at(input, path))
                    }
                    Kind::Minimum(_) | Kind::Maximum(_) => {
                        range(action, path).unwrap_or_else(|| describe(kind))
                    }
                    // How long it is, so a retry knows how much to cut.
                    Kind::MaxLength(limit) => match given_str(input, path) {
                        Some(text) => format!(
                            "Must be at most {limit} characters; this one has {}.",
                            text.chars().count()
                        ),
                        None => describe(kind),
                    },
                    _ => describe(kind),
                };
                if let Some(slot) = slot {
                    return format!("{slot}. {said}");
                }
                // An empty or blank value given to clear a field: say how.
                let emptied = matches!(kind, Kind::MinLength(_))
                    || matches!(kind, Kind::Pattern(p) if p == "\\S")
                    // `parent: 0` (or `-1`) for "no parent".
                    || (matches!(kind, Kind::Minimum(_))
                        && input_at(input, path)
                            .and_then(Value::as_i64)
                            .is_some_and(|n| n <= 0));
                if emptied && nullable(action, path) {
                    format!("{said} `null` clears it.")
                } else {
                    said
                }
            });
        }
    }
}

/// Whether `text` is a template's unfilled slot, not a value: the whole
/// of it `<name>`, `{name}`, `{{name}}` or `%NAME%` (a name of letters,
/// digits, `_`, `.`, `-` and spaces), or a shell's `$NAME`, `${…}` or
/// `$(…)`; and whether a shell would have filled it (`$`). A Slack mention (`<@U…>`, `<#C…>`)
/// is no slot.
fn placeholder(text: &str) -> Option<bool> {
    let text = text.trim();
    let name = |inner: &str| {
        !inner.trim().is_empty()
            && inner.chars().next().is_some_and(char::is_alphabetic)
            && inner
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | ' '))
    };
    let within = |open: &str, close: &str| {
        text.strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
            .is_some_and(|inner| name(inner.trim()))
    };
    // A shell's expansion with its operators (`${NUMBER:-2}`, `$(cat n)`).
    let expansion = |open: &str, close: &str| {
        text.strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
            .is_some_and(|inner| {
                inner
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
            })
    };
    if expansion("${", "}")
        || expansion("$(", ")")
        || text.strip_prefix('$').is_some_and(|rest| {
            name(rest) && !rest.contains(' ') && rest.chars().all(|c| !c.is_lowercase())
        })
    {
        return Some(true);
    }
    (within("<", ">") || within("{{", "}}") || within("{", "}") || within("%", "%"))
        .then_some(false)
}

/// Several values written as one string (`"done,canceled"`, `"@a,@b"`),
/// each of which the field would take alone: told one value goes there,
/// as a list of them is ([`VALUE_SETS`](synonyms::VALUE_SETS) named where
/// one word is all of them).
fn several_in_one(action: &Action, kind: &Kind, path: &str, text: &str) -> Option<String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() < 2 || parts.iter().any(|part| part.is_empty()) {
        return None;
    }
    let fits = |part: &str| match kind {
        Kind::Enum(options) => options.iter().any(|option| option == part),
        Kind::Pattern(pattern) => regex::Regex::new(pattern).is_ok_and(|re| re.is_match(part)),
        _ => false,
    };
    if !parts.iter().all(|part| fits(part)) {
        return None;
    }
    Some(format!(
        "One value, not several in one string: {}",
        one_value_here(action, path, &parts)
    ))
}

/// What several values given where one goes (`values`, as text where
/// each is) are told to write instead: the word that is all of them
/// ([`VALUE_SETS`](synonyms::VALUE_SETS)), a task's one assignee on a
/// write, an item each of the list the field is in, or a call each.
fn one_value_here(action: &Action, path: &str, values: &[&str]) -> String {
    let field = path.rsplit('/').next().unwrap_or_default();
    // Several people for a task's one assignee: a call per person
    // (`--batch`) would leave the last one, or make a task for each. A
    // filter by several is several reads, which a batch makes.
    if field == "assignee" && !action.read_only() {
        return "a task has one assignee; choose one (name the others in `description` if they matter).".into();
    }
    let set = synonyms::VALUE_SETS.iter().find(|(name, at, set, _)| {
        *name == action.name()
            && *at == field
            && !values.is_empty()
            && values.iter().all(|value| set.contains(value))
    });
    if let Some((_, _, set, word)) = set {
        return format!(
            "`{word}` is {} at once (`\"{field}\": \"{word}\"`); for only some of them, one input per line with `--batch`.",
            set.join(", ")
        );
    }
    // A field of one item of a list (a task's `title`): several are
    // several items of that list.
    if let Some((item, _)) = path.rsplit_once('/')
        && let Some((list, index)) = item.rsplit_once('/')
        && index.bytes().all(|b| b.is_ascii_digit())
        && schema_at(action, list).is_some_and(|sub| sub["type"] == "array")
    {
        return format!("one value per item; for several, one item each in `{list}`.");
    }
    "one value per call; for several, one input per line with `--batch`.".into()
}

/// The schema of the field at the input `path` (`tasks/0/assignee`).
fn schema_at<'a>(action: &'a Action, path: &str) -> Option<&'a Value> {
    // An item of a list (`tasks/0/checklist/1`): its list's `items`.
    if let Some((list, last)) = path.rsplit_once('/')
        && !last.is_empty()
        && last.bytes().all(|b| b.is_ascii_digit())
    {
        return schema_at(action, list).map(|list| &list["items"]);
    }
    let wanted = schema_path(path, "");
    let wanted = wanted.trim_end_matches('/');
    let mut props = Vec::new();
    schema::walk_properties(action.cached_input_schema(), "", &mut props);
    props
        .into_iter()
        .find(|(p, _)| *p == wanted)
        .map(|(_, sub)| sub)
}

/// Whether the field at the input `path` may be null.
fn nullable(action: &Action, path: &str) -> bool {
    schema_at(action, path).is_some_and(|sub| {
        sub["type"]
            .as_array()
            .is_some_and(|types| types.iter().any(|t| t == "null"))
    })
}

/// Every parameter sent, the unset ones as `null`, as tool-calling
/// frameworks write them: where a field refuses its `null`, the retry that
/// drops only the refused ones would clear every field beside them whose
/// `null` was left (a description, an assignee). So those are named too,
/// with the choice: leave it out to keep it. Nulls a field takes, alone,
/// clear as asked.
fn nulls_beside_refused_ones(action: &Action, input: &Value, errors: &mut FieldErrors) {
    let parent = |path: &str| {
        path.rsplit_once('/')
            .map_or("", |(parent, _)| parent)
            .to_string()
    };
    let levels: std::collections::BTreeSet<String> = errors
        .keys()
        .filter(|path| input_at(input, path).is_some_and(Value::is_null) && !nullable(action, path))
        .map(|path| parent(path))
        .collect();
    for level in levels {
        let Some(fields) = input_at(input, &level).and_then(Value::as_object) else {
            continue;
        };
        for (name, value) in fields {
            let path = join(&level, name);
            if value.is_null() && nullable(action, &path) {
                errors.entry(path).or_insert_with(|| {
                    "`null` clears this field, and fields here that cannot be cleared are null too, as a tool that sends every parameter writes them: leave it out to keep it, or keep `null` to clear it.".into()
                });
            }
        }
    }
}

/// The words that change part of a list, in a field's name
/// (`labels_add`) or as an item's key (`{"add": "x"}`).
const LIST_CHANGES: [&str; 10] = [
    "add", "append", "remove", "delete", "drop", "push", "insert", "new", "extra", "more",
];

/// One value given in an object of its own, or in a list of one, where
/// the field takes the value (`assignee: {"handle": "@bob"}`, `parent:
/// {"number": 5}`, `channel: ["eng"]`): the value alone, and what the
/// input, so written, is still told of the field (`{"id": "ag_…"}` holds
/// no member ref), so one retry fixes both.
fn unboxed(action: &Action, input: &Value, path: &str, names: &[&str]) -> Option<String> {
    let (inner, boxed) = match input_at(input, path)? {
        Value::Object(object) if object.len() == 1 => {
            let (key, inner) = object.iter().next()?;
            // A change to part of a list an update replaces whole (Jira's
            // `labels: [{"add": "x"}]`): the value alone would replace the
            // items kept.
            let list = path.rsplit_once('/').map_or("", |(list, _)| list);
            if LIST_CHANGES.contains(&key.to_ascii_lowercase().as_str())
                && schema_at(action, list).is_some_and(replaced_list)
            {
                return Some(format!(
                    "Must be of type {}: no item changes part of a list; `{list}` replaces the whole list, so give every item the task is to have, the ones it keeps too (task_get shows them).",
                    names.join(" or ")
                ));
            }
            let key = crate::text::clip(&crate::redact::tokens(key), 64).into_owned();
            (inner, format!("an object (its `{key}`)"))
        }
        Value::Array(items) if items.len() == 1 => (&items[0], "a list".to_string()),
        // An item of another tool's shape (`{"url": …, "title": …}` for a
        // link, `{"name": …, "color": …}` for a label): the key that holds
        // the value, named as the list's item (`url` of `urls`) or so.
        Value::Object(object) => {
            let list = path.rsplit('/').nth(1).unwrap_or_default();
            let item = list.strip_suffix('s').unwrap_or(list);
            let (key, inner) = [item, "url", "href", "name", "value", "text"]
                .iter()
                .find_map(|key| object.get_key_value(*key))?;
            let key = crate::text::clip(&crate::redact::tokens(key), 64).into_owned();
            (inner, format!("an object (its `{key}`)"))
        }
        _ => return None,
    };
    // One value, of a type the field takes (an object or a list never is:
    // it was refused as one).
    let scalar = !inner.is_array() && !inner.is_object();
    if !(scalar && names.iter().any(|name| is_of_type(inner, name))) {
        return None;
    }
    let again = judged_at(action, input, path, inner.clone()).unwrap_or_default();
    let said = format!("Must be of type {}", names.join(" or "));
    let shown = inner.to_string();
    let showable = quotable(&shown) && crate::redact::tokens(&shown) == shown;
    Some(match again.get(path) {
        Some(then) => format!("{said}: the value alone, not {boxed}; so given: {then}"),
        None if showable => format!("{said}: write `{shown}`, the value alone, not {boxed}."),
        None => format!("{said}: the value alone, not {boxed}."),
    })
}

/// A type error's words, with the shape wanted where a list or an object
/// was: `[…]` around one value, the object's required fields, or an enum's
/// values (`subtask_mode: null` is `promote` or `delete`). A string that
/// holds a value of a wanted type (`"2"`, `"true"`, `"[\"bug\"]"`) is
/// shown as that value, written without quotes.
fn wrong_type(action: &Action, input: &Value, path: &str, names: &[&str]) -> String {
    let given = input_at(input, path);
    let said = format!("Must be of type {}", names.join(" or "));
    // `blocker: true`: free text asked, a flag given.
    if given == Some(&Value::Bool(true)) && schema_at(action, path).is_some_and(is_prose) {
        return format!("{said}: the text itself, in words (what it is, not `true`).");
    }
    if let Some(Value::String(text)) = given
        && let Ok(meant) = serde_json::from_str::<Value>(text.trim())
        && names.iter().any(|name| is_of_type(&meant, name))
    {
        // Shown only when it would then be taken (not `0` for a number
        // from 1): what else is wrong with it is said once it is written.
        let shown = meant.to_string();
        if quotable(&shown) && holds_at(action, input, path, &meant) {
            return format!("{said}: write `{shown}` without quotes.");
        }
        return format!("{said}: write the value itself, not a string that holds it.");
    }
    // The strings of the schema's list `key` at `path`, each as `shown`.
    let listed = |key: &str, shown: fn(&str) -> String| -> Vec<String> {
        schema_at(action, path)
            .and_then(|sub| sub[key].as_array())
            .map(|items| items.iter().filter_map(Value::as_str).map(shown).collect())
            .unwrap_or_default()
    };
    if names.contains(&"integer")
        && let Some(number) = given.and_then(Value::as_str).and_then(number_of_ref)
        && holds_at(action, input, path, &Value::from(number))
    {
        return format!("{said}: write `{number}`, the number alone.");
    }
    // A task's address (`https://…/tasks/25`), as a browser shows it.
    if names.contains(&"integer")
        && let Some(number) = given.and_then(Value::as_str).and_then(number_of_url)
        && holds_at(action, input, path, &Value::from(number))
    {
        return format!(
            "{said}: write `{number}`, the number alone, if the address is of task {number} of this board (an address is no number)."
        );
    }
    // A number with its title after it (`#25 Note target`, as a list shows
    // a task): the number alone, not a search for the whole text.
    if names.contains(&"integer")
        && let Some(number) = given.and_then(Value::as_str).and_then(number_then_words)
        && holds_at(action, input, path, &Value::from(number))
    {
        return format!(
            "{said}: write `{number}`, the number alone (the words after it are no part of it)."
        );
    }
    // A range of numbers (`2-3`): no field takes one.
    if names.contains(&"integer")
        && let Some((low, high)) = given.and_then(Value::as_str).and_then(number_range)
    {
        let in_a_list = path
            .rsplit('/')
            .next()
            .is_some_and(|last| last.parse::<usize>().is_ok());
        return if in_a_list {
            format!(
                "{said}: there are no ranges; write each number as an item of the list ({low}, …, {high})."
            )
        } else {
            format!(
                "{said}: one number, and there are no ranges; for several tasks, one input per line with `--batch`."
            )
        };
    }
    // A parent as an object of a board and a number (`{"channel": "ops",
    // "number": 1}`): said as `ops#1` is, since the number alone names
    // that task of this input's board.
    if path.rsplit('/').next() == Some("parent")
        && let Some(Value::Object(parent)) = given
        && let Some(number) = parent.get("number").and_then(Value::as_u64)
        && holds_at(action, input, path, &Value::from(number))
    {
        return format!(
            "{said}: write `{number}`, the number alone, if it is task {number} of this input's board; a parent is on its subtask's own board, and no task moves to another."
        );
    }
    // A board and a number in one (`ops#5`, a tracker's key `OPS-5`).
    if names.contains(&"integer")
        && let Some((board, number)) = given.and_then(Value::as_str).and_then(board_and_number)
        && holds_at(action, input, path, &Value::from(number))
    {
        // A parent is on the task's own board: moving `ops` into `channel`
        // would name another task to change, or put the new one elsewhere.
        // The board of the input itself (`DEMO-1` on `demo`): the number.
        let this_board = input.get("channel").and_then(Value::as_str);
        if path.rsplit('/').next() == Some("parent")
            && this_board.is_some_and(|channel| channel.eq_ignore_ascii_case(&board))
        {
            return format!("{said}: write `{number}`, the number alone.");
        }
        if path.rsplit('/').next() == Some("parent") {
            return format!(
                "{said}: write `{number}`, the number alone, if it is task {number} of this input's board; a parent is on its subtask's own board, and no task moves to another (`{board}` is another board)."
            );
        }
        // A tracker's word for its items (`TASK-3`, `ISSUE-3`) names no
        // board.
        if GENERIC_KEYS.contains(&board.as_str()) {
            return format!("{said}: write `{number}`, the number alone.");
        }
        return format!(
            "{said}: write `{number}`, the number alone; the board, `{board}`, goes in `channel`."
        );
    }
    // A title or an id where a number goes (`number: "login bug"`).
    if names.contains(&"integer")
        && let Some((row, is_id)) = given.and_then(|given| by_words(path, given))
    {
        // A create's parent by its scope_id has a locator of its own.
        if is_id && path == "parent" && names_a_field(action, "parent_task_scope") {
            return format!(
                "{said}: {} Or, in place of `channel` and `parent`, the scope_id as `\"parent_task_scope\": {{\"kind\": \"task\", \"scope_id\": …}}`.",
                row.said_of_id
            );
        }
        return format!("{said}: {}", if is_id { row.said_of_id } else { row.said });
    }
    // A number with a fraction (`2.1`, as an outline numbers the first
    // subtask of task 2): a task's number is whole, and a subtask has one
    // of its own on the board, which its parent's get lists.
    if names.contains(&"integer")
        && let Some(whole) = given.and_then(whole_part)
    {
        let task_number = matches!(
            path.rsplit('/').find(|part| part.parse::<usize>().is_err()),
            Some("number" | "numbers" | "parent")
        );
        return if task_number && whole >= 1 {
            format!(
                "{said}: a whole number. A subtask has a number of its own on the board: `task_get` of task {whole} lists its subtasks (`subtasks`) with theirs."
            )
        } else {
            format!("{said}: a whole number.")
        };
    }
    // A time or an id given in another type (`expected_updated_at` as a
    // Unix time): what the value must be, in words.
    if let Some(fix) = value_fix(path) {
        return format!("{said}: {}", fix.trim_start_matches("Must be "));
    }
    // Several values where one goes (`channel: ["eng", "ops"]`, `number:
    // [1, 2]`): one per call. But points of one text (a description or a
    // checkpoint's summary as a list) are one value: a call per item would
    // make several checkpoints, or keep only the last description.
    if let Some(Value::Array(items)) = given
        && items.len() > 1
        && !names.contains(&"array")
        && !names.contains(&"object")
    {
        let texts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
        let all_texts = texts.len() == items.len();
        if all_texts && schema_at(action, path).is_some_and(is_prose) {
            return format!("{said}: one text; join the items into it, a line each.");
        }
        // A list inside the list (`numbers: [[2, 3]]`): its items go in
        // the list itself.
        if let Some((list, index)) = path.rsplit_once('/')
            && index.bytes().all(|b| b.is_ascii_digit())
            && let Some(Value::Array(outer)) = input_at(input, list)
        {
            let flat: Vec<Value> = outer
                .iter()
                .flat_map(|item| match item {
                    Value::Array(inner) => inner.clone(),
                    other => vec![other.clone()],
                })
                .collect();
            let flat = Value::Array(flat);
            let shown = flat.to_string();
            return match quotable(&shown) && holds_at(action, input, list, &flat) {
                true => format!(
                    "{said}: a list inside the list; write `{shown}`, its items in `{list}` itself."
                ),
                false => {
                    format!("{said}: a list inside the list; write its items in `{list}` itself.")
                }
            };
        }
        let texts = if all_texts { &texts[..] } else { &[] };
        return format!("{said}: {}", one_value_here(action, path, texts));
    }
    match names {
        ["array"] => match listed_as_meant(action, path, given).filter(|shown| {
            quotable(shown)
                && serde_json::from_str(shown)
                    .is_ok_and(|list| holds_at(action, input, path, &list))
        }) {
            // On an update, the list replaces the task's: said, so the
            // retry keeps the items it means to keep.
            Some(shown) if schema_at(action, path).is_some_and(replaced_list) => format!(
                "{said}: write `{shown}`, with every item the task is to keep too: the list replaces its current one."
            ),
            Some(shown) => format!("{said}: write `{shown}`."),
            // A list wrapped in an object (`{"items": […]}`, as some APIs
            // answer one): the list itself.
            None if let Some(Value::Object(wrapper)) = given
                && wrapper.len() == 1
                && wrapper.iter().all(|(key, value)| {
                    value.is_array() && LIST_HOLDERS.contains(&key.to_lowercase().as_str())
                }) =>
            {
                let key = wrapper
                    .keys()
                    .next()
                    .map(String::as_str)
                    .unwrap_or_default();
                let replaces = match schema_at(action, path).is_some_and(replaced_list) {
                    true => "; it replaces the current list, so the items kept go in it too",
                    false => "",
                };
                // What the list itself is then told (`numbers: {"items": []}`:
                // an empty list is refused too), so one retry fixes both.
                let then = wrapper
                    .values()
                    .next()
                    .and_then(|list| judged_at(action, input, path, list.clone()))
                    .and_then(|errors| errors.get(path).cloned())
                    .map(|then| format!(" So given: {then}"))
                    .unwrap_or_default();
                format!(
                    "{said}: the list itself, not an object around it: write what `{}` holds as the value{replaces}.{then}",
                    crate::text::clip(&crate::redact::tokens(key), 64)
                )
            }
            // An object of changes (`{"add": […]}`) to a list an update
            // replaces: put in a list, it would replace the items kept.
            None if given.is_some_and(Value::is_object)
                && schema_at(action, path).is_some_and(replaced_list) =>
            {
                format!(
                    "{said}: the whole new list, the items kept too; it replaces the current one, which a read shows."
                )
            }
            None => match (given, item_type(action, path)) {
                // `numbers: "all"`: a list has no word for every item.
                (Some(Value::String(word)), Some("integer"))
                    if ALL_WORDS.contains(&word.trim().to_lowercase().as_str()) =>
                {
                    format!(
                        "{said}: there is no `{}`; list each number (`[1, 2]`); task_list finds them.",
                        word.trim()
                    )
                }
                // A text where a list of objects of one required text goes
                // (`tasks: "Fix it"`, a checklist as its words): that list.
                (Some(Value::String(text)), Some("object"))
                    if let Some(meant) = object_of_one_text(action, &format!("{path}/0"), text)
                        .map(|item| Value::Array(vec![item]))
                        .filter(|meant| holds_at(action, input, path, meant)) =>
                {
                    let shown = meant.to_string();
                    let shown = match quotable(&shown) && crate::redact::tokens(&shown) == shown {
                        true => format!("`{shown}`"),
                        false => format!(
                            "a list of objects, each with its `{}`",
                            object_key(&meant[0])
                        ),
                    };
                    match schema_at(action, path).is_some_and(replaced_list) {
                        true => format!(
                            "{said}: write {shown}, an object per item, every item the task is to keep too: the list replaces its current one."
                        ),
                        false => format!("{said}: write {shown}, an object per item."),
                    }
                }
                // A value no item could be: a list of it would be refused too.
                (Some(given), Some(item)) if !given.is_object() && !is_of_type(given, item) => {
                    format!("{said}: a list of {item}s, `[…]`.")
                }
                // The list a retry would write is refused too (`labels:
                // "-bug"`): what is wrong inside it, said now.
                _ => match listed_as_meant(action, path, given)
                    .and_then(|shown| wrong_once_listed(action, input, path, &shown))
                {
                    Some(inside) => {
                        format!("{said}; put the value in a list, `[…]`, and: {inside}")
                    }
                    None => format!("{said}; put the value in a list: `[…]`."),
                },
            },
        },
        // `claimed: "yes"`: JSON's own two values.
        ["boolean"] if given.is_some_and(|g| g.is_string() || g.is_number()) => {
            format!("{said}: `true` or `false`, without quotes.")
        }
        ["object"] => match listed("required", |n| format!("\"{n}\": …")) {
            // A search box's filters (`"label:bug"`): the object they mean.
            _ if let Some(meant) = given
                .and_then(|given| object_of_pairs(action, path, given))
                .filter(|meant| holds_at(action, input, path, meant)) =>
            {
                format!("{said}: write `{meant}`.")
            }
            // A text where an object of one required text goes (a
            // checklist item written as its words): that object.
            _ if let Some(meant) = given
                .and_then(Value::as_str)
                .and_then(|text| object_of_one_text(action, path, text))
                .filter(|meant| holds_at(action, input, path, meant)) =>
            {
                let shown = meant.to_string();
                match quotable(&shown) && crate::redact::tokens(&shown) == shown {
                    true => format!("{said}: write `{shown}`."),
                    false => format!("{said}: the text as its `{}`.", object_key(&meant)),
                }
            }
            required if required.is_empty() => format!("{said}."),
            required => format!("{said}: `{{{}}}`.", required.join(", ")),
        },
        _ => match listed("enum", |v| format!("`{v}`")) {
            values if values.is_empty() => format!("{said}."),
            values => with_value_word(
                action,
                format!("{said}: one of {}.", values.join(", ")),
                path,
                given,
            ),
        },
    }
}

/// `{"text": text}` where the object at `path` requires exactly one field,
/// a text (a checklist item's `text`).
fn object_of_one_text(action: &Action, path: &str, text: &str) -> Option<Value> {
    let schema = schema_at(action, path)?;
    let [required] = schema["required"].as_array()?.as_slice() else {
        return None;
    };
    let field = required.as_str()?;
    (schema["properties"][field]["type"] == "string").then(|| serde_json::json!({ field: text }))
}

/// The first key of an object value (`text` of `{"text": …}`).
fn object_key(value: &Value) -> &str {
    value
        .as_object()
        .and_then(|object| object.keys().next())
        .map_or("", String::as_str)
}

/// The object a text of `key:value` pairs means where an object goes
/// (`"label:bug assignee:@bob"`, or a list of such texts, as a search
/// box's filters are written): each key a field of that object, by its
/// name or a synonym ([`FIELDS`](crate::registry::synonyms::FIELDS)),
/// each value of the field's type, a list's values gathered. None unless
/// every pair is one.
fn object_of_pairs(action: &Action, path: &str, given: &Value) -> Option<Value> {
    let texts: Vec<&str> = match given {
        Value::String(text) => vec![text.as_str()],
        Value::Array(items) => items.iter().map(Value::as_str).collect::<Option<_>>()?,
        _ => return None,
    };
    let properties = schema_at(action, path)?["properties"].as_object()?;
    let mut meant = serde_json::Map::new();
    let pairs = texts
        .iter()
        .flat_map(|text| text.split(|c: char| c.is_whitespace() || c == ','))
        .filter(|pair| !pair.is_empty());
    for pair in pairs {
        let (key, value) = pair.split_once([':', '='])?;
        let key = crate::case::camel_to_snake(key.trim()).to_ascii_lowercase();
        let field = if properties.contains_key(&key) {
            key
        } else {
            crate::registry::synonyms::FIELDS
                .iter()
                .find(|(word, field, _)| *word == key && properties.contains_key(*field))
                .map(|(_, field, _)| field.to_string())?
        };
        let schema = &properties[&field];
        let item = if schema["type"] == "array" {
            &schema["items"]
        } else {
            schema
        };
        let value = match item["type"].as_str()? {
            "string" if !value.is_empty() => Value::String(value.to_string()),
            "integer" => Value::from(value.parse::<i64>().ok()?),
            "boolean" => Value::Bool(value.parse().ok()?),
            _ => return None,
        };
        match (schema["type"] == "array", meant.get_mut(&field)) {
            (true, Some(Value::Array(values))) => values.push(value),
            (true, None) => {
                meant.insert(field, Value::Array(vec![value]));
            }
            (false, None) => {
                meant.insert(field, value);
            }
            _ => return None,
        }
    }
    (!meant.is_empty()).then_some(Value::Object(meant))
}

/// Whether `schema` is free text of some length (a description, a
/// summary, a blocker): no pattern but "not blank", room for paragraphs.
fn is_prose(schema: &Value) -> bool {
    const PARAGRAPHS: u64 = 1000;
    schema["maxLength"]
        .as_u64()
        .is_some_and(|max| max >= PARAGRAPHS)
        && schema
            .get("pattern")
            .is_none_or(|pattern| pattern.as_str() == Some(r"\S"))
}

/// Both bounds of a small range (`limit`: 1 to 100), for a value out of
/// it: `-1` or `0` means "all" or "none" as often as a bound, so the whole
/// range is said. `None` for a range whose top is no number a caller picks
/// (a task number's).
fn range(action: &Action, path: &str) -> Option<String> {
    const SMALL: u64 = 10_000;
    let schema = schema_at(action, path)?;
    let (low, high) = (schema["minimum"].as_i64()?, schema["maximum"].as_u64()?);
    if high > SMALL {
        return None;
    }
    Some(format!("Must be from {low} to {high}."))
}

/// An enum's message with what the registry says of the value given
/// ([`VALUE_WORDS`]): `closed` is two statuses.
fn with_value_word(action: &Action, said: String, path: &str, given: Option<&Value>) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    // A number is read as its digits (`"priority": 1`).
    let text = given.and_then(|given| match given {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    });
    let word = text.as_deref().map(|w| w.trim().to_ascii_lowercase());
    let hint = VALUE_WORDS
        .iter()
        .find(|(field, of, _)| *field == name && word.as_deref() == Some(*of));
    let meant = text.and_then(|text| value_meant(action, path, &text));
    match (hint, meant) {
        (Some((_, _, hint)), _) => format!("{} {hint}", said.trim_end()),
        // Only its spelling differs: the value is sure, the list is noise.
        (None, Some(Meant::Spelled(value))) => format!("Must be written `{value}`."),
        (None, Some(Meant::Word(value))) => format!("{} Write `{value}`.", said.trim_end()),
        (None, None) => said,
    }
}

/// A value of an enum field that a text given for it means.
pub(crate) enum Meant {
    /// The value, but for case, spaces, dashes and underscores.
    Spelled(String),
    /// The value another tracker's word ([`VALUES_MEANT`]) stands for.
    Word(String),
}

/// The value of the enum field at input `path` that `text` means: one
/// written in another case or with spaces or dashes (`In Review`,
/// `in-progress`), or another tracker's word for it ([`VALUES_MEANT`]:
/// `completed`, `wip`, `P1`).
pub(crate) fn value_meant(action: &Action, path: &str, text: &str) -> Option<Meant> {
    let values: Vec<&str> = schema_at(action, path)?["enum"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    // The words, lowercase, one `_` between them (`In Review`: `in_review`).
    let words: Vec<String> = text
        .trim()
        .to_lowercase()
        .split([' ', '-', '_'])
        .filter(|part| !part.is_empty())
        .map(str::to_string)
        .collect();
    let (joined, letters) = (words.join("_"), words.concat());
    if let Some(value) = values.iter().find(|v| v.replace('_', "") == letters) {
        return Some(Meant::Spelled(value.to_string()));
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    VALUES_MEANT
        .iter()
        .find(|(field, word, _)| *field == name && *word == joined)
        .map(|(_, _, value)| *value)
        .filter(|value| values.contains(value))
        .map(|value| Meant::Word(value.to_string()))
}

/// A board and a number written as one (`ops#5`, `OPS-5`): the board's
/// name as boards are written (lowercase), and the number.
fn board_and_number(text: &str) -> Option<(String, u64)> {
    let text = text.trim();
    let (board, digits) = text.split_once('#').or_else(|| text.rsplit_once('-'))?;
    let board_like = board
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && board
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let digits_only = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    // `2-3` is a range of numbers, not task 3 of board `2`.
    if !(board_like && digits_only) || number_range(text).is_some() {
        return None;
    }
    Some((board.to_ascii_lowercase(), digits.parse().ok()?))
}

/// Words of a command line written where an action's input goes (`get
/// 2`, `get '#2'`, `get demo#2`, `get demo 2`, `list demo`): the input
/// they mean, a board as `channel` and a task's number as `number`, each
/// only where `action` has that field. `None` when they read as no such
/// input.
pub fn input_of_words(action: &Action, words: &[&str]) -> Option<serde_json::Map<String, Value>> {
    let number = |word: &str| number_of_ref(word).filter(|_| names_a_field(action, "number"));
    let board = |word: &str| board_name(word).filter(|_| names_a_field(action, "channel"));
    let mut input = serde_json::Map::new();
    match words {
        [word] => {
            if let Some(number) = number(word) {
                input.insert("number".into(), number.into());
            } else if let Some((board, number)) =
                board_and_number(word).filter(|_| names_a_field(action, "number"))
            {
                if !GENERIC_KEYS.contains(&board.as_str()) && names_a_field(action, "channel") {
                    input.insert("channel".into(), board.into());
                }
                input.insert("number".into(), number.into());
            } else {
                input.insert("channel".into(), board(word)?.into());
            }
        }
        [board_word, number_word] => {
            input.insert("channel".into(), board(board_word)?.into());
            input.insert("number".into(), number(number_word)?.into());
        }
        _ => return None,
    }
    Some(input)
}

/// A word that reads as a board's name (`demo`, `#Ops-team`): the name as
/// boards are written, lowercase and without `#`. A number is no board.
fn board_name(word: &str) -> Option<String> {
    let word = word.trim();
    let name = word.strip_prefix('#').unwrap_or(word).to_ascii_lowercase();
    let board = regex::Regex::new(crate::registry::common::CHANNEL_PATTERN).ok()?;
    (board.is_match(&name) && name.chars().any(|c| c.is_ascii_alphabetic())).then_some(name)
}

/// The words a tracker's keys start with for any item (`TASK-3`), which
/// name no board.
const GENERIC_KEYS: [&str; 6] = ["task", "issue", "ticket", "bug", "story", "item"];

/// The whole part of a number with a fraction, or of a string that is one
/// (`2.1`, `"2.1"`): 2. None for a whole number or anything else.
fn whole_part(value: &Value) -> Option<i64> {
    let number = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(text) if text.contains('.') => text.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    (number.is_finite() && number.fract() != 0.0 && number.abs() < 1e15)
        .then(|| number.trunc() as i64)
}

/// A task's number followed by words (`#25 Note target`, `25: Note
/// target`): the number.
fn number_then_words(text: &str) -> Option<u64> {
    let text = text.trim();
    let text = text.strip_prefix('#').unwrap_or(text);
    let end = text.find(|c: char| !c.is_ascii_digit())?;
    let (digits, after) = text.split_at(end);
    // The words begin after a space or a sign (`25 Note`, `25: Note`),
    // never straight after the digits (`2fa login` is a title).
    let words = after.trim_start_matches(|c: char| c.is_whitespace() || ":-–—.)([".contains(c));
    let parted = words.len() < after.len();
    (!digits.is_empty() && parted && words.starts_with(char::is_alphabetic))
        .then(|| digits.parse().ok())
        .flatten()
}

/// A range of task numbers written as text (`1-3`, `1–3`, `1..3`): its
/// first and last number, the first below the last.
fn number_range(text: &str) -> Option<(u64, u64)> {
    let text = text.trim();
    let (low, high) = ["..", "-", "–"]
        .iter()
        .find_map(|sep| text.split_once(sep))?;
    let number = |part: &str| -> Option<u64> {
        let part = part.trim();
        let part = part.strip_prefix('#').unwrap_or(part);
        (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse().ok())
            .flatten()
    };
    let (low, high) = (number(low)?, number(high)?);
    (low < high).then_some((low, high))
}

/// Whether `value`, put at input `path` in place of what is there, would
/// be taken: no schema problem and no branch rule at `path` or within it.
/// A value an error shows to write must be one that then validates
/// (`"0"` for a task number is not told to write `0`, below its minimum).
fn holds_at(action: &Action, input: &Value, path: &str, value: &Value) -> bool {
    if !again::may_judge(input) {
        return false;
    }
    let mut fixed = input.clone();
    let Some(slot) = fixed.pointer_mut(&format!("/{path}")) else {
        return false;
    };
    *slot = value.clone();
    if violations(action, &fixed)
        .iter()
        .any(|v| within(&v.path, path))
    {
        return false;
    }
    let mut rules = FieldErrors::new();
    (action.check)(&fixed, &mut rules);
    !rules.keys().any(|at| within(at, path))
}

/// Whether input path `at` is `path` or inside it.
fn within(at: &str, path: &str) -> bool {
    at == path
        || at
            .strip_prefix(path)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// What the validator says inside `path` once the list `shown` is put
/// there: the first problem a retry that only wrapped the value would meet.
fn wrong_once_listed(action: &Action, input: &Value, path: &str, shown: &str) -> Option<String> {
    let list = serde_json::from_str(shown).ok()?;
    judged_at(action, input, path, list)?.into_values().next()
}

/// What a retry that made only one change, `value` at `path`, would be
/// told at and below `path`: the schema's problems there, worded as any
/// are, or else the action's rules there. `None` inside another such
/// judging, or with the validation's budget spent ([`again::judging`]).
fn judged_at(action: &Action, input: &Value, path: &str, value: Value) -> Option<FieldErrors> {
    let _judging = again::judging(input)?;
    let mut fixed = input.clone();
    *fixed.pointer_mut(&format!("/{path}"))? = value;
    let mut errors = FieldErrors::new();
    let (mut candidates, mut fixes) = (Vec::new(), Vec::new());
    for violation in violations(action, &fixed)
        .iter()
        .filter(|v| within(&v.path, path))
    {
        record(
            violation,
            action,
            &fixed,
            &mut errors,
            &mut candidates,
            &mut fixes,
        );
    }
    if errors.is_empty() {
        (action.check)(&fixed, &mut errors);
        errors.retain(|at, _| within(at, path));
    }
    Some(errors)
}

/// Words a caller writes for every item of a list (`numbers: "all"`).
const ALL_WORDS: &[&str] = &["all", "*", "every", "everything", "any"];

/// The JSON Schema type of the items of the list field at `path`.
fn item_type<'a>(action: &'a Action, path: &str) -> Option<&'a str> {
    schema_at(action, path)?["items"]["type"].as_str()
}

/// A task's number written as its address (`https://host/eng/tasks/25`,
/// query and fragment aside): the number its last path segment is.
fn number_of_url(text: &str) -> Option<u64> {
    let text = text.trim();
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))?;
    let path = rest.split(['?', '#']).next()?;
    let (_, path) = path.split_once('/')?;
    let last = path.split('/').rfind(|part| !part.is_empty())?;
    let digits_only = last.bytes().all(|b| b.is_ascii_digit());
    digits_only.then(|| last.parse().ok()).flatten()
}

/// A task reference written for a number (`#5`, `#t5`, `t5`, `Task 5`,
/// `task #5`, `No. 5`): its number.
fn number_of_ref(text: &str) -> Option<u64> {
    let text = text.trim();
    // With the word a person puts before it (`Task 3`, `task #3`, `No. 3`),
    // which a `#` or the digits follow.
    let lower = text.to_ascii_lowercase();
    let text = ["task", "issue", "ticket", "number", "no.", "nr.", "no"]
        .iter()
        .find_map(|word| {
            let rest = lower.strip_prefix(word)?.trim_start();
            rest.starts_with(|c: char| c == '#' || c.is_ascii_digit())
                .then(|| &text[text.len() - rest.len()..])
        })
        .unwrap_or(text);
    let text = text.strip_prefix('#').map_or(text, str::trim_start);
    let digits = text.strip_prefix(['t', 'T']).unwrap_or(text);
    let digits_only = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    digits_only.then(|| digits.parse().ok()).flatten()
}

/// The list a value given for a list field meant, as JSON: one value in a
/// list (`[5]` for `5`), or a string's comma-separated parts read as the
/// items' type (`[1, 2]` for `"1,2"`, `["bug", "ui"]` for `"bug, ui"`,
/// `[5]` for `"#5"`). None when a part is not of that type.
fn listed_as_meant(action: &Action, path: &str, given: Option<&Value>) -> Option<String> {
    let schema = schema_at(action, path)?;
    let items = &schema["items"];
    let item = items["type"].as_str()?.to_string();
    let mut parts: Vec<Value> = match given? {
        Value::String(text) => {
            let most = schema["maxItems"].as_u64().unwrap_or(u64::MAX);
            let mut parts = Vec::new();
            for part in text
                .split(',')
                .map(str::trim)
                .filter(|part| !part.is_empty())
            {
                match item.as_str() {
                    // A range (`1-3`) is its numbers written out.
                    "integer" => match number_range(part) {
                        Some((low, high)) if high - low < most => {
                            for n in low..=high {
                                parts.push(Value::from(n));
                            }
                        }
                        Some(_) => return None,
                        None => parts.push(Value::from(number_of_ref(part)?)),
                    },
                    "string" => parts.push(Value::from(part)),
                    _ => return None,
                }
            }
            parts
        }
        one if is_of_type(one, &item) => {
            vec![one.clone()]
        }
        _ => return None,
    };
    // A list whose items must be distinct is shown so (`"1,1"`: `[1]`).
    if schema["uniqueItems"] == Value::Bool(true) {
        let mut seen = Vec::new();
        parts.retain(|part| {
            let new = !seen.contains(part);
            if new {
                seen.push(part.clone());
            }
            new
        });
    }
    let shown: Vec<String> = parts.iter().map(Value::to_string).collect();
    (!shown.is_empty()).then(|| format!("[{}]", shown.join(", ")))
}

/// The longest value a type error shows written without its quotes.
const QUOTED_SHOWN_MAX: usize = 100;

/// Whether a type error may show `shown` between backticks: short, and
/// without a backtick, which would end the quote early.
fn quotable(shown: &str) -> bool {
    shown.chars().count() <= QUOTED_SHOWN_MAX && !shown.contains('`')
}

/// Whether `value` is of JSON Schema type `name`.
fn is_of_type(value: &Value, name: &str) -> bool {
    match name {
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "null" => value.is_null(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}

/// The value at input `path`.
fn input_at<'a>(input: &'a Value, path: &str) -> Option<&'a Value> {
    if path.is_empty() {
        return Some(input);
    }
    input.pointer(&format!("/{path}"))
}

/// The string at input `path`, if it is one.
fn given_str<'a>(input: &'a Value, path: &str) -> Option<&'a str> {
    input_at(input, path).and_then(Value::as_str)
}

/// The row of [`BY_WORDS`] for a number field at input `path` given
/// `value`, text that is no number (`#5` is one), and whether that text is
/// the item's id rather than words.
fn by_words(path: &str, value: &Value) -> Option<(&'static ByWords, bool)> {
    let text = value.as_str()?.trim();
    if number_of_ref(text).is_some() || !text.chars().any(char::is_alphabetic) {
        return None;
    }
    let name = path
        .rsplit('/')
        .find(|part| !part.bytes().all(|b| b.is_ascii_digit()))?;
    let row = BY_WORDS.iter().find(|row| row.field == name)?;
    Some((row, (row.is_id)(text)))
}

/// The list call that finds, by its words, the item a number field of
/// `failure` was given words for (the first such field), as its
/// suggestion, unless it has one.
fn found_by_words(action: &Action, failure: Failure, input: &Value) -> Failure {
    let suggestion = failure.field_errors.iter().find_map(|(path, said)| {
        let given = input_at(input, path)?;
        // Only where the field's error says so (not `tasks/0/parent`, a
        // field out of place).
        let (row, false) = by_words(path, given)? else {
            return None;
        };
        if !said.ends_with(row.said) {
            return None;
        }
        let words = given.as_str()?.trim();
        let arguments = (row.arguments)(input, words)?;
        // A suggestion is a call that is taken as it is (`fix -login` is
        // no search: its exclusion is refused).
        let tool =
            crate::registry::find_by_name(row.tool).filter(|tool| tool.domain == action.domain)?;
        validate(tool, arguments.clone()).ok()?;
        Some((row.tool, arguments))
    });
    match suggestion {
        Some((tool, arguments)) if failure.suggested_action.is_none() => {
            failure.suggest(tool, arguments)
        }
        _ => failure,
    }
}

/// A call that names its task by `title` alone (no `number`): the search
/// of its board for the title's words, suggested, where the refusal of the
/// missing `number` is said (an update's `title` is a new title, so the
/// task to change is still to be found).
fn found_by_title(action: &Action, failure: Failure, input: &Value) -> Failure {
    let missing = failure
        .field_errors
        .get("number")
        .is_some_and(|said| said.starts_with("Required"));
    let title = input.get("title").and_then(Value::as_str).map(str::trim);
    let (true, Some(title), None) = (missing, title, &failure.suggested_action) else {
        return failure;
    };
    let Some(row) = BY_WORDS.iter().find(|row| row.field == "number") else {
        return failure;
    };
    let Some(arguments) = (row.arguments)(input, title) else {
        return failure;
    };
    match crate::registry::find_by_name(row.tool) {
        Some(tool) if tool.domain == action.domain && validate(tool, arguments.clone()).is_ok() => {
            failure.suggest(row.tool, arguments)
        }
        _ => failure,
    }
}

/// What the value of the field at input `path` must be, in words
/// ([`PATTERN_FIXES`], by the path's last name), where its pattern or
/// type alone says little.
fn value_fix(path: &str) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    PATTERN_FIXES
        .iter()
        .find(|(field, _)| *field == name)
        .map(|(_, fix)| *fix)
}

/// Whether `schema` is of a list an update replaces whole (left out, it
/// is unchanged).
pub(super) fn replaced_list(schema: &Value) -> bool {
    schema["type"] == "array"
        && schema["description"]
            .as_str()
            .is_some_and(|d| d.contains("Omitted: unchanged"))
}

/// How the field at input `path` is cleared or left empty, as its schema
/// says: `null` where it may be null; `[]` for a list an update replaces
/// (left out, it is unchanged); left out where that gives no value
/// (`Default: none`, `Default: unassigned`), or matches anything (a
/// filter's `Default: any`); left out where an update keeps it, or where
/// it is optional and takes its default. None for a required field.
fn how_to_clear(action: &Action, path: &str) -> Option<&'static str> {
    if nullable(action, path) {
        return Some("`null` (without quotes) clears it.");
    }
    // A field whose absence means something of its own (a list without a
    // parent filter shows top-level tasks).
    if let Some((_, _, said)) = synonyms::EXPLAINED_ABSENT
        .iter()
        .find(|(name, at, _)| *name == action.name() && *at == path)
    {
        return Some(said);
    }
    let schema = schema_at(action, path)?;
    let description = schema["description"].as_str().unwrap_or_default();
    // A value that means none (`priority: "none"`), the way to have none.
    if schema["enum"]
        .as_array()
        .is_some_and(|values| values.iter().any(|v| v == "none"))
    {
        return Some("write `\"none\"` (a string) for none.");
    }
    if replaced_list(schema) {
        Some("`[]` clears the list; left out, it is unchanged.")
    } else if description.contains("Default: none") || description.contains("Default: unassigned") {
        Some("leave the field out, and it has none.")
    } else if description.contains("Default: any") {
        // A filter (`filters.assignee: "none"`): `@none` would be a member
        // never found.
        // Left out, it matches assigned tasks too: say there is no filter
        // for "none", or the retry lists what was meant to be left out.
        Some(
            "no filter matches its absence (an unassigned task, say); left out, the filter matches any, and each answer shows the value, `null` where there is none.",
        )
    } else if description.contains("Omitted: unchanged") {
        Some("it cannot be cleared; leave the field out, and it is unchanged.")
    } else if !required_at(action, path)
        && description.to_lowercase().contains("default")
        && !description.to_lowercase().contains("no default")
    {
        // `cursor: null` for the first page, `limit: null`: the default is
        // had by leaving the field out (not a locator a rule requires,
        // which has none).
        Some("leave the field out for its default.")
    } else {
        None
    }
}

/// Whether the field at input `path` is required where it stands.
fn required_at(action: &Action, path: &str) -> bool {
    let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
    let parent_schema = if parent.is_empty() {
        Some(action.cached_input_schema())
    } else {
        schema_at(action, parent)
    };
    parent_schema
        .and_then(|p| p["required"].as_array())
        .is_some_and(|required| required.iter().any(|r| r == name))
}

/// For a filter of members (`filters.assignee`, whose default matches
/// any): what a word meaning "anyone" or "me" is written as instead.
fn filter_word(action: &Action, path: &str, word: &str) -> Option<&'static str> {
    let description = schema_at(action, path)?["description"].as_str()?;
    if !description.contains("Default: any") {
        return None;
    }
    let word = word.trim().to_lowercase();
    if [
        "any",
        "anyone",
        "anybody",
        "all",
        "everyone",
        "everybody",
        "*",
    ]
    .contains(&word.as_str())
    {
        Some("A word for everyone is no member: leave the filter out, and it matches any.")
    } else if is_self_word(&word)
        && names_a_field(action, &path.replace("assignee", "assigned_to_me"))
    {
        Some(SELF_AS_FILTER)
    } else {
        None
    }
}

/// For a member field of a write (an assignee): what a word for the
/// caller (`me`) is to be instead ([`SELF_AS_ASSIGNEE`]).
fn self_word(action: &Action, path: &str, word: &str) -> Option<&'static str> {
    if !is_self_word(word) {
        return None;
    }
    let at = any_item(path);
    SELF_AS_ASSIGNEE
        .iter()
        .find(|(of, field, _)| *of == action.name() && *field == at)
        .map(|(_, _, said)| *said)
}

/// `path` with each list index written `*` (`tasks/0/assignee` is
/// `tasks/*/assignee`), as the registry's tables name a field of any item.
fn any_item(path: &str) -> String {
    let parts: Vec<&str> = path
        .split('/')
        .map(|part| match part.parse::<usize>() {
            Ok(_) => "*",
            Err(_) => part,
        })
        .collect();
    parts.join("/")
}

/// Whether `word` is what people write for "nobody" or "nothing".
fn means_none(word: &str) -> bool {
    const WORDS: [&str; 9] = [
        "none",
        "null",
        "nil",
        "nobody",
        "no one",
        "unassigned",
        "unassign",
        "n/a",
        "-",
    ];
    let word = word.trim();
    WORDS.iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// What to change when the string at `path` breaks `pattern` only by a
/// leading `#` (a channel written `#eng`), capitals (`Eng`) or a missing `@`
/// (a member ref written `alice`), so the message can say so instead of
/// printing the regex; it never repeats the value.
fn pattern_fix(pattern: &str, input: &Value, path: &str) -> Option<String> {
    let pointer = if path.is_empty() {
        String::new()
    } else {
        format!("/{path}")
    };
    let given = input.pointer(&pointer).and_then(Value::as_str)?;
    // A time, an opaque id: what it must be in words, not the regex.
    if let Some(fix) = value_fix(path) {
        return Some(fix.into());
    }
    // A value the pattern's own words would mislead on (a board alone
    // as a target, which is a thread).
    if let Some(said) = synonyms::PATTERN_RULES
        .iter()
        .filter(|(p, _)| *p == pattern)
        .find_map(|(_, rule)| rule(given))
    {
        return Some(said.into());
    }
    let re = regex::Regex::new(pattern).ok()?;
    // Spaces around a name (`"eng "`), as a copy from a table leaves them.
    let trimmed = given.trim();
    if trimmed != given && !trimmed.is_empty() && re.is_match(trimmed) {
        return Some("Drop the spaces around it: the name is written without them.".into());
    }
    if given
        .strip_prefix('#')
        .is_some_and(|rest| re.is_match(rest))
    {
        return Some("Drop the leading `#`: the name is written without it.".into());
    }
    // Only where the pattern allows no capital at all (a board, a handle;
    // not a target's thread id or a URL), and only for a member ref's
    // pattern: a blank value is no missing `@`.
    let lower = given.to_lowercase();
    let no_capitals = !pattern.contains("A-Z") && !pattern.contains("\\S");
    if no_capitals && lower != given && re.is_match(&lower) {
        return Some("Must be lowercase.".into());
    }
    // An agent's id for its handle: `@` before it names no member.
    if pattern.starts_with("^@") && given.trim_start_matches('@').starts_with("ag_") {
        return Some(
            "A member ref is `@` and the member's handle, not its agent id; answers show handles in `assignee` and `created_by`.".into(),
        );
    }
    // A chat's mention (Slack's `<@U024BE7LH>`): an id of another system.
    if pattern.starts_with("^@") && given.starts_with("<@") && given.ends_with('>') {
        // Slack's `<@U024BE7LH|alice>` names the handle after its bar.
        if let Some((_, name)) = given.trim_end_matches('>').split_once('|')
            && re.is_match(&format!("@{name}"))
        {
            return Some(format!(
                "A member ref is `@` and the member's handle, not a chat's mention: write `@{name}`, if that is the handle here."
            ));
        }
        return Some(
            "A member ref is `@` and the member's handle here, not a chat's mention of a user id; a ref no member has is answered with the members there are.".into(),
        );
    }
    if pattern.starts_with("^@") && !given.starts_with('@') && re.is_match(&format!("@{given}")) {
        return Some("A member ref starts with `@`: write `@` before the handle.".into());
    }
    // Both at once (`#Eng`).
    if no_capitals
        && let Some(rest) = lower.strip_prefix('#')
        && re.is_match(rest)
    {
        return Some(
            "Drop the leading `#` and write it in lowercase: the name is written without `#`."
                .into(),
        );
    }
    None
}

/// The schema-walk path of a field whose parent sits at input path `parent`
/// (array indexes become `items`).
fn schema_path(parent: &str, name: &str) -> String {
    let mut parts: Vec<&str> = parent
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            if s.chars().all(|c| c.is_ascii_digit()) {
                "items"
            } else {
                s
            }
        })
        .collect();
    parts.push(name);
    parts.join("/")
}

/// The keys other APIs hold a list under in an object (`{"items": […]}`);
/// not a change's words (`{"add": […]}`), which mean another thing.
const LIST_HOLDERS: [&str; 8] = [
    "items", "data", "list", "values", "results", "entries", "records", "elements",
];

/// A short message that never echoes the (possibly huge or secret) value.
fn describe(kind: &Kind) -> String {
    match kind {
        Kind::Type(names) => format!("Must be of type {}.", names.join(" or ")),
        Kind::Enum(options) => {
            let names: Vec<String> = options
                .iter()
                .map(|v| {
                    v.as_str()
                        .map_or_else(|| v.to_string(), |s| format!("`{s}`"))
                })
                .collect();
            format!("Must be one of {}.", names.join(", "))
        }
        Kind::MinLength(1) => "Must be at least 1 character.".into(),
        Kind::MinLength(limit) => format!("Must be at least {limit} characters."),
        Kind::MaxLength(limit) => format!("Must be at most {limit} characters."),
        Kind::Minimum(limit) => format!("Must be at least {limit}."),
        Kind::Maximum(limit) => format!("Must be at most {limit}."),
        Kind::MinItems(1) => "Must have at least 1 item.".into(),
        Kind::MinItems(limit) => format!("Must have at least {limit} items."),
        Kind::MaxItems(limit) => format!("Must have at most {limit} items."),
        Kind::UniqueItems => "Items must be distinct.".into(),
        // The schema's patterns in words; another, as it is.
        Kind::Pattern(pattern) => synonyms::PATTERN_WORDS
            .iter()
            .find(|(p, _)| p == pattern)
            .map_or_else(
                || format!("Must match the pattern {pattern}."),
                |(_, words)| words.to_string(),
            ),
        Kind::Required(_) | Kind::Additional(_) | Kind::Other => "Invalid value.".into(),
    }
}

#[cfg(test)]
mod tests;
