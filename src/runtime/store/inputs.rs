//! The typed inputs of the store's task operations: each action's
//! validated, canonical snake_case input deserialised into a struct
//! ([`typed`]), with what the operations derive from it (a create's
//! canonical payload for its idempotency receipt, an update's changes, a
//! list's view, order and cursor digest).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::*;

/// Deserialises validated input into an operation's typed input. The input
/// passed the action's schema, so a failure here is a schema/type mismatch
/// (a bug), reported without echoing the input.
pub fn typed<T: for<'de> Deserialize<'de>>(input: Value) -> Result<T, Failure> {
    serde_json::from_value(input).map_err(|e| {
        tracing::error!(error = %e, "validated input did not fit the typed input");
        Failure::new(
            code::SERVER_ERROR,
            "The server could not read the validated input.",
        )
    })
}

/// Deserialises a present field as `Some(value)` (null included), so
/// `Option<Option<T>>` tells omitted (`None`) from null (`Some(None)`).
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChecklistItem {
    pub text: String,
    #[serde(default)]
    pub done: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attachment {
    pub name: String,
    pub url: String,
    #[serde(default)]
    pub media_type: Option<String>,
    #[serde(default)]
    pub size_bytes: Option<i64>,
}

/// `task_get`'s input: one task, and where its checkpoints section starts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskLocator {
    pub channel: String,
    pub number: i64,
    /// Only checkpoints with a smaller id (older ones).
    #[serde(default)]
    pub checkpoints_before: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeRef {
    /// Only task scopes exist; the schema admits `task` alone.
    pub kind: ScopeKind,
    pub scope_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeKind {
    Task,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewTask {
    pub title: String,
    pub description: Option<String>,
    pub status: Option<String>,
    pub priority: Option<String>,
    pub assignee: Option<String>,
    pub labels: Option<Vec<String>>,
    pub checklist: Option<Vec<ChecklistItem>>,
    pub urls: Option<Vec<String>>,
    pub attachments: Option<Vec<Attachment>>,
    pub blocker: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateInput {
    pub channel: Option<String>,
    pub parent: Option<i64>,
    pub parent_task_scope: Option<ScopeRef>,
    pub tasks: Vec<NewTask>,
    pub target: Option<String>,
    pub idempotency_key: Option<String>,
    /// Digest of the canonical payload (everything but the key); see [`CreateInput::from_input`].
    #[serde(skip)]
    pub payload_digest: String,
}

impl CreateInput {
    /// Reads validated create input and digests its canonical payload: the
    /// whole input minus `idempotency_key`, locator and target included, as
    /// JSON with sorted keys, so a replay matches only the same intent.
    /// Semantically identical inputs digest alike (§7.2): a field written
    /// with its default is left out, and labels (a set) are sorted. An input
    /// that wrote neither digests exactly as before this rule, so its stored
    /// receipts still replay; one that did now digests as its canonical form.
    pub fn from_input(input: Value) -> Result<CreateInput, Failure> {
        // Validation already wrote an integral `1.0` as `1`, so the two are
        // the same intent and digest alike.
        let mut payload = input.clone();
        if let Some(object) = payload.as_object_mut() {
            object.remove("idempotency_key");
        }
        if let Some(tasks) = payload.get_mut("tasks").and_then(Value::as_array_mut) {
            tasks.iter_mut().for_each(canonical_new_task);
        }
        let mut create: CreateInput = typed(input)?;
        create.payload_digest = hex(&Sha256::digest(canonical_json(&payload).as_bytes()));
        Ok(create)
    }
}

/// One `tasks` item of a create as the digest sees it: the fields written
/// with the value the store would default them to left out, labels sorted.
fn canonical_new_task(task: &mut Value) {
    use crate::registry::task::fields::{PRIORITIES, STATUSES};
    let Some(task) = task.as_object_mut() else {
        return;
    };
    task.retain(|field, value| match field.as_str() {
        "status" => value.as_str() != Some(STATUSES[0]),
        "priority" => value.as_str() != Some(PRIORITIES[0]),
        "labels" | "checklist" | "urls" | "attachments" => {
            !value.as_array().is_some_and(Vec::is_empty)
        }
        _ => !value.is_null(),
    });
    if let Some(labels) = task.get_mut("labels").and_then(Value::as_array_mut) {
        labels.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    }
    for item in task
        .get_mut("checklist")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(item) = item.as_object_mut()
            && item.get("done") == Some(&Value::Bool(false))
        {
            item.remove("done");
        }
    }
    for attachment in task
        .get_mut("attachments")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(attachment) = attachment.as_object_mut() {
            attachment.retain(|_, value| !value.is_null());
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateInput {
    pub channel: String,
    pub number: i64,
    pub title: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub description: Option<Option<String>>,
    pub status: Option<String>,
    pub priority: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub assignee: Option<Option<String>>,
    pub labels: Option<Vec<String>>,
    pub checklist: Option<Vec<ChecklistItem>>,
    pub urls: Option<Vec<String>>,
    pub attachments: Option<Vec<Attachment>>,
    #[serde(default, deserialize_with = "present")]
    pub blocker: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub parent: Option<Option<i64>>,
    pub expected_updated_at: Option<String>,
}

impl UpdateInput {
    /// `expected_updated_at` as microseconds in UTC, whatever its offset;
    /// the schema's pattern admits impossible dates (month 13), which are
    /// refused here.
    pub fn expected_micros(&self) -> Result<Option<i64>, Failure> {
        match &self.expected_updated_at {
            None => Ok(None),
            Some(text) => clock::parse(text).map(Some).ok_or_else(|| {
                Failure::invalid_input(
                    [(
                        "expected_updated_at".to_string(),
                        "Must be a real RFC3339 time.".to_string(),
                    )]
                    .into(),
                )
            }),
        }
    }

    /// Checks `expected_updated_at` against the task's `current` updated_at
    /// on `board`. `updated_at` only grows and is always shown with
    /// microseconds, so a value that differs and is later than the current
    /// one, or has fewer than six fractional digits, was never the task's:
    /// that is refused as a value to copy exactly, not as a change since.
    /// Any other difference is a change since.
    pub fn guard(&self, board: &str, current: i64) -> Result<(), Failure> {
        let (Some(expected), Some(text)) = (self.expected_micros()?, &self.expected_updated_at)
        else {
            return Ok(());
        };
        if expected == current {
            Ok(())
        } else if expected > current || !clock::is_exact(text) {
            Err(refusals::inexact_expected(
                board,
                self.number,
                &clock::format(current),
            ))
        } else {
            Err(refusals::update_conflict(
                board,
                self.number,
                &clock::format(current),
            ))
        }
    }

    /// The changes this update asks for, in [`Field::ALL`] order. The
    /// destructuring names every field, so a field added to the input
    /// without a change here does not compile.
    pub fn changes(&self) -> Vec<Change<'_>> {
        let UpdateInput {
            channel: _,
            number: _,
            title,
            description,
            status,
            priority,
            assignee,
            labels,
            checklist,
            urls,
            attachments,
            blocker,
            parent,
            expected_updated_at: _,
        } = self;
        [
            title.as_deref().map(Change::Title),
            description
                .as_ref()
                .map(|d| Change::Description(d.as_deref())),
            status.as_deref().map(Change::Status),
            priority.as_deref().map(Change::Priority),
            assignee.as_ref().map(|a| Change::Assignee(a.as_deref())),
            labels.as_deref().map(Change::Labels),
            checklist.as_deref().map(Change::Checklist),
            urls.as_deref().map(Change::Urls),
            attachments.as_deref().map(Change::Attachments),
            blocker.as_ref().map(|b| Change::Blocker(b.as_deref())),
            parent.map(Change::Parent),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// One field change of a `task_update`; `None` clears a nullable field.
/// Each engine matches these exhaustively to its columns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change<'a> {
    Title(&'a str),
    Description(Option<&'a str>),
    Status(&'a str),
    Priority(&'a str),
    /// A member ref.
    Assignee(Option<&'a str>),
    Labels(&'a [String]),
    Checklist(&'a [ChecklistItem]),
    Urls(&'a [String]),
    Attachments(&'a [Attachment]),
    Blocker(Option<&'a str>),
    /// A task number on the same board.
    Parent(Option<i64>),
}

impl Change<'_> {
    pub fn field(&self) -> Field {
        match self {
            Change::Title(_) => Field::Title,
            Change::Description(_) => Field::Description,
            Change::Status(_) => Field::Status,
            Change::Priority(_) => Field::Priority,
            Change::Assignee(_) => Field::Assignee,
            Change::Labels(_) => Field::Labels,
            Change::Checklist(_) => Field::Checklist,
            Change::Urls(_) => Field::Urls,
            Change::Attachments(_) => Field::Attachments,
            Change::Blocker(_) => Field::Blocker,
            Change::Parent(_) => Field::Parent,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetClaimInput {
    pub channel: String,
    pub numbers: Vec<i64>,
    pub claimed: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointInput {
    pub channel: String,
    pub number: i64,
    pub summary: String,
    /// Trimmed by the registry's canonical form; scoped to the agent and
    /// the task.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubtaskMode {
    Promote,
    Delete,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteInput {
    pub channel: String,
    pub number: i64,
    pub subtask_mode: Option<SubtaskMode>,
}

/// `task_list`'s status view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum View {
    Active,
    Todo,
    InProgress,
    InReview,
    Done,
    Canceled,
    All,
}

impl View {
    /// The statuses the view admits; `None` for every status.
    pub fn statuses(self) -> Option<&'static [&'static str]> {
        use crate::registry::task::fields::{ACTIVE_STATUSES, STATUSES};
        match self {
            View::Active => Some(ACTIVE_STATUSES),
            View::Todo => Some(&STATUSES[0..1]),
            View::InProgress => Some(&STATUSES[1..2]),
            View::InReview => Some(&STATUSES[2..3]),
            View::Done => Some(&STATUSES[3..4]),
            View::Canceled => Some(&STATUSES[4..5]),
            View::All => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sort {
    UpdatedDesc,
    CreatedDesc,
    NumberAsc,
    Relevance,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListFilters {
    assignee: Option<String>,
    assigned_to_me: Option<bool>,
    parent: Option<i64>,
    labels: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListInput {
    channel: String,
    query: Option<String>,
    status: Option<View>,
    include_subtasks: Option<bool>,
    limit: Option<i64>,
    cursor: Option<String>,
    sort: Option<Sort>,
    filters: Option<ListFilters>,
}

/// A label filter's labels as the store matches them: ASCII letters in
/// either case, as GitHub's filter does (`bug` finds `Bug`), so folded,
/// sorted and each once.
pub fn fold_labels(labels: &[String]) -> Vec<String> {
    let mut folded: Vec<String> = labels.iter().map(|l| l.to_ascii_lowercase()).collect();
    folded.sort();
    folded.dedup();
    folded
}

/// A `task_list` request with every default applied and its cursor decoded.
#[derive(Debug, Clone)]
pub struct ListQuery {
    pub channel: String,
    /// The trimmed query when searching; `None` when browsing.
    pub search: Option<String>,
    pub view: View,
    pub include_subtasks: bool,
    pub sort: Sort,
    /// A member ref; `assigned_to_me` resolves to the caller's ref.
    pub assignee: Option<String>,
    /// Only the direct subtasks of this task number.
    pub parent: Option<i64>,
    pub labels: Vec<String>,
    pub limit: i64,
    /// Where the previous page ended.
    pub after: Option<After>,
    /// Why the cursor given cannot continue this list: said by the store
    /// after the board, parent and assignee are found, so that a mistyped
    /// board is named as such (with candidates), not as a stale cursor
    /// (see [`ListQuery::cursor_holds`]).
    pub cursor_refused: Option<Failure>,
    /// Binds cursors to this collection and order (everything but limit and cursor).
    pub digest: String,
}

impl ListQuery {
    /// The SQL condition on task `t` that names the rows of the list on
    /// board `board_id`, each value written by `bind`: the board's tasks,
    /// or with `filters.parent` that parent's subtasks alone. A subtask is
    /// always on its parent's board (no change moves a task to another),
    /// so the parent names them; with the board named too, SQLite walked
    /// the board's index in page order and kept the subtasks, and
    /// PostgreSQL with statistics behind the board ANDed the subtasks'
    /// index with a scan of the board's (docs/performance.md, "Query
    /// plans").
    pub fn rows_condition(&self, board_id: i64, mut bind: impl FnMut(i64) -> String) -> String {
        match self.parent {
            Some(parent) => {
                let (board, parent) = (bind(board_id), bind(parent));
                format!(
                    "t.parent_id = (SELECT x.id FROM tasks x WHERE x.channel_id = {board} \
                     AND x.number = {parent} AND x.deleted_at IS NULL)"
                )
            }
            None => format!("t.channel_id = {}", bind(board_id)),
        }
    }

    pub fn from_input(principal: &Principal, input: Value) -> Result<ListQuery, Failure> {
        let input: ListInput = typed(input)?;
        let search = input
            .query
            .map(|q| q.trim().to_string())
            .filter(|q| !q.is_empty());
        let filters = input.filters.unwrap_or_default();
        let mine = filters.assigned_to_me == Some(true);
        let assignee = if mine {
            Some(principal.member_ref())
        } else {
            filters.assignee
        };
        let mut labels = filters.labels.unwrap_or_default();
        labels.sort();
        // The digest keeps the labels as given, so cursors of earlier
        // queries stay valid.
        let folded = fold_labels(&labels);
        let sort = input.sort.unwrap_or(if search.is_some() {
            Sort::Relevance
        } else {
            Sort::UpdatedDesc
        });
        let view = input.status.unwrap_or(View::Active);
        // The mine view answers "what do I hold", and an agent may hold
        // only subtasks: it lists them unless the caller says otherwise.
        // So does a parent's: its direct subtasks are all it lists.
        let parent = filters.parent;
        let include_subtasks = input.include_subtasks.unwrap_or(mine || parent.is_some());
        let mut bound = json!({
            "workspace": principal.workspace_id,
            "channel": input.channel,
            "search": search,
            "view": view,
            "include_subtasks": include_subtasks,
            "sort": sort,
            "assignee": assignee,
            "labels": labels,
        });
        // Only when given, so cursors of queries without it stay valid.
        if let Some(parent) = parent {
            bound["parent"] = json!(parent);
        }
        let digest = hex(&Sha256::digest(canonical_json(&bound).as_bytes())[..16]);
        let (after, cursor_refused) = match input
            .cursor
            .as_deref()
            .map(|text| cursor::decode(text, &digest, sort))
        {
            Some(Ok(after)) => (Some(after), None),
            Some(Err(refused)) => (None, Some(refused)),
            None => (None, None),
        };
        Ok(ListQuery {
            channel: input.channel,
            search,
            view,
            include_subtasks,
            sort,
            assignee,
            parent,
            labels: folded,
            limit: input.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT),
            after,
            cursor_refused,
            digest,
        })
    }

    /// The cursor's refusal, if it was refused: for the store to return
    /// once what the query names has been found.
    pub fn cursor_holds(&self) -> Result<(), Failure> {
        self.cursor_refused.clone().map_or(Ok(()), Err)
    }
}
