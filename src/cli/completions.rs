//! `agentteam completions <shell>`: the completion scripts, written from the
//! same command tree the parser uses. clap_complete writes bash, zsh,
//! PowerShell and Elvish. fish is written here: clap_complete's fish writer
//! stops two subcommands deep, and an action is three
//! (`exec <domain> <action>`), so fish offered none of an action's own
//! flags. This writer builds each rule's condition from the whole chain of
//! parent commands, and stops offering a command's subcommands once one is
//! given; otherwise its rules are clap_complete's.

use std::io::Write;

use clap::builder::StyledStr;
use clap::{Arg, Command, ValueHint};
use clap_complete::generator::utils;
use clap_complete::{Generator, Shell};

/// The command name the scripts complete.
pub const BIN_NAME: &str = "agentteam";

/// Every shell `agentteam completions` supports, in file order.
pub const SHELLS: [Shell; 5] = [
    Shell::Bash,
    Shell::Zsh,
    Shell::Fish,
    Shell::PowerShell,
    Shell::Elvish,
];

/// The completion script for `shell`: exactly what `agentteam completions <shell>` prints.
pub fn script(shell: Shell) -> String {
    let mut command = super::command();
    let mut buf = Vec::new();
    match shell {
        Shell::Fish => clap_complete::generate(Fish, &mut command, BIN_NAME, &mut buf),
        other => clap_complete::generate(other, &mut command, BIN_NAME, &mut buf),
    }
    String::from_utf8(buf).expect("completion scripts are written from UTF-8 text")
}

/// fish completions for a command tree of any depth.
struct Fish;

impl Generator for Fish {
    fn file_name(&self, name: &str) -> String {
        Shell::Fish.file_name(name)
    }

    fn generate(&self, cmd: &Command, buf: &mut dyn Write) {
        let bin = cmd
            .get_bin_name()
            .expect("clap_complete::generate sets the bin name");
        let names = FishNames::new(bin);
        let mut script = helper_functions(cmd, &names);
        rules(cmd, &[], &names, &mut script);
        buf.write_all(script.as_bytes())
            .expect("writing a completion script to memory cannot fail");
    }
}

/// The names of the helper functions the rules' conditions call.
struct FishNames {
    bin: String,
    optspecs: String,
    needs_command: String,
    using_subcommand: String,
}

impl FishNames {
    fn new(bin: &str) -> FishNames {
        let escaped = bin.replace('-', "_");
        FishNames {
            bin: bin.to_string(),
            optspecs: format!("__fish_{escaped}_global_optspecs"),
            needs_command: format!("__fish_{escaped}_needs_command"),
            using_subcommand: format!("__fish_{escaped}_using_subcommand"),
        }
    }
}

/// `needs_command` is true before the first subcommand; `using_subcommand X`
/// when the first subcommand is X. Both skip the top level's own options
/// (with their values) through `argparse`, so `--profile p exec` is `exec`.
fn helper_functions(cmd: &Command, names: &FishNames) -> String {
    let mut optspecs = String::new();
    for option in cmd.get_arguments().filter(|a| !a.is_positional()) {
        optspecs.push(' ');
        if let Some(short) = option.get_short() {
            optspecs.push(short);
            if option.get_long().is_some() {
                optspecs.push('/');
            }
        }
        if let Some(long) = option.get_long() {
            optspecs.push_str(&escape(long));
        }
        if option.get_num_args().is_none_or(|n| n.takes_values()) {
            optspecs.push('=');
        }
    }
    let FishNames {
        optspecs: optspecs_fn,
        needs_command,
        using_subcommand,
        ..
    } = names;
    format!(
        "# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function {optspecs_fn}
    string join \\n{optspecs}
end

function {needs_command}
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s ({optspecs_fn}) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function {using_subcommand}
    set -l cmd ({needs_command})
    test -z \"$cmd\"
    and return 1
    contains -- $cmd[1] $argv
end

"
    )
}

/// The `complete` lines of `cmd`, reached through `path` (its ancestors'
/// names below the top level, then its own), and of every subcommand below.
fn rules(cmd: &Command, path: &[&str], names: &FishNames, out: &mut String) {
    let mut base = format!("complete -c {}", names.bin);
    if let Some(condition) = condition(cmd, path, names) {
        base.push_str(&format!(" -n \"{condition}\""));
    }

    for option in cmd.get_opts() {
        out.push_str(&base);
        push_names(option, out);
        out.push_str(&value_completion(option));
        out.push('\n');
    }
    for flag in utils::flags(cmd) {
        out.push_str(&base);
        push_names(&flag, out);
        out.push('\n');
    }

    if cmd.get_positionals().next().is_none() {
        // Nothing but subcommands: no file names.
        base.push_str(" -f");
    }
    for sub in cmd.get_subcommands() {
        for name in sub.get_name_and_visible_aliases() {
            out.push_str(&format!("{base} -a \"{name}\""));
            if let Some(about) = sub.get_about() {
                out.push_str(&format!(" -d '{}'", escape_help(about)));
            }
            out.push('\n');
        }
    }

    for sub in cmd.get_subcommands() {
        for name in sub.get_name_and_visible_aliases() {
            let mut sub_path = path.to_vec();
            sub_path.push(name);
            rules(sub, &sub_path, names, out);
        }
    }
}

/// When a rule of the command at `path` applies: its first-level command is
/// the one in use, every deeper ancestor and itself have been seen, and
/// (when it has subcommands) none of them has been given yet. None for a top
/// level without subcommands, whose rules always apply.
fn condition(cmd: &Command, path: &[&str], names: &FishNames) -> Option<String> {
    let mut condition = match path {
        [] if cmd.has_subcommands() => names.needs_command.clone(),
        [] => return None,
        [first, deeper @ ..] => {
            let mut text = format!("{} {first}", names.using_subcommand);
            for name in deeper {
                text.push_str(&format!("; and __fish_seen_subcommand_from {name}"));
            }
            text
        }
    };
    // A name already on the path (`help` under `help`) is no sign that a
    // subcommand was given: the rule would never apply.
    let subcommands: Vec<&str> = cmd
        .get_subcommands()
        .flat_map(Command::get_name_and_visible_aliases)
        .filter(|name| !path.contains(name))
        .collect();
    if !path.is_empty() && !subcommands.is_empty() {
        condition.push_str("; and not __fish_seen_subcommand_from ");
        condition.push_str(&subcommands.join(" "));
    }
    Some(condition)
}

/// ` -s x -l name -d 'help'` for an option or flag.
fn push_names(arg: &Arg, out: &mut String) {
    for short in arg.get_short_and_visible_aliases().unwrap_or_default() {
        out.push_str(&format!(" -s {short}"));
    }
    for long in arg.get_long_and_visible_aliases().unwrap_or_default() {
        out.push_str(&format!(" -l {}", escape(long)));
    }
    if let Some(help) = arg.get_help() {
        out.push_str(&format!(" -d '{}'", escape_help(help)));
    }
}

/// What fish offers as an option's value: its possible values, or what its
/// value hint names.
fn value_completion(option: &Arg) -> String {
    if !option.get_num_args().expect("built").takes_values() {
        return String::new();
    }
    if let Some(values) = utils::possible_values(option) {
        let listed: Vec<String> = values
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| {
                format!(
                    "{}\\t'{}'",
                    escape(v.get_name()).replace(',', "\\,"),
                    escape_help(v.get_help().unwrap_or_default())
                )
            })
            .collect();
        return format!(" -r -f -a \"{}\"", listed.join("\n"));
    }
    match option.get_value_hint() {
        ValueHint::Unknown => " -r",
        ValueHint::AnyPath | ValueHint::FilePath | ValueHint::ExecutablePath => " -r -F",
        ValueHint::DirPath => " -r -f -a \"(__fish_complete_directories)\"",
        ValueHint::CommandString | ValueHint::CommandName => {
            " -r -f -a \"(__fish_complete_command)\""
        }
        ValueHint::Username => " -r -f -a \"(__fish_complete_users)\"",
        ValueHint::Hostname => " -r -f -a \"(__fish_print_hostnames)\"",
        _ => " -r -f",
    }
    .to_string()
}

/// Text inside fish's single quotes.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\'', "\\'")
}

fn escape_help(help: &StyledStr) -> String {
    escape(&help.to_string().replace('\n', " "))
}
