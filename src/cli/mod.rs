//! The `agentteam` command tree. The `exec` routes are built from the
//! registry — one subcommand per domain, one per action, each with the same
//! flags — and the hand-written commands (`auth`, `completions`) sit beside
//! them. Parsing ends here: commands receive resolved settings, never clap
//! types (parse → resolve → execute).

pub mod auth;
pub mod completions;
pub mod help;
mod usage;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};
use clap_complete::Shell;

use crate::env_vars;
use crate::error::{self, ExitClass, Failure, code};
use crate::exec::{self, ExecSettings, InputSource, Mode};
use crate::output::{Format, Printer};
use crate::registry::{self, ACTIONS};
use crate::text;

const DEFAULT_TIMEOUT_SECONDS: u64 = env_vars::default_timeout_seconds!();
/// The seconds `--timeout` and AGENTTEAM_TIMEOUT may say.
const TIMEOUT_RANGE: std::ops::RangeInclusive<u64> = 1..=3600;
const DEFAULT_RETRIES: u32 = 2;
const DEFAULT_CONCURRENCY: u16 = 4;

/// The whole `agentteam` command, derived from the registry, long help included.
pub fn command() -> Command {
    build(true)
}

/// The command tree; an action's long help (its schema rendered as text) is
/// built only when `long_help`, since a plain call never shows it.
fn build(long_help: bool) -> Command {
    Command::new("agentteam")
        .version(env!("CARGO_PKG_VERSION"))
        .about("The AgentTeam Exec CLI: act on a team's task board from agents, scripts and pipelines.")
        .long_about(help::wrap(
            "The AgentTeam Exec CLI: act on a team's task board from agents, scripts and pipelines.\n\n\
             `agentteam exec <domain> <action> -` reads one JSON object on stdin, validates it against the \
             action's schema, adds the workspace and agent credentials of the selected profile, calls the \
             Agent Runtime API and prints one JSON document on stdout. The options below apply to every \
             command; an action's `--help` lists only its own.",
            "",
        ))
        .after_long_help(format!(
            "Exit status:\n{}\nEnvironment:\n{}",
            help::exit_statuses(),
            help::environment("agentteam")
        ))
        // Clap would wrap example command lines, which then break when
        // copied; the help text is wrapped where it is written instead.
        .term_width(0)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .arg(
            Arg::new("profile")
                .long("profile")
                .global(true)
                .value_name("NAME")
                .value_parser(clap::builder::NonEmptyStringValueParser::new())
                .help("Credential profile to use [env: AGENTTEAM_PROFILE; default: the store's default profile]"),
        )
        .arg(
            Arg::new("timeout")
                .long("timeout")
                .global(true)
                .value_name("SECONDS")
                .value_parser(value_parser!(u64).range(TIMEOUT_RANGE))
                .help(format!(
                    "Seconds one HTTP attempt may take, connection included, 1 to {} [env: {}; default: {DEFAULT_TIMEOUT_SECONDS}]",
                    TIMEOUT_RANGE.end(),
                    env_vars::TIMEOUT.name
                )),
        )
        .arg(
            Arg::new("retries")
                .long("retries")
                .global(true)
                .value_name("N")
                .value_parser(value_parser!(u32).range(0..=10))
                .help(format!(
                    "Extra attempts after a transient failure, only where a route's help says it retries them, 0 to 10 [default: {DEFAULT_RETRIES}]"
                )),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .global(true)
                .value_name("FORMAT")
                .value_parser(value_parser!(Format))
                .help("Output format [default: text on a terminal, json otherwise]"),
        )
        .arg(
            Arg::new("verbose")
                .short('v')
                .long("verbose")
                .alias("debug")
                .global(true)
                // `-vv`, as kubectl and ssh users write it, is `-v`: there
                // is one level of diagnostics.
                .action(ArgAction::Count)
                .help("Diagnostics on stderr (requests, statuses, retries); tokens are always redacted"),
        )
        .subcommand(exec_command(long_help))
        .subcommand(auth_command())
        .subcommand(
            Command::new("completions")
                .about("Print a shell completion script")
                .arg(Arg::new("shell").required(true).value_parser(value_parser!(Shell))),
        )
}

fn exec_command(long_help: bool) -> Command {
    let mut exec = Command::new("exec")
        .about("Run a registered action: `agentteam exec <domain> <action> -`")
        .long_about(help::wrap(
            "Run a registered action. Input is one JSON object on stdin (`-`) or in a file; output is one \
             JSON document on stdout. `--catalog` prints every action with its metadata and both schemas, \
             and under `profile` which actions the active profile's max_permission allows; \
             `--catalog --full` adds the error schema.",
            "",
        ))
        .after_long_help(help::SHARED)
        .arg(
            Arg::new("catalog")
                .long("catalog")
                .action(ArgAction::SetTrue)
                .conflicts_with("error_schema")
                .help("Print the registry as JSON: every action, its metadata, examples and both schemas"),
        )
        .arg(
            Arg::new("full")
                .long("full")
                .action(ArgAction::SetTrue)
                .requires("catalog")
                .help("With --catalog: also the error schema (the whole registry)"),
        )
        .arg(
            Arg::new("error_schema")
                .long("error-schema")
                .action(ArgAction::SetTrue)
                .exclusive(true)
                .help("Print the JSON Schema of the error document, with every error code"),
        );
    for domain in registry::domains() {
        let mut domain_cmd = Command::new(domain)
            .about(format!("Actions of the `{domain}` domain"))
            .subcommand_required(true)
            .arg_required_else_help(true);
        for action in ACTIONS.iter().filter(|a| a.domain == domain) {
            domain_cmd = domain_cmd.subcommand(action_command(action, long_help));
        }
        exec = exec.subcommand(domain_cmd);
    }
    exec
}

fn action_command(action: &'static registry::Action, long_help: bool) -> Command {
    let mut command = Command::new(action.verb).about(action.summary);
    if long_help {
        command = command.long_about(help::action_long_help(action));
    }
    let command = command
        .arg(
            Arg::new("input")
                .value_name("INPUT")
                .value_parser(value_parser!(PathBuf))
                .help("`-` reads one JSON object from stdin; a path reads a JSON file [default: stdin, unless it is a terminal]"),
        )
        .arg(
            Arg::new("input_schema")
                .long("input-schema")
                .action(ArgAction::SetTrue)
                .conflicts_with("output_schema")
                .help("Print the input JSON Schema and exit (INPUT, if given, is not read)"),
        )
        .arg(
            Arg::new("output_schema")
                .long("output-schema")
                .action(ArgAction::SetTrue)
                .help("Print the JSON Schema of the success document and exit (INPUT is not read)"),
        )
        .arg(
            Arg::new("example")
                .long("example")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["input_schema", "output_schema"])
                .help("Print a valid example input (the first) and exit (INPUT is not read)"),
        )
        .arg(
            Arg::new("examples")
                .long("examples")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["input_schema", "output_schema", "example"])
                .help("Print every example as a JSON array of {description, input, command} and exit"),
        )
        .arg(
            Arg::new("dry_run")
                .long("dry-run")
                .action(ArgAction::SetTrue)
                .help("Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line"),
        )
        .arg(
            Arg::new("batch")
                .long("batch")
                .action(ArgAction::SetTrue)
                .help("Read newline-delimited JSON objects; print one JSON result line per input line, in input order"),
        )
        .arg(
            Arg::new("concurrency")
                .long("concurrency")
                .value_name("N")
                .requires("batch")
                .value_parser(value_parser!(u16).range(1..=64))
                .help(if action.concurrency == registry::Concurrency::AppendOnly {
                    "With --batch: requests in flight at once, 1 to 64 [default: 1, so appends are stored in the input's order]".to_string()
                } else {
                    format!("With --batch: requests in flight at once, 1 to 64 [default: {DEFAULT_CONCURRENCY}]")
                }),
        );
    if !action.paginated {
        return with_option_table(command);
    }
    let command = command
        .arg(
            Arg::new("paginate")
                .long("paginate")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["dry_run", "batch"])
                .help("Follow next_cursor to the end: each item as one JSON line, or with --format text (the terminal default) one table, page by page"),
        )
        .arg(
            Arg::new("max_items")
                .long("max-items")
                .value_name("N")
                .requires("paginate")
                .value_parser(value_parser!(u64).range(1..))
                .help("With --paginate: stop after N items and name the cursor that goes on (on stderr) [default: no limit]"),
        );
    with_option_table(command)
}

/// An action's `-h` ends with its own options, one line each; its `--help`
/// names them in one line, since that page's size budget goes to the
/// fields and examples. Both point to the global options.
fn with_option_table(command: Command) -> Command {
    let rows: Vec<(String, String)> = command
        .get_arguments()
        .map(|arg| {
            let value = arg
                .get_value_names()
                .map(|names| names.iter().map(|n| format!(" <{n}>")).collect::<String>())
                .unwrap_or_default();
            let spec = match arg.get_long() {
                Some(long) => format!("--{long}{value}"),
                None => format!("[{}]", value.trim().trim_matches(['<', '>'])),
            };
            (
                spec,
                arg.get_help().map(ToString::to_string).unwrap_or_default(),
            )
        })
        .collect();
    let width = rows.iter().map(|(spec, _)| spec.len()).max().unwrap_or(0);
    let mut table = String::from("Options:\n");
    for (spec, text) in &rows {
        table.push_str(&format!("  {spec:<width$}  {text}\n"));
    }
    table.push_str(&format!(
        "  {:<width$}  Print help\n\n{}",
        "-h, --help",
        help::SHARED
    ));
    let names: Vec<&str> = rows
        .iter()
        .map(|(spec, _)| spec.as_str())
        .filter(|spec| spec.starts_with("--"))
        .collect();
    let line = format!(
        "Flags (`-h` explains each): {}. {}",
        names.join(" "),
        help::SHARED
    );
    command
        .help_template("{about-with-newline}\n{usage-heading} {usage}{after-help}")
        .after_help(table)
        .after_long_help(line)
}

fn auth_command() -> Command {
    Command::new("auth")
        .about("Manage credential profiles (workspace, agent, token)")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("login")
                .about("Save a profile: API URL, workspace, agent, and a token and/or a credential process")
                .long_about(
                    "Save a profile. The token is read from stdin with --token-stdin, never from argv. \
                     --credential-process names a command that prints {\"token\": \"…\", \"expires_at\": \"…\"}; \
                     it runs when there is no token and once after a 401.",
                )
                .arg(Arg::new("api_url").long("api-url").value_name("URL").help("Base URL of the Agent Runtime API, e.g. http://127.0.0.1:8787 [required for a new profile; default: the profile's]"))
                .arg(Arg::new("workspace").long("workspace").value_name("WORKSPACE_ID").help("Workspace id [required for a new profile; default: the profile's]"))
                .arg(Arg::new("agent").long("agent").value_name("AGENT_ID").help("Agent id [required for a new profile; default: the profile's]"))
                .arg(Arg::new("token_stdin").long("token-stdin").action(ArgAction::SetTrue).help("Read the agent's token from stdin"))
                .arg(
                    Arg::new("max_permission")
                        .long("max-permission")
                        .value_name("CLASS")
                        .value_parser(registry::Permission::ALL.map(registry::Permission::as_str))
                        .help("Cap the profile at this permission class: actions above it are refused before sending [default: the profile's cap; destructive, no cap, for a new profile]"),
                )
                .arg(
                    Arg::new("credential_process")
                        .long("credential-process")
                        .value_name("COMMAND")
                        .help("Command line (POSIX quoting), or a JSON list of its words, that prints a fresh token as JSON"),
                )
                .arg(
                    Arg::new("token")
                        .long("token")
                        .hide(true)
                        .num_args(0..=1)
                        .help("Refused: a token in argv is readable by other users; use --token-stdin"),
                ),
        )
        .subcommand(Command::new("status").about("Show the selected profile as JSON, token redacted"))
        .subcommand(Command::new("logout").about("Remove the selected profile"))
}

/// The global options are listed once, in `agentteam --help`: the help of
/// `exec`, a domain or an action keeps only its own options and a line
/// pointing there. Done on the built tree (where clap has copied the globals
/// into each route) and only for help, so completions still offer the
/// globals everywhere.
fn hide_globals_in_exec(command: &mut Command) {
    fn hide(route: Command) -> Command {
        route
            .mut_args(|a| if a.is_global_set() { a.hide(true) } else { a })
            .mut_subcommands(hide)
    }
    command.build();
    *command = std::mem::take(command).mut_subcommands(|sc| {
        if sc.get_name() == "exec" {
            hide(sc)
        } else {
            sc
        }
    });
}

/// Makes a panic (a bug) end as every other failure does: one
/// `internal_error` document on stdout, its short line on stderr, exit
/// status 1, rather than Rust's message and status 101 that no caller
/// reads. The panic's own message is not shown, since it may hold input
/// (a token among it); its place in the code is, for the report.
pub fn answer_panics() {
    std::panic::set_hook(Box::new(|info| {
        Printer::new(None, false).failure(&bug(info.location()));
        std::process::exit(ExitClass::Internal.code());
    }));
}

/// What a panic at `place` is answered with ([`answer_panics`]).
fn bug(place: Option<&std::panic::Location>) -> crate::error::Failure {
    let place = place
        .map(|l| format!(" at {}:{}", l.file(), l.line()))
        .unwrap_or_default();
    crate::error::Failure::new(
        crate::error::code::INTERNAL_ERROR,
        format!(
            "agentteam stopped on a bug{place}; a change may have been sent before it, so read before retrying one. Please report it with the command that caused it."
        ),
    )
}

/// Parses `args`, runs the command, and returns the process exit status.
pub fn run(args: impl IntoIterator<Item = OsString>) -> i32 {
    let args: Vec<OsString> = args.into_iter().collect();
    let wants_help = args
        .iter()
        .skip(1)
        .any(|a| a == "--help" || a == "-h" || a == "help");
    let mut command = build(wants_help);
    if wants_help {
        hide_globals_in_exec(&mut command);
    }
    let matches = match command.try_get_matches_from(&args) {
        Ok(matches) => matches,
        Err(e) => return usage::clap_failure(e, &args),
    };
    let profile = matches.get_one::<String>("profile").cloned();
    let printer = Printer::new(
        matches.get_one::<Format>("format").copied(),
        matches.get_count("verbose") > 0,
    )
    .with_profile(profile.clone());
    let class = match matches.subcommand() {
        Some(("exec", m)) => run_exec(m, profile, &printer),
        Some(("auth", m)) => run_auth(m, profile, &printer),
        Some(("completions", m)) => {
            let shell = *m.get_one::<Shell>("shell").expect("required");
            printer.stdout(&completions::script(shell));
            ExitClass::Success
        }
        _ => unreachable!("clap requires a subcommand"),
    };
    class.code()
}

fn run_exec(m: &ArgMatches, profile: Option<String>, printer: &Printer) -> ExitClass {
    // The whole-registry flags print what they print for every route at
    // once: a route after them would be silently ignored.
    let whole = ["catalog", "error_schema"]
        .into_iter()
        .find(|flag| m.get_flag(flag));
    if let (Some(flag), Some((domain, _))) = (whole, m.subcommand()) {
        let flag = format!("--{}", flag.replace('_', "-"));
        return printer.failure(&Failure::new(
            code::USAGE_ERROR,
            format!(
                "`exec {flag}` takes no route: it covers every action. Drop `{domain} …`, or run the route's own `--input-schema` / `--output-schema`."
            ),
        ));
    }
    if m.get_flag("catalog") {
        let mut catalog = if m.get_flag("full") {
            registry::catalog()
        } else {
            registry::compact_catalog()
        };
        match crate::exec::profile_access(profile.as_deref()) {
            Ok(Some(access)) => catalog["profile"] = access,
            Ok(None) => {}
            Err(failure) => return printer.failure(&failure),
        }
        printer.json(&catalog);
        return ExitClass::Success;
    }
    if m.get_flag("error_schema") {
        printer.json(&error::error_schema());
        return ExitClass::Success;
    }
    let Some((domain, dm)) = m.subcommand() else {
        return printer.failure(&usage::missing_subcommand(&["exec".to_string()]));
    };
    let Some((verb, am)) = dm.subcommand() else {
        unreachable!("clap requires an action")
    };
    let action = registry::find(domain, verb).expect("clap routes come from the registry");
    if am.get_flag("input_schema") {
        printer.json(action.cached_input_schema());
        return ExitClass::Success;
    }
    if am.get_flag("output_schema") {
        printer.json(&action.output_schema());
        return ExitClass::Success;
    }
    if am.get_flag("example") {
        let example = action
            .examples
            .first()
            .expect("every action has an example (tested)");
        printer.json(
            &serde_json::from_str(example.input)
                .expect("registry examples are valid JSON (tested)"),
        );
        return ExitClass::Success;
    }
    if am.get_flag("examples") {
        printer.json(&help::examples(action));
        return ExitClass::Success;
    }
    // A batch prints JSON lines whatever the terminal: a text format asked
    // for by name is refused rather than ignored.
    if am.get_flag("batch") && am.get_one::<Format>("format") == Some(&Format::Text) {
        return printer.failure(&Failure::new(
            code::USAGE_ERROR,
            "--batch prints one JSON result line per input line; --format text does not apply to it.",
        ));
    }
    let mode = if am.get_flag("batch") {
        Mode::Batch {
            dry_run: am.get_flag("dry_run"),
            // Appends (checkpoints) are a timeline: one at a time unless
            // asked, so they are stored in the order of their lines.
            concurrency: am.get_one::<u16>("concurrency").copied().unwrap_or(
                if action.concurrency == registry::Concurrency::AppendOnly {
                    1
                } else {
                    DEFAULT_CONCURRENCY
                },
            ) as usize,
        }
    } else if am.get_flag("dry_run") {
        Mode::DryRun
    } else if action.paginated && am.get_flag("paginate") {
        Mode::Paginate {
            max_items: am.get_one::<u64>("max_items").copied(),
        }
    } else {
        Mode::Single
    };
    let input = match am.get_one::<PathBuf>("input") {
        Some(path) if path.as_os_str() == "-" => InputSource::Stdin,
        Some(path) => InputSource::File(path.clone()),
        None => InputSource::Unnamed,
    };
    let timeout = match timeout(m.get_one::<u64>("timeout").copied()) {
        Ok(timeout) => timeout,
        Err(failure) => return printer.failure(&failure),
    };
    let settings = ExecSettings {
        action,
        input,
        profile,
        timeout,
        retries: m
            .get_one::<u32>("retries")
            .copied()
            .unwrap_or(DEFAULT_RETRIES),
        mode,
    };
    exec::run(&settings, printer)
}

/// One HTTP attempt's bound: `--timeout`, else AGENTTEAM_TIMEOUT (empty
/// counts as unset, as for every variable of the CLI), else the default.
/// The variable is read here, by the commands that send requests, so a bad
/// value fails only those, and is named as the variable, not as the flag
/// the user did not type.
fn timeout(flag: Option<u64>) -> Result<Duration, Failure> {
    let seconds = match (flag, std::env::var_os(env_vars::TIMEOUT.name)) {
        (Some(seconds), _) => seconds,
        (None, Some(value)) if !value.is_empty() => value
            .to_str()
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|v| TIMEOUT_RANGE.contains(v))
            .ok_or_else(|| {
                Failure::new(
                    code::USAGE_ERROR,
                    format!(
                        "{} must be a whole number of seconds from 1 to {}; it is `{}`.",
                        env_vars::TIMEOUT.name,
                        TIMEOUT_RANGE.end(),
                        text::clip(&crate::redact::tokens(&value.to_string_lossy()), 40)
                    ),
                )
            })?,
        _ => DEFAULT_TIMEOUT_SECONDS,
    };
    Ok(Duration::from_secs(seconds))
}

fn run_auth(m: &ArgMatches, profile: Option<String>, printer: &Printer) -> ExitClass {
    match m.subcommand() {
        Some(("login", lm)) => {
            if lm.contains_id("token") && lm.value_source("token").is_some() {
                return printer.failure(&Failure::new(
                    code::USAGE_ERROR,
                    "A token in argv is readable by other users and shell history; pipe it with --token-stdin.",
                ));
            }
            let get = |id: &str| lm.get_one::<String>(id).cloned();
            auth::login(
                auth::LoginSettings {
                    profile,
                    api_url: get("api_url"),
                    workspace_id: get("workspace"),
                    agent_id: get("agent"),
                    token_stdin: lm.get_flag("token_stdin"),
                    credential_process: lm.get_one::<String>("credential_process").cloned(),
                    max_permission: lm
                        .get_one::<String>("max_permission")
                        .and_then(|class| registry::Permission::parse(class)),
                },
                printer,
            )
        }
        Some(("status", _)) => auth::status(profile, printer),
        Some(("logout", _)) => auth::logout(profile, printer),
        _ => unreachable!("clap requires an auth subcommand"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn command_tree_is_consistent() {
        super::command().debug_assert();
    }

    /// A panic is answered as an internal error, at its place in the code,
    /// exit status 1, never with its own message (which may hold input).
    #[test]
    fn a_bug_is_an_internal_error_at_its_place() {
        let here = std::panic::Location::caller();
        let failure = super::bug(Some(here));
        assert_eq!(failure.code, "internal_error");
        assert_eq!(failure.class, crate::error::ExitClass::Internal);
        assert_eq!(failure.class.code(), 1);
        assert!(
            failure
                .message
                .contains(&format!(" at {}:{};", here.file(), here.line())),
            "{}",
            failure.message
        );
        assert!(!failure.retryable);
    }
}
