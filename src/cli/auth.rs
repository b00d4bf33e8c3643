//! `agentteam auth login|status|logout`: the credential store from the
//! command line. A token is accepted only on stdin (`--token-stdin`), never
//! in argv, where other users and shell history could read it.

use std::io::{IsTerminal, Read};

use serde_json::{Value, json};

use crate::credentials::{CredentialStore, Profile, Secret, StoreFile, profile_name};
use crate::error::{ExitClass, Failure, code};
use crate::output::Printer;
use crate::registry::Permission;

/// The longest token login accepts, in bytes: far above any issued token,
/// far below a pasted document.
const MAX_TOKEN_LENGTH: usize = 4096;

/// The longest workspace or agent id, in bytes.
const MAX_ID_LENGTH: usize = 128;

/// What `auth login` was given. The profile's place (`api_url`, workspace,
/// agent) may be left out when the profile exists: it keeps its own, so a
/// new token is one command that shows no id. So may its cap
/// (`--max-permission`): a login never widens what a profile may do unless
/// it says so (`--max-permission destructive` lifts the cap). The token and
/// the credential process are what this login says, as ever.
pub struct LoginSettings {
    pub profile: Option<String>,
    pub api_url: Option<String>,
    pub workspace_id: Option<String>,
    pub agent_id: Option<String>,
    pub token_stdin: bool,
    pub credential_process: Option<String>,
    pub max_permission: Option<Permission>,
}

/// Why `value` cannot be the id `flag` takes, which is a segment of every
/// request's path: a member ref (`@handle`, which names an agent to the
/// admin commands but is no id) or a value with blanks, `/`, `?`, `#` or
/// `%`. Otherwise the login would be stored and every call refused.
fn not_an_id(flag: &str, value: &str) -> Option<String> {
    // Blanks around an id are trimmed when it is stored.
    let value = value.trim();
    if value.starts_with('@') {
        return Some(format!(
            "{flag} takes an id, not a ref like `{}`: `agentteam-runtime workspace list` and `agent list --workspace …` (or quickstart's workspace_id and agent_id) show them.",
            crate::text::clip(value, crate::text::ECHO_LIMIT)
        ));
    }
    // `.` and `..` are no path segment either: a URL drops them.
    let odd = |c: char| c.is_whitespace() || c.is_control() || "/?#%".contains(c);
    (value == "." || value == ".." || value.chars().any(odd)).then(|| {
        format!(
            "{flag} takes an id, which is not `.` or `..` and has no blanks, `/`, `?`, `#` or `%`."
        )
    })
}

pub fn login(settings: LoginSettings, printer: &Printer) -> ExitClass {
    let result = (|| {
        let api_url = settings
            .api_url
            .as_deref()
            .map(crate::credentials::check_api_url)
            .transpose()?;
        for (flag, value) in [
            ("--workspace", &settings.workspace_id),
            ("--agent", &settings.agent_id),
        ] {
            if let Some(value) = value
                && (value.trim().is_empty() || value.len() > MAX_ID_LENGTH)
            {
                return Err(Failure::new(
                    code::INVALID_INPUT,
                    format!("{flag} must be 1–{MAX_ID_LENGTH} characters."),
                )
                .field(flag.trim_start_matches('-'), "Required."));
            }
            if let Some(value) = value
                && let Some(why) = not_an_id(flag, value)
            {
                return Err(Failure::new(code::INVALID_INPUT, why.clone())
                    .field(flag.trim_start_matches('-'), &why));
            }
        }
        let credential_process = match &settings.credential_process {
            None => None,
            Some(line) if line.trim().is_empty() => {
                return Err(Failure::new(
                    code::USAGE_ERROR,
                    "--credential-process is empty: give the command line of a process that \
                     prints {\"token\": …}.",
                ));
            }
            // An argv list written as JSON (the store's own form, and how
            // exec-plugin configs write it), taken as it is.
            Some(line) if line.trim_start().starts_with('[') => {
                let argv: Vec<String> = serde_json::from_str(line)
                    .ok()
                    // A NUL cannot be passed in an argument.
                    .filter(|argv: &Vec<String>| {
                        argv.first().is_some_and(|p| !p.is_empty())
                            && !argv.iter().any(|word| word.contains('\0'))
                    })
                    .ok_or_else(|| {
                        Failure::new(
                            code::USAGE_ERROR,
                            "--credential-process starting with `[` must be a JSON list of strings, the program first (e.g. [\"aws-vault\", \"exec\"]).",
                        )
                    })?;
                Some(argv)
            }
            // A JSON object (an exec-plugin config's `{"command": …}`) is
            // no command line: its braces would be taken for the program.
            Some(line) if line.trim_start().starts_with('{') => {
                return Err(Failure::new(
                    code::USAGE_ERROR,
                    "--credential-process takes a command line or a JSON list of its words (e.g. [\"aws-vault\", \"exec\"]), not a JSON object.",
                ));
            }
            Some(line) => {
                let argv = shlex::split(line)
                    .filter(|a| !a.is_empty())
                    .ok_or_else(|| {
                        Failure::new(
                            code::USAGE_ERROR,
                            "--credential-process must be a command line with balanced quotes.",
                        )
                    })?;
                // The whole command quoted as one word (`'"prog arg"'`)
                // names a program with a space in it, which fails only at
                // the first call. (A path may hold a space: `/Apps/My App`.)
                if let [program] = argv.as_slice()
                    && program.contains(char::is_whitespace)
                    && !program.contains('/')
                {
                    return Err(Failure::new(
                        code::USAGE_ERROR,
                        "--credential-process is one quoted word with spaces in it, taken as the program's name: quote the command line once (`--credential-process 'prog arg'`), or give its words as a JSON list.",
                    ));
                }
                Some(argv)
            }
        };
        let token = if settings.token_stdin {
            Some(read_token()?)
        } else {
            None
        };
        let nothing_to_use = || {
            Failure::new(
                code::USAGE_ERROR,
                "Give --token-stdin, --credential-process, or both (a login that names another \
                 server, workspace or agent keeps neither of the profile's: they were the old \
                 place's).",
            )
        };
        let given = Place {
            api_url,
            workspace_id: settings.workspace_id.map(|id| id.trim().to_string()),
            agent_id: settings.agent_id.map(|id| id.trim().to_string()),
        };
        let store = CredentialStore::locate()?;
        // A new profile without its place, or without a token or process,
        // is refused before the store (or its directory) is touched; the
        // same checks run under the lock.
        if given.is_partial() || (token.is_none() && credential_process.is_none()) {
            let file = store.load()?;
            let name = profile_name(settings.profile.as_deref(), &file);
            let existing = file.profiles.get(&name);
            given.resolve(&name, existing)?;
            if token.is_none() && credential_process.is_none() && existing.is_none() {
                return Err(nothing_to_use());
            }
        }
        let (name, profile) = store.update(|file| {
            let name = profile_name(settings.profile.as_deref(), file);
            let existing = file.profiles.get(&name);
            let (api_url, workspace_id, agent_id) = given.resolve(&name, existing)?;
            let max_permission = settings
                .max_permission
                .or_else(|| existing.and_then(|p| p.max_permission));
            // A login of an existing profile keeps what it does not give,
            // as long as it names the same place: a new token keeps the
            // credential process that refreshes it, a new cap keeps both.
            // A token or process of another server, workspace or agent is
            // not kept.
            let kept = existing.filter(|p| {
                (&p.api_url, &p.workspace_id, &p.agent_id) == (&api_url, &workspace_id, &agent_id)
            });
            let process = credential_process
                .clone()
                .or_else(|| kept.and_then(|p| p.credential_process.clone()));
            let (token, token_expires_at) = match (&token, &credential_process, kept) {
                (Some(token), ..) => (Some(token.clone()), None),
                (None, None, Some(kept)) => (kept.token.clone(), kept.token_expires_at.clone()),
                _ => (None, None),
            };
            if token.is_none() && process.is_none() {
                return Err(nothing_to_use());
            }
            let profile = Profile {
                api_url,
                workspace_id,
                agent_id,
                token,
                token_expires_at,
                credential_process: process,
                max_permission,
            };
            // One this version could not read is replaced whole.
            file.remove(&name);
            file.profiles.insert(name.clone(), profile.clone());
            if file.default_profile.is_none() {
                file.default_profile = Some(name.clone());
            }
            Ok((name, profile))
        })?;
        if let Some(warning) = crate::credentials::cleartext_warning(&profile.api_url) {
            printer.stderr(&format!("agentteam: warning: {warning}\n"));
        }
        Ok(describe(&name, &profile, &store))
    })();
    finish(result, printer)
}

/// Where a login points, as given: each part left out is the profile's own.
struct Place {
    api_url: Option<String>,
    workspace_id: Option<String>,
    agent_id: Option<String>,
}

impl Place {
    fn is_partial(&self) -> bool {
        self.api_url.is_none() || self.workspace_id.is_none() || self.agent_id.is_none()
    }

    /// The API URL, workspace and agent of profile `name` after this login;
    /// a new profile (`existing` none) needs all three.
    fn resolve(
        &self,
        name: &str,
        existing: Option<&Profile>,
    ) -> Result<(String, String, String), Failure> {
        let part = |given: &Option<String>, kept: fn(&Profile) -> &String| {
            given.clone().or_else(|| existing.map(|p| kept(p).clone()))
        };
        let parts = (
            part(&self.api_url, |p| &p.api_url),
            part(&self.workspace_id, |p| &p.workspace_id),
            part(&self.agent_id, |p| &p.agent_id),
        );
        if let (Some(api_url), Some(workspace_id), Some(agent_id)) = parts {
            return Ok((api_url, workspace_id, agent_id));
        }
        let missing: Vec<&str> = [
            ("--api-url", &self.api_url),
            ("--workspace", &self.workspace_id),
            ("--agent", &self.agent_id),
        ]
        .into_iter()
        .filter(|(_, given)| given.is_none())
        .map(|(flag, _)| flag)
        .collect();
        Err(Failure::new(
            code::USAGE_ERROR,
            format!(
                "Profile `{name}` is new, so it needs {}; a login to an existing profile may leave them out.",
                missing.join(", ")
            ),
        ))
    }
}

pub fn status(profile: Option<String>, printer: &Printer) -> ExitClass {
    let result = (|| {
        let store = CredentialStore::locate()?;
        let file = store.load()?;
        let name = profile_name(profile.as_deref(), &file);
        let selected = file.selected(&name, &store.path())?;
        let mut data = describe(&name, selected, &store);
        data["profiles"] = json!(file.profiles.keys().collect::<Vec<_>>());
        // Those a newer version (or a hand) wrote that this one cannot read.
        if !file.unreadable.is_empty() {
            data["unreadable_profiles"] = json!(file.unreadable.keys().collect::<Vec<_>>());
        }
        data["default_profile"] = json!(file.default_profile);
        Ok(data)
    })();
    finish(result, printer)
}

pub fn logout(profile: Option<String>, printer: &Printer) -> ExitClass {
    let result = (|| {
        let store = CredentialStore::locate()?;
        // Nothing to remove: nothing is written (no config dir, lock or
        // store is made for it).
        let file = store.load()?;
        let name = profile_name(profile.as_deref(), &file);
        if !file.holds(&name) && file.default_profile.as_deref() != Some(&name) {
            return Ok(json!({"profile": name, "removed": false}));
        }
        let (name, removed) = store.update(|file: &mut StoreFile| {
            let name = profile_name(profile.as_deref(), file);
            let removed = file.remove(&name);
            if file.default_profile.as_deref() == Some(name.as_str()) {
                file.default_profile = None;
            }
            Ok((name, removed))
        })?;
        Ok(json!({"profile": name, "removed": removed}))
    })();
    finish(result, printer)
}

fn finish(result: Result<Value, Failure>, printer: &Printer) -> ExitClass {
    match result {
        Ok(data) => printer.document(data),
        Err(failure) => printer.failure(&failure),
    }
}

/// A profile as `auth` prints it: the token is never shown, nor the credential
/// process's arguments (which may hold a secret): only its program.
fn describe(name: &str, profile: &Profile, store: &CredentialStore) -> Value {
    json!({
        "profile": name,
        "api_url": profile.api_url,
        "workspace_id": profile.workspace_id,
        "agent_id": profile.agent_id,
        "token": profile.token.as_ref().map(|_| "<redacted>"),
        "token_expires_at": profile.token_expires_at,
        "max_permission": profile.cap(),
        "credential_process": profile
            .credential_process
            .as_ref()
            .and_then(|argv| argv.first()),
        "store": store.path(),
    })
}

fn read_token() -> Result<Secret, Failure> {
    if std::io::stdin().is_terminal() {
        return Err(Failure::new(
            code::USAGE_ERROR,
            "--token-stdin reads the token from a pipe, e.g. `printf %s \"$TOKEN\" | agentteam auth login … --token-stdin`.",
        ));
    }
    let mut text = String::new();
    std::io::stdin()
        .lock()
        .take(16 * 1024)
        .read_to_string(&mut text)
        .map_err(|e| {
            Failure::new(
                code::USAGE_ERROR,
                format!("Cannot read the token from stdin: {e}."),
            )
        })?;
    let token = text.trim();
    check_token_shape(token).map_err(|why| Failure::new(code::USAGE_ERROR, why))?;
    Ok(Secret::new(token.to_string()))
}

/// A token is one printable word: visible ASCII, no whitespace, braces or
/// quotes, at most [`MAX_TOKEN_LENGTH`] bytes. Checked at login, so a pasted
/// JSON document or a stray line fails here and not as a bare 401 on the
/// next call. The messages never echo the token.
fn check_token_shape(token: &str) -> Result<(), String> {
    if token.is_empty() {
        return Err("stdin holds no token; pipe exactly one token.".into());
    }
    if token.starts_with('{')
        && serde_json::from_str::<Value>(token).is_ok_and(|v| v.get("token").is_some())
    {
        return Err("stdin holds a JSON document, not a token; pipe only its token, e.g. \
             `agentteam-runtime token issue … | jq -r .token | agentteam auth login … --token-stdin`."
            .into());
    }
    if token.chars().any(char::is_whitespace) {
        return Err("stdin must hold exactly one token, without spaces or several lines.".into());
    }
    if let Some(bad) = token
        .chars()
        .find(|c| !c.is_ascii_graphic() || matches!(c, '{' | '}' | '"'))
    {
        let what = if bad.is_ascii_graphic() {
            format!("`{bad}`")
        } else {
            "a non-printable or non-ASCII character".to_string()
        };
        return Err(format!(
            "The token holds {what}; a token is printable ASCII without braces or quotes. Pipe the bare token (from a JSON document: `jq -r .token`)."
        ));
    }
    if token.len() > MAX_TOKEN_LENGTH {
        return Err(format!(
            "The token is longer than {MAX_TOKEN_LENGTH} bytes; pipe only the token."
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_token_shape;

    #[test]
    fn login_takes_one_printable_word() {
        assert!(check_token_shape("at_abc-DEF.123~_/+=").is_ok());
        let json = check_token_shape(r#"{"token": "at_x", "expires_at": null}"#).unwrap_err();
        assert!(
            json.contains("jq -r .token") && !json.contains("at_x"),
            "{json}"
        );
        for bad in ["", "a b", "a\nb", "a{b", "a\"b", "é", "a\u{7}"] {
            let why = check_token_shape(bad).unwrap_err();
            assert!(!why.is_empty(), "{bad:?}");
        }
        assert!(check_token_shape(&"a".repeat(4097)).is_err());
        assert!(check_token_shape(&"a".repeat(4096)).is_ok());
    }
}
