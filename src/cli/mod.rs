//! The `agentteam` command tree. The `exec` routes are built from the
//! registry — one subcommand per domain, one per action, each with the same
//! flags — and the hand-written commands (`auth`, `completions`) sit beside
//! them. Parsing ends here: commands receive resolved settings, never clap
//! types (parse → resolve → execute).

pub mod auth;
pub mod completions;
pub mod help;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};
use clap_complete::Shell;
use serde_json::json;

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
                    "Extra attempts after a transient failure, for reads, set_claim and keyed creates and checkpoints only, 0 to 10 [default: {DEFAULT_RETRIES}]"
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
                .action(ArgAction::SetTrue)
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
                .conflicts_with_all(["input", "output_schema"])
                .help("Print the input JSON Schema and exit"),
        )
        .arg(
            Arg::new("output_schema")
                .long("output-schema")
                .action(ArgAction::SetTrue)
                .conflicts_with("input")
                .help("Print the JSON Schema of the success document and exit"),
        )
        .arg(
            Arg::new("example")
                .long("example")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["input", "input_schema", "output_schema"])
                .help("Print a valid example input (the first) and exit"),
        )
        .arg(
            Arg::new("examples")
                .long("examples")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["input", "input_schema", "output_schema", "example"])
                .help("Print every example as a JSON array of {description, input, command} and exit"),
        )
        .arg(
            Arg::new("dry_run")
                .long("dry-run")
                .action(ArgAction::SetTrue)
                .help("Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing"),
        )
        .arg(
            Arg::new("batch")
                .long("batch")
                .action(ArgAction::SetTrue)
                .conflicts_with("dry_run")
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
        Err(e) => return clap_failure(e, &args),
    };
    let profile = matches.get_one::<String>("profile").cloned();
    let printer = Printer::new(
        matches.get_one::<Format>("format").copied(),
        matches.get_flag("verbose"),
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
        return printer.failure(&missing_subcommand(&["exec".to_string()]));
    };
    let Some((verb, am)) = dm.subcommand() else {
        unreachable!("clap requires an action")
    };
    let action = registry::find(domain, verb).expect("clap routes come from the registry");
    if am.get_flag("input_schema") {
        printer.json(action.schema());
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
    let mode = if am.get_flag("dry_run") {
        Mode::DryRun
    } else if am.get_flag("batch") {
        Mode::Batch {
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
        None => InputSource::Stdin,
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
                        text::clip(
                            &crate::credentials::redact_token_like(&value.to_string_lossy()),
                            40
                        )
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

/// Help and version go to stdout with status 0; every other parse error is a
/// usage failure: the JSON document on stdout, one short line on stderr.
/// The document carries clap's tip, and a route the registry recognises
/// (`exec task_get`, a synonym of a verb) as a suggested action naming the
/// right command.
fn clap_failure(error: clap::Error, args: &[OsString]) -> i32 {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    // The format asked for, where it can be read, as for any other error:
    // text on a terminal or with `--format text`, else the JSON document.
    let printer = Printer::new(format_in(args), false).with_profile(profile_in(args));
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            printer.stdout(&error.render().to_string());
            ExitClass::Success.code()
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            printer.failure(&missing_subcommand(&reached(args))).code()
        }
        kind => {
            let rendered = error.render().to_string();
            let first = rendered
                .lines()
                .next()
                .unwrap_or("invalid command line")
                .trim_start_matches("error: ");
            // clap's `-- --flag` tip is for commands that take values; an
            // action takes its input as JSON, so it would only mislead.
            let tips: Vec<&str> = rendered
                .lines()
                .filter_map(|l| l.trim().strip_prefix("tip: "))
                .filter(|tip| !tip.contains("as a value, use '--"))
                .collect();
            // The values an option takes, which clap lists below its first line.
            let values: Vec<&str> = rendered
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with("[possible values:"))
                .collect();
            let words = route_words(args);
            // The registry's reading of the route beats clap's spelling tip
            // (`task_get` is not a misspelt `task`); failing that, clap's
            // suggestion is tried in place of the word it corrects.
            let direct = (kind == ErrorKind::InvalidSubcommand)
                .then(|| registry::synonyms::route(&words))
                .flatten();
            let hint = direct.or_else(|| {
                let invalid = context_string(&error, ContextKind::InvalidSubcommand)?;
                // clap may suggest several (`create`, `update`, `delete` for
                // `delte`): the nearest, not the first.
                let suggested = match error.get(ContextKind::SuggestedSubcommand)? {
                    ContextValue::Strings(all) => all
                        .iter()
                        .min_by_key(|s| crate::nearest::edit_distance(&invalid, s))?
                        .clone(),
                    _ => context_string(&error, ContextKind::SuggestedSubcommand)?,
                };
                let corrected: Vec<&str> = words
                    .iter()
                    .map(|w| if *w == invalid { suggested.as_str() } else { w })
                    .collect();
                // A destructive route only for a slip of the finger on its
                // own name (`delte`), never for a word merely like it
                // (`complete`, which meant a status).
                registry::synonyms::route(&corrected).filter(|hint| {
                    !hint.action.destructive()
                        || crate::nearest::edit_distance(&invalid, &suggested) <= 2
                })
            });
            // A slip clap's similarity passes over (`gte`): the domain's verb
            // one letter or one swap away, when only one is.
            let hint = hint.or_else(|| {
                let invalid = context_string(&error, ContextKind::InvalidSubcommand)?;
                let [domain, verb, ..] = words.as_slice() else {
                    return None;
                };
                let mut near = registry::ACTIONS.iter().filter(|a| {
                    a.domain == *domain
                        && *verb == invalid
                        && crate::nearest::edit_distance(&invalid, a.verb) == 1
                });
                match (near.next(), near.next()) {
                    (Some(action), None) => registry::synonyms::route(&[domain, action.verb]),
                    _ => None,
                }
            });
            // clap repeats what was typed (a value, a word): a token typed
            // by mistake is not repeated back.
            let mut message = crate::credentials::redact_token_like(first);
            // A word no command takes may be a token typed in argv (`auth
            // login at_…`): never repeated back. A stray word after an
            // `auth` command is always hidden (and what it likely was is
            // said), any other word (a mistyped command too) when it could
            // be a secret.
            let under_auth = args.iter().skip(1).any(|a| a == "auth");
            let word = match kind {
                ErrorKind::UnknownArgument => context_string(&error, ContextKind::InvalidArg),
                ErrorKind::InvalidSubcommand => {
                    context_string(&error, ContextKind::InvalidSubcommand)
                }
                _ => None,
            };
            let mut auth_hint = None;
            if let Some(arg) = word
                && !arg.starts_with('-')
            {
                let stray_under_auth = under_auth && kind == ErrorKind::UnknownArgument;
                if stray_under_auth {
                    let shown = crate::credentials::redact_token_like(&arg);
                    message = message.replace(&format!("'{shown}'"), "'<redacted>'");
                }
                if stray_under_auth {
                    auth_hint = Some("a token is never taken in argv (pipe it with --token-stdin)");
                }
            }
            // An unquoted credential process: its words read as stray ones.
            if under_auth
                && kind == ErrorKind::UnknownArgument
                && args.iter().any(|a| a == "--credential-process")
            {
                auth_hint = Some(
                    "--credential-process takes its whole command line as one quoted argument",
                );
            }
            for line in values {
                message = format!("{} {line}", message.trim_end());
            }
            // clap lists what is missing on the lines below its first.
            if kind == ErrorKind::MissingRequiredArgument
                && let Some(ContextValue::Strings(missing)) = error.get(ContextKind::InvalidArg)
            {
                message = format!("{} {}", message.trim_end(), missing.join(", "));
            }
            // An output flag other CLIs have (`--output json`): this one's
            // stdout is JSON already.
            let output_flag = (kind == ErrorKind::UnknownArgument)
                .then(|| context_string(&error, ContextKind::InvalidArg))
                .flatten()
                .map(|arg| arg.split('=').next().unwrap_or_default().to_string())
                .filter(|flag| {
                    ["--json", "--output", "-o", "--out", "--output-format"]
                        .contains(&flag.as_str())
                });
            if let Some(flag) = &output_flag {
                message = format!(
                    "{}: stdout is JSON whenever it is no terminal (`--format json` on one too); drop it: `{}`.",
                    message.trim_end(),
                    without_output_flag(args, flag)
                );
            } else if direct.is_none() {
                for tip in tips {
                    message.push_str(&format!("; {tip}"));
                }
            }
            if let Some(hint) = auth_hint {
                message = format!("{}; {hint}.", message.trim_end().trim_end_matches('.'));
            }
            let mut failure = Failure::new(code::USAGE_ERROR, message);
            // An action's flag written before the route (`agentteam --dry-run
            // exec task list`): say where it goes.
            let misplaced = (kind == ErrorKind::UnknownArgument)
                .then(|| context_string(&error, ContextKind::InvalidArg))
                .flatten()
                .and_then(|arg| {
                    let flag = arg.split('=').next().unwrap_or_default().to_string();
                    let action = registry::synonyms::route(&words)?.action;
                    action_command(action, false)
                        .get_arguments()
                        .any(|a| a.get_long().is_some_and(|l| format!("--{l}") == flag))
                        .then_some((flag, action))
                });
            // A field of the action written as a flag (`exec task list
            // --channel eng`): fields go in the JSON input.
            let field_flag = (kind == ErrorKind::UnknownArgument
                && misplaced.is_none()
                && output_flag.is_none())
            .then(|| context_string(&error, ContextKind::InvalidArg))
            .flatten()
            .and_then(|arg| {
                let name = arg
                    .trim_start_matches('-')
                    .split('=')
                    .next()?
                    .replace('-', "_");
                let action = registry::synonyms::route(&words)?.action;
                crate::validate::names_a_field(action, &name).then_some((name, action))
            });
            if let Some((name, action)) = field_flag {
                let command = format!("echo '{{\"{name}\": …}}' | {}", action.cli_command());
                failure.message = format!(
                    "{}. `{name}` is a field of the action's JSON input, not a flag: `{command}` (see `--input-schema`).",
                    failure.message
                );
                let arguments = fields_from_flags(action, args).unwrap_or_else(|| json!({}));
                failure = failure.suggest(&action.name(), arguments);
                if let Some(suggested) = failure.suggested_action.as_mut() {
                    suggested.command = Some(action.cli_command());
                }
            } else if let Some((flag, action)) = misplaced {
                let command = with_action_flags_moved(action, args);
                failure.message = format!(
                    "{}. `{flag}` belongs to the action and goes after it: `{command}`.",
                    failure.message
                );
                // The input on stdin, as it was meant for the action.
                let arguments = (!action.destructive())
                    .then(|| stdin_object(args))
                    .flatten()
                    .map(serde_json::Value::Object)
                    .filter(|input| crate::validate::validate(action, input.clone()).is_ok())
                    .unwrap_or_else(|| json!({}));
                failure = failure.suggest(&action.name(), arguments);
                if let Some(suggested) = failure.suggested_action.as_mut() {
                    suggested.command = Some(command);
                }
            } else if let Some(hint) = hint {
                let how = match hint.how() {
                    how if how.is_empty() => how,
                    how => format!(", and {how}"),
                };
                failure.message = format!(
                    "{}. The route is `{}`{how}.",
                    failure.message,
                    hint.action.cli_command()
                );
                if hint.action.destructive() {
                    failure.message.push_str(
                        " No input is filled in for a destructive action: send the same input to that route once you have checked it names what you mean to delete.",
                    );
                }
                let arguments = recast_stdin(hint, args).unwrap_or_else(|| json!({}));
                failure = failure.suggest(&hint.action.name(), arguments);
            } else if let Some(action) = (kind == ErrorKind::UnknownArgument
                && output_flag.is_none())
            .then(|| registry::synonyms::route(&words))
            .flatten()
            .map(|hint| hint.action)
            {
                failure.message = format!(
                    "{}; `agentteam exec {} {} --help` lists the flags it takes.",
                    failure.message, action.domain, action.verb
                );
            } else if kind == ErrorKind::InvalidSubcommand {
                // No action it could have meant: the ones there are.
                let listed = missing_subcommand(&reached(args));
                failure.message = format!("{}. {}", failure.message, listed.message);
            }
            printer.failure(&failure).code()
        }
    }
}

/// The `--format` of a command line clap refused, when it names one.
fn format_in(args: &[OsString]) -> Option<Format> {
    let words: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
    words.iter().enumerate().rev().find_map(|(i, word)| {
        let value = match word.strip_prefix("--format=") {
            Some(value) => value,
            None if *word == "--format" => words.get(i + 1)?,
            None => return None,
        };
        <Format as clap::ValueEnum>::from_str(value, false).ok()
    })
}

/// The `--profile` of a command line clap refused, as it was written
/// (`--profile NAME` or `--profile=NAME`), for the command it suggests.
fn profile_in(args: &[OsString]) -> Option<String> {
    let words: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
    words.iter().enumerate().rev().find_map(|(i, word)| {
        if let Some(name) = word.strip_prefix("--profile=") {
            Some(name.to_string())
        } else if *word == "--profile" {
            words.get(i + 1).map(|name| (*name).to_string())
        } else {
            None
        }
    })
}

/// The input that fields given as flags (`--channel eng --limit 5`) mean
/// for `action`, over the input on stdin when `-` was given too (`list -
/// --limit 5`), when every such flag names a field and the result is valid
/// input: each value read as JSON where it is (`5`, `true`, `[1]`), else as
/// a string. `None` otherwise, and for a destructive action.
fn fields_from_flags(action: &registry::Action, args: &[OsString]) -> Option<serde_json::Value> {
    // Never a filled-in delete, as for a mistyped route.
    if action.destructive() {
        return None;
    }
    let mut input = stdin_object(args).unwrap_or_default();
    flag_fields(action, args, &mut input)?;
    let input = serde_json::Value::Object(input);
    crate::validate::validate(action, input.clone())
        .ok()
        .map(|_| input)
}

/// Puts into `input` each field of `action` given as a flag in `args`
/// (`--limit 5`, `--channel=eng`), its value read as JSON where it is, else
/// as a string. `None` when a flag's value is missing.
fn flag_fields(
    action: &registry::Action,
    args: &[OsString],
    input: &mut serde_json::Map<String, serde_json::Value>,
) -> Option<()> {
    let words: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
    let mut at = 0;
    while at < words.len() {
        let Some(flag) = words[at].strip_prefix("--") else {
            at += 1;
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((name, value)) => (name.replace('-', "_"), Some(value)),
            None => (flag.replace('-', "_"), None),
        };
        if !crate::validate::names_a_field(action, &name) {
            at += 1;
            continue;
        }
        let value = match inline {
            Some(value) => value,
            None => {
                at += 1;
                *words.get(at)?
            }
        };
        let value = crate::json::from_str(value).unwrap_or_else(|_| json!(value));
        // A flag that says otherwise than the input: which was meant is
        // not for the suggestion to guess.
        if input.get(&name).is_some_and(|given| *given != value) {
            return None;
        }
        input.insert(name, value);
        at += 1;
    }
    Some(())
}

/// How long a wrong route's usage error waits for its input on stdin to
/// end, to recast it for the suggestion ([`recast_stdin`]).
const STDIN_WAIT: Duration = Duration::from_millis(500);

/// The input on stdin (`-`), recast for the action a wrong route meant,
/// when it can be read and the result is valid input: the fields the
/// action has are kept, a synonym's value moves to its field (`note` to
/// `summary`), one value given for a list field of the plural
/// name is wrapped in a list (`number` for `numbers`), and a value the
/// hint names is added (`"claimed": true`). So the suggested action runs
/// as given. `None` (the suggestion's arguments then empty) otherwise, and
/// for a destructive action.
fn recast_stdin(
    hint: registry::synonyms::RouteHint,
    args: &[OsString],
) -> Option<serde_json::Value> {
    // Never a filled-in delete: an agent that follows suggestions must not
    // delete from a mistyped route.
    if hint.action.destructive() {
        return None;
    }
    let given = stdin_object(args).unwrap_or_default();
    let action = hint.action;
    let mut recast = serde_json::Map::new();
    // Fields of one list item given at the top (`title` for `tasks`).
    let mut one_item = serde_json::Map::new();
    for (name, value) in given {
        let plural = format!("{name}s");
        let synonym = registry::synonyms::FIELDS.iter().find(|(word, field, _)| {
            *word == name && crate::validate::names_a_field(action, field)
        });
        if crate::validate::names_a_field(action, &name) {
            recast.insert(name, value);
        } else if let Some((_, field, _)) = synonym {
            recast.entry(field.to_string()).or_insert(value);
        } else if crate::validate::names_a_field(action, &plural) && !value.is_array() {
            recast.entry(plural).or_insert(json!([value]));
        } else if list_of_items_naming(action, std::iter::once(&name)).is_some() {
            one_item.insert(name, value);
        }
    }
    if !one_item.is_empty() {
        let list = list_of_items_naming(action, one_item.keys())?;
        if recast.contains_key(&list) {
            return None;
        }
        recast.insert(list, json!([one_item]));
    }
    if let Some((name, value)) = hint.verb.and_then(|verb| verb.sets) {
        let value: serde_json::Value = serde_json::from_str(value).ok()?;
        // The input's own word wins over the route's reading of it:
        // `claim` with `"claimed": false` is no call to fill in.
        match recast.get(name) {
            Some(given) if *given != value => return None,
            _ => recast.insert(name.to_string(), value),
        };
    }
    // Fields given as flags too (`exec list - --limit 5`).
    flag_fields(action, args, &mut recast)?;
    let recast = serde_json::Value::Object(recast);
    crate::validate::validate(action, recast.clone())
        .ok()
        .map(|_| recast)
}

/// The list field of `action` whose items have every one of `names`
/// (`tasks` for `title` and `priority`), when one has.
fn list_of_items_naming<'n>(
    action: &registry::Action,
    mut names: impl Iterator<Item = &'n String> + Clone,
) -> Option<String> {
    let fields = action.schema()["properties"].as_object()?;
    fields
        .iter()
        .filter(|(_, field)| field["type"] == "array")
        .map(|(list, _)| list)
        .find(|list| {
            names
                .clone()
                .all(|name| crate::validate::names_a_field(action, &format!("{list}/0/{name}")))
        })
        .cloned()
        .filter(|_| names.next().is_some())
}

/// The JSON object on stdin, for a usage error's suggestion, when the
/// command line reads stdin (`-`, not `--batch`: a stream may never end)
/// and stdin is no terminal. A usage error never waits on stdin for long:
/// input that has not ended within [`STDIN_WAIT`] is left unread (the
/// process exits anyway).
fn stdin_object(args: &[OsString]) -> Option<serde_json::Map<String, serde_json::Value>> {
    use std::io::{IsTerminal, Read};
    if !args.iter().any(|a| a == "-")
        || args.iter().any(|a| a == "--batch")
        || std::io::stdin().is_terminal()
    {
        return None;
    }
    let (sent, read) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut raw = Vec::new();
        let done = std::io::stdin()
            .take(crate::wire::MAX_BODY_BYTES as u64 + 1)
            .read_to_end(&mut raw);
        let _ = sent.send(done.map(|_| raw));
    });
    let raw = read.recv_timeout(STDIN_WAIT).ok()?.ok()?;
    match crate::json::from_slice(&raw).ok()? {
        serde_json::Value::Object(given) => Some(given),
        _ => None,
    }
}

/// The words of the command `args` reached (`agentteam exec task`): each
/// word that names a subcommand of the one before. A flag's value that
/// happens to be a subcommand's name is taken for it; the message is then
/// only less precise.
fn reached(args: &[OsString]) -> Vec<String> {
    let mut command = build(false);
    let mut path = Vec::new();
    for word in args.iter().skip(1).filter_map(|a| a.to_str()) {
        if let Some(next) = command.find_subcommand(word).cloned() {
            path.push(word.to_string());
            command = next;
        }
    }
    path
}

/// A command that needs a subcommand and was given none (`agentteam exec
/// task`): the usage failure names what it takes, so the next call needs
/// no help page.
fn missing_subcommand(path: &[String]) -> Failure {
    let mut command = build(false);
    for word in path {
        command = command
            .find_subcommand(word)
            .cloned()
            .expect("the path was found in this command tree");
    }
    let name = std::iter::once("agentteam")
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let subcommands: Vec<String> = command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .map(|s| format!("`{}`", s.get_name()))
        .collect();
    let catalog = if path == ["exec"] {
        " (or `--catalog`, every action at once)"
    } else {
        ""
    };
    Failure::new(
        code::USAGE_ERROR,
        format!(
            "`{name}` needs one of: {}{catalog}; see `{name} --help`.",
            subcommands.join(", ")
        ),
    )
}

/// A string that clap's error carries under `kind` (the first, if several).
fn context_string(error: &clap::Error, kind: clap::error::ContextKind) -> Option<String> {
    use clap::error::ContextValue;
    match error.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => v.first().cloned(),
        _ => None,
    }
}

/// The command line `args` meant, with the flags of `action` written
/// before the route moved right after it, each with its value: `agentteam
/// --concurrency 4 exec task list --batch -` becomes `agentteam exec task
/// list --concurrency 4 --batch -`. Every other word stays where it was;
/// an input is added when none was given.
fn with_action_flags_moved(action: &'static registry::Action, args: &[OsString]) -> String {
    let command = action_command(action, false);
    let flag_of_action = |word: &str| {
        let long = word.strip_prefix("--")?.split('=').next()?;
        command.get_arguments().find(|a| a.get_long() == Some(long))
    };
    let words: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // The route's last word; everything before it but the route's own
    // words is a global flag (stays) or one of the action's (moves).
    let route_end = words
        .iter()
        .position(|w| w == action.verb)
        .unwrap_or(words.len());
    let (mut before, mut moved) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < route_end {
        let word = &words[i];
        match flag_of_action(word) {
            Some(arg) => {
                moved.push(word.clone());
                if !word.contains('=') && arg.get_action().takes_values() && i + 1 < route_end {
                    i += 1;
                    moved.push(words[i].clone());
                }
            }
            None if word == "exec" || word == action.domain => {}
            None => before.push(word.clone()),
        }
        i += 1;
    }
    let after: Vec<String> = words.iter().skip(route_end + 1).cloned().collect();
    let mut line = vec!["agentteam".to_string()];
    line.extend(before);
    line.extend(["exec", action.domain, action.verb].map(str::to_string));
    line.extend(moved);
    let has_input = after.iter().any(|w| w == "-" || !w.starts_with('-'));
    line.extend(after);
    if !has_input {
        line.push("-".to_string());
    }
    command_line(&line)
}

/// `args` without an output flag this CLI does not have (`--output json`,
/// `--json`) and its value, as one command line.
fn without_output_flag(args: &[OsString], flag: &str) -> String {
    let mut line = vec!["agentteam".to_string()];
    let mut words = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    while let Some(word) = words.next() {
        if word == flag && flag != "--json" {
            // Its value too (`json`, `text`), not the input's `-`.
            match words.next() {
                Some(value) if value.starts_with('-') => line.push(value),
                _ => {}
            }
        } else if word != flag && !word.starts_with(&format!("{flag}=")) {
            line.push(word);
        }
    }
    command_line(&line)
}

/// `words` as one shell command line, each quoted only where it must be.
fn command_line(words: &[String]) -> String {
    let plain = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:@,+%".contains(c))
    };
    words
        .iter()
        .map(|w| {
            if plain(w) {
                w.clone()
            } else {
                shlex::try_quote(w).map_or_else(|_| w.clone(), |q| q.into_owned())
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words that name a route: those after `exec`, or from the first word
/// that is a domain when `exec` was left out. Flags and their values are
/// skipped; a flag value is never a domain, so it cannot start the route.
fn route_words(args: &[OsString]) -> Vec<&str> {
    let words: Vec<&str> = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .filter(|a| !a.starts_with('-'))
        .collect();
    let domains = registry::domains();
    let start = words
        .iter()
        .position(|w| *w == "exec")
        .map(|i| i + 1)
        .or_else(|| {
            words
                .iter()
                .position(|w| domains.contains(w) || registry::synonyms::route(&[w]).is_some())
        });
    start.map(|i| words[i..].to_vec()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn command_tree_is_consistent() {
        super::command().debug_assert();
    }
}
