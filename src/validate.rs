//! Input validation, shared by the CLI and the runtime so both refuse exactly
//! the same input with exactly the same field errors: the action's JSON
//! Schema, then its branch rules, then canonicalisation. Every bad field is
//! reported, not just the first.
//!
//! The schema is checked by the validator jsonschema compiled from the
//! action's schema file at build time (src/schemas.rs): valid input costs
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
use crate::registry::{Action, FieldErrors, HiddenContext, find_by_name, schema, synonyms};
use crate::schemas;

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
pub fn validate(action: &Action, input: Value) -> Result<Value, Failure> {
    if !input.is_object() {
        return Err(Failure::new(
            crate::error::code::INVALID_JSON,
            "Input must be one JSON object.",
        ));
    }
    let mut errors = FieldErrors::new();
    let mut candidates = Vec::new();
    for violation in &violations(action, &input) {
        if errors.len() > MAX_FIELD_ERRORS {
            break;
        }
        record(violation, action, &input, &mut errors, &mut candidates);
    }
    checked(action, input, errors, candidates)
}

/// [`validate`] of `input` when it holds to the action's schema; `None`,
/// without wording why, when it does not. For the runtime, which reads a
/// `task_get` before its token is judged: a refusal's words (an unknown
/// field's nearest names among them) cost far more than a schema check, so
/// they wait for the token (`server::run`).
pub fn validate_if_schema_holds(action: &Action, input: Value) -> Option<Result<Value, Failure>> {
    let holds = input.is_object() && (schemas::compiled(action).is_valid)(&input);
    holds.then(|| checked(action, input, FieldErrors::new(), Vec::new()))
}

/// `input`, whose schema `errors` and `candidates` judged, after the
/// action's branch rules: refused, or canonicalised.
fn checked(
    action: &Action,
    mut input: Value,
    mut errors: FieldErrors,
    candidates: NameCandidates,
) -> Result<Value, Failure> {
    (action.check)(&input, &mut errors);
    if holds_nul(&input) {
        nul_characters(&input, "", &mut errors);
    }
    if !errors.is_empty() {
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
        return Err(failure);
    }
    integers(action.schema(), &mut input);
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

/// The known names an unknown field may have meant, by the unknown field's path.
type NameCandidates = Vec<(String, Vec<String>)>;

fn record(
    violation: &Violation,
    action: &Action,
    input: &Value,
    errors: &mut FieldErrors,
    candidates: &mut NameCandidates,
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
                let (mut message, names) = unknown_field(name, path, action, parent);
                if message.starts_with(FIELDS_HERE) {
                    match &listed {
                        Some(first) => {
                            message = format!(
                                "Unknown field; the fields here are listed at `{first}` beside it."
                            );
                        }
                        None => listed = Some(crate::text::clip(name, 64).into_owned()),
                    }
                }
                if !names.is_empty() {
                    candidates.push((join(path, name), names));
                }
                errors.insert(join(path, name), message);
            }
        }
        Kind::Required(name) => {
            let field = join(path, name);
            // A field of one allowed value says it (`kind`: `task`).
            let only = schema_at(action, &field)
                .and_then(|sub| sub["enum"].as_array())
                .filter(|values| values.len() == 1)
                .map(|values| format!("Required: `\"{name}\": {}`, its one value.", values[0]));
            errors
                .entry(field)
                .or_insert_with(|| only.unwrap_or_else(|| "Required.".to_string()));
        }
        kind => {
            errors.entry(path.to_string()).or_insert_with(|| {
                let said = match kind {
                    Kind::Pattern(pattern) => {
                        pattern_fix(pattern, input, path).unwrap_or_else(|| describe(kind))
                    }
                    Kind::Type(names) => wrong_type(action, path, names),
                    _ => describe(kind),
                };
                // An empty or blank value given to clear a field: say how.
                let emptied = matches!(kind, Kind::MinLength(_))
                    || matches!(kind, Kind::Pattern(p) if p == "\\S");
                if emptied && nullable(action, path) {
                    format!("{said} `null` clears it.")
                } else {
                    said
                }
            });
        }
    }
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
    schema::walk_properties(action.schema(), "", &mut props);
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

/// A type error's words, with the shape wanted where a list or an object
/// was: `[…]` around one value, or the object's required fields.
fn wrong_type(action: &Action, path: &str, names: &[&str]) -> String {
    let said = format!("Must be of type {}", names.join(" or "));
    match names {
        ["array"] => format!("{said}; put the value in a list: `[…]`."),
        ["object"] => {
            let required: Vec<String> = schema_at(action, path)
                .and_then(|sub| sub["required"].as_array())
                .map(|names| {
                    names
                        .iter()
                        .filter_map(Value::as_str)
                        .map(|n| format!("\"{n}\": …"))
                        .collect()
                })
                .unwrap_or_default();
            if required.is_empty() {
                format!("{said}.")
            } else {
                format!("{said}: `{{{}}}`.", required.join(", "))
            }
        }
        _ => format!("{said}."),
    }
}

/// How an unknown field that names no field here starts: the fields there
/// are follow.
const FIELDS_HERE: &str = "Unknown field; the fields here are";

/// How many nearest sibling names an unknown field's candidates list when
/// no one name is proposed.
const NEAREST_NAMES: usize = 3;

/// The message for an unknown field and the known names it may have meant,
/// nearest first: the snake_case spelling, the registry's synonym, or the
/// siblings nearest by edit distance.
fn unknown_field(
    name: &str,
    parent_path: &str,
    action: &Action,
    parent: Option<&Value>,
) -> (String, Vec<String>) {
    let mut message = unknown_field_message(name, parent_path, action, parent);
    // Hidden context cannot be set, and a field of another action is
    // fixed by that action: no name here would do.
    if message.contains("hidden context")
        || message.contains("pages are read by cursor")
        || message.contains("; it is `")
        || message.contains("` is set by ")
        || message.contains("` is read-only")
    {
        return (message, Vec::new());
    }
    let snake = crate::case::camel_to_snake(name);
    let siblings = sibling_fields(action, parent_path);
    // The name the message proposes comes first, then the nearest others.
    let proposed = siblings
        .iter()
        .find(|s| message.contains(&format!("`{s}`")))
        .map(String::as_str);
    let lower = snake.to_ascii_lowercase();
    let mut ranked: Vec<(usize, &str)> = siblings
        .iter()
        .map(String::as_str)
        .filter(|s| Some(*s) != proposed)
        .map(|s| (edit_distance(&lower, s), s))
        .collect();
    ranked.sort();
    // A name the message proposes stands alone: runners-up would only be
    // noise beside a confident fix; and its value is shown in the shape
    // the name takes, when the one given does not fit it (`numbers: [2]`
    // for `number`).
    let names = match proposed {
        Some(field) => {
            // Only for a rename here, and not over a value the field has.
            let renamed = !message.starts_with("Unknown field here")
                && parent.is_some_and(|p| p.get(field).is_none());
            let written = parent
                .and_then(|p| p.get(name))
                .filter(|_| renamed)
                .and_then(|value| reshaped(action, parent_path, field, value));
            if let Some(written) = written {
                message.push_str(&format!(" Write it `{written}`."));
            }
            vec![field.to_string()]
        }
        // A field at the wrong level: the message says where it goes; no
        // name here would do.
        None if message.starts_with("Unknown field here") => Vec::new(),
        // Nothing near: the fields there are, and no candidate that would
        // only fail in its turn (`force` is no misspelt `number`).
        None if message == "Unknown field." => {
            let fields: Vec<String> = siblings.iter().map(|s| format!("`{s}`")).collect();
            message = format!(
                "{FIELDS_HERE} {}: rename it to the one meant, or drop it.",
                fields.join(", ")
            );
            Vec::new()
        }
        None => ranked
            .into_iter()
            .map(|(_, s)| s.to_string())
            .take(NEAREST_NAMES)
            .collect(),
    };
    (message, names)
}

/// `"field": value` with `value` in the shape `field` takes, when the one
/// given does not fit it: a list of one taken out of it (`"number": 2`),
/// or one value put in a list (`"numbers": [3]`, `"tasks": [{…}]`), when
/// that fits the field's type ([`of_type`]: `"tasks": ["Write docs"]` would
/// fail in its turn). `None` when the value fits, or no such shape does.
fn reshaped(action: &Action, parent_path: &str, field: &str, value: &Value) -> Option<String> {
    let schema = schema_at(action, &join(parent_path, field))?;
    if of_type(schema, value) {
        return None;
    }
    let unwrapped = match value {
        Value::Array(items) if items.len() == 1 => Some(items[0].clone()),
        _ => None,
    };
    let fitted = unwrapped
        .into_iter()
        .chain(std::iter::once(Value::Array(vec![value.clone()])))
        .find(|candidate| of_type(schema, candidate))?;
    let written = fitted.to_string();
    // Shown whole or not at all: an elided value does not run as written.
    (written.chars().count() <= 60).then(|| format!("\"{field}\": {written}"))
}

/// Whether `value` is of a type `schema` names, and each item of a list of
/// a type its `items` name.
fn of_type(schema: &Value, value: &Value) -> bool {
    let named = |t: &str| match &schema["type"] {
        Value::String(one) => one == t,
        Value::Array(many) => many.iter().any(|m| m == t),
        _ => true,
    };
    match value {
        Value::Array(items) => {
            named("array") && items.iter().all(|item| of_type(&schema["items"], item))
        }
        Value::Object(_) => named("object"),
        Value::String(_) => named("string"),
        Value::Bool(_) => named("boolean"),
        Value::Null => named("null"),
        Value::Number(n) => named("number") || (named("integer") && (n.is_i64() || n.is_u64())),
    }
}

/// Whether the model-facing `path` (`tasks/0/scope_id`) names a field of
/// the action's input.
pub fn names_a_field(action: &Action, path: &str) -> bool {
    let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
    sibling_fields(action, parent).iter().any(|s| s == name)
}

/// The fields an object at `parent_path` of the input may have: the
/// schema's properties with that parent (array indexes read as `items`).
fn sibling_fields(action: &Action, parent_path: &str) -> Vec<String> {
    let mut props = Vec::new();
    schema::walk_properties(action.schema(), "", &mut props);
    let parent = schema_path(parent_path, "");
    props
        .into_iter()
        .filter_map(|(p, _)| p.strip_prefix(parent.as_str()).map(str::to_string))
        .filter(|rest| !rest.is_empty() && !rest.contains('/'))
        .collect()
}

fn unknown_field_message(
    name: &str,
    parent_path: &str,
    action: &Action,
    parent: Option<&Value>,
) -> String {
    let hidden = HiddenContext::ALL.iter().any(|h| {
        h.spellings()
            .contains(&crate::case::camel_to_snake(name).as_str())
    });
    if hidden {
        return "Unknown field: hidden context (workspace, agent, workflow run, callback effect, token) is injected by agentteam; it cannot be set in input.".into();
    }
    let snake = crate::case::camel_to_snake(name);
    let siblings = sibling_fields(action, parent_path);
    if snake != name && siblings.contains(&snake) {
        return format!("Unknown field; fields are snake_case: use `{snake}`.");
    }
    let lower = snake.to_ascii_lowercase();
    // A word that means a field only where that field is a sibling (`title`
    // of a checklist item is its `text`).
    if let Some((_, field)) = synonyms::HERE_ONLY
        .iter()
        .find(|(w, field)| *w == lower && siblings.iter().any(|s| s == field))
    {
        return format!("Unknown field; use `{field}`.");
    }
    let synonym = synonyms::FIELDS.iter().find(|(w, _, _)| *w == lower);
    if let Some((_, field, elsewhere)) = synonym {
        if ["page", "offset"].contains(&lower.as_str()) && siblings.iter().any(|s| s == field) {
            // A page number or offset has no cursor to become.
            return "Unknown field; pages are read by cursor, not by number: drop it, and for the next page pass the next cursor the last page answered as `cursor`.".into();
        }
        if siblings.iter().any(|s| s == field) {
            return format!("Unknown field; use `{field}`.");
        }
        if let Some(other) = elsewhere.and_then(find_by_name) {
            return format!(
                "Unknown field; it is `{field}` of {} (`{}`).",
                other.name(),
                other.cli_command()
            );
        }
    }
    // A claim's state by another name (`state: "claimed"`): `claimed`,
    // unless it is given too.
    if siblings.iter().any(|s| s == "claimed")
        && parent.is_some_and(|p| p.get("claimed").is_none())
        && ["state", "status", "claim", "claim_state", "action"].contains(&lower.as_str())
    {
        return "Unknown field; use `claimed`: `true` claims, `false` releases.".into();
    }
    // A slip of the finger on a field here comes first.
    let nearest = siblings
        .iter()
        .map(|s| (edit_distance(&lower, s), s.as_str()))
        .filter(|(d, s)| *d <= (s.len() / 3).clamp(1, 3))
        .min();
    if let Some((_, field)) = nearest {
        return format!("Unknown field; did you mean `{field}`?");
    }
    // The start of exactly one field's name (`desc`, `prio`).
    let mut started = siblings
        .iter()
        .filter(|s| lower.len() >= 3 && s.starts_with(lower.as_str()));
    if let (Some(field), None) = (started.next(), started.next()) {
        return format!("Unknown field; did you mean `{field}`?");
    }
    // One word of exactly one field's name (`mode` for `subtask_mode`).
    let mut holding = siblings
        .iter()
        .filter(|s| s.contains('_') && s.split('_').any(|word| word == lower));
    if let (Some(field), None) = (holding.next(), holding.next()) {
        return format!("Unknown field; did you mean `{field}`?");
    }
    // A field of this action given at the wrong level (a list filter at the
    // top, a task's title beside `tasks`): where it goes, and its shape.
    let wanted = synonym.map_or(lower.as_str(), |(_, field, _)| field);
    if let Some(home) = home_elsewhere(action, parent_path, wanted) {
        return format!(
            "Unknown field here; `{wanted}` belongs {}: `{}`.",
            match home.as_str() {
                "" => "at the top level of the input".to_string(),
                home => format!("in `{}`", home.trim_end_matches("/*")),
            },
            shape(&home, wanted)
        );
    }
    // A field another action sets (`status` on a checkpoint).
    if let Some(other) = crate::registry::ACTIONS.iter().find(|a| {
        !a.read_only()
            && a.name() != action.name()
            && sibling_fields(a, "").iter().any(|f| f == wanted)
    }) {
        return format!(
            "Unknown field; `{wanted}` is set by {} (`{}`).",
            other.name(),
            other.cli_command()
        );
    }
    // A field answers carry but no input sets (`scope_id`, `created_by`).
    let output = action.output_schema();
    let mut answered = Vec::new();
    schema::walk_properties(&output, "", &mut answered);
    if answered
        .iter()
        .any(|(path, _)| path.rsplit('/').next() == Some(wanted))
    {
        return format!(
            "Unknown field; `{wanted}` is read-only: answers carry it, input cannot set it."
        );
    }
    "Unknown field.".into()
}

/// Where else in `action`'s input a field called `field` lives, when not
/// beside `parent_path`: its container as the input writes it (`filters`,
/// `tasks/*` for each item of `tasks`, `` for the top level), the one
/// nearest the top first.
fn home_elsewhere(action: &Action, parent_path: &str, field: &str) -> Option<String> {
    let mut props = Vec::new();
    schema::walk_properties(action.schema(), "", &mut props);
    let here = schema_path(parent_path, "");
    props
        .iter()
        .filter_map(|(path, _)| {
            let (parent, last) = path.rsplit_once('/').unwrap_or(("", path));
            (last == field).then_some(parent)
        })
        .filter(|parent| {
            let prefix = if parent.is_empty() {
                String::new()
            } else {
                format!("{parent}/")
            };
            prefix != here
        })
        .min_by_key(|parent| parent.matches('/').count())
        .map(|parent| {
            parent
                .split('/')
                .map(|segment| if segment == "items" { "*" } else { segment })
                .collect::<Vec<_>>()
                .join("/")
        })
}

/// The JSON shape that puts `field` in `home` (a [`home_elsewhere`] path):
/// `{"filters": {"parent": …}}`, `{"tasks": [{"title": …}]}`.
fn shape(home: &str, field: &str) -> String {
    let mut inner = format!("{{\"{field}\": …}}");
    for segment in home.split('/').filter(|s| !s.is_empty()).rev() {
        inner = if segment == "*" {
            format!("[{inner}]")
        } else {
            format!("{{\"{segment}\": {inner}}}")
        };
    }
    inner
}

/// Edit distance over chars: insertions, deletions, substitutions, and
/// swaps of two neighbours (optimal string alignment), so `dmeo` is one
/// slip from `demo`, as `demi` is.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows: two back (for a swap), the one before, this one.
    let mut two_back: Vec<usize> = vec![0; b.len() + 1];
    let mut before: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (before[j] + 1)
                .min(row[j - 1] + 1)
                .min(before[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(two_back[j - 2] + 1);
            }
            row[j] = best;
        }
        std::mem::swap(&mut two_back, &mut before);
        std::mem::swap(&mut before, &mut row);
    }
    before[b.len()]
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
    let re = regex::Regex::new(pattern).ok()?;
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
        Kind::MinItems(limit) => format!("Must have at least {limit} items."),
        Kind::MaxItems(limit) => format!("Must have at most {limit} items."),
        Kind::UniqueItems => "Items must be distinct.".into(),
        Kind::Pattern(pattern) => {
            if pattern == "\\S" {
                "Must not be blank.".into()
            } else {
                format!("Must match the pattern {pattern}.")
            }
        }
        Kind::Required(_) | Kind::Additional(_) | Kind::Other => "Invalid value.".into(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use super::*;
    use crate::registry::{ACTIONS, find};
    use serde_json::json;

    fn errors(domain: &str, verb: &str, input: Value) -> FieldErrors {
        validate(find(domain, verb).unwrap(), input)
            .unwrap_err()
            .field_errors
    }

    #[test]
    fn a_huge_unknown_field_name_is_not_echoed_back() {
        let name = "x".repeat(300_000);
        for input in [
            json!({"channel": "eng", "tasks": [{"title": "t"}], &name: 1}),
            json!({"channel": "eng", "tasks": [{"title": "t", &name: 1}]}),
        ] {
            let failure = validate(find("task", "create").unwrap(), input).unwrap_err();
            let document = failure.to_document().to_string();
            assert!(document.len() < 2_000, "{} bytes", document.len());
            let key = failure.field_errors.keys().next().unwrap();
            assert!(key.ends_with('…') && key.chars().count() == 64, "{key}");
            assert!(failure.message.contains(key.as_str()));
        }
        // The HTTP query path of a read is bounded the same way.
        let failure = crate::wire::decode_query(
            find("task", "list").unwrap(),
            &[(name.clone(), "1".into()), (name, "2".into())],
        )
        .unwrap_err();
        assert!(failure.to_document().to_string().len() < 2_000);
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
        assert!(
            e["extra"].starts_with("Unknown field; the fields here are `channel`"),
            "{e:?}"
        );
    }

    #[test]
    fn an_answer_names_at_most_max_field_errors_and_says_when_there_are_more() {
        let action = find("task", "create").unwrap();
        let with_unknown = |n: usize| {
            let mut input = json!({"channel": "eng", "tasks": [{"title": "t"}]});
            let extra = (0..n).map(|i| (format!("x{i}"), json!(1)));
            input.as_object_mut().unwrap().extend(extra);
            validate(action, input).unwrap_err()
        };
        // 2,000 unknown fields: 100 errors, and a message that says more
        // were wrong.
        let failure = with_unknown(2000);
        assert_eq!(failure.field_errors.len(), MAX_FIELD_ERRORS);
        assert_eq!(
            failure.message,
            format!(
                "Invalid input: more than {MAX_FIELD_ERRORS} fields are wrong; see field_errors for those found first."
            )
        );
        // Exactly as many as an answer carries: all of them, counted.
        let failure = with_unknown(MAX_FIELD_ERRORS);
        assert_eq!(failure.field_errors.len(), MAX_FIELD_ERRORS);
        assert_eq!(
            failure.message,
            format!("Invalid input: {MAX_FIELD_ERRORS} fields are wrong; see field_errors.")
        );
    }

    #[test]
    fn only_input_that_holds_to_its_schema_is_judged_without_words() {
        let action = find("task", "get").unwrap();
        let good = json!({"channel": "eng", "number": 3});
        assert_eq!(
            validate_if_schema_holds(action, good.clone())
                .unwrap()
                .unwrap(),
            validate(action, good).unwrap()
        );
        assert!(validate_if_schema_holds(action, json!({"channel": "eng", "numbr": 3})).is_none());
        assert!(validate_if_schema_holds(action, json!([1])).is_none());
        // A branch rule's refusal is the one validate gives.
        let action = find("task", "update").unwrap();
        let nothing = json!({"channel": "eng", "number": 3});
        assert_eq!(
            validate_if_schema_holds(action, nothing.clone())
                .unwrap()
                .unwrap_err()
                .to_document(),
            validate(action, nothing).unwrap_err().to_document()
        );
    }

    #[test]
    fn refuses_hidden_context_and_camel_case() {
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", "workspaceId": "w", "agent_id": "a", "includeSubtasks": true, "token": "t"}),
        );
        assert!(e["workspaceId"].starts_with("Unknown field: hidden context"));
        assert!(e["agent_id"].starts_with("Unknown field: hidden context"));
        assert!(e["token"].starts_with("Unknown field: hidden context"));
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
    fn a_wrong_shape_or_spelling_says_what_to_change() {
        let e = errors(
            "task",
            "set_claim",
            json!({"channel": "Eng", "numbers": 2, "claimed": true}),
        );
        assert_eq!(
            e["numbers"],
            "Must be of type array; put the value in a list: `[…]`."
        );
        assert_eq!(e["channel"], "Must be lowercase.");
        let e = errors(
            "task",
            "create",
            json!({"parent_task_scope": "tsk_1", "tasks": [{"title": "a", "assignee": "bob"}]}),
        );
        assert_eq!(
            e["parent_task_scope"],
            r#"Must be of type object: `{"kind": …, "scope_id": …}`."#
        );
        assert_eq!(
            e["tasks/0/assignee"],
            "A member ref starts with `@`: write `@` before the handle."
        );
        let e = errors(
            "task",
            "delete",
            json!({"channel": "eng", "number": 1, "recursive": true}),
        );
        assert_eq!(e["recursive"], "Unknown field; use `subtask_mode`.");
        // Neither fix where it would be wrong: a blank value is no missing
        // `@`, and a target's thread id may have capitals.
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "target": "#Eng:Thread1", "tasks": [{"title": "  "}]}),
        );
        assert_eq!(e["tasks/0/title"], "Must not be blank.");
        assert!(
            e["target"].starts_with("Must match the pattern"),
            "{}",
            e["target"]
        );
    }

    #[test]
    fn an_unknown_field_is_a_slip_first_then_another_actions_then_read_only() {
        let e = errors(
            "task",
            "set_claim",
            json!({"channel": "eng", "numbers": [2], "claimed": true, "number": 3}),
        );
        assert_eq!(e["number"], "Unknown field; did you mean `numbers`?");
        let e = errors(
            "task",
            "checkpoint",
            json!({"channel": "eng", "number": 2, "summary": "s", "status": "done"}),
        );
        assert_eq!(
            e["status"],
            "Unknown field; `status` is set by task_update (`agentteam exec task update -`)."
        );
    }

    #[test]
    fn an_emptied_field_that_null_clears_says_so() {
        let e = errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 1, "assignee": "", "title": ""}),
        );
        assert_eq!(
            e["assignee"],
            "Must be at least 1 character. `null` clears it."
        );
        assert_eq!(
            e["title"], "Must be at least 1 character.",
            "a title cannot be cleared"
        );
    }

    #[test]
    fn a_field_at_the_wrong_level_is_told_where_it_goes() {
        let refused =
            |verb: &str, input: Value| validate(find("task", verb).unwrap(), input).unwrap_err();
        let f = refused("list", json!({"channel": "eng", "parent": 1, "mine": true}));
        assert_eq!(
            f.field_errors["parent"],
            r#"Unknown field here; `parent` belongs in `filters`: `{"filters": {"parent": …}}`."#
        );
        assert!(f.field_errors["mine"].contains(r#"`{"filters": {"assigned_to_me": …}}`"#));
        let f = refused("create", json!({"channel": "eng", "title": "a"}));
        assert_eq!(
            f.field_errors["title"],
            r#"Unknown field here; `title` belongs in `tasks`: `{"tasks": [{"title": …}]}`."#
        );
        assert_eq!(f.candidate_list()[0].value, json!("tasks"));
        let f = refused(
            "list",
            json!({"channel": "eng", "filters": {"channel": "x"}}),
        );
        assert!(f.field_errors["filters/channel"].contains("at the top level"));
        assert!(
            f.candidate_list().is_empty(),
            "no name at this level would do"
        );
        // Output names given back as input.
        let f = refused(
            "update",
            json!({"channel": "eng", "number": 1, "status": "done", "updated_at": "x"}),
        );
        assert_eq!(
            f.field_errors["updated_at"],
            "Unknown field; use `expected_updated_at`."
        );
        let f = refused(
            "create",
            json!({"channel": "eng", "tasks": [{"title": "a"}], "parent_number": 1}),
        );
        assert_eq!(
            f.field_errors["parent_number"],
            "Unknown field; use `parent`."
        );
        let f = refused(
            "update",
            json!({"channel": "eng", "number": 1, "scope_id": "tsk_1"}),
        );
        assert_eq!(
            f.field_errors["scope_id"],
            "Unknown field; `scope_id` is read-only: answers carry it, input cannot set it."
        );
    }

    /// A proposed name comes with the value in the shape that name takes;
    /// a word of one field's name proposes it; nothing near proposes no
    /// candidate; a page number is pointed at the cursor; hidden context
    /// gets no candidate.
    #[test]
    fn unknown_field_hints_run_as_written() {
        let refused =
            |verb: &str, input: Value| validate(find("task", verb).unwrap(), input).unwrap_err();
        let f = refused("get", json!({"channel": "eng", "numbers": [2]}));
        assert_eq!(
            f.field_errors["numbers"],
            "Unknown field; did you mean `number`? Write it `\"number\": 2`."
        );
        let f = refused(
            "set_claim",
            json!({"channel": "eng", "number": 3, "claimed": true}),
        );
        assert!(
            f.field_errors["number"].ends_with("Write it `\"numbers\": [3]`."),
            "{f:?}"
        );
        let f = refused("create", json!({"channel": "eng", "task": {"title": "x"}}));
        assert!(
            f.field_errors["task"].ends_with("Write it `\"tasks\": [{\"title\":\"x\"}]`."),
            "{f:?}"
        );
        let f = refused("list", json!({"channel": "eng", "filters": {"label": "x"}}));
        assert_eq!(
            f.field_errors["filters/label"],
            "Unknown field; use `labels`. Write it `\"labels\": [\"x\"]`."
        );
        let f = refused(
            "delete",
            json!({"channel": "eng", "number": 1, "mode": "promote"}),
        );
        assert_eq!(
            f.field_errors["mode"],
            "Unknown field; did you mean `subtask_mode`?"
        );
        for (verb, input, field) in [
            (
                "delete",
                json!({"channel": "eng", "number": 1, "force": true}),
                "force",
            ),
            (
                "create",
                json!({"channel": "eng", "workspace_id": "w", "tasks": [{"title": "x"}]}),
                "workspace_id",
            ),
            ("list", json!({"channel": "eng", "page": 2}), "page"),
        ] {
            let f = refused(verb, input);
            assert!(f.candidate_list().is_empty(), "{field}: {f:?}");
        }
        let f = refused("list", json!({"channel": "eng", "page": 2}));
        assert!(
            f.field_errors["page"].contains("the next cursor the last page answered as `cursor`"),
            "{f:?}"
        );
        // A reshaped value is shown only when it is of the field's type
        // and whole; a field named with digits is no list item; an
        // abbreviation proposes the field it starts; a claim's state is
        // not `claimed` when that is given; `title` is `text` only where
        // `text` is a field.
        let f = refused("create", json!({"channel": "eng", "task": "Write docs"}));
        assert_eq!(
            f.field_errors["task"],
            "Unknown field; did you mean `tasks`?"
        );
        let f = refused("get", json!({"channel": "eng", "numbers": ["abc"]}));
        assert_eq!(
            f.field_errors["numbers"],
            "Unknown field; did you mean `number`?"
        );
        let long = "x".repeat(80);
        let f = refused("get", json!({"channel": "eng", "numbers": [long]}));
        assert!(!f.field_errors["numbers"].contains("Write it"), "{f:?}");
        let f = refused(
            "create",
            json!({"channel": "eng", "1": 1, "2": 2, "tasks": [{"title": "a"}]}),
        );
        assert_eq!(f.field_errors.len(), 2, "{f:?}");
        assert_eq!(
            f.field_errors["2"],
            "Unknown field; the fields here are listed at `1` beside it."
        );
        let f = refused(
            "create",
            json!({"channel": "eng", "tasks": [{"title": "x", "desc": "d", "prio": "high"}]}),
        );
        assert_eq!(
            f.field_errors["tasks/0/desc"],
            "Unknown field; did you mean `description`?"
        );
        assert_eq!(
            f.field_errors["tasks/0/prio"],
            "Unknown field; did you mean `priority`?"
        );
        let f = refused(
            "set_claim",
            json!({"channel": "eng", "numbers": [1], "claimed": true, "status": "done"}),
        );
        assert!(
            f.field_errors["status"].contains("is set by task_update"),
            "{f:?}"
        );
        let f = refused("get", json!({"channel": "eng", "number": 1, "title": "x"}));
        assert!(
            f.field_errors["title"].contains("is set by task_update"),
            "{f:?}"
        );
        // A checklist item's words, its shape, and a one-valued field.
        let f = refused(
            "create",
            json!({"channel": "eng", "tasks": [{"title": "x", "checklist": [{"title": "a"}, "b", "c"]}]}),
        );
        let e = &f.field_errors;
        assert_eq!(e["tasks/0/checklist/0/title"], "Unknown field; use `text`.");
        assert_eq!(
            e["tasks/0/checklist/1"],
            "Must be of type object: `{\"text\": …}`."
        );
        // A few repeats stay listed, each under its own path.
        assert_eq!(e["tasks/0/checklist/2"], e["tasks/0/checklist/1"]);
        let f = refused(
            "create",
            json!({"parent_task_scope": {"scope_id": "tsk_1"}, "tasks": [{"title": "x"}]}),
        );
        assert_eq!(
            f.field_errors["parent_task_scope/kind"],
            "Required: `\"kind\": \"task\"`, its one value."
        );
        let f = refused(
            "create",
            json!({"channel": "eng", "parent_task_scope": {"kind": "task", "id": "t"}}),
        );
        assert_eq!(
            f.field_errors["parent_task_scope/id"],
            "Unknown field; did you mean `scope_id`?"
        );
        let f = refused(
            "set_claim",
            json!({"channel": "eng", "numbers": [4], "state": "claimed"}),
        );
        assert_eq!(
            f.field_errors["state"],
            "Unknown field; use `claimed`: `true` claims, `false` releases."
        );
    }

    /// One mistake repeated in every item of a batch is said once, at its
    /// first item, with the other items' indexes: fifty tasks with `name`
    /// for `title` made a 4 KB error of one sentence a hundred times.
    #[test]
    fn a_mistake_repeated_in_a_batch_is_said_once() {
        let tasks: Vec<Value> = (0..50)
            .map(|i| {
                if i % 7 == 3 {
                    json!({"title": " "})
                } else {
                    json!({"name": format!("t{i}")})
                }
            })
            .collect();
        let failure = validate(
            find("task", "create").unwrap(),
            json!({"channel": "eng", "tasks": tasks}),
        )
        .unwrap_err();
        let document = failure.to_document().to_string();
        assert!(
            document.len() < 1_000,
            "{} bytes: {document}",
            document.len()
        );
        let e = &failure.field_errors;
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(
            e["tasks/0/name"]
                .starts_with("Unknown field; use `title`. Also at items 1–2, 4–9, 11–16,"),
            "{e:?}"
        );
        assert_eq!(
            e["tasks/3/title"],
            "Must not be blank. Also at items 10, 17, 24, 31, 38, 45 of this list."
        );
        assert!(e.contains_key("tasks/0/title"), "{e:?}");
        assert_eq!(
            failure.candidate_list().len(),
            1,
            "{:?}",
            failure.candidate_list()
        );
    }

    /// When more problems than an answer names were found, a repeated one's
    /// items are said to be maybe more, and the message says the list is
    /// cut: the items past the cut were not looked at.
    #[test]
    fn a_cut_list_of_problems_says_its_groups_may_be_longer() {
        let tasks: Vec<Value> = (0..50)
            .map(|_| json!({"name": "n", "x0": 1, "x1": 1, "x2": 1}))
            .collect();
        let failure = validate(
            find("task", "create").unwrap(),
            json!({"channel": "eng", "tasks": tasks}),
        )
        .unwrap_err();
        assert!(
            failure
                .message
                .starts_with("Invalid input: more than 100 fields are wrong"),
            "{}",
            failure.message
        );
        assert!(
            failure.field_errors["tasks/0/name"]
                .ends_with("and maybe at items past the problems this answer names."),
            "{:?}",
            failure.field_errors
        );
    }

    #[test]
    fn unknown_fields_get_the_nearest_name_or_the_registry_synonym() {
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "tasks": [{"title": "a", "assigne": "@b", "tags": ["x"], "frobnicate": 1}]}),
        );
        assert_eq!(
            e["tasks/0/assigne"],
            "Unknown field; did you mean `assignee`?"
        );
        assert_eq!(e["tasks/0/tags"], "Unknown field; use `labels`.");
        assert_eq!(
            e["tasks/0/frobnicate"],
            "Unknown field; the fields here are `title`, `description`, `status`, `priority`, `assignee`, `labels`, `checklist`, `urls`, `attachments`, `blocker`: rename it to the one meant, or drop it."
        );
        let e = errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 1, "comment": "c"}),
        );
        assert_eq!(
            e["comment"],
            "Unknown field; it is `summary` of task_checkpoint (`agentteam exec task checkpoint -`)."
        );
        let e = errors(
            "task",
            "checkpoint",
            json!({"channel": "eng", "number": 1, "comment": "c"}),
        );
        assert_eq!(e["comment"], "Unknown field; use `summary`.");
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", "filters": {"asignee": "@b"}}),
        );
        assert_eq!(
            e["filters/asignee"],
            "Unknown field; did you mean `assignee`?"
        );
    }

    #[test]
    fn a_channel_with_a_hash_is_told_to_drop_it() {
        let e = errors("task", "get", json!({"channel": "#eng", "number": 1}));
        assert_eq!(
            e["channel"],
            "Drop the leading `#`: the name is written without it."
        );
        let e = errors("task", "get", json!({"channel": "#Eng!", "number": 1}));
        assert!(e["channel"].starts_with("Must match"), "{e:?}");
        let e = errors("task", "get", json!({"channel": "#Eng", "number": 1}));
        assert!(
            e["channel"].starts_with("Drop the leading `#` and write it in lowercase"),
            "{e:?}"
        );
        assert_eq!(edit_distance("assigne", "assignee"), 1);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("dmeo", "demo"), 1);
        assert_eq!(edit_distance("release-egn", "release-eng"), 1);
        assert_eq!(edit_distance("ca", "abc"), 3);
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
        // Whitespace around a key does not count toward its length.
        let padded = format!("  {}\n\t ", "k".repeat(128));
        let valid = validate(
            find("task", "create").unwrap(),
            json!({"channel": "eng", "tasks": [{"title": "a"}], "idempotency_key": padded}),
        )
        .unwrap();
        assert_eq!(valid["idempotency_key"], "k".repeat(128));
        let e = errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 1, "expected_updated_at": "2026-01-01T00:00:00Z"}),
        );
        assert!(e[""].starts_with("Give at least one field to change"));
        let e = errors(
            "task",
            "set_claim",
            json!({"channel": "eng", "numbers": [1, 1], "claimed": true}),
        );
        assert_eq!(e["numbers"], "Items must be distinct.");
    }

    /// Every keyword of every input schema is one [`Kind`] words, and
    /// every object is closed (`additionalProperties: false`), which the
    /// unknown-field messages rely on.
    #[test]
    fn schemas_use_only_keywords_validation_words() {
        fn walk(schema: &Value, path: &str) {
            let object = schema.as_object().expect("a schema is an object");
            for (key, sub) in object {
                assert!(KEYWORDS.contains(&key.as_str()), "{path}: keyword {key}");
                match key.as_str() {
                    "properties" => {
                        for (name, prop) in sub.as_object().unwrap() {
                            walk(prop, &format!("{path}/{name}"));
                        }
                    }
                    "items" => walk(sub, &format!("{path}/items")),
                    _ => {}
                }
            }
            if object.contains_key("properties") {
                assert_eq!(object["additionalProperties"], false, "{path}");
            }
        }
        for action in ACTIONS {
            walk(action.schema(), &action.name());
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
            // Blank in Rust's `\s` but not in ECMA-262's, and the reverse.
            json!("\u{85}"),
            json!("\u{feff}"),
            json!("https://x\u{85}"),
            json!("https://x\u{feff}"),
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

    /// The field errors of jsonschema's run-time (2020-12) validator, built
    /// from the schema value (every pattern compiled as it is built): the
    /// reference the compiled validators, generated code with an error
    /// order of its own, are held to, message for message.
    fn reference_errors(action: &Action, input: &Value) -> FieldErrors {
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
        let mut violations: Vec<Violation> = validators[action.index()]
            .iter_errors(input)
            .map(|e| Violation::from_error(&e))
            .collect();
        violations.sort_by_key(|v| v.kind.rank());
        field_errors(action, input, &violations)
    }

    fn field_errors(action: &Action, input: &Value, violations: &[Violation]) -> FieldErrors {
        let mut errors = FieldErrors::new();
        for violation in violations {
            assert_ne!(violation.kind, Kind::Other, "{}", action.name());
            record(violation, action, input, &mut errors, &mut Vec::new());
        }
        errors
    }

    /// Asserts the compiled validator gives the reference's field errors;
    /// returns whether it refused.
    fn assert_agrees(action: &Action, input: &Value) -> bool {
        let reference = reference_errors(action, input);
        assert_eq!(
            field_errors(action, input, &violations(action, input)),
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
        for action in ACTIONS {
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
