//! The words people and models try that are not in the registry, and what
//! they meant: route words (`task claim`) and field names (`tags`). The CLI
//! and validation read these tables without knowing any domain; a new
//! domain adds its own rows here. Kept small on purpose: only mistakes seen
//! in use, each with one clear meaning.

use super::{ACTIONS, Action, find};

/// A route word that is not an action: `(domain, word, verb it meant, how
/// to use that action for it)`.
pub static VERBS: &[(&str, &str, &str, &str)] = &[
    ("task", "claim", "set_claim", "pass `\"claimed\": true`"),
    ("task", "unclaim", "set_claim", "pass `\"claimed\": false`"),
    ("task", "release", "set_claim", "pass `\"claimed\": false`"),
    ("task", "search", "list", "pass the words as `query`"),
    ("task", "find", "list", "pass the words as `query`"),
    ("task", "ls", "list", ""),
    ("task", "take", "set_claim", "pass `\"claimed\": true`"),
    ("task", "grab", "set_claim", "pass `\"claimed\": true`"),
    ("task", "show", "get", ""),
    ("task", "view", "get", ""),
    ("task", "read", "get", ""),
    ("task", "fetch", "get", ""),
    ("task", "info", "get", ""),
    // Closing a task is a status, never a delete.
    ("task", "complete", "update", "pass `\"status\": \"done\"`"),
    ("task", "done", "update", "pass `\"status\": \"done\"`"),
    ("task", "finish", "update", "pass `\"status\": \"done\"`"),
    ("task", "close", "update", "pass `\"status\": \"done\"`"),
    ("task", "resolve", "update", "pass `\"status\": \"done\"`"),
    (
        "task",
        "cancel",
        "update",
        "pass `\"status\": \"canceled\"`",
    ),
    ("task", "add", "create", ""),
    ("task", "new", "create", ""),
    ("task", "edit", "update", ""),
    (
        "task",
        "comment",
        "checkpoint",
        "pass the text as `summary`",
    ),
    ("task", "remove", "delete", ""),
    ("task", "rm", "delete", ""),
    ("task", "del", "delete", ""),
    ("task", "destroy", "delete", ""),
    // Words for a change a task_update makes.
    ("task", "assign", "update", "set `assignee` (`@handle`)"),
    ("task", "unassign", "update", "pass `\"assignee\": null`"),
    ("task", "reopen", "update", "pass `\"status\": \"todo\"`"),
    (
        "task",
        "start",
        "update",
        "pass `\"status\": \"in_progress\"`",
    ),
    (
        "task",
        "move",
        "update",
        "set `parent` (or `null` for a top-level task)",
    ),
    (
        "task",
        "archive",
        "update",
        "pass `\"status\": \"canceled\"`: there is no archive, and a delete is for good",
    ),
    ("task", "note", "checkpoint", "pass the text as `summary`"),
    (
        "task",
        "progress",
        "checkpoint",
        "pass the text as `summary`",
    ),
    (
        "task",
        "subtask",
        "create",
        "set `parent` to the task's number",
    ),
];

/// A word that means a field only where that field is a sibling: `(word,
/// field)`. A checklist item's words (its `text`); elsewhere `title` is a
/// task's own field and `name` a task's `title`.
pub static HERE_ONLY: &[(&str, &str)] = &[("title", "text"), ("name", "text")];

/// A field name that means another field: `(word, field, action)`. The hint
/// applies where `field` is a sibling of the unknown word; when it is not
/// and `action` is set, the hint points at that action's field instead.
pub static FIELDS: &[(&str, &str, Option<&str>)] = &[
    ("tags", "labels", None),
    ("tag", "labels", None),
    ("label", "labels", None),
    ("comment", "summary", Some("task_checkpoint")),
    ("note", "summary", Some("task_checkpoint")),
    ("message", "summary", Some("task_checkpoint")),
    ("body", "description", None),
    ("body", "summary", None),
    ("content", "description", None),
    ("content", "summary", None),
    ("details", "description", None),
    ("details", "summary", None),
    ("notes", "description", None),
    ("notes", "summary", None),
    ("description", "summary", None),
    ("progress", "summary", None),
    ("name", "title", None),
    ("assigned_to", "assignee", None),
    ("owner", "assignee", None),
    ("board", "channel", None),
    ("search", "query", None),
    ("q", "query", None),
    ("id", "number", None),
    ("task_id", "number", None),
    ("task_number", "number", None),
    ("claim", "claimed", None),
    ("state", "status", None),
    ("page_size", "limit", None),
    // Output names given back as input: a task's `updated_at` is the
    // update's guard, its `parent_number` the locator `parent`.
    ("updated_at", "expected_updated_at", None),
    ("parent_number", "parent", None),
    ("page", "cursor", None),
    ("offset", "cursor", None),
    ("next_cursor", "cursor", None),
    ("mine", "assigned_to_me", None),
    ("text", "summary", Some("task_checkpoint")),
    ("recursive", "subtask_mode", Some("task_delete")),
    ("cascade", "subtask_mode", Some("task_delete")),
];

/// A top-level field an action does not take, where dropping it or
/// renaming it to the nearest name would do something else than the caller
/// meant: `(action, word, what to do instead)`.
pub static EXPLAINED: &[(&str, &str, &str)] = &[
    (
        "task_create",
        "number",
        "a new task's number is given by its board: drop it; for a subtask of task N, write \"parent\": N.",
    ),
    (
        "task_set_claim",
        "assignee",
        "task_set_claim claims for the calling agent only: drop it to claim for yourself; to give a task to another member, task_update sets its assignee.",
    ),
    ("task_update", "add_labels", LABELS_REPLACED),
    ("task_update", "add_label", LABELS_REPLACED),
    ("task_update", "remove_labels", LABELS_REPLACED),
    ("task_update", "remove_label", LABELS_REPLACED),
    ("task_update", "add_checklist", CHECKLIST_REPLACED),
    ("task_update", "add_checklist_item", CHECKLIST_REPLACED),
    ("task_update", "checklist_item", CHECKLIST_REPLACED),
];

const LABELS_REPLACED: &str = "labels replaces the whole list: give every label the task is to have, the ones it keeps too (task_get shows them).";
const CHECKLIST_REPLACED: &str = "checklist replaces the whole list: give every item the task is to have, the ones it keeps too (task_get shows them).";

/// A route the CLI could not parse, resolved to the action it meant.
#[derive(Clone, Copy)]
pub struct RouteHint {
    pub action: &'static Action,
    /// How to use that action for what was asked; may be empty.
    pub how: &'static str,
}

/// The action meant by `words`, the route words after `exec`: an action's
/// name or id in one word (`task_get`, `task.get`), a verb with dashes
/// (`set-claim`), or a synonym from [`VERBS`].
pub fn route(words: &[&str]) -> Option<RouteHint> {
    let hint = |action| RouteHint { action, how: "" };
    let first = *words.first()?;
    if let Some(action) = ACTIONS
        .iter()
        .copied()
        .find(|a| a.name() == first || a.id() == first)
    {
        return Some(hint(action));
    }
    // A verb without its domain (`exec list`): the one domain it is a verb
    // of, when only one is.
    let alone = first.replace('-', "_");
    let mut owners = ACTIONS.iter().copied().filter(|a| a.verb == alone);
    if let (Some(action), None) = (owners.next(), owners.next()) {
        return Some(hint(action));
    }
    let verb = words.get(1)?.replace('-', "_");
    if let Some(action) = find(first, &verb) {
        return Some(hint(action));
    }
    VERBS
        .iter()
        .find(|(domain, word, _, _)| *domain == first && *word == verb)
        .and_then(|(domain, _, meant, how)| {
            find(domain, meant).map(|action| RouteHint { action, how })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find_by_name;

    #[test]
    fn every_synonym_names_a_real_route_or_field() {
        for (domain, word, meant, _) in VERBS {
            assert!(find(domain, meant).is_some(), "{domain} {meant}");
            assert!(find(domain, word).is_none(), "{word} is a real verb");
        }
        for (word, field, action) in FIELDS {
            let mut targeted = false;
            for a in ACTIONS {
                let mut props = Vec::new();
                super::super::schema::walk_properties(a.schema(), "", &mut props);
                let names: Vec<String> = props.into_iter().map(|(p, _)| p).collect();
                // A word never shadows a real field beside its target.
                let targets = names
                    .iter()
                    .filter(|p| p.rsplit('/').next() == Some(*field));
                for target in targets {
                    targeted = true;
                    let sibling = format!("{}{word}", &target[..target.len() - field.len()]);
                    assert!(!names.contains(&sibling), "{sibling} is a real field");
                }
            }
            assert!(targeted, "{field}");
            if let Some(action) = action {
                assert!(find_by_name(action).is_some(), "{action}");
            }
        }
    }

    #[test]
    fn every_explained_word_is_no_field_of_its_action() {
        for (action, word, _) in EXPLAINED {
            let action = find_by_name(action).expect("a real action");
            assert!(
                action.schema()["properties"].get(word).is_none(),
                "{word} is a field of {}",
                action.name()
            );
        }
    }

    #[test]
    fn resolves_names_ids_dashes_and_synonyms() {
        let name = |words: &[&str]| route(words).map(|h| h.action.name());
        assert_eq!(name(&["task_get"]).as_deref(), Some("task_get"));
        assert_eq!(name(&["task.set_claim"]).as_deref(), Some("task_set_claim"));
        assert_eq!(
            name(&["task", "set-claim"]).as_deref(),
            Some("task_set_claim")
        );
        assert_eq!(name(&["task", "claim"]).as_deref(), Some("task_set_claim"));
        assert_eq!(name(&["task", "search"]).as_deref(), Some("task_list"));
        assert_eq!(name(&["task", "frobnicate"]), None);
        assert_eq!(name(&[]), None);
    }
}
