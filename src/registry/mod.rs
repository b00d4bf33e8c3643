//! THE source of truth: one declaration per action. The clap routes, `--help`,
//! `--input-schema`, `--output-schema`, `--catalog`, the runtime's router, the
//! man pages, the completions and the README table are all functions over
//! [`ACTIONS`]; the contract's §12 checks are tests at the end of this file.
//!
//! An action is a canonical tool (§2.1): `task_list` is its raw name,
//! `task.list` its Exec action id, `agentteam exec task list -` its CLI route,
//! and `GET …/runtime/tasks` its Agent Runtime operation (§13.3).

pub mod common;
pub mod schema;
pub mod synonyms;
pub mod task;

use std::collections::BTreeMap;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{ErrorCode, code};

/// Every registered action, in documentation order.
pub static ACTIONS: &[&Action] = &[
    &task::list::ACTION,
    &task::get::ACTION,
    &task::create::ACTION,
    &task::update::ACTION,
    &task::set_claim::ACTION,
    &task::checkpoint::ACTION,
    &task::delete::ACTION,
];

/// Old names and what became of them (§12 check 12). Empty: nothing has been
/// renamed yet. An entry is `(old name, replacement canonical name or "removed")`.
pub static MIGRATIONS: &[(&str, &str)] = &[];

/// The path every Agent Runtime operation lives under (§13.3).
pub const RUNTIME_PREFIX: &str = "/api/v1/workspaces/{workspaceId}/agents/{agentId}/runtime";

/// Field errors by input path (`tasks/0/title`), as branch rules report them.
pub type FieldErrors = BTreeMap<String, String>;

/// An action's permission class (§9.2). Each class includes the ones before
/// it, so the order is the order of privilege: a token scoped (or a profile
/// capped) at a class may run every action of that class and below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    ReadOnly,
    AgentMutation,
    Destructive,
}

impl Permission {
    pub const ALL: [Permission; 3] = [
        Permission::ReadOnly,
        Permission::AgentMutation,
        Permission::Destructive,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Permission::ReadOnly => "read_only",
            Permission::AgentMutation => "agent_mutation",
            Permission::Destructive => "destructive",
        }
    }

    /// The class named `text` (`read_only`, `agent_mutation`, `destructive`).
    pub fn parse(text: &str) -> Option<Permission> {
        Permission::ALL.into_iter().find(|p| p.as_str() == text)
    }
}

impl std::fmt::Display for Permission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Permission {
    type Err = String;

    fn from_str(text: &str) -> Result<Permission, String> {
        Permission::parse(text).ok_or_else(|| {
            let names: Vec<&str> = Permission::ALL.map(Permission::as_str).to_vec();
            format!(
                "expected one of {}, not `{}`",
                names.join(", "),
                crate::text::clip(text, 64)
            )
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Idempotency {
    /// Reads: safe to repeat; the CLI retries transient failures.
    Safe,
    /// A desired-state setter: repeating it yields the same state.
    DesiredState,
    /// Replays with the same `idempotency_key` return the original outcome;
    /// a key is valid only inside a workflow callback (§13.2).
    KeyedReplay,
    /// Replays with the same `idempotency_key` return the original outcome;
    /// a key is valid at any time, scoped to the agent and the resource.
    Keyed,
    /// Not idempotent: never replayed once it may have reached the server.
    None,
}

impl Idempotency {
    pub fn describe(self) -> &'static str {
        match self {
            Idempotency::Safe => "safe to repeat; transient failures are retried",
            Idempotency::DesiredState => "idempotent desired state; transient failures are retried",
            Idempotency::KeyedReplay => {
                "replayable with idempotency_key (during a workflow callback); retried only with a key"
            }
            Idempotency::Keyed => "replayable with idempotency_key; retried only with a key",
            Idempotency::None => {
                "not idempotent; never replayed once it may have reached the server"
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Concurrency {
    /// Reads a consistent snapshot; nothing to guard.
    Snapshot,
    /// One transaction; numbers allocated inside it.
    Transactional,
    /// Each item changes atomically; exactly one concurrent claimant wins.
    AtomicPerItem,
    /// Guarded by `expected_updated_at` (§7.3).
    ExpectedUpdatedAt,
    /// Appends only; concurrent appends never conflict.
    AppendOnly,
}

/// Hidden context (§5.4) an action needs; injected, never model input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HiddenContext {
    WorkspaceId,
    AgentId,
    AgentToken,
    /// Only when the input carries `idempotency_key`.
    WorkflowRunId,
    /// Only when the input carries `idempotency_key`.
    CallbackEffectId,
}

impl HiddenContext {
    pub const ALL: [HiddenContext; 5] = [
        HiddenContext::WorkspaceId,
        HiddenContext::AgentId,
        HiddenContext::AgentToken,
        HiddenContext::WorkflowRunId,
        HiddenContext::CallbackEffectId,
    ];

    /// Spellings a model might use for this context; none may be an input field.
    pub fn spellings(self) -> &'static [&'static str] {
        match self {
            HiddenContext::WorkspaceId => &["workspace", "workspace_id", "workspace_ref"],
            HiddenContext::AgentId => &["agent", "agent_id", "agent_ref", "caller", "principal"],
            HiddenContext::AgentToken => &[
                "token",
                "access_token",
                "bearer",
                "authorization",
                "api_key",
            ],
            HiddenContext::WorkflowRunId => &["workflow_run", "workflow_run_id", "run_id"],
            HiddenContext::CallbackEffectId => {
                &["callback_effect", "callback_effect_id", "callback_id"]
            }
        }
    }

    pub fn wire_name(self) -> Option<&'static str> {
        match self {
            HiddenContext::WorkflowRunId => Some("workflowRunId"),
            HiddenContext::CallbackEffectId => Some("callbackEffectId"),
            _ => None,
        }
    }
}

/// Result budget classes (§8.3), in bytes of the compact JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetClass {
    /// Receipts and single compact resources.
    Small,
    /// One resource with bounded sections.
    Detail,
    /// One page of a collection.
    Page,
}

impl BudgetClass {
    pub fn bytes(self) -> usize {
        match self {
            BudgetClass::Small => 64 * 1024,
            BudgetClass::Detail => 256 * 1024,
            BudgetClass::Page => 512 * 1024,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Exposure {
    /// AgentTeam Exec catalog only (§9.3).
    Exec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Deprecation {
    Active,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Method {
    #[serde(rename = "GET")]
    Get,
    #[serde(rename = "POST")]
    Post,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// What an action does, as a value the runtime matches exhaustively: one
/// variant per domain, each holding that domain's own operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Task(task::Operation),
}

/// The HTTP status of an action's success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Success {
    /// 200 OK.
    Ok,
    /// 201 Created when the call created something (`data.reused` is
    /// false), 200 OK when it replayed an idempotency receipt.
    CreatedUnlessReused,
}

impl Success {
    /// The status of this success document's `data`.
    pub fn status(self, data: &Value) -> u16 {
        match self {
            Success::Ok => 200,
            Success::CreatedUnlessReused => {
                if data.get("reused") == Some(&Value::Bool(false)) {
                    201
                } else {
                    200
                }
            }
        }
    }

    /// Every status a success may have, first the usual one.
    pub fn statuses(self) -> &'static [u16] {
        match self {
            Success::Ok => &[200],
            Success::CreatedUnlessReused => &[201, 200],
        }
    }
}

/// A registry example: a description and its JSON input (tested against the schema).
#[derive(Debug, Clone, Copy)]
pub struct Example {
    pub description: &'static str,
    pub input: &'static str,
}

/// The refusals any call can get, whatever its action: the token, its rate
/// limit (`serve --rate-limit`), its path, the input, the store. A call
/// with a body (a POST) can also get [`BODY_REFUSALS`]; each action lists
/// its own beyond these (`Action::refusals`).
pub const ANY_CALL_REFUSALS: [ErrorCode; 6] = [
    code::INVALID_JSON,
    code::UNAUTHORIZED,
    code::RATE_LIMITED,
    code::FORBIDDEN,
    code::INVALID_INPUT,
    code::SERVER_ERROR,
];

/// The refusals of a request body: too large, or not in time.
pub const BODY_REFUSALS: [ErrorCode; 2] = [code::INPUT_TOO_LARGE, code::TIMEOUT];

/// The `meta` field of a `--batch` result that names the input line it
/// answers (a failure has it in `details`). The CLI adds it; the wire never
/// carries it.
pub const BATCH_LINE: &str = "line";

/// One canonical action.
pub struct Action {
    pub domain: &'static str,
    pub verb: &'static str,
    /// What the runtime runs for it.
    pub operation: Operation,
    /// One line: the user intent (§10.1 point 1). README table, command lists.
    pub summary: &'static str,
    /// When to choose it over its neighbours and its main side effect (§10.1 points 2–3).
    pub description: &'static str,
    pub permission: Permission,
    pub idempotency: Idempotency,
    pub concurrency: Concurrency,
    pub hidden_context: &'static [HiddenContext],
    pub budget: BudgetClass,
    pub method: Method,
    /// Route under [`RUNTIME_PREFIX`], e.g. `/tasks/get`.
    pub route: &'static str,
    pub exposure: Exposure,
    pub deprecation: Deprecation,
    /// Whether the result is a page (`meta.next_cursor`).
    pub paginated: bool,
    /// The HTTP status of a success.
    pub success: Success,
    /// The refusals its operation answers beyond those every call can (the
    /// token, its rate limit, its path, the input, the store): lookups that
    /// find nothing and rules the call breaks. The OpenAPI description's
    /// error responses come from them (`crate::openapi`).
    pub refusals: &'static [ErrorCode],
    pub input_schema: fn() -> Value,
    /// Schema of `data` in the success document.
    pub data_schema: fn() -> Value,
    /// Branch rules a flat schema cannot state (§4.2); runs on schema-valid input.
    pub check: fn(&Value, &mut FieldErrors),
    /// Canonicalises valid input before it is sent or stored (e.g. trims the idempotency key).
    pub canonicalize: fn(&mut Value),
    pub examples: &'static [Example],
    /// The `--format text` view of a success's `data`.
    pub text: fn(&Value, &crate::text::Style) -> String,
    /// Its own way to cut a success's `data` to the budget, least essential
    /// first (a task detail's sections before its description); `None`:
    /// the generic cuts of `budget::fit_answer`.
    pub fit: Option<crate::budget::Fit>,
}

/// One value per action in [`ACTIONS`], each rendered once per process.
type PerAction = std::sync::OnceLock<Vec<std::sync::OnceLock<Value>>>;

impl Action {
    /// Raw canonical name (§3.1): `task_set_claim`.
    pub fn name(&self) -> String {
        format!("{}_{}", self.domain, self.verb)
    }

    /// The command line that runs it, input on stdin: `agentteam exec task set_claim -`.
    pub fn cli_command(&self) -> String {
        format!("agentteam exec {} {} -", self.domain, self.verb)
    }

    /// Exec action id (§3.3): `task.set_claim`.
    pub fn id(&self) -> String {
        format!("{}.{}", self.domain, self.verb)
    }

    pub fn read_only(&self) -> bool {
        self.permission == Permission::ReadOnly
    }

    pub fn destructive(&self) -> bool {
        self.permission == Permission::Destructive
    }

    /// This action's position in [`ACTIONS`], for per-action caches.
    pub fn index(&self) -> usize {
        ACTIONS
            .iter()
            .position(|a| std::ptr::eq(*a, self))
            .expect("action is registered")
    }

    /// The input schema, rendered once per process and shared: the runtime
    /// reads it on every list request and validation evaluates it on every call.
    pub fn cached_input_schema(&self) -> &'static Value {
        static SCHEMAS: PerAction = PerAction::new();
        self.once(&SCHEMAS, self.input_schema)
    }

    /// The data schema, rendered once per process and shared: the CLI
    /// checks every answer against it (`wire::check_answer`), a `--batch`
    /// thousands of them.
    pub fn cached_data_schema(&self) -> &'static Value {
        static SCHEMAS: PerAction = PerAction::new();
        self.once(&SCHEMAS, self.data_schema)
    }

    /// This action's value in `cache`, rendered by `render` on first use.
    fn once(&self, cache: &'static PerAction, render: fn() -> Value) -> &'static Value {
        let all =
            cache.get_or_init(|| ACTIONS.iter().map(|_| std::sync::OnceLock::new()).collect());
        all[self.index()].get_or_init(render)
    }

    /// The full route template, `{workspaceId}` and `{agentId}` still in it.
    pub fn route_template(&self) -> String {
        format!("{RUNTIME_PREFIX}{}", self.route)
    }

    /// The route for one workspace and agent; ids are percent-encoded.
    pub fn route_for(&self, workspace_id: &str, agent_id: &str) -> String {
        self.route_template()
            .replace(
                "{workspaceId}",
                &utf8_percent_encode(workspace_id, PATH_SEGMENT).to_string(),
            )
            .replace(
                "{agentId}",
                &utf8_percent_encode(agent_id, PATH_SEGMENT).to_string(),
            )
    }

    /// May the CLI resend this request after a transient failure?
    pub fn may_retry(&self, input: &Value) -> bool {
        match self.idempotency {
            Idempotency::Safe | Idempotency::DesiredState => true,
            Idempotency::KeyedReplay | Idempotency::Keyed => input.get("idempotency_key").is_some(),
            Idempotency::None => false,
        }
    }

    /// The whole success document's schema (`--output-schema`), as
    /// published: `data`'s objects are open ([`schema::open`]); the root and
    /// `meta`, which the CLI writes itself, are closed. `meta`'s
    /// [`BATCH_LINE`] is the CLI's own, not the wire's.
    pub fn output_schema(&self) -> Value {
        self.success_document(schema::open((self.data_schema)()))
    }

    /// [`Self::output_schema`] with `data`'s objects closed as well: exactly
    /// what this version's agentteam-runtime answers. The tests hold the
    /// runtime to it, so a field it sends is a field the schema describes.
    pub fn closed_output_schema(&self) -> Value {
        self.success_document((self.data_schema)())
    }

    fn success_document(&self, data: Value) -> Value {
        let mut meta = vec![
            (
                "truncated",
                schema::boolean(
                    "Present and true only when the result was cut; the cut is said where it happened and how to continue.",
                ),
            ),
            (
                BATCH_LINE,
                json!({"type": "integer", "minimum": 1, "description": "With --batch: the input line this result answers, from 1."}),
            ),
        ];
        if self.paginated {
            meta.insert(
                0,
                (
                    "next_cursor",
                    json!({"type": "string", "description": "Opaque cursor for the next page; absent on the last page. Pass it back as `cursor` with the same other inputs."}),
                ),
            );
        }
        schema::success_document(&self.name(), data, meta)
    }

    /// The catalog entry: every §9.1 field and both schemas.
    pub fn catalog_entry(&self) -> Value {
        json!({
            "name": self.name(),
            "action_id": self.id(),
            "cli": self.cli_command(),
            "owner": self.domain,
            "summary": self.summary,
            "description": self.description,
            "permission": self.permission,
            "read_only": self.read_only(),
            "destructive": self.destructive(),
            "idempotency": self.idempotency,
            "concurrency": self.concurrency,
            "hidden_context": self.hidden_context,
            "result_budget": {"class": self.budget, "bytes": self.budget.bytes()},
            "http": {"method": self.method, "route": self.route_template()},
            "exposure": self.exposure,
            "deprecation": self.deprecation,
            "examples": self.examples.iter().map(|e| json!({
                "description": e.description,
                "input": serde_json::from_str::<Value>(e.input).expect("registry examples are valid JSON (tested)"),
            })).collect::<Vec<_>>(),
            "input_schema": self.cached_input_schema(),
            "output_schema": self.output_schema(),
        })
    }
}

/// The names of all domains, in registry order, without repeats.
pub fn domains() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for action in ACTIONS {
        if !out.contains(&action.domain) {
            out.push(action.domain);
        }
    }
    out
}

pub fn find(domain: &str, verb: &str) -> Option<&'static Action> {
    ACTIONS
        .iter()
        .copied()
        .find(|a| a.domain == domain && a.verb == verb)
}

pub fn find_by_name(name: &str) -> Option<&'static Action> {
    ACTIONS.iter().copied().find(|a| a.name() == name)
}

/// `agentteam exec --catalog`: every action with its metadata and both
/// schemas (product.md §3), within the definitions' size budget
/// ([`CATALOG_BUDGET`]). The error schema, one for every action, is left to
/// `--catalog --full` and `--error-schema`.
pub fn compact_catalog() -> Value {
    json!({
        "actions": ACTIONS.iter().map(|a| a.catalog_entry()).collect::<Vec<_>>(),
        "migrations": MIGRATIONS.iter().map(|(old, new)| json!({"old": old, "new": new})).collect::<Vec<_>>(),
        "error_schema_command": "agentteam exec --error-schema",
        "full_command": "agentteam exec --catalog --full",
    })
}

/// The most `agentteam exec --catalog` may print, in bytes: the contract's
/// size budget for tool definitions (§10.1), a regression guard.
pub const CATALOG_BUDGET: usize = 48 * 1024;

/// `agentteam exec --catalog --full`: every action with both schemas, and
/// the error schema.
pub fn catalog() -> Value {
    json!({
        "actions": ACTIONS.iter().map(|a| a.catalog_entry()).collect::<Vec<_>>(),
        "migrations": MIGRATIONS.iter().map(|(old, new)| json!({"old": old, "new": new})).collect::<Vec<_>>(),
        "error_schema": crate::error::error_schema(),
    })
}

/// What an id keeps as it is in a route: RFC 3986's unreserved characters.
const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// No canonicalisation needed.
pub fn keep(_: &mut Value) {}

/// No branch rules beyond the schema.
pub fn no_branch_rules(_: &Value, _: &mut FieldErrors) {}

#[cfg(test)]
mod tests;
