//! The only writer to stdout and stderr for `agentteam`. Data goes to stdout
//! as exactly one JSON document per action — `{"data", "meta"}` or
//! `{"error"}` (product.md §5) — and people get a short line on stderr. A
//! closed stdout pipe ends the process quietly, the way `head` users expect.

use std::io::{self, IsTerminal, Write};

use serde_json::{Map, Value, json};

use crate::error::{ExitClass, Failure};

pub struct Printer {
    /// Indented JSON for a person at a terminal; compact when piped.
    pretty: bool,
    /// Diagnostics (`-v`) on stderr.
    pub verbose: bool,
}

impl Printer {
    pub fn new(verbose: bool) -> Printer {
        Printer {
            pretty: io::stdout().is_terminal(),
            verbose,
        }
    }

    /// Prints a success document and returns its exit class.
    pub fn success(&self, data: Value, meta: Map<String, Value>) -> ExitClass {
        self.json(&json!({"data": data, "meta": meta}));
        ExitClass::Success
    }

    /// Prints the error document on stdout and one human line (plus one per
    /// bad field) on stderr; returns the failure's exit class.
    pub fn failure(&self, failure: &Failure) -> ExitClass {
        self.json(&failure.to_document());
        let mut line = format!("error: {}: {}\n", failure.code, failure.message);
        if failure.field_errors.len() > 1 {
            for (field, problem) in &failure.field_errors {
                line.push_str(&format!("  {field}: {problem}\n"));
            }
        }
        if let Some(action) = &failure.suggested_action {
            line.push_str(&format!(
                "hint: try {} with {}\n",
                action.tool, action.arguments
            ));
        }
        self.stderr(&line);
        failure.class
    }

    /// Any JSON document on stdout (schemas, the catalog, auth results).
    pub fn json(&self, doc: &Value) {
        let mut text = if self.pretty {
            serde_json::to_string_pretty(doc).expect("JSON values serialise")
        } else {
            serde_json::to_string(doc).expect("JSON values serialise")
        };
        text.push('\n');
        self.stdout(&text);
    }

    /// Plain text on stdout (help pages, completions, man pages).
    pub fn stdout(&self, text: &str) {
        let mut out = io::stdout().lock();
        if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            exit_on_closed_pipe(e);
        }
    }

    pub fn stderr(&self, text: &str) {
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }

    /// A diagnostic line for `-v`; callers redact secrets before they get here.
    pub fn diagnostic(&self, text: &str) {
        if self.verbose {
            self.stderr(&format!("agentteam: {text}\n"));
        }
    }
}

fn exit_on_closed_pipe(error: io::Error) {
    if error.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(ExitClass::Success.code());
    }
    let _ = writeln!(io::stderr(), "error: cannot write to stdout: {error}");
    std::process::exit(ExitClass::Internal.code());
}
