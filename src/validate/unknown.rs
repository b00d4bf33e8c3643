//! The hints for an unknown field: the snake_case spelling, the registry's
//! synonyms, a field that lives elsewhere in the input (with the shape that
//! puts it there), an abbreviation or a word of one field's name, the
//! nearest names by edit distance, or, with nothing near, the fields of the
//! object once.

use serde_json::Value;

use super::{join, schema_at, schema_path};
use crate::nearest::edit_distance;
use crate::registry::{Action, HiddenContext, find_by_name, schema, synonyms};

/// How an unknown field that names no field here starts: the fields there
/// are follow.
pub(super) const FIELDS_HERE: &str = "Unknown field; the fields here are";
/// How an unknown field of an input that is an answer copied whole begins
/// ([`an_answers_item`]): said whole once, its siblings pointed to it.
pub(super) const ANSWER_COPIED: &str = "Unknown field; the input is an answer copied whole";

/// How many nearest sibling names an unknown field's candidates list when
/// no one name is proposed.
const NEAREST_NAMES: usize = 3;

/// The fix an unknown field's message proposes, when making it is all the
/// message asks: the input is then judged again as fixed, so what is wrong
/// inside the value is said in the same answer (`validate::said_once_fixed`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Fix {
    /// Rename the key to this field.
    Rename(String),
    /// Put the fields the key holds beside it, at its level.
    Unwrap,
    /// Rename the key to this field, with its value in the shape the
    /// field takes (`"numbers": [2]` → `"number": 2`).
    Reshape(String, Value),
    /// Move the key, as this field, to where the action has it: the path
    /// of the object that holds it (a [`home_elsewhere`] path, `filters`,
    /// `tasks/*`: an item of a list the one item there is), with the value
    /// it is to have there when not the one given (`"@me"` as a filter of
    /// the caller's own tasks is `assigned_to_me: true`).
    Move(String, String, Option<Value>),
}

/// The message for an unknown field and the known names it may have meant,
/// nearest first: the snake_case spelling, the registry's synonym, or the
/// siblings nearest by edit distance.
pub(super) fn unknown_field(
    name: &str,
    parent_path: &str,
    action: &Action,
    parent: Option<&Value>,
) -> (String, Vec<String>, Option<Fix>) {
    if let Some((message, fix)) = parent
        .filter(|_| parent_path.is_empty())
        .and_then(|input| call(action, input, name))
    {
        return (message, Vec::new(), fix);
    }
    let (said, mut message) = unknown_field_message(name, parent_path, action, parent);
    let siblings = sibling_fields(action, parent_path);
    // An object of this level's own fields, wrapped (`patch: {status}`,
    // `changes: {…}`, `data: {…}`, as some APIs take an update): unwrap
    // it, whatever the wrapper's name is near (`changes` is no `channel`,
    // `body` no `description`, when what it holds are this level's fields).
    if said != Said::Hidden && wraps_siblings(&siblings, parent, name) {
        let shown = crate::redact::tokens(name);
        return (
            format!(
                "Unknown field; `{}` is no wrapper here: put the fields it holds beside the others, at this level.",
                crate::text::clip(&shown, 64)
            ),
            Vec::new(),
            Some(Fix::Unwrap),
        );
    }
    // An object of the fields of one item of a list here, wrapped (Jira's
    // `fields: {summary, description}` for a new task): the list of that
    // one item, its fields judged there.
    // Not a name of a field here (`task` for `tasks`), said so below.
    if !matches!(said, Said::Hidden | Said::Here(_) | Said::NoNameHere)
        && let Some((list, inner)) = wraps_an_item(action, parent_path, &siblings, parent, name)
    {
        let shown = crate::redact::tokens(name);
        return (
            format!(
                "Unknown field; `{}` is no wrapper here: what it holds are the fields of one item of `{list}`, which go in it: `{}`.",
                crate::text::clip(&shown, 64),
                shape(&format!("{list}/*"), "…").replace("{\"…\": …}", "{…}"),
            ),
            vec![list.clone()],
            Some(Fix::Reshape(list, Value::Array(vec![inner]))),
        );
    }
    // Hidden context cannot be set, and a field of another action is
    // fixed by that action: no name here would do.
    if matches!(said, Said::Hidden | Said::NoNameHere) {
        return (message, Vec::new(), None);
    }
    // The field it means is given too (`id` beside `number`): a rename
    // would give that field twice. With the same value it says nothing
    // more; with another, which of the two is meant only the caller knows
    // (`board` beside an update's `channel` is no move).
    if let Said::Here(field) = &said
        && let Some(kept) = parent.and_then(|p| p.get(field))
    {
        let message = if parent.and_then(|p| p.get(name)) == Some(kept) {
            format!(
                "Unknown field; it means `{field}`, which the input gives too, the same: drop it."
            )
        } else {
            format!(
                "Unknown field; it means `{field}`, which the input gives too, with another value: keep one, in `{field}`, the value meant."
            )
        };
        return (message, Vec::new(), None);
    }
    // Another unknown key means the same field (`body` and `notes`, both
    // `description`): renamed as each is told, the field would be given
    // twice, so the two are to be joined into it.
    if let Said::Here(field) = &said
        && let Some(other) = parent
            .and_then(Value::as_object)
            // Each key judged again for each: a few, as a call has.
            .filter(|object| object.len() <= MAX_KEYS_COMPARED)
            .and_then(|object| {
                object.keys().find(|key| {
                    key.as_str() != name
                        && !siblings.contains(key)
                        && unknown_field_message(key, parent_path, action, parent).0
                            == Said::Here(field.clone())
                })
            })
    {
        let shown = crate::redact::tokens(other);
        let other = crate::text::clip(&shown, 64);
        let message = format!(
            "Unknown field; it means `{field}`, as `{other}` does too: join the two into one `{field}`."
        );
        return (message, vec![field.clone()], None);
    }
    let snake = crate::case::camel_to_snake(name);
    // The name the message proposes comes first, then the nearest others.
    let proposed = match &said {
        Said::Here(field)
        | Said::Elsewhere {
            holder: Some(field),
            ..
        } => Some(field.as_str()),
        _ => None,
    };
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
    // A field at the wrong level is moved where it goes, and what its
    // value would then be told is said now ("Once moved: …").
    let mut fix = match &said {
        Said::Elsewhere {
            home, field, value, ..
        } => Some(Fix::Move(home.clone(), field.clone(), value.clone())),
        _ => None,
    };
    let names = match proposed {
        Some(field) => {
            // Only for a rename here (a field the input gives already was
            // answered above).
            let renamed = matches!(said, Said::Here(_));
            let written = parent
                .and_then(|p| p.get(name))
                .filter(|_| renamed)
                .and_then(|value| reshaped(action, parent_path, field, value));
            if let Some(written) = written {
                let shown = format!("\"{field}\": {written}");
                message.push_str(&format!(" Write it `{shown}`."));
                fix = Some(Fix::Reshape(field.to_string(), written));
            } else if renamed {
                fix = Some(Fix::Rename(field.to_string()));
            }
            // A list an update replaces whole (`tag: "urgent"` for
            // `labels`): said as it is for the field by its own name, or
            // the rename drops the items the task keeps.
            if renamed
                && !message.contains("whole list")
                && schema_at(action, &join(parent_path, field)).is_some_and(super::replaced_list)
            {
                message.push_str(
                    " It replaces the task's whole list: give every item it is to keep too (task_get shows them).",
                );
            }
            // The same slip inside the value (`parentTaskScope: {scopeId}`)
            // is said now, so one retry fixes both levels.
            let inner = parent
                .and_then(|p| p.get(name))
                .filter(|_| renamed)
                .map(|value| inner_renames(action, &join(parent_path, field), value))
                .unwrap_or_default();
            if !inner.is_empty() {
                message.push_str(&format!(" Inside it too: {}.", inner.join(", ")));
            }
            vec![field.to_string()]
        }
        // A field at the wrong level: the message says where it goes; no
        // name here would do.
        None if matches!(said, Said::Elsewhere { .. }) => Vec::new(),
        // Nothing near: the fields there are, and no candidate that would
        // only fail in its turn (`force` is no misspelt `number`).
        None if said == Said::Nothing => {
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
    (message, names, fix)
}

/// The most keys of one object whose unknown ones are compared with each
/// other (two that mean one field): an input's object has a few.
const MAX_KEYS_COMPARED: usize = 32;

/// The field a key names in any case (`Status`, `assignedToMe`,
/// `assigned_to_me` alike).
fn field_spelling(key: &str) -> String {
    crate::case::camel_to_snake(key)
        .trim_start_matches('_')
        .to_string()
}

/// Whether the unknown field `name` of `parent` holds an object whose
/// every key (in snake_case) is a field of this level.
fn wraps_siblings(siblings: &[String], parent: Option<&Value>, name: &str) -> bool {
    // A selector (`where: {assignee: "@alice"}`) says which tasks, not what
    // to change: unwrapped, it would set what it meant to match.
    const SELECTORS: [&str; 8] = [
        "where",
        "filter",
        "match",
        "matching",
        "selector",
        "criteria",
        "condition",
        "conditions",
    ];
    // One that holds only what names the task (`where: {channel, number}`)
    // selects what those fields select: that one is unwrapped.
    let Some(inner) = parent.and_then(|p| p.get(name)).and_then(wrapped) else {
        return false;
    };
    if SELECTORS.contains(&field_spelling(name).as_str())
        && !inner
            .keys()
            .all(|key| synonyms::LOCATORS.contains(&field_spelling(key).as_str()))
    {
        return false;
    }
    !inner.is_empty()
        && inner
            .keys()
            .all(|key| siblings.contains(&field_spelling(key)))
}

/// The list field beside `parent_path` (not given) whose items have the
/// fields the object `name` holds (one at least, as written), and that
/// object: a wrapper of one item (`fields: {summary, description}` at the
/// top of a create is one of `tasks`).
fn wraps_an_item(
    action: &Action,
    parent_path: &str,
    siblings: &[String],
    parent: Option<&Value>,
    name: &str,
) -> Option<(String, Value)> {
    // At the top only: below it, an object of one key is often a value
    // of another tool's shape (`issuetype: {name}`), no wrapper.
    let parent = parent.filter(|_| parent_path.is_empty())?;
    let inner = parent
        .get(name)?
        .as_object()
        .filter(|inner| !inner.is_empty())?;
    siblings
        .iter()
        .filter(|list| parent.get(list.as_str()).is_none())
        .find(|list| {
            let item = format!("{}/0", join(parent_path, list));
            super::schema_at(action, &item).is_some_and(|schema| schema["type"] == "object")
                && inner
                    .keys()
                    .any(|key| names_a_field(action, &join(&item, &field_spelling(key))))
        })
        .map(|list| (list.clone(), Value::Object(inner.clone())))
}

/// The object a wrapper holds: itself, or the one object of a list of one
/// that names what it acts on (`tasks: [{number, status}]` sent to an
/// update). A list of one without a locator is a list meant
/// (`subtasks: [{title}]`): unwrapped, its item's fields would be taken
/// for the parent's own.
pub(super) fn wrapped(value: &Value) -> Option<&serde_json::Map<String, Value>> {
    match value {
        Value::Object(inner) => Some(inner),
        Value::Array(items) if items.len() == 1 => items[0].as_object().filter(|inner| {
            inner
                .keys()
                .any(|key| synonyms::LOCATORS.contains(&field_spelling(key).as_str()))
        }),
        _ => None,
    }
}

/// The keys of `value` (an object, or a list of objects) that are not
/// fields of the field at input `path` but whose snake_case spelling is,
/// as "`scopeId` → `scope_id`", at most three.
fn inner_renames(action: &Action, path: &str, value: &Value) -> Vec<String> {
    let objects: Vec<&serde_json::Map<String, Value>> = match value {
        Value::Object(one) => vec![one],
        Value::Array(items) => items.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    };
    let item_path = if value.is_array() {
        format!("{path}/0")
    } else {
        path.to_string()
    };
    let fields = sibling_fields(action, &item_path);
    let mut renames: Vec<String> = Vec::new();
    for key in objects.iter().flat_map(|o| o.keys()) {
        let snake = crate::case::camel_to_snake(key);
        let rename = format!("`{}` → `{snake}`", crate::text::clip(key, 64));
        if snake != *key && fields.contains(&snake) && !renames.contains(&rename) {
            renames.push(rename);
        }
    }
    renames.truncate(3);
    renames
}

/// `value` in the shape `field` takes, when the one given does not fit it:
/// a list of one taken out of it (`"number": 2`), or one value put in a
/// list (`"numbers": [3]`, `"tasks": [{…}]`), when that fits the field's
/// type ([`of_type`]: `"tasks": ["Write docs"]` would fail in its turn).
/// `None` when the value fits, or no such shape does.
fn reshaped(action: &Action, parent_path: &str, field: &str, value: &Value) -> Option<Value> {
    let schema = schema_at(action, &join(parent_path, field))?;
    if of_type(schema, value) {
        return None;
    }
    let unwrapped = match value {
        Value::Array(items) if items.len() == 1 => Some(items[0].clone()),
        _ => None,
    };
    // A comma-separated text for a list of texts (`tags: "ops, docs"`):
    // its parts, as the field by its own name reads them.
    let parts = value
        .as_str()
        .filter(|text| text.contains(',') && schema["items"]["type"] == "string")
        .map(|text| {
            Value::Array(
                text.split(',')
                    .map(str::trim)
                    .filter(|part| !part.is_empty())
                    .map(Value::from)
                    .collect(),
            )
        });
    let fitted = parts
        .into_iter()
        .chain(unwrapped)
        .chain(std::iter::once(Value::Array(vec![value.clone()])))
        .find(|candidate| of_type(schema, candidate))?;
    // Shown whole or not at all: an elided value does not run as written.
    (fitted.to_string().chars().count() <= 60).then_some(fitted)
}

/// Whether `value` is of a type `schema` names, and each item of a list of
/// a type its `items` name.
fn of_type(schema: &Value, value: &Value) -> bool {
    is_type(schema, value)
        && match value {
            Value::Array(items) => items.iter().all(|item| of_type(&schema["items"], item)),
            _ => true,
        }
}

/// Whether `value` itself (not the items of a list) is of a type `schema`
/// names; a schema that names none takes any.
pub fn is_type(schema: &Value, value: &Value) -> bool {
    let named = |t: &str| match &schema["type"] {
        Value::String(one) => one == t,
        Value::Array(many) => many.iter().any(|m| m == t),
        _ => true,
    };
    match value {
        Value::Array(_) => named("array"),
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

/// The other actions of `action`'s domain that make a change and take
/// `field` at their top level, in registry order (`status` on a
/// checkpoint is task_update's).
pub fn others_setting<'a>(
    action: &'a Action,
    field: &'a str,
) -> impl Iterator<Item = &'static Action> + 'a {
    crate::registry::ACTIONS
        .iter()
        .copied()
        .filter(move |other| {
            !other.read_only()
                && other.domain == action.domain
                && other.name() != action.name()
                && names_a_field(other, field)
        })
}

/// The fields an object at `parent_path` of the input may have: the
/// schema's properties with that parent (array indexes read as `items`).
fn sibling_fields(action: &Action, parent_path: &str) -> Vec<String> {
    let mut props = Vec::new();
    schema::walk_properties(action.cached_input_schema(), "", &mut props);
    let parent = schema_path(parent_path, "");
    props
        .into_iter()
        .filter_map(|(p, _)| p.strip_prefix(parent.as_str()).map(str::to_string))
        .filter(|rest| !rest.is_empty() && !rest.contains('/'))
        .collect()
}

/// The names of the fields `action`'s answers carry, at any depth.
fn answered_names(action: &Action) -> Vec<String> {
    let output = action.output_schema();
    let mut answered = Vec::new();
    schema::walk_properties(&output, "", &mut answered);
    answered
        .into_iter()
        .filter_map(|(path, _)| path.rsplit('/').next().map(str::to_string))
        .collect()
}

/// An item of a list copied from an answer (a task a list or get gave,
/// pasted into a create as a template): what the answer carries and no
/// input sets (`number`, `scope_id`, `created_at`, its `channel`) is told
/// to be left out, rather than each moved where a field of that name is
/// (`scope_id` to a parent's scope would make the copy a subtask of the
/// original). Known by three or more such fields in the one item.
///
/// The whole input copied from an answer (a get's task sent to a
/// checkpoint, a claim's answer sent back to the claim): every unknown
/// field at the top is the answer's, told once what the action takes
/// ([`ANSWER_COPIED`]) rather than each where another action sets it.
fn an_answers_item(
    action: &Action,
    parent_path: &str,
    parent: Option<&Value>,
    name: &str,
) -> Option<String> {
    const AT_LEAST: usize = 3;
    let item = parent?.as_object()?;
    let siblings = sibling_fields(action, parent_path);
    let answered = answered_names(action);
    let answers_only =
        |key: &str| !siblings.iter().any(|s| s == key) && answered.iter().any(|n| n == key);
    // At the top, only what no input of the domain sets anywhere (a
    // task's `title` beside a create's `tasks` goes in them).
    let top = parent_path.is_empty();
    let inputs = if top { input_names(action) } else { Vec::new() };
    let carried: Vec<&str> = item
        .keys()
        .map(String::as_str)
        .filter(|key| answers_only(key) && !inputs.iter().any(|n| n == key))
        .collect();
    if carried.len() < AT_LEAST {
        return None;
    }
    if top {
        // A field this action takes elsewhere (a task's `title` under a
        // create's `tasks`) or by another name (`updated_at`, an update's
        // `expected_updated_at`) is told so, as it would be alone.
        let lower = crate::case::camel_to_snake(name).to_ascii_lowercase();
        if synonym_here(&lower, &siblings).is_some()
            || home_elsewhere(action, parent_path, &lower).is_some()
        {
            return None;
        }
        let fields: Vec<String> = siblings.iter().map(|s| format!("`{s}`")).collect();
        return Some(format!(
            "{ANSWER_COPIED}: drop it, and every field {} does not take (its fields are {}).",
            action.name(),
            fields.join(", ")
        ));
    }
    carried.contains(&name).then(|| {
        "Unknown field; this item is copied from an answer, which carries it: leave it out (a new one gets its own)."
            .into()
    })
}

/// The row of [`synonyms::FIELDS`] by which `word` means one of
/// `siblings` (`updated_at` beside an update's `expected_updated_at`).
fn synonym_here(
    word: &str,
    siblings: &[String],
) -> Option<&'static (&'static str, &'static str, Option<&'static str>)> {
    synonyms::FIELDS
        .iter()
        .find(|(w, field, _)| *w == word && siblings.iter().any(|s| s == field))
}

/// The names of the fields any action of `action`'s domain takes, at any
/// level of its input.
fn input_names(action: &Action) -> Vec<String> {
    let mut props = Vec::new();
    for other in crate::registry::ACTIONS
        .iter()
        .filter(|other| other.domain == action.domain)
    {
        schema::walk_properties(other.cached_input_schema(), "", &mut props);
    }
    props
        .into_iter()
        .filter_map(|(path, _)| path.rsplit('/').next().map(str::to_string))
        .collect()
}

/// An item's id under a name of its own (`"task": "tsk_…"`), where
/// fields name items by number ([`synonyms::BY_WORDS`]): a create's
/// parent scope takes the id as it is; elsewhere the number is what the
/// answer that gave the id gives beside it. None where the input names
/// the item already (an answer's `scope_id` given back beside `number`).
fn an_items_id(
    action: &Action,
    parent_path: &str,
    parent: Option<&Value>,
    name: &str,
) -> Option<String> {
    const SCOPE: &str = "parent_task_scope";
    let parent = parent?;
    // An id, or a list of them (`scope_ids: ["tsk_…"]`): the first says it.
    let text = match parent.get(name)? {
        Value::Array(items) => items.first()?.as_str()?,
        given => given.as_str()?,
    }
    .trim();
    let siblings = sibling_fields(action, parent_path);
    let row = synonyms::BY_WORDS
        .iter()
        .find(|row| (row.is_id)(text) && siblings.iter().any(|s| s == row.field))
        .filter(|row| {
            [row.field, SCOPE]
                .iter()
                .all(|named| parent.get(named).is_none())
        })?;
    if parent_path.is_empty() && siblings.iter().any(|s| s == SCOPE) {
        let scope = serde_json::json!({"kind": "task", "scope_id": crate::text::clip(text, 64)});
        return Some(format!(
            "Unknown field; a parent task given by its scope_id is `{SCOPE}`, in place of `channel` and `parent`: `\"{SCOPE}\": {scope}`."
        ));
    }
    Some(format!(
        "Unknown field; `{}` takes {}",
        row.field, row.said_of_id
    ))
}

/// The one list of whole numbers beside `name` (a claim's `numbers`),
/// where `name` holds such numbers under another name (`tasks: [2, 3]`,
/// `ids: [2]`) and the list is not given too.
fn numbers_by_another_name(
    action: &Action,
    parent_path: &str,
    parent: Option<&Value>,
    name: &str,
) -> Option<String> {
    let parent = parent?;
    let Value::Array(items) = parent.get(name)? else {
        return None;
    };
    if items.is_empty()
        || !items
            .iter()
            .all(|item| item.as_u64().is_some_and(|n| n > 0))
    {
        return None;
    }
    let mut lists = sibling_fields(action, parent_path)
        .into_iter()
        .filter(|field| {
            super::schema_at(action, &join(parent_path, field)).is_some_and(|schema| {
                schema["type"] == "array" && schema["items"]["type"] == "integer"
            })
        });
    match (lists.next(), lists.next()) {
        (Some(list), None) if parent.get(&list).is_none() => Some(list),
        _ => None,
    }
}

/// One item of a list that an update replaces whole, given by itself
/// (`"checklist_item": "write docs"`, with its `done` beside it): the list
/// that holds it, with that item in it written out, and the item's other
/// fields beside it said to be the item's (not the task's `done`).
fn one_item_of_a_list(
    action: &Action,
    parent_path: &str,
    parent: Option<&Value>,
    name: &str,
) -> Option<String> {
    let object = parent?.as_object()?;
    let item_key = |key: &str| -> Option<(String, &Value)> {
        let lower = crate::case::camel_to_snake(key).to_ascii_lowercase();
        let list = lower.strip_suffix("_item")?;
        let list = sibling_fields(action, parent_path)
            .into_iter()
            .find(|field| field == list || field.strip_suffix('s') == Some(list))?;
        let schema = super::schema_at(action, &join(parent_path, &list))?;
        super::replaced_list(schema).then_some(())?;
        Some((list, &schema["items"]))
    };
    let (key, (list, item)) = object
        .keys()
        .find_map(|key| item_key(key).map(|found| (key, found)))?;
    let named = item["required"].as_array()?.first()?.as_str()?;
    let text = object.get(key)?.as_str()?;
    let item_fields = item["properties"].as_object()?;
    let own = |key: &str| {
        let lower = crate::case::camel_to_snake(key).to_ascii_lowercase();
        item_fields.contains_key(&lower).then_some(lower)
    };
    if name != key {
        return own(name).map(|field| {
            format!("Unknown field; beside `{key}` it is that item's `{field}`: it goes in `{list}`, as `{key}` says.")
        });
    }
    let mut written = serde_json::Map::new();
    written.insert(
        named.to_string(),
        Value::String(crate::text::clip(text, 64).into_owned()),
    );
    for (key, value) in object {
        if let Some(field) = own(key).filter(|field| field != named) {
            written.insert(field, value.clone());
        }
    }
    Some(format!(
        "Unknown field; an item is changed in `{list}`, which replaces the whole list: write `\"{list}\": [{}, …]`, with every item the task keeps too (task_get shows them).",
        Value::Object(written)
    ))
}

/// What a field `name` of `action`'s input, given `given`, would have
/// done, where dropping it or renaming it to the nearest name would do
/// something else than the caller meant ([`synonyms::EXPLAINED`]; its
/// `false` where that reads the other way, [`synonyms::EXPLAINED_FALSE`];
/// a [preview word](synonyms::PREVIEW_WORDS) on any change; a delete
/// asked to keep what it deletes, [`synonyms::is_keeping_word`]).
fn explained(
    action: &Action,
    parent_path: &str,
    name: &str,
    given: Option<&Value>,
) -> Option<&'static str> {
    let lower = crate::case::camel_to_snake(name).to_ascii_lowercase();
    let given_false = given.is_some_and(|value| {
        value == false || value == 0 || value.as_str().is_some_and(|v| v.trim() == "false")
    });
    if parent_path.is_empty()
        && given_false
        && let Some((_, _, said)) = synonyms::EXPLAINED_FALSE
            .iter()
            .find(|(of, word, _)| *of == action.name() && *word == lower)
    {
        return Some(said);
    }
    if parent_path.is_empty()
        && !action.read_only()
        && synonyms::PREVIEW_WORDS.contains(&lower.as_str())
    {
        let (change, destructive) = synonyms::PREVIEW;
        return Some(if action.destructive() {
            destructive
        } else {
            change
        });
    }
    // Below the top, the entry names the path, an item of a list as `*`
    // (`tasks/*/subtasks`).
    let at = match parent_path {
        "" => lower,
        parent => format!("{}/{lower}", super::any_item(parent)),
    };
    let row = synonyms::EXPLAINED
        .iter()
        .find(|(of, word, _)| *of == action.name() && *word == at)
        .map(|(_, _, said)| *said);
    // `"mode": "soft"` on a delete: whatever the name is near, a rename
    // to it would delete for good.
    let keeping = action.destructive()
        && given
            .and_then(Value::as_str)
            .is_some_and(synonyms::is_keeping_word);
    row.or(keeping.then_some(synonyms::NO_ARCHIVE))
}

/// What an unknown top-level field of a JSON-RPC envelope (MCP's
/// `tools/call`: `jsonrpc`, `id`, `method`, `params` holding the tool's
/// `name` and `arguments`) is: the input is `params.arguments` alone, and
/// the envelope's `id` is the request's, no task's `number`. Also a bare
/// JSON-RPC request whose `params` hold the input itself (`{"id": 1,
/// "params": {…}}`): its `id` is the request's too.
fn envelope(parent_path: &str, parent: Option<&Value>, name: &str) -> Option<String> {
    let input = parent.filter(|_| parent_path.is_empty())?;
    let params = input.get("params").filter(|params| params.is_object())?;
    let called = params.get("arguments").is_some_and(Value::is_object);
    let request = ["jsonrpc", "id", "method"]
        .iter()
        .any(|key| input.get(key).is_some());
    if !called && !request {
        return None;
    }
    if name != "params" {
        return ["jsonrpc", "id", "method"]
            .contains(&name)
            .then(|| "Unknown field; part of the JSON-RPC envelope: see `params`.".to_string());
    }
    if !called {
        return Some(
            "Unknown field; this is a JSON-RPC request, not an input: send its `params` alone, as the input.".to_string(),
        );
    }
    let route = params
        .get("name")
        .and_then(Value::as_str)
        .and_then(find_by_name)
        .map(|action| format!(" (`{}` is `{}`)", action.name(), action.cli_command()))
        .unwrap_or_default();
    Some(format!(
        "Unknown field; this is a JSON-RPC envelope, not an input: send its `params.arguments` alone, as the input of the route of `params.name`{route}."
    ))
}

/// What an unknown top-level field of a call sent whole as the input is:
/// `{tool, arguments}` (an answer's `suggested_action` or a section's
/// `next`, piped as it is), `{name, arguments}` (MCP's `tools/call`
/// params) or `{type: "tool_use", id, name, input}` (Anthropic's), naming
/// an action: the input is `arguments` (or `input`) alone.
/// With the message, the fix: that unwrapped, when the call is of the
/// action it was sent to.
fn call(action: &Action, input: &Value, name: &str) -> Option<(String, Option<Fix>)> {
    // A call's input without its name (`{"arguments": {…}}`): the input,
    // whatever its fields are (judged once unwrapped).
    if ARGUMENT_KEYS.contains(&name)
        && input.get(name).is_some_and(Value::is_object)
        && !NAME_KEYS.iter().any(|key| input.get(key).is_some())
    {
        return Some((
            format!(
                "Unknown field; `{name}` is no wrapper here: send what it holds alone, as the input."
            ),
            Some(Fix::Unwrap),
        ));
    }
    // A call an answer gave (a section's `next`) pasted beside the input:
    // its arguments are the input to send. (A JSON-RPC envelope's `params`
    // is said as the envelope's part, below.)
    if let Some(pasted) = input
        .get(name)
        .filter(|_| input.get("jsonrpc").is_none())
        .and_then(called)
    {
        return Some((
            format!(
                "Unknown field; `{}` is a call an answer gave: send its `{}` alone, as the input of `{}` (`{}`).",
                crate::text::clip(&crate::redact::tokens(name), 64),
                pasted.arguments,
                pasted.action.name(),
                pasted.action.cli_command()
            ),
            None,
        ));
    }
    let called = called(input)?;
    let arguments = called.arguments;
    if name == arguments {
        return Some((
            format!(
                "Unknown field; this is a call, not an input: send its `{arguments}` alone, as the input of `{}` (`{}`).",
                called.action.name(),
                called.action.cli_command()
            ),
            (called.action.name() == action.name()).then_some(Fix::Unwrap),
        ));
    }
    (name == called.name || ENVELOPE_KEYS.contains(&name)).then(|| {
        (
            format!("Unknown field; part of the call: see `{arguments}`."),
            None,
        )
    })
}

/// The action a call sent whole as the input names, with the keys that
/// name it and hold its input: an object under one of [`ARGUMENT_KEYS`],
/// beside
/// the name of an action.
pub(super) fn called(input: &Value) -> Option<Called> {
    let arguments = ARGUMENT_KEYS
        .into_iter()
        .find(|key| input.get(key).is_some_and(Value::is_object))?;
    NAME_KEYS.into_iter().find_map(|key| {
        let action = input.get(key)?.as_str().and_then(find_by_name)?;
        Some(Called {
            name: key,
            arguments,
            action,
        })
    })
}

/// A call sent whole as the input ([`called`]).
pub(super) struct Called {
    /// The key that names the action (`tool`, `name`, `tool_name`).
    pub name: &'static str,
    /// The key that holds its input ([`ARGUMENT_KEYS`]).
    pub arguments: &'static str,
    pub action: &'static Action,
}

/// The keys a call's input is held under: MCP's and OpenAI's `arguments`,
/// Anthropic's `input` (a `tool_use` block), Gemini's `args`, others'
/// `tool_input` and `parameters`.
const ARGUMENT_KEYS: [&str; 5] = ["arguments", "input", "tool_input", "parameters", "args"];
/// The keys that name the action called.
const NAME_KEYS: [&str; 3] = ["tool", "name", "tool_name"];
/// The other keys a call's envelope carries (a `tool_use` block's `type`
/// and `id`, OpenAI's `call_id`), no fields of any input.
const ENVELOPE_KEYS: [&str; 4] = ["type", "id", "call_id", "tool_call_id"];

/// The one enum field among `siblings` that `text` is a value of, as
/// [`super::value_meant`] reads it (`In Review` of `status`); none when no
/// field or several would take it.
fn field_of_value(
    action: &Action,
    parent_path: &str,
    siblings: &[String],
    text: &str,
) -> Option<String> {
    let mut fields = siblings
        .iter()
        .filter(|field| super::value_meant(action, &join(parent_path, field), text).is_some());
    match (fields.next(), fields.next()) {
        (Some(field), None) => Some(field.clone()),
        _ => None,
    }
}

/// The list field beside `parent_path` that an unknown name means to change
/// in part (`labels_add`, `add_urls`, `remove_attachment`, `add_tag` by a
/// field's other name), where that field
/// replaces the whole list: a rename to it alone would drop the items kept.
fn partial_list_change(action: &Action, parent_path: &str, name: &str) -> Option<String> {
    let snake = crate::case::camel_to_snake(name).to_ascii_lowercase();
    let words: Vec<&str> = snake.split('_').collect();
    if !words.iter().any(|w| super::LIST_CHANGES.contains(w)) {
        return None;
    }
    sibling_fields(action, parent_path)
        .into_iter()
        .find(|field| {
            super::schema_at(action, &join(parent_path, field)).is_some_and(super::replaced_list)
                && words.iter().any(|w| {
                    w == field
                        || Some(*w) == field.strip_suffix('s')
                        || synonyms::FIELDS
                            .iter()
                            .any(|(word, meant, _)| word == w && meant == field)
                })
        })
}

/// What an unknown field's message says of it, so that what follows (its
/// candidates, a fix) is decided by kind rather than by reading the words.
#[derive(Debug, PartialEq, Eq)]
enum Said {
    /// Hidden context, which no input sets.
    Hidden,
    /// No name here would do: a page number, another action's field, a
    /// read-only one, or one whose drop or rename would mislead.
    NoNameHere,
    /// This field here, which the message proposes.
    Here(String),
    /// A field of this action at another level: the field here that holds
    /// it, when there is one (`tasks` for a task's `description`), and
    /// where it goes (its [`home_elsewhere`] path and its name there).
    Elsewhere {
        holder: Option<String>,
        home: String,
        field: String,
        /// The value it is to have there, when not the one given.
        value: Option<Value>,
    },
    /// Nothing near.
    Nothing,
}

fn unknown_field_message(
    name: &str,
    parent_path: &str,
    action: &Action,
    parent: Option<&Value>,
) -> (Said, String) {
    let hidden = HiddenContext::ALL.iter().any(|h| {
        h.spellings()
            .contains(&crate::case::camel_to_snake(name).as_str())
    });
    if hidden {
        return (
            Said::Hidden,
            "Unknown field: hidden context (workspace, agent, workflow run, callback effect, token) is injected by agentteam; it cannot be set in input.".into(),
        );
    }
    if let Some(said) = one_item_of_a_list(action, parent_path, parent, name) {
        return (Said::NoNameHere, said);
    }
    if let Some(said) = an_answers_item(action, parent_path, parent, name) {
        return (Said::NoNameHere, said);
    }
    // A path written as a key (`checklist[0].done`, `checklist.0.done`):
    // no field changes part of another; the field itself, given whole.
    if let Some((first, _)) = name.split_once(['.', '['])
        && sibling_fields(action, parent_path)
            .iter()
            .any(|s| s == first)
    {
        let replaces =
            super::schema_at(action, &join(parent_path, first)).is_some_and(super::replaced_list);
        let said = match replaces {
            true => format!(
                "Unknown field; a path into `{first}` is no field: give `{first}` itself, whole, with the change in it; it replaces the whole list, so the items kept go in it too (task_get shows them)."
            ),
            false => format!(
                "Unknown field; a path into `{first}` is no field: give `{first}` itself, with the change in it."
            ),
        };
        return (Said::NoNameHere, said);
    }
    // A section of an answer given back (`subtasks: {items, total, …}` of
    // a task_get pasted into an update): what it lists is there already,
    // and a hint to make its items would make them twice.
    if parent
        .and_then(|p| p.get(name))
        .and_then(Value::as_object)
        .is_some_and(|section| section.contains_key("items") && section.contains_key("total"))
    {
        let shown = crate::text::clip(&crate::redact::tokens(name), 64).into_owned();
        return (
            Said::NoNameHere,
            format!(
                "Unknown field; `{shown}` is a section of an answer (`items`, `total`), given back: drop it. What it lists is stored already; an input names only what to change."
            ),
        );
    }
    // A tool's name beside its own input's fields (`{"name": "task_update",
    // "channel": …}`, a call flattened): the call's, no field of the task.
    if parent_path.is_empty()
        && NAME_KEYS.contains(&name)
        && let Some(tool) = parent
            .and_then(|p| p.get(name))
            .and_then(Value::as_str)
            .and_then(find_by_name)
    {
        return (
            Said::NoNameHere,
            format!(
                "Unknown field; `{name}` holds a tool's name, `{}`, not a field of the input: drop it (the input is the call's arguments alone).",
                tool.name()
            ),
        );
    }
    if let Some(said) = explained(action, parent_path, name, parent.and_then(|p| p.get(name))) {
        return (Said::NoNameHere, format!("Unknown field; {said}"));
    }
    if let Some(said) = envelope(parent_path, parent, name) {
        return (Said::NoNameHere, said);
    }
    if let Some(said) = an_items_id(action, parent_path, parent, name) {
        return (Said::NoNameHere, said);
    }
    if let Some(list) = numbers_by_another_name(action, parent_path, parent, name) {
        return (
            Said::Here(list.clone()),
            format!("Unknown field; use `{list}`."),
        );
    }
    if let Some(list) = partial_list_change(action, parent_path, name) {
        let message = format!(
            "Unknown field; no field changes part of a list: `{list}` replaces the whole list, so give it every item the task is to have, the ones it keeps too (task_get shows them)."
        );
        return (Said::Here(list), message);
    }
    let snake = crate::case::camel_to_snake(name);
    let siblings = sibling_fields(action, parent_path);
    if snake != name && siblings.contains(&snake) {
        let message = format!("Unknown field; fields are snake_case: use `{snake}`.");
        return (Said::Here(snake), message);
    }
    let lower = snake.to_ascii_lowercase();
    // A word that means a field only where that field is a sibling (`title`
    // of a checklist item is its `text`).
    if let Some((_, field)) = synonyms::HERE_ONLY
        .iter()
        .find(|(w, field)| *w == lower && siblings.iter().any(|s| s == field))
    {
        return (
            Said::Here(field.to_string()),
            format!("Unknown field; use `{field}`."),
        );
    }
    // A word may mean a field of several actions (`body`: a task's
    // `description`, a checkpoint's `summary`): the one here first.
    let synonym = synonym_here(&lower, &siblings)
        .or_else(|| synonyms::FIELDS.iter().find(|(w, _, _)| *w == lower));
    if let Some((_, field, elsewhere)) = synonym {
        if ["page", "offset"].contains(&lower.as_str()) && siblings.iter().any(|s| s == field) {
            // A page number or offset has no cursor to become.
            return (
                Said::NoNameHere,
                "Unknown field; pages are read by cursor, not by number: drop it, and for the next page pass the next cursor the last page answered as `cursor`.".into(),
            );
        }
        if siblings.iter().any(|s| s == field) {
            return (
                Said::Here(field.to_string()),
                format!("Unknown field; use `{field}`."),
            );
        }
        if let Some(other) = elsewhere
            .and_then(find_by_name)
            .filter(|other| other.domain == action.domain)
        {
            let message = format!(
                "Unknown field; {} does not take it (it is `{field}` of {}: `{}`): drop it here.",
                action.name(),
                other.name(),
                other.cli_command()
            );
            return (Said::NoNameHere, message);
        }
    }
    // A claim's state by another name (`state: "claimed"`): `claimed`,
    // unless it is given too.
    if siblings.iter().any(|s| s == "claimed")
        && parent.is_some_and(|p| p.get("claimed").is_none())
        && ["state", "status", "claim", "claim_state", "action"].contains(&lower.as_str())
    {
        return (
            Said::Here("claimed".into()),
            "Unknown field; use `claimed`: `true` claims, `false` releases.".into(),
        );
    }
    // A slip of the finger on a field here comes first.
    let nearest = siblings
        .iter()
        .map(|s| (edit_distance(&lower, s), s.as_str()))
        .filter(|(d, s)| *d <= (s.len() / 3).clamp(1, 3))
        .min();
    let did_you_mean = |field: &str| {
        (
            Said::Here(field.to_string()),
            format!("Unknown field; did you mean `{field}`?"),
        )
    };
    if let Some((_, field)) = nearest {
        return did_you_mean(field);
    }
    // The start of exactly one field's name (`desc`, `prio`).
    let mut started = siblings
        .iter()
        .filter(|s| lower.len() >= 3 && s.starts_with(lower.as_str()));
    if let (Some(field), None) = (started.next(), started.next()) {
        return did_you_mean(field);
    }
    // One word of exactly one field's name (`mode` for `subtask_mode`).
    let mut holding = siblings
        .iter()
        .filter(|s| s.contains('_') && s.split('_').any(|word| word == lower));
    if let (Some(field), None) = (holding.next(), holding.next()) {
        return did_you_mean(field);
    }
    // A value of one field here under another name (`progress: "In
    // Review"`, a tracker's `column: "Done"`): that field, unless the input
    // gives it too.
    if let Some(field) = parent
        .and_then(|p| p.get(name))
        .and_then(Value::as_str)
        .and_then(|text| field_of_value(action, parent_path, &siblings, text))
        && parent.is_some_and(|p| p.get(&field).is_none())
        // Another action's own field (`summary` of a checkpoint) is said
        // as that action's, whatever its value.
        && others_setting(action, &lower).next().is_none()
    {
        let message = format!("Unknown field; use `{field}`.");
        return (Said::Here(field), message);
    }
    // A field of this action given at the wrong level (a list filter at the
    // top, a task's title beside `tasks`): where it goes, and its shape.
    // The word itself where this action has it (a task's `description`
    // beside `tasks`), else what it means.
    // Of the word's own home and its synonym's, the one nearer the top
    // (`name` at the top of a create is a task's `title`, not an
    // attachment's `name`); a plural for a field written in the singular
    // (`assignees`) where neither has one.
    let own = home_elsewhere(action, parent_path, &lower);
    let meant = synonym.map(|(_, field, _)| *field);
    let depth = |home: &Option<String>| home.as_ref().map(|h| h.matches('/').count());
    let singular = lower.strip_suffix('s').unwrap_or(&lower);
    let wanted = match (
        depth(&own),
        meant.map(|m| depth(&home_elsewhere(action, parent_path, m))),
    ) {
        (Some(own), Some(Some(theirs))) if theirs < own => meant.unwrap_or(&lower),
        (Some(_), _) => lower.as_str(),
        (None, Some(_)) => meant.unwrap_or(&lower),
        (None, None) if home_elsewhere(action, parent_path, singular).is_some() => singular,
        (None, None) => lower.as_str(),
    };
    if let Some(home) = home_elsewhere(action, parent_path, wanted) {
        let container = home.trim_end_matches("/*");
        // A word for oneself as a filter of members (`assignee: "@me"` at
        // the top of a list): the caller's own tasks have a filter of
        // their own, which an `assignee` of `@me` would only be sent to.
        let given = parent.and_then(|p| p.get(name)).and_then(Value::as_str);
        let own = join(&home, "assigned_to_me");
        if given.is_some_and(synonyms::is_self_word)
            && wanted == "assignee"
            && names_a_field(action, &own)
        {
            let message = format!(
                "Unknown field here; for your own tasks write `{}` (an `assignee` filter is another member's ref).",
                shape(&home, "assigned_to_me").replace('…', "true")
            );
            let said = Said::Elsewhere {
                holder: None,
                home,
                field: "assigned_to_me".into(),
                value: Some(Value::Bool(true)),
            };
            return (said, message);
        }
        let mut message = format!(
            "Unknown field here; `{wanted}` belongs {}: `{}`.",
            match container {
                "" => "at the top level of the input".to_string(),
                container => format!("in `{container}`"),
            },
            shape(&home, wanted)
        );
        // Beside a list of several items that carry one field each (a
        // create of several tasks takes titles only): the rule said too,
        // or the retry is refused by it.
        if let Some(rule) = items_hold_less(action, parent, container, wanted) {
            message = format!("{} {rule}", message.trim_end_matches('.'));
        }
        // The field here that holds it, if it is one of this level's.
        let holder = siblings
            .iter()
            .find(|s| container == s.as_str() || container.starts_with(&format!("{s}/")))
            .cloned();
        let said = Said::Elsewhere {
            holder,
            home,
            field: wanted.to_string(),
            value: None,
        };
        return (said, message);
    }
    // A field another action sets (`status` on a checkpoint).
    if let Some(other) = others_setting(action, wanted).next() {
        // There, a list that replaces the task's whole list: said, so the
        // call made there keeps the items it means to keep.
        let replaces = match super::schema_at(other, wanted).is_some_and(super::replaced_list) {
            true => {
                ", which replaces the whole list: give every item the task is to have, the ones it keeps too"
            }
            false => "",
        };
        let message = format!(
            "Unknown field; {} does not take it (it is `{wanted}` of {}: `{}`{replaces}): drop it here.",
            action.name(),
            other.name(),
            other.cli_command()
        );
        return (Said::NoNameHere, message);
    }
    // A field answers carry but no input sets (`scope_id`, `created_by`).
    if answered_names(action).iter().any(|n| n == wanted) {
        let message = format!(
            "Unknown field; `{wanted}` is read-only: answers carry it, input cannot set it."
        );
        return (Said::NoNameHere, message);
    }
    (Said::Nothing, "Unknown field.".into())
}

/// Where `container` is a list given with several items whose items then
/// carry one field only ([`synonyms::SEVERAL_CARRY_ONE`]), and `field` is
/// another: what to do with it instead.
fn items_hold_less(
    action: &Action,
    parent: Option<&Value>,
    container: &str,
    field: &str,
) -> Option<&'static str> {
    let several = parent
        .and_then(|p| p.get(container))
        .and_then(Value::as_array)
        .is_some_and(|items| items.len() > 1);
    synonyms::SEVERAL_CARRY_ONE
        .iter()
        .find(|(of, list, kept, _)| {
            several && *of == action.name() && *list == container && *kept != field
        })
        .map(|(_, _, _, said)| *said)
}

/// Where else in `action`'s input a field called `field` lives, when not
/// beside `parent_path`: its container as the input writes it (`filters`,
/// `tasks/*` for each item of `tasks`, `` for the top level), the one
/// nearest the top first.
fn home_elsewhere(action: &Action, parent_path: &str, field: &str) -> Option<String> {
    let mut props = Vec::new();
    schema::walk_properties(action.cached_input_schema(), "", &mut props);
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
