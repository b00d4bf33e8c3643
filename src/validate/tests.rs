use std::sync::OnceLock;

use super::*;
use crate::registry::{ACTIONS, find};
use serde_json::json;

/// What a number field given words (`"five"`, a title) is told.
const WORDS_FOR_A_NUMBER: &str = "Must be of type integer: the task's number on its board; to find a task by words of its title, task_list with `query`.";

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
    let failure = crate::wire::read_query(
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
    // Not missing once renamed, and "x" is a well-formed id.
    assert!(!e.contains_key("parent_task_scope/scope_id"), "{e:?}");
}

#[test]
fn a_title_is_one_line() {
    let pasted = "Fix the login\n\nThe login page loops after a password reset.";
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": pasted}]}),
    );
    assert_eq!(
        e["tasks/0/title"],
        "A title is one line, without line breaks: put what follows its first line in `tasks/0/description`."
    );
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "a"}, {"title": "b\r\nc"}]}),
    );
    assert!(e["tasks/1/title"].contains("a create of one task"), "{e:?}");
    assert!(!e.contains_key("tasks/0/title"), "{e:?}");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "title": pasted}),
    );
    assert!(e["title"].contains("in `description`"), "{e:?}");
    // A path's backslash read as an escape: said as that.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "Fix path C:\new\tasks"}]}),
    );
    assert_eq!(
        e["tasks/0/title"],
        "A title is one line: `\\n` in JSON is a line break, so a backslash (a path's) is written `\\\\`; else put what follows its first line in `tasks/0/description`."
    );
    // Other text keeps its lines; a title without a break passes.
    validate(
        find("task", "create").unwrap(),
        json!({"channel": "eng", "tasks": [{"title": "Fix the login", "description": pasted}]}),
    )
    .unwrap();
}

#[test]
fn a_value_of_another_shape_is_told_the_one_meant() {
    // A task's address for its number: the number alone, and no search
    // for the address's words.
    let input =
        json!({"channel": "eng", "number": " https://tasks.example/eng/tasks/25?tab=1#c2 "});
    let failure = validate(find("task", "get").unwrap(), input).unwrap_err();
    assert_eq!(
        failure.field_errors["number"],
        "Must be of type integer: write `25`, the number alone, if the address is of task 25 of this board (an address is no number)."
    );
    assert!(failure.suggested_action.is_none(), "{failure:?}");
    // An address that ends in no number is words, searched for as before.
    let e = errors(
        "task",
        "get",
        json!({"channel": "eng", "number": "https://tasks.example/eng/login-bug"}),
    );
    assert!(e["number"].ends_with("task_list with `query`."), "{e:?}");
    // A word for every item where a list of numbers goes; a value no item
    // could be; a value an item could be.
    let claim = |numbers: Value| {
        errors(
            "task",
            "set_claim",
            json!({"channel": "eng", "numbers": numbers, "claimed": true}),
        )
    };
    assert_eq!(
        claim(json!("All"))["numbers"],
        "Must be of type array: there is no `All`; list each number (`[1, 2]`); task_list finds them."
    );
    assert_eq!(
        claim(json!(true))["numbers"],
        "Must be of type array: a list of integers, `[…]`."
    );
    assert_eq!(
        claim(json!(3))["numbers"],
        "Must be of type array: write `[3]`."
    );
    // An object keyed by index is a patch, not an item: it is not shown
    // wrapped in a list (which would be refused), but told the list is
    // given whole; an item's own fields are shown so.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "checklist": {"0": {"done": true}}}),
    );
    assert_eq!(
        e["checklist"],
        "Must be of type array: the whole new list, the items kept too; it replaces the current one, which a read shows."
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "checklist": {"text": "a", "done": true}}),
    );
    assert_eq!(
        e["checklist"],
        "Must be of type array: write `[{\"text\":\"a\",\"done\":true}]`, with every item the task is to keep too: the list replaces its current one."
    );
    // A value shown to write is one that then validates: not `0` for a
    // task number (below its minimum), nor a checklist item without its
    // text; and a title searched for is a search that is taken.
    for (verb, input, path, never) in [
        (
            "get",
            json!({"channel": "eng", "number": "0"}),
            "number",
            "write `0`",
        ),
        (
            "get",
            json!({"channel": "eng", "number": "2147483648"}),
            "number",
            "write `2147483648`",
        ),
        (
            "set_claim",
            json!({"channel": "eng", "numbers": "[0]", "claimed": true}),
            "numbers",
            "write `[0]`",
        ),
        (
            "set_claim",
            json!({"channel": "eng", "numbers": ["0"], "claimed": true}),
            "numbers/0",
            "write `0`",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "checklist": {"done": true}}),
            "checklist",
            "write `[",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "urls": "ftp://x"}),
            "urls",
            "write `[",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "labels": "-bug"}),
            "labels",
            "write `[",
        ),
    ] {
        let e = errors("task", verb, input.clone());
        assert!(
            e.get(path).is_some_and(|m| !m.contains(never)),
            "{input}: {e:?}"
        );
    }
    let failure = validate(
        find("task", "get").unwrap(),
        json!({"channel": "eng", "number": "fix -login"}),
    )
    .unwrap_err();
    assert!(failure.suggested_action.is_none(), "{failure:?}");
    // Yes or no where JSON's `true` or `false` goes; a quoted one is told
    // to drop the quotes, as before.
    for (claimed, said) in [
        (
            json!("yes"),
            "Must be of type boolean: `true` or `false`, without quotes.",
        ),
        (
            json!(1),
            "Must be of type boolean: `true` or `false`, without quotes.",
        ),
        (
            json!("true"),
            "Must be of type boolean: write `true` without quotes.",
        ),
    ] {
        let e = errors(
            "task",
            "set_claim",
            json!({"channel": "eng", "numbers": [1], "claimed": claimed}),
        );
        assert_eq!(e["claimed"], said, "{claimed}");
    }
}

#[test]
fn a_value_boxed_in_an_object_is_told_to_stand_alone() {
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "assignee": {"handle": "@bob"}}),
    );
    assert_eq!(
        e["assignee"],
        "Must be of type null or string: write `\"@bob\"`, the value alone, not an object (its `handle`)."
    );
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "parent": {"number": 5}, "tasks": [{"title": "a"}]}),
    );
    assert_eq!(
        e["parent"],
        "Must be of type integer: write `5`, the value alone, not an object (its `number`)."
    );
    // What the value alone would still be told, in the same answer.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "assignee": {"name": "bob"}}),
    );
    assert_eq!(
        e["assignee"],
        "Must be of type null or string: the value alone, not an object (its `name`); so given: A member ref starts with `@`: write `@` before the handle."
    );
    // A list of one value, as a tool that takes every parameter as a list
    // writes it: the value alone too.
    let e = errors("task", "get", json!({"channel": ["eng"], "number": [5]}));
    assert_eq!(
        e["channel"],
        "Must be of type string: write `\"eng\"`, the value alone, not a list."
    );
    assert_eq!(
        e["number"],
        "Must be of type integer: write `5`, the value alone, not a list."
    );
    let e = errors("task", "get", json!({"channel": ["Eng"], "number": [0]}));
    assert_eq!(
        e["channel"],
        "Must be of type string: the value alone, not a list; so given: Must be lowercase."
    );
    assert_eq!(
        e["number"],
        "Must be of type integer: the value alone, not a list; so given: Must be at least 1."
    );
    // Not an object of several values, nor a list in one (`labels: {"add":
    // […]}` is a change to a list an update replaces, said as such).
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "assignee": {"handle": "@bob", "id": "x"}}),
    );
    assert_eq!(e["assignee"], "Must be of type null or string.");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "labels": {"add": ["x"]}}),
    );
    assert!(!e["labels"].contains("value alone"), "{}", e["labels"]);
    // Many boxed values at once: each is judged unboxed once, and what it
    // would then be told is said (this 400-byte input took minutes when
    // judging one unboxed judged every other unboxed again, on the CLI and
    // on the runtime alike).
    let boxed = |i: usize| {
        json!({"title": {"text": format!("t{i}")}, "description": {"text": "d"},
            "assignee": {"name": "bob"}, "status": {"name": "todo"},
            "priority": {"name": "high"}, "blocker": {"text": "b"}})
    };
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": (0..3).map(boxed).collect::<Vec<_>>()}),
    );
    assert_eq!(
        e["tasks/2/title"],
        "Must be of type string: write `\"t2\"`, the value alone, not an object (its `text`)."
    );
    let mut update = boxed(0);
    update["channel"] = json!("eng");
    update["number"] = json!(1);
    update["parent"] = json!({"number": 2});
    let e = errors("task", "update", update);
    assert!(
        e["assignee"]
            .ends_with("so given: A member ref starts with `@`: write `@` before the handle."),
        "{e:?}"
    );
}

#[test]
fn a_wrong_shape_or_spelling_says_what_to_change() {
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "Eng", "numbers": 2, "claimed": true}),
    );
    assert_eq!(e["numbers"], "Must be of type array: write `[2]`.");
    assert_eq!(e["channel"], "Must be lowercase.");
    let e = errors(
        "task",
        "create",
        json!({"parent_task_scope": "tsk_1", "tasks": [{"title": "a", "assignee": "bob"}]}),
    );
    assert_eq!(
        e["parent_task_scope"],
        r#"Must be of type object: `{"kind": "task", "scope_id": "tsk_…"}`, the parent's scope_id as task_list and task_get answer it; a parent by its number is `parent` beside `channel` instead."#
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
        e["target"].starts_with("Must be a thread as `#board:thread_id`"),
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
    assert_eq!(
        e["number"],
        "Unknown field; it means `numbers`, which the input gives too, with another value: keep one, in `numbers`, the value meant."
    );
    // A checkpoint's `id` beside `number` is no second task number.
    let e = errors(
        "task",
        "checkpoint",
        json!({"channel": "eng", "number": 2, "id": 1, "summary": "s"}),
    );
    assert_eq!(
        e["id"],
        "Unknown field; it means `number`, which the input gives too, with another value: keep one, in `number`, the value meant."
    );
    let e = errors(
        "task",
        "checkpoint",
        json!({"channel": "eng", "number": 2, "summary": "s", "status": "done"}),
    );
    assert_eq!(
        e["status"],
        "Unknown field; task_checkpoint does not take it (it is `status` of task_update: `agentteam exec task update -`): drop it here."
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
    // One item is said in the singular.
    let e = errors("task", "create", json!({"channel": "eng", "tasks": []}));
    assert_eq!(e["tasks"], "Must have at least 1 item.");
}

/// "none" where null clears a field is told null, not the value's format
/// (`@none` would be a member never found); a time without its offset is
/// told the format in words, and an impossible one what is out of range.
#[test]
fn a_word_for_nobody_is_told_null_and_a_bad_time_its_format() {
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "assignee": "none", "parent": "None"}),
    );
    let null = "A word is a value, not an absence: `null` (without quotes) clears it.";
    assert_eq!((e["assignee"].as_str(), e["parent"].as_str()), (null, null));
    // On create nothing is cleared: such a field is left out.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "a", "assignee": "none", "blocker": null}]}),
    );
    assert_eq!(
        e["tasks/0/assignee"],
        "A word is a value, not an absence: leave the field out, and it has none."
    );
    assert_eq!(
        e["tasks/0/blocker"],
        "Must be of type string: leave the field out, and it has none."
    );
    // A null locator is no locator: the other stands, and the null one is
    // told to go.
    let e = errors(
        "task",
        "create",
        json!({"channel": null, "parent_task_scope": {"kind": "task", "scope_id": "tsk_1"}, "tasks": [{"title": "a"}]}),
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e["channel"].starts_with("Leave it out"), "{e:?}");
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "parent_task_scope": null, "tasks": [{"title": "a"}]}),
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e["parent_task_scope"].contains("leave the field out"),
        "{e:?}"
    );
    // A locator required by a rule, not the schema, gets no such advice:
    // the rule says what to give.
    let e = errors(
        "task",
        "create",
        json!({"channel": null, "tasks": [{"title": "a"}]}),
    );
    assert_eq!(
        e["channel"],
        "Give exactly one locator: `channel` or `parent_task_scope`."
    );
    // On update, a list left out is unchanged: `[]` empties it.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "labels": "none", "urls": null}),
    );
    assert_eq!(
        e["labels"],
        "A word is a value, not an absence: `[]` clears the list; left out, it is unchanged."
    );
    assert_eq!(
        e["urls"],
        "Must be of type array: `[]` clears the list; left out, it is unchanged."
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "assignee": "alice"}),
    );
    assert_eq!(
        e["assignee"],
        "A member ref starts with `@`: write `@` before the handle."
    );
    for (at, says) in [
        ("2026-12-02T08:03:34", "the form a task's updated_at takes"),
        ("yesterday", "the form a task's updated_at takes"),
        ("2026-13-45T99:00:00Z", "out of range"),
        ("2026-12-02T08:03:34+25:00", "UTC offset out of range"),
    ] {
        let e = errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 1, "title": "t", "expected_updated_at": at}),
        );
        assert!(
            e["expected_updated_at"].contains(says),
            "{at}: {}",
            e["expected_updated_at"]
        );
    }
}

/// camelCase at two levels is said at both at once, and a wrapper of this
/// level's own fields (`patch`, as some APIs take an update) is told to
/// unwrap: one retry fixes either.
#[test]
fn nested_slips_and_wrappers_are_said_in_one_answer() {
    let e = errors(
        "task",
        "create",
        json!({"parentTaskScope": {"kind": "task", "scopeId": "tsk_1"}, "tasks": [{"title": "x"}]}),
    );
    assert_eq!(
        e["parentTaskScope"],
        "Unknown field; fields are snake_case: use `parent_task_scope`. Inside it too: `scopeId` → `scope_id`."
    );
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "filter": {"assignedToMe": true}}),
    );
    assert!(
        e["filter"].ends_with("Inside it too: `assignedToMe` → `assigned_to_me`."),
        "{}",
        e["filter"]
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "patch": {"status": "done"}}),
    );
    assert_eq!(
        e["patch"],
        "Unknown field; `patch` is no wrapper here: put the fields it holds beside the others, at this level."
    );
    // A wrapper whose name is near a field (`changes`, `channel`), a
    // synonym (`body`, `description`) or an answer's key (`data`) is still
    // a wrapper when what it holds are this level's fields.
    // A selector is not: unwrapped, it would set what it meant to match.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "where": {"assignee": "@alice"}}),
    );
    assert!(!e["where"].contains("no wrapper"), "{e:?}");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "Where": {"assignee": "@alice"}}),
    );
    assert!(!e["Where"].contains("no wrapper"), "{e:?}");
    // Keys in any case (`Status`) are fields inside a wrapper too.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "patch": {"Status": "done"}}),
    );
    assert!(e["patch"].contains("no wrapper"), "{e:?}");
    // One that holds only the task's locator is.
    let e = errors(
        "task",
        "get",
        json!({"where": {"channel": "eng", "number": 1}}),
    );
    assert!(e["where"].contains("no wrapper"), "{e:?}");
    assert!(!e.contains_key("channel"), "{e:?}");
    for wrapper in ["changes", "body", "data"] {
        let e = errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 1, wrapper: {"status": "done"}}),
        );
        assert!(
            e[wrapper].contains("is no wrapper here"),
            "{wrapper}: {}",
            e[wrapper]
        );
    }
}

/// What is wrong inside a key that must be renamed or unwrapped is said
/// in the same answer, at its place once fixed, and a branch rule only the
/// unfixed input breaks is not: one retry fixes both levels.
#[test]
fn problems_inside_a_renamed_or_wrapping_key_are_said_at_once() {
    let e = errors(
        "task",
        "create",
        json!({"tasks": [{"title": "t"}], "parentTaskScope": {"scopeId": "tsk_0123456789abcdef0123456789abcdef"}}),
    );
    assert!(
        e["parent_task_scope/kind"].starts_with("Once renamed: Required"),
        "{e:?}"
    );
    // `scopeId` is said with the rename, and the locator rule is kept by
    // the renamed key.
    assert!(!e.contains_key("parent_task_scope/scope_id"), "{e:?}");
    assert!(!e.contains_key("channel"), "{e:?}");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "patch": {"status": "done", "assignee": "none"}}),
    );
    assert!(e["assignee"].starts_with("Once unwrapped: "), "{e:?}");
    assert!(
        !e.contains_key(""),
        "the fields it holds are changes: {e:?}"
    );
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "filter": {"assignedToMe": true, "assignee": "@bob"}}),
    );
    assert!(
        e["filters/assigned_to_me"].starts_with("Once fixed: "),
        "{e:?}"
    );
    // The renamed value's own problem stands where "Required" would (the
    // place the rename fills), and renames inside it are made in turn.
    let e = errors("task", "get", json!({"channel": "eng", "Number": "one"}));
    assert_eq!(
        e["number"],
        format!("Once renamed: {WORDS_FOR_A_NUMBER}"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "update",
        json!({"patch": {"channel": "#eng", "number": 1, "status": "done"}}),
    );
    assert!(e["channel"].contains("Drop the leading `#`"), "{e:?}");
    assert!(!e.contains_key("number"), "{e:?}");
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "task": [{"title": "x", "Attachments": [{"name": "a", "url": "ftp://x"}]}]}),
    );
    assert!(
        e["tasks/0/attachments/0/url"].starts_with("Once renamed: Must be an http"),
        "{e:?}"
    );
    // Nothing wrong inside: the rename alone.
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "filter": {"labels": ["x"]}}),
    );
    assert_eq!(e.len(), 1, "{e:?}");
}

/// A scope_id that is no id (`#t2`, a board's `#name`) is told where ids
/// come from, not to drop its `#` (which gives no id either).
#[test]
fn a_scope_id_that_is_no_id_is_told_where_ids_come_from() {
    let e = errors(
        "task",
        "create",
        json!({"parent_task_scope": {"kind": "task", "scope_id": "#t2"}, "tasks": [{"title": "x"}]}),
    );
    let said = &e["parent_task_scope/scope_id"];
    assert!(said.contains("task_list and task_get"), "{said}");
    assert!(!said.contains("Drop the leading"), "{said}");
}

/// "none" in a filter is not told to become `@none` (a member never
/// found), nor only to leave the filter out, whose retry lists assigned
/// tasks too: no filter matches "unassigned", and answers show it.
#[test]
fn a_none_word_in_a_filter_is_told_to_leave_the_filter_out() {
    for value in [json!("none"), json!("nobody"), json!(null)] {
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", "filters": {"assignee": value}}),
        );
        let said = &e["filters/assignee"];
        assert!(
            said.ends_with("no filter matches its absence (an unassigned task, say); left out, the filter matches any, and each answer shows the value, `null` where there is none."),
            "{value}: {said}"
        );
        assert!(!said.contains("write `@`"), "{said}");
    }
    for (word, says) in [
        ("any", "leave the filter out"),
        ("Everyone", "leave the filter out"),
        ("me", "set `assigned_to_me` to true"),
    ] {
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", "filters": {"assignee": word}}),
        );
        assert!(e["filters/assignee"].contains(says), "{word}: {e:?}");
    }
}

/// A word for oneself as a write's assignee (`me`) is told to claim: the
/// CLI does not know the caller's handle, and `@me`, no member, would be
/// refused next (docs/contract.md: no sentinel for "current").
#[test]
fn a_word_for_oneself_as_an_assignee_is_told_to_claim() {
    for word in ["me", "Myself", " self"] {
        let e = errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 3, "assignee": word}),
        );
        assert!(
            e["assignee"].contains("To take the task yourself, claim it instead: task_set_claim"),
            "{word}: {e:?}"
        );
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "tasks": [{"title": "u", "assignee": word}]}),
        );
        assert!(
            e["tasks/0/assignee"].contains("leave `assignee` out and claim it once made"),
            "{word}: {e:?}"
        );
    }
    // A handle is still told its `@`.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 3, "assignee": "mel"}),
    );
    assert_eq!(
        e["assignee"],
        "A member ref starts with `@`: write `@` before the handle."
    );
}

/// `null` for an optional field that takes no null is told to leave the
/// field out (`cursor: null` for the first page), not only its type.
#[test]
fn null_for_an_optional_field_is_told_to_leave_it_out() {
    for (verb, input, path, says) in [
        (
            "list",
            json!({"channel": "eng", "cursor": null}),
            "cursor",
            "for its default",
        ),
        (
            "list",
            json!({"channel": "eng", "limit": null}),
            "limit",
            "for its default",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "status": null}),
            "status",
            "it is unchanged",
        ),
    ] {
        let e = errors("task", verb, input);
        assert!(e[path].contains(says), "{path}: {e:?}");
    }
    // Nor does an optional one that has no default (`subtask_mode`).
    let e = errors(
        "task",
        "delete",
        json!({"channel": "eng", "number": 1, "subtask_mode": null}),
    );
    assert!(!e["subtask_mode"].contains("leave the field out"), "{e:?}");
    assert!(
        e["subtask_mode"].ends_with("one of `promote`, `delete`."),
        "{e:?}"
    );
    // A required one gets no such advice.
    let e = errors("task", "get", json!({"channel": "eng", "number": null}));
    assert!(!e["number"].contains("leave the field out"), "{e:?}");
}

/// A token pasted as a key is not repeated as the error's path.
#[test]
fn an_unknown_key_shaped_as_a_token_is_not_repeated() {
    let token = "at_ioYKu4895Rs2CF1SdG06Zg5E66t5ft7X3uV7EAJc7gg";
    let e = errors("task", "list", json!({"channel": "eng", token: 1}));
    assert!(e.contains_key("<redacted>"), "{e:?}");
    assert!(!format!("{e:?}").contains("ioYKu4895"), "{e:?}");
    // Two are two problems, both said.
    let other = "at_Zq81LmN3pQ7rT2vX9yB4cD6fG0hJ5kW";
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", token: 1, other: 2}),
    );
    assert_eq!(e.len(), 2, "{e:?}");
    // Nor in a sibling's message that points at it, nor as a wrapper.
    for input in [
        json!({"channel": "eng", token: 1, "zzz": 2}),
        json!({"channel": "eng", token: {"query": "x"}}),
    ] {
        let e = errors("task", "list", input);
        assert!(!format!("{e:?}").contains("ioYKu4895"), "{e:?}");
    }
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
    // `desc` is another tracker's name for it (Trello's); `prio` the
    // start of exactly one field's name.
    assert_eq!(
        f.field_errors["tasks/0/desc"],
        "Unknown field; use `description`."
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
        f.field_errors["status"].contains("it is `status` of task_update"),
        "{f:?}"
    );
    let f = refused("get", json!({"channel": "eng", "number": 1, "title": "x"}));
    assert!(
        f.field_errors["title"].contains("to change its title, task_update"),
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
        "Must be of type object: write `{\"text\":\"b\"}`."
    );
    // A few repeats stay listed, each under its own path, with its own text.
    assert_eq!(
        e["tasks/0/checklist/2"],
        "Must be of type object: write `{\"text\":\"c\"}`."
    );
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
    // A `title` the rename fills is not said missing.
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(
        e["tasks/0/name"].starts_with("Unknown field; use `title`. Also at items 1–2, 4–9, 11–16,"),
        "{e:?}"
    );
    assert_eq!(
        e["tasks/3/title"],
        "Must not be blank. Also at items 10, 17, 24, 31, 38, 45 of this list."
    );
    assert!(!e.contains_key("tasks/0/title"), "{e:?}");
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
    // Every field of a task, in the schema's order (a new one joins them).
    let schema = find("task", "create").unwrap().cached_input_schema();
    let fields: Vec<String> = schema["properties"]["tasks"]["items"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(|name| format!("`{name}`"))
        .collect();
    assert!(fields.len() >= 10 && fields[0] == "`title`", "{fields:?}");
    assert_eq!(
        e["tasks/0/frobnicate"],
        format!(
            "Unknown field; the fields here are {}: rename it to the one meant, or drop it.",
            fields.join(", ")
        )
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "comment": "c"}),
    );
    assert_eq!(
        e["comment"],
        "Unknown field; task_update does not take it (it is `summary` of task_checkpoint: `agentteam exec task checkpoint -`): drop it here."
    );
    // Another action's own field is that action's, whatever its value (a
    // status word as a checkpoint's summary is no `status`).
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "summary": "started"}),
    );
    assert!(
        e["summary"].contains("it is `summary` of task_checkpoint"),
        "{e:?}"
    );
    assert!(!e.contains_key("status"), "{e:?}");
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
    // Other APIs' names for a list's order are `sort`, and its value is
    // judged as the sort's in the same answer.
    for name in ["order_by", "orderBy", "sort_by", "order"] {
        let e = errors(
            "task",
            "list",
            json!({"channel": "eng", name: "updated_at desc"}),
        );
        assert_eq!(e[name], "Unknown field; use `sort`.", "{name}");
        assert!(
            e["sort"].starts_with("Once renamed: Must be one of `updated_desc`"),
            "{name}: {e:?}"
        );
    }
}

#[test]
fn a_name_with_spaces_around_it_is_told_to_drop_them() {
    for name in ["eng ", " eng", "\teng\n"] {
        let e = errors("task", "get", json!({"channel": name, "number": 1}));
        assert_eq!(
            e["channel"], "Drop the spaces around it: the name is written without them.",
            "{name:?}"
        );
    }
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "assignee": " @bob "}),
    );
    assert!(e["assignee"].starts_with("Drop the spaces"), "{e:?}");
    // A blank name has nothing to keep.
    let e = errors("task", "get", json!({"channel": "  ", "number": 1}));
    assert!(!e["channel"].starts_with("Drop the spaces"), "{e:?}");
}

#[test]
fn a_channel_with_a_hash_is_told_to_drop_it() {
    let e = errors("task", "get", json!({"channel": "#eng", "number": 1}));
    assert_eq!(
        e["channel"],
        "Drop the leading `#`: the name is written without it."
    );
    let e = errors("task", "get", json!({"channel": "#Eng!", "number": 1}));
    assert!(e["channel"].starts_with("Must be a board name"), "{e:?}");
    let e = errors("task", "get", json!({"channel": "#Eng", "number": 1}));
    assert!(
        e["channel"].starts_with("Drop the leading `#` and write it in lowercase"),
        "{e:?}"
    );
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
    assert!(
        e["idempotency_key"].starts_with(
            "Must not be blank; a key is for a create inside an active workflow callback"
        ),
        "{e:?}"
    );
    // A checkpoint's key is taken at any time: a blank one is told so.
    let e = errors(
        "task",
        "checkpoint",
        json!({"channel": "eng", "number": 1, "summary": "s", "idempotency_key": " "}),
    );
    assert!(
        e["idempotency_key"].contains("a checkpoint sent again append once")
            && !e["idempotency_key"].contains("workflow callback"),
        "{e:?}"
    );
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
    // The schema states the bound (in characters, each at least a byte).
    for verb in ["create", "checkpoint"] {
        let schema = find("task", verb).unwrap().cached_input_schema();
        assert_eq!(
            schema["properties"]["idempotency_key"]["maxLength"], 128,
            "{verb}"
        );
    }
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "a"}], "idempotency_key": "k".repeat(129)}),
    );
    assert_eq!(e["idempotency_key"], "At most 128 UTF-8 bytes.");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "expected_updated_at": "2026-01-01T00:00:00Z"}),
    );
    assert!(e[""].starts_with("Give at least one field to change"));
    // The pattern's shape with no real time in it is refused before sending;
    // any real RFC3339 time, with any offset and precision, passes.
    for at in [
        "2026-13-45T99:00:00Z",
        "2026-02-30T00:00:00Z",
        "2026-01-01T24:00:00Z",
    ] {
        let e = errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 1, "title": "t", "expected_updated_at": at}),
        );
        assert!(
            e["expected_updated_at"].starts_with("Not a real time"),
            "{at}: {e:?}"
        );
    }
    for at in [
        "2026-11-30T09:15:00.123456Z",
        "2026-11-30T11:15:00.1234567+02:00",
        // RFC 3339 §5.6: `t` and `z` may be lower case.
        "2026-11-30t09:15:00.123456z",
    ] {
        validate(
            find("task", "update").unwrap(),
            json!({"channel": "eng", "number": 1, "title": "t", "expected_updated_at": at}),
        )
        .unwrap_or_else(|e| panic!("{at}: {e:?}"));
    }
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
        walk(action.cached_input_schema(), &action.name());
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
                Value::Object(inner) => inner.keys().next().map(|k| vec![key.clone(), k.clone()]),
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
                    .build(a.cached_input_schema())
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
        record(
            violation,
            action,
            input,
            &mut errors,
            &mut Vec::new(),
            &mut Vec::new(),
        );
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

/// A value sent as a string that holds it (JSON-encoded twice, or quoted
/// by habit) is shown as the value meant, without its quotes.
#[test]
fn a_quoted_value_of_the_wanted_type_is_shown_without_its_quotes() {
    let long = format!("[{}]", vec!["\"a-label\""; 20].join(","));
    let unquote = |value: &str, wanted: &str| {
        format!("Must be of type {wanted}: write `{value}` without quotes.")
    };
    let cases = [
        (
            "get",
            json!({"channel": "eng", "number": "12"}),
            "number",
            unquote("12", "integer"),
        ),
        (
            "set_claim",
            json!({"channel": "eng", "numbers": [1], "claimed": "true"}),
            "claimed",
            unquote("true", "boolean"),
        ),
        (
            "set_claim",
            json!({"channel": "eng", "numbers": [1, " 2 "], "claimed": true}),
            "numbers/1",
            unquote("2", "integer"),
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "labels": "[\"bug\"]"}),
            "labels",
            unquote(r#"["bug"]"#, "array"),
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "parent": "3"}),
            "parent",
            unquote("3", "integer or null"),
        ),
        // Not a value of the type: the usual words.
        (
            "get",
            json!({"channel": "eng", "number": "twelve"}),
            "number",
            WORDS_FOR_A_NUMBER.into(),
        ),
        (
            "get",
            json!({"channel": "eng", "number": "4.5"}),
            "number",
            "Must be of type integer: a whole number. A subtask has a number of its own on the board: `task_get` of task 4 lists its subtasks (`subtasks`) with theirs.".into(),
        ),
        // Too long to repeat, or holding a backtick, which would end the
        // quote early.
        (
            "update",
            json!({"channel": "eng", "number": 1, "labels": "[\"a`b\"]"}),
            "labels",
            "Must be of type array: write the value itself, not a string that holds it.".into(),
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "labels": long}),
            "labels",
            "Must be of type array: write the value itself, not a string that holds it.".into(),
        ),
    ];
    for (verb, input, path, said) in cases {
        assert_eq!(errors("task", verb, input.clone())[path], said, "{input}");
    }
}

#[test]
fn an_integral_number_is_an_integer_and_arrives_as_one() {
    let action = find("task", "get").unwrap();
    let ok = validate(action, json!({"channel": "eng", "number": 42.0})).unwrap();
    assert!(ok["number"].is_i64(), "{ok}");
    assert_eq!(ok["number"], 42);
    let e = errors("task", "get", json!({"channel": "eng", "number": 4.5}));
    assert_eq!(
        e["number"],
        "Must be of type integer: a whole number. A subtask has a number of its own on the board: `task_get` of task 4 lists its subtasks (`subtasks`) with theirs."
    );
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

/// What the recovery audit's agent wrote for a number or a list, and the
/// value each error says to write instead, which validates.
#[test]
fn a_task_ref_or_a_joined_list_is_told_the_value_it_meant() {
    for (verb, input, field, said) in [
        (
            "get",
            json!({"channel": "eng", "number": "#5"}),
            "number",
            "write `5`, the number alone",
        ),
        (
            "get",
            json!({"channel": "eng", "number": "#t5"}),
            "number",
            "write `5`, the number alone",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "parent": "#2"}),
            "parent",
            "write `2`, the number alone",
        ),
        (
            "set_claim",
            json!({"channel": "eng", "numbers": "1,2", "claimed": true}),
            "numbers",
            "write `[1, 2]`",
        ),
        (
            "set_claim",
            json!({"channel": "eng", "numbers": "#3, #4", "claimed": true}),
            "numbers",
            "write `[3, 4]`",
        ),
        (
            "set_claim",
            json!({"channel": "eng", "numbers": ["#3"], "claimed": true}),
            "numbers/0",
            "write `3`, the number alone",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "labels": "bug, ui"}),
            "labels",
            r#"write `["bug", "ui"]`"#,
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "labels": "bug"}),
            "labels",
            r#"write `["bug"]`"#,
        ),
    ] {
        let e = errors("task", verb, input.clone());
        assert!(e[field].contains(said), "{input}: {e:?}");
    }
    // Not a number, not a list of numbers, or out of bounds: no value is
    // made up (what is shown must then validate).
    let e = errors("task", "get", json!({"channel": "eng", "number": "five"}));
    assert_eq!(e["number"], WORDS_FOR_A_NUMBER);
    let e = errors("task", "get", json!({"channel": "eng", "number": "#0"}));
    assert_eq!(e["number"], "Must be of type integer.");
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "numbers": "1,1", "claimed": true}),
    );
    assert_eq!(e["numbers"], "Must be of type array: write `[1]`.");
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "numbers": "1, two", "claimed": true}),
    );
    assert_eq!(
        e["numbers"],
        "Must be of type array: a list of integers, `[…]`."
    );
}

/// A task's title or scope id where its number goes: the number is said to
/// be the board's number, and for words the refusal suggests the search
/// that finds it (docs/contract.md §8.2), which validates as it stands.
#[test]
fn a_title_or_a_scope_id_where_a_number_goes_is_told_how_to_find_the_number() {
    let list = find("task", "list").unwrap();
    for (verb, input, field) in [
        (
            "get",
            json!({"channel": "eng", "number": "login bug"}),
            "number",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "parent": " Fix login "}),
            "parent",
        ),
        (
            "set_claim",
            json!({"channel": "eng", "numbers": ["login bug"], "claimed": true}),
            "numbers/0",
        ),
    ] {
        let failure = validate(find("task", verb).unwrap(), input.clone()).unwrap_err();
        assert!(
            failure.field_errors[field]
                .ends_with(WORDS_FOR_A_NUMBER.trim_start_matches("Must be of type integer")),
            "{verb} {input}: {:?}",
            failure.field_errors
        );
        let action = failure.suggested_action.as_deref().expect("a suggestion");
        assert_eq!(action.tool, "task_list");
        let words = input
            .pointer(&format!("/{field}"))
            .unwrap()
            .as_str()
            .unwrap()
            .trim();
        assert_eq!(
            action.arguments,
            json!({"channel": "eng", "query": words, "status": "all"})
        );
        validate(list, action.arguments.clone()).expect("the suggestion validates");
    }
    // A scope id: where the number is; nothing to search for.
    let failure = validate(
        find("task", "get").unwrap(),
        json!({"channel": "eng", "number": "tsk_0b050cbf22cdca2e47039c46a35ca622"}),
    )
    .unwrap_err();
    assert!(failure.field_errors["number"].contains("not its scope_id"));
    assert!(failure.suggested_action.is_none());
    // No board to search, or no words: said, but nothing suggested.
    for input in [
        json!({"number": "login bug"}),
        json!({"channel": "eng", "number": "?!"}),
    ] {
        let failure = validate(find("task", "get").unwrap(), input.clone()).unwrap_err();
        assert!(failure.suggested_action.is_none(), "{input}");
    }
    // Only a value in its own field: `parent` out of place is not searched.
    let failure = validate(
        find("task", "create").unwrap(),
        json!({"channel": "eng", "tasks": [{"title": "t", "parent": "Fix login"}]}),
    )
    .unwrap_err();
    assert!(
        failure.suggested_action.is_none(),
        "{:?}",
        failure.field_errors
    );
}

/// A word that means a field of several actions is read as the one here:
/// a checkpoint's text is its `summary`, never another action's field.
#[test]
fn a_text_field_by_another_name_is_the_one_this_action_has() {
    for word in [
        "body",
        "description",
        "content",
        "notes",
        "details",
        "progress",
    ] {
        let e = errors(
            "task",
            "checkpoint",
            json!({"channel": "eng", "number": 1, word: "x"}),
        );
        assert_eq!(e[word], "Unknown field; use `summary`.", "{word}");
    }
    for word in ["body", "content", "notes", "details"] {
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "tasks": [{"title": "t", word: "x"}]}),
        );
        assert_eq!(
            e[format!("tasks/0/{word}").as_str()],
            "Unknown field; use `description`.",
            "{word}"
        );
    }
    // A task's own field beside `tasks` is told where it goes, not taken
    // for a checkpoint's.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t"}], "description": "x"}),
    );
    assert!(e["description"].contains("belongs in `tasks`"), "{e:?}");
    // A field only another action takes: drop it here.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "title": "t", "idempotency_key": "k"}),
    );
    assert!(e["idempotency_key"].ends_with("drop it here."), "{e:?}");
}

/// A field whose drop or nearest rename would do something else than the
/// caller meant says what it would have done instead, and proposes no name.
#[test]
fn a_field_whose_fix_would_mislead_says_what_to_do_instead() {
    let f = validate(
        find("task", "create").unwrap(),
        json!({"channel": "eng", "number": 1, "tasks": [{"title": "t"}]}),
    )
    .unwrap_err();
    assert!(
        f.field_errors["number"].contains(r#"for a subtask of task N, write "parent": N"#),
        "{f:?}"
    );
    assert!(f.candidates.is_none(), "{f:?}");
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "numbers": [1], "claimed": true, "assignee": "@bob"}),
    );
    assert!(
        e["assignee"].contains("claims for the calling agent only"),
        "{e:?}"
    );
    for word in ["add_labels", "removeLabels"] {
        let e = errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 1, word: ["x"]}),
        );
        let key = e.keys().find(|k| k.as_str() == word).unwrap();
        assert!(e[key].contains("labels replaces the whole list"), "{e:?}");
    }
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "checklist_item": "x"}),
    );
    assert!(
        e["checklist_item"].contains("`checklist`, which replaces the whole list"),
        "{e:?}"
    );
}

/// An integer written as a float up to the largest bound a schema sets
/// (2^53 - 1) reaches its reader as an integer: 9.0e15 and above stayed a
/// float, passed the schema's bound, and the runtime answered 500.
#[test]
fn an_integral_float_up_to_the_largest_bound_is_read_as_an_integer() {
    for written in ["9007199254740991.0", "9.0e15", "9000000000000001.0", "5.0"] {
        let input: Value = serde_json::from_str(&format!(
            r#"{{"channel": "eng", "number": 1, "checkpoints_before": {written}}}"#
        ))
        .unwrap();
        let valid = validate(find("task", "get").unwrap(), input).unwrap();
        assert!(valid["checkpoints_before"].is_i64(), "{written}: {valid}");
    }
    let input = json!({"channel": "eng", "number": 1, "checkpoints_before": 9007199254740992.0});
    let e = errors("task", "get", input);
    assert!(e.contains_key("checkpoints_before"), "{e:?}");
}

/// Mistakes an audit of agents' slips found answered with a fix that
/// would do something else than meant: each answer now says what to do.
#[test]
fn a_slip_whose_literal_fix_would_mislead_is_told_what_it_means() {
    let update = |fields: Value| {
        let mut input = json!({"channel": "eng", "number": 3});
        input
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        errors("task", "update", input)
    };
    // A list of changes to a list an update replaces: "put it in a list"
    // would drop the labels kept.
    let e = update(json!({"labels": {"add": ["bug"]}}));
    assert!(e["labels"].contains("it replaces the current one"), "{e:?}");
    // A field that cannot be cleared says so before "leave it out".
    let e = update(json!({"title": null}));
    assert!(e["title"].contains("it cannot be cleared"), "{e:?}");
    // A time or an id in another type says what the value must be.
    let e = update(json!({"status": "done", "expected_updated_at": 1_796_303_297}));
    assert!(
        e["expected_updated_at"].starts_with("Must be of type string: a time in the form"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "get",
        json!({"channel": "eng", "number": 3, "checkpoints_before": "2026-12-03T13:08:00Z"}),
    );
    assert!(
        e["checkpoints_before"].contains("a checkpoint's id"),
        "{e:?}"
    );
    // Words for a task's state, a date it has no field for, a reviewer, a
    // batch wrapper: what they mean here, not "did you mean".
    let e = update(json!({"status": "done", "done": true}));
    assert!(e["done"].contains("a task's state is `status`"), "{e:?}");
    let e = update(json!({"due_date": "2026-12-31"}));
    assert!(e["due_date"].contains("no due date"), "{e:?}");
    let e = update(json!({"status": "in_review", "reviewer": "@bob"}));
    assert!(e["reviewer"].contains("there is no reviewer"), "{e:?}");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "tasks": [{"number": 3, "status": "done"}, {"number": 4, "status": "done"}]}),
    );
    assert!(e["tasks"].contains("`--batch`"), "{e:?}");
    // One task in the list is unwrapped, as a `patch` object is, and its
    // fields judged where they go: one error, not three.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "tasks": [{"number": 3, "status": "done"}]}),
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e["tasks"].contains("is no wrapper here"), "{e:?}");
    // Other trackers' names for this one's fields.
    let e = update(json!({"issue_id": 3, "project": "eng", "parent_id": 2, "if_match": "x"}));
    for (given, meant) in [("parent_id", "parent"), ("if_match", "expected_updated_at")] {
        assert_eq!(e[given], format!("Unknown field; use `{meant}`."), "{e:?}");
    }
    // Beside the field it means (the update's `number` and `channel`), a
    // rename would give that field twice: the same value is dropped; of
    // two, the one meant is kept (a `board` beside `channel` is no move).
    for (given, meant) in [("issue_id", "number"), ("project", "channel")] {
        assert_eq!(
            e[given],
            format!(
                "Unknown field; it means `{meant}`, which the input gives too, the same: drop it."
            ),
            "{e:?}"
        );
    }
    let e = update(json!({"board": "ops", "status": "done"}));
    assert_eq!(
        e["board"],
        "Unknown field; it means `channel`, which the input gives too, with another value: keep one, in `channel`, the value meant."
    );
    let e = errors("task", "get", json!({"channel": "eng", "issue_id": 3}));
    assert_eq!(e["issue_id"], "Unknown field; use `number`.", "{e:?}");
    // A value that means two of the enum's.
    let e = update(json!({"status": "Closed"}));
    assert!(
        e["status"].contains("`done` if the work was finished"),
        "{e:?}"
    );
    let e = update(json!({"status": "finished"}));
    assert!(!e["status"].contains("closed"), "{e:?}");
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "sort": "priority"}),
    );
    assert!(e["sort"].contains("`relevance` only with a query"), "{e:?}");
    // Subtasks nested in a create: a second create, not a drop.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "R", "subtasks": [{"title": "a"}]}]}),
    );
    assert!(
        e["tasks/0/subtasks"].contains("a second task_create whose `parent`"),
        "{e:?}"
    );
    // A name whose value is written in the shape it takes is judged as
    // written so: no "give a field to change", no "number: Required".
    let e = update(json!({"assignees": ["@bob"]}));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e["assignees"].ends_with("Write it `\"assignee\": \"@bob\"`."),
        "{e:?}"
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "numbers": [3], "status": "done"}),
    );
    assert_eq!(e.len(), 1, "{e:?}");
    // What is wrong in the value so written is said at once, where it goes.
    let e = update(json!({"assignees": ["bob"]}));
    assert!(
        e["assignee"].starts_with("Once rewritten: A member ref starts with `@`"),
        "{e:?}"
    );
    // A field an item of a list lacks says what it is (and, an update's
    // list being replaced whole, that every item goes in it).
    let e = update(json!({"attachments": [{"name": "log.txt"}]}));
    assert_eq!(
        e["attachments/0/url"],
        "Required: Where the file lives: an http(s) URL; the list replaces the whole list, so give every item it is to have, each whole, the kept ones too."
    );
    let e = errors("task", "create", json!({"channel": "eng", "tasks": [{}]}));
    assert_eq!(
        e["tasks/0/title"],
        "Required: Task title: 1–200 characters, not blank."
    );
    // Several values where one goes: one per call, or `--batch`.
    let e = errors("task", "list", json!({"channel": ["eng", "ops"]}));
    assert!(
        e["channel"].ends_with("one input per line with `--batch`."),
        "{e:?}"
    );
    let e = errors("task", "get", json!({"channel": "eng", "number": [1, 2]}));
    assert!(e["number"].contains("one value per call"), "{e:?}");
    // But points of one text are one value: a call per point would make
    // two checkpoints, or keep only the last description.
    for (verb, input, path) in [
        (
            "checkpoint",
            json!({"channel": "eng", "number": 1, "summary": ["did x", "did y"]}),
            "summary",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "description": ["a", "b"]}),
            "description",
        ),
        (
            "create",
            json!({"channel": "eng", "tasks": [{"title": "t", "blocker": ["a", "b"]}]}),
            "tasks/0/blocker",
        ),
    ] {
        let e = errors("task", verb, input);
        assert!(
            e[path].ends_with(": one text; join the items into it, a line each."),
            "{verb}: {e:?}"
        );
    }
    // A title is no prose: two titles may be two tasks.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "title": ["a", "b"]}),
    );
    assert!(e["title"].contains("one value per call"), "{e:?}");
    // A value out of a small range is told both bounds (`-1` meant
    // "all"); a task number's range is too large to say.
    for limit in [-1, 0, 500] {
        let e = errors("task", "list", json!({"channel": "eng", "limit": limit}));
        assert_eq!(e["limit"], "Must be from 1 to 100.", "{limit}");
    }
    let e = errors("task", "get", json!({"channel": "eng", "number": 0}));
    assert_eq!(e["number"], "Must be at least 1.");
    // A query of signs alone, taken for a wildcard, matches nothing.
    for query in ["*", " % ", "-?"] {
        let e = errors("task", "list", json!({"channel": "eng", "query": query}));
        assert!(e["query"].starts_with("Has no word to search for"), "{e:?}");
    }
    for query in ["C++", "#12", "é", "  ", ""] {
        let input = json!({"channel": "eng", "query": query});
        assert!(
            validate(find("task", "list").unwrap(), input).is_ok(),
            "{query}"
        );
    }
    // A lookup by scope_id is no write of one.
    let e = errors(
        "task",
        "get",
        json!({"channel": "eng", "scope_id": "tsk_1"}),
    );
    assert!(
        e["scope_id"].starts_with("Unknown field; task_get finds a task by"),
        "{e:?}"
    );
}

/// An update's `parent: 2` meant as the task to change: `number`'s
/// refusal says which field is which, so the retry does not keep `parent`
/// and move the task under itself.
#[test]
fn a_missing_number_beside_a_parent_says_which_is_which() {
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "parent": 2, "status": "done"}),
    );
    assert_eq!(
        e["number"],
        "Required: the number of the task to change; `parent` is where it moves (its new parent's number)."
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "status": "done"}),
    );
    assert_eq!(e["number"], "Required.");
}

/// The second audit's slips whose one literal retry did something else
/// than meant (a delete's `dry_run` dropped deletes, a `release` renamed to
/// `claimed` claims) or found nothing (a tracker's key searched as words):
/// each is told what it means.
#[test]
fn a_slip_whose_retry_would_do_the_opposite_is_told_what_it_means() {
    for (verb, input, path, said) in [
        (
            "delete",
            json!({"channel": "eng", "number": 1, "dry_run": true}),
            "dry_run",
            "`--dry-run` flag, which sends nothing",
        ),
        (
            "delete",
            json!({"channel": "eng", "number": 1, "archive": true}),
            "archive",
            "no soft delete or archive",
        ),
        (
            "set_claim",
            json!({"channel": "eng", "numbers": [1], "release": true}),
            "release",
            "to release, `\"claimed\": false`",
        ),
        (
            "get",
            json!({"channel": "eng", "number": 1, "title": "Fix login"}),
            "title",
            "to find one by its title, task_list with `query`",
        ),
        (
            "create",
            json!({"channel": "eng", "tasks": [{"summary": "Fix login"}]}),
            "tasks/0/summary",
            "a task's name is `title`",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "status": "blocked"}),
            "status",
            "says what blocks it in `blocker`",
        ),
        (
            "get",
            json!({"channel": "eng", "number": "ops#5"}),
            "number",
            "write `5`, the number alone; the board, `ops`, goes in `channel`.",
        ),
        (
            "update",
            json!({"channel": "eng", "number": "OPS-5", "status": "done"}),
            "number",
            "write `5`, the number alone; the board, `ops`, goes in `channel`.",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "parent": 0}),
            "parent",
            "Must be at least 1. `null` clears it.",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "assignee": "ag_d00ee516c9c63b8260fe862b"}),
            "assignee",
            "not its agent id",
        ),
    ] {
        let failure = validate(find("task", verb).unwrap(), input.clone()).unwrap_err();
        let e = &failure.field_errors;
        assert!(
            e.get(path).is_some_and(|message| message.contains(said)),
            "{verb} {input}: {e:?}"
        );
        // A tracker's key is no words to search for.
        assert!(failure.suggested_action.is_none(), "{verb} {input}");
    }
}

/// Another tracker's search syntax is told where it goes, not answered
/// with an empty page an agent takes for "no such task" (or, for an
/// exclusion, with the very tasks it meant to leave out); words with a
/// colon that name no filter (`error: timeout`, a URL), a flag or a short
/// option are searched.
#[test]
fn another_trackers_search_syntax_is_told_the_filter_it_means() {
    for (query, said) in [
        ("label:bug", "give this as `filters.labels`"),
        ("is:open login", "give this as `status`"),
        ("assignee:@bob", "`filters.assignee`"),
        ("login OR release", "`OR` is no operator here"),
        (
            "timeout -login",
            "`-login` excludes nothing: there are no operators, and every word must match, so it asks for `login`",
        ),
        // A word for the caller would be searched as `me`, which `merge`
        // begins: others' tasks read as one's own.
        ("@me", "`@me` names you"),
        ("docs @Self", "set `filters.assigned_to_me` to true"),
        // A field's prefix on a word; GitHub's `in:`; no priority filter;
        // a number is a get.
        ("title:login", "write the words alone (`login`)"),
        (
            "description:dashboard",
            "write the words alone (`dashboard`)",
        ),
        ("login in:title", "leave that word out"),
        ("priority:high", "no filter by priority"),
        ("number:1", "task_get"),
    ] {
        let e = errors("task", "list", json!({"channel": "eng", "query": query}));
        assert!(
            e.get("query").is_some_and(|m| m.contains(said)),
            "{query}: {e:?}"
        );
    }
    for query in [
        "error: timeout",
        "https://example.com/x",
        "login or release",
        "rm -rf",
        "--force flag",
        "-10 offset",
        "e-mail log-in",
        "@bob",
        "email me",
    ] {
        validate(
            find("task", "list").unwrap(),
            json!({"channel": "eng", "query": query}),
        )
        .unwrap_or_else(|e| panic!("{query}: {e:?}"));
    }
}

/// A label with spaces around it would be a label of its own, which a
/// filter on the word misses, and a blank one names nothing: refused where
/// a label is written and where one is filtered on; spaces inside stay.
#[test]
fn a_label_with_spaces_around_it_is_refused() {
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "labels": [" infra", "bug", "  "]}),
    );
    assert_eq!(
        e["labels/0"],
        "Drop the spaces around it: the label is written without them."
    );
    assert!(!e.contains_key("labels/1"), "{e:?}");
    assert_eq!(
        e["labels/2"],
        "Must not be blank: a label is a word or a few."
    );
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t", "labels": ["infra "]}]}),
    );
    assert_eq!(
        e["tasks/0/labels/0"],
        "Drop the spaces around it: the label is written without them."
    );
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "filters": {"labels": ["bug", "infra\n"]}}),
    );
    assert_eq!(
        e["filters/labels/1"],
        "Drop the spaces around it: the label is written without them."
    );
    // Two that differ only in case are one label to a filter: refused on
    // a task, harmless in a filter.
    validate(
        find("task", "list").unwrap(),
        json!({"channel": "eng", "filters": {"labels": ["BUG", "bug"]}}),
    )
    .unwrap();
    // The very same label twice is told only that labels are distinct.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "labels": ["ci", "ci"]}),
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e["labels"].contains("distinct"), "{e:?}");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "labels": ["docs", "bug", "Docs"]}),
    );
    assert_eq!(
        e["labels/2"],
        "The same label as `labels/0` but for case: labels match in either case; give it once."
    );
    // Each is told the first earlier label spelled otherwise, however many
    // there are (one pass: 80,000 labels were seconds of pairs).
    let twin_of = |first: usize| {
        format!(
            "The same label as `labels/{first}` but for case: labels match in either case; give it once."
        )
    };
    let mut e = FieldErrors::new();
    let labels = json!(["a", "A", "a", "Ops", "OPS", "A", "ops"]);
    crate::registry::task::fields::check_written_labels(Some(&labels), "labels", &mut e);
    let expected = [(1, 0), (2, 1), (4, 3), (5, 0), (6, 3)];
    assert_eq!(e.len(), expected.len(), "{e:?}");
    for (at, first) in expected {
        assert_eq!(e[&format!("labels/{at}")], twin_of(first), "{e:?}");
    }
    let many: Vec<String> = (0..80_000).map(|i| format!("-bug{i}")).collect();
    let mut e = FieldErrors::new();
    crate::registry::task::fields::check_written_labels(Some(&json!(many)), "labels", &mut e);
    assert_eq!(e.len(), 80_000);
    validate(
        find("task", "create").unwrap(),
        json!({"channel": "eng", "tasks": [{"title": "t", "labels": ["infra team", "x"]}]}),
    )
    .unwrap();
    validate(
        find("task", "list").unwrap(),
        json!({"channel": "eng", "filters": {"labels": ["infra team"]}}),
    )
    .unwrap();
}

/// The field errors of an update of task `number` on board `eng` with
/// `fields` beside its locators.
fn update_errors(number: i64, fields: Value) -> FieldErrors {
    let mut input = json!({"channel": "eng", "number": number});
    input
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    errors("task", "update", input)
}

/// A change to part of a list an update replaces whole, by a name of its
/// own or a sign, and other names whose nearest field would replace what
/// the caller meant to keep: told what replaces what.
#[test]
fn a_change_to_part_of_a_list_is_told_that_the_list_is_replaced_whole() {
    let update = |extra: Value| update_errors(1, extra);
    for (given, list) in [
        ("labels_add", "labels"),
        ("add_urls", "urls"),
        ("removeAttachment", "attachments"),
        ("append_checklist", "checklist"),
    ] {
        let e = update(json!({given: ["x"]}));
        assert_eq!(
            e[given],
            format!(
                "Unknown field; no field changes part of a list: `{list}` replaces the whole list, so give it every item the task is to have, the ones it keeps too (task_get shows them)."
            ),
            "{e:?}"
        );
        // The rename it proposes gives a field: no "give at least one".
        assert!(!e.contains_key(""), "{e:?}");
    }
    // A word of a list's name without a change is not this (`label`),
    // but a rename to a list an update replaces, which is said.
    assert_eq!(
        update(json!({"label": ["x"]}))["label"],
        "Unknown field; use `labels`. It replaces the task's whole list: give every item it is to keep too (task_get shows them)."
    );
    // One label given bare and signed: told both at once, so one retry
    // writes `["backend"]`.
    assert_eq!(
        update(json!({"labels": "-backend"}))["labels"],
        "Must be of type array; put the value in a list, `[…]`, and: No `+` or `-` before a label: the list is the task's whole list, not changes to it; give every label it is to have, without signs (task_get shows those it has)."
    );
    // Many such values at once are each judged wrapped once, not once per
    // ordering of them (this input took minutes when each judging judged
    // the others wrapped again).
    let many: Vec<Value> = (0..50)
        .map(|_| json!({"title": "t", "labels": "-x", "urls": "-y"}))
        .collect();
    let e = errors("task", "create", json!({"channel": "eng", "tasks": many}));
    assert!(
        e["tasks/0/labels"].starts_with("Only `title` is accepted in a batch"),
        "{e:?}"
    );
    for sign in ["+urgent", "-backend"] {
        let e = update(json!({"labels": ["auth", sign]}));
        assert!(
            e["labels/1"].starts_with("No `+` or `-` before a label"),
            "{e:?}"
        );
    }
    validate(
        find("task", "update").unwrap(),
        json!({"channel": "eng", "number": 1, "labels": ["c++", "x-y", "-", "+1"]}),
    )
    .unwrap_err();
    validate(
        find("task", "update").unwrap(),
        json!({"channel": "eng", "number": 1, "labels": ["c++", "x-y"]}),
    )
    .unwrap();
    // A checkpoint is no checklist; notes are no description to replace.
    let e = update(json!({"checkpoint": {"summary": "shipped"}}));
    assert!(
        e["checkpoint"].contains("appended by task_checkpoint"),
        "{e:?}"
    );
    assert!(!e.keys().any(|k| k.starts_with("checklist")), "{e:?}");
    let e = update(json!({"notes": "n"}));
    assert!(
        e["notes"].contains("a note on progress is a checkpoint"),
        "{e:?}"
    );
    // A search is `query`, wherever the words were put.
    for input in [
        json!({"channel": "eng", "title": "login"}),
        json!({"channel": "eng", "text": "login"}),
        json!({"channel": "eng", "filters": {"text": "login"}}),
    ] {
        let e = errors("task", "list", input.clone());
        assert!(
            e.values()
                .any(|m| m.contains("with `query`, at the top level")),
            "{input}: {e:?}"
        );
    }
    // `parent: -1` for "no parent" is told how to clear it, as `0` is.
    let e = update(json!({"parent": -1}));
    assert!(e["parent"].ends_with("`null` clears it."), "{e:?}");
}

/// A number in a created task means a task that exists: told task_update,
/// not only "drop it", whose retry made a duplicate.
#[test]
fn a_number_in_a_created_task_is_told_that_a_change_is_an_update() {
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"number": 3, "title": "Release 2.0 (final)"}]}),
    );
    assert!(
        e["tasks/0/number"].contains("to change task N, task_update it"),
        "{e:?}"
    );
}

/// A range of numbers where numbers go (`2-3`, `1..3`) is no board and
/// number: told there are no ranges, and a list's range written out.
#[test]
fn a_range_of_numbers_is_told_there_are_none() {
    let e = errors("task", "get", json!({"channel": "eng", "number": "2-3"}));
    assert_eq!(
        e["number"],
        "Must be of type integer: one number, and there are no ranges; for several tasks, one input per line with `--batch`."
    );
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "numbers": "1-3", "claimed": true}),
    );
    assert_eq!(e["numbers"], "Must be of type array: write `[1, 2, 3]`.");
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "numbers": ["1..3"], "claimed": true}),
    );
    assert!(e["numbers/0"].contains("there are no ranges"), "{e:?}");
    // A number with its title after it is the number.
    for given in ["#25 Note target", "25: Note target", "25 - Note target"] {
        let e = errors("task", "get", json!({"channel": "eng", "number": given}));
        assert_eq!(
            e["number"],
            "Must be of type integer: write `25`, the number alone (the words after it are no part of it).",
            "{given}"
        );
    }
    // A title that begins with digits is no number with its title.
    let e = errors(
        "task",
        "get",
        json!({"channel": "eng", "number": "2fa login"}),
    );
    assert!(!e["number"].contains("write `2`"), "{e:?}");
    // A tracker's key is still a board and a number.
    let e = errors("task", "get", json!({"channel": "eng", "number": "ops-5"}));
    assert!(
        e["number"].contains("the board, `ops`, goes in `channel`"),
        "{e:?}"
    );
}

/// An update with every parameter null (a tool that sends the unset ones
/// so): the clearable nulls are named beside the refused ones, so the
/// retry that drops the refused ones does not clear the rest unawares.
#[test]
fn nulls_sent_for_every_parameter_are_all_named() {
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "title": null, "description": null,
               "status": null, "assignee": null, "parent": null}),
    );
    for name in ["description", "assignee", "parent"] {
        assert!(
            e[name].starts_with("`null` clears this field"),
            "{name}: {e:?}"
        );
    }
    assert!(e["title"].contains("cannot be cleared"), "{e:?}");
    // Nulls of clearable fields alone are a clear, as asked.
    validate(
        find("task", "update").unwrap(),
        json!({"channel": "eng", "number": 1, "description": null, "assignee": null}),
    )
    .unwrap();
}

/// A call sent whole as the input (an answer's `suggested_action` piped as
/// it is, or MCP's `{name, arguments}`): told its `arguments` are the input,
/// and of which route, whichever route it was sent to.
#[test]
fn a_call_sent_whole_is_told_its_arguments_are_the_input() {
    for (route, call) in [
        (
            ("task", "list"),
            json!({"tool": "task_get", "arguments": {"channel": "eng", "number": 1}}),
        ),
        (
            ("task", "get"),
            json!({"tool": "task_get", "arguments": {"channel": "eng", "number": 1}}),
        ),
        (
            ("task", "list"),
            json!({"name": "task_list", "arguments": {"channel": "eng"}}),
        ),
    ] {
        let e = errors(route.0, route.1, call.clone());
        let tool = call["tool"].as_str().or(call["name"].as_str()).unwrap();
        let action = crate::registry::find_by_name(tool).unwrap();
        assert_eq!(
            e["arguments"],
            format!(
                "Unknown field; this is a call, not an input: send its `arguments` alone, as the input of `{tool}` (`{}`).",
                action.cli_command()
            ),
            "{call}"
        );
        let key = if call.get("tool").is_some() {
            "tool"
        } else {
            "name"
        };
        assert_eq!(e[key], "Unknown field; part of the call: see `arguments`.");
    }
    // A call of the route it was sent to is judged as its arguments too:
    // nothing it holds is said missing, and what is wrong inside it is said.
    let e = errors(
        "task",
        "get",
        json!({"tool": "task_get", "arguments": {"channel": "eng", "number": "five"}}),
    );
    assert!(!e.contains_key("channel"), "{e:?}");
    assert!(
        e["number"].starts_with("Once unwrapped: "),
        "{:?}",
        e.get("number")
    );
    // A `name` that is no action's is no call.
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "name": "login", "arguments": {}}),
    );
    assert!(!e["arguments"].contains("this is a call"), "{e:?}");
}

/// A call sent whole carries itself as the refusal's suggestion, to run as
/// meant, whichever route it was sent to, when its `arguments` hold for
/// the action it names; and a call of another action is not told the
/// fields this route lacks (`channel` for a list), which belong to no fix.
#[test]
fn a_call_sent_whole_is_suggested_as_it_is_meant() {
    let refused =
        |verb: &str, call: Value| validate(find("task", verb).unwrap(), call).unwrap_err();
    let get = json!({"channel": "eng", "number": 1});
    for (verb, call) in [
        (
            "list",
            json!({"tool": "task_get", "arguments": get.clone()}),
        ),
        ("get", json!({"tool": "task_get", "arguments": get.clone()})),
        (
            "set_claim",
            json!({"name": "task_get", "arguments": get.clone()}),
        ),
    ] {
        let failure = refused(verb, call.clone());
        let key = if call.get("tool").is_some() {
            "tool"
        } else {
            "name"
        };
        let fields: Vec<&str> = failure.field_errors.keys().map(String::as_str).collect();
        let mut said = vec!["arguments", key];
        said.sort();
        assert_eq!(fields, said, "{verb} {call}");
        let suggested = failure.suggested_action.as_deref().expect("the call");
        assert_eq!(suggested.tool, "task_get", "{verb} {call}");
        assert_eq!(suggested.arguments, get, "{verb} {call}");
    }
    // Arguments that do not hold: said, not suggested.
    let failure = refused(
        "get",
        json!({"tool": "task_get", "arguments": {"channel": "eng", "number": "five"}}),
    );
    assert!(failure.suggested_action.is_none(), "{failure:?}");
    assert!(failure.field_errors.contains_key("number"), "{failure:?}");
    // A destructive call is named, never suggested from another route.
    let failure = refused(
        "get",
        json!({"tool": "task_delete", "arguments": {"channel": "eng", "number": 1}}),
    );
    assert!(failure.suggested_action.is_none(), "{failure:?}");
    assert!(
        failure.field_errors["arguments"].contains("`task_delete`"),
        "{failure:?}"
    );
}

/// An MCP `tools/call` envelope sent as the input: told the input is
/// `params.arguments`, and its `id` is no task number.
#[test]
fn a_json_rpc_envelope_is_told_its_arguments_are_the_input() {
    let e = errors(
        "task",
        "get",
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "task_get", "arguments": {"channel": "eng", "number": 5}}}),
    );
    assert_eq!(
        e["params"],
        "Unknown field; this is a JSON-RPC envelope, not an input: send its `params.arguments` alone, as the input of the route of `params.name` (`task_get` is `agentteam exec task get -`)."
    );
    for part in ["id", "jsonrpc", "method"] {
        assert_eq!(
            e[part],
            "Unknown field; part of the JSON-RPC envelope: see `params`."
        );
    }
    // A bare request whose `params` hold the input itself: its `id` is
    // the request's, not a task `number` (which `params` holds), and the
    // fields in `params` are judged once unwrapped.
    let e = errors(
        "task",
        "get",
        json!({"id": 1, "params": {"channel": "eng", "number": 2}}),
    );
    assert_eq!(
        e["id"],
        "Unknown field; part of the JSON-RPC envelope: see `params`."
    );
    assert!(
        e["params"].starts_with("Unknown field; `params` is no wrapper here"),
        "{e:?}"
    );
    assert!(
        !e.contains_key("number") && !e.contains_key("channel"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "get",
        json!({"jsonrpc": "2.0", "id": 1, "params": {"query": "login"}}),
    );
    assert_eq!(
        e["params"],
        "Unknown field; this is a JSON-RPC request, not an input: send its `params` alone, as the input."
    );
    // `params` alone is no envelope: the wrapper it is.
    let e = errors(
        "task",
        "get",
        json!({"params": {"channel": "eng", "number": 2}}),
    );
    assert!(
        e["params"].starts_with("Unknown field; `params` is no wrapper here"),
        "{e:?}"
    );
    // Other missing/unknown fields aside, a parent on another board is no
    // board to move the task to.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 14, "parent": "ops#1"}),
    );
    assert!(e["parent"].contains("no task moves to another"), "{e:?}");
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "filters": {"unassigned": true}}),
    );
    assert!(
        e["filters/unassigned"].contains("no filter matches unassigned"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t", "due": "2026-12-31"}]}),
    );
    assert!(e["tasks/0/due"].contains("no due date"), "{e:?}");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 2, "claimed": true}),
    );
    assert!(
        e["claimed"].contains("\"numbers\": [the task's number]"),
        "{e:?}"
    );
}

/// Status words of other trackers, told what they are here.
#[test]
fn other_status_words_are_told_what_they_are_here() {
    let e = errors("task", "list", json!({"channel": "eng", "status": "any"}));
    assert!(e["status"].contains("`all` is for a search"), "{e:?}");
    let e = errors("task", "list", json!({"channel": "eng", "status": "open"}));
    assert!(
        e["status"].contains("a list's `active`, its default"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "status": "open"}),
    );
    assert!(
        e["status"].contains("Open is `todo` for one task's status"),
        "{e:?}"
    );
}

/// Fields other trackers have and this one has not, each told what stands
/// for it here (or that nothing does), never the generic list whose
/// nearest name would do something else.
#[test]
fn another_trackers_fields_are_told_what_stands_for_them() {
    for (verb, input, path, says) in [
        (
            "update",
            json!({"channel": "eng", "number": 1, "blocked_by": [2]}),
            "blocked_by",
            "`blocker` says in words",
        ),
        (
            "create",
            json!({"channel": "eng", "tasks": [{"title": "t", "type": "bug"}]}),
            "tasks/0/type",
            "say it with a label",
        ),
        (
            "create",
            json!({"channel": "eng", "tasks": [{"title": "t", "reporter": "@bob"}]}),
            "tasks/0/reporter",
            "the creator is the calling agent",
        ),
        (
            "create",
            json!({"channel": "eng", "tasks": [{"title": "t", "watchers": ["@bob"]}]}),
            "tasks/0/watchers",
            "no watchers",
        ),
        (
            "delete",
            json!({"channel": "eng", "number": 1, "force": true}),
            "force",
            "there is no force",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "new_channel": "ops"}),
            "new_channel",
            "no task moves to another board",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "subtasks": [{"title": "s"}]}),
            "subtasks",
            "with this task's number as `parent`",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "check_item": "two"}),
            "check_item",
            "checklist replaces the whole list",
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "version": 3, "title": "x"}),
            "version",
            "use `expected_updated_at`",
        ),
    ] {
        let e = errors("task", verb, input);
        assert!(e[path].contains(says), "{verb} {path}: {e:?}");
    }
}

/// One item of a list an update replaces, sent to tick it: told the list
/// is replaced whole, not only the item's missing field.
#[test]
fn an_item_sent_alone_to_change_it_is_told_the_list_is_replaced_whole() {
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "checklist": [{"done": true}]}),
    );
    assert!(
        e["checklist/0/text"].starts_with("Required: What to check")
            && e["checklist/0/text"]
                .ends_with("so give every item it is to have, each whole, the kept ones too."),
        "{e:?}"
    );
    // A created task's list is no replacement: the field alone.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t", "checklist": [{"done": true}]}]}),
    );
    assert!(!e["tasks/0/checklist/0/text"].contains("replaces"), "{e:?}");
}

/// A parent scope given as a task number, or as a board and a number, is
/// told the other locator (`channel` with `parent`), never that `number`
/// is task_update's.
#[test]
fn a_parent_scope_given_by_number_is_told_the_number_locator() {
    let e = errors(
        "task",
        "create",
        json!({"parent_task_scope": 5, "tasks": [{"title": "a"}]}),
    );
    assert!(
        e["parent_task_scope"].starts_with("Must be of type object: `{\"kind\": \"task\"")
            && e["parent_task_scope"]
                .ends_with("a parent by its number is `parent` beside `channel` instead."),
        "{e:?}"
    );
    for key in ["number", "parent"] {
        let e = errors(
            "task",
            "create",
            json!({"parent_task_scope": {"channel": "eng", key: 5}, "tasks": [{"title": "a"}]}),
        );
        let said = &e[&format!("parent_task_scope/{key}")];
        assert!(
            said.starts_with("Unknown field; a parent by its number is `parent`, at the top level beside `channel`"),
            "{key}: {e:?}"
        );
        assert!(!said.contains("task_update"), "{said}");
    }
}

#[test]
fn a_large_input_is_judged_again_a_bounded_number_of_times() {
    let action = find("task", "set_claim").unwrap();
    let refs = |n: usize| -> Value {
        let numbers: Vec<String> = (1..=n).map(|i| format!("#{i}")).collect();
        json!({"channel": "eng", "numbers": numbers, "claimed": true})
    };
    let written = |e: &FieldErrors| {
        e.values()
            .filter(|m| m.contains(", the number alone"))
            .count()
    };
    // A list of a few dozen refs: every one is told the number to write.
    let before = again::made();
    let e = validate(action, refs(50)).unwrap_err().field_errors;
    assert_eq!(written(&e), 50, "{e:?}");
    assert_eq!(
        e["numbers/49"],
        "Must be of type integer: write `50`, the number alone."
    );
    assert!(again::made() - before >= 50);
    // A megabyte of them (judged again a hundred times, seconds of CPU,
    // before the budget): a few are, and the rest are told their problem.
    let input = refs(100_000);
    let size = crate::budget::json_len(&input);
    assert!(size > 800_000, "{size}");
    let before = again::made();
    let e = validate(action, input).unwrap_err().field_errors;
    let made = again::made() - before;
    assert!(made <= again::MIN_REJUDGINGS, "{made} judgings again");
    assert!((1..=again::MIN_REJUDGINGS).contains(&written(&e)), "{e:?}");
    let last = format!("numbers/{}", written(&e));
    assert!(
        e[&last].starts_with("Must be of type integer. Also at items"),
        "{e:?}"
    );
}

#[test]
fn a_field_at_the_wrong_level_is_judged_where_it_goes() {
    let e = |verb: &str, input: Value| errors("task", verb, input);
    // Its value is told now what it would be told once moved.
    let f = e("list", json!({"channel": "demo", "labels": "backend"}));
    assert!(f["labels"].contains("belongs in `filters`"), "{f:?}");
    assert_eq!(
        f["filters/labels"],
        "Once moved: Must be of type array: write `[\"backend\"]`."
    );
    let f = e("list", json!({"channel": "demo", "mine": "true"}));
    assert_eq!(
        f["filters/assigned_to_me"],
        "Once moved: Must be of type boolean: write `true` without quotes."
    );
    // A word for oneself is told of the caller's own filter, whole.
    for word in ["@me", "me"] {
        let f = e("list", json!({"channel": "demo", "assignee": word}));
        assert_eq!(
            f,
            FieldErrors::from([(
                "assignee".to_string(),
                r#"Unknown field here; for your own tasks write `{"filters": {"assigned_to_me": true}}` (an `assignee` filter is another member's ref)."#.to_string()
            )])
        );
    }
    // Several fields of one new task: `tasks` is not missing once they go in it.
    let f = e(
        "create",
        json!({"channel": "demo", "title": "Ship it", "assignee": "demo-peer",
               "priority": "High", "labels": "release"}),
    );
    assert!(!f.contains_key("tasks"), "{f:?}");
    assert!(f["tasks/0/assignee"].starts_with("Once moved: A member ref starts with `@`"));
    assert!(f["tasks/0/labels"].starts_with("Once moved: Must be of type array"));
    assert_eq!(f["tasks/0/priority"], "Once moved: Must be written `high`.");
    let f = e("create", json!({"channel": "demo", "title": "Ship it"}));
    assert_eq!(f.keys().collect::<Vec<_>>(), ["title"]);
    // Where it would go is not one place (a list of two tasks): said alone.
    let f = e(
        "create",
        json!({"channel": "demo", "tasks": [{"title": "a"}, {"title": "b"}], "priority": "High"}),
    );
    assert_eq!(f.keys().collect::<Vec<_>>(), ["priority"]);
}

#[test]
fn a_call_meant_for_another_action_is_told_that_action() {
    let e = |verb: &str, input: Value| errors("task", verb, input);
    // A delete given a status meant to set the task aside: for good, it
    // would not (dropping `status` as told would delete it).
    let f = e(
        "delete",
        json!({"channel": "demo", "number": 10, "status": "canceled"}),
    );
    assert!(
        f["status"].contains("deletes the task for good") && f["status"].contains("task_update"),
        "{f:?}"
    );
    // A claim or a delete sent as an update: that action, and nothing of
    // "give a field to change" beside it.
    for (key, action) in [
        ("claim", "task_set_claim"),
        ("deleted", "task_delete"),
        ("archived", "task_delete"),
    ] {
        let f = e("update", json!({"channel": "demo", "number": 3, key: true}));
        assert_eq!(f.keys().collect::<Vec<_>>(), [key], "{f:?}");
        assert!(f[key].contains(action), "{f:?}");
    }
    // Every word the update keeps "give a field to change" from is told
    // the action it belongs to or the call to make, or the caller would be
    // told nothing to do.
    for key in crate::registry::task::update::ANOTHER_ACTIONS {
        let f = e("update", json!({"channel": "demo", "number": 3, key: true}));
        assert!(
            [
                "task_set_claim",
                "task_delete",
                "task_checkpoint",
                "`--batch`",
                "checklist"
            ]
            .iter()
            .any(|action| f[key].contains(action)),
            "{key}: {f:?}"
        );
    }
    let f = e(
        "update",
        json!({"channel": "demo", "number": 3, "status": "deleted"}),
    );
    assert!(
        f["status"].ends_with(
            "Deleting is task_delete, for good; `canceled` sets a task aside and keeps it."
        ),
        "{f:?}"
    );
    // A checklist item's state by another name, judged once renamed.
    let f = e(
        "update",
        json!({"channel": "demo", "number": 3, "checklist": [{"text": "repro", "completed": "yes"}]}),
    );
    assert_eq!(f["checklist/0/completed"], "Unknown field; use `done`.");
    assert!(f["checklist/0/done"].starts_with("Once renamed: Must be of type boolean"));
    // A page number for a cursor.
    let f = e("list", json!({"channel": "demo", "cursor": 2}));
    assert!(
        f["cursor"].contains("pages are read by cursor, not by number"),
        "{f:?}"
    );
}

#[test]
fn a_task_named_otherwise_than_by_its_number_is_told_how_to_find_it() {
    let refused =
        |verb: &str, input: Value| validate(find("task", verb).unwrap(), input).unwrap_err();
    // By its title, on any action that takes a number: the search for it.
    for verb in ["get", "update", "checkpoint", "delete"] {
        let f = refused(
            verb,
            json!({"channel": "demo", "title": "Fix login timeout", "status": "done", "summary": "x"}),
        );
        let call = f.suggested_action.as_ref().expect(verb);
        assert_eq!(call.tool, "task_list");
        assert_eq!(
            call.arguments,
            json!({"channel": "demo", "query": "Fix login timeout", "status": "all"})
        );
    }
    // An update's title is a new one: the task to change is still to be found.
    let f = refused(
        "update",
        json!({"channel": "demo", "title": "Fix login", "status": "done"}),
    );
    assert!(
        f.field_errors["number"].contains("`title` gives it a new title"),
        "{f:?}"
    );
    let e = |input: Value| refused("get", input).field_errors["number"].clone();
    // A number with a word before it, or its title after it in brackets.
    for given in ["Task 3", "task #3", "No. 3", "number 3"] {
        assert_eq!(
            e(json!({"channel": "demo", "number": given})),
            "Must be of type integer: write `3`, the number alone.",
            "{given}"
        );
    }
    assert!(e(json!({"channel": "demo", "number": "3 (Migrate database)"})).contains("write `3`"));
    // A tracker's key: its word for an item is no board.
    for given in ["TASK-3", "issue-3", "Ticket#3"] {
        assert_eq!(
            e(json!({"channel": "demo", "number": given})),
            "Must be of type integer: write `3`, the number alone."
        );
    }
    assert!(
        e(json!({"channel": "demo", "number": "OPS-3"}))
            .ends_with("the board, `ops`, goes in `channel`.")
    );
    // A number on a list is a get.
    let f = refused("list", json!({"channel": "demo", "number": 3}));
    assert!(f.field_errors["number"].contains("task_get"), "{f:?}");
    // An outline's number for a subtask (`2.1`): whole numbers, and the
    // get that lists task 2's subtasks with their own.
    for given in [json!(2.1), json!("2.1"), json!(" 2.10 ")] {
        assert_eq!(
            e(json!({"channel": "demo", "number": given})),
            "Must be of type integer: a whole number. A subtask has a number of its own on the board: `task_get` of task 2 lists its subtasks (`subtasks`) with theirs.",
            "{given}"
        );
    }
    let f = refused(
        "set_claim",
        json!({"channel": "demo", "numbers": [1, 3.2], "claimed": true}),
    );
    assert!(
        f.field_errors["numbers/1"].contains("`task_get` of task 3"),
        "{f:?}"
    );
    // Elsewhere, only that it is whole.
    let f = refused("list", json!({"channel": "demo", "limit": 2.5}));
    assert_eq!(
        f.field_errors["limit"],
        "Must be of type integer: a whole number."
    );
}

#[test]
fn a_board_as_a_target_and_two_names_of_one_field_are_told_what_to_do() {
    let e = errors(
        "task",
        "create",
        json!({"channel": "demo", "target": "#demo", "tasks": [{"title": "x"}]}),
    );
    assert!(e["target"].contains("a board alone is no target"), "{e:?}");
    // Both renamed as told, the field would be given twice: join them.
    let e = errors(
        "task",
        "create",
        json!({"channel": "demo", "tasks": [{"title": "Ship", "body": "details", "notes": "more"}]}),
    );
    assert_eq!(
        e["tasks/0/body"],
        "Unknown field; it means `description`, as `notes` does too: join the two into one `description`."
    );
    assert!(e["tasks/0/notes"].contains("as `body` does too"));
}

#[test]
fn a_refusal_says_how_long_and_what_a_list_replaces() {
    let e = |verb: &str, input: Value| errors("task", verb, input);
    let f = e(
        "update",
        json!({"channel": "demo", "number": 3, "labels": "db"}),
    );
    assert!(
        f["labels"].ends_with("the list replaces its current one."),
        "{f:?}"
    );
    // A create's list replaces nothing.
    let f = e(
        "create",
        json!({"channel": "demo", "tasks": [{"title": "a", "labels": "db"}]}),
    );
    assert_eq!(
        f["tasks/0/labels"],
        "Must be of type array: write `[\"db\"]`."
    );
    let f = e(
        "update",
        json!({"channel": "demo", "number": 3, "title": "é".repeat(250)}),
    );
    assert_eq!(
        f["title"],
        "Must be at most 200 characters; this one has 250."
    );
    for input in [
        json!({"channel": "demo", "since": "2026-01-01"}),
        json!({"channel": "demo", "filters": {"updated_since": "2026-01-01"}}),
    ] {
        let f = e("list", input);
        assert!(
            f.values().any(|m| m.contains("there is no filter by time")),
            "{f:?}"
        );
    }
}

#[test]
fn a_parent_by_its_scope_id_is_told_of_the_scope_locator_where_there_is_one() {
    let id = "tsk_0123456789abcdef0123456789abcdef";
    let f = errors(
        "task",
        "create",
        json!({"channel": "demo", "parent": id, "tasks": [{"title": "a"}]}),
    );
    assert!(
        f["parent"].ends_with("`\"parent_task_scope\": {\"kind\": \"task\", \"scope_id\": …}`."),
        "{f:?}"
    );
    // An update has no such locator: its number alone.
    let f = errors(
        "task",
        "update",
        json!({"channel": "demo", "number": 2, "parent": id}),
    );
    assert!(!f["parent"].contains("parent_task_scope"), "{f:?}");
}

/// Another tracker's words (a status or priority as it names them, a
/// board's column, a link object, a label object), a call whose arguments
/// are JSON text, and fields that belong to another way of working, are
/// each told what to write in one retry (the second recovery audit).
#[test]
fn another_trackers_words_are_told_what_to_write() {
    let update = |fields: Value| update_errors(2, fields);
    // Only its spelling differs: the value alone.
    for (given, meant) in [
        ("In Review", "in_review"),
        ("in-progress", "in_progress"),
        ("To Do", "todo"),
        ("DONE", "done"),
        ("InProgress", "in_progress"),
    ] {
        let e = update(json!({"status": given}));
        assert_eq!(
            e["status"],
            format!("Must be written `{meant}`."),
            "{given}"
        );
    }
    // Another word for it: the values, and the one meant.
    for (given, meant) in [
        ("completed", "done"),
        ("Cancelled", "canceled"),
        ("WIP", "in_progress"),
    ] {
        let e = update(json!({"status": given}));
        assert!(
            e["status"].starts_with("Must be one of `todo`")
                && e["status"].ends_with(&format!("Write `{meant}`.")),
            "{given}: {e:?}"
        );
    }
    assert!(update(json!({"priority": "P1"}))["priority"].ends_with("Write `high`."));
    // Other APIs' orders, and a delete's words for its subtasks.
    for (given, meant) in [
        ("updated_at desc", "updated_desc"),
        ("newest", "created_desc"),
    ] {
        let e = errors("task", "list", json!({"channel": "eng", "sort": given}));
        assert!(
            e["sort"].ends_with(&format!("Write `{meant}`.")),
            "{given}: {e:?}"
        );
    }
    for (given, meant) in [("cascade", "delete"), ("keep", "promote")] {
        let e = errors(
            "task",
            "delete",
            json!({"channel": "eng", "number": 1, "subtask_mode": given}),
        );
        assert!(
            e["subtask_mode"].ends_with(&format!("Write `{meant}`.")),
            "{given}: {e:?}"
        );
    }
    // A word with a hint of its own keeps it (`closed` is two statuses).
    assert!(!update(json!({"status": "closed"}))["status"].contains("Write `"));
    // A status under another name: `status`, judged once renamed.
    let e = update(json!({"progress": "In Review"}));
    assert_eq!(e["progress"], "Unknown field; use `status`.");
    assert_eq!(e["status"], "Once renamed: Must be written `in_review`.");
    assert_eq!(
        update(json!({"column": "done"}))["column"],
        "Unknown field; use `status`."
    );
    // Words of progress are still a checkpoint's.
    assert!(update(json!({"progress": "Wrote the tests"}))["progress"].contains("task_checkpoint"));
    // Claiming oneself is a claim; no "give a field" beside it.
    let e = update(json!({"assigned_to_me": true}));
    assert!(e["assigned_to_me"].contains("task_set_claim"), "{e:?}");
    assert!(!e.contains_key(""), "{e:?}");
    assert!(update(json!({"unassign": true}))["unassign"].contains("`\"assignee\": null`"));
    // A link and a label as other tools write them.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "Docs",
            "links": [{"url": "https://example.com/spec", "title": "Spec"}],
            "labels": [{"name": "bug", "color": "red"}]}]}),
    );
    assert_eq!(e["tasks/0/links"], "Unknown field; use `urls`.");
    assert!(
        e["tasks/0/urls/0"].contains("write `\"https://example.com/spec\"`"),
        "{e:?}"
    );
    assert!(e["tasks/0/labels/0"].contains("write `\"bug\"`"), "{e:?}");
    // A link as the target is one of the task's urls.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "target": "https://github.com/acme/app/issues/42", "tasks": [{"title": "Port"}]}),
    );
    assert!(
        e["target"].contains("a link goes in the task's `urls`"),
        "{e:?}"
    );
    // A list's page, filter and a get's options.
    let list = |input: Value| errors("task", "list", input);
    assert_eq!(
        list(json!({"channel": "eng", "after": "x"}))["after"],
        "Unknown field; use `cursor`."
    );
    assert!(
        list(json!({"channel": "eng", "meta": {"next_cursor": "x"}}))["meta"]
            .contains("as `cursor`")
    );
    assert!(
        list(json!({"channel": "eng", "filters": {"priority": "high"}}))["filters/priority"]
            .contains("no filter by priority")
    );
    let get = |input: Value| errors("task", "get", input);
    assert!(
        get(json!({"channel": "eng", "number": 1, "include_subtasks": true}))["include_subtasks"]
            .contains("always shows")
    );
    assert!(get(json!({"url": "https://x/eng/tasks/1"}))["url"].contains("`channel` and `number`"));
    // A call whose arguments are the JSON text of an object.
    let f = validate(
        find("task", "list").unwrap(),
        json!({"name": "task_list", "arguments": "{\"channel\": \"eng\"}"}),
    )
    .unwrap_err();
    let call = f.suggested_action.expect("the call, decoded");
    assert_eq!(
        (call.tool.as_str(), &call.arguments),
        ("task_list", &json!({"channel": "eng"}))
    );
    // Ways to say none: a value that means none, `false` for a text that
    // `null` clears; a search's words as a list are one query.
    assert!(update(json!({"priority": null}))["priority"].contains("`\"none\"`"));
    assert!(
        update(json!({"blocker": false}))["blocker"].contains("`null` (without quotes) clears it")
    );
    assert!(
        errors(
            "task",
            "list",
            json!({"channel": "eng", "query": ["login", "timeout"]})
        )["query"]
            .contains("`\"login timeout\"`")
    );
    // Jira's `fields` wrapper of a new task: one task of `tasks`, its
    // fields judged there in the same answer.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "fields": {"summary": "Add SSO", "issuetype": {"name": "Story"}, "description": "SAML"}}),
    );
    assert!(e["fields"].contains("`{\"tasks\": [{…}]}`"), "{e:?}");
    assert!(e["tasks/0/summary"].contains("`title`"), "{e:?}");
    assert!(e["tasks/0/issuetype"].contains("label"), "{e:?}");
    assert!(!e.contains_key("tasks"), "{e:?}");
    // Calls as other model APIs write them: Anthropic's tool_use block,
    // OpenAI's whole tool call, a call's input without its name.
    let f = validate(
        find("task", "update").unwrap(),
        json!({"type": "tool_use", "id": "toolu_1", "name": "task_update",
               "input": {"channel": "eng", "number": 11, "priority": "high"}}),
    )
    .unwrap_err();
    assert!(
        !f.field_errors.values().any(|said| said.contains("`title`")),
        "{f:?}"
    );
    assert_eq!(
        f.field_errors["id"],
        "Unknown field; part of the call: see `input`."
    );
    let call = f.suggested_action.expect("the call");
    assert_eq!(
        call.arguments,
        json!({"channel": "eng", "number": 11, "priority": "high"})
    );
    let f = validate(
        find("task", "list").unwrap(),
        json!({"tool_calls": [{"id": "c1", "type": "function",
               "function": {"name": "task_list", "arguments": "{\"channel\": \"eng\"}"}}]}),
    )
    .unwrap_err();
    assert_eq!(
        f.suggested_action.expect("the call").arguments,
        json!({"channel": "eng"})
    );
    let e = errors(
        "task",
        "update",
        json!({"arguments": {"channel": "eng", "number": 1, "taskStatus": "done"}}),
    );
    assert!(e["arguments"].contains("send what it holds alone"), "{e:?}");
    // A preview or a confirmation asked of a change: the flag, and what
    // the call does without it.
    for verb in ["update", "create", "set_claim", "checkpoint"] {
        let mut input = json!({"channel": "eng", "number": 1});
        input["preview"] = json!(true);
        assert!(
            errors("task", verb, input)["preview"].contains("`--dry-run`"),
            "{verb}"
        );
    }
    let e = errors(
        "task",
        "delete",
        json!({"channel": "eng", "number": 4, "confirm": false}),
    );
    assert!(e["confirm"].contains("deletes the task for good"), "{e:?}");
    let e = errors(
        "task",
        "delete",
        json!({"channel": "eng", "number": 4, "previewOnly": true, "simulate": true}),
    );
    assert!(e["simulate"].contains("`--dry-run`") && e["simulate"].contains("deletes for good"));
    // Several people for one assignee: one, not a batch.
    let e = update(json!({"assignee": ["@bob", "@carol"]}));
    assert!(e["assignee"].contains("a task has one assignee"), "{e:?}");
    // A list under another name on an update: split, and said to replace.
    let e = update(json!({"tags": "ops, docs"}));
    assert!(
        e["tags"].contains("`\"labels\": [\"ops\",\"docs\"]`"),
        "{e:?}"
    );
    assert!(
        e["tags"].contains("replaces the task's whole list"),
        "{e:?}"
    );
    // A parent as a board and a number.
    let e = update(json!({"parent": {"channel": "ops", "number": 1}}));
    assert!(e["parent"].contains("no task moves to another"), "{e:?}");
    // A parent scope as a string beside `channel`: both ways, each whole.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "parent_task_scope": "tsk_0123456789abcdef01234567", "tasks": [{"title": "x"}]}),
    );
    assert!(
        e["parent_task_scope"].contains("`{\"kind\": \"task\", \"scope_id\": \"tsk_…\"}`")
            && e["parent_task_scope"].contains("`parent` beside `channel`"),
        "{e:?}"
    );
}

#[test]
fn other_trackers_numbers_and_fields_are_told_what_they_stand_for() {
    // A priority as Linear and Jira number it: 1 is the highest.
    for (given, meant) in [
        (json!(1), "urgent"),
        (json!(3), "medium"),
        (json!("0"), "none"),
    ] {
        let e = update_errors(2, json!({"priority": given}));
        assert!(
            e["priority"].ends_with(&format!("Write `{meant}`.")),
            "{given}: {e:?}"
        );
    }
    // A number no tracker gives a priority is told the values alone.
    let e = update_errors(2, json!({"priority": 9}));
    assert!(!e["priority"].contains("Write"), "{e:?}");
    // A checkpoint changes no status: the update that does, not a drop
    // alone (the work would stay open).
    let e = errors(
        "task",
        "checkpoint",
        json!({"channel": "eng", "number": 2, "summary": "shipped", "done": true}),
    );
    assert!(e["done"].contains("`\"status\": \"done\"`"), "{e:?}");
    assert!(e["done"].contains("task_update"), "{e:?}");
    // An estimate has no field: where it can be said.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t", "story_points": 3}]}),
    );
    assert!(e["tasks/0/story_points"].contains("no estimate"), "{e:?}");
    assert!(update_errors(2, json!({"estimate": "2d"}))["estimate"].contains("no estimate"));
    // A list's size and its pages by other APIs' names.
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "max_items": 50, "paginate": true}),
    );
    assert_eq!(e["max_items"], "Unknown field; use `limit`.", "{e:?}");
    assert!(
        e["paginate"].contains("`meta.next_cursor` as `cursor`"),
        "{e:?}"
    );
    // Several updates in one input: one per line with `--batch`.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "updates": [{"number": 3, "status": "done"}, {"number": 4, "status": "done"}]}),
    );
    assert!(e["updates"].contains("`--batch`"), "{e:?}");
}

#[test]
fn one_checklist_item_by_itself_is_shown_in_the_list_that_holds_it() {
    let e = update_errors(2, json!({"checklist_item": "write docs", "done": true}));
    assert_eq!(e.len(), 2, "no field to change is missing: {e:?}");
    assert!(
        e["checklist_item"].contains(r#"`"checklist": [{"text":"write docs","done":true}, …]`"#),
        "{e:?}"
    );
    assert!(
        e["checklist_item"].contains("every item the task keeps"),
        "{e:?}"
    );
    // Its `done` is the item's, not the task's status.
    assert!(e["done"].contains("that item's `done`"), "{e:?}");
    assert!(!e["done"].contains("status"), "{e:?}");
    // Alone, `done` is still the task's state.
    assert!(update_errors(2, json!({"done": true}))["done"].contains("`status`"));
}

#[test]
fn a_scope_id_under_a_name_of_its_own_is_told_the_locator_that_takes_it() {
    let id = "tsk_0123456789abcdef0123456789abcdef";
    // A create's parent by its id: the scope, written out.
    let e = errors(
        "task",
        "create",
        json!({"task": id, "tasks": [{"title": "t"}]}),
    );
    assert!(
        e["task"].contains(&format!(
            r#"`"parent_task_scope": {{"kind":"task","scope_id":"{id}"}}`"#
        )),
        "{e:?}"
    );
    // Elsewhere a task is named by its number, which the id's answer gives.
    for (verb, field) in [("update", "number"), ("set_claim", "numbers")] {
        let e = errors(
            "task",
            verb,
            json!({"channel": "eng", "task": id, "claimed": true, "status": "done"}),
        );
        assert!(
            e["task"].starts_with(&format!("Unknown field; `{field}` takes the task's number")),
            "{verb}: {e:?}"
        );
    }
    // Words under that name are no id: the nearest field, as before.
    let e = errors("task", "create", json!({"task": "write docs"}));
    assert!(e["task"].contains("`tasks`"), "{e:?}");
}

#[test]
fn filters_written_as_a_search_box_writes_them_are_shown_as_the_object() {
    let list = |filters: Value| {
        errors(
            "task",
            "list",
            json!({"channel": "eng", "filters": filters}),
        )
    };
    for (given, meant) in [
        (
            json!("label:bug assignee:@bob"),
            r#"{"labels":["bug"],"assignee":"@bob"}"#,
        ),
        (
            json!(["label:bug", "label:ui"]),
            r#"{"labels":["bug","ui"]}"#,
        ),
        (json!("parent=3"), r#"{"parent":3}"#),
    ] {
        assert_eq!(
            list(given.clone())["filters"],
            format!("Must be of type object: write `{meant}`."),
            "{given}"
        );
    }
    // A pair that names no filter, or a value no filter takes: the type.
    for given in [json!("status:open"), json!("parent:three"), json!("bug")] {
        assert_eq!(
            list(given.clone())["filters"],
            "Must be of type object.",
            "{given}"
        );
    }
}

#[test]
fn an_answers_section_given_back_is_told_to_be_dropped_not_remade() {
    let section = json!({"items": [{"number": 3, "title": "s"}], "total": 1, "truncated": false});
    let e = update_errors(
        1,
        json!({"status": "done", "subtasks": section, "checkpoints": section}),
    );
    for field in ["subtasks", "checkpoints"] {
        assert!(e[field].contains("a section of an answer"), "{e:?}");
        assert!(!e[field].contains("task_create"), "{e:?}");
        assert!(!e[field].contains("task_checkpoint"), "{e:?}");
    }
    // Subtasks written as new ones are still told how subtasks are made.
    let e = update_errors(1, json!({"subtasks": [{"title": "s"}]}));
    assert!(e["subtasks"].contains("task_create"), "{e:?}");
}

/// From the thirty-sixth session's recovery audit: slips whose literal
/// retry did the opposite of what was meant (a soft delete deleting for
/// good, a release claiming, a reopen keeping the task closed, a note
/// replacing the description, a label replacing the list).
#[test]
fn slips_whose_literal_retry_did_the_opposite_are_told_what_they_mean() {
    let delete = |fields: Value| {
        let mut input = json!({"channel": "eng", "number": 3});
        input
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        errors("task", "delete", input)
    };
    for (key, value) in [
        ("mode", json!("soft")),
        ("type", json!("archive")),
        ("soft_delete", json!(true)),
        ("hard", json!(false)),
    ] {
        let e = delete(json!({key: value}));
        assert!(e[key].contains("there is no soft delete"), "{key}: {e:?}");
        assert!(!e.contains_key("subtask_mode"), "{key}: {e:?}");
    }
    assert!(delete(json!({"subtask_mode": "archive"}))["subtask_mode"].contains("no soft delete"));
    for key in ["unclaimed", "released", "unassigned"] {
        let e = errors(
            "task",
            "set_claim",
            json!({"channel": "eng", "numbers": [1], key: true}),
        );
        assert!(e[key].contains("`\"claimed\": false`"), "{key}: {e:?}");
    }
    for key in ["completed", "closed", "done", "archived"] {
        let e = update_errors(3, json!({key: false}));
        assert!(e[key].contains("`\"status\": \"todo\"`"), "{key}: {e:?}");
    }
    // `true` keeps its own hint.
    assert!(update_errors(3, json!({"completed": true}))["completed"].contains("\"done\""));
    for key in ["progress_note", "worklog", "status_update"] {
        let e = update_errors(3, json!({key: "Reproduced"}));
        assert!(
            e[key].contains("`summary` of task_checkpoint"),
            "{key}: {e:?}"
        );
    }
    // A label another action takes, or one to add, is said with what
    // replacing the whole list means.
    let e = errors(
        "task",
        "checkpoint",
        json!({"channel": "eng", "number": 3, "summary": "s", "labels": ["x"]}),
    );
    assert!(e["labels"].contains("replaces the whole list"), "{e:?}");
    let e = update_errors(3, json!({"labels": [{"add": "regression"}]}));
    assert!(e["labels/0"].contains("replaces the whole list"), "{e:?}");
    assert!(update_errors(3, json!({"append": true}))["append"].contains("replace the whole list"));
    assert!(!update_errors(3, json!({"estimate": "3d"}))["estimate"].contains("label"));
    // Closing subtasks too, a resolution, closed tasks on a list.
    let e = update_errors(3, json!({"status": "done", "cascade": true}));
    assert!(
        e["cascade"].contains("`open_subtasks_match`") && !e["cascade"].contains("task_delete"),
        "{e:?}"
    );
    assert!(update_errors(3, json!({"subtasks": "done"}))["subtasks"].contains("task_update each"));
    assert!(
        update_errors(3, json!({"status": "done", "resolution": "Won't Do"}))["resolution"]
            .contains("`canceled`")
    );
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "include_closed": true}),
    );
    assert!(
        e["include_closed"].contains("`\"status\": \"done\"`"),
        "{e:?}"
    );
    // A flag where words go; a board's own key for a parent.
    assert!(update_errors(3, json!({"blocker": true}))["blocker"].contains("in words"));
    assert_eq!(
        errors(
            "task",
            "update",
            json!({"channel": "eng", "number": 3, "parent": "ENG-1"})
        )["parent"],
        "Must be of type integer or null: write `1`, the number alone."
    );
    // A name at the top of a create is the task's title, a plural the
    // field in the singular, each where it goes.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "name": "x", "assignees": ["@bob"], "tasks": [{"title": "y"}]}),
    );
    assert!(e["name"].contains("`title` belongs in `tasks`"), "{e:?}");
    assert!(
        e["assignees"].contains("`assignee` belongs in `tasks`"),
        "{e:?}"
    );
    // Gemini's calls, by name and args or whole.
    for call in [
        json!({"name": "task_update", "args": {"channel": "eng", "number": 3, "status": "done"}}),
        json!({"functionCall": {"name": "task_update", "args": {"channel": "eng", "number": 3, "status": "done"}}}),
    ] {
        let f = crate::validate::validate(
            crate::registry::find("task", "update").unwrap(),
            call.clone(),
        )
        .unwrap_err();
        let suggested = f.suggested_action.expect("the call");
        assert_eq!(
            suggested.arguments,
            json!({"channel": "eng", "number": 3, "status": "done"}),
            "{call}"
        );
        assert!(
            !f.field_errors.values().any(|said| said.contains("`title`")),
            "{call}: {:?}",
            f.field_errors
        );
    }
}

/// Other trackers' names whose rename needs the value said too: the
/// rename and what the value is to be, in one answer.
#[test]
fn other_trackers_keys_and_lists_are_renamed_with_their_values_said() {
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "key": "ENG-3", "status": "done"}),
    );
    assert_eq!(e["key"], "Unknown field; use `number`.");
    assert!(
        e["number"].starts_with("Once renamed: Must be of type integer: write `3`"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "task": 1, "claimed": true}),
    );
    assert!(e["task"].contains(r#"`"numbers": [1]`"#), "{e:?}");
    let e = update_errors(3, json!({"todo": ["a", "b"]}));
    assert_eq!(
        e["checklist/0"],
        r#"Once renamed: Must be of type object: write `{"text":"a"}`."#
    );
    assert!(
        e["todo"].contains("replaces the task's whole list"),
        "{e:?}"
    );
    let e = update_errors(3, json!({"pr": "https://example.com/pull/1"}));
    assert!(
        e["pr"].contains(r#"`"urls": ["https://example.com/pull/1"]`"#),
        "{e:?}"
    );
    let e = update_errors(3, json!({"assignee_id": "ag_1"}));
    assert_eq!(e["assignee_id"], "Unknown field; use `assignee`.");
    let e = errors(
        "task",
        "delete",
        json!({"channel": "eng", "number": 3, "delete_subtasks": false}),
    );
    assert!(e["delete_subtasks"].contains("is `promote`"), "{e:?}");
    // A create's `task` and `key` keep their nearest fields.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "task": "x", "tasks": [], "key": "k"}),
    );
    assert!(e["key"].contains("`idempotency_key`"), "{e:?}");
}

/// From the re-check of the fourth recovery audit: a holder named on a
/// claim (whose literal retry took another member's task), soft-delete
/// values spelled otherwise, a flattened call's `name`, more words for
/// a release, a list changed in part, closed tasks on a list.
#[test]
fn a_recheck_of_the_recovery_audit_is_told_what_each_means() {
    for key in ["claimed_by", "owner", "holder"] {
        let e = errors(
            "task",
            "set_claim",
            json!({"channel": "eng", "numbers": [7], key: "@me"}),
        );
        assert!(
            e[key].contains("`\"claimed\": true` claims"),
            "{key}: {e:?}"
        );
        assert!(!e[key].contains("task_update"), "{key}: {e:?}");
    }
    for value in ["soft-delete", "Soft Delete", "recycle", "hide", "cancel"] {
        let e = errors(
            "task",
            "delete",
            json!({"channel": "eng", "number": 3, "mode": value}),
        );
        assert!(e["mode"].contains("no soft delete"), "{value}: {e:?}");
    }
    let e = errors(
        "task",
        "delete",
        json!({"channel": "eng", "number": 3, "subtask_mode": "soft-delete"}),
    );
    assert!(
        e["subtask_mode"].contains(" There is no soft delete"),
        "{e:?}"
    );
    assert!(
        errors(
            "task",
            "delete",
            json!({"channel": "eng", "number": 3, "recoverable": true})
        )["recoverable"]
            .contains("no soft delete")
    );
    let e = errors(
        "task",
        "update",
        json!({"name": "task_update", "channel": "eng", "number": 9, "status": "done"}),
    );
    assert!(
        e["name"].contains("holds a tool's name, `task_update`"),
        "{e:?}"
    );
    for key in ["abandon", "give_up", "relinquish"] {
        let e = errors(
            "task",
            "set_claim",
            json!({"channel": "eng", "numbers": [2], key: true}),
        );
        assert!(e[key].contains("`\"claimed\": false`"), "{key}: {e:?}");
    }
    for key in ["partial", "mode"] {
        assert!(
            update_errors(3, json!({"labels": ["x"], key: "append"}))[key]
                .contains("replace the whole list"),
            "{key}"
        );
    }
    for key in ["include_archived", "include_canceled", "closed"] {
        let e = errors("task", "list", json!({"channel": "eng", key: true}));
        assert!(e[key].contains("`status`"), "{key}: {e:?}");
    }
    assert!(update_errors(3, json!({"done": 0}))["done"].contains("`\"status\": \"todo\"`"));
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t"}], "desc": "d"}),
    );
    assert!(
        e["desc"].contains("`description` belongs in `tasks`"),
        "{e:?}"
    );
}

#[test]
fn a_path_written_as_a_key_is_told_to_give_the_field_whole() {
    for key in ["checklist[0].done", "checklist.0.done"] {
        let e = update_errors(1, json!({key: true}));
        assert!(
            e[key].contains("give `checklist` itself, whole"),
            "{key}: {e:?}"
        );
        assert!(e[key].contains("replaces the whole list"), "{key}: {e:?}");
    }
    // An item of another tool's shape under a name the registry explains
    // is not read as a wrapper of another list's item.
    let e = update_errors(
        1,
        json!({"checkItem": {"name": "Reproduce", "state": "complete"}}),
    );
    assert!(
        e["checkItem"].contains("checklist replaces the whole list"),
        "{e:?}"
    );
    assert!(!e.contains_key("status"), "{e:?}");
}

#[test]
fn the_rechecks_last_slips_are_told_in_one_answer() {
    // Jira's `summary` at the top of a create is the task's title.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "summary": "Fix the login page"}),
    );
    assert!(
        e["summary"].contains("a task's name is `title`, in `tasks`"),
        "{e:?}"
    );
    // A field beside a create of several tasks: where it goes, and that
    // such a create carries titles only, so the retry is not refused by it.
    let several =
        json!({"channel": "eng", "tasks": [{"title": "a"}, {"title": "b"}], "priority": "high"});
    let e = errors("task", "create", several);
    assert!(e["priority"].contains("belongs in `tasks`"), "{e:?}");
    assert!(e["priority"].contains("carries titles only"), "{e:?}");
    let one = json!({"channel": "eng", "tasks": [{"title": "a"}], "priority": "high"});
    let e = errors("task", "create", one);
    assert!(!e["priority"].contains("titles only"), "{e:?}");
    // `holder: null` unassigns; `members` is the one assignee; `add_tag`
    // is a change of part of `labels`, which replaces the whole list.
    let e = update_errors(1, json!({"holder": null}));
    assert_eq!(e["holder"], "Unknown field; use `assignee`.");
    let e = update_errors(1, json!({"members": ["@bob"]}));
    assert!(e["members"].contains("`\"assignee\": \"@bob\"`"), "{e:?}");
    let e = update_errors(1, json!({"add_tag": "bug"}));
    assert!(
        e["add_tag"].contains("`labels` replaces the whole list"),
        "{e:?}"
    );
    assert!(e["add_tag"].contains("`\"labels\": [\"bug\"]`"), "{e:?}");
}

/// A call an answer gave (a section's `next`) pasted into an input beside
/// its fields: told it is a call whose `arguments` are the input to send,
/// and suggested as it is, so the retry reads the next page rather than
/// the first again.
#[test]
fn a_call_pasted_as_a_field_is_the_call_suggested() {
    let get = find("task", "get").unwrap();
    let next = json!({"tool": "task_get",
        "arguments": {"channel": "eng", "number": 6, "checkpoints_before": 8}});
    let refused = validate(get, json!({"channel": "eng", "number": 6, "next": next})).unwrap_err();
    assert_eq!(
        refused.field_errors["next"],
        "Unknown field; `next` is a call an answer gave: send its `arguments` alone, as the input of `task_get` (`agentteam exec task get -`)."
    );
    let suggested = refused.suggested_action.expect("the call");
    assert_eq!(suggested.tool, "task_get");
    assert_eq!(suggested.arguments, next["arguments"]);
    // Nor, from a read, a change.
    let update = json!({"tool": "task_update",
        "arguments": {"channel": "eng", "number": 6, "status": "done"}});
    let refused =
        validate(get, json!({"channel": "eng", "number": 6, "next": update})).unwrap_err();
    assert!(refused.suggested_action.is_none(), "{refused:?}");
    // A destructive call is never suggested.
    let delete = json!({"tool": "task_delete", "arguments": {"channel": "eng", "number": 6}});
    let refused =
        validate(get, json!({"channel": "eng", "number": 6, "then": delete})).unwrap_err();
    assert!(refused.suggested_action.is_none(), "{refused:?}");
}

/// A list's filter for claimed tasks, and several assignees at once, are
/// told the reads that answer them: the caller's own tasks or one
/// member's, and one read per member, not a write's rule.
#[test]
fn a_list_filter_that_is_no_filter_names_the_read_that_is() {
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "filters": {"claimed": true}}),
    );
    assert!(
        e["filters/claimed"].contains("`\"filters\": {\"assigned_to_me\": true}`"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "filters": {"assignee": ["@a", "@b"]}}),
    );
    assert_eq!(
        e["filters/assignee"],
        "Must be of type string: one value per call; for several, one input per line with `--batch`."
    );
    // On a write, a task's one assignee.
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "assignee": ["@a", "@b"]}),
    );
    assert!(e["assignee"].contains("a task has one assignee"), "{e:?}");
}

/// A list given inside an object (`{"items": […]}`, as answers hold one)
/// is told to be the list itself; a list of changes (`{"add": […]}`) is
/// not, since its list alone would mean another thing.
#[test]
fn a_list_wrapped_in_an_object_is_told_to_be_the_list() {
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": {"items": [{"title": "x"}]}}),
    );
    assert_eq!(
        e["tasks"],
        "Must be of type array: the list itself, not an object around it: write what `items` holds as the value."
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "checklist": {"data": [{"text": "x"}]}}),
    );
    assert!(
        e["checklist"].contains("what `data` holds") && e["checklist"].contains("items kept"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "labels": {"add": ["x"]}}),
    );
    assert!(!e["labels"].contains("what `add` holds"), "{e:?}");
    // What the list itself is then told, said with it.
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "numbers": {"items": []}, "claimed": true}),
    );
    assert_eq!(
        e["numbers"],
        "Must be of type array: the list itself, not an object around it: write what `items` holds as the value. So given: Must have at least 1 item."
    );
}

/// Words for a checkpoint's text and a get's count of checkpoints are told
/// the field or the paging there is.
#[test]
fn checkpoint_words_name_what_there_is() {
    let e = errors(
        "task",
        "checkpoint",
        json!({"channel": "eng", "number": 1, "checkpoint": "did x"}),
    );
    assert_eq!(e["checkpoint"], "Unknown field; use `summary`.");
    let e = errors(
        "task",
        "checkpoint",
        json!({"channel": "eng", "number": 1, "title": "Heading", "summary": "did x"}),
    );
    assert!(e["title"].contains("a heading goes in it"), "{e:?}");
    let e = errors(
        "task",
        "get",
        json!({"channel": "eng", "number": 1, "checkpoints_limit": 5}),
    );
    assert!(e["checkpoints_limit"].contains("`next`"), "{e:?}");
}

/// A task from an answer pasted into a create as a template: what answers
/// carry is told to be left out, not moved (its `scope_id` as a parent's
/// scope would make the copy a subtask of the original); an item with one
/// such field is told that field's own hint.
#[test]
fn an_item_copied_from_an_answer_is_told_to_leave_out_what_answers_carry() {
    let item = json!({"number": 5, "channel": "demo", "scope_id": "tsk_f1fb47d93a461cdb99954112d74d047f",
        "title": "write docs", "status": "todo", "parent_number": null,
        "created_by": "@demo-agent", "created_at": "2026-12-05T04:53:51.030875Z"});
    let create = find("task", "create").unwrap();
    let refused = validate(create, json!({"channel": "ops", "tasks": [item]})).unwrap_err();
    for key in [
        "number",
        "channel",
        "scope_id",
        "parent_number",
        "created_by",
        "created_at",
    ] {
        assert_eq!(
            refused.field_errors[&format!("tasks/0/{key}")],
            "Unknown field; this item is copied from an answer, which carries it: leave it out (a new one gets its own).",
            "{key}"
        );
    }
    assert!(
        !refused.field_errors.contains_key("parent_task_scope"),
        "{refused:?}"
    );
    assert!(!refused.field_errors.contains_key("parent"), "{refused:?}");
    let e = errors(
        "task",
        "create",
        json!({"channel": "ops", "tasks": [{"title": "t", "number": 3}]}),
    );
    assert!(
        !e["tasks/0/number"].contains("copied from an answer"),
        "{e:?}"
    );
}

/// A thread's id without its board, as `target` or under `thread_id`, is
/// told the board goes before it; a board alone is told it is no target.
#[test]
fn a_thread_id_alone_is_told_its_board_goes_before_it() {
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "target": "th_42", "tasks": [{"title": "t"}]}),
    );
    assert!(
        e["target"].contains("needs its board before it (`#eng:th_42`)"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "thread_id": "th_42", "tasks": [{"title": "t"}]}),
    );
    assert_eq!(e["thread_id"], "Unknown field; use `target`.");
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "target": "#eng", "tasks": [{"title": "t"}]}),
    );
    assert!(e["target"].contains("a board alone is no target"), "{e:?}");
    assert!(!e["target"].contains("needs its board"), "{e:?}");
}

/// Several values where one goes are told the one word for them all
/// (`active`), or, in an item of a list, the list's items; else a batch.
#[test]
fn several_values_are_told_the_word_or_the_list_that_holds_them() {
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "status": ["todo", "in_progress", "in_review"]}),
    );
    assert!(
        e["status"].contains("`active` is todo, in_progress, in_review at once"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "status": ["done", "canceled"]}),
    );
    assert!(e["status"].contains("--batch"), "{e:?}");
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": ["a", "b"]}]}),
    );
    assert!(
        e["tasks/0/title"].ends_with("one value per item; for several, one item each in `tasks`."),
        "{e:?}"
    );
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "filters": {"created_by": "@bob"}}),
    );
    assert!(
        e["filters/created_by"].contains("no filter by creator"),
        "{e:?}"
    );
}

/// `null` for a list's parent filter is told what leaving it out shows
/// (the top-level tasks), not that the filter then matches any.
#[test]
fn a_null_parent_filter_is_told_what_its_absence_shows() {
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "filters": {"parent": null}}),
    );
    assert!(
        e["filters/parent"].contains("shows the top-level tasks"),
        "{e:?}"
    );
    for (action, path, _) in crate::registry::synonyms::EXPLAINED_ABSENT {
        let action = crate::registry::find_by_name(action).unwrap();
        assert!(names_a_field(action, path), "{path}");
    }
}

/// Several values written as one string, each of which the field takes
/// alone, are told one value goes there, as a list of them is.
#[test]
fn several_values_in_one_string_are_told_one_goes_there() {
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "status": "todo, in_progress"}),
    );
    assert!(
        e["status"].starts_with("One value, not several in one string: `active`"),
        "{e:?}"
    );
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "filters": {"assignee": "@a,@b"}}),
    );
    assert!(e["filters/assignee"].contains("--batch"), "{e:?}");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "assignee": "@a,@b"}),
    );
    assert!(e["assignee"].contains("a task has one assignee"), "{e:?}");
    // A part the field would refuse alone keeps the field's own words.
    let e = errors(
        "task",
        "list",
        json!({"channel": "eng", "status": "done,closed"}),
    );
    assert!(e["status"].starts_with("Must be one of"), "{e:?}");
}

/// A template's slot left unfilled (`<task_number>`, `${PARENT}`) is said
/// as one, with no search for its text suggested (it finds nothing).
#[test]
fn an_unfilled_placeholder_is_told_as_one() {
    for (given, shell) in [
        ("<task_number>", false),
        ("${PARENT_NUMBER}", true),
        ("$PARENT", true),
        ("{{steps.create.number}}", false),
        ("{number}", false),
    ] {
        let input = json!({"channel": "eng", "number": given});
        let failure = validate(find("task", "get").unwrap(), input).unwrap_err();
        let said = &failure.field_errors["number"];
        assert!(
            said.starts_with(&format!(
                "Must be of type integer: `{given}` is a placeholder left unfilled"
            )),
            "{said}"
        );
        assert_eq!(said.contains("single quotes"), shell, "{said}");
        assert!(failure.suggested_action.is_none(), "{failure:?}");
    }
    for given in ["${NUMBER:-2}", "$(cat n)"] {
        let e = errors("task", "get", json!({"channel": "eng", "number": given}));
        assert!(e["number"].contains("single quotes"), "{e:?}");
    }
    let e = errors("task", "list", json!({"channel": "<board>"}));
    assert!(e["channel"].contains("placeholder left unfilled"), "{e:?}");
    // A pattern's own words follow, not the regex.
    let e = errors(
        "task",
        "create",
        json!({"parent_task_scope": {"kind": "task", "scope_id": "<scope_id>"}, "tasks": [{"title": "x"}]}),
    );
    let said = &e["parent_task_scope/scope_id"];
    assert!(
        said.starts_with("`<scope_id>` is a placeholder left unfilled; write the value it stands for. Must be a task's scope_id"),
        "{said}"
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "title": "x", "expected_updated_at": "${UPDATED_AT}"}),
    );
    assert!(!e["expected_updated_at"].contains("pattern"), "{e:?}");
    // Words are a title to search for; a Slack mention no slot.
    let e = errors(
        "task",
        "get",
        json!({"channel": "eng", "number": "login bug"}),
    );
    assert!(!e["number"].contains("placeholder"), "{e:?}");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "assignee": "<@U024BE7LH>"}),
    );
    assert!(e["assignee"].contains("not a chat's mention"), "{e:?}");
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "assignee": "<@U024BE7LH|alice>"}),
    );
    assert!(e["assignee"].contains("write `@alice`"), "{e:?}");
}

/// A list inside a list (`numbers: [[2, 3]]`) is told to be the list
/// itself, not a call per value.
#[test]
fn a_list_inside_a_list_is_told_to_be_flat() {
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "numbers": [[2, 3]], "claimed": true}),
    );
    assert_eq!(
        e["numbers/0"],
        "Must be of type integer: a list inside the list; write `[2,3]`, its items in `numbers` itself."
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "labels": [["a", "b"]]}),
    );
    assert!(e["labels/0"].contains("write `[\"a\",\"b\"]`"), "{e:?}");
}

/// A text where a list of objects goes (`tasks: "Fix it"`) is told the
/// list it means, an object per item.
#[test]
fn a_text_for_a_list_of_objects_is_told_the_list() {
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": "Fix flaky test"}),
    );
    assert_eq!(
        e["tasks"],
        "Must be of type array: write `[{\"title\":\"Fix flaky test\"}]`, an object per item."
    );
    let e = errors(
        "task",
        "update",
        json!({"channel": "eng", "number": 1, "checklist": "write, review"}),
    );
    assert!(
        e["checklist"].starts_with("Must be of type array: write `[{\"text\":\"write, review\"}]`"),
        "{e:?}"
    );
    assert!(e["checklist"].contains("replaces its current one"), "{e:?}");
}

/// A claim's numbers or ids under another name, and a word for taking a
/// held task: told the field there is, or that no claim takes one.
#[test]
fn a_claims_numbers_by_another_name_are_told_numbers() {
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "tasks": [2, 3], "claimed": true}),
    );
    assert_eq!(e["tasks"], "Unknown field; use `numbers`.");
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "scope_ids": ["tsk_96ba799b5b6d9e11e22d4b0958f7a3f5"], "claimed": true}),
    );
    assert!(e["scope_ids"].contains("not its scope_id"), "{e:?}");
    let e = errors(
        "task",
        "set_claim",
        json!({"channel": "eng", "numbers": [4], "claimed": true, "force": true}),
    );
    assert!(
        e["force"].contains("no claim takes a task another member holds"),
        "{e:?}"
    );
}

/// A local file where a link goes is told there is no upload.
#[test]
fn a_local_file_for_a_link_is_told_there_is_no_upload() {
    for url in ["file:///tmp/a.png", "/tmp/a.png", "C:\\tmp\\a.png"] {
        let e = errors(
            "task",
            "create",
            json!({"channel": "eng", "tasks": [{"title": "A", "attachments": [{"name": "a.png", "url": url}]}]}),
        );
        assert!(
            e["tasks/0/attachments/0/url"].contains("there is no upload"),
            "{e:?}"
        );
    }
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "tasks": [{"title": "A", "urls": ["example.com"]}]}),
    );
    assert_eq!(
        e["tasks/0/urls/0"],
        "Must be an http:// or https:// URL, without blanks."
    );
}

/// A whole answer sent as an input (a get's task to a checkpoint): each
/// field the answer carries is told once what the action takes, and the
/// others point to it, not each where another action sets it.
#[test]
fn a_whole_answer_sent_as_input_is_told_once() {
    let input = json!({
        "channel": "eng", "number": 1, "scope_id": "tsk_cabcd9999c68ff1e8a655a0f125067c6",
        "title": "Plan", "status": "todo", "labels": [], "created_by": "@a",
        "created_at": "2026-12-05T06:45:54Z", "updated_at": "2026-12-05T06:45:54Z",
        "checkpoints": {"items": [], "total": 0}, "summary": "Scoped"
    });
    let e = errors("task", "checkpoint", input);
    assert_eq!(
        e["scope_id"],
        "Unknown field; the input is an answer copied whole: drop it, and every field task_checkpoint does not take (its fields are `channel`, `number`, `summary`, `idempotency_key`)."
    );
    for key in ["title", "status", "labels", "created_by", "checkpoints"] {
        assert_eq!(
            e[key], "Unknown field; the answer's, as `scope_id` says: drop it.",
            "{key}"
        );
    }
    // A task's answer pasted into a create: its task fields are told to
    // go in `tasks`, its answer-only fields dropped; into an update, its
    // `updated_at` is the guard.
    let answer = json!({
        "channel": "eng", "number": 1, "scope_id": "tsk_cabcd9999c68ff1e8a655a0f125067c6",
        "title": "Plan", "labels": ["a"], "created_by": "@a", "parent_number": null,
        "created_at": "2026-12-05T06:45:54Z", "updated_at": "2026-12-05T06:45:54Z"
    });
    let e = errors("task", "create", answer.clone());
    assert!(e["title"].contains("`tasks`"), "{e:?}");
    assert!(e["created_at"].contains("answer"), "{e:?}");
    let e = errors("task", "update", answer);
    assert!(e["updated_at"].contains("expected_updated_at"), "{e:?}");
    assert!(
        e["scope_id"].contains("answer") || e["created_at"].contains("answer"),
        "{e:?}"
    );
    // A create's fields at its top are a task's, not an answer's.
    let e = errors(
        "task",
        "create",
        json!({"channel": "eng", "title": "Ship it", "labels": ["a"], "assignee": "@a"}),
    );
    assert!(!e.values().any(|said| said.contains("answer")), "{e:?}");
}
