//! Input validation, shared by the CLI and the runtime so both refuse exactly
//! the same input with exactly the same field errors: the action's JSON
//! Schema (no `$ref`, nothing resolved), then its branch rules, then
//! canonicalisation. Every bad field is reported, not just the first.
//!
//! The registry publishes JSON Schema 2020-12 (tests check every schema
//! against the 2020-12 meta-schema) written only in [`KEYWORDS`], and this
//! module evaluates those sixteen keywords directly on the schema value.
//! Compiling a schema with the jsonschema crate on every CLI call was most
//! of a call's cost: 6.2 MB of the 11 MB binary and 3.8 MiB of a 9 MiB peak
//! RSS (docs/performance.md). jsonschema stays the reference: the tests run
//! it (2020-12) beside this evaluator on a thousand derived inputs and
//! require the same verdicts and the same field errors, message for message.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::{Map, Number, Value};

use crate::error::Failure;
use crate::registry::{ACTIONS, Action, FieldErrors, HiddenContext, schema};

/// The schema keywords the registry may use, each evaluated here with its
/// 2020-12 meaning (which draft 4 shares word for word).
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

/// The compiled `pattern`s of one action's schema, built on its first use:
/// a CLI call compiles its own action's few patterns, not all of them.
fn patterns(action: &Action) -> &'static HashMap<&'static str, Regex> {
    static PATTERNS: OnceLock<Vec<OnceLock<HashMap<&'static str, Regex>>>> = OnceLock::new();
    let all = PATTERNS.get_or_init(|| ACTIONS.iter().map(|_| OnceLock::new()).collect());
    all[action.index()].get_or_init(|| {
        let mut compiled = HashMap::new();
        collect_patterns(action.schema(), &mut compiled);
        compiled
    })
}

fn collect_patterns(schema: &'static Value, out: &mut HashMap<&'static str, Regex>) {
    let Some(object) = schema.as_object() else {
        return;
    };
    if let Some(pattern) = object.get("pattern").and_then(Value::as_str) {
        let regex = Regex::new(pattern).expect("registry patterns compile (tested)");
        out.insert(pattern, regex);
    }
    for sub in object
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        collect_patterns(sub.1, out);
    }
    if let Some(items) = object.get("items") {
        collect_patterns(items, out);
    }
}

/// Validates `input` for `action` and returns it canonicalised, or an
/// `invalid_input` failure naming every bad field.
pub fn validate(action: &Action, mut input: Value) -> Result<Value, Failure> {
    if !input.is_object() {
        return Err(Failure::new(
            crate::error::code::INVALID_JSON,
            "Input must be one JSON object.",
        ));
    }
    let mut errors = FieldErrors::new();
    let mut violations = Vec::new();
    Evaluator {
        patterns: patterns(action),
        out: &mut violations,
    }
    .check(action.schema(), &input, "");
    for violation in &violations {
        record(violation, action, &mut errors);
    }
    (action.check)(&input, &mut errors);
    if !errors.is_empty() {
        return Err(Failure::invalid_input(errors));
    }
    integers(action.schema(), &mut input);
    (action.canonicalize)(&mut input);
    Ok(input)
}

/// One schema violation at an instance path (`/`-joined, `""` for the root).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Violation<'s> {
    pub path: String,
    pub kind: Kind<'s>,
}

/// What was violated; each carries what its message needs from the schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind<'s> {
    /// The schema's `type`: one name or a list of names.
    Type(&'s Value),
    Enum(&'s [Value]),
    Minimum(&'s Number),
    Maximum(&'s Number),
    MinLength(u64),
    MaxLength(u64),
    MinItems(u64),
    MaxItems(u64),
    Required(&'s str),
    Pattern(&'s str),
    UniqueItems,
    /// Instance properties `additionalProperties: false` does not allow.
    Additional(Vec<String>),
}

struct Evaluator<'a, 's> {
    patterns: &'a HashMap<&'static str, Regex>,
    out: &'a mut Vec<Violation<'s>>,
}

impl<'s> Evaluator<'_, 's> {
    fn fail(&mut self, path: &str, kind: Kind<'s>) {
        self.out.push(Violation {
            path: path.to_string(),
            kind,
        });
    }

    /// Checks `value` against `schema`, keyword by keyword in a fixed order
    /// (the cheap, whole-value keywords first, then the children), so the
    /// first message recorded for a path is always the same one.
    fn check(&mut self, schema: &'s Value, value: &Value, path: &str) {
        let Some(schema) = schema.as_object() else {
            return;
        };
        let get = |keyword: &str| schema.get(keyword);
        let limit = |keyword: &str| get(keyword).and_then(Value::as_u64);
        if let Some(types) = get("type")
            && !matches_type(types, value)
        {
            self.fail(path, Kind::Type(types));
        }
        if let Some(options) = get("enum").and_then(Value::as_array)
            && !options.iter().any(|option| equal(option, value))
        {
            self.fail(path, Kind::Enum(options));
        }
        if let Value::Number(n) = value {
            if let Some(Value::Number(min)) = get("minimum")
                && compare(n, min).is_lt()
            {
                self.fail(path, Kind::Minimum(min));
            }
            if let Some(Value::Number(max)) = get("maximum")
                && compare(n, max).is_gt()
            {
                self.fail(path, Kind::Maximum(max));
            }
        }
        if let Value::String(text) = value {
            let bounds = (limit("minLength"), limit("maxLength"));
            let chars = text.chars().count() as u64;
            self.size(path, chars, bounds, Kind::MinLength, Kind::MaxLength);
        }
        if let Value::Array(items) = value {
            let bounds = (limit("minItems"), limit("maxItems"));
            self.size(
                path,
                items.len() as u64,
                bounds,
                Kind::MinItems,
                Kind::MaxItems,
            );
        }
        if let (Some(required), Value::Object(object)) = (get("required"), value) {
            for name in required.as_array().into_iter().flatten() {
                if let Some(name) = name.as_str()
                    && !object.contains_key(name)
                {
                    self.fail(path, Kind::Required(name));
                }
            }
        }
        if let (Some(Value::String(pattern)), Value::String(text)) = (get("pattern"), value) {
            let regex = &self.patterns[pattern.as_str()];
            if !regex.is_match(text) {
                self.fail(path, Kind::Pattern(pattern));
            }
        }
        if let (Some(Value::Bool(true)), Value::Array(items)) = (get("uniqueItems"), value)
            && !unique(items)
        {
            self.fail(path, Kind::UniqueItems);
        }
        if let Value::Object(object) = value {
            self.check_properties(schema, object, path);
        }
        if let (Some(items), Value::Array(values)) = (get("items"), value) {
            for (i, item) in values.iter().enumerate() {
                self.check(items, item, &join(path, &i.to_string()));
            }
        }
    }

    /// `minLength`/`maxLength` or `minItems`/`maxItems`, inclusive.
    fn size(
        &mut self,
        path: &str,
        len: u64,
        (min, max): (Option<u64>, Option<u64>),
        below: fn(u64) -> Kind<'s>,
        above: fn(u64) -> Kind<'s>,
    ) {
        if let Some(min) = min.filter(|&min| len < min) {
            self.fail(path, below(min));
        }
        if let Some(max) = max.filter(|&max| len > max) {
            self.fail(path, above(max));
        }
    }

    fn check_properties(
        &mut self,
        schema: &'s Map<String, Value>,
        object: &Map<String, Value>,
        path: &str,
    ) {
        let properties = schema.get("properties").and_then(Value::as_object);
        let mut unexpected = Vec::new();
        for (name, value) in object {
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => self.check(sub, value, &join(path, name)),
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => unexpected.push(name.clone()),
                    Some(sub @ Value::Object(_)) => self.check(sub, value, &join(path, name)),
                    _ => {}
                },
            }
        }
        if !unexpected.is_empty() {
            self.fail(path, Kind::Additional(unexpected));
        }
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

fn matches_type(types: &Value, value: &Value) -> bool {
    let one = |name: &str| match name {
        "array" => value.is_array(),
        "boolean" => value.is_boolean(),
        "integer" => value.as_number().is_some_and(is_integer),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "object" => value.is_object(),
        "string" => value.is_string(),
        _ => false,
    };
    match types {
        Value::String(name) => one(name),
        Value::Array(names) => names.iter().filter_map(Value::as_str).any(one),
        _ => true,
    }
}

/// 2020-12's integer: any number with a zero fractional part, so `1.0` is one.
fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// Exact comparison of two JSON numbers, integers without going through f64.
fn compare(a: &Number, b: &Number) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
        (Some(x), Some(y), _, _) => x.cmp(&y),
        (_, _, Some(x), Some(y)) => x.cmp(&y),
        // One is a u64 past i64::MAX, the other a negative i64.
        (Some(_), None, _, Some(_)) => Ordering::Less,
        (None, Some(_), Some(_), _) => Ordering::Greater,
        _ => {
            let (x, y) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
    }
}

/// JSON Schema equality: numbers by value (`1` equals `1.0`), objects
/// regardless of key order.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y).is_eq(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

fn unique(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .all(|(i, a)| items[..i].iter().all(|b| !equal(a, b)))
}

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
            // Schema bounds keep registry integers well inside i64.
            if let Some(f) = n.as_f64()
                && wants_integer
                && f.fract() == 0.0
                && f.abs() < 9.0e15
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

fn record(violation: &Violation<'_>, action: &Action, errors: &mut FieldErrors) {
    let path = violation.path.as_str();
    match &violation.kind {
        Kind::Additional(unexpected) => {
            for name in unexpected {
                errors.insert(join(path, name), unknown_field_message(name, path, action));
            }
        }
        Kind::Required(name) => {
            errors
                .entry(join(path, name))
                .or_insert_with(|| "Required.".to_string());
        }
        kind => {
            errors
                .entry(path.to_string())
                .or_insert_with(|| describe(kind));
        }
    }
}

fn unknown_field_message(name: &str, parent_path: &str, action: &Action) -> String {
    let hidden = HiddenContext::ALL.iter().any(|h| {
        h.spellings()
            .contains(&crate::case::camel_to_snake(name).as_str())
    });
    if hidden {
        return "Hidden context (workspace, agent, workflow run, callback effect, token) is injected by agentteam; it cannot be set in input.".into();
    }
    let snake = crate::case::camel_to_snake(name);
    let mut props = Vec::new();
    schema::walk_properties(action.schema(), "", &mut props);
    let sibling_path = schema_path(parent_path, &snake);
    if snake != name && props.iter().any(|(p, _)| *p == sibling_path) {
        return format!("Unknown field; fields are snake_case: use `{snake}`.");
    }
    "Unknown field.".into()
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

/// A short message that never echoes the (possibly huge or secret) value.
fn describe(kind: &Kind<'_>) -> String {
    match kind {
        Kind::Type(types) => {
            let names: Vec<&str> = match types {
                Value::Array(names) => TYPE_NAMES
                    .into_iter()
                    .filter(|t| names.iter().any(|n| n == t))
                    .collect(),
                other => vec![other.as_str().unwrap_or("unknown")],
            };
            format!("Must be of type {}.", names.join(" or "))
        }
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
        Kind::MinLength(limit) => format!("Must be at least {limit} characters."),
        Kind::MaxLength(limit) => format!("Must be at most {limit} characters."),
        Kind::Minimum(limit) => format!("Must be at least {limit}."),
        Kind::Maximum(limit) => format!("Must be at most {limit}."),
        Kind::MinItems(limit) => format!("Must have at least {limit} items."),
        Kind::MaxItems(limit) => format!("Must have at most {limit} items."),
        Kind::UniqueItems => "Items must be distinct.".into(),
        Kind::Pattern(pattern) => {
            if *pattern == "\\S" {
                "Must not be blank.".into()
            } else {
                format!("Must match the pattern {pattern}.")
            }
        }
        Kind::Required(_) | Kind::Additional(_) => "Invalid value.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;
    use serde_json::json;

    fn errors(domain: &str, verb: &str, input: Value) -> FieldErrors {
        validate(find(domain, verb).unwrap(), input)
            .unwrap_err()
            .field_errors
    }

    #[test]
    fn names_every_bad_field_by_path() {
        let e = errors(
            "task",
            "create",
            json!({"channel": "Eng", "tasks": [{"title": ""}, {"title": "x", "priority": "high"}], "extra": 1}),
        );
        assert_eq!(e.len(), 4, "{e:?}");
        assert!(e.contains_key("channel"));
        assert!(e.contains_key("tasks/0/title"));
        assert!(e.contains_key("tasks/1/priority"));
        assert_eq!(e["extra"], "Unknown field.");
    }

    #[test]
    fn refuses_hidden_context_and_camel_case() {
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", "workspaceId": "w", "agent_id": "a", "includeSubtasks": true, "token": "t"}),
        );
        assert!(e["workspaceId"].starts_with("Hidden context"));
        assert!(e["agent_id"].starts_with("Hidden context"));
        assert!(e["token"].starts_with("Hidden context"));
        assert_eq!(
            e["includeSubtasks"],
            "Unknown field; fields are snake_case: use `include_subtasks`."
        );
        let e = errors(
            "task",
            "create",
            json!({"parent_task_scope": {"kind": "task", "scopeId": "x"}, "tasks": [{"title": "t"}]}),
        );
        assert!(e["parent_task_scope/scopeId"].contains("scope_id"), "{e:?}");
        assert_eq!(e["parent_task_scope/scope_id"], "Required.");
    }

    #[test]
    fn branch_rules() {
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", "status": "all", "sort": "relevance", "query": "  "}),
        );
        assert!(e.contains_key("status") && e.contains_key("sort"));
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", "filters": {"assignee": "@a", "assigned_to_me": true}}),
        );
        assert!(e.contains_key("filters/assigned_to_me"));
        let e = errors("task", "create", json!({"tasks": [{"title": "a"}]}));
        assert!(e.contains_key("channel"));
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "parent_task_scope": {"kind": "task", "scope_id": "tsk_1"}, "parent": 3, "tasks": [{"title": "a"}]}),
        );
        assert!(e.contains_key("parent_task_scope") && e.contains_key("parent"));
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "parent": 0, "tasks": [{"title": "a"}]}),
        );
        assert!(e.contains_key("parent"));
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "tasks": [{"title": "a"}], "idempotency_key": "   "}),
        );
        assert_eq!(e["idempotency_key"], "Must not be blank.");
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "tasks": [{"title": "a"}], "idempotency_key": "é".repeat(65)}),
        );
        assert!(e["idempotency_key"].contains("128 UTF-8 bytes"));
        let e = errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 1, "expected_updated_at": "2026-01-01T00:00:00Z"}),
        );
        assert!(e.contains_key("patch"));
        let e = errors(
            "task",
            "set_claim",
            json!({"channel": "eng", "numbers": [1, 1], "claimed": true}),
        );
        assert_eq!(e["numbers"], "Items must be distinct.");
    }

    /// Every keyword of every input schema is one the evaluator implements,
    /// in the form it implements (`items` a schema, `additionalProperties`
    /// false or a schema, `type` a name or a list of names), and every
    /// `pattern` the evaluator can meet is compiled in [`patterns`], which it
    /// indexes without a fallback.
    #[test]
    fn schemas_use_only_keywords_the_evaluator_implements() {
        fn walk<'s>(schema: &'s Value, path: &str, seen: &mut Vec<&'s str>) {
            let object = schema.as_object().expect("a schema is an object");
            for (key, sub) in object {
                assert!(KEYWORDS.contains(&key.as_str()), "{path}: keyword {key}");
                match key.as_str() {
                    "properties" => {
                        for (name, prop) in sub.as_object().unwrap() {
                            walk(prop, &format!("{path}/{name}"), seen);
                        }
                    }
                    "items" => walk(sub, &format!("{path}/items"), seen),
                    "additionalProperties" => {
                        assert!(
                            sub == &Value::Bool(false) || sub.is_object(),
                            "{path}: additionalProperties"
                        );
                        if sub.is_object() {
                            walk(sub, &format!("{path}/additionalProperties"), seen);
                        }
                    }
                    "type" => assert!(
                        sub.as_str()
                            .or_else(|| sub[0].as_str())
                            .is_some_and(|t| TYPE_NAMES.contains(&t)),
                        "{path}: type"
                    ),
                    "pattern" => {
                        assert!(Regex::new(sub.as_str().unwrap()).is_ok(), "{path}: pattern");
                        seen.push(sub.as_str().unwrap());
                    }
                    _ => {}
                }
            }
        }
        for action in crate::registry::ACTIONS {
            let mut seen = Vec::new();
            walk(action.schema(), &action.name(), &mut seen);
            let mut compiled: Vec<&str> = patterns(action).keys().copied().collect();
            compiled.sort_unstable();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(compiled, seen, "{}: compiled patterns", action.name());
        }
    }

    /// Inputs derived from the examples: each property dropped, replaced by
    /// values of every JSON type, boundary numbers and strings (Unicode
    /// whitespace, multi-byte characters at length limits), and an unknown
    /// field; at depth one as well.
    fn variants(example: &Value) -> Vec<Value> {
        let probes = [
            json!(null),
            json!(true),
            json!(0),
            json!(-1),
            json!(1.0),
            json!(1.5),
            json!(3e0),
            json!(-0.0),
            json!(2147483647),
            json!(2147483648_i64),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1e300),
            json!(""),
            json!(" "),
            json!("\u{a0}"),
            json!("\u{3000}x"),
            json!("x"),
            json!("é".repeat(80)),
            json!("é".repeat(81)),
            json!("😀".repeat(200)),
            json!("@a"),
            json!("@A"),
            json!("#eng:t"),
            json!("todo"),
            json!("eng\n"),
            json!("x".repeat(201)),
            json!("2026-01-01T00:00:00Z"),
            json!("2026-01-01T00:00:00.1234567890Z"),
            json!("https://x"),
            json!("https:// x"),
            json!([]),
            json!([1, 1]),
            json!([1, 1.0]),
            json!([1, 2]),
            json!(["a"]),
            json!(["a", "a"]),
            json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}]),
            json!({}),
            json!({"kind": "task", "scope_id": "tsk_1"}),
            json!({"kind": "task", "scopeId": "tsk_1"}),
            json!([{"title": "t"}, {"title": "u", "priority": "high"}]),
            json!([{"title": " "}, {"title": 1}, {"text": "x", "done": 1.0}]),
        ];
        let mut out = vec![example.clone()];
        let object = example.as_object().unwrap();
        for key in object.keys() {
            let mut dropped = example.clone();
            dropped.as_object_mut().unwrap().remove(key);
            out.push(dropped);
            for probe in &probes {
                let mut changed = example.clone();
                changed[key] = probe.clone();
                out.push(changed);
                // One level down: inside an object or the first array item.
                let nested = match &example[key] {
                    Value::Object(inner) => {
                        inner.keys().next().map(|k| vec![key.clone(), k.clone()])
                    }
                    Value::Array(items) => items.first().and_then(|first| {
                        first
                            .as_object()
                            .and_then(|o| o.keys().next())
                            .map(|k| vec![key.clone(), "0".into(), k.clone()])
                    }),
                    _ => None,
                };
                if let Some(path) = nested {
                    let mut deep = example.clone();
                    let target = path.iter().fold(&mut deep, |v, k| match v {
                        Value::Array(items) => &mut items[k.parse::<usize>().unwrap()],
                        other => &mut other[k.as_str()],
                    });
                    *target = probe.clone();
                    out.push(deep);
                }
            }
        }
        let mut extra = example.clone();
        extra["unknownField"] = json!(1);
        out.push(extra);
        out
    }

    /// The field errors jsonschema's own (2020-12) errors map to, worded as
    /// the evaluator words them: the reference the evaluator is held to.
    fn reference_errors(action: &Action, input: &Value) -> FieldErrors {
        use jsonschema::error::{TypeKind, ValidationErrorKind as K};
        static REFERENCE: OnceLock<Vec<jsonschema::Validator>> = OnceLock::new();
        let validators = REFERENCE.get_or_init(|| {
            ACTIONS
                .iter()
                .map(|a| {
                    jsonschema::draft202012::options()
                        .should_validate_formats(false)
                        .with_pattern_options(jsonschema::PatternOptions::regex())
                        .build(a.schema())
                        .unwrap()
                })
                .collect()
        });
        let mut errors = FieldErrors::new();
        for error in validators[action.index()].iter_errors(input) {
            let path = error
                .instance_path()
                .as_str()
                .trim_start_matches('/')
                .to_string();
            let number = |v: &Value| v.as_number().unwrap().clone();
            let kind = match error.kind() {
                K::AdditionalProperties { unexpected } => Kind::Additional(unexpected.clone()),
                K::Required { property } => {
                    let name = property.as_str().unwrap().to_string();
                    errors
                        .entry(join(&path, &name))
                        .or_insert_with(|| "Required.".into());
                    continue;
                }
                K::Type { kind } => {
                    let names: Vec<String> = match kind {
                        TypeKind::Single(t) => vec![t.to_string()],
                        TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
                    };
                    let msg = format!("Must be of type {}.", names.join(" or "));
                    errors.entry(path).or_insert(msg);
                    continue;
                }
                K::Enum { options } => {
                    let options: &'static [Value] =
                        Box::leak(options.as_array().unwrap().clone().into_boxed_slice());
                    Kind::Enum(options)
                }
                K::MinLength { limit } => Kind::MinLength(*limit),
                K::MaxLength { limit } => Kind::MaxLength(*limit),
                K::MinItems { limit } => Kind::MinItems(*limit),
                K::MaxItems { limit } => Kind::MaxItems(*limit),
                K::Minimum { limit } => Kind::Minimum(Box::leak(Box::new(number(limit)))),
                K::Maximum { limit } => Kind::Maximum(Box::leak(Box::new(number(limit)))),
                K::UniqueItems => Kind::UniqueItems,
                K::Pattern { pattern } => {
                    Kind::Pattern(Box::leak(pattern.clone().into_boxed_str()))
                }
                other => panic!("{}: unexpected reference error {other:?}", action.name()),
            };
            record(&Violation { path, kind }, action, &mut errors);
        }
        errors
    }

    fn evaluator_errors(action: &Action, input: &Value) -> FieldErrors {
        let mut violations = Vec::new();
        Evaluator {
            patterns: patterns(action),
            out: &mut violations,
        }
        .check(action.schema(), input, "");
        let mut errors = FieldErrors::new();
        for violation in &violations {
            record(violation, action, &mut errors);
        }
        errors
    }

    /// Asserts both give the same field errors; returns whether they refused.
    fn assert_agrees(action: &Action, input: &Value) -> bool {
        let reference = reference_errors(action, input);
        assert_eq!(
            evaluator_errors(action, input),
            reference,
            "{}: {input}",
            action.name()
        );
        !reference.is_empty()
    }

    #[test]
    fn agrees_with_jsonschema_2020_12_on_registry_inputs() {
        let mut compared = 0;
        let mut refused = 0;
        for action in crate::registry::ACTIONS {
            for example in action.examples {
                for input in variants(&serde_json::from_str(example.input).unwrap()) {
                    compared += 1;
                    refused += usize::from(assert_agrees(action, &input));
                }
            }
        }
        assert!(
            compared > 2_000 && refused > 1_500,
            "{compared} inputs, {refused} refused"
        );
    }

    /// Random structural mutations of every example (fixed seed): values of
    /// every type, at any depth, dropped and added keys, long arrays.
    #[test]
    fn agrees_with_jsonschema_2020_12_on_random_inputs() {
        struct Rng(u64);
        impl Rng {
            fn below(&mut self, n: usize) -> usize {
                // xorshift64*
                self.0 ^= self.0 >> 12;
                self.0 ^= self.0 << 25;
                self.0 ^= self.0 >> 27;
                (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1) as u64) as usize
            }
        }
        fn value(rng: &mut Rng, depth: usize) -> Value {
            let strings = [
                "",
                " ",
                "\u{2028}",
                "x",
                "@a",
                "#c:t",
                "todo",
                "eng",
                "é😀",
                "https://e",
            ];
            match rng.below(if depth > 2 { 6 } else { 8 }) {
                0 => Value::Null,
                1 => json!(rng.below(2) == 0),
                2 => json!([0, 1, -1, 50, 51, 101, 2147483648_i64][rng.below(7)]),
                3 => json!([0.5, 1.0, -0.0, 1e300, 2.0e9][rng.below(5)]),
                4 => json!(strings[rng.below(strings.len())].repeat(rng.below(3) * 100 + 1)),
                5 => json!(strings[rng.below(strings.len())]),
                6 => Value::Array((0..rng.below(60)).map(|_| value(rng, depth + 1)).collect()),
                _ => {
                    let keys = [
                        "title", "text", "done", "kind", "scope_id", "name", "url", "x",
                    ];
                    let n = rng.below(4);
                    Value::Object(
                        (0..n)
                            .map(|_| {
                                (
                                    keys[rng.below(keys.len())].to_string(),
                                    value(rng, depth + 1),
                                )
                            })
                            .collect(),
                    )
                }
            }
        }
        fn mutate(rng: &mut Rng, target: &mut Value) {
            match target {
                Value::Object(map) if !map.is_empty() && rng.below(10) < 7 => {
                    let key = map.keys().nth(rng.below(map.len())).cloned().unwrap();
                    match rng.below(3) {
                        0 => {
                            map.remove(&key);
                        }
                        1 => {
                            map.insert(key, value(rng, 0));
                        }
                        _ => mutate(rng, map.get_mut(&key).unwrap()),
                    }
                }
                Value::Array(items) if !items.is_empty() && rng.below(10) < 7 => {
                    let i = rng.below(items.len());
                    if rng.below(4) == 0 {
                        let copy = items[i].clone();
                        items.extend(std::iter::repeat_n(copy, rng.below(60)));
                    } else {
                        mutate(rng, &mut items[i]);
                    }
                }
                Value::Object(map) => {
                    map.insert(format!("k{}", rng.below(3)), value(rng, 0));
                }
                other => *other = value(rng, 0),
            }
        }
        let mut rng = Rng(0x5EED_1234_ABCD_0042);
        let mut refused = 0;
        for round in 0..4_000 {
            let action = ACTIONS[round % ACTIONS.len()];
            let example = &action.examples[rng.below(action.examples.len())];
            let mut input: Value = serde_json::from_str(example.input).unwrap();
            for _ in 0..=rng.below(3) {
                mutate(&mut rng, &mut input);
            }
            refused += usize::from(assert_agrees(action, &input));
        }
        assert!(refused > 2_000, "{refused} of 4,000 refused");
    }

    #[test]
    fn an_integral_number_is_an_integer_and_arrives_as_one() {
        let action = find("task", "get").unwrap();
        let ok = validate(action, json!({"channel": "eng", "number": 42.0})).unwrap();
        assert!(ok["number"].is_i64(), "{ok}");
        assert_eq!(ok["number"], 42);
        let e = errors("task", "get", json!({"channel": "eng", "number": 4.5}));
        assert_eq!(e["number"], "Must be of type integer.");
    }

    #[test]
    fn canonicalises_the_idempotency_key() {
        let ok = validate(
            find("task", "create").unwrap(),
            json!({"channel": "eng", "tasks": [{"title": "a"}], "idempotency_key": "  k1 "}),
        )
        .unwrap();
        assert_eq!(ok["idempotency_key"], "k1");
    }

    #[test]
    fn messages_never_echo_values() {
        let long = "x".repeat(10_000);
        let failure = validate(
            find("task", "get").unwrap(),
            json!({"channel": long, "number": 1}),
        )
        .unwrap_err();
        assert!(!failure.to_document().to_string().contains(&"x".repeat(100)));
    }
}
