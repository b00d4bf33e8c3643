//! Every failure the product can report, as one registry of stable error
//! codes (§8.2), and the `Failure` value both binaries carry to their one
//! renderer. A code decides its exit class, HTTP status and retryability in
//! exactly one place: the table below. `agentteam exec --error-schema` and the
//! docs are generated from it.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The process exit status classes (README "Exit status").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitClass {
    Success = 0,
    Internal = 1,
    Usage = 2,
    Credentials = 3,
    Rejected = 4,
    Transient = 5,
}

impl ExitClass {
    pub const ALL: [ExitClass; 6] = [
        ExitClass::Success,
        ExitClass::Internal,
        ExitClass::Usage,
        ExitClass::Credentials,
        ExitClass::Rejected,
        ExitClass::Transient,
    ];

    pub fn code(self) -> i32 {
        self as i32
    }

    /// How bad the class is, for the one status a `--batch` ends with (its
    /// worst line's): internal > credentials > transient > rejected >
    /// usage, as [`ExitClass::meaning`] says. Not the exit numbers' order,
    /// which is why the class is not `Ord`.
    pub fn severity(self) -> u8 {
        match self {
            ExitClass::Success => 0,
            ExitClass::Usage => 1,
            ExitClass::Rejected => 2,
            ExitClass::Transient => 3,
            ExitClass::Credentials => 4,
            ExitClass::Internal => 5,
        }
    }

    pub fn meaning(self) -> &'static str {
        match self {
            ExitClass::Success => {
                "success; `task set_claim` with per-task failures still exits 0 (they are in `data.failures`), while `--batch` exits with its worst line's status (internal > credentials > transient > rejected > usage)"
            }
            ExitClass::Internal => "internal error (a bug)",
            ExitClass::Usage => "usage error or invalid input; nothing was sent",
            ExitClass::Credentials => "credentials missing or rejected (after the one refresh)",
            ExitClass::Rejected => {
                "the server rejected the request (not found, conflict, forbidden, validation); also `forbidden` by the profile's --max-permission cap, before anything is sent"
            }
            ExitClass::Transient => {
                "transient: network, timeout, rate limit, 5xx; `retryable: true`: retry later"
            }
        }
    }

    /// The class a server answer falls in, decided by HTTP status alone.
    pub fn from_http_status(status: u16) -> ExitClass {
        match status {
            200..=299 => ExitClass::Success,
            401 => ExitClass::Credentials,
            408 | 429 | 500..=599 => ExitClass::Transient,
            _ => ExitClass::Rejected,
        }
    }
}

impl ErrorCode {
    /// The exit status when the server, not the CLI, answers this code,
    /// where that differs from [`ErrorCode::class`]'s: input the CLI
    /// refuses before sending is exit 2, the same refusal from the server
    /// (after sending) exit 4, as its HTTP status says.
    pub fn exit_status_from_server(&self) -> Option<i32> {
        // Only input refusals keep their code from the server; any other
        // code answered with a status of another class gives way to that
        // status's own code (a 500 `internal_error` is `server_error`).
        if self.http_status == 0 || self.class != ExitClass::Usage {
            return None;
        }
        let status = ExitClass::from_http_status(self.http_status).code();
        (status != self.class.code()).then_some(status)
    }
}

/// One registered error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode {
    pub code: &'static str,
    /// Exit class when this code ends an `agentteam` invocation.
    pub class: ExitClass,
    /// HTTP status when the runtime answers with this code (0: never sent by the runtime).
    pub http_status: u16,
    pub retryable: bool,
    pub description: &'static str,
}

macro_rules! error_codes {
    ($( $ident:ident = $code:literal, $class:ident, $status:literal, $retryable:literal, $doc:literal; )*) => {
        /// The stable error codes, one constant each.
        pub mod code {
            use super::{ErrorCode, ExitClass};
            $( pub const $ident: ErrorCode = ErrorCode {
                code: $code, class: ExitClass::$class, http_status: $status,
                retryable: $retryable, description: $doc,
            }; )*
        }
        /// Every error code, in documentation order.
        pub static ERROR_CODES: &[ErrorCode] = &[$(code::$ident),*];
    };
}

error_codes! {
    USAGE_ERROR = "usage_error", Usage, 0, false,
        "The command line is malformed (unknown flag, missing argument). Fix the command; see `--help`.";
    INVALID_JSON = "invalid_json", Usage, 400, false,
        "The input is not one JSON object, or gives a key twice in one object (over HTTP: a body that is not, or a query string that is not URL-encoded UTF-8). Send exactly one JSON object, each key once.";
    INPUT_TOO_LARGE = "input_too_large", Usage, 413, false,
        "The input exceeds the size limit. Send less, or split a batch.";
    INVALID_INPUT = "invalid_input", Usage, 422, false,
        "The input breaks the action's schema or rules; `field_errors` names each bad field. Correct those fields.";
    CREDENTIALS_MISSING = "credentials_missing", Credentials, 0, false,
        "No profile, workspace, agent or token is configured. Run `agentteam auth login`.";
    CREDENTIAL_STORE_INSECURE = "credential_store_insecure", Credentials, 0, false,
        "The credential store is not private: another user owns it, group or others can read the file or write to its directory. The message names the fix; nothing is chmodded for you.";
    CREDENTIAL_STORE_INVALID = "credential_store_invalid", Credentials, 0, false,
        "The credential store cannot be read or parsed, or is not a regular file. Repair it or log in again.";
    CREDENTIAL_PROCESS_FAILED = "credential_process_failed", Credentials, 0, false,
        "The profile's credential_process failed, hung or printed no token. Check the process.";
    UNAUTHORIZED = "unauthorized", Credentials, 401, false,
        "The token is missing, invalid, expired or revoked (after the one refresh). Log in again.";
    FORBIDDEN = "forbidden", Rejected, 403, false,
        "The credentials may not act here: another workspace's or agent's path, or an action above the token's scope or above the cap its profile sets with `auth login --max-permission` (`details` names both classes). Use a profile or token that may.";
    NOT_FOUND = "not_found", Rejected, 404, false,
        "No such route on the server. Check the profile's api_url (`agentteam auth status`) and that the server runs this version.";
    METHOD_NOT_ALLOWED = "method_not_allowed", Rejected, 405, false,
        "The route does not accept this HTTP method. Check api_url points at an Agent Runtime API of this version.";
    CHANNEL_NOT_FOUND = "channel_not_found", Rejected, 404, false,
        "No board with that channel name that this agent may use (a private board it is not a member of answers the same). Use one of `candidates`, the boards this agent may use, nearest first.";
    TASK_NOT_FOUND = "task_not_found", Rejected, 404, false,
        "No live task with that number on the board (it may have been deleted). `candidates` lists the other boards with a live task of that number (as `channel`), then the live tasks it may have meant.";
    PARENT_NOT_FOUND = "parent_not_found", Rejected, 404, false,
        "The parent task does not exist on the board or is deleted. `candidates` lists the live tasks it may have meant (for a create or a list, first the other boards with a live task of that number, as `channel`); pick one, or list the board.";
    TASK_SCOPE_NOT_FOUND = "task_scope_not_found", Rejected, 404, false,
        "parent_task_scope names no live task in this workspace. `candidates` lists boards to find the parent's scope_id on, or give channel and parent instead.";
    TASK_SCOPE_CLOSED = "task_scope_closed", Rejected, 409, false,
        "parent_task_scope names a task that is done or canceled; a task scope takes subtasks only while its task is active (todo, in_progress, in_review). Give channel and parent instead (the message names both), or reopen the task with task_update.";
    ASSIGNEE_NOT_FOUND = "assignee_not_found", Rejected, 422, false,
        "The member ref names no agent in this workspace, or, for a task on a private board, no member of the board. `candidates` lists the nearest member refs (the board's members); use one, or leave the task unassigned.";
    TARGET_CONFLICT = "target_conflict", Rejected, 422, false,
        "target resolves to a different board than the create locator. Make channel and target name the same board.";
    INVALID_PARENT = "invalid_parent", Rejected, 422, false,
        "The requested parent would make a task its own ancestor. Choose a parent outside the task's subtree.";
    CURSOR_INVALID = "cursor_invalid", Rejected, 400, false,
        "The cursor is malformed or belongs to another query or filter set. To go on, send the inputs of the call that answered it, unchanged but `limit`; else restart without a cursor.";
    SUBTASK_MODE_REQUIRED = "subtask_mode_required", Rejected, 422, false,
        "The task has subtasks. Choose subtask_mode `promote` (keep them) or `delete` (remove them).";
    NOT_TASK_CREATOR = "not_task_creator", Rejected, 403, false,
        "Only the agent that created a task may delete it. Ask its creator, or close it with task_update instead.";
    SUBTASK_CREATOR_MISMATCH = "subtask_creator_mismatch", Rejected, 403, false,
        "Recursive delete needs every descendant to have the same creator. Use `promote`.";
    TASK_UPDATE_CONFLICT = "task_update_conflict", Rejected, 409, false,
        "The task changed since expected_updated_at. Read it again with task_get and retry.";
    IDEMPOTENCY_CONFLICT = "idempotency_conflict", Rejected, 409, false,
        "The idempotency_key was already used with a different payload. Use a new key.";
    CALLBACK_NOT_ACTIVE = "callback_not_active", Rejected, 422, false,
        "idempotency_key is accepted only during an active workflow callback of this agent. Send the request without it.";
    TASK_CLAIMED_BY_OTHER = "task_claimed_by_other", Rejected, 409, false,
        "Per-task failure of task_set_claim: another member holds the task. Leave it, or ask the holder to release it.";
    NOT_ASSIGNEE = "not_assignee", Rejected, 409, false,
        "Per-task failure of task_set_claim: only the assignee may release a task. Leave it claimed, or ask the assignee.";
    CREDENTIAL_PROCESS_UNAVAILABLE = "credential_process_unavailable", Transient, 0, true,
        "The profile's credential_process said its failure is passing (its store or server is unavailable; it printed an error with `retryable: true`). Retry shortly; the credentials are not at fault.";
    RATE_LIMITED = "rate_limited", Transient, 429, true,
        "Too many requests. Retry after the delay the server gave.";
    SERVER_ERROR = "server_error", Transient, 500, true,
        "The server failed or is unavailable. Retry later.";
    NETWORK_ERROR = "network_error", Transient, 0, true,
        "The server could not be reached (refused, DNS, TLS, connection reset). Check api_url and retry.";
    TIMEOUT = "timeout", Transient, 0, true,
        "The server did not answer within the timeout. Retry, or raise --timeout.";
    INVALID_RESPONSE = "invalid_response", Transient, 0, true,
        "The server's answer was not the expected JSON. Retry; report it if it persists.";
    REQUEST_REJECTED = "request_rejected", Rejected, 400, false,
        "The server refused the request without a recognised error body. Check api_url points at an Agent Runtime API; do not retry unchanged.";
    INTERNAL_ERROR = "internal_error", Internal, 500, false,
        "A bug in agentteam. Please report it with the command that caused it.";
}

/// An input path as an error repeats it: at most [`crate::text::ECHO_LIMIT`]
/// characters, so a 300 KB field name is not sent back (several times).
fn echo(path: &str) -> String {
    crate::text::clip(path, crate::text::ECHO_LIMIT).into_owned()
}

/// Looks up a registered code by name.
pub fn lookup(code: &str) -> Option<&'static ErrorCode> {
    ERROR_CODES.iter().find(|c| c.code == code)
}

/// An advisory next call (§8.2); it never bypasses authorization.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestedAction {
    pub tool: String,
    pub arguments: Value,
    /// The exact command line that runs `tool`, input on stdin. The CLI
    /// writes it when it prints the error; the runtime leaves it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// The most candidates an error document carries (§5.2).
pub const MAX_CANDIDATES: usize = 10;

/// Tasks offered as candidates, in all (the other boards with the number
/// and the board's nearest together): each carries its title, so fewer of
/// them, and the error stays small enough to read whole (`task_list` finds
/// the rest).
pub const MAX_TASK_CANDIDATES: usize = 3;

/// The most of a title a task candidate repeats: enough to recognise it,
/// its start and end kept.
pub const CANDIDATE_TITLE_CHARS: usize = 40;

/// A task candidate's title as a candidate repeats it: cut to
/// `CANDIDATE_TITLE_CHARS`.
pub fn candidate_title(title: &str) -> String {
    crate::text::clip_middle(title, CANDIDATE_TITLE_CHARS).into_owned()
}

/// One value a failing input field could take instead (§5.2): a board
/// name, a member ref, a task number, or for an unknown field its nearest
/// known name. Candidates come nearest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The input path the value is for, e.g. `channel` or `tasks/0/assignee`.
    pub field: String,
    pub value: Value,
    /// A task candidate's title, to tell it apart without a read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// An expected product failure, as both binaries report it.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub code: String,
    pub message: String,
    pub retryable: bool,
    pub field_errors: BTreeMap<String, String>,
    /// Boxed: it is rare, and a `Failure` travels in every `Result` of the
    /// product, where its size is paid on the success path too.
    pub suggested_action: Option<Box<SuggestedAction>>,
    /// Structured facts about the failure a caller can act on without
    /// parsing the message, e.g. a conflict's `current_updated_at`.
    pub details: BTreeMap<String, Value>,
    /// What the failing field could be instead, nearest first, at most
    /// [`MAX_CANDIDATES`]; read them with [`Failure::candidate_list`].
    /// Behind one thin pointer, absent when empty: a `Failure` travels in
    /// every `Result`, so it stays small (see `suggested_action`).
    pub candidates: Option<Box<Vec<Candidate>>>,
    /// Exit class for the CLI.
    pub class: ExitClass,
    /// HTTP status for the runtime.
    pub http_status: u16,
}

/// `said` ended as a sentence, then `more`: a server's message without its
/// full stop does not run into the hint the CLI adds (`expired The token
/// of profile …`).
pub fn followed_by(said: &str, more: &str) -> String {
    let said = said.trim_end();
    if said.is_empty() {
        return more.to_string();
    }
    let stop = if said.ends_with(['.', '!', '?']) {
        ""
    } else {
        "."
    };
    format!("{said}{stop} {more}")
}

/// One problem at paths of one shape (`tasks/*/name`), and those paths
/// with their list index.
struct Repeats {
    shape: Option<String>,
    problem: String,
    paths: Vec<(String, Option<usize>)>,
}

/// How many items of a list may each say one problem before it is said
/// once for all of them ([`said_once`]).
const REPEATS_LISTED: usize = 3;

/// `field_errors` with a mistake made in more than [`REPEATS_LISTED`]
/// items of a list (fifty tasks each with `name` for `title`) said once,
/// at its first item, naming the others by index: fifty copies of one
/// sentence cost an agent's context and say nothing more. A few stay
/// listed, each under its own path. And whether any was said once.
fn said_once(
    field_errors: BTreeMap<String, String>,
    is_list: &impl Fn(&str) -> bool,
    cut: bool,
) -> (BTreeMap<String, String>, bool) {
    let mut groups: Vec<Repeats> = Vec::new();
    for (path, problem) in field_errors {
        let (shape, index) = item_shape(&path, is_list);
        let same = |g: &&mut Repeats| shape.is_some() && g.shape == shape && g.problem == problem;
        match groups.iter_mut().find(same) {
            Some(group) => group.paths.push((path, index)),
            None => groups.push(Repeats {
                shape,
                problem,
                paths: vec![(path, index)],
            }),
        }
    }
    let repeated = groups.iter().any(|g| g.paths.len() > REPEATS_LISTED);
    let said = groups
        .into_iter()
        .flat_map(
            |Repeats {
                 problem, mut paths, ..
             }| {
                if paths.len() <= REPEATS_LISTED {
                    return paths
                        .into_iter()
                        .map(|(path, _)| (path, problem.clone()))
                        .collect::<Vec<_>>();
                }
                // Paths come in text order (`tasks/10` before `tasks/3`).
                paths.sort_by_key(|(_, index)| *index);
                let (first, _) = paths.remove(0);
                let indexes: Option<Vec<usize>> = paths.iter().map(|(_, i)| *i).collect();
                let more = if cut {
                    ", and maybe at items past the problems this answer names"
                } else {
                    ""
                };
                let also = match indexes {
                    Some(indexes) => {
                        format!("Also at items {} of this list{more}.", ranges(&indexes))
                    }
                    None => format!("Also at {} more places of this shape{more}.", paths.len()),
                };
                vec![(first, format!("{problem} {also}"))]
            },
        )
        .collect();
    (said, repeated)
}

/// `path` with its last list index as `*` (`tasks/*/name`,
/// `tasks/0/checklist/*`) and that index, for [`said_once`]'s grouping;
/// nothing for a path without an index.
fn item_shape(path: &str, is_list: &impl Fn(&str) -> bool) -> (Option<String>, Option<usize>) {
    let segments: Vec<&str> = path.split('/').collect();
    let is_index = |at: usize| {
        let segment = segments[at];
        !segment.is_empty()
            && segment.bytes().all(|b| b.is_ascii_digit())
            && is_list(&segments[..at].join("/"))
    };
    let Some(at) = (0..segments.len()).rev().find(|&at| is_index(at)) else {
        return (None, None);
    };
    let index = segments[at].parse().ok();
    let mut shape = segments;
    shape[at] = "*";
    (Some(shape.join("/")), index)
}

/// Indexes as runs: `1–3, 7, 9–12`.
fn ranges(indexes: &[usize]) -> String {
    let mut sorted = indexes.to_vec();
    sorted.sort_unstable();
    let mut runs: Vec<String> = Vec::new();
    let mut at = 0;
    while at < sorted.len() {
        let start = sorted[at];
        let mut end = start;
        while at + 1 < sorted.len() && sorted[at + 1] == end + 1 {
            at += 1;
            end = sorted[at];
        }
        runs.push(if start == end {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
        at += 1;
    }
    runs.join(", ")
}

impl Failure {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Failure {
            code: code.code.to_string(),
            message: message.into(),
            retryable: code.retryable,
            field_errors: BTreeMap::new(),
            suggested_action: None,
            details: BTreeMap::new(),
            candidates: None,
            class: code.class,
            http_status: if code.http_status == 0 {
                500
            } else {
                code.http_status
            },
        }
    }

    /// A retryable `server_error` answered as 503: the store cannot be
    /// reached or is saturated now, and the same request may succeed soon.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Failure {
            http_status: 503,
            ..Failure::new(code::SERVER_ERROR, message)
        }
    }

    /// `invalid_input` with `field_errors`: at most [`MAX_FIELD_ERRORS`] of
    /// them (the first by path); given more, the message says so.
    pub fn invalid_input(field_errors: BTreeMap<String, String>) -> Self {
        Failure::invalid_input_of(field_errors, |_| false)
    }

    /// [`Failure::invalid_input`] where `is_list(path)` says which paths
    /// of the input are lists, whose items' problems are grouped
    /// (`said_once`); a field whose name is digits is no item.
    pub fn invalid_input_of(
        field_errors: BTreeMap<String, String>,
        is_list: impl Fn(&str) -> bool,
    ) -> Self {
        // More than the answer names: some items were not looked at, so a
        // group's list of items may be short.
        let cut = field_errors.len() > MAX_FIELD_ERRORS;
        let (field_errors, repeated) = said_once(field_errors, &is_list, cut);
        // A path repeats caller input (an unknown field's name): bounded.
        let field_errors: BTreeMap<String, String> = field_errors
            .into_iter()
            .take(MAX_FIELD_ERRORS)
            .map(|(path, problem)| (echo(&path), problem))
            .collect();
        // The problems are said once, in field_errors: the message names
        // where to look, so a caller reading both pays for them once.
        let message = match field_errors.len() {
            _ if cut => format!(
                "Invalid input: more than {MAX_FIELD_ERRORS} fields are wrong; see field_errors for those found first."
            ),
            1 => {
                let (field, _) = field_errors.iter().next().expect("one entry");
                if field.is_empty() {
                    // The input as a whole, e.g. an update that changes nothing.
                    "Invalid input as a whole; see field_errors.".to_string()
                } else {
                    format!("Invalid input at `{field}`; see field_errors.")
                }
            }
            n => format!("Invalid input: {n} fields are wrong; see field_errors."),
        };
        let message = if repeated {
            format!(
                "{message} A problem repeated in the items of a list is said once, at its first item, with the others' indexes."
            )
        } else {
            message
        };
        Failure {
            field_errors,
            ..Failure::new(code::INVALID_INPUT, message)
        }
    }

    /// This `invalid_input` with the field errors `more` beside its own,
    /// its message recounted; a path both name is said by `join(own,
    /// more's)`. Its other parts (a suggestion, candidates) are kept.
    pub fn with_field_errors(
        mut self,
        more: BTreeMap<String, String>,
        join: impl Fn(&str, &str) -> String,
    ) -> Self {
        let mut errors = std::mem::take(&mut self.field_errors);
        for (path, said) in more {
            match errors.get_mut(&path) {
                Some(own) => *own = join(own, &said),
                None => {
                    errors.insert(path, said);
                }
            }
        }
        let said = Failure::invalid_input(errors);
        Failure {
            message: said.message,
            field_errors: said.field_errors,
            ..self
        }
    }

    pub fn field(mut self, path: impl Into<String>, problem: impl Into<String>) -> Self {
        self.field_errors.insert(echo(&path.into()), problem.into());
        self
    }

    pub fn suggest(mut self, tool: &str, arguments: Value) -> Self {
        self.suggested_action = Some(Box::new(SuggestedAction {
            tool: tool.to_string(),
            arguments,
            command: None,
        }));
        self
    }

    /// Whether this failure is of the registered code `c`.
    pub fn is(&self, c: ErrorCode) -> bool {
        self.code == c.code
    }

    /// Adds the fact `key` (one of [`DETAIL_NAMES`]) to `details`.
    pub fn detail(mut self, key: &str, value: Value) -> Self {
        debug_assert!(DETAIL_NAMES.contains(&key), "add `{key}` to DETAIL_NAMES");
        self.details.insert(key.to_string(), value);
        self
    }

    /// Adds candidates for input path `field`, nearest first; the list
    /// stays within [`MAX_CANDIDATES`].
    pub fn candidates(self, field: &str, values: impl IntoIterator<Item = Value>) -> Self {
        self.with_candidates(values.into_iter().map(|value| Candidate {
            field: echo(field),
            value,
            title: None,
        }))
    }

    /// Adds task candidates (number and title) for input path `field`.
    pub fn task_candidates(self, field: &str, tasks: &[(i64, String)]) -> Self {
        self.titled_candidates(
            field,
            tasks
                .iter()
                .map(|(number, title)| (json!(number), title.as_str())),
        )
    }

    /// Adds candidates for input path `field`, each with the title of the
    /// task it leads to (a task's number, the board that has the task): at
    /// most [`MAX_TASK_CANDIDATES`] titled ones in all.
    pub fn titled_candidates<'t>(
        self,
        field: &str,
        values: impl IntoIterator<Item = (Value, &'t str)>,
    ) -> Self {
        let titled = self
            .candidates
            .as_deref()
            .map_or(0, |all| all.iter().filter(|c| c.title.is_some()).count());
        self.with_candidates(
            values
                .into_iter()
                .take(MAX_TASK_CANDIDATES.saturating_sub(titled))
                .map(|(value, title)| Candidate {
                    field: echo(field),
                    value,
                    title: Some(candidate_title(title)),
                }),
        )
    }

    fn with_candidates(mut self, more: impl Iterator<Item = Candidate>) -> Self {
        let all = self.candidates.get_or_insert_with(Box::default);
        let room = MAX_CANDIDATES.saturating_sub(all.len());
        all.extend(more.take(room));
        if all.is_empty() {
            self.candidates = None;
        }
        self
    }

    /// The candidates, nearest first (empty when there are none).
    pub fn candidate_list(&self) -> &[Candidate] {
        self.candidates.as_deref().map_or(&[], Vec::as_slice)
    }

    /// The model-facing error document (§8.2), snake_case.
    pub fn to_document(&self) -> Value {
        let mut error = json!({
            "code": self.code,
            "message": self.message,
            "retryable": self.retryable,
        });
        if !self.field_errors.is_empty() {
            error["field_errors"] = json!(self.field_errors);
        }
        if let Some(action) = &self.suggested_action {
            error["suggested_action"] = json!(action);
        }
        if !self.details.is_empty() {
            error["details"] = json!(self.details);
        }
        if !self.candidate_list().is_empty() {
            error["candidates"] = json!(self.candidate_list());
        }
        json!({ "error": error })
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Failure {}

/// The most field errors one answer carries, however much input is wrong:
/// an answer stays small whatever a request holds (and a producer stops
/// looking past one more than this, which is how the message knows).
pub const MAX_FIELD_ERRORS: usize = 100;

/// Every name a failure's `details` may carry: the wire respells them in
/// a message's text as it does field names (`wire::respell_fields`).
pub const DETAIL_NAMES: &[&str] = &[
    "checkpoint_id",
    "current_updated_at",
    "line",
    "made_numbers",
    "max_permission",
    "may_have_taken_effect",
    "needed_scope",
    "private_board",
    "retry_after_seconds",
    "server_code",
    "status",
    "token_scope",
    "took_effect",
];

/// The JSON Schema of the error document, shared by every action.
pub fn error_schema() -> Value {
    let codes: Vec<&str> = ERROR_CODES.iter().map(|c| c.code).collect();
    let catalog: Vec<Value> = ERROR_CODES
        .iter()
        .map(|c| {
            let mut entry = json!({
                "code": c.code,
                "retryable": c.retryable,
                "exit_status": c.class.code(),
                "description": c.description,
            });
            if let Some(status) = c.exit_status_from_server() {
                entry["exit_status_from_server"] = json!(status);
            }
            entry
        })
        .collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agentteam error document",
        "description": "What every action prints on stdout when it fails (§8.2).",
        "type": "object",
        "additionalProperties": false,
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "additionalProperties": false,
                "required": ["code", "message", "retryable"],
                "properties": {
                    "code": {"type": "string", "enum": codes, "description": "Stable snake_case error code; see x-error-codes."},
                    "message": {"type": "string", "description": "Human-readable, safe to show."},
                    "retryable": {"type": "boolean", "description": "Whether the same call may succeed if retried unchanged."},
                    "field_errors": {
                        "type": "object",
                        "description": "Input path (`tasks/0/title`) to the problem with that field.",
                        "additionalProperties": {"type": "string"}
                    },
                    "details": {
                        "type": "object",
                        "description": "Structured facts about the failure, by name; e.g. task_update_conflict's `current_updated_at`, the task's updated_at now; `took_effect` or `may_have_taken_effect` (true) where a mutation not safe to send twice did or may have acted: read before resending."
                    },
                    "candidates": {
                        "type": "array",
                        "maxItems": MAX_CANDIDATES,
                        "description": "What the failing field could be instead, nearest first (§5.2): the boards this agent may use for an unknown channel, member refs for an unknown assignee, live task numbers for an unknown parent, known field names for an unknown field.",
                        "items": {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["field", "value"],
                            "properties": {
                                "field": {"type": "string", "description": "The input path the value is for, e.g. `channel` or `tasks/0/assignee`."},
                                "value": {"type": ["string", "integer"], "description": "A value that field could take (for an unknown field: a known field name)."},
                                "title": {"type": "string", "description": "A task candidate's title."}
                            }
                        }
                    },
                    "suggested_action": {
                        "type": "object",
                        "description": "An advisory next call; it grants no authority.",
                        "additionalProperties": false,
                        "required": ["tool", "arguments"],
                        "properties": {
                            "tool": {"type": "string", "description": "The canonical tool name, e.g. `task_get`."},
                            "arguments": {"type": "object", "description": "Its input, as far as the error can tell."},
                            "command": {"type": "string", "description": "In CLI output: the command that runs the tool; pipe `arguments` to it as JSON."}
                        }
                    }
                }
            }
        },
        "x-error-codes": catalog,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_after_a_message_without_its_full_stop_starts_a_sentence() {
        assert_eq!(followed_by("expired", "Log in."), "expired. Log in.");
        assert_eq!(followed_by("Expired. ", "Log in."), "Expired. Log in.");
        assert_eq!(followed_by("Why?", "Log in."), "Why? Log in.");
        assert_eq!(followed_by(" ", "Log in."), "Log in.");
    }

    #[test]
    fn task_candidates_are_few_with_their_titles_cut() {
        let tasks: Vec<(i64, String)> = (1..=8).map(|n| (n, "T".repeat(200))).collect();
        let f = Failure::new(code::TASK_NOT_FOUND, "x").task_candidates("number", &tasks);
        let list = f.candidate_list();
        assert_eq!(list.len(), MAX_TASK_CANDIDATES);
        let title = list[0].title.as_deref().unwrap();
        assert_eq!(title.chars().count(), CANDIDATE_TITLE_CHARS);
        assert!(title.contains('…'));
        // Cut in the middle: titles alike at their start stay apart.
        let alike: Vec<(i64, String)> = ["arm64", "x86_64"]
            .iter()
            .enumerate()
            .map(|(n, end)| {
                let start = "Investigate the intermittent failure of the nightly run";
                (
                    n as i64,
                    format!("{start} of the integration suite on {end}"),
                )
            })
            .collect();
        let f = Failure::new(code::TASK_NOT_FOUND, "x").task_candidates("number", &alike);
        let titles: Vec<String> = f
            .candidate_list()
            .iter()
            .map(|c| c.title.clone().unwrap())
            .collect();
        assert!(titles[0].ends_with("on arm64"), "{titles:?}");
        assert!(titles[1].ends_with("on x86_64"), "{titles:?}");
        assert!(titles[0].starts_with("Investigate the"), "{titles:?}");
    }

    #[test]
    fn codes_are_unique_snake_case_and_consistent() {
        let mut seen = std::collections::HashSet::new();
        for c in ERROR_CODES {
            assert!(seen.insert(c.code), "duplicate code {}", c.code);
            assert!(
                crate::case::is_snake_case(c.code),
                "{} is not snake_case",
                c.code
            );
            assert_eq!(
                c.retryable,
                c.class == ExitClass::Transient,
                "{}: retryable iff transient",
                c.code
            );
            assert!(!c.description.is_empty());
        }
    }

    /// §8.2: a code tells the caller what to do next, not only what went
    /// wrong: each description says what happened in its first sentence
    /// and what to do in a later one.
    #[test]
    fn every_code_says_what_to_do_next() {
        for c in ERROR_CODES {
            let sentences = c
                .description
                .split(". ")
                .filter(|s| !s.trim().is_empty())
                .count();
            assert!(
                sentences >= 2 && c.description.ends_with('.'),
                "{}: {:?} does not say what to do next",
                c.code,
                c.description
            );
        }
    }

    /// README "Exit status": `--batch` ends with its worst line's class,
    /// which the success line must not contradict.
    #[test]
    fn exit_meanings_agree_with_batch_and_set_claim() {
        let success = ExitClass::Success.meaning();
        assert!(
            success.contains("--batch") && success.contains("worst"),
            "{success}"
        );
        assert!(success.contains("set_claim"), "{success}");
    }
}
