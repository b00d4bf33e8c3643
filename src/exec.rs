//! `agentteam exec <domain> <action>`: read input → validate → resolve hidden
//! context → call → print, in one of four modes: one request, a dry run, a
//! `--batch` of NDJSON lines (sent, or each line's dry run), or
//! `--paginate`. Nothing here knows a domain: the action comes from the
//! registry and everything about it is read from its entry.

use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Map, Value, json};

use crate::budget::{self, Fitted};
use crate::client::{Client, ClientSettings, Session};
use crate::credentials::{CredentialStore, Profile, profile_name};
use crate::env_vars;
use crate::error::{ExitClass, Failure, code};
use crate::output::Printer;
use crate::registry::{Action, Method};
use crate::validate::validate;
use crate::wire::{self, MAX_BODY_BYTES, Success, WireRequest, WorkflowContext};

/// Where the JSON input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputSource {
    /// `-`: stdin, read from a terminal too (until end of input, Ctrl-D),
    /// as `cat -` reads it: the caller named it.
    Stdin,
    /// No input argument: stdin, unless it is a terminal, where a caller
    /// who meant no input would wait on a prompt that never says so.
    Unnamed,
    File(PathBuf),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One JSON object in, one document out.
    Single,
    /// Validate and resolve, print the request, send nothing.
    DryRun,
    /// NDJSON in, one result line per input line, in input order; with
    /// `dry_run`, each line's dry run, nothing sent.
    Batch { concurrency: usize, dry_run: bool },
    /// Follow `next_cursor`, streaming items as NDJSON.
    Paginate { max_items: Option<u64> },
}

/// Settings resolved from flags and environment; no clap types past here.
pub struct ExecSettings {
    pub action: &'static Action,
    pub input: InputSource,
    pub profile: Option<String>,
    pub timeout: Duration,
    pub retries: u32,
    pub mode: Mode,
}

pub fn run(settings: &ExecSettings, printer: &Printer) -> ExitClass {
    let result = match settings.mode {
        Mode::Single => single(settings, printer),
        Mode::DryRun => dry_run(settings, printer),
        Mode::Batch {
            concurrency,
            dry_run,
        } => return batch(settings, concurrency, dry_run, printer),
        Mode::Paginate { max_items } => return paginate(settings, max_items, printer),
    };
    match result {
        Ok(class) => class,
        Err(failure) => printer.failure(&failure),
    }
}

/// The resolved hidden context of one invocation (§5.4): never model input.
struct Context {
    store: CredentialStore,
    profile_name: String,
    profile: Profile,
    workflow: WorkflowContext,
}

impl Context {
    fn resolve(profile_flag: Option<&str>) -> Result<Context, Failure> {
        let store = CredentialStore::locate()?;
        let file = store.load()?;
        let name = profile_name(profile_flag, &file);
        let profile = file.selected(&name, &store.path())?.clone();
        let missing: Vec<&str> = [
            ("api_url", profile.api_url.trim().is_empty()),
            ("workspace_id", profile.workspace_id.trim().is_empty()),
            ("agent_id", profile.agent_id.trim().is_empty()),
            (
                "token or credential_process",
                profile.token.is_none() && profile.credential_process.is_none(),
            ),
        ]
        .into_iter()
        .filter_map(|(field, absent)| absent.then_some(field))
        .collect();
        if !missing.is_empty() {
            return Err(Failure::new(
                code::CREDENTIALS_MISSING,
                format!(
                    "Profile `{name}` lacks {}; run `agentteam {flag} auth login`, or `agentteam-runtime quickstart {flag}` for a local server and profile.",
                    missing.join(", "),
                    flag = crate::credentials::profile_flag(&name)
                ),
            ));
        }
        let workflow = WorkflowContext {
            workflow_run_id: non_empty_env(env_vars::WORKFLOW_RUN_ID.name),
            callback_effect_id: non_empty_env(env_vars::CALLBACK_EFFECT_ID.name),
        };
        Ok(Context {
            store,
            profile_name: name,
            profile,
            workflow,
        })
    }

    /// The context to run `action` with: refused, before anything is sent,
    /// if the action is above the profile's max_permission.
    fn for_action(profile_flag: Option<&str>, action: &Action) -> Result<Context, Failure> {
        let context = Context::resolve(profile_flag)?;
        context.profile.allows(&context.profile_name, action)?;
        Ok(context)
    }

    fn request(&self, action: &Action, input: &Value) -> WireRequest {
        wire::encode_request(
            action,
            &self.profile.workspace_id,
            &self.profile.agent_id,
            input,
            &self.workflow,
        )
    }

    fn client(&self, settings: &ExecSettings) -> Result<Client, Failure> {
        Client::new(
            &self.profile.api_url,
            ClientSettings {
                timeout: settings.timeout,
                retries: settings.retries,
            },
        )
    }

    fn session(&self) -> Session<'_> {
        Session::new(&self.store, self.profile_name.clone(), self.profile.clone())
    }
}

/// For `exec --catalog`: the active profile, its cap and which actions the
/// cap allows and refuses; `None` when no profile can be read (the catalog
/// itself needs none). A profile named by `--profile` or AGENTTEAM_PROFILE
/// must be there, as for any command: a catalog without its `profile`
/// would read as one that no cap limits.
pub fn profile_access(profile_flag: Option<&str>) -> Result<Option<Value>, Failure> {
    let named = profile_flag.is_some()
        || std::env::var_os(crate::env_vars::PROFILE.name).is_some_and(|p| !p.is_empty());
    let loaded = CredentialStore::locate().and_then(|store| Ok((store.load()?, store.path())));
    let (file, path) = match loaded {
        Ok(loaded) => loaded,
        Err(failure) if named => return Err(failure),
        Err(_) => return Ok(None),
    };
    let name = profile_name(profile_flag, &file);
    let profile = match file.selected(&name, &path) {
        Ok(profile) => profile,
        Err(failure) if named => return Err(failure),
        Err(_) => return Ok(None),
    };
    let (allowed, refused): (Vec<_>, Vec<_>) = crate::registry::ACTIONS
        .iter()
        .partition(|action| profile.allows(&name, action).is_ok());
    let names = |actions: Vec<&&Action>| actions.iter().map(|a| a.name()).collect::<Vec<_>>();
    Ok(Some(json!({
        "name": name,
        "max_permission": profile.cap(),
        "allowed": names(allowed),
        "refused": names(refused),
    })))
}

fn async_runtime() -> Result<tokio::runtime::Runtime, Failure> {
    // One thread: a CLI call is I/O-bound, and start-up is most of its cost.
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            Failure::new(
                code::INTERNAL_ERROR,
                format!("Cannot start the async runtime: {e}."),
            )
        })
}

/// Reads, parses and validates one input document.
fn prepare(action: &Action, raw: &[u8]) -> Result<Value, Failure> {
    checked(action, parse_input(raw)?)
}

/// [`prepare`] for line `line_no` of a batch: a JSON error names that line,
/// not line 1 of the one-line document.
fn prepare_line(action: &Action, raw: &[u8], line_no: u64) -> Result<Value, Failure> {
    checked(action, parse_json(raw, Some(line_no))?)
}

/// `input` validated for `action`; refused, it names the one other action
/// of the domain it is valid input for, when there is one (`numbers` and
/// `claimed` sent to `task update` are a set_claim), as its suggestion.
/// Never one riskier than the call meant: a read is pointed only at a read,
/// a change only at a change that is safe to repeat (never one that
/// overwrites or deletes: `number` and `title` sent to a create are no
/// rename of task `number`).
fn checked(action: &Action, input: Value) -> Result<Value, Failure> {
    // Only input with a field this action has not (an update that changes
    // nothing is no get); input without one, as every valid input is, is
    // validated as it is, not copied first.
    let known = &action.cached_input_schema()["properties"];
    let foreign = input
        .as_object()
        .is_some_and(|fields| fields.keys().any(|name| known.get(name).is_none()));
    if !foreign {
        return validate(action, input);
    }
    validate(action, input.clone()).map_err(|failure| {
        if !failure.is(code::INVALID_INPUT) || failure.suggested_action.is_some() {
            return failure;
        }
        // A change whose every field foreign to it has a fix here (`number`
        // for a claim's `numbers`) was meant as that change: a read of the
        // same input would only show the task, not claim it.
        let fixed_here = !action.read_only()
            && input.as_object().is_some_and(|fields| {
                fields
                    .keys()
                    .filter(|name| known.get(*name).is_none())
                    .all(|name| failure.candidate_list().iter().any(|c| c.field == *name))
            });
        let no_riskier = |other: &Action| {
            if other.read_only() {
                !fixed_here
            } else {
                !action.read_only()
                    && !other.destructive()
                    && other.idempotency != crate::registry::Idempotency::None
            }
        };
        // A change pointed at a read (`query` on an update: the task is
        // to be found first) reads without the fields the change would
        // set: as the read's filters they would look for the new values
        // (an update's new `status`), not the task.
        let read_of_change = |other: &Action| {
            let mut read = input.clone();
            if other.read_only()
                && !action.read_only()
                && let Some(fields) = read.as_object_mut()
            {
                fields.retain(|name, _| {
                    known.get(name).is_none()
                        || crate::registry::synonyms::LOCATORS.contains(&name.as_str())
                });
            }
            read
        };
        let mut others = crate::registry::ACTIONS
            .iter()
            .filter(|other| {
                other.domain == action.domain && other.name() != action.name() && no_riskier(other)
            })
            .filter_map(|other| {
                let sent = read_of_change(other);
                validate(other, sent.clone())
                    .is_ok()
                    .then_some((other, sent))
            });
        match (others.next(), others.next()) {
            (Some((other, sent)), None) => {
                let first = if sent == input {
                    ""
                } else {
                    " first, without the fields it would change"
                };
                let input = sent;
                let message = format!(
                    "{} The input is one for {}{first}: `{}`.",
                    failure.message,
                    other.name(),
                    other.cli_command()
                );
                Failure { message, ..failure }.suggest(&other.name(), input)
            }
            _ => failure,
        }
    })
}

fn single(settings: &ExecSettings, printer: &Printer) -> Result<ExitClass, Failure> {
    let action = settings.action;
    let input = prepare(action, &read_input(&settings.input, action)?)?;
    let context = Context::for_action(settings.profile.as_deref(), action)?;
    let client = context.client(settings)?;
    let session = context.session();
    let success = async_runtime()?.block_on(call_within_budget(
        action, &context, &client, &session, &input, printer,
    ))?;
    let class = printer.success(action, success.data, success.meta);
    // A change whose answer its reader did not take (the new numbers, the
    // `updated_at` to guard with) is said, with the status of a process
    // ended by SIGPIPE, as a batch's is; a read's reader took what it wanted.
    if printer.stdout_gone() && !action.read_only() {
        printer.stderr(&crate::output::stderr_line(
            "error: stdout closed: the answer was lost (the change was made)",
        ));
        std::process::exit(CLOSED_STDOUT_STATUS);
    }
    Ok(class)
}

/// Sends `input` and holds the answer to the action's result budget (§8.3)
/// whatever the server sent: a cut answer says `meta.truncated: true`. A
/// page cut short is asked for again with `limit` set to the items that
/// fit, so its `next_cursor` continues right after the last item shown
/// (the server's cursor would skip the items cut); a server that still
/// answers too much gets its page cut without a cursor.
async fn call_within_budget(
    action: &Action,
    context: &Context,
    client: &Client,
    session: &Session<'_>,
    input: &Value,
    printer: &Printer,
) -> Result<Success, Failure> {
    let budget = action.budget.bytes();
    let may_retry = action.may_retry(input);
    let request = context.request(action, input);
    let mut answer = client.call(&request, session, may_retry, printer).await?;
    // A success that is no answer of the action still took effect.
    let checked = |data: &Value| {
        wire::check_answer(action, data)
            .map_err(|failure| crate::client::unreadable_success(failure, may_retry))
    };
    checked(&answer.data)?;
    let fitted = budget::fit_answer(&mut answer.data, &mut answer.meta, budget, action.fit);
    let Fitted::Page { kept } = fitted else {
        if fitted == Fitted::Cut {
            printer.diagnostic(&format!(
                "the answer exceeded the {} KiB result budget; cut",
                budget / 1024
            ));
        }
        return Ok(answer);
    };
    let has_limit = (action.input_schema)()["properties"].get("limit").is_some();
    if !(action.paginated && may_retry && has_limit) {
        return Ok(answer);
    }
    printer.diagnostic(&format!(
        "the page exceeded the {} KiB result budget; asking again for the {kept} items that fit",
        budget / 1024
    ));
    let mut again = input.clone();
    again["limit"] = json!(kept);
    let request = context.request(action, &again);
    let mut page = client.call(&request, session, may_retry, printer).await?;
    checked(&page.data)?;
    if budget::fit_answer(&mut page.data, &mut page.meta, budget, action.fit) != Fitted::Whole {
        printer
            .diagnostic("the server ignored the smaller limit; its page is cut without a cursor");
    }
    page.meta.insert("truncated".into(), json!(true));
    Ok(page)
}

/// Prints the exact request that would be sent, token redacted; sends nothing
/// and runs no credential process.
fn dry_run(settings: &ExecSettings, printer: &Printer) -> Result<ExitClass, Failure> {
    let action = settings.action;
    let input = prepare(action, &read_input(&settings.input, action)?)?;
    let context = dry_run_context(settings)?;
    let client = context.client(settings)?;
    let doc = dry_run_request(action, &context, &client, &input);
    if printer.format == crate::output::Format::Text {
        printer.stdout(&dry_run_text(&doc));
        return Ok(ExitClass::Success);
    }
    Ok(printer.document(doc))
}

/// The context a dry run builds its request with; runs no credential
/// process.
fn dry_run_context(settings: &ExecSettings) -> Result<Context, Failure> {
    Context::for_action(settings.profile.as_deref(), settings.action).map_err(|f| Failure {
        message: format!("Dry run: the request cannot be built. {}", f.message),
        ..f
    })
}

/// The request `input` would be sent as, token redacted, as a dry run
/// shows it.
fn dry_run_request(action: &Action, context: &Context, client: &Client, input: &Value) -> Value {
    let request = context.request(action, input);
    let mut headers = Map::new();
    headers.insert("authorization".into(), json!("Bearer <redacted>"));
    let body = match (&request.method, &request.body) {
        (Method::Post, Some(bytes)) => {
            headers.insert("content-type".into(), json!("application/json"));
            serde_json::from_slice(bytes).expect("the encoder wrote JSON")
        }
        _ => Value::Null,
    };
    headers.insert("accept".into(), json!(crate::client::ACCEPT));
    headers.insert("user-agent".into(), json!(crate::client::USER_AGENT));
    json!({
        "dry_run": true,
        "action": action.id(),
        "method": request.method.as_str(),
        "url": client.url(&request),
        "headers": headers,
        "body": body,
    })
}

/// A dry run as a person reads a request: the request line, one
/// `name: value` line per header (the token already redacted), a blank
/// line, then the body as indented JSON (none for a GET).
fn dry_run_text(doc: &Value) -> String {
    let mut out = format!(
        "{} {}\n",
        doc["method"].as_str().unwrap_or_default(),
        doc["url"].as_str().unwrap_or_default()
    );
    for (name, value) in doc["headers"].as_object().into_iter().flatten() {
        out.push_str(&format!("{name}: {}\n", value.as_str().unwrap_or_default()));
    }
    if !doc["body"].is_null() {
        out.push('\n');
        let body = serde_json::to_string_pretty(&doc["body"]).expect("JSON values serialise");
        out.push_str(&crate::text::json_escape_terminal(body));
        out.push('\n');
    }
    out
}

/// `--paginate`: every item of every page, one compact JSON line each; with
/// `--format text` (the default on a terminal) the action's table instead,
/// printed page by page as each arrives.
fn paginate(settings: &ExecSettings, max_items: Option<u64>, printer: &Printer) -> ExitClass {
    let result = (|| {
        let action = settings.action;
        let mut input = prepare(action, &read_input(&settings.input, action)?)?;
        let context = Context::for_action(settings.profile.as_deref(), action)?;
        let client = context.client(settings)?;
        let session = context.session();
        let runtime = async_runtime()?;
        let started = Instant::now();
        let mut emitted = 0u64;
        let text = printer.format == crate::output::Format::Text;
        let mut header_shown = false;
        // An empty first page's call that finds what it left out
        // (a `*_match` field), said once nothing was printed: a field of the
        // action's data that its schema declares as a call.
        let follow_ups = call_fields(&(action.data_schema)());
        let mut left_out: Option<(String, Value)> = None;
        // With --max-items the last page is asked for no more than remain,
        // so its cursor continues right after the last item printed.
        let most = (action.input_schema)()["properties"]["limit"]["maximum"].as_u64();
        let asked = input.get("limit").and_then(Value::as_u64);
        // Every cursor followed, the caller's own first.
        let mut followed: std::collections::HashSet<String> = input
            .get("cursor")
            .and_then(Value::as_str)
            .map(str::to_string)
            .into_iter()
            .collect();
        loop {
            if let (Some(max), Some(most)) = (max_items, most) {
                let remain = max.saturating_sub(emitted).min(most);
                if asked.is_none_or(|asked| remain < asked) {
                    input["limit"] = json!(remain);
                }
            }
            let page = runtime
                .block_on(call_within_budget(
                    action, &context, &client, &session, &input, printer,
                ))
                .map_err(|failure| resume_from(failure, &input, emitted))?;
            if left_out.is_none() {
                left_out = follow_ups
                    .iter()
                    .find_map(|key| Some((key.clone(), page.data.get(key)?.clone())));
            }
            let mut shown = Vec::new();
            for item in page.data["items"].as_array().into_iter().flatten() {
                if max_items.is_some_and(|max| emitted >= max) {
                    break;
                }
                if text {
                    shown.push(item.clone());
                } else {
                    printer.line(item);
                }
                emitted += 1;
                if printer.stdout_gone() {
                    break;
                }
            }
            if text && !shown.is_empty() {
                // The action's own table, page by page as they arrive: its
                // header once, above the first page's rows.
                printer.progress_done();
                let table = (action.text)(&json!({ "items": shown }), &printer.style);
                let rows = if header_shown {
                    table.split_once('\n').map_or("", |(_, rows)| rows)
                } else {
                    &table
                };
                printer.stdout(rows);
                header_shown = true;
            }
            if printer.stdout_gone() {
                // Its reader took what it wanted: no more pages.
                return Ok(ExitClass::Success);
            }
            printer.progress(&format!(
                "{emitted} items, {:.0}/s",
                emitted as f64 / started.elapsed().as_secs_f64().max(1e-3)
            ));
            let cursor = page.meta.get("next_cursor").and_then(Value::as_str);
            if cursor.is_none() && page.meta.get("truncated") == Some(&Value::Bool(true)) {
                // Cut by the CLI with no cursor to continue from: the rest
                // cannot be reached without skipping items, so say so.
                return Err(Failure::new(
                    code::INVALID_RESPONSE,
                    format!(
                        "The server's page exceeded the {} KiB result budget even when asked for fewer items; {emitted} items were printed and the rest cannot be reached without skipping some.",
                        action.budget.bytes() / 1024
                    ),
                ));
            }
            match cursor {
                Some(cursor) if max_items.is_none_or(|max| emitted < max) => {
                    // A server that answers a cursor it gave before (the one
                    // it was just asked for, or one of a longer cycle) would
                    // be followed forever.
                    if !followed.insert(cursor.to_string()) {
                        return Err(Failure::new(
                            code::INVALID_RESPONSE,
                            format!(
                                "The server answered a page with a cursor it had given before; stopped after {emitted} items rather than read the same pages forever."
                            ),
                        ));
                    }
                    input["cursor"] = json!(cursor);
                }
                Some(cursor) => {
                    // Cut by --max-items: say so, and where to go on.
                    printer.progress_done();
                    if text {
                        printer.stdout(&format!("More results: stopped at --max-items {emitted}; pass \"cursor\": \"{}\" with the same input to go on.\n", crate::text::escape(cursor)));
                    } else {
                        printer.stderr(&format!("agentteam: stopped at --max-items {emitted}; more remain: pass \"cursor\": \"{cursor}\" with the same input to go on\n"));
                    }
                    break;
                }
                None => break,
            }
        }
        printer.progress_done();
        let mut empty = json!({ "items": [] });
        if let Some((key, call)) = left_out.filter(|_| emitted == 0) {
            if !text {
                printer.stderr(&format!(
                    "agentteam: no items; `{key}` names the call that finds more: {call}\n"
                ));
            }
            empty[key] = call;
        }
        if text && !header_shown {
            printer.stdout(&(action.text)(&empty, &printer.style));
        }
        Ok(ExitClass::Success)
    })();
    result.unwrap_or_else(|failure: Failure| {
        printer.progress_done();
        // The stream's last JSON line, or, under a text table, the text
        // view's error on stderr.
        if printer.format == crate::output::Format::Text {
            printer.failure(&failure)
        } else {
            printer.failure_line(&failure)
        }
    })
}

/// The top-level fields of a data schema that name a call to make next:
/// objects with a `tool` and its `arguments`.
pub(crate) fn call_fields(data_schema: &Value) -> Vec<String> {
    let Some(properties) = data_schema["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .filter(|(_, schema)| {
            let fields = &schema["properties"];
            fields.get("tool").is_some() && fields.get("arguments").is_some()
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// A page of `--paginate` that failed after `emitted` items: the failure,
/// its message saying where to go on (the page's cursor, with the same
/// input), when earlier pages were printed.
fn resume_from(mut failure: Failure, input: &Value, emitted: u64) -> Failure {
    // A cursor the server refused is no place to go on from: its message
    // says to list again without one.
    if emitted > 0
        && !failure.is(code::CURSOR_INVALID)
        && let Some(cursor) = input.get("cursor").and_then(Value::as_str)
    {
        failure.message = crate::error::followed_by(
            &failure.message,
            &format!(
                "{emitted} items were printed; to go on, pass \"cursor\": \"{cursor}\" with the same input."
            ),
        );
    }
    failure
}

/// `--batch`: NDJSON in, one result line per non-blank input line, in input
/// order, over one connection pool with at most `concurrency` in flight.
/// With `dry_run`, each line's result is its dry run: validated and built,
/// never sent, so a batch can be checked whole before it acts.
fn batch(
    settings: &ExecSettings,
    concurrency: usize,
    dry_run: bool,
    printer: &Printer,
) -> ExitClass {
    let action = settings.action;
    let reader: Box<dyn BufRead + Send> = match &settings.input {
        InputSource::Stdin | InputSource::Unnamed => Box::new(BufReader::new(std::io::stdin())),
        InputSource::File(path) => match std::fs::File::open(path) {
            Ok(file) => Box::new(BufReader::new(file)),
            Err(e) => return printer.failure(&unopenable(path, &e, action)),
        },
    };
    let runtime = match async_runtime() {
        Ok(r) => r,
        Err(failure) => return printer.failure(&failure),
    };
    // Credentials are resolved once; if they are missing every valid line says so.
    let context = match dry_run {
        true => dry_run_context(settings),
        false => Context::for_action(settings.profile.as_deref(), action),
    };
    let client = context.as_ref().ok().map(|c| c.client(settings));
    let session = context.as_ref().ok().map(Context::session);

    let (tx, rx) = tokio::sync::mpsc::channel::<(u64, Result<Vec<u8>, Failure>)>(concurrency * 4);
    std::thread::spawn(move || read_lines(reader, action, tx));
    let lines = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    });

    let one = |line_no: u64, raw: Result<Vec<u8>, Failure>| {
        let context = &context;
        let client = &client;
        let session = &session;
        async move {
            let result = async {
                let input = prepare_line(action, &raw?, line_no)?;
                let context = context.as_ref().map_err(Clone::clone)?;
                let client = client
                    .as_ref()
                    .expect("a client exists when the context does")
                    .as_ref()
                    .map_err(Clone::clone)?;
                if dry_run {
                    return Ok(Success {
                        data: dry_run_request(action, context, client, &input),
                        meta: Map::new(),
                    });
                }
                let session = session
                    .as_ref()
                    .expect("a session exists when the context does");
                call_within_budget(action, context, client, session, &input, printer).await
            }
            .await;
            (line_no, result)
        }
    };

    let started = Instant::now();
    // The signal that stopped the batch, if one did (SIGINT, SIGTERM).
    let caught = std::sync::atomic::AtomicI32::new(0);
    let mut last = 0;
    let worst = runtime.block_on(async {
        // A signal stops the reading of lines; those already sent are
        // answered and printed before the process ends, so every line that
        // may have taken effect has its answer (a kill lost them, and could
        // cut a line in half).
        // So does a stdout whose reader has gone.
        let closed = tokio::sync::Notify::new();
        let stop = async {
            tokio::select! {
                () = interruption(&caught) => {}
                () = closed.notified() => {}
            }
        };
        let results = lines
            .take_until(stop)
            .map(|(n, raw)| one(n, raw))
            .buffered(concurrency.max(1));
        let mut results = std::pin::pin!(results);
        let mut worst = ExitClass::Success;
        let mut done = 0u64;
        // The failed lines, and the code of the first of the worst class.
        let mut failed = 0u64;
        let mut worst_code = String::new();
        // The first failed lines' numbers, for the summary.
        let mut failed_lines: Vec<u64> = Vec::new();
        // The first line whose answer stdout's reader did not take.
        let mut cut = None;
        while let Some((line_no, result)) = results.next().await {
            let class = match result {
                // Each line is the document a single call prints, so it
                // fits `--output-schema` or `--error-schema`; the input
                // line it answers is in its meta or its error's details.
                Ok(mut success) => {
                    success
                        .meta
                        .insert(crate::registry::BATCH_LINE.into(), json!(line_no));
                    printer.line(&json!({"data": success.data, "meta": success.meta}));
                    ExitClass::Success
                }
                Err(failure) => {
                    let failure = failure.detail(crate::registry::BATCH_LINE, json!(line_no));
                    printer.line(&printer.error_document(&failure));
                    failed += 1;
                    if failed_lines.len() < MAX_LINES_NAMED {
                        failed_lines.push(line_no);
                    }
                    if failure.class.severity() > worst.severity() {
                        worst_code = failure.code.clone();
                    }
                    failure.class
                }
            };
            if class.severity() > worst.severity() {
                worst = class;
            }
            done += 1;
            last = last.max(line_no);
            if printer.stdout_gone() && cut.is_none() {
                // Nothing more can be read: no more lines are sent, and
                // those in flight are waited for.
                cut = Some(line_no);
                closed.notify_one();
            }
            printer.progress(&format!(
                "{done} done, {:.0}/s",
                done as f64 / started.elapsed().as_secs_f64().max(1e-3)
            ));
        }
        if failed > 0 {
            // The one short line an error has on stderr; each line's own
            // error is on stdout.
            printer.progress_done();
            // Which, so a retry resends those alone: the other lines took
            // effect, and sent again they would act twice (README).
            failed_lines.sort_unstable();
            let mut named: Vec<String> = failed_lines.iter().map(u64::to_string).collect();
            if failed > failed_lines.len() as u64 {
                named.push("…".into());
            }
            let lines = if failed == 1 { "line" } else { "lines" };
            printer.stderr(&crate::output::stderr_line(&format!(
                "error: {worst_code} ({failed} of {done} lines failed: {lines} {})",
                named.join(", ")
            )));
        }
        (worst, cut)
    });
    printer.progress_done();
    let signal = caught.load(std::sync::atomic::Ordering::Relaxed);
    if signal != 0 {
        let sent = match last {
            0 => "it stopped before any line was sent".to_string(),
            last => format!(
                "each line sent has its answer above (the last, line {last}); the lines after it were not sent"
            ),
        };
        printer.stderr(&crate::output::stderr_line(&format!(
            "error: interrupted: {sent}"
        )));
        // Ended by the signal as it would have been, so the shell sees it.
        // SAFETY: signal(2) and raise(3) with a valid signal number.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
    let (worst, cut) = worst;
    // A batch of changes cut short by its reader did not do all it was
    // asked: said, and with a status a pipeline sees (its worst line's, else
    // that of a process ended by SIGPIPE, as `set -o pipefail` expects of
    // any writer). A read's reader took what it wanted; a dry run sent
    // nothing.
    if let Some(lost) = cut.filter(|_| !action.read_only() && !dry_run) {
        let answers = match lost == last {
            true => format!("the answer to line {last} was lost (it was sent)"),
            false => format!("the answers to lines {lost} to {last} were lost (they were sent)"),
        };
        printer.stderr(&crate::output::stderr_line(&format!(
            "error: stdout closed: {answers}, and the lines after line {last} were not sent"
        )));
        if worst == ExitClass::Success {
            std::process::exit(CLOSED_STDOUT_STATUS);
        }
    }
    worst
}

/// Resolves on the first SIGINT or SIGTERM (not one the process was started
/// ignoring, as `nohup` and background jobs are), recording it in `caught`;
/// a second one ends the process at once, as an impatient user means it.
async fn interruption(caught: &std::sync::atomic::AtomicI32) {
    use tokio::signal::unix::{SignalKind, signal};
    let listen = |kind: SignalKind, number: libc::c_int| {
        // SAFETY: sigaction(2) with no new action only reads the current one.
        let ignored = unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            libc::sigaction(number, std::ptr::null(), &mut current) == 0
                && current.sa_sigaction == libc::SIG_IGN
        };
        (!ignored).then(|| signal(kind).ok()).flatten()
    };
    let mut interrupt = listen(SignalKind::interrupt(), libc::SIGINT);
    let mut terminate = listen(SignalKind::terminate(), libc::SIGTERM);
    async fn next(signal: &mut Option<tokio::signal::unix::Signal>) {
        match signal {
            Some(signal) => drop(signal.recv().await),
            None => std::future::pending().await,
        }
    }
    let number = tokio::select! {
        () = next(&mut interrupt) => libc::SIGINT,
        () = next(&mut terminate) => libc::SIGTERM,
    };
    caught.store(number, std::sync::atomic::Ordering::Relaxed);
    tokio::spawn(async move {
        tokio::select! {
            () = next(&mut interrupt) => {}
            () = next(&mut terminate) => {}
        }
        std::process::exit(128 + number);
    });
}

/// The exit status of a change, or a batch of changes, whose answer its
/// closed stdout lost: a process ended by SIGPIPE's (128 + 13).
/// The failed lines a batch's summary names at most (then `…`).
const MAX_LINES_NAMED: usize = 20;

const CLOSED_STDOUT_STATUS: i32 = 141;

/// Sends `(line number, bytes)` for each non-blank line; an over-long line
/// is skipped to its end and reported, not buffered, as an input of
/// `action` over the limit is ([`too_large`]).
fn read_lines(
    mut reader: Box<dyn BufRead + Send>,
    action: &Action,
    tx: tokio::sync::mpsc::Sender<(u64, Result<Vec<u8>, Failure>)>,
) {
    // A stream in UTF-16 or UTF-32 is named from its first bytes, once:
    // its lines, split at a byte `\n`, begin mid-character (and a blank
    // first line hides the start), so each would read as another byte
    // order. One answer, and no more.
    if let Ok(start) = reader.fill_buf()
        && let Some(failure) = wide_input(start.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(start))
    {
        let _ = tx.blocking_send((1, Err(failure)));
        return;
    }
    let mut line_no = 0u64;
    loop {
        line_no += 1;
        let mut line = Vec::new();
        let mut overflow = false;
        let ended = loop {
            let buf = match reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) => {
                    let _ = tx.blocking_send((
                        line_no,
                        Err(Failure::new(
                            code::USAGE_ERROR,
                            format!("Cannot read input: {e}."),
                        )),
                    ));
                    return;
                }
            };
            if buf.is_empty() {
                break true;
            }
            let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], Some(i + 1)),
                None => (buf, None),
            };
            if !overflow {
                // A line's `\r` before its `\n` is its ending, not its
                // input: one byte over the limit may be it.
                if line.len() + chunk.len() > MAX_BODY_BYTES + 1 {
                    // Answered now, not when the line ends: a stream
                    // with no newline (`/dev/zero`) may never end it.
                    overflow = true;
                    line.extend_from_slice(&chunk[..=MAX_BODY_BYTES + 1 - line.len()]);
                    let failure = too_large(action, &line, "line");
                    line = Vec::new();
                    if tx.blocking_send((line_no, Err(failure))).is_err() {
                        return;
                    }
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            let used = found.unwrap_or(buf.len());
            reader.consume(used);
            if found.is_some() {
                break false;
            }
        };
        if line.len() > MAX_BODY_BYTES && !overflow {
            // A `\r` before the line's `\n`, not one the stream ends on.
            if line.last() == Some(&b'\r') && !ended {
                line.pop();
            } else {
                overflow = true;
                let failure = too_large(action, &line, "line");
                if tx.blocking_send((line_no, Err(failure))).is_err() {
                    return;
                }
            }
        }
        let item = if overflow {
            // Answered when it overflowed.
            None
        } else if line
            .strip_prefix(b"\xEF\xBB\xBF")
            .unwrap_or(&line)
            .iter()
            .all(u8::is_ascii_whitespace)
        {
            // Blank, or only the byte order mark before an empty first line.
            None
        } else {
            Some(Ok(line))
        };
        if let Some(item) = item
            && tx.blocking_send((line_no, item)).is_err()
        {
            return;
        }
        if ended {
            return;
        }
    }
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// An input file that cannot be opened; JSON given in its place (`exec
/// task list '{"channel": "eng"}'`) is told to go on stdin.
fn unopenable(path: &std::path::Path, e: &std::io::Error, action: &Action) -> Failure {
    let given = path.to_string_lossy();
    if given.trim_start().starts_with(['{', '[']) {
        return Failure::new(
            code::USAGE_ERROR,
            format!(
                "The input is given as an argument, which names a file: pipe the JSON to stdin instead, `echo '{}' | {}`.",
                crate::text::clip(given.trim(), crate::text::ECHO_LIMIT).replace('\'', "'\\''"),
                action.cli_command()
            ),
        );
    }
    Failure::new(
        code::USAGE_ERROR,
        format!(
            "Cannot open input file {}: {e}.",
            crate::redact::tokens(&path.display().to_string())
        ),
    )
}

/// Words of the command line written where the input goes (`get 2`, `get
/// demo#2`, `get demo 2`, `list demo`): `failure` told that the input is
/// one JSON object, with the fields those words mean, and suggesting that
/// call when it is whole (never a destructive one). `None` when the words
/// read as no input of `action`.
pub(crate) fn words_as_input(
    action: &Action,
    words: &[&str],
    failure: &Failure,
) -> Option<Failure> {
    // A token typed in argv is never repeated back.
    if words
        .iter()
        .any(|word| crate::redact::tokens(word) != *word)
    {
        return None;
    }
    let input = crate::validate::input_of_words(action, words)?;
    // Every field the input needs, those the words did not give as `…`.
    let schema = action.cached_input_schema();
    let required = |name: &str| {
        schema["required"]
            .as_array()
            .is_some_and(|r| r.iter().any(|n| n == name))
    };
    let shown: Vec<String> = schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(name, _)| input.contains_key(*name) || required(name))
        .map(|(name, _)| match input.get(name) {
            Some(value) => format!("\"{name}\": {value}"),
            None => format!("\"{name}\": …"),
        })
        .collect();
    let message = crate::error::followed_by(
        &failure.message,
        &format!(
            "The input is one JSON object, on stdin (`-`) or in a file: `echo '{{{}}}' | {}`.",
            shown.join(", "),
            action.cli_command()
        ),
    );
    // Suggested only whole: a call with `{}` for what the words left out
    // would be sent as it is, and refused.
    let failure = Failure {
        message,
        ..failure.clone()
    };
    Some(
        match (!action.destructive())
            .then(|| validate(action, Value::Object(input)).ok())
            .flatten()
        {
            Some(arguments) => failure.suggest(&action.name(), arguments),
            None => failure,
        },
    )
}

/// Reads at most [`MAX_BODY_BYTES`] and a line ending after them; a larger
/// input is refused without reading it all ([`too_large`]). The limit is
/// the input's, not its file's: a final `\n` or `\r\n` does not count.
fn read_input(source: &InputSource, action: &Action) -> Result<Vec<u8>, Failure> {
    let limit = MAX_BODY_BYTES as u64 + b"\r\n".len() as u64 + 1;
    let mut buf = Vec::new();
    match source {
        InputSource::Stdin | InputSource::Unnamed => {
            let terminal = std::io::stdin().is_terminal();
            if terminal && *source == InputSource::Unnamed {
                return Err(Failure::new(
                    code::USAGE_ERROR,
                    "No input: pipe one JSON object to stdin (`echo '{…}' | agentteam exec …`), give `-` to type it here, or pass a file path. See --help, --example and --input-schema.",
                ));
            }
            if terminal && std::io::stderr().is_terminal() {
                eprintln!("Reading one JSON object from the terminal; end it with Ctrl-D.");
            }
            std::io::stdin()
                .lock()
                .take(limit)
                .read_to_end(&mut buf)
                // Unreadable (a directory, a closed descriptor) is no JSON
                // to judge: a usage error, as for an input file or a batch.
                .map_err(|e| Failure::new(code::USAGE_ERROR, format!("Cannot read stdin: {e}.")))?;
        }
        InputSource::File(path) => {
            let file = std::fs::File::open(path).map_err(|e| {
                let failure = unopenable(path, &e, action);
                // A word meant as the input (`get 2`, `list demo`), which
                // names no file.
                match (e.kind(), path.to_str()) {
                    (std::io::ErrorKind::NotFound, Some(word)) => {
                        words_as_input(action, &[word], &failure).unwrap_or(failure)
                    }
                    _ => failure,
                }
            })?;
            // It opened: a path of the caller's, not a token typed in its place.
            file.take(limit).read_to_end(&mut buf).map_err(|e| {
                Failure::new(
                    code::USAGE_ERROR,
                    format!("Cannot read input file {}: {e}.", path.display()),
                )
            })?;
        }
    }
    let ended = buf
        .strip_suffix(b"\n")
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .unwrap_or(&buf);
    if ended.len() > MAX_BODY_BYTES {
        return Err(too_large(action, &buf[..=MAX_BODY_BYTES], "input"));
    }
    Ok(buf)
}

/// The refusal of an input (or a `--batch` line: `what`) over
/// [`MAX_BODY_BYTES`], of which `prefix` is what was read: with the strings
/// in it longer than their fields allow, when that is what makes it large,
/// so that one retry fixes both (`validate::oversized_strings`).
fn too_large(action: &Action, prefix: &[u8], what: &str) -> Failure {
    let limit = format!("The {what} exceeds {} KiB", MAX_BODY_BYTES / 1024);
    let field_errors = crate::validate::oversized_strings(action, prefix);
    let message = match field_errors.keys().next() {
        None if escapes_make_it_large(prefix) => format!(
            "{limit} as sent, a quarter of it or more in `\\uXXXX` escapes of six bytes each: sent as UTF-8 it may fit (Python: `json.dumps(..., ensure_ascii=False)`)."
        ),
        None => format!("{limit}."),
        Some(path) if field_errors.len() == 1 => {
            format!("{limit}: `{path}` is longer than its field allows; see field_errors.")
        }
        // The scan stops at the most an answer names.
        Some(_) if field_errors.len() >= crate::error::MAX_FIELD_ERRORS => format!(
            "{limit}: {} or more fields are longer than they may be; see field_errors.",
            field_errors.len()
        ),
        Some(_) => format!(
            "{limit}: {} fields are longer than they may be; see field_errors.",
            field_errors.len()
        ),
    };
    Failure {
        field_errors,
        ..Failure::new(code::INPUT_TOO_LARGE, message)
    }
}

/// Whether `\uXXXX` escapes take a quarter or more of `prefix`: text
/// escaped as ASCII (Python's default `json.dumps`) is up to six times its
/// UTF-8 size, and the limit counts bytes as sent.
fn escapes_make_it_large(prefix: &[u8]) -> bool {
    let mut escapes = 0;
    let mut at = 0;
    while at < prefix.len() {
        if prefix[at] != b'\\' {
            at += 1;
        } else if prefix.get(at + 1) == Some(&b'u')
            && prefix
                .get(at + 2..at + 6)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
        {
            escapes += 1;
            at += 6;
        } else {
            // `\\`, `\"`, `\n`: two bytes, and what follows is not escaped.
            at += 2;
        }
    }
    escapes * 6 * 4 >= prefix.len()
}

/// The refusal of input in UTF-16 or UTF-32 ([`wide_encoding`]), naming
/// the `iconv` that converts it.
fn wide_input(raw: &[u8]) -> Option<Failure> {
    let encoding = wide_encoding(raw)?;
    let family = &encoding[..6];
    Some(Failure::new(
        code::INVALID_JSON,
        format!(
            "The input is {family} text; JSON input must be UTF-8: convert it first (`iconv -f {encoding} -t UTF-8`)."
        ),
    ))
}

/// The encoding `raw` is in when it is UTF-16 or UTF-32 (PowerShell 5's
/// pipe, `Out-File` and some editors' default), as `iconv -f` names it:
/// plain `UTF-16` or `UTF-32` after a byte order mark (iconv reads the
/// order from it), else the byte order the NULs show. UTF-8 JSON never
/// holds a NUL beside an ASCII character in its first bytes, which is how
/// RFC 4627 §3 tells the encodings apart.
fn wide_encoding(raw: &[u8]) -> Option<&'static str> {
    let ascii = |b: u8| b != 0 && b.is_ascii();
    match raw {
        [0xFF, 0xFE, 0, 0, ..] | [0, 0, 0xFE, 0xFF, ..] => Some("UTF-32"),
        [0, 0, 0, b, ..] if ascii(*b) => Some("UTF-32BE"),
        [b, 0, 0, 0, ..] if ascii(*b) => Some("UTF-32LE"),
        [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => Some("UTF-16"),
        [0, b, ..] if ascii(*b) => Some("UTF-16BE"),
        [b, 0, ..] if ascii(*b) => Some("UTF-16LE"),
        _ => nul_pattern(raw),
    }
}

/// The byte order of wide text whose first character is not ASCII (`é`,
/// a no-break space): JSON is mostly ASCII, so within its first code
/// units the high bytes are NUL in the places the encoding puts them, and
/// the low bytes are not. None unless nearly all of them agree.
fn nul_pattern(raw: &[u8]) -> Option<&'static str> {
    let head = &raw[..raw.len().min(32)];
    // Of the code units of `width` bytes in `head`, how many have NUL at
    // each of the `zero` offsets and a byte that is not at `kept`.
    let agree = |width: usize, zero: &[usize], kept: usize| {
        let units: Vec<&[u8]> = head.chunks_exact(width).collect();
        let fit = units
            .iter()
            .filter(|u| zero.iter().all(|&i| u[i] == 0) && u[kept] != 0)
            .count();
        units.len() >= 4 && fit * 4 >= units.len() * 3
    };
    if agree(4, &[1, 2, 3], 0) {
        Some("UTF-32LE")
    } else if agree(4, &[0, 1, 2], 3) {
        Some("UTF-32BE")
    } else if agree(2, &[1], 0) {
        Some("UTF-16LE")
    } else if agree(2, &[0], 1) {
        Some("UTF-16BE")
    } else {
        None
    }
}

/// Exactly one JSON object.
pub fn parse_input(raw: &[u8]) -> Result<Value, Failure> {
    parse_json(raw, None)
}

/// Whether a syntax error at `line`:`column` (1-based, as serde_json
/// counts them) is the start of a `//` or `/*` comment.
fn comment_at(raw: &[u8], line: usize, column: usize) -> bool {
    let Some(text) = raw.split(|&b| b == b'\n').nth(line.saturating_sub(1)) else {
        return false;
    };
    let at = column.saturating_sub(1);
    text.get(at..)
        .is_some_and(|rest| rest.starts_with(b"//") || rest.starts_with(b"/*"))
}

/// What a syntax error at `line`:`column` (1-based) is when it is another
/// language's spelling that a model writes for JSON: a Markdown code fence
/// around the document, Python's `True`/`False`/`None`, or single quotes.
/// Said for every place at once, so one retry mends them all.
fn slip_at(raw: &[u8], line: usize, column: usize) -> Option<&'static str> {
    if raw.trim_ascii_start().starts_with(b"```") {
        return Some(
            "a Markdown code fence is no JSON: send the JSON object alone, without the ``` lines around it",
        );
    }
    let text = raw.split(|&b| b == b'\n').nth(line.saturating_sub(1))?;
    let rest = text.get(column.saturating_sub(1)..)?;
    let word = |w: &[u8]| {
        rest.starts_with(w)
            && !rest
                .get(w.len())
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    if word(b"True") || word(b"False") || word(b"None") {
        Some(
            "`True`, `False` and `None` are Python's: JSON writes every one of them `true`, `false` and `null`",
        )
    } else if word(b"undefined") {
        Some("JSON has no `undefined`: leave the field out, or write `null`")
    } else if rest.starts_with(b"'") {
        Some("JSON quotes every key and string with double quotes (`\"`), not single ones")
    } else if ["\u{201c}", "\u{201d}", "\u{2018}", "\u{2019}"]
        .iter()
        .any(|quote| rest.starts_with(quote.as_bytes()))
    {
        Some("curly quotes (`“`, `”`) are no JSON quotes: write every one of them `\"`")
    } else if unquoted_key(rest) {
        Some("JSON quotes every key with double quotes (`\"channel\": …`), not one alone")
    } else if trailing_comma_before(text, column) && trailing_commas(raw) > 1 {
        // One alone is said by the parser; several, each mended in turn,
        // would take a retry apiece.
        Some("trailing commas: JSON has none; remove every one")
    } else {
        None
    }
}

/// The lines (1-based) that hold a comment (`//` or `/*`) outside strings.
fn comment_lines(raw: &[u8]) -> Vec<usize> {
    let (mut lines, mut line, mut in_string, mut escaped) = (Vec::new(), 1, false, false);
    let mut bytes = raw.iter().peekable();
    while let Some(&b) = bytes.next() {
        match b {
            b'\n' => {
                line += 1;
                in_string = false;
            }
            _ if in_string => match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            },
            b'"' => in_string = true,
            b'/' if matches!(bytes.peek(), Some(b'/' | b'*')) => {
                if lines.last() != Some(&line) {
                    lines.push(line);
                }
                // The rest of a `//` comment's line is no JSON to read.
                if bytes.peek() == Some(&&b'/') {
                    while bytes.peek().is_some_and(|b| **b != b'\n') {
                        bytes.next();
                    }
                }
            }
            _ => {}
        }
    }
    lines
}

/// A flat YAML mapping (`channel: demo` on a line of its own, each line a
/// key and a scalar) as the JSON object it means, its scalars read as YAML
/// reads them (numbers, `true`, `false`, `null`, else text). None for
/// anything else, or past a few lines.
fn flat_yaml(raw: &[u8]) -> Option<String> {
    const MOST_LINES: usize = 20;
    let text = std::str::from_utf8(raw).ok()?;
    let text = text.trim().strip_prefix("---").unwrap_or(text).trim();
    if text.starts_with(['{', '[']) || text.lines().count() > MOST_LINES {
        return None;
    }
    let mut object = serde_json::Map::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (key, value) = line.split_once(':')?;
        let key = key.trim().trim_matches(['"', '\'']);
        let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !plain || object.contains_key(key) {
            return None;
        }
        let value = value.trim();
        let value = match value {
            "" => return None,
            "true" | "false" | "null" => serde_json::from_str(value).ok()?,
            _ if value.starts_with(['"', '[', '{']) => serde_json::from_str(value).ok()?,
            _ => value
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| Value::String(value.trim_matches('\'').to_string())),
        };
        object.insert(key.to_string(), value);
    }
    // Shown whole or not at all, and never a token the input holds.
    const MOST_SHOWN: usize = 1000;
    let shown = Value::Object(object).to_string();
    (shown.len() > 2 && shown.len() <= MOST_SHOWN && crate::redact::tokens(&shown) == shown)
        .then_some(shown)
}

/// Whether `rest` starts with a bare word and a colon (`channel: …`), a
/// key written without its quotes.
fn unquoted_key(rest: &[u8]) -> bool {
    let word = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    word > 0
        && rest[..1].iter().all(u8::is_ascii_alphabetic)
        && rest[word..].trim_ascii_start().starts_with(b":")
}

/// How many commas of `raw` stand before a `}` or `]` (blanks aside),
/// outside strings.
fn trailing_commas(raw: &[u8]) -> usize {
    let (mut count, mut in_string, mut escaped, mut comma) = (0, false, false, false);
    for &b in raw {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => (in_string, comma) = (true, false),
            b',' => comma = true,
            b'}' | b']' if comma => (count, comma) = (count + 1, false),
            b if b.is_ascii_whitespace() => {}
            _ => comma = false,
        }
    }
    count
}

/// Whether the `}` or `]` at `column` of `text` follows a comma (blanks
/// aside): a trailing comma, as JavaScript allows.
fn trailing_comma_before(text: &[u8], column: usize) -> bool {
    let at = column.saturating_sub(1);
    text.get(at).is_some_and(|b| matches!(b, b'}' | b']'))
        && text[..at].trim_ascii_end().ends_with(b",")
}

/// What follows the one object of `raw` when it is a slip said better
/// than "something follows": a comma (as between the items of a list), a
/// stray closing bracket, or another object; `None` for anything else.
fn what_follows(raw: &[u8], batch: bool) -> Option<&'static str> {
    let mut values = serde_json::Deserializer::from_slice(raw).into_iter::<serde::de::IgnoredAny>();
    values.next()?.ok()?;
    let rest = raw[values.byte_offset()..].trim_ascii();
    let one_more = |bytes: &[u8]| serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok();
    match rest.first()? {
        b',' if rest[1..].trim_ascii().is_empty() => Some(match batch {
            true => "a comma follows the object: drop it; a --batch line is one object alone",
            false => "a comma follows the object: drop it",
        }),
        b'}' | b']'
            if rest
                .iter()
                .all(|b| b"}]".contains(b) || b.is_ascii_whitespace()) =>
        {
            Some("a closing bracket follows the object that closes nothing: drop it")
        }
        b'{' if batch => {
            Some("another object follows on the same line: put it on a line of its own")
        }
        b'{' if one_more(rest) || rest.contains(&b'\n') => Some(
            "another object follows the first: send one object per call; for several, one per line with `--batch`",
        ),
        _ => None,
    }
}

/// Exactly one JSON object; `line_no` is the batch line `raw` came from,
/// which a syntax error names instead of the document's own line.
/// Whether `raw` ends inside a JSON string, its final line end aside.
fn ends_inside_a_string(raw: &[u8]) -> bool {
    let cut = raw.strip_suffix(b"\n").unwrap_or(raw);
    let cut = cut.strip_suffix(b"\r").unwrap_or(cut);
    serde_json::from_slice::<Value>(cut)
        .err()
        .is_some_and(|e| crate::json::describe(&e) == "EOF while parsing a string")
}

fn parse_json(raw: &[u8], line_no: Option<u64>) -> Result<Value, Failure> {
    // A UTF-8 byte order mark, as Windows editors and PowerShell's
    // `Out-File` write, is not part of the JSON (RFC 8259 §8.1 lets a
    // parser ignore it).
    let raw = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw);
    if let Some(failure) = wide_input(raw) {
        return Err(failure);
    }
    let value: Value = crate::json::from_slice(raw).map_err(|e| {
        let e = match e {
            crate::json::Error::Syntax(e) => e,
            crate::json::Error::DuplicateKey { key, line, column } => {
                let line = line_no.map_or(line, |n| n as usize);
                let message = crate::json::Error::duplicate_message(&key, line, column);
                return Failure::new(code::INVALID_JSON, message);
            }
        };
        let message = if e.is_eof() && raw.iter().all(u8::is_ascii_whitespace) {
            "The input is empty; send one JSON object.".to_string()
        } else if comment_at(raw, e.line(), e.column()) {
            let line = line_no.unwrap_or(e.line() as u64);
            // Several, each mended in turn, would take a retry apiece.
            let lines = comment_lines(raw);
            let every = match (&lines[..], line_no) {
                (_, Some(_)) | ([] | [_], None) => "remove it".to_string(),
                (lines, None) => format!(
                    "remove every one (lines {})",
                    lines.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                ),
            };
            format!(
                "The input is not valid JSON (line {line}, column {}): JSON has no comments; {every}.",
                e.column()
            )
        } else if let Some(object) = line_no.is_none().then(|| flat_yaml(raw)).flatten() {
            format!(
                "The input is not JSON: it reads as YAML. Send the JSON object it means: `{object}`."
            )
        } else if let Some(slip) = slip_at(raw, e.line(), e.column()) {
            let line = line_no.unwrap_or(e.line() as u64);
            format!(
                "The input is not valid JSON (line {line}, column {}): {slip}.",
                e.column()
            )
        } else if line_no.is_none()
            && crate::json::describe(&e).starts_with("something follows the object")
            && !raw.trim_ascii_start().starts_with(b"{")
        {
            // `5 x`, `[1] ]`: no object was there for anything to follow.
            "The input must be one JSON object, not an array or scalar.".to_string()
        } else if let Some(what) = crate::json::describe(&e)
            .starts_with("something follows the object")
            .then(|| what_follows(raw, line_no.is_some()))
            .flatten()
        {
            let line = line_no.unwrap_or(e.line() as u64);
            format!(
                "The input is not valid JSON (line {line}, column {}): {what}.",
                e.column()
            )
        } else {
            let line = line_no.unwrap_or(e.line() as u64);
            // A batch line that is part of an object written over several
            // lines (an indented document): the framing, not the JSON.
            let framing = match line_no {
                Some(_) if e.is_eof() || !raw.trim_ascii_start().starts_with(b"{") => {
                    "; --batch reads one whole JSON object per line (`jq -c` writes them so)"
                }
                // Input that ends inside a string was most often cut by
                // the shell (`echo '{"title":"Don't…'`), not written so;
                // `echo` and a heredoc leave their line's end inside it.
                None if ends_inside_a_string(raw) => {
                    "; an apostrophe inside shell single quotes ends them: write the input to a file or use a heredoc"
                }
                // A path's backslash (`C:\data`) read as an escape.
                None if crate::json::describe(&e).starts_with("invalid escape") => {
                    "; a backslash is written `\\\\` in JSON (`C:\\\\data`)"
                }
                _ => "",
            };
            format!(
                "The input is not valid JSON (line {line}, column {}): {}{framing}.",
                e.column(),
                crate::json::describe(&e)
            )
        };
        Failure::new(code::INVALID_JSON, message)
    })?;
    if !value.is_object() {
        // A JSON string whose text is an object: encoded twice.
        let encoded_twice = value
            .as_str()
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
            .is_some_and(|inner| inner.is_object());
        return Err(Failure::new(
            code::INVALID_JSON,
            match (line_no, value.is_array()) {
                _ if encoded_twice => {
                    "The input must be one JSON object, not a JSON string that holds one: it was encoded twice; send the object itself (decoded once, `jq -r .` of it)."
                }
                (Some(_), true) => {
                    "The input must be one JSON object per line, not an array: its items go one per line (`jq -c '.[]'` writes them so)."
                }
                // One input in a list: itself.
                (None, true)
                    if value
                        .as_array()
                        .is_some_and(|items| items.len() == 1 && items[0].is_object()) =>
                {
                    "The input must be one JSON object: send it alone, not in an array."
                }
                // Several calls' inputs: `--batch`, one per line.
                (None, true)
                    if value.as_array().is_some_and(|items| {
                        !items.is_empty() && items.iter().all(Value::is_object)
                    }) =>
                {
                    "The input must be one JSON object, not an array: for one call per object, send them with `--batch`, one per line (`jq -c '.[]'` writes them so)."
                }
                _ => "The input must be one JSON object, not an array or scalar.",
            },
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change whose foreign fields all have a fix here was meant as that
    /// change: not pointed at a read of the same input; a read still is.
    #[test]
    fn a_change_with_fixable_slips_is_not_pointed_at_a_read() {
        let claim = crate::registry::find("task", "set_claim").unwrap();
        let failure = checked(claim, json!({"channel": "eng", "number": 1})).unwrap_err();
        assert!(failure.suggested_action.is_none(), "{failure:?}");
        assert!(
            failure.field_errors["number"].contains("\"numbers\": [1]"),
            "{failure:?}"
        );
        // Numbers and a claim sent to an update are still a set_claim.
        let update = crate::registry::find("task", "update").unwrap();
        let failure = checked(
            update,
            json!({"channel": "eng", "numbers": [1], "claimed": true}),
        )
        .unwrap_err();
        assert_eq!(
            failure.suggested_action.as_ref().map(|s| s.tool.as_str()),
            Some("task_set_claim"),
            "{failure:?}"
        );
        // A change that names its task by words is pointed at the read
        // that finds it, without the fields it would change (as filters
        // they would look for the new status, not the task).
        let failure = checked(
            update,
            json!({"channel": "eng", "query": "login timeout", "status": "in_progress"}),
        )
        .unwrap_err();
        let suggested = failure.suggested_action.expect("the read");
        assert_eq!(suggested.tool, "task_list");
        assert_eq!(
            suggested.arguments,
            json!({"channel": "eng", "query": "login timeout"})
        );
        assert!(
            failure
                .message
                .contains("without the fields it would change")
        );
    }

    #[test]
    fn a_batch_line_that_is_not_a_whole_object_says_how_batches_are_framed() {
        for line in ["{", "  \"channel\": \"eng\",", "}"] {
            let failure = parse_json(line.as_bytes(), Some(3)).unwrap_err();
            assert!(failure.message.contains("(line 3,"), "{failure:?}");
            assert!(
                failure.message.contains("one whole JSON object per line"),
                "{line}: {failure:?}"
            );
        }
        let failure = parse_json(b"[{\"channel\": \"eng\"}]", Some(1)).unwrap_err();
        assert!(failure.message.contains("jq -c '.[]'"), "{failure:?}");
        // An object encoded twice (a JSON string of its text).
        let failure = parse_input(br#""{\"channel\": \"eng\"}""#).unwrap_err();
        assert!(failure.message.contains("encoded twice"), "{failure:?}");
        // Trailing text after something that is no object is said as such.
        for raw in [&b"5 x"[..], b"[1] ]", b"\"abc\" x"] {
            let failure = parse_input(raw).unwrap_err();
            assert!(
                failure
                    .message
                    .contains("one JSON object, not an array or scalar"),
                "{failure:?}"
            );
        }
        let failure = parse_input(b"{} x").unwrap_err();
        assert!(
            failure.message.contains("something follows the object"),
            "{failure:?}"
        );
        // What follows the object, where it is a slip of its own: said so,
        // and in a batch without telling it to use --batch.
        for (raw, line, said) in [
            (
                &b"{\"a\": 1},\n"[..],
                None,
                "a comma follows the object: drop it.",
            ),
            (
                b"{\"a\": 1},",
                Some(1),
                "drop it; a --batch line is one object alone.",
            ),
            (b"{\"a\": 1}}", None, "closes nothing: drop it."),
            (b"{\"a\": 1} ]", Some(2), "closes nothing: drop it."),
            (
                b"{\"a\": 1}\n{\"a\": 2}\n",
                None,
                "one per line with `--batch`.",
            ),
            (
                b"{\"a\": 1} {\"a\": 2}",
                Some(3),
                "put it on a line of its own.",
            ),
        ] {
            let failure = parse_json(raw, line).unwrap_err();
            assert!(failure.message.ends_with(said), "{failure:?}");
            assert!(
                !failure.message.contains("--batch, one per line"),
                "{failure:?}"
            );
        }
        // A whole object with a slip in it is said as it is; so is any
        // document outside a batch.
        let failure = parse_json(b"{\"channel\": \"eng\",}", Some(1)).unwrap_err();
        assert!(!failure.message.contains("per line"), "{failure:?}");
        let failure = parse_input(b"{").unwrap_err();
        assert!(!failure.message.contains("per line"), "{failure:?}");
    }

    #[test]
    fn a_comment_in_the_input_is_named_as_one() {
        for raw in [
            "{\"channel\": \"eng\", // the board\n\"number\": 1}",
            "{\"channel\": \"eng\", /* x */ \"number\": 1}",
            "// first\n{\"channel\": \"eng\"}",
        ] {
            let failure = parse_input(raw.as_bytes()).unwrap_err();
            assert_eq!(failure.code, code::INVALID_JSON.code);
            assert!(
                failure
                    .message
                    .ends_with("JSON has no comments; remove it."),
                "{raw}: {failure:?}"
            );
        }
        // A slash inside a string is no comment; another error is said as it is.
        let failure = parse_input(b"{\"url\": \"https://x\", }").unwrap_err();
        assert!(!failure.message.contains("comments"), "{failure:?}");
        // Several are named at once, each by its line (not a `//` in a string).
        let raw = "{\n  // the board\n  \"channel\": \"eng\", // here\n  \"q\": \"a // b\",\n  \"limit\": 2 /* two */\n}";
        let failure = parse_input(raw.as_bytes()).unwrap_err();
        assert!(
            failure
                .message
                .ends_with("JSON has no comments; remove every one (lines 2, 3, 5)."),
            "{failure:?}"
        );
    }

    #[test]
    fn an_array_of_inputs_is_told_to_go_with_batch() {
        let failure = parse_input(br#"[{"channel": "eng"}, {"channel": "ops"}]"#).unwrap_err();
        assert!(
            failure.message.contains("`--batch`, one per line"),
            "{failure:?}"
        );
        let failure = parse_input(b"[1, 2]").unwrap_err();
        assert!(!failure.message.contains("--batch"), "{failure:?}");
        let failure = parse_input(br#"[{"channel": "eng"}]"#).unwrap_err();
        assert!(
            failure.message.ends_with("send it alone, not in an array."),
            "{failure:?}"
        );
    }

    #[test]
    fn a_flat_yaml_mapping_is_shown_as_the_json_object_it_means() {
        let raw = "channel: eng\nlimit: 2\nquery: \"login bug\"\ninclude_subtasks: true\n";
        let failure = parse_input(raw.as_bytes()).unwrap_err();
        assert_eq!(failure.code, code::INVALID_JSON.code);
        assert!(
            failure.message.ends_with(
                r#"it reads as YAML. Send the JSON object it means: `{"channel":"eng","limit":2,"query":"login bug","include_subtasks":true}`."#
            ),
            "{failure:?}"
        );
        // Nested YAML, or a key without a value, is not guessed at.
        for raw in ["filters:\n  labels: [bug]\n", "channel: eng\nnumber\n"] {
            let failure = parse_input(raw.as_bytes()).unwrap_err();
            assert!(!failure.message.contains("YAML"), "{raw}: {failure:?}");
        }
    }

    #[test]
    fn another_languages_spelling_of_json_is_named_for_every_place_at_once() {
        for (raw, says) in [
            (
                "```json\n{\"channel\": \"eng\"}\n```",
                "without the ``` lines around it",
            ),
            (
                "{\"channel\": \"eng\", \"claimed\": True}",
                "JSON writes every one of them `true`, `false` and `null`",
            ),
            (
                "{\"channel\": \"eng\", \"assignee\": None}",
                "`None` are Python's",
            ),
            ("{'channel': 'eng', 'claimed': True}", "double quotes"),
            ("{\"channel\": 'eng'}", "double quotes"),
            ("{\"a\": undefined}", "no `undefined`"),
            ("{\"tasks\": [{\"title\": \"A\",},],}", "remove every one"),
            (
                "{\"channel\": [1, 2,], \"b\": {\"c\": 1,},}",
                "remove every one",
            ),
            ("{channel: \"eng\"}", "quotes every key"),
            ("{\u{201c}channel\u{201d}: \"eng\"}", "curly quotes"),
        ] {
            let failure = parse_input(raw.as_bytes()).unwrap_err();
            assert_eq!(failure.code, code::INVALID_JSON.code);
            assert!(failure.message.contains(says), "{raw}: {failure:?}");
        }
        // One trailing comma alone is said as the parser says it (a comma
        // inside a string is none).
        let failure = parse_input(b"{\"a\": \",}\", \"b\": [1,]}").unwrap_err();
        assert!(failure.message.ends_with("trailing comma."), "{failure:?}");
        // A word that only begins so is said as it is.
        let failure = parse_input(b"{\"a\": Trueish}").unwrap_err();
        assert!(!failure.message.contains("Python"), "{failure:?}");
    }

    /// `--paginate` says only what a data schema declares as a call at its
    /// top level: today the seven fields of an empty first page, and an
    /// update's list of the open subtasks of a task it closed.
    #[test]
    fn only_top_level_fields_declared_as_calls_are_followed_up() {
        let found: Vec<(String, Vec<String>)> = crate::registry::ACTIONS
            .iter()
            .map(|action| (action.name(), call_fields(&(action.data_schema)())))
            .filter(|(_, fields)| !fields.is_empty())
            .collect();
        assert_eq!(
            found,
            [
                (
                    "task_list".to_string(),
                    vec![
                        "subtasks_match".to_string(),
                        "closed_match".to_string(),
                        "labels_match".to_string(),
                        "filter_match".to_string(),
                        "spelling_match".to_string(),
                        "channel_match".to_string(),
                        "words_match".to_string()
                    ]
                ),
                (
                    "task_update".to_string(),
                    vec!["open_subtasks_match".to_string()]
                )
            ]
        );
    }
}
