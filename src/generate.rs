//! Every generated artifact, as pure functions over the registry: the shell
//! completions in `completions/` (written by [`crate::cli::completions`],
//! which `agentteam completions` prints), the man pages in `man/`, the
//! schema files in `schemas/`, the OpenAPI document `openapi.json`
//! ([`crate::openapi`]) and the README's tables. Nothing here touches
//! the file system; `tests/testsuite/generated.rs`
//! compares these contents with the checked-in files (the drift test) and,
//! with `AGENTTEAM_REGENERATE=1`, writes them. Output is deterministic: no
//! dates, no paths of the build machine, registry order throughout.

use anyhow::Context;
use clap::Command;
use clap_complete::Generator;
use clap_mangen::Man;
// clap_mangen re-exports the `roff` version it renders with; using it keeps
// the custom sections byte-compatible with the clap-rendered ones.
use clap_mangen::roff::{Roff, bold, italic, line_break, roman};

use crate::cli::completions::BIN_NAME;
use crate::cli::help;
use crate::credentials;
use crate::env_vars;
use crate::error::ExitClass;
use crate::registry::{self, ACTIONS, Action};
use crate::schemas;

/// The one command that rewrites every artifact below.
pub const REGENERATE_COMMAND: &str =
    "AGENTTEAM_REGENERATE=1 cargo test --test testsuite generated::";

/// One generated file: its path relative to the package root, and its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub path: String,
    pub contents: String,
}

/// The directories whose every file is generated (a file there that is not
/// generated is stale).
pub const GENERATED_DIRS: &[&str] = &["completions", "man", schemas::DIR];

pub const README: &str = "README.md";

/// The file of compiled validators.
pub const VALIDATORS_FILE: &str = "src/schemas/compiled.rs";

/// [`VALIDATORS_FILE`]'s text: one `Name = "schema file"` line per action,
/// in registry order (`TaskSetClaim` for `task_set_claim`).
pub fn validators_text() -> String {
    let lines: String = crate::registry::ACTIONS
        .iter()
        .map(|action| {
            let name: String = action
                .name()
                .split('_')
                .map(|word| {
                    let mut chars = word.chars();
                    chars
                        .next()
                        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                        .unwrap_or_default()
                })
                .collect();
            format!("    {name} = \"{}\",\n", schemas::input_file(action))
        })
        .collect();
    format!(
        "//! Generated from the registry (do not edit; regenerate with\n//! `{}`).\n\nuse super::Compiled;\n\ncompiled! {{\n{lines}}}\n",
        REGENERATE_COMMAND
    )
}

/// Every artifact. `readme` is the current README; only the text between its
/// generation markers is replaced.
pub fn all(readme: &str) -> anyhow::Result<Vec<Artifact>> {
    let mut out = completions();
    out.extend(man_pages());
    out.extend(schema_files());
    out.push(Artifact {
        path: VALIDATORS_FILE.into(),
        contents: validators_text(),
    });
    out.push(Artifact {
        path: crate::openapi::FILE.into(),
        contents: crate::openapi::text(),
    });
    out.push(Artifact {
        path: README.into(),
        contents: readme_with_tables(readme)?,
    });
    Ok(out)
}

// ---------------------------------------------------------------- completions

/// The shells and scripts of `agentteam completions`, which the CLI writes.
pub use crate::cli::completions::{SHELLS, script as completion};

pub fn completions() -> Vec<Artifact> {
    SHELLS
        .iter()
        .map(|&shell| Artifact {
            path: format!("completions/{}", shell.file_name(BIN_NAME)),
            contents: completion(shell),
        })
        .collect()
}

// ---------------------------------------------------------------- schemas

/// `schemas/`: each action's input and output schema, then the error
/// document's, pretty-printed; src/schemas/ compiles the input ones.
pub fn schema_files() -> Vec<Artifact> {
    let file = |path: String, schema: &serde_json::Value| Artifact {
        path,
        contents: format!(
            "{}\n",
            serde_json::to_string_pretty(schema).expect("JSON values serialise")
        ),
    };
    let mut out = Vec::new();
    for action in ACTIONS {
        out.push(file(
            schemas::input_file(action),
            action.cached_input_schema(),
        ));
        out.push(file(schemas::output_file(action), &action.output_schema()));
    }
    let error = crate::error::error_schema();
    out.push(file(schemas::ERROR_FILE.into(), &error));
    out
}

// ---------------------------------------------------------------- man pages

/// `man/agentteam.1`, one page per subcommand and action, and the runtime's pages.
pub fn man_pages() -> Vec<Artifact> {
    let mut out = Vec::new();
    let mut cli = crate::cli::command().disable_help_subcommand(true);
    cli.build();
    agentteam_pages(&cli, &mut out);
    let mut runtime = crate::runtime::cli::command().disable_help_subcommand(true);
    runtime.build();
    runtime_pages(&runtime, &mut out);
    out
}

fn agentteam_pages(cmd: &Command, out: &mut Vec<Artifact>) {
    let page = display_name(cmd);
    let contents = match action_of(cmd) {
        Some(action) => action_page(cmd, action),
        None if page == "agentteam" => man_page(cmd, None, top_level_sections),
        None => man_page(cmd, None, |roff, cmd| {
            exit_status_section(roff, &cli_exits());
            see_also_section(roff, cmd);
        }),
    };
    out.push(Artifact {
        path: format!("man/{page}.1"),
        contents,
    });
    for sub in visible_subcommands(cmd) {
        agentteam_pages(sub, out);
    }
}

fn runtime_pages(cmd: &Command, out: &mut Vec<Artifact>) {
    let contents = man_page(cmd, None, |roff, cmd| {
        if cmd.get_name() == "agentteam-runtime" {
            exit_status_section(roff, &runtime_exits());
            environment_section(roff, |var| var.binary == "agentteam-runtime");
        }
        see_also_section(roff, cmd);
    });
    out.push(Artifact {
        path: format!("man/{}.1", display_name(cmd)),
        contents,
    });
    for sub in visible_subcommands(cmd) {
        runtime_pages(sub, out);
    }
}

/// The registry action a built `agentteam exec <domain> <verb>` command stands for.
fn action_of(cmd: &Command) -> Option<&'static Action> {
    let bin = cmd.get_bin_name()?;
    let words: Vec<&str> = bin.split(' ').collect();
    match words.as_slice() {
        ["agentteam", "exec", domain, verb] => registry::find(domain, verb),
        _ => None,
    }
}

fn display_name(cmd: &Command) -> String {
    cmd.get_display_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_string()
}

fn visible_subcommands(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands().filter(|s| !s.is_hide_set())
}

/// A page: clap's title, NAME, SYNOPSIS, DESCRIPTION (or `description`),
/// OPTIONS and SUBCOMMANDS, then the sections `extra` writes, then VERSION.
/// clap's after-help ("EXTRA") is left out: its content (exit statuses) has
/// a proper section here.
fn man_page(
    cmd: &Command,
    description: Option<Roff>,
    extra: impl FnOnce(&mut Roff, &Command),
) -> String {
    let man = Man::new(cmd.clone());
    let mut parts = vec![
        rendered(|w| man.render_title(w)),
        // No hyphenation: command names and paths must stay copyable.
        ".nh\n".to_string(),
        rendered(|w| man.render_name_section(w)),
        rendered(|w| man.render_synopsis_section(w)),
        match &description {
            Some(roff) => roff.render(),
            None => rendered(|w| man.render_description_section(w)),
        },
    ];
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        parts.push(rendered(|w| man.render_options_section(w)));
    }
    if visible_subcommands(cmd).next().is_some() {
        parts.push(rendered(|w| man.render_subcommands_section(w)));
    }
    let mut sections = Roff::new();
    extra(&mut sections, cmd);
    parts.push(sections.render());
    if cmd.get_version().is_some() {
        parts.push(rendered(|w| man.render_version_section(w)));
    }

    // Every render starts with the same apostrophe preamble; keep one.
    let preamble = Roff::new().render();
    let mut page = preamble.clone();
    for part in &parts {
        page.push_str(part.strip_prefix(preamble.as_str()).unwrap_or(part));
    }
    breakable_paths(&ascii_roff(&page))
}

/// `page` with a break point (`\:`, zero width) after each `/` of a long
/// path in its text: a route such as
/// `/api/v1/workspaces/{workspaceId}/agents/{agentId}/runtime/tasks/add-checkpoint`
/// is wider than a terminal's line, and groff cannot break it otherwise
/// (it warns, and runs it past the margin). Copied from the rendered page,
/// the path is the same.
fn breakable_paths(page: &str) -> String {
    page.lines()
        .map(|line| {
            if line.starts_with(['.', '\'']) {
                return line.to_string();
            }
            line.split(' ')
                .map(|word| {
                    if word.len() > 40 && word.contains('/') {
                        word.replace('/', "/\\:")
                    } else {
                        word.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .map(|line| line + "\n")
        .collect()
}

fn rendered(render: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut buf = Vec::new();
    render(&mut buf).expect("writing to a Vec cannot fail");
    String::from_utf8(buf).expect("roff output of UTF-8 input is UTF-8")
}

/// groff reads its input as Latin-1 unless told otherwise; named escapes for
/// every non-ASCII character make the pages render the same everywhere.
fn ascii_roff(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
        match c {
            c if c.is_ascii() => out.push(c),
            '–' => out.push_str(r"\(en"),
            '—' => out.push_str(r"\(em"),
            '…' => out.push_str("..."),
            '→' => out.push_str(r"\(->"),
            c => out.push_str(&format!(r"\[u{:04X}]", c as u32)),
        }
    }
    out
}

fn top_level_sections(roff: &mut Roff, cmd: &Command) {
    exit_status_section(roff, &cli_exits());
    environment_section(roff, |_| true);
    roff.control("SH", ["FILES"]);
    roff.control("TP", []);
    roff.text([bold(format!(
        "$AGENTTEAM_CONFIG_DIR/{}",
        credentials::FILE_NAME
    ))]);
    roff.text([roman(format!(
        "The credential store. Without AGENTTEAM_CONFIG_DIR it is in the platform config \
         directory: ~/.config/agentteam/{} on Linux (honouring XDG_CONFIG_HOME). It holds named \
         profiles, each with api_url, workspace_id, agent_id, and a token and/or a \
         credential_process. The directory is mode 0700 and the file mode 0600; it is written \
         atomically (a temporary file renamed over it) under an exclusive lock on {}.lock. \
         A store that group or others can read is refused.",
        credentials::FILE_NAME,
        credentials::FILE_NAME
    ))]);
    roff.control("SH", ["EXAMPLES"]);
    let examples: [(&str, &str); 6] = [
        (
            "Save a profile, reading the token from stdin:",
            "printf %s \"$TOKEN\" | agentteam auth login --api-url http://127.0.0.1:8787 --workspace ws_1 --agent ag_1 --token-stdin",
        ),
        (
            "Browse the active tasks of a board:",
            "echo '{\"channel\": \"eng\"}' | agentteam exec task list -",
        ),
        (
            "Create a task from a JSON file:",
            "agentteam exec task create new-task.json",
        ),
        (
            "What an action accepts, and the whole registry:",
            "agentteam exec task create --input-schema\nagentteam exec --catalog",
        ),
        (
            "Install bash completions:",
            "agentteam completions bash > ~/.local/share/bash-completion/completions/agentteam",
        ),
        (
            "Stop on any failure in a script; the exit status says which kind:",
            "echo '{\"channel\": \"eng\", \"number\": 12}' | agentteam exec task get - || echo \"failed: $?\"",
        ),
    ];
    for (what, command) in examples {
        example(roff, what, command);
    }
    see_also_section(roff, cmd);
}

/// `agentteam`'s exit statuses and what each means.
fn cli_exits() -> Vec<(i32, &'static str)> {
    ExitClass::ALL
        .iter()
        .map(|class| (class.code(), class.meaning()))
        .collect()
}

/// `agentteam-runtime`'s exit statuses and what each means.
fn runtime_exits() -> Vec<(i32, &'static str)> {
    crate::runtime::cli::EXIT_STATUSES
        .iter()
        .map(|(class, meaning)| (class.code(), *meaning))
        .collect()
}

fn exit_status_section(roff: &mut Roff, exits: &[(i32, &str)]) {
    roff.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in exits {
        roff.control("TP", []);
        roff.text([bold(code.to_string())]);
        roff.text([roman(*meaning)]);
    }
}

fn environment_section(roff: &mut Roff, include: impl Fn(&env_vars::EnvVar) -> bool) {
    roff.control("SH", ["ENVIRONMENT"]);
    for var in env_vars::ALL.iter().filter(|v| include(v)) {
        roff.control("TP", []);
        roff.text([bold(var.name)]);
        let reader = if var.binary == "agentteam" {
            String::new()
        } else {
            format!(" Read by {}.", var.binary)
        };
        roff.text([roman(format!("{}{reader}", var.description))]);
    }
}

fn example(roff: &mut Roff, what: &str, command: &str) {
    roff.control("PP", []);
    roff.text([roman(what)]);
    roff.control("RS", ["4"]);
    roff.control("nf", []);
    for line in command.lines() {
        roff.text([roman(line)]);
    }
    roff.control("fi", []);
    roff.control("RE", []);
}

/// The parent page and the pages of the direct subcommands.
fn see_also_section(roff: &mut Roff, cmd: &Command) {
    let name = display_name(cmd);
    let mut refs: Vec<String> = Vec::new();
    if let Some((parent, _)) = name.rsplit_once('-')
        && name != "agentteam-runtime"
    {
        refs.push(parent.to_string());
    }
    if name == "agentteam" {
        refs.push("agentteam-runtime".into());
    }
    if name == "agentteam-runtime" {
        refs.push("agentteam".into());
    }
    refs.extend(visible_subcommands(cmd).map(display_name));
    if refs.is_empty() {
        return;
    }
    roff.control("SH", ["SEE ALSO"]);
    let mut line = Vec::new();
    for (i, r) in refs.iter().enumerate() {
        if i > 0 {
            line.push(roman(", "));
        }
        line.push(bold(r.as_str()));
        line.push(roman("(1)"));
    }
    roff.text(line);
}

fn action_page(cmd: &Command, action: &Action) -> String {
    let mut description = Roff::new();
    description.control("SH", ["DESCRIPTION"]);
    description.text([roman(action.summary)]);
    description.control("PP", []);
    description.text([roman(action.description)]);
    description.control("PP", []);
    let facts: [(&str, String); 6] = [
        ("Canonical tool", action.name()),
        ("Action id", action.id()),
        ("Permission", permission_text(action)),
        ("Idempotency", action.idempotency.describe().to_string()),
        (
            "Agent Runtime operation",
            format!("{} {}", action.method.as_str(), action.route_template()),
        ),
        ("Result budget", format!("{} bytes", action.budget.bytes())),
    ];
    for (label, value) in facts {
        description.text([bold(label), roman(": "), roman(value), line_break()]);
    }
    man_page(cmd, Some(description), |roff, cmd| {
        roff.control("SH", ["INPUT FIELDS"]);
        roff.text([
            roman(
                "One JSON object, on stdin (-) or in a file. Fields not listed are refused. \
             The exact JSON Schema: ",
            ),
            bold(format!(
                "agentteam exec {} {} --input-schema",
                action.domain, action.verb
            )),
            roman("."),
        ]);
        for (path, ty, required, field_description) in help::input_fields(action) {
            roff.control("TP", []);
            roff.text([
                bold(path),
                roman(" ("),
                italic(ty),
                roman(if required { ", required)" } else { ")" }),
            ]);
            roff.text([roman(field_description)]);
        }
        roff.control("SH", ["OUTPUT"]);
        roff.text([
            roman(
                "One JSON document on stdout: {\"data\": ..., \"meta\": {...}} on success, \
             {\"error\": {...}} on failure. The schemas: ",
            ),
            bold(format!(
                "agentteam exec {} {} --output-schema",
                action.domain, action.verb
            )),
            roman(" and "),
            bold("agentteam exec --error-schema"),
            roman("."),
        ]);
        roff.control("SH", ["EXAMPLES"]);
        for e in action.examples {
            example(
                roff,
                &format!("{}:", e.description),
                &help::example_command(action, e.input),
            );
        }
        exit_status_section(roff, &cli_exits());
        see_also_section(roff, cmd);
    })
}

fn permission_text(action: &Action) -> String {
    let class = serde_json::to_value(action.permission)
        .expect("serialises")
        .as_str()
        .unwrap_or_default()
        .to_string();
    if action.destructive() {
        format!("{class} (destructive, permanent)")
    } else {
        class
    }
}

// ---------------------------------------------------------------- README

/// The README with every generated table replaced.
pub fn readme_with_tables(readme: &str) -> anyhow::Result<String> {
    let readme = splice(readme, "actions", &actions_table())?;
    let readme = splice(&readme, "errors", &errors_table())?;
    let readme = splice(&readme, "exit", &exit_table(&cli_exits()))?;
    let readme = splice(&readme, "runtime-exit", &exit_table(&runtime_exits()))?;
    splice(&readme, "environment", &environment_table())
}

/// A README table of exit statuses, in the words `--help` and the man
/// pages print ([`cli_exits`], [`runtime_exits`]).
fn exit_table(exits: &[(i32, &str)]) -> String {
    let mut out = String::from("| code | meaning |\n| --- | --- |\n");
    for (code, meaning) in exits {
        out.push_str(&format!("| {code} | {} |\n", table_cell(meaning)));
    }
    out
}

/// The README's table of error codes: exit status, retryability and what to
/// do, from [`crate::error::ERROR_CODES`].
pub fn errors_table() -> String {
    let mut out = String::from(
        "| code | exit | retryable | meaning and what to do |\n| --- | --- | --- | --- |\n",
    );
    for code in crate::error::ERROR_CODES {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            code.code,
            match code.exit_status_from_server() {
                Some(server) => format!("{} ({server} from the server)", code.class.code()),
                None => code.class.code().to_string(),
            },
            if code.retryable { "yes" } else { "no" },
            table_cell(code.description)
        ));
    }
    out
}

/// The README's table of actions (canonical name, route, permission class,
/// read-only/destructive, idempotency, one-line intent).
pub fn actions_table() -> String {
    let mut out = String::from(
        "| tool | route | permission | read-only | destructive | idempotency | intent |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    for action in ACTIONS {
        let idempotency = serde_json::to_value(action.idempotency).expect("serialises");
        out.push_str(&format!(
            "| `{}` | `agentteam exec {} {} -` | {} | {} | {} | {} | {} |\n",
            action.name(),
            action.domain,
            action.verb,
            serde_json::to_value(action.permission)
                .expect("serialises")
                .as_str()
                .unwrap_or_default(),
            yes_no(action.read_only()),
            yes_no(action.destructive()),
            idempotency.as_str().unwrap_or_default(),
            table_cell(action.summary),
        ));
    }
    out
}

/// The README's table of environment variables, from [`env_vars::ALL`].
pub fn environment_table() -> String {
    let mut out = String::from("| variable | read by | meaning |\n| --- | --- | --- |\n");
    for var in env_vars::ALL {
        out.push_str(&format!(
            "| `{}` | `{}` | {} |\n",
            var.name,
            var.binary,
            table_cell(var.description)
        ));
    }
    out
}

fn table_cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// Replaces the lines between `<!-- BEGIN GENERATED: name … -->` and
/// `<!-- END GENERATED: name -->` with `body`, and rewrites the BEGIN line so
/// it names the regeneration command.
pub fn splice(text: &str, name: &str, body: &str) -> anyhow::Result<String> {
    let begin_prefix = format!("<!-- BEGIN GENERATED: {name} ");
    let end_line = format!("<!-- END GENERATED: {name} -->");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let begin = lines
        .iter()
        .position(|l| l.starts_with(&begin_prefix))
        .with_context(|| format!("{README} has no `{begin_prefix}…-->` line"))?;
    let end = lines
        .iter()
        .skip(begin)
        .position(|l| l.trim_end() == end_line)
        .map(|i| i + begin)
        .with_context(|| format!("{README} has no `{end_line}` line after its BEGIN line"))?;
    let mut out: String = lines[..begin].concat();
    out.push_str(&format!(
        "{begin_prefix}(do not edit; regenerate with `{REGENERATE_COMMAND}`) -->\n"
    ));
    out.push_str(body);
    out.push_str(&lines[end..].concat());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_only_between_markers() {
        let text = "a\n<!-- BEGIN GENERATED: t old -->\nold\n<!-- END GENERATED: t -->\nb\n";
        let out = splice(text, "t", "new\n").unwrap();
        assert_eq!(
            out,
            format!(
                "a\n<!-- BEGIN GENERATED: t (do not edit; regenerate with `{REGENERATE_COMMAND}`) -->\nnew\n<!-- END GENERATED: t -->\nb\n"
            )
        );
        assert_eq!(splice(&out, "t", "new\n").unwrap(), out, "idempotent");
        assert!(splice("no markers\n", "t", "x").is_err());
    }

    #[test]
    fn every_command_and_action_has_its_page_and_row() {
        let pages = man_pages();
        let page = |name: &str| {
            pages
                .iter()
                .find(|p| p.path == format!("man/{name}.1"))
                .unwrap_or_else(|| panic!("no man/{name}.1"))
        };
        let table = actions_table();
        for action in ACTIONS {
            let action_page = page(&format!("agentteam-exec-{}-{}", action.domain, action.verb));
            for section in [
                "DESCRIPTION",
                "\"INPUT FIELDS\"",
                "EXAMPLES",
                "\"EXIT STATUS\"",
            ] {
                assert!(
                    action_page.contents.contains(&format!(".SH {section}\n")),
                    "{}: {section}",
                    action.name()
                );
            }
            assert!(action_page.contents.contains(&action.name()));
            assert!(table.contains(&format!("| `{}` |", action.name())));
        }
        for name in [
            "agentteam-exec",
            "agentteam-exec-task",
            "agentteam-auth",
            "agentteam-auth-login",
            "agentteam-completions",
            "agentteam-runtime",
        ] {
            page(name);
        }
        let top = page("agentteam");
        for section in ["\"EXIT STATUS\"", "ENVIRONMENT", "FILES", "EXAMPLES"] {
            assert!(
                top.contents.contains(&format!(".SH {section}\n")),
                "agentteam.1: {section}"
            );
        }
        for var in env_vars::ALL {
            assert!(
                top.contents.contains(&format!("\\fB{}\\fR", var.name)),
                "agentteam.1: {}",
                var.name
            );
        }
        for class in ExitClass::ALL {
            assert!(
                top.contents.contains(&format!("\\fB{}\\fR", class.code())),
                "agentteam.1: exit {}",
                class.code()
            );
        }
    }
}
