//! What a command line clap refuses is answered with: one `usage_error`
//! that says what to run instead, with the input on stdin recast for the
//! action it meant when it can be (a mistyped route, a field given as a
//! flag, an action flag before the route, another CLI's output flag).
//! Nothing here knows a domain's words: the registry's synonyms do.

use std::ffi::OsString;
use std::time::Duration;

use serde_json::json;

use super::{action_command, build};
use crate::error::{ExitClass, Failure, code};
use crate::output::{Format, Printer};
use crate::registry;

/// Help and version go to stdout with status 0; every other parse error is a
/// usage failure: the JSON document on stdout, one short line on stderr.
/// The document carries clap's tip, and a route the registry recognises
/// (`exec task_get`, a synonym of a verb) as a suggested action naming the
/// right command.
pub(super) fn clap_failure(error: clap::Error, args: &[OsString]) -> i32 {
    use clap::error::ErrorKind;
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
        _ => printer
            .failure(&Refused::new(&error, args).failure())
            .code(),
    }
}

/// A command line clap refused, read once: its words, clap's own text, and
/// the flag or word it stopped at.
struct Refused<'a> {
    error: &'a clap::Error,
    kind: clap::error::ErrorKind,
    args: &'a [OsString],
    /// The route's words as typed (`exec` and flags left out).
    words: Vec<&'a str>,
    /// clap's rendering, whose first line is the error.
    rendered: String,
    /// The flag clap did not know (`UnknownArgument` only), as typed.
    unknown_flag: Option<String>,
    /// Another CLI's output flag (`--output json`): this one's stdout is
    /// JSON already.
    output_flag: Option<String>,
    /// Input given where this CLI does not read it: an action's input is
    /// its last word, `-` or a file's path.
    input_elsewhere: Option<Elsewhere>,
}

/// Where input was given that this CLI does not read there.
enum Elsewhere {
    /// To another CLI's input flag (`--input '{…}'`, `--data`), or to any
    /// flag this CLI does not have with a JSON object for its value
    /// (`--json '{…}'`, `--args '{…}'`).
    Flag(String),
    /// As a word of its own beside `-` (`get '{…}' -`), which clap refuses
    /// before the JSON could be told to go on stdin.
    Word,
}

/// Flags this CLI has under another name or in another place, and what
/// to write instead.
const OTHER_FLAGS: [(&str, &str); 3] = [
    (
        "--schema",
        "an action's schemas are `--input-schema` and `--output-schema`, an error's `agentteam exec --error-schema`",
    ),
    (
        "--catalog",
        "`--catalog` follows `exec` alone: `agentteam exec --catalog` prints every action",
    ),
    (
        "--error-schema",
        "`--error-schema` follows `exec` alone: `agentteam exec --error-schema`",
    ),
];

/// Flags other CLIs take their input by; this one takes `-` or a path.
const INPUT_FLAGS: [&str; 11] = [
    "--input",
    "--data",
    "--body",
    "--payload",
    "--file",
    "-d",
    "-f",
    "--args",
    "--arguments",
    "--params",
    "--parameters",
];

impl<'a> Refused<'a> {
    fn new(error: &'a clap::Error, args: &'a [OsString]) -> Self {
        use clap::error::{ContextKind, ErrorKind};
        let kind = error.kind();
        let unknown_flag = (kind == ErrorKind::UnknownArgument)
            .then(|| context_string(error, ContextKind::InvalidArg))
            .flatten();
        // A flag given a JSON object is an input flag, whatever its name
        // (`--json '{…}'` is no output flag).
        let flag_name = |arg: &str| arg.split('=').next().unwrap_or_default().to_string();
        let given_json = unknown_flag
            .as_deref()
            .map(flag_name)
            .filter(|flag| flag.starts_with('-') && input_flag_value(args, flag).is_some());
        let output_flag = unknown_flag
            .as_deref()
            .filter(|_| given_json.is_none())
            .map(|arg| {
                // `-ojson`: the short flag with its value attached.
                match arg.starts_with("-o") && !arg.starts_with("--") {
                    true => "-o".to_string(),
                    false => arg.split('=').next().unwrap_or_default().to_string(),
                }
            })
            .filter(|flag| {
                ["--json", "--output", "-o", "--out", "--output-format"].contains(&flag.as_str())
            });
        let input_flag = unknown_flag
            .as_deref()
            .map(flag_name)
            .filter(|flag| INPUT_FLAGS.contains(&flag.as_str()))
            .or(given_json);
        let input_elsewhere = match input_flag {
            Some(flag) => Some(Elsewhere::Flag(flag)),
            None if kind == ErrorKind::UnknownArgument && json_word(args).is_some() => {
                Some(Elsewhere::Word)
            }
            None => None,
        };
        Refused {
            error,
            kind,
            args,
            words: route_words(args),
            rendered: error.render().to_string(),
            unknown_flag,
            output_flag,
            input_elsewhere,
        }
    }

    /// The one `usage_error`: clap's first line, made safe and completed,
    /// with the remedy the registry can name.
    fn failure(&self) -> Failure {
        use clap::error::ErrorKind;
        // The registry's reading of the route beats clap's spelling tip
        // (`task_get` is not a misspelt `task`).
        let direct = (self.kind == ErrorKind::InvalidSubcommand)
            .then(|| registry::synonyms::route(&self.words))
            .flatten();
        let failure = Failure::new(code::USAGE_ERROR, self.message(direct.is_some()));
        let hint = direct
            .or_else(|| self.suggested_route())
            .or_else(|| self.slipped_route());
        self.remedy(failure, hint)
    }

    /// The route clap's suggestion makes, tried in place of the word it
    /// corrects.
    fn suggested_route(&self) -> Option<registry::synonyms::RouteHint> {
        use clap::error::{ContextKind, ContextValue};
        let invalid = context_string(self.error, ContextKind::InvalidSubcommand)?;
        // clap may suggest several (`create`, `update`, `delete` for
        // `delte`): the nearest, not the first.
        let suggested = match self.error.get(ContextKind::SuggestedSubcommand)? {
            ContextValue::Strings(all) => all
                .iter()
                .min_by_key(|s| crate::nearest::edit_distance(&invalid, s))?
                .clone(),
            _ => context_string(self.error, ContextKind::SuggestedSubcommand)?,
        };
        let corrected: Vec<&str> = self
            .words
            .iter()
            .map(|w| if *w == invalid { suggested.as_str() } else { w })
            .collect();
        // A destructive route only for a slip of the finger on its own name
        // (`delte`), never for a word merely like it (`complete`, which meant
        // a status).
        registry::synonyms::route(&corrected).filter(|hint| {
            !hint.action.destructive() || crate::nearest::edit_distance(&invalid, &suggested) <= 2
        })
    }

    /// A slip clap's similarity passes over (`gte`): the domain's verb one
    /// letter or one swap away, when only one is.
    fn slipped_route(&self) -> Option<registry::synonyms::RouteHint> {
        let invalid = context_string(self.error, clap::error::ContextKind::InvalidSubcommand)?;
        let [domain, verb, ..] = self.words.as_slice() else {
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
    }

    /// clap's first line, with no token repeated back, completed with what
    /// clap lists below it (values, missing arguments) and its tips, or
    /// with what to drop when the flag was another CLI's output flag.
    fn message(&self, route_known: bool) -> String {
        use clap::error::{ContextKind, ContextValue, ErrorKind};
        let first = self
            .rendered
            .lines()
            .next()
            .unwrap_or("invalid command line")
            .trim_start_matches("error: ");
        // clap repeats what was typed (a value, a word): a token typed by
        // mistake is not repeated back.
        let mut message = crate::redact::tokens(first);
        // A word no command takes may be a token typed in argv (`auth login
        // at_…`): never repeated back. A stray word after an `auth` command
        // is always hidden (and what it likely was is said), any other word
        // (a mistyped command too) when it could be a secret.
        let under_auth = self.args.iter().skip(1).any(|a| a == "auth");
        let mut auth_hint = None;
        if let Some(arg) = &self.unknown_flag
            && !arg.starts_with('-')
            && under_auth
        {
            let shown = crate::redact::tokens(arg);
            message = message.replace(&format!("'{shown}'"), "'<redacted>'");
            auth_hint = Some("a token is never taken in argv (pipe it with --token-stdin)");
        }
        // An unquoted credential process: its words read as stray ones.
        if under_auth
            && self.kind == ErrorKind::UnknownArgument
            && self.args.iter().any(|a| a == "--credential-process")
        {
            auth_hint =
                Some("--credential-process takes its whole command line as one quoted argument");
        }
        // The values an option takes, which clap lists below its first line.
        for line in self.rendered.lines().map(str::trim) {
            if line.starts_with("[possible values:") {
                message = format!("{} {line}", message.trim_end());
            }
        }
        // clap lists what is missing on the lines below its first.
        if self.kind == ErrorKind::MissingRequiredArgument
            && let Some(ContextValue::Strings(missing)) = self.error.get(ContextKind::InvalidArg)
        {
            message = format!("{} {}", message.trim_end(), missing.join(", "));
        }
        if let Some(flag) = &self.output_flag {
            message = format!(
                "{}: stdout is JSON whenever it is no terminal, text on one (`--format json` or `--format text` chooses); drop it: `{}`.",
                message.trim_end(),
                without_output_flag(self.args, flag)
            );
        } else if !route_known && self.input_elsewhere.is_none() && self.other_flag().is_none() {
            // clap's `-- --flag` tip is for commands that take values; an
            // action takes its input as JSON, so it would only mislead.
            let tips = self
                .rendered
                .lines()
                .filter_map(|l| l.trim().strip_prefix("tip: "))
                .filter(|tip| !tip.contains("as a value, use '--"));
            for tip in tips {
                message.push_str(&format!("; {tip}"));
            }
        }
        if let Some(hint) = auth_hint {
            message = format!("{}; {hint}.", message.trim_end().trim_end_matches('.'));
        }
        message
    }

    /// What [`OTHER_FLAGS`] says of the flag clap did not know, if it is one.
    fn other_flag(&self) -> Option<&'static str> {
        let flag = self.unknown_flag.as_deref()?.split('=').next()?;
        OTHER_FLAGS
            .iter()
            .find_map(|(other, said)| (*other == flag).then_some(*said))
    }

    /// What to run instead, most specific first: a flag this CLI has under
    /// another name or in another place, a field written as a flag, an
    /// action's flag written before the route, the route meant, the flags
    /// a known route takes, the commands there are.
    fn remedy(&self, mut failure: Failure, hint: Option<registry::synonyms::RouteHint>) -> Failure {
        use clap::error::ErrorKind;
        if let Some(said) = self.other_flag() {
            failure.message = format!("{}: {said}.", failure.message.trim_end_matches('.'));
            return failure;
        }
        let route = registry::synonyms::route(&self.words);
        // An action's flag written before the route (`agentteam --dry-run
        // exec task list`): say where it goes.
        let misplaced = self.unknown_flag.as_deref().and_then(|arg| {
            let flag = arg.split('=').next().unwrap_or_default().to_string();
            let route = route?;
            action_command(route.action, false)
                .get_arguments()
                .any(|a| a.get_long().is_some_and(|l| format!("--{l}") == flag))
                .then_some((flag, route))
        });
        // A field of the action written as a flag (`exec task list
        // --channel eng`): fields go in the JSON input.
        let field_flag = self
            .unknown_flag
            .as_deref()
            .filter(|_| misplaced.is_none() && self.output_flag.is_none())
            .and_then(|arg| {
                let name = arg
                    .trim_start_matches('-')
                    .split('=')
                    .next()?
                    .replace('-', "_");
                let action = route?.action;
                crate::validate::names_a_field(action, &name).then_some((name, action))
            });
        let input_elsewhere = self.input_elsewhere.as_ref().zip(route);
        if let Some((elsewhere, route)) = input_elsewhere {
            let action = route.action;
            // A file's path given to the flag (`-f in.json`) goes where
            // the flag was, and its JSON is the input.
            let file = match elsewhere {
                Elsewhere::Flag(flag) => {
                    flag_value(self.args, flag).filter(|path| std::path::Path::new(path).is_file())
                }
                Elsewhere::Word => None,
            };
            let (said, given) = match elsewhere {
                Elsewhere::Flag(flag) => (
                    format!("`{flag}` is no flag here"),
                    input_flag_value(self.args, flag)
                        .or_else(|| file.and_then(|_| given_input(self.args))),
                ),
                Elsewhere::Word => (
                    "JSON is not read as a word of the command line".to_string(),
                    json_word(self.args),
                ),
            };
            let example = match file {
                Some(path) => command_line(
                    &["agentteam", "exec", action.domain, action.verb, path].map(str::to_string),
                ),
                None => format!("echo '{{…}}' | {}", action.cli_command()),
            };
            failure.message = format!(
                "{}. {said}: an action's input is its last word, `-` for stdin or a file's path: `{example}`.",
                failure.message,
            );
            // The JSON given there, when it is valid input (never for a
            // destructive action).
            let arguments = (!action.destructive())
                .then_some(given)
                .flatten()
                .filter(|input| crate::validate::validate(action, input.clone()).is_ok())
                .unwrap_or_else(|| json!({}));
            failure = failure.suggest(&action.name(), arguments);
            if let Some(suggested) = failure.suggested_action.as_mut() {
                suggested.command = Some(action.cli_command());
            }
        } else if let Some((name, action)) = field_flag {
            let command = format!("echo '{{\"{name}\": …}}' | {}", action.cli_command());
            failure.message = format!(
                "{}. `{name}` is a field of the action's JSON input, not a flag: `{command}` (see `--input-schema`).",
                failure.message
            );
            let arguments = fields_from_flags(action, self.args).unwrap_or_else(|| json!({}));
            failure = failure.suggest(&action.name(), arguments);
            if let Some(suggested) = failure.suggested_action.as_mut() {
                suggested.command = Some(action.cli_command());
            }
        } else if let Some((flag, route)) = misplaced {
            let action = route.action;
            let command = with_action_flags_moved(action, self.args);
            let how = match route.how() {
                how if how.is_empty() => how,
                how => format!(", and {how}"),
            };
            failure.message = format!(
                "{}. `{flag}` belongs to the action and goes after it: `{command}`{how}.",
                failure.message
            );
            // The input on stdin, as it was meant for the action (recast
            // when the route was a synonym: `close` sets a status).
            let arguments = match route.verb {
                Some(_) => recast(route, stdin_object(self.args), self.args, &mut Vec::new()),
                None => (!action.destructive())
                    .then(|| stdin_object(self.args))
                    .flatten()
                    .map(serde_json::Value::Object)
                    .filter(|input| crate::validate::validate(action, input.clone()).is_ok()),
            }
            .unwrap_or_else(|| json!({}));
            failure = failure.suggest(&action.name(), arguments);
            if let Some(suggested) = failure.suggested_action.as_mut() {
                suggested.command = Some(command);
            }
        } else if let Some(hint) = hint {
            // Never read for a delete, which is never filled in.
            let given = (!hint.action.destructive())
                .then(|| stdin_object(self.args))
                .flatten();
            // The input's own word against the route's (`claim` with
            // `"claimed": false`): the input is what the call keeps, so the
            // route's reading is not said as what to pass.
            let contradicted = hint.verb.and_then(|verb| {
                let (name, said) = verb.contradicted_by(given.as_ref()?)?;
                Some((verb.word, name, said))
            });
            let how = match (contradicted, hint.how()) {
                (Some((word, name, said)), _) => format!(
                    ", keeping `\"{name}\": {said}` if that is what you mean (the word `{word}` reads as the opposite)"
                ),
                (None, how) if how.is_empty() => how,
                (None, how) => format!(", and {how}"),
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
            let mut elsewhere = Vec::new();
            let arguments = recast(hint, given, self.args, &mut elsewhere);
            if !elsewhere.is_empty() {
                failure.message = format!("{} {}.", failure.message, elsewhere.join("; "));
            }
            let arguments = arguments.unwrap_or_else(|| json!({}));
            failure = failure.suggest(&hint.action.name(), arguments);
        } else if let Some(told) = route
            .filter(|_| {
                self.kind == ErrorKind::UnknownArgument
                    && self
                        .unknown_flag
                        .as_deref()
                        .is_some_and(|word| !word.starts_with('-'))
            })
            .and_then(|route| {
                let words = input_words(self.args, route.action);
                crate::exec::words_as_input(route.action, &words, &failure)
            })
        {
            // Words where the input goes (`get demo 2`): the input they mean.
            failure = told;
        } else if let Some(action) = route
            .filter(|_| self.kind == ErrorKind::UnknownArgument && self.output_flag.is_none())
            .map(|hint| hint.action)
        {
            failure.message = format!(
                "{}; `agentteam exec {} {} --help` lists the flags it takes.",
                failure.message, action.domain, action.verb
            );
        } else if self.kind == ErrorKind::InvalidSubcommand {
            // No action it could have meant: the ones there are.
            let listed = missing_subcommand(&reached(self.args));
            failure.message = format!("{}. {}", failure.message, listed.message);
        }
        failure
    }
}

/// The `--format` of a command line clap refused, when it names one.
fn format_in(args: &[OsString]) -> Option<Format> {
    let value = flag_value(args, "--format")?;
    <Format as clap::ValueEnum>::from_str(value, false).ok()
}

/// The `--profile` of a command line clap refused, as it was written
/// (`--profile NAME` or `--profile=NAME`), for the command it suggests.
fn profile_in(args: &[OsString]) -> Option<String> {
    flag_value(args, "--profile").map(str::to_string)
}

/// The value of the last `flag` of a command line clap refused, written
/// `--flag value` or `--flag=value`, as clap would read it (the last one
/// given wins).
fn flag_value<'a>(args: &'a [OsString], flag: &str) -> Option<&'a str> {
    let words: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
    words.iter().enumerate().rev().find_map(|(i, word)| {
        match word.strip_prefix(flag)?.strip_prefix('=') {
            Some(inline) => Some(inline),
            None if *word == flag => words.get(i + 1).copied(),
            None => None,
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

/// The JSON object given to an input flag of another CLI (`--input '{…}'`,
/// `--data={…}`).
fn input_flag_value(args: &[OsString], flag: &str) -> Option<serde_json::Value> {
    json_object(flag_value(args, flag)?)
}

/// The first word of a command line that is a JSON object.
fn json_word(args: &[OsString]) -> Option<serde_json::Value> {
    args.iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .find_map(json_object)
}

fn json_object(text: &str) -> Option<serde_json::Value> {
    text.trim_start()
        .starts_with('{')
        .then(|| crate::json::from_str(text).ok())
        .flatten()
        .filter(serde_json::Value::is_object)
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
/// end, to recast it for the suggestion ([`recast`]).
const STDIN_WAIT: Duration = Duration::from_millis(500);

/// The input read from stdin (`given`), recast for the action a wrong route meant,
/// when it can be read and the result is valid input: the fields the
/// action has are kept, a synonym's value moves to its field (`note` to
/// `summary`), one value given for a list field of the plural
/// name is wrapped in a list (`number` for `numbers`), and a value the
/// hint names is added (`"claimed": true`). So the suggested action runs
/// as given. `None` (the suggestion's arguments then empty) otherwise, and
/// for a destructive action.
fn recast(
    hint: registry::synonyms::RouteHint,
    given: Option<serde_json::Map<String, serde_json::Value>>,
    args: &[OsString],
    elsewhere: &mut Vec<String>,
) -> Option<serde_json::Value> {
    // Never a filled-in delete: an agent that follows suggestions must not
    // delete from a mistyped route.
    if hint.action.destructive() {
        return None;
    }
    let mut given = given.unwrap_or_default();
    let action = hint.action;
    // A field the route's word reads as another (`subtasks` with
    // `number`: the parent's).
    if let Some((field, object, inner)) = hint.verb.and_then(|verb| verb.moves)
        && let Some(value) = given.remove(field)
    {
        let holder = match object {
            "" => &mut given,
            object => given
                .entry(object)
                .or_insert_with(|| json!({}))
                .as_object_mut()?,
        };
        if holder.contains_key(inner) {
            return None;
        }
        holder.insert(inner.to_string(), value);
    }
    let mut recast = serde_json::Map::new();
    // Fields of one list item given at the top (`title` for `tasks`): the
    // list, and the item.
    let mut one_item: Option<(String, serde_json::Map<String, serde_json::Value>)> = None;
    let mut several = false;
    for (name, value) in given {
        let plural = format!("{name}s");
        let synonym = registry::synonyms::FIELDS.iter().find(|(word, field, _)| {
            *word == name && crate::validate::names_a_field(action, field)
        });
        // Words for another action's field (a close's `reason` is a
        // checkpoint's `summary`): that call's, said beside this one.
        let another = registry::synonyms::FIELDS
            .iter()
            .find_map(|(word, field, other)| {
                (*word == name).then_some((*field, registry::find_by_name((*other)?)?))
            })
            .filter(|(_, other)| {
                other.domain == action.domain
                    && other.name() != action.name()
                    && !other.destructive()
            });
        let single = name
            .strip_suffix('s')
            .filter(|single| crate::validate::names_a_field(action, single) && value.is_array());
        if crate::validate::names_a_field(action, &name) {
            recast.insert(name, value);
        } else if let Some((_, field, _)) = synonym {
            recast.entry(field.to_string()).or_insert(value);
        } else if let Some((field, other)) = another {
            elsewhere.push(format!(
                "`{name}` is no field of {}: it is {}'s `{field}`, a call of its own (`{}`)",
                action.name(),
                other.name(),
                other.cli_command()
            ));
        } else if crate::validate::names_a_field(action, &plural) && !value.is_array() {
            recast.entry(plural).or_insert(json!([value]));
        } else if let Some(single) = single {
            // One number in a list (`numbers: [2]`) where one is taken;
            // several are several calls.
            match value.as_array().map(Vec::as_slice) {
                Some([one]) => {
                    recast.entry(single.to_string()).or_insert(one.clone());
                }
                _ => {
                    elsewhere.push(format!(
                        "{} takes one `{single}`: for several, one input per line with `--batch`",
                        action.name()
                    ));
                    // Read on, so what the other fields are is said too.
                    several = true;
                }
            }
        } else if let Some((object, field)) = held_in_an_object(action, &name) {
            // A filter at the top (`assignee` beside `channel` on a list,
            // or a synonym of one, `mine`): in the object that takes it,
            // not dropped.
            // One value where that field takes a list (`label: "bug"`).
            let list = action.cached_input_schema()["properties"][&object]["properties"][&field]["type"]
                == "array";
            let value = match value {
                serde_json::Value::Array(_) => value,
                one if list => json!([one]),
                one => one,
            };
            let holder = recast.entry(object).or_insert_with(|| json!({}));
            match holder.as_object_mut() {
                Some(fields) if !fields.contains_key(&field) => {
                    fields.insert(field, value);
                }
                _ => return None,
            }
        } else if let Some(list) = list_holding(action, &name) {
            let (held, item) = one_item.get_or_insert_with(|| (list.clone(), Default::default()));
            if *held != list {
                return None;
            }
            item.insert(name, value);
        } else if !action.read_only() {
            // A change without a field it was given may be another change
            // (`subtask` with `number` dropped is a top-level create): none.
            return None;
        } else if let Some(write) =
            crate::validate::others_setting(action, &name).find(|other| !other.destructive())
        {
            // A read given a write's field (`checkpoints` with a
            // `summary`): the write may be what was meant; not guessed.
            elsewhere.push(format!(
                "`{name}` is no field of {}: it is {}'s (`{}`), if a change was meant",
                action.name(),
                write.name(),
                write.cli_command()
            ));
            several = true;
        }
    }
    if several {
        return None;
    }
    if let Some((list, item)) = one_item {
        if recast.contains_key(&list) {
            return None;
        }
        recast.insert(list, json!([item]));
    }
    if let Some(verb) = hint.verb
        && let Some((name, value)) = verb.sets
    {
        // The input's own word wins over the route's reading of it:
        // `claim` with `"claimed": false` is no call to fill in.
        if verb.contradicted_by(&recast).is_some() {
            return None;
        }
        recast.insert(name.to_string(), serde_json::from_str(value).ok()?);
    }
    // Fields given as flags too (`exec list - --limit 5`).
    flag_fields(action, args, &mut recast)?;
    // A value of an enum written as another tracker writes it (a column's
    // `Done`): the value it means, as validation would tell it.
    for (field, value) in recast.iter_mut() {
        if let Some(text) = value.as_str()
            && let Some(
                crate::validate::Meant::Spelled(meant) | crate::validate::Meant::Word(meant),
            ) = crate::validate::value_meant(action, field, text)
        {
            *value = json!(meant);
        }
    }
    let recast = serde_json::Value::Object(recast);
    crate::validate::validate(action, recast.clone())
        .ok()
        .map(|_| recast)
}

/// The object field of `action` that has the field `name`, or the field a
/// synonym of it means (`mine`: `assigned_to_me`), and that field.
fn held_in_an_object(action: &registry::Action, name: &str) -> Option<(String, String)> {
    let meant = registry::synonyms::FIELDS
        .iter()
        .filter(|(word, _, _)| *word == name)
        .map(|(_, field, _)| *field);
    std::iter::once(name)
        .chain(meant)
        .find_map(|field| object_holding(action, field).map(|object| (object, field.to_string())))
}

/// The object field of `action` that has the field `name` (`filters` for
/// `assignee` on a list), when one has.
fn object_holding(action: &registry::Action, name: &str) -> Option<String> {
    holding(action, "object", |object| format!("{object}/{name}"))
}

/// The list field of `action` whose items have the field `name` (`tasks`
/// for `title`), when one has.
fn list_holding(action: &registry::Action, name: &str) -> Option<String> {
    holding(action, "array", |list| format!("{list}/0/{name}"))
}

/// The first top-level field of `action` of JSON type `kind` whose
/// `path` names a field.
fn holding(action: &registry::Action, kind: &str, path: impl Fn(&str) -> String) -> Option<String> {
    action.cached_input_schema()["properties"]
        .as_object()?
        .iter()
        .filter(|(_, field)| field["type"] == kind)
        .map(|(holder, _)| holder)
        .find(|holder| crate::validate::names_a_field(action, &path(holder)))
        .cloned()
}

/// The JSON object given, for a usage error's suggestion: on stdin when
/// the command line reads it (`-`, not `--batch`: a stream may never
/// end) and stdin is no terminal, in the input file it names, or else
/// written on the command line itself. A usage error never waits on stdin
/// for long: input that has not ended within [`STDIN_WAIT`] is left
/// unread (the process exits anyway).
fn stdin_object(args: &[OsString]) -> Option<serde_json::Map<String, serde_json::Value>> {
    let object = |value: serde_json::Value| match value {
        serde_json::Value::Object(given) => Some(given),
        _ => None,
    };
    // Else JSON written on the command line (`claim --json '{…}'`, `lsit
    // '{…}' -`), which the suggestion says to send on stdin.
    given_input(args)
        .and_then(object)
        .or_else(|| json_word(args).and_then(object))
}

/// The JSON on stdin (`-`) or in the input file a refused command line
/// names; `None` when neither holds JSON, and for `--batch`, whose
/// stream is not read.
fn given_input(args: &[OsString]) -> Option<serde_json::Value> {
    use std::io::{IsTerminal, Read};
    if args.iter().any(|a| a == "--batch") {
        return None;
    }
    let dash = args.iter().any(|a| a == "-");
    // An input file's path in place of `-` (`exec task claim in.json`):
    // read as stdin would be.
    if !dash && let Some(file) = input_file(args) {
        let mut raw = Vec::new();
        std::fs::File::open(file)
            .ok()?
            .take(crate::wire::MAX_BODY_BYTES as u64 + 1)
            .read_to_end(&mut raw)
            .ok()?;
        return crate::json::from_slice(&raw).ok();
    }
    if !dash || std::io::stdin().is_terminal() {
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
    crate::json::from_slice(&raw).ok()
}

/// The words after `action`'s route that are no flag, no flag's value and
/// not `-`: what was written where its input goes (`get demo 2`).
fn input_words<'a>(args: &'a [OsString], action: &'static registry::Action) -> Vec<&'a str> {
    let (command, root) = (action_command(action, false), build(false));
    let takes_value = |word: &str| {
        word.strip_prefix("--")
            .filter(|long| !long.contains('='))
            .is_some_and(|long| {
                command
                    .get_arguments()
                    .chain(root.get_arguments())
                    .any(|arg| arg.get_long() == Some(long) && arg.get_action().takes_values())
            })
    };
    let mut words = args.iter().skip(1).filter_map(|a| a.to_str());
    // Up to the route's last word: `exec`, the domain, then the verb.
    for route_word in ["exec", action.domain, action.verb] {
        if !words.any(|word| word == route_word) {
            return Vec::new();
        }
    }
    let mut given = Vec::new();
    while let Some(word) = words.next() {
        if takes_value(word) {
            words.next();
        } else if !word.starts_with('-') {
            given.push(word);
        }
    }
    given
}

/// The input file a refused command line names: its last word after
/// `exec` that is no flag and names a regular file.
fn input_file(args: &[OsString]) -> Option<&std::path::Path> {
    let after_exec = args.iter().skip_while(|a| *a != "exec").skip(1);
    after_exec
        .filter(|a| !a.to_string_lossy().starts_with('-'))
        .map(std::path::Path::new)
        .filter(|path| path.is_file())
        .last()
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
pub(super) fn missing_subcommand(path: &[String]) -> Failure {
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
    // The route's last word (the verb, its name or id in one word, or a
    // synonym of it); everything before it but the route's own words is a
    // global flag (stays) or one of the action's (moves).
    let names_it = |word: &str| {
        word == action.verb
            || word == action.name()
            || word == action.id()
            || registry::synonyms::route(&[action.domain, word])
                .is_some_and(|hint| std::ptr::eq(hint.action, action))
    };
    let route_end = words
        .iter()
        .position(|w| names_it(w))
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
        if word == flag {
            // Its value too (`json`, `text`; `--json`'s fields, as `gh`
            // takes them), not the input's `-` or, after `--json`, which
            // may stand alone, an input file's path.
            match words.next() {
                Some(value)
                    if value.starts_with('-') || (flag == "--json" && !is_fields(&value)) =>
                {
                    line.push(value)
                }
                _ => {}
            }
        } else if word != flag
            && !word.starts_with(&format!("{flag}="))
            && !(flag == "-o" && word.starts_with("-o") && !word.starts_with("--"))
        {
            line.push(word);
        }
    }
    command_line(&line)
}

/// Whether a word after `--json` is its value as `gh` takes one, a list
/// of fields (`number,title`), rather than a word of the command line: a
/// route's word, or an input's path (`in.json`, or one that exists).
fn is_fields(word: &str) -> bool {
    let route_word = word == "exec"
        || registry::domains().contains(&word)
        || registry::ACTIONS.iter().any(|a| a.verb == word)
        || registry::synonyms::route(&[word]).is_some();
    let path = word.contains(['/', '.']) || std::path::Path::new(word).exists();
    !route_word && !path
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
        // A flag, or JSON given to one (`exec --json '{…}' task get`).
        .filter(|a| !a.starts_with('-') && !a.trim_start().starts_with('{'))
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
