//! The only writer to stdout and stderr for `agentteam`. In `json` format
//! stdout carries exactly one JSON document per action — `{"data", "meta"}`
//! or `{"error"}` (README "Output") — or one per line in the NDJSON modes;
//! `text` renders the action's own view for a person. People get a short
//! line on stderr for errors. A closed stdout pipe (the reader gone, as
//! `head` leaves it) is no error of its own: nothing more is written there,
//! streams stop, and the run ends with the status it would have had.

use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;

use serde_json::{Map, Value, json};

use crate::error::{ExitClass, Failure};
use crate::registry::{Action, find_by_name};
use crate::text::Style;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The authority: one JSON document (compact when piped, indented on a terminal).
    Json,
    /// A short human view: tables, summaries, one-line receipts and errors.
    Text,
}

pub struct Printer {
    pub format: Format,
    /// Indented JSON for a person at a terminal; compact when piped.
    pretty: bool,
    pub style: Style,
    /// Diagnostics (`-v`) on stderr.
    pub verbose: bool,
    /// Progress lines on stderr: only when stderr is a terminal.
    pub progress: bool,
    /// A progress line is on the terminal now: cleared before anything else
    /// is printed, which would otherwise run on from it.
    progress_shown: std::sync::atomic::AtomicBool,
    /// Set once a write to stdout found its reader gone (EPIPE).
    stdout_gone: std::sync::atomic::AtomicBool,
    /// The tokens this run has sent ([`Printer::redact`]).
    secrets: Mutex<Vec<String>>,
    /// The `--profile` given on the command line: a suggested command
    /// carries it, so that following it acts as the same agent.
    profile: Option<String>,
}

/// What a sent token becomes in anything printed.
pub const REDACTED: &str = "<redacted>";

/// Tokens shorter than this are not searched for in output: replacing a
/// word that short would mangle ordinary text. Every token the runtime
/// issues is 46 bytes.
pub const REDACT_MIN_BYTES: usize = 8;

impl Printer {
    /// `format`: the user's choice; by default `text` on a terminal, `json` otherwise.
    pub fn new(format: Option<Format>, verbose: bool) -> Printer {
        let terminal = io::stdout().is_terminal();
        Printer {
            format: format.unwrap_or(if terminal { Format::Text } else { Format::Json }),
            pretty: terminal,
            style: Style::detect(terminal),
            verbose,
            progress: io::stderr().is_terminal() && crate::text::takes_escapes(),
            progress_shown: std::sync::atomic::AtomicBool::new(false),
            stdout_gone: std::sync::atomic::AtomicBool::new(false),
            secrets: Mutex::new(Vec::new()),
            profile: None,
        }
    }

    /// A printer whose suggested commands name `--profile profile`: the
    /// one given on the command line (`AGENTTEAM_PROFILE` is inherited by
    /// the command that follows a suggestion anyway).
    pub fn with_profile(mut self, profile: Option<String>) -> Printer {
        self.profile = profile;
        self
    }

    /// `error_document` as this run prints it (its `--profile` in a
    /// suggested command).
    pub fn error_document(&self, failure: &Failure) -> Value {
        error_document(failure, self.profile.as_deref())
    }

    /// From now on `secret` is printed as [`REDACTED`] wherever it would
    /// appear, on stdout and stderr alike: a server (or a proxy) that echoes
    /// the bearer token in an answer cannot make the CLI print it.
    pub fn redact(&self, secret: &crate::credentials::Secret) {
        let secret = secret.expose();
        if secret.len() < REDACT_MIN_BYTES {
            return;
        }
        let mut secrets = self.secrets.lock().unwrap_or_else(|e| e.into_inner());
        if !secrets.iter().any(|known| known == secret) {
            secrets.push(secret.to_string());
        }
    }

    /// `text` with every known secret replaced.
    fn redacted<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        let secrets = self.secrets.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = std::borrow::Cow::Borrowed(text);
        for secret in secrets.iter() {
            if text.contains(secret.as_str()) {
                text = std::borrow::Cow::Owned(text.replace(secret.as_str(), REDACTED));
            }
        }
        text
    }

    /// Prints an action's success and returns its exit class.
    pub fn success(&self, action: &Action, data: Value, meta: Map<String, Value>) -> ExitClass {
        match self.format {
            Format::Json => self.json(&json!({"data": data, "meta": meta})),
            Format::Text => {
                let mut text = (action.text)(&data, &self.style);
                if let Some(cursor) = meta.get("next_cursor").and_then(Value::as_str) {
                    let cursor = crate::text::escape(cursor);
                    text.push_str(&format!("More results: pass \"cursor\": \"{cursor}\" with the same input, or use --paginate.\n"));
                }
                if meta.get("truncated") == Some(&Value::Bool(true)) {
                    text.push_str("(truncated: a part was cut, by the result budget or a section's item bound; see the JSON output for where to continue)\n");
                }
                self.stdout(&text);
            }
        }
        ExitClass::Success
    }

    /// A success document that is not an action result (auth, dry runs).
    pub fn document(&self, data: Value) -> ExitClass {
        match self.format {
            Format::Json => self.json(&json!({"data": data, "meta": {}})),
            Format::Text => self.stdout(&crate::text::record(&data, &[], &self.style)),
        }
        ExitClass::Success
    }

    /// Prints the error: in `json` the document on stdout and one short line
    /// on stderr that names the code and points at the document (which
    /// holds the message and the details, so an agent reading both streams
    /// pays for them once); in `text` only the human view. Returns the exit
    /// class.
    pub fn failure(&self, failure: &Failure) -> ExitClass {
        if self.format == Format::Json {
            self.json(&self.error_document(failure));
            self.stderr(&json_mode_line(failure));
        } else {
            self.stderr(&human_error(failure, self.profile.as_deref()));
        }
        failure.class
    }

    /// The error as the last NDJSON line of a stream, plus one short line.
    pub fn failure_line(&self, failure: &Failure) -> ExitClass {
        self.line(&self.error_document(failure));
        self.stderr(&json_mode_line(failure));
        failure.class
    }

    /// One NDJSON line (batch results, paginated items).
    pub fn line(&self, doc: &Value) {
        let text = serde_json::to_string(doc).expect("JSON values serialise");
        let mut text = crate::text::json_escape_terminal(text);
        text.push('\n');
        self.stdout(&text);
    }

    /// Any JSON document on stdout (schemas, the catalog).
    pub fn json(&self, doc: &Value) {
        let text = if self.pretty {
            serde_json::to_string_pretty(doc).expect("JSON values serialise")
        } else {
            serde_json::to_string(doc).expect("JSON values serialise")
        };
        let mut text = crate::text::json_escape_terminal(text);
        text.push('\n');
        self.stdout(&text);
    }

    /// Plain text on stdout (help pages, completions); nothing once its
    /// reader is gone.
    pub fn stdout(&self, text: &str) {
        self.clear_progress();
        if self.stdout_gone() {
            return;
        }
        let text = self.redacted(text);
        let mut out = io::stdout().lock();
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => self
                .stdout_gone
                .store(true, std::sync::atomic::Ordering::Relaxed),
            Err(e) => {
                let _ = writeln!(io::stderr(), "error: cannot write to stdout: {e}");
                std::process::exit(ExitClass::Internal.code());
            }
        }
    }

    /// Whether stdout's reader has gone (a write met EPIPE): a stream stops,
    /// since nothing it prints can be read.
    pub fn stdout_gone(&self) -> bool {
        self.stdout_gone.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn stderr(&self, text: &str) {
        self.clear_progress();
        let text = self.redacted(text);
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }

    /// Clears a progress line left on the terminal.
    fn clear_progress(&self) {
        if self
            .progress_shown
            .swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            let _ = io::stderr().lock().write_all(b"\r\x1b[2K");
        }
    }

    /// A diagnostic line for `-v`; callers redact secrets before they get here.
    pub fn diagnostic(&self, text: &str) {
        if self.verbose {
            self.stderr(&format!("agentteam: {text}\n"));
        }
    }

    /// Overwrites the progress line on a terminal's stderr; silent otherwise.
    pub fn progress(&self, text: &str) {
        if self.progress {
            self.stderr(&format!("\r\x1b[2K{text}"));
            self.progress_shown
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    pub fn progress_done(&self) {
        self.clear_progress();
    }
}

/// The one stderr line of a JSON-mode failure: its code. The message and
/// the details are in the document on stdout, once.
fn json_mode_line(failure: &Failure) -> String {
    stderr_line(&format!("error: {}", failure.code))
}

/// The most a JSON-mode failure adds on stderr, newline included.
pub const STDERR_LINE_BYTES: usize = 200;

/// `text` as one line of at most [`STDERR_LINE_BYTES`]: line breaks become
/// spaces, and a longer text is cut at a character boundary and ends in `…`.
pub fn stderr_line(text: &str) -> String {
    let flat = crate::text::escape(text);
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.len() < STDERR_LINE_BYTES {
        return format!("{flat}\n");
    }
    let room = STDERR_LINE_BYTES - "…\n".len();
    let mut end = room;
    while !flat.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…\n", &flat[..end])
}

/// The error document as the CLI prints it: a suggested action also names
/// the command that runs it, since a tool name (`task_get`) is not a route,
/// with the `--profile` the failed call was given (`profile`), so that it
/// runs as the same agent.
fn error_document(failure: &Failure, profile: Option<&str>) -> Value {
    let mut failure = failure.clone();
    if let Some(action) = failure.suggested_action.as_mut() {
        if action.command.is_none() {
            action.command = find_by_name(&action.tool).map(|a| a.cli_command());
        }
        action.command = action.command.take().map(|c| with_profile(c, profile));
    }
    failure.to_document()
}

/// `command` (`agentteam exec …`) with `--profile profile`, when one was
/// given and the command names none.
fn with_profile(command: String, profile: Option<&str>) -> String {
    match (command.strip_prefix("agentteam "), profile) {
        // A name shaped like a token (one typed in the wrong place) is not
        // repeated: `<redacted>` then names no profile, and the command
        // fails rather than act as another agent.
        (Some(rest), Some(profile)) if !rest.contains("--profile") => format!(
            "agentteam {} {rest}",
            crate::credentials::profile_flag(&crate::redact::tokens(profile))
        ),
        _ => command,
    }
}

/// The error as a person reads it on a terminal: a message may quote input or
/// come from a server, so its control and bidi characters are escaped.
fn human_error(failure: &Failure, profile: Option<&str>) -> String {
    use crate::text::escape;
    let mut line = format!(
        "error: {}: {}\n",
        escape(&failure.code),
        escape(&failure.message)
    );
    for (field, problem) in &failure.field_errors {
        let field = if field.is_empty() { "input" } else { field };
        line.push_str(&format!("  {}: {}\n", escape(field), escape(problem)));
    }
    if let Some(first) = failure.candidate_list().first() {
        let values: Vec<String> = failure
            .candidate_list()
            .iter()
            .filter(|c| c.field == first.field)
            .map(|c| match (&c.value, &c.title) {
                (Value::String(s), _) => s.clone(),
                (v, Some(title)) => format!("{v} ({title})"),
                (v, None) => v.to_string(),
            })
            .collect();
        line.push_str(&format!(
            "  {} candidates: {}\n",
            escape(&first.field),
            escape(&values.join(", "))
        ));
    }
    if let Some(action) = &failure.suggested_action {
        let arguments = escape(&action.arguments.to_string()).into_owned();
        match find_by_name(&action.tool) {
            // Single quotes keep the JSON intact in a POSIX shell, unless it holds one.
            Some(a) if !arguments.contains('\'') => {
                let command = with_profile(a.cli_command(), profile);
                line.push_str(&format!("hint: echo '{arguments}' | {command}\n"));
            }
            _ => line.push_str(&format!(
                "hint: try {} with {arguments}\n",
                escape(&action.tool)
            )),
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::{STDERR_LINE_BYTES, stderr_line};

    #[test]
    fn a_stderr_line_is_one_bounded_line() {
        assert_eq!(stderr_line("error: x: short"), "error: x: short\n");
        assert_eq!(stderr_line("a\n  b\nc"), "a b c\n");
        let long = stderr_line(&format!("error: x: {}", "é".repeat(300)));
        assert!(long.len() <= STDERR_LINE_BYTES, "{}", long.len());
        assert!(long.ends_with("…\n") && long.lines().count() == 1);
    }
}
