//! `agentteam completions <shell>`: the completion scripts, written by
//! clap_complete from the same command tree the parser uses.

use clap_complete::Shell;

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
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut super::command(), BIN_NAME, &mut buf);
    String::from_utf8(buf).expect("clap_complete writes UTF-8")
}
