//! `agentteam exec <domain> <action>`: read input → validate → resolve hidden
//! context → call → print. Nothing here knows a domain: the action comes
//! from the registry and everything about it is read from its entry.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::client::{Client, ClientSettings, Session};
use crate::credentials::{CredentialStore, profile_name};
use crate::env_vars;
use crate::error::{ExitClass, Failure, code};
use crate::output::Printer;
use crate::registry::Action;
use crate::validate::validate;
use crate::wire::{self, MAX_BODY_BYTES, WorkflowContext};

/// Where the JSON input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputSource {
    Stdin,
    File(PathBuf),
}

/// Settings resolved from flags and environment; no clap types past here.
pub struct ExecSettings {
    pub action: &'static Action,
    pub input: InputSource,
    pub profile: Option<String>,
    pub timeout: Duration,
    pub retries: u32,
}

pub fn run(settings: &ExecSettings, printer: &Printer) -> ExitClass {
    match execute(settings, printer) {
        Ok(success) => printer.success(success.data, success.meta),
        Err(failure) => printer.failure(&failure),
    }
}

fn execute(settings: &ExecSettings, printer: &Printer) -> Result<wire::Success, Failure> {
    let action = settings.action;
    let raw = read_input(&settings.input)?;
    let input = parse_input(&raw)?;
    let input = validate(action, input)?;

    let store = CredentialStore::locate()?;
    let file = store.load()?;
    let name = profile_name(settings.profile.as_deref(), &file);
    let profile = file.profiles.get(&name).cloned().ok_or_else(|| {
        Failure::new(
            code::CREDENTIALS_MISSING,
            format!(
                "No profile `{name}` in {}; run `agentteam auth login`.",
                store.path().display()
            ),
        )
    })?;
    for (field, value) in [
        ("api_url", &profile.api_url),
        ("workspace_id", &profile.workspace_id),
        ("agent_id", &profile.agent_id),
    ] {
        if value.trim().is_empty() {
            return Err(Failure::new(
                code::CREDENTIALS_MISSING,
                format!("Profile `{name}` has no {field}; run `agentteam auth login`."),
            ));
        }
    }
    let workflow = WorkflowContext {
        workflow_run_id: non_empty_env(env_vars::WORKFLOW_RUN_ID.name),
        callback_effect_id: non_empty_env(env_vars::CALLBACK_EFFECT_ID.name),
    };
    let request = wire::encode_request(
        action,
        &profile.workspace_id,
        &profile.agent_id,
        &input,
        &workflow,
    );
    let client = Client::new(
        &profile.api_url,
        ClientSettings {
            timeout: settings.timeout,
            retries: settings.retries,
        },
    )?;
    let mut session = Session {
        store: &store,
        profile_name: name,
        profile,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            Failure::new(
                code::INTERNAL_ERROR,
                format!("Cannot start the async runtime: {e}."),
            )
        })?;
    runtime.block_on(client.call(&request, &mut session, action.may_retry(&input), printer))
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// Reads at most [`MAX_BODY_BYTES`]; a larger input is refused without reading it all.
fn read_input(source: &InputSource) -> Result<Vec<u8>, Failure> {
    let too_large = || {
        Failure::new(
            code::INPUT_TOO_LARGE,
            format!("The input exceeds {} KiB.", MAX_BODY_BYTES / 1024),
        )
    };
    let limit = MAX_BODY_BYTES as u64 + 1;
    let mut buf = Vec::new();
    match source {
        InputSource::Stdin => {
            if std::io::stdin().is_terminal() {
                return Err(Failure::new(
                    code::USAGE_ERROR,
                    "No input: pipe one JSON object to stdin (`echo '{…}' | agentteam exec …`), or pass a file path. See --help and --input-schema.",
                ));
            }
            std::io::stdin()
                .lock()
                .take(limit)
                .read_to_end(&mut buf)
                .map_err(|e| {
                    Failure::new(code::INVALID_JSON, format!("Cannot read stdin: {e}."))
                })?;
        }
        InputSource::File(path) => {
            let file = std::fs::File::open(path).map_err(|e| {
                Failure::new(
                    code::USAGE_ERROR,
                    format!("Cannot open input file {}: {e}.", path.display()),
                )
            })?;
            if file.metadata().map(|m| m.len() >= limit).unwrap_or(false) {
                return Err(too_large());
            }
            file.take(limit).read_to_end(&mut buf).map_err(|e| {
                Failure::new(
                    code::USAGE_ERROR,
                    format!("Cannot read input file {}: {e}.", path.display()),
                )
            })?;
        }
    }
    if buf.len() > MAX_BODY_BYTES {
        return Err(too_large());
    }
    Ok(buf)
}

/// Exactly one JSON object.
pub fn parse_input(raw: &[u8]) -> Result<Value, Failure> {
    let value: Value = serde_json::from_slice(raw).map_err(|e| {
        let message = if e.is_eof() && raw.iter().all(u8::is_ascii_whitespace) {
            "The input is empty; send one JSON object.".to_string()
        } else {
            format!(
                "The input is not valid JSON (line {}, column {}): {}.",
                e.line(),
                e.column(),
                classify(&e)
            )
        };
        Failure::new(code::INVALID_JSON, message)
    })?;
    if !value.is_object() {
        return Err(Failure::new(
            code::INVALID_JSON,
            "The input must be one JSON object, not an array or scalar.",
        ));
    }
    Ok(value)
}

fn classify(error: &serde_json::Error) -> &'static str {
    match error.classify() {
        serde_json::error::Category::Eof => "it ends early",
        serde_json::error::Category::Syntax => "syntax error",
        serde_json::error::Category::Data => "unexpected data",
        serde_json::error::Category::Io => "read error",
    }
}
