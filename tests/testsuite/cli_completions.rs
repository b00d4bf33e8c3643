//! The completion scripts in the real shells: bash, zsh and fish each
//! complete `agentteam exec <domain> <action> --` to exactly that action's
//! long options, its own and the global ones, as the command tree declares
//! them. Every shell must be installed (`.ci/run` installs them); a missing
//! one fails the test with the command that installs it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use clap_complete::Shell;

/// Calls the function bash would call for `agentteam` (the one
/// `complete -p agentteam` names) with the words of the line, as bash does,
/// and prints what it put in COMPREPLY. `$1`: the script, `$2`: the line.
const BASH_DRIVER: &str = r#"
source "$1"
line=$2
read -ra COMP_WORDS <<< "$line"
[[ $line == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE=$line
COMP_POINT=${#line}
read -ra spec <<< "$(complete -p agentteam)"
for i in "${!spec[@]}"; do
  [[ ${spec[i]} == -F ]] && function=${spec[i+1]}
done
"$function" agentteam "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;

/// Sourced by an interactive zsh on a pseudo-terminal: the completion
/// system, with the script's directory first on fpath, and `compadd`
/// wrapped to append every match it adds to `$AGENTTEAM_TEST_MATCHES`. Calls
/// that only compute matches into an array (-O, -A, -D) pass straight
/// through. After one completion the shell exits.
const ZSH_SETUP: &str = r#"
PS1=''
fpath=($AGENTTEAM_TEST_FPATH $fpath)
autoload -Uz compinit && compinit -u -D
compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
    builtin compadd "$@"
    return
  fi
  local -a matches
  builtin compadd -O matches "$@"
  (( ${#matches} )) && print -rl -- $matches >> $AGENTTEAM_TEST_MATCHES
  builtin compadd "$@"
}
comppostfuncs=(exit)
bindkey '^I' complete-word
print -r -- '<ready>'
"#;

/// Starts that interactive zsh under zpty, types the line (`$1`) and a Tab,
/// and waits for the shell to exit.
const ZSH_DRIVER: &str = r#"
zmodload zsh/zpty
zpty shell zsh -f -i
zpty -w shell "source $AGENTTEAM_TEST_SETUP"
zpty -r -m shell line '*<ready>*' || exit 3
zpty -w -n shell "$1"$'\t'
while zpty -r shell line; do :; done
"#;

/// The long options bash, zsh and fish must offer after `--` on `path`:
/// every visible one of that command, global ones included.
fn declared_long_options(path: &[&str]) -> BTreeSet<String> {
    let mut command = agentteam::cli::command();
    command.build();
    let mut command = &command;
    for name in path {
        command = command
            .find_subcommand(name)
            .unwrap_or_else(|| panic!("no subcommand `{name}`"));
    }
    command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .flat_map(|a| a.get_long_and_visible_aliases().unwrap_or_default())
        .map(|long| format!("--{long}"))
        .collect()
}

/// `exec <domain> <verb>` of every registry action.
fn action_paths() -> Vec<[&'static str; 3]> {
    agentteam::registry::ACTIONS
        .iter()
        .map(|a| ["exec", a.domain, a.verb])
        .collect()
}

struct Shells {
    dir: tempfile::TempDir,
}

impl Shells {
    /// Writes each shell's script, as `agentteam completions <shell>` prints
    /// it, and the drivers into a fresh directory.
    fn new() -> Shells {
        let dir = tempfile::tempdir().unwrap();
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let output = Command::new(env!("CARGO_BIN_EXE_agentteam"))
                .args(["completions", &shell.to_string()])
                .env_clear()
                .env("HOME", dir.path())
                .output()
                .unwrap();
            assert!(output.status.success(), "completions {shell}: {output:?}");
            let name = clap_complete::Generator::file_name(&shell, "agentteam");
            std::fs::write(dir.path().join(name), output.stdout).unwrap();
        }
        for (name, text) in [
            ("drive.bash", BASH_DRIVER),
            ("setup.zsh", ZSH_SETUP),
            ("drive.zsh", ZSH_DRIVER),
        ] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        Shells { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).to_string_lossy().into_owned()
    }

    /// What `shell` offers for `line`, one candidate a line, descriptions cut off.
    fn complete(&self, shell: Shell, line: &str) -> BTreeSet<String> {
        let matches = self.path("zsh-matches");
        let _ = std::fs::remove_file(&matches);
        let output = match shell {
            Shell::Bash => self.run(
                "bash",
                &["--norc", "--noprofile", &self.path("drive.bash")],
                &[&self.path("agentteam.bash"), line],
                &[],
            ),
            Shell::Zsh => self.run(
                "zsh",
                &["-f", &self.path("drive.zsh")],
                &[line],
                &[
                    ("AGENTTEAM_TEST_FPATH", &self.path("")),
                    ("AGENTTEAM_TEST_SETUP", &self.path("setup.zsh")),
                    ("AGENTTEAM_TEST_MATCHES", &matches),
                ],
            ),
            Shell::Fish => self.run(
                "fish",
                &["--no-config", "-c", "source $argv[1]; complete -C $argv[2]"],
                &[&self.path("agentteam.fish"), line],
                &[],
            ),
            other => unreachable!("{other} is not tested in its shell"),
        };
        assert!(
            output.status.success(),
            "{shell} completing `{line}` failed: {output:?}"
        );
        let offered = match shell {
            Shell::Zsh => std::fs::read_to_string(&matches).unwrap_or_default(),
            _ => String::from_utf8(output.stdout).unwrap(),
        };
        offered
            .lines()
            .map(|l| l.split('\t').next().unwrap_or_default().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    }

    /// Runs `program args… trailing…` hermetically, bounded in time.
    fn run(&self, program: &str, args: &[&str], trailing: &[&str], env: &[(&str, &str)]) -> Output {
        require(program);
        let mut command = Command::new("timeout");
        command
            .arg("30")
            .arg(program)
            .args(args)
            .args(trailing)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("TERM", "dumb")
            .current_dir(self.dir.path());
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().unwrap()
    }
}

/// Fails, with how to install it, when `shell` is not on PATH.
fn require(shell: &str) {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| is_file(&dir.join(shell))))
        .unwrap_or(false);
    assert!(
        found,
        "{shell} is not installed, and its completions are tested in the real shell: \
         install it (`apt-get install {shell}`), or run .ci/run, which does"
    );
}

fn is_file(path: &Path) -> bool {
    path.metadata().is_ok_and(|m| m.is_file())
}

fn assert_offers_each_actions_options(shell: Shell) {
    let shells = Shells::new();
    for path in action_paths() {
        let line = format!("agentteam {} --", path.join(" "));
        assert_eq!(
            shells.complete(shell, &line),
            declared_long_options(&path),
            "{shell}: `{line}<Tab>`"
        );
    }
}

#[test]
fn bash_offers_each_actions_own_options() {
    assert_offers_each_actions_options(Shell::Bash);
}

#[test]
fn zsh_offers_each_actions_own_options() {
    assert_offers_each_actions_options(Shell::Zsh);
}

#[test]
fn fish_offers_each_actions_own_options() {
    assert_offers_each_actions_options(Shell::Fish);
}

/// The subcommands of `path`, help included, as fish offers them.
fn subcommand_names(path: &[&str]) -> BTreeSet<String> {
    let mut command = agentteam::cli::command();
    command.build();
    let mut command = &command;
    for name in path {
        command = command.find_subcommand(name).unwrap();
    }
    command
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect()
}

#[test]
fn fish_offers_subcommands_until_one_is_given() {
    let shells = Shells::new();
    for path in [
        &[][..],
        &["help"],
        &["exec"],
        &["exec", "help"],
        &["exec", "task"],
    ] {
        let line = format!(
            "agentteam {}",
            path.iter().map(|p| format!("{p} ")).collect::<String>()
        );
        assert_eq!(
            shells.complete(Shell::Fish, &line),
            subcommand_names(path),
            "fish: `{line}<Tab>`"
        );
    }
    let verbs = subcommand_names(&["exec", "task"]);
    let after_an_action = shells.complete(Shell::Fish, "agentteam exec task get ");
    assert!(
        after_an_action.is_disjoint(&verbs),
        "after `exec task get`, fish still offers actions: {after_an_action:?}"
    );
}
