//! The words people and models try that are not in the registry, and what
//! they meant: route words (`task claim`) and field names (`tags`), and the
//! schemas' patterns in words. The CLI reads these tables without knowing
//! any domain, and validation finds its hints here; a new domain adds its
//! own rows. Kept small on purpose: only mistakes seen in use, each with
//! one clear meaning. The locator tables ([`BY_WORDS`], [`LOCATORS`]) and
//! [`PATTERN_FIXES`] are keyed by field name, not by domain: a second
//! domain with a field of the same name would share their words (README,
//! "Adding a domain").

use super::{ACTIONS, Action, common, find, task};

/// A route word that is not an action, and what it meant.
pub struct Verb {
    pub domain: &'static str,
    pub word: &'static str,
    /// The verb of the action it meant.
    pub meant: &'static str,
    /// The field and JSON value the word itself stands for (`claim`:
    /// `"claimed": true`), which the suggestion fills in.
    pub sets: Option<(&'static str, &'static str)>,
    /// What else to pass, in words; may be empty.
    pub note: &'static str,
    /// A field given at the top that the word reads as another field of
    /// its action (`subtasks` with `number`: that number is
    /// `filters.parent`): `(field, object, its field)`, the object `""`
    /// for the top level (`add_subtask`'s `number` is `parent`).
    pub moves: Option<(&'static str, &'static str, &'static str)>,
}

impl Verb {
    /// The field the word sets and the value `fields` give it, when they
    /// give another (`claim` with `"claimed": false`): the input's own
    /// word, which the route's reading of it must not overrule.
    pub fn contradicted_by(
        &self,
        fields: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<(&'static str, serde_json::Value)> {
        let (name, value) = self.sets?;
        let value: serde_json::Value = serde_json::from_str(value).ok()?;
        let given = fields.get(name)?;
        (*given != value).then(|| (name, given.clone()))
    }

    /// How to use the action for what was asked: the field the word sets,
    /// then the note; empty when neither.
    pub fn how(&self) -> String {
        let sets = self
            .sets
            .map(|(field, value)| format!("pass `\"{field}\": {value}`"));
        match (sets, self.note) {
            (Some(sets), "") => sets,
            (Some(sets), note) => format!("{sets}: {note}"),
            (None, note) => note.to_string(),
        }
    }
}

const fn task_verb(
    word: &'static str,
    meant: &'static str,
    sets: Option<(&'static str, &'static str)>,
    note: &'static str,
) -> Verb {
    Verb {
        domain: "task",
        word,
        meant,
        sets,
        note,
        moves: None,
    }
}

impl Verb {
    /// This word, which reads `field` given at the top as `object.inner`.
    const fn moving(self, field: &'static str, object: &'static str, inner: &'static str) -> Verb {
        Verb {
            moves: Some((field, object, inner)),
            ..self
        }
    }
}

/// What a word that asks for a task's history is told.
const CHECKPOINTS_IN_GET: &str =
    "its answer holds the task's latest checkpoints, older ones through that section's `next`";
const SUBTASKS_BY_PARENT: &str = "set `filters.parent` to the parent task's number";

/// The route words that are not actions (a new domain adds its rows, made
/// with its own helper).
pub static VERBS: &[Verb] = &[
    task_verb("claim", "set_claim", Some(("claimed", "true")), ""),
    task_verb("unclaim", "set_claim", Some(("claimed", "false")), ""),
    task_verb("release", "set_claim", Some(("claimed", "false")), ""),
    task_verb("search", "list", None, "pass the words as `query`"),
    task_verb("find", "list", None, "pass the words as `query`"),
    task_verb("ls", "list", None, ""),
    task_verb("take", "set_claim", Some(("claimed", "true")), ""),
    task_verb("grab", "set_claim", Some(("claimed", "true")), ""),
    task_verb("show", "get", None, ""),
    task_verb("view", "get", None, ""),
    task_verb("read", "get", None, ""),
    task_verb("fetch", "get", None, ""),
    task_verb("info", "get", None, ""),
    // Closing a task is a status, never a delete.
    task_verb("complete", "update", Some(("status", "\"done\"")), ""),
    task_verb("done", "update", Some(("status", "\"done\"")), ""),
    task_verb("finish", "update", Some(("status", "\"done\"")), ""),
    task_verb("close", "update", Some(("status", "\"done\"")), ""),
    task_verb("resolve", "update", Some(("status", "\"done\"")), ""),
    task_verb("cancel", "update", Some(("status", "\"canceled\"")), ""),
    task_verb("add", "create", None, ""),
    task_verb("new", "create", None, ""),
    task_verb("edit", "update", None, ""),
    task_verb("comment", "checkpoint", None, "pass the text as `summary`"),
    task_verb("remove", "delete", None, ""),
    task_verb("rm", "delete", None, ""),
    task_verb("del", "delete", None, ""),
    task_verb("destroy", "delete", None, ""),
    // Words for a change a task_update makes.
    task_verb("assign", "update", None, "set `assignee` (`@handle`)"),
    task_verb("unassign", "update", Some(("assignee", "null")), ""),
    task_verb("reopen", "update", Some(("status", "\"todo\"")), ""),
    task_verb("start", "update", Some(("status", "\"in_progress\"")), ""),
    task_verb(
        "move",
        "update",
        None,
        "a move between columns is `status`; under another task, `parent` (`null` for a top-level task)",
    ),
    task_verb(
        "archive",
        "update",
        Some(("status", "\"canceled\"")),
        "there is no archive, and a delete is for good",
    ),
    task_verb("note", "checkpoint", None, "pass the text as `summary`"),
    task_verb("progress", "checkpoint", None, "pass the text as `summary`"),
    task_verb(
        "subtask",
        "create",
        None,
        "set `parent` to the task's number",
    ),
    task_verb(
        "add_subtask",
        "create",
        None,
        "set `parent` to the task's number",
    )
    .moving("number", "", "parent"),
    task_verb(
        "create_subtask",
        "create",
        None,
        "set `parent` to the task's number",
    )
    .moving("number", "", "parent"),
    // Words for reading: a list of one's own, a task's history, its
    // subtasks.
    task_verb(
        "my",
        "list",
        Some(("filters", r#"{"assigned_to_me": true}"#)),
        "",
    ),
    task_verb(
        "mine",
        "list",
        Some(("filters", r#"{"assigned_to_me": true}"#)),
        "",
    ),
    task_verb("checkpoints", "get", None, CHECKPOINTS_IN_GET),
    task_verb("list_checkpoints", "get", None, CHECKPOINTS_IN_GET),
    task_verb("get_checkpoints", "get", None, CHECKPOINTS_IN_GET),
    task_verb("history", "get", None, CHECKPOINTS_IN_GET),
    task_verb("comments", "get", None, CHECKPOINTS_IN_GET),
    task_verb("subtasks", "list", None, SUBTASKS_BY_PARENT).moving("number", "filters", "parent"),
    task_verb("children", "list", None, SUBTASKS_BY_PARENT).moving("number", "filters", "parent"),
    task_verb("list_subtasks", "list", None, SUBTASKS_BY_PARENT)
        .moving("number", "filters", "parent"),
];

/// A word that means a field only where that field is a sibling: `(word,
/// field)`. A checklist item's words (its `text`, its `done`); elsewhere `title` is a
/// task's own field and `name` a task's `title`.
pub static HERE_ONLY: &[(&str, &str)] = &[
    ("title", "text"),
    ("name", "text"),
    ("completed", "done"),
    ("complete", "done"),
    ("checked", "done"),
    ("is_done", "done"),
];

/// A field name that means another field: `(word, field, action)`. The hint
/// applies where `field` is a sibling of the unknown word; when it is not
/// and `action` is set, the hint points at that action's field instead.
pub static FIELDS: &[(&str, &str, Option<&str>)] = &[
    ("tags", "labels", None),
    ("thread_id", "target", None),
    ("thread", "target", None),
    ("source_target", "target", None),
    ("checkpoint", "summary", None),
    ("tag", "labels", None),
    ("label", "labels", None),
    ("comment", "summary", Some("task_checkpoint")),
    ("note", "summary", Some("task_checkpoint")),
    ("message", "summary", Some("task_checkpoint")),
    ("reason", "summary", Some("task_checkpoint")),
    // Words for a note on progress: a checkpoint's text, never the
    // task's description (which a rename would replace).
    ("progress_note", "summary", Some("task_checkpoint")),
    ("progress_update", "summary", Some("task_checkpoint")),
    ("status_update", "summary", Some("task_checkpoint")),
    ("update_note", "summary", Some("task_checkpoint")),
    ("worklog", "summary", Some("task_checkpoint")),
    ("work_log", "summary", Some("task_checkpoint")),
    ("log", "summary", Some("task_checkpoint")),
    ("handoff_note", "summary", Some("task_checkpoint")),
    ("activity", "summary", Some("task_checkpoint")),
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
    ("project", "channel", None),
    ("search", "query", None),
    ("q", "query", None),
    ("id", "number", None),
    ("version", "expected_updated_at", None),
    ("etag", "expected_updated_at", None),
    ("task_id", "number", None),
    ("task_number", "number", None),
    ("issue_id", "number", None),
    ("issue_number", "number", None),
    ("claim", "claimed", None),
    ("state", "status", None),
    // Other trackers' names for a task's status (a board's column).
    ("column", "status", None),
    ("stage", "status", None),
    ("lane", "status", None),
    ("phase", "status", None),
    ("workflow_state", "status", None),
    // Other APIs' names for a page's cursor.
    ("after", "cursor", None),
    ("page_token", "cursor", None),
    ("next_page_token", "cursor", None),
    ("starting_after", "cursor", None),
    // Other trackers' names for a board.
    ("team", "channel", None),
    ("team_id", "channel", None),
    ("team_key", "channel", None),
    ("project_key", "channel", None),
    ("project_id", "channel", None),
    ("board_id", "channel", None),
    ("board_name", "channel", None),
    ("channel_name", "channel", None),
    ("channel_id", "channel", None),
    ("id_board", "channel", None),
    // A task's links.
    ("links", "urls", None),
    ("link", "urls", None),
    ("url", "urls", None),
    ("page_size", "limit", None),
    ("per_page", "limit", None),
    ("max_items", "limit", None),
    ("max_results", "limit", None),
    // Other APIs' names for a list's order (`orderBy` is read as `order_by`).
    ("order_by", "sort", None),
    ("sort_by", "sort", None),
    ("order", "sort", None),
    // Output names given back as input: a task's `updated_at` is the
    // update's guard, its `parent_number` the locator `parent`.
    ("updated_at", "expected_updated_at", None),
    ("parent_number", "parent", None),
    ("parent_id", "parent", None),
    ("if_match", "expected_updated_at", None),
    ("if_unmodified_since", "expected_updated_at", None),
    ("page", "cursor", None),
    ("offset", "cursor", None),
    ("next_cursor", "cursor", None),
    ("mine", "assigned_to_me", None),
    ("text", "summary", Some("task_checkpoint")),
    ("text", "query", None),
    ("desc", "description", None),
    ("id_members", "assignee", None),
    ("members", "assignee", None),
    ("member", "assignee", None),
    ("id_list", "channel", None),
    ("checklist_items", "checklist", None),
    ("todo", "checklist", None),
    ("todos", "checklist", None),
    // Other trackers' names for an item's key or id, and for its holder.
    ("key", "number", None),
    ("issue_key", "number", None),
    ("ticket", "number", None),
    ("task", "number", None),
    ("task", "numbers", None),
    ("assignee_id", "assignee", None),
    ("claimed_by", "assignee", None),
    ("holder", "assignee", None),
    ("pr", "urls", None),
    ("pr_url", "urls", None),
    ("pull_request", "urls", None),
    ("label_ids", "labels", None),
    ("recursive", "subtask_mode", Some("task_delete")),
    ("cascade", "subtask_mode", Some("task_delete")),
];

/// Words for a preview of a call (`dry_run: true`), at the top of any
/// change's input: the CLI's `--dry-run` flag is the preview, and dropping
/// the word as unknown would make the change ([`PREVIEW`]).
pub static PREVIEW_WORDS: &[&str] = &["dry_run", "preview", "validate_only", "simulate"];

/// What leaving a field out means, where a none for it (`null`) is given
/// and the field's description alone would mislead: `(action, path,
/// words)`.
pub static EXPLAINED_ABSENT: &[(&str, &str, &str)] = &[(
    "task_list",
    "filters/parent",
    "left out, a list shows the top-level tasks, those with no parent (with `include_subtasks: true`, subtasks too): leave it out.",
)];

/// Values one word of an enum field stands for at once: `(action, field,
/// values, word)`. Several of them given as a list are told the word.
pub static VALUE_SETS: &[(&str, &str, &[&str], &str)] = &[(
    "task_list",
    "status",
    task::fields::ACTIVE_STATUSES,
    "active",
)];

/// The schemas' patterns in words, for a refusal: `(pattern, words)`. A
/// pattern not here is said as it is.
pub static PATTERN_WORDS: &[(&str, &str)] = &[
    ("\\S", "Must not be blank."),
    (
        common::URL_PATTERN,
        "Must be an http:// or https:// URL, without blanks.",
    ),
    (
        common::CHANNEL_PATTERN,
        "Must be a board name: lowercase letters, digits, `_` and `-`, starting with a letter or digit, without `#`.",
    ),
    (
        common::MEMBER_REF_PATTERN,
        "Must be a member ref: `@` and a lowercase handle (`@alice`).",
    ),
    (
        task::fields::TARGET_PATTERN,
        "Must be a thread as `#board:thread_id` (`#eng:th_42`).",
    ),
];

/// What a value a pattern refuses is told, given the value as sent; `None`
/// where the pattern's words do.
pub type PatternRule = fn(&str) -> Option<&'static str>;

/// What a value a pattern refuses is told where the pattern's words would
/// mislead: `(pattern, rule)`.
pub static PATTERN_RULES: &[(&str, PatternRule)] = &[
    (task::fields::TARGET_PATTERN, target_given),
    (common::URL_PATTERN, url_given),
];

/// A local file (`file:///tmp/a.png`, `./a.png`) where a link goes: there
/// is no upload, so no value names it.
fn url_given(given: &str) -> Option<&'static str> {
    let given = given.trim();
    let local = given.to_ascii_lowercase().starts_with("file:")
        || given.starts_with('/')
        || given.starts_with("./")
        || given.starts_with("~/")
        || given.get(1..3) == Some(":\\");
    local.then_some(
        "Must be an http:// or https:// URL: there is no upload, and a local file has no URL; a link or an attachment names a file already at an http(s) address.",
    )
}

/// A board alone as the target (`#eng`): a target is the thread a task
/// came from, never where it goes, and a made-up thread id is no fix. A
/// link as the target (an issue's or a message's address): a link is one
/// of the task's `urls`, and inventing a thread for it is no fix.
fn target_given(given: &str) -> Option<&'static str> {
    let link = ["http://", "https://"]
        .iter()
        .any(|scheme| given.trim().to_ascii_lowercase().starts_with(scheme));
    if link {
        return Some(
            "Must be a thread as `#board:thread_id`, where the task came from, never a link: a link goes in the task's `urls` (`\"urls\": [\"https://…\"]` in each task), and `target` is left out where there is no thread.",
        );
    }
    if given.trim().starts_with('#') {
        return (!given.contains(':')).then_some(
            "Must be a thread as `#board:thread_id`, where the task came from: a board alone is no target; the board the task goes on is `channel`, and `target` is left out where there is no thread.",
        );
    }
    // A bare word: a thread's id without its board, or a board.
    (!given.contains(':')).then_some(
        "Must be a thread as `#board:thread_id`, where the task came from: a thread's id needs its board before it (`#eng:th_42`); a board alone is no target (the board the task goes on is `channel`), and `target` is left out where there is no thread.",
    )
}

/// What a [preview word](PREVIEW_WORDS) is told: `(any change, a
/// destructive one)`.
pub const PREVIEW: (&str, &str) = (
    "a preview is the CLI's `--dry-run` flag, which sends nothing; without it this call makes the change.",
    "a preview is the CLI's `--dry-run` flag, which sends nothing; without it this call deletes for good.",
);

/// A field an action does not take, where dropping it or renaming it to
/// the nearest name would do something else than the caller meant:
/// `(action, word, what to do instead)`, the word at the top of the input,
/// or its path below it, an item of a list as `*` (`tasks/*/subtasks`).
pub static EXPLAINED: &[(&str, &str, &str)] = &[
    ("task_delete", "confirm", NO_CONFIRMATION),
    ("task_delete", "confirmed", NO_CONFIRMATION),
    ("task_delete", "soft", NO_ARCHIVE),
    ("task_delete", "archive", NO_ARCHIVE),
    ("task_set_claim", "release", RELEASE),
    ("task_set_claim", "unclaim", RELEASE),
    ("task_set_claim", "unassign", RELEASE),
    ("task_set_claim", "unclaimed", RELEASE),
    ("task_set_claim", "abandon", RELEASE),
    ("task_set_claim", "drop", RELEASE),
    ("task_set_claim", "give_up", RELEASE),
    ("task_set_claim", "unlock", RELEASE),
    ("task_set_claim", "free", RELEASE),
    ("task_set_claim", "relinquish", RELEASE),
    // Who holds a task: the caller, by this call; never task_update's
    // `assignee`, which would take a task another member holds.
    ("task_set_claim", "claimed_by", CLAIM_IS_THE_CALLERS),
    ("task_set_claim", "holder", CLAIM_IS_THE_CALLERS),
    ("task_set_claim", "owner", CLAIM_IS_THE_CALLERS),
    ("task_set_claim", "assigned_to", CLAIM_IS_THE_CALLERS),
    ("task_set_claim", "force", NO_TAKEOVER),
    ("task_set_claim", "steal", NO_TAKEOVER),
    ("task_set_claim", "override", NO_TAKEOVER),
    ("task_set_claim", "take_over", NO_TAKEOVER),
    ("task_set_claim", "takeover", NO_TAKEOVER),
    ("task_delete", "recoverable", NO_ARCHIVE),
    ("task_delete", "restorable", NO_ARCHIVE),
    ("task_delete", "reversible", NO_ARCHIVE),
    ("task_delete", "keep_history", NO_ARCHIVE),
    ("task_update", "partial", NO_APPEND),
    ("task_update", "mode", NO_APPEND),
    ("task_update", "op", NO_APPEND),
    ("task_update", "operation", NO_APPEND),
    ("task_list", "include_archived", CLOSED_BY_STATUS),
    ("task_list", "include_canceled", CLOSED_BY_STATUS),
    ("task_list", "include_cancelled", CLOSED_BY_STATUS),
    ("task_list", "all", CLOSED_BY_STATUS),
    ("task_list", "closed", CLOSED_BY_STATUS),
    ("task_set_claim", "released", RELEASE),
    ("task_set_claim", "unassigned", RELEASE),
    ("task_delete", "soft_delete", NO_ARCHIVE),
    ("task_delete", "delete_subtasks", SUBTASKS_BY_MODE),
    ("task_delete", "delete_children", SUBTASKS_BY_MODE),
    ("task_delete", "keep_subtasks", SUBTASKS_BY_MODE),
    ("task_delete", "hard", NO_ARCHIVE),
    ("task_delete", "permanent", NO_ARCHIVE),
    ("task_delete", "trash", NO_ARCHIVE),
    ("task_update", "cascade", CLOSE_SUBTASKS_TOO),
    ("task_update", "recursive", CLOSE_SUBTASKS_TOO),
    ("task_update", "include_subtasks", CLOSE_SUBTASKS_TOO),
    ("task_update", "resolution", NO_RESOLUTION),
    ("task_create", "tasks/*/resolution", NO_RESOLUTION),
    ("task_list", "include_closed", CLOSED_BY_STATUS),
    ("task_list", "include_done", CLOSED_BY_STATUS),
    ("task_list", "show_closed", CLOSED_BY_STATUS),
    ("task_list", "include_completed", CLOSED_BY_STATUS),
    ("task_update", "append", NO_APPEND),
    ("task_update", "merge", NO_APPEND),
    (
        "task_get",
        "title",
        "task_get reads a task by `channel` and `number`: to find one by its title, task_list with `query`; to change its title, task_update.",
    ),
    (
        "task_checkpoint",
        "title",
        "a checkpoint is its `summary` alone: a heading goes in it, as its first line; task_checkpoint finds its task by `channel` and `number` (task_list with `query` finds the number by a title's words).",
    ),
    (
        "task_delete",
        "title",
        "task_delete deletes the task `number` names, for good: find the number by the title's words with task_list `query`, and check it is the task meant.",
    ),
    (
        "task_list",
        "number",
        "one task by its number is task_get (`{\"channel\": …, \"number\": …}`); a list takes no number.",
    ),
    (
        "task_create",
        "tasks/*/summary",
        "a task's name is `title`; `summary` is a checkpoint's text (task_checkpoint).",
    ),
    (
        "task_create",
        "summary",
        "a task's name is `title`, in `tasks` (`{\"tasks\": [{\"title\": …}]}`); `summary` is a checkpoint's text (task_checkpoint).",
    ),
    ("task_create", "subtasks", SUBTASKS_LATER),
    ("task_create", "tasks/*/subtasks", SUBTASKS_LATER),
    ("task_create", "tasks/*/children", SUBTASKS_LATER),
    (
        "task_get",
        "scope_id",
        "task_get finds a task by `channel` and `number`, which task_list answers beside each scope_id: give those instead.",
    ),
    (
        "task_create",
        "number",
        "a new task's number is given by its board: drop it; for a subtask of task N, write \"parent\": N.",
    ),
    (
        "task_create",
        "tasks/*/number",
        "a created task gets its number from its board; to change task N, task_update it (`agentteam exec task update -`, its fields at the top level beside `number`).",
    ),
    (
        "task_set_claim",
        "assignee",
        "task_set_claim claims for the calling agent only: drop it to claim for yourself; to give a task to another member, task_update sets its assignee.",
    ),
    ("task_update", "done", STATE_IS_STATUS),
    ("task_update", "completed", STATE_IS_STATUS),
    ("task_update", "closed", STATE_IS_STATUS),
    ("task_create", "tasks/*/due", NO_DUE_DATE),
    ("task_create", "tasks/*/due_date", NO_DUE_DATE),
    ("task_create", "tasks/*/deadline", NO_DUE_DATE),
    (
        "task_list",
        "filters/unassigned",
        "no filter matches unassigned tasks: leave it out, and each answer shows `assignee`, `null` where there is none.",
    ),
    ("task_update", "claimed", CLAIM_IS_SET_CLAIM),
    ("task_update", "claim", CLAIM_IS_SET_CLAIM),
    ("task_update", "deleted", DELETE_IS_ITS_OWN),
    ("task_update", "delete", DELETE_IS_ITS_OWN),
    ("task_update", "archived", DELETE_IS_ITS_OWN),
    ("task_update", "archive", DELETE_IS_ITS_OWN),
    ("task_update", "removed", DELETE_IS_ITS_OWN),
    ("task_delete", "status", DELETE_IS_FOR_GOOD),
    ("task_delete", "state", DELETE_IS_FOR_GOOD),
    ("task_update", "blocked_by", BLOCKER_IS_TEXT),
    ("task_create", "tasks/*/blocked_by", BLOCKER_IS_TEXT),
    ("task_update", "depends_on", BLOCKER_IS_TEXT),
    ("task_create", "tasks/*/depends_on", BLOCKER_IS_TEXT),
    ("task_update", "type", NO_TYPE),
    ("task_create", "tasks/*/type", NO_TYPE),
    ("task_update", "issue_type", NO_TYPE),
    ("task_create", "tasks/*/issue_type", NO_TYPE),
    ("task_create", "tasks/*/issuetype", NO_TYPE),
    ("task_update", "issuetype", NO_TYPE),
    ("task_update", "reporter", CREATOR_IS_THE_CALLER),
    ("task_create", "tasks/*/reporter", CREATOR_IS_THE_CALLER),
    ("task_create", "tasks/*/created_by", CREATOR_IS_THE_CALLER),
    ("task_update", "watchers", NO_WATCHERS),
    ("task_create", "tasks/*/watchers", NO_WATCHERS),
    (
        "task_delete",
        "force",
        "there is no force: a task with subtasks needs `subtask_mode`, `delete` (its subtasks go too) or `promote` (they stay, as tasks of their own).",
    ),
    ("task_update", "new_channel", NO_MOVE),
    ("task_update", "move_to", NO_MOVE),
    ("task_update", "subtasks", SUBTASKS_ARE_TASKS),
    ("task_update", "children", SUBTASKS_ARE_TASKS),
    ("task_update", "check_item", CHECKLIST_REPLACED),
    ("task_update", "due_date", NO_DUE_DATE),
    ("task_update", "due", NO_DUE_DATE),
    ("task_update", "due_at", NO_DUE_DATE),
    ("task_update", "deadline", NO_DUE_DATE),
    (
        "task_update",
        "reviewer",
        "there is no reviewer: `\"status\": \"in_review\"` asks for a review; `assignee` is who works on the task, so it is no rename of this.",
    ),
    ("task_update", "tasks", ONE_TASK_PER_UPDATE),
    ("task_update", "updates", ONE_TASK_PER_UPDATE),
    ("task_update", "changes", ONE_TASK_PER_UPDATE),
    ("task_update", "add_labels", LABELS_REPLACED),
    ("task_update", "add_label", LABELS_REPLACED),
    ("task_update", "remove_labels", LABELS_REPLACED),
    ("task_update", "remove_label", LABELS_REPLACED),
    ("task_update", "checkpoint", CHECKPOINT_IS_ITS_OWN),
    ("task_update", "checkpoints", CHECKPOINT_IS_ITS_OWN),
    (
        "task_update",
        "notes",
        "`description` replaces the task's description (give it whole: task_get shows it); a note on progress is a checkpoint, task_checkpoint's `summary`.",
    ),
    (
        "task_update",
        "unassign",
        "to unassign the task, write `\"assignee\": null`.",
    ),
    (
        "task_update",
        "unassigned",
        "to unassign the task, write `\"assignee\": null`.",
    ),
    ("task_update", "assigned_to_me", SELF_CLAIM),
    ("task_update", "assign_to_me", SELF_CLAIM),
    ("task_update", "self_assign", SELF_CLAIM),
    ("task_update", "assign_self", SELF_CLAIM),
    ("task_create", "tasks/*/assigned_to_me", SELF_CLAIM_NEW),
    ("task_create", "tasks/*/assign_to_me", SELF_CLAIM_NEW),
    ("task_create", "tasks/*/self_assign", SELF_CLAIM_NEW),
    ("task_create", "tasks/*/assign_self", SELF_CLAIM_NEW),
    ("task_get", "checkpoints_limit", CHECKPOINTS_PAGED),
    ("task_get", "checkpoint_limit", CHECKPOINTS_PAGED),
    ("task_get", "max_checkpoints", CHECKPOINTS_PAGED),
    ("task_get", "checkpoints_count", CHECKPOINTS_PAGED),
    (
        "task_list",
        "filters/created_by",
        "a list has no filter by creator: each item shows its `created_by`; the tasks you hold are `\"filters\": {\"assigned_to_me\": true}`.",
    ),
    ("task_list", "claimed", NO_CLAIMED_FILTER),
    ("task_list", "filters/claimed", NO_CLAIMED_FILTER),
    ("task_list", "filters/is_claimed", NO_CLAIMED_FILTER),
    ("task_list", "priority", NO_PRIORITY_FILTER),
    ("task_list", "filters/priority", NO_PRIORITY_FILTER),
    (
        "task_list",
        "meta",
        "the next page is read by giving the last page's `next_cursor` as `cursor`, at the top level (`\"cursor\": \"…\"`); `meta` is only in answers.",
    ),
    (
        "task_get",
        "include_subtasks",
        "task_get always shows the task's subtasks (its `subtasks` section, with `next` for the rest): drop it.",
    ),
    ("task_get", "url", ADDRESS_IS_CHANNEL_AND_NUMBER),
    ("task_get", "link", ADDRESS_IS_CHANNEL_AND_NUMBER),
    ("task_checkpoint", "url", ADDRESS_IS_CHANNEL_AND_NUMBER),
    ("task_delete", "url", ADDRESS_IS_CHANNEL_AND_NUMBER),
    ("task_list", "paginate", ONE_PAGE_A_CALL),
    ("task_list", "all_pages", ONE_PAGE_A_CALL),
    ("task_list", "fetch_all", ONE_PAGE_A_CALL),
    ("task_checkpoint", "done", CHECKPOINT_CHANGES_NO_STATUS),
    ("task_checkpoint", "completed", CHECKPOINT_CHANGES_NO_STATUS),
    ("task_checkpoint", "close", CHECKPOINT_CHANGES_NO_STATUS),
    ("task_create", "tasks/*/estimate", NO_ESTIMATE),
    ("task_create", "tasks/*/story_points", NO_ESTIMATE),
    ("task_create", "tasks/*/points", NO_ESTIMATE),
    ("task_update", "estimate", NO_ESTIMATE_ON_UPDATE),
    ("task_update", "story_points", NO_ESTIMATE_ON_UPDATE),
    ("task_update", "points", NO_ESTIMATE_ON_UPDATE),
    ("task_list", "since", NO_DATE_FILTER),
    ("task_list", "updated_since", NO_DATE_FILTER),
    ("task_list", "updated_after", NO_DATE_FILTER),
    ("task_list", "created_after", NO_DATE_FILTER),
    ("task_list", "filters/since", NO_DATE_FILTER),
    ("task_list", "filters/updated_since", NO_DATE_FILTER),
    ("task_list", "filters/updated_after", NO_DATE_FILTER),
    ("task_list", "filters/created_after", NO_DATE_FILTER),
    ("task_list", "title", SEARCH_IS_QUERY),
    ("task_list", "text", SEARCH_IS_QUERY),
    ("task_list", "filters/title", SEARCH_IS_QUERY),
    ("task_list", "filters/text", SEARCH_IS_QUERY),
    ("task_list", "filters/query", SEARCH_IS_QUERY),
    ("task_update", "add_checklist", CHECKLIST_REPLACED),
    ("task_update", "add_checklist_item", CHECKLIST_REPLACED),
    ("task_update", "checklist_item", CHECKLIST_REPLACED),
    // A parent scope given as a board and a number: that is the other
    // locator, not a scope (never "`number` is task_update's").
    ("task_create", "parent_task_scope/number", PARENT_BY_NUMBER),
    ("task_create", "parent_task_scope/parent", PARENT_BY_NUMBER),
];

const PARENT_BY_NUMBER: &str = "a parent by its number is `parent`, at the top level beside `channel` (`{\"channel\": …, \"parent\": 5}`), in place of `parent_task_scope`, which takes a scope_id.";

/// A field whose value failed its pattern or its type, and what the value
/// must be, in words, where the pattern or the type alone says little to a
/// reader (an integer for a time): `(field name, fix)`, the name the last
/// part of the field's path, the fix starting "Must be".
pub static PATTERN_FIXES: &[(&str, &str)] = &[
    (
        "expected_updated_at",
        "Must be a time in the form a task's updated_at takes (`2026-12-02T08:03:34.466048Z`: date, `T`, time, offset): copy the task's updated_at exactly.",
    ),
    (
        "scope_id",
        "Must be a task's scope_id (`tsk_…`) as task_list and task_get answer it: copy it from there, or give `channel` with `parent` (the task's number) instead.",
    ),
    (
        "cursor",
        "Must be the `next_cursor` a page answered, as it was given: pages are read by cursor, not by number; leave it out for the first page.",
    ),
    (
        "query",
        "Must be one text: join the words into it (`\"login timeout\"`); a task must match every word.",
    ),
    (
        "checkpoints_before",
        "Must be a checkpoint's id, as the checkpoints section's `next` gives it (not a time): copy it from there.",
    ),
    (
        "parent_task_scope",
        "Must be `{\"kind\": \"task\", \"scope_id\": \"tsk_…\"}`, the parent's scope_id as task_list and task_get answer it; a parent by its number is `parent` beside `channel` instead.",
    ),
];

/// What an enum's refusal adds for a value given whose nearest reading
/// would mislead (`closed` is two statuses; `relevance` is no sort for a
/// browse): `(field name, value in lowercase, words)`, the name the last
/// part of the field's path.
pub static VALUE_WORDS: &[(&str, &str, &str)] = &[
    ("status", "closed", CLOSED),
    (
        "status",
        "any",
        "`all` is for a search (with `query`) or `filters.parent`; to browse, leave `status` out for the open ones (`active`), or give one status at a time.",
    ),
    (
        "status",
        "open",
        "Open is `todo` for one task's status (`in_progress` and `in_review` are open too); a list's `active`, its default, is all three.",
    ),
    ("status", "close", CLOSED),
    (
        "status",
        "blocked",
        "A blocked task keeps its status and says what blocks it in `blocker`.",
    ),
    ("subtask_mode", "soft", NO_ARCHIVE_SAID),
    ("subtask_mode", "archive", NO_ARCHIVE_SAID),
    ("subtask_mode", "soft-delete", NO_ARCHIVE_SAID),
    ("subtask_mode", "soft_delete", NO_ARCHIVE_SAID),
    ("status", "deleted", DELETED_IS_NO_STATUS),
    ("status", "removed", DELETED_IS_NO_STATUS),
    ("status", "archived", DELETED_IS_NO_STATUS),
    (
        "sort",
        "priority",
        "There is no sort by priority; `relevance` only with a query.",
    ),
];

/// Another tracker's word for a value of an enum field: `(field name, word,
/// value)`, the word in lowercase with `_` between its parts (`Won't do`
/// is read `won't_do`); a value written in another case or with spaces or
/// dashes (`In Review`) is found without a row.
pub static VALUES_MEANT: &[(&str, &str, &str)] = &[
    ("status", "completed", "done"),
    ("status", "complete", "done"),
    ("status", "finished", "done"),
    ("status", "resolved", "done"),
    ("status", "fixed", "done"),
    ("status", "cancelled", "canceled"),
    ("status", "cancel", "canceled"),
    ("status", "dropped", "canceled"),
    ("status", "wontfix", "canceled"),
    ("status", "won't_do", "canceled"),
    ("status", "wont_do", "canceled"),
    ("status", "wip", "in_progress"),
    ("status", "doing", "in_progress"),
    ("status", "started", "in_progress"),
    ("status", "review", "in_review"),
    ("status", "reviewing", "in_review"),
    ("status", "in_qa", "in_review"),
    ("status", "qa", "in_review"),
    ("status", "backlog", "todo"),
    ("status", "new", "todo"),
    ("status", "pending", "todo"),
    ("status", "not_started", "todo"),
    ("priority", "critical", "urgent"),
    ("priority", "highest", "urgent"),
    ("priority", "p0", "urgent"),
    ("priority", "p1", "high"),
    ("priority", "p2", "medium"),
    ("priority", "normal", "medium"),
    ("priority", "med", "medium"),
    ("priority", "p3", "low"),
    ("priority", "p4", "low"),
    ("priority", "lowest", "low"),
    ("priority", "minor", "low"),
    ("priority", "no_priority", "none"),
    // A priority as a number (`"priority": 1`): Linear's and Jira's
    // numbering, where 1 is the highest and Linear's 0 is none.
    ("priority", "0", "none"),
    ("priority", "1", "urgent"),
    ("priority", "2", "high"),
    ("priority", "3", "medium"),
    ("priority", "4", "low"),
    ("priority", "5", "low"),
    // Other APIs' orders (`updated_at desc`, `-created_at`, `number`).
    ("sort", "updated_at_desc", "updated_desc"),
    ("sort", "updated", "updated_desc"),
    ("sort", "recent", "updated_desc"),
    ("sort", "newest", "created_desc"),
    ("sort", "created_at_desc", "created_desc"),
    ("sort", "created", "created_desc"),
    ("sort", "number", "number_asc"),
    ("sort", "updated_at", "updated_desc"),
    ("sort", "created_at", "created_desc"),
    ("sort", "id", "number_asc"),
    // A delete's words for what becomes of the subtasks.
    ("subtask_mode", "cascade", "delete"),
    ("subtask_mode", "recursive", "delete"),
    ("subtask_mode", "all", "delete"),
    ("subtask_mode", "keep", "promote"),
    ("subtask_mode", "detach", "promote"),
    ("subtask_mode", "orphan", "promote"),
];

/// Handles a caller writes for itself (`@me`): no member's, and no value
/// either (docs/contract.md: no sentinel for "current").
const SELF_HANDLES: [&str; 3] = ["me", "self", "myself"];

/// Whether `handle` (without `@`) is one a caller writes for itself.
pub fn is_self_handle(handle: &str) -> bool {
    SELF_HANDLES.iter().any(|h| handle.eq_ignore_ascii_case(h))
}

/// Whether `word`, where a member ref goes, is one a caller writes for
/// itself: a [self handle](is_self_handle), with or without `@`, or
/// `mine` or `i`.
pub fn is_self_word(word: &str) -> bool {
    let word = word.trim();
    let word = word.strip_prefix('@').unwrap_or(word);
    is_self_handle(word) || ["mine", "i"].iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// What a [word for oneself](is_self_word) in a list's `filters.assignee`
/// is to be instead.
pub const SELF_AS_FILTER: &str =
    "For your own tasks, set `assigned_to_me` to true instead (and leave this out).";

/// What a [word for oneself](is_self_word) in a member field of a write
/// is to be instead: `(action, field path, words)`, an item of a list as
/// `*`. The CLI does not know the caller's handle to show it: claiming is
/// what makes the caller the assignee.
pub static SELF_AS_ASSIGNEE: &[(&str, &str, &str)] = &[
    (
        "task_update",
        "assignee",
        "A word for yourself is no member ref (`@` and a handle). To take the task yourself, claim it instead: task_set_claim with its number in `numbers` and `\"claimed\": true` makes you its assignee; or give your own ref.",
    ),
    (
        "task_create",
        "tasks/*/assignee",
        "A word for yourself is no member ref (`@` and a handle). To make the new task yours, leave `assignee` out and claim it once made (task_set_claim with its number and `\"claimed\": true`); or give your own ref.",
    ),
];

const CLOSED: &str = "`closed` is `done` if the work was finished, `canceled` if it was dropped.";
const CLAIM_IS_SET_CLAIM: &str = "a claim is task_set_claim (`agentteam exec task set_claim -`): `{\"channel\": …, \"numbers\": [the task's number], \"claimed\": true}`; task_update's `assignee` gives a task to a member.";
const DELETE_IS_ITS_OWN: &str = "deleting is task_delete (`agentteam exec task delete -`, `{\"channel\": …, \"number\": …}`), for good; `\"status\": \"canceled\"` sets a task aside and keeps it.";
const DELETE_IS_FOR_GOOD: &str = "this call deletes the task for good and takes no status: to set it aside instead, task_update it to `\"status\": \"canceled\"` (`agentteam exec task update -`).";
const DELETED_IS_NO_STATUS: &str =
    "Deleting is task_delete, for good; `canceled` sets a task aside and keeps it.";
const NO_DATE_FILTER: &str = "there is no filter by time: the default `sort`, `updated_desc`, lists the tasks changed last first, so stop reading at the first whose `updated_at` is older.";
const SELF_CLAIM: &str = "to take the task yourself, claim it: task_set_claim with its number in `numbers` and `\"claimed\": true` makes you its assignee.";
const SELF_CLAIM_NEW: &str = "to make the new task yours, leave this out and claim it once made (task_set_claim with its number and `\"claimed\": true`).";
const CHECKPOINTS_PAGED: &str = "a get shows a task's newest checkpoints, and older ones a page at a time through the checkpoints section's `next` (its `checkpoints_before`); there is no count to set: drop it.";
const NO_CLAIMED_FILTER: &str = "a list has no filter by whether a task is held, by anyone or by no one: the tasks you hold are `\"filters\": {\"assigned_to_me\": true}`, another member's `\"filters\": {\"assignee\": \"@handle\"}`.";
const NO_PRIORITY_FILTER: &str =
    "there is no filter by priority: each item shows its `priority`, so read it there.";
const ADDRESS_IS_CHANNEL_AND_NUMBER: &str = "a task is named by `channel` and `number`, which its address holds (`…/demo/tasks/12` is `{\"channel\": \"demo\", \"number\": 12}`): give those instead.";
const NO_CONFIRMATION: &str = "there is no confirmation field: this call deletes the task for good as it is sent; to check first, task_get it, or preview with the CLI's `--dry-run` flag, which sends nothing.";
/// A list whose items, when it holds several, carry one field only:
/// `(action, list, the field kept, what to do with another)`. A field of
/// an item given beside such a list is told where it goes and this.
pub static SEVERAL_CARRY_ONE: &[(&str, &str, &str, &str)] = &[(
    "task_create",
    "tasks",
    "title",
    "(but a create of several tasks carries titles only: create this task alone with it, or several with `--batch`, one input a line; or set it after with task_update).",
)];

/// A field an action does not take, given `false`, where its
/// [EXPLAINED] hint for `true` would do the opposite (`"completed": false`
/// told to write `"status": "done"`): `(action, word, what to do)`.
pub static EXPLAINED_FALSE: &[(&str, &str, &str)] = &[
    ("task_update", "done", REOPEN),
    ("task_update", "completed", REOPEN),
    ("task_update", "complete", REOPEN),
    ("task_update", "closed", REOPEN),
    ("task_update", "archived", REOPEN),
    ("task_update", "canceled", REOPEN),
    ("task_update", "cancelled", REOPEN),
];

const REOPEN: &str = "a task's state is `status`; `false` here reopens it: write `\"status\": \"todo\"` (or `in_progress`).";

/// Values that ask a destructive action for a delete that keeps the item
/// (`"mode": "soft"`): there is none, and the rename a field's name
/// suggests (`subtask_mode`) would delete for good. Told [`NO_ARCHIVE`].
pub static KEEPING_WORDS: &[&str] = &[
    "soft",
    "archive",
    "archived",
    "soft_delete",
    "trash",
    "recycle",
    "hide",
    "hidden",
    "logical",
    "cancel",
    "canceled",
    "cancelled",
    "deactivate",
];

/// Whether `word` is a [keeping word](KEEPING_WORDS), whatever its case
/// and separators (`Soft-Delete`, `soft delete`).
pub fn is_keeping_word(word: &str) -> bool {
    let word = word.trim().to_ascii_lowercase().replace(['-', ' '], "_");
    KEEPING_WORDS.contains(&word.as_str())
}

/// [`NO_ARCHIVE`] as a sentence of its own, after an enum's values.
const NO_ARCHIVE_SAID: &str = "There is no soft delete or archive: a deleted task is gone for good; to set one aside, task_update it to `\"status\": \"canceled\"`.";

/// What a [keeping word](KEEPING_WORDS) is told.
pub const NO_ARCHIVE: &str = "there is no soft delete or archive: a deleted task is gone for good; to set one aside, task_update it to `\"status\": \"canceled\"`.";
const RELEASE: &str = "to release, `\"claimed\": false`; `\"claimed\": true` claims.";

/// A required field missing beside a field the caller likely put its value
/// in (an update's `parent: 2` meant as the task to change): `(action,
/// missing field, field present, what the missing one is)`, both at the
/// top of the input.
pub static MISSING_BESIDE: &[(&str, &str, &str, &str)] = &[
    (
        "task_update",
        "number",
        "parent",
        "the number of the task to change; `parent` is where it moves (its new parent's number).",
    ),
    (
        "task_update",
        "number",
        "title",
        "the number of the task to change; `title` gives it a new title. To find the number by its title's words, task_list with `query`.",
    ),
];

/// A field that takes an item's number, given words instead (`number:
/// "login bug"`, a title; or `tsk_…`, the item's id): what to say, and for
/// words the list call that finds the item by them, which the refusal
/// suggests (docs/contract.md §8.2's example).
pub struct ByWords {
    /// The field's name, the last part of its path (`numbers` for an item
    /// of that list).
    pub field: &'static str,
    /// The action that finds items by their words.
    pub tool: &'static str,
    /// The arguments of `tool` that find `words` where the input looks;
    /// `None` when the input names no place to look (no board).
    pub arguments: fn(input: &serde_json::Value, words: &str) -> Option<serde_json::Value>,
    /// Whether the text given is the item's id rather than words.
    pub is_id: fn(&str) -> bool,
    /// What the value must be, given words; then given the id.
    pub said: &'static str,
    pub said_of_id: &'static str,
}

/// The task fields that take a task's number on its board.
pub static BY_WORDS: &[ByWords] = &[
    task_by_words("number"),
    task_by_words("numbers"),
    task_by_words("parent"),
];

const fn task_by_words(field: &'static str) -> ByWords {
    ByWords {
        field,
        tool: "task_list",
        arguments: task_search,
        is_id: |text| text.starts_with("tsk_"),
        said: "the task's number on its board; to find a task by words of its title, task_list with `query`.",
        said_of_id: "the task's number on its board, not its scope_id; the answer that gave the scope_id gives `number` beside it.",
    }
}

/// A search of the input's board for `words`, tasks of any status (the
/// task meant may be done).
fn task_search(input: &serde_json::Value, words: &str) -> Option<serde_json::Value> {
    const QUERY_MAX: usize = 200;
    let channel = input.get("channel")?.as_str()?;
    if words.chars().count() > QUERY_MAX {
        return None;
    }
    Some(serde_json::json!({"channel": channel, "query": words, "status": "all"}))
}

/// The fields that name what an action acts on (a board, a task, tasks):
/// a selector (`where: {…}`) holding only these is unwrapped into the
/// input, since it selects what they select.
pub static LOCATORS: &[&str] = &["channel", "number", "numbers", "parent_task_scope"];

const STATE_IS_STATUS: &str = "a task's state is `status`: write `\"status\": \"done\"` (or `canceled`, dropped); a checklist item's `done` goes inside `checklist`.";
const SUBTASKS_LATER: &str = "subtasks are tasks of their own: create this task first, then its subtasks with a second task_create whose `parent` is its number.";
const BLOCKER_IS_TEXT: &str = "tasks have no dependencies: `blocker` says in words what blocks this one (`\"blocker\": \"waiting on #2\"`).";
const NO_TYPE: &str = "tasks have no type: say it with a label (`\"labels\": [\"bug\"]`).";
const CREATOR_IS_THE_CALLER: &str =
    "the creator is the calling agent, recorded as `created_by`; no input sets it.";
const NO_WATCHERS: &str = "tasks have no watchers: `assignee` is who works on one; drop it.";
const NO_MOVE: &str = "no task moves to another board: create it there, and set this one to `\"status\": \"canceled\"`.";
const SUBTASKS_ARE_TASKS: &str = "subtasks are tasks of their own: to make new ones, task_create them with this task's number as `parent`; to change them, task_update each (`--batch` for several; task_list with `filters.parent` lists them).";
const NO_DUE_DATE: &str =
    "tasks have no due date: say it in `description` or a checkpoint, or drop it.";
const LABELS_REPLACED: &str = "labels replaces the whole list: give every label the task is to have, the ones it keeps too (task_get shows them).";
const CHECKPOINT_IS_ITS_OWN: &str = "a checkpoint is appended by task_checkpoint (`agentteam exec task checkpoint -`, its text as `summary`), not by an update; `checklist` is the task's list of items to check, which an update replaces whole.";
const SEARCH_IS_QUERY: &str = "task_list finds tasks by words of their titles and descriptions with `query`, at the top level of the input: write `\"query\": \"…\"`.";
const ONE_TASK_PER_UPDATE: &str = "task_update changes one task, its fields at the top level (`number`, `status`, …): take them out of the list; for several tasks, one input per line with `--batch`.";
const ONE_PAGE_A_CALL: &str = "each call answers one page, at most `limit` (100) tasks: drop it, and read the next page by giving the answer's `meta.next_cursor` as `cursor` (the CLI's `--paginate` flag, with `--max-items`, reads every page).";
const NO_ESTIMATE_ON_UPDATE: &str =
    "tasks have no estimate: say it in a checkpoint (task_checkpoint's `summary`), or drop it.";
const CLOSE_SUBTASKS_TOO: &str = "an update changes one task and leaves its subtasks as they are: close each with an update of its own (one per line with `--batch`); closing this one answers `open_subtasks_match`, the list of those still open.";
const SUBTASKS_BY_MODE: &str = "what becomes of the subtasks is `subtask_mode`: `delete` deletes them too, `promote` keeps them as tasks of their own (`delete_subtasks: false` is `promote`).";
const CLAIM_IS_THE_CALLERS: &str = "task_set_claim claims for the calling agent, and only its holder releases: `\"claimed\": true` claims, `\"claimed\": false` releases; no input names the holder.";
const NO_TAKEOVER: &str = "no claim takes a task another member holds (that task fails with `task_claimed_by_other`); its holder releases it: drop it.";
const NO_RESOLUTION: &str = "there is no resolution: the status says it, `done` if the work was finished, `canceled` if it was dropped (`Won't Do`, a duplicate).";
const CLOSED_BY_STATUS: &str = "a list shows the open tasks unless `status` says otherwise: `\"status\": \"done\"` (or `canceled`) lists those; `all`, every status, with a `query`.";
const NO_APPEND: &str = "no field adds to a list: `labels`, `checklist`, `urls` and `attachments` each replace the whole list, so give every item the task is to have, the ones it keeps too (task_get shows them).";
const CHECKPOINT_CHANGES_NO_STATUS: &str = "a checkpoint changes no status: drop it, and set the task done with task_update (`agentteam exec task update -`, `\"status\": \"done\"`) as well.";
const NO_ESTIMATE: &str = "tasks have no estimate: say it in `description` or as a label (`\"labels\": [\"estimate:3\"]`), or drop it.";
const CHECKLIST_REPLACED: &str = "checklist replaces the whole list: give every item the task is to have, the ones it keeps too (task_get shows them).";

/// A route the CLI could not parse, resolved to the action it meant.
#[derive(Clone, Copy)]
pub struct RouteHint {
    pub action: &'static Action,
    /// The synonym it was found by, if any: what it sets and says.
    pub verb: Option<&'static Verb>,
}

impl RouteHint {
    /// The action, found by its own name or verb rather than a synonym.
    fn of(action: &'static Action) -> Self {
        RouteHint { action, verb: None }
    }

    /// How to use the action for what was asked; may be empty.
    pub fn how(&self) -> String {
        self.verb.map(Verb::how).unwrap_or_default()
    }
}

/// The action meant by `words`, the route words after `exec`: an action's
/// name or id in one word (`task_get`, `task.get`), a verb with dashes
/// (`set-claim`), or a synonym from [`VERBS`]; else an action's name or id
/// after another tool's words for calling one (`mcp task_list`, `tools
/// call task.list`).
pub fn route(words: &[&str]) -> Option<RouteHint> {
    route_of(words).or_else(|| {
        words
            .iter()
            .skip(1)
            .take(3)
            .find_map(|w| named(w))
            .map(RouteHint::of)
    })
}

/// A route word in snake_case: dashes as underscores, camelCase split
/// (`claimTask`, `set-claim`); a word in capitals only lowered.
fn snake(word: &str) -> String {
    let word = word.replace('-', "_");
    // camelCase is split at its capitals; a word with separators of its
    // own (`Claim_Task`) or in capitals only is lowered.
    match !word.contains('_') && word.chars().any(|c| c.is_ascii_lowercase()) {
        true => crate::case::camel_to_snake(&word)
            .trim_start_matches('_')
            .to_string(),
        false => word.to_ascii_lowercase(),
    }
}

/// `word` without the domain after its verb (`claim_task`, `list_tasks`).
fn without_domain<'a>(domain: &str, word: &'a str) -> Option<&'a str> {
    word.strip_suffix(&format!("_{domain}s"))
        .or_else(|| word.strip_suffix(&format!("_{domain}")))
        .filter(|verb| !verb.is_empty())
}

/// The action an action's name or id in one word names, its words joined
/// by a dash too (`task-list`).
fn named(word: &str) -> Option<&'static Action> {
    let joined = word.replace('-', "_");
    ACTIONS
        .iter()
        .copied()
        .find(|a| a.name() == word || a.id() == word || a.name() == joined)
}

fn route_of(words: &[&str]) -> Option<RouteHint> {
    let first = *words.first()?;
    if let Some(action) = named(first) {
        return Some(RouteHint::of(action));
    }
    let joined = snake(first);
    // A verb without its domain (`exec list`): the one domain it is a verb
    // of, when only one is.
    let mut owners = ACTIONS.iter().copied().filter(|a| a.verb == joined);
    if let (Some(action), None) = (owners.next(), owners.next()) {
        return Some(RouteHint::of(action));
    }
    // A synonym without its domain (`exec mine`): the one domain that has
    // it, when only one has.
    if !super::domains().contains(&first) {
        let mut owners = VERBS.iter().filter(|v| v.word == joined);
        if let (Some(verb), None) = (owners.next(), owners.next()) {
            return route_of(&[verb.domain, verb.word]);
        }
    }
    // A verb and its domain in one word, as tools are often named
    // (`claim_task`, `claimTask`, `list_tasks`, `task_claim`).
    if words.len() == 1 || !super::domains().contains(&first) {
        let split = super::domains().into_iter().find_map(|domain| {
            let verb = joined
                .strip_prefix(&format!("{domain}_"))
                .or_else(|| without_domain(domain, &joined))?;
            route_of(&[domain, verb])
        });
        if split.is_some() {
            return split;
        }
    }
    // The verb with its domain after it (`task claim_task`), or in
    // camelCase (`task claimTask`).
    let word = snake(words.get(1)?);
    let word = without_domain(first, &word).unwrap_or(&word).to_string();
    // The domain written twice (`task task_update`, `task task.update`).
    let word = match word
        .strip_prefix(&format!("{first}_"))
        .or_else(|| word.strip_prefix(&format!("{first}.")))
    {
        Some(verb) => verb.to_string(),
        None => word,
    };
    if let Some(action) = find(first, &word) {
        return Some(RouteHint::of(action));
    }
    let verb = VERBS.iter().find(|v| v.domain == first && v.word == word)?;
    find(verb.domain, verb.meant).map(|action| RouteHint {
        action,
        verb: Some(verb),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find_by_name;

    #[test]
    fn every_synonym_names_a_real_route_or_field() {
        for verb in VERBS {
            let action = find(verb.domain, verb.meant);
            assert!(action.is_some(), "{} {}", verb.domain, verb.meant);
            assert!(
                find(verb.domain, verb.word).is_none(),
                "{} is a real verb",
                verb.word
            );
            // What a word sets is a field of its action, with a JSON value.
            if let Some((field, value)) = verb.sets {
                assert!(
                    action.unwrap().cached_input_schema()["properties"]
                        .get(field)
                        .is_some(),
                    "{field}"
                );
                serde_json::from_str::<serde_json::Value>(value).expect(value);
            }
        }
        for (word, field, action) in FIELDS {
            let mut targeted = false;
            for a in ACTIONS {
                let mut props = Vec::new();
                super::super::schema::walk_properties(a.cached_input_schema(), "", &mut props);
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
    fn every_value_set_is_of_its_fields_values() {
        for (action, field, values, word) in VALUE_SETS {
            let action = find_by_name(action).expect("a real action");
            let allowed = action.cached_input_schema()["properties"][*field]["enum"]
                .as_array()
                .expect("an enum field")
                .clone();
            for value in values.iter().chain([word]) {
                assert!(allowed.contains(&serde_json::json!(value)), "{value}");
            }
        }
    }

    #[test]
    fn every_explained_word_is_no_field_of_its_action() {
        for (action, word, _) in EXPLAINED {
            let action = find_by_name(action).expect("a real action");
            let path = word.replace('*', "0");
            assert!(
                !crate::validate::names_a_field(action, &path),
                "{word} is a field of {}",
                action.name()
            );
            // Below the top, the entry's place is one the input has.
            if let Some((parent, _)) = path.rsplit_once('/') {
                let parent = parent.trim_end_matches("/0");
                assert!(
                    crate::validate::names_a_field(action, parent),
                    "{word}: no {parent} in {}",
                    action.name()
                );
            }
        }
    }

    #[test]
    fn resolves_names_ids_dashes_and_synonyms() {
        let name = |words: &[&str]| route(words).map(|h| h.action.name());
        assert_eq!(name(&["task_get"]).as_deref(), Some("task_get"));
        assert_eq!(name(&["task-get"]).as_deref(), Some("task_get"));
        assert_eq!(
            name(&["task", "task-update"]).as_deref(),
            Some("task_update")
        );
        assert_eq!(name(&["task", "task.list"]).as_deref(), Some("task_list"));
        assert_eq!(name(&["task.set_claim"]).as_deref(), Some("task_set_claim"));
        assert_eq!(
            name(&["task", "set-claim"]).as_deref(),
            Some("task_set_claim")
        );
        assert_eq!(name(&["task", "claim"]).as_deref(), Some("task_set_claim"));
        assert_eq!(name(&["task", "search"]).as_deref(), Some("task_list"));
        // A verb with its domain in one word, as tools are often named.
        for words in [
            &["task", "claim_task"][..],
            &["task", "claimTask"],
            &["task", "claim_tasks"],
            &["claim_task"],
            &["task_claim"],
            &["task", "ClaimTask"],
        ] {
            assert_eq!(
                route(words).map(|h| (h.action.name(), h.verb.map(|v| v.word))),
                Some(("task_set_claim".to_string(), Some("claim"))),
                "{words:?}"
            );
        }
        assert_eq!(name(&["task", "list_tasks"]).as_deref(), Some("task_list"));
        assert_eq!(name(&["task", "getTask"]).as_deref(), Some("task_get"));
        assert_eq!(name(&["task", "my_tasks"]).as_deref(), Some("task_list"));
        assert_eq!(name(&["task", "task"]), None);
        assert_eq!(name(&["task", "frobnicate"]), None);
        assert_eq!(name(&[]), None);
    }
}
