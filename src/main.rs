//! `agentteam`: parse, run, exit with the class of what happened.

// A binary sees every dependency of the package; the library uses them.
#![allow(unused_crate_dependencies)]

fn main() -> std::process::ExitCode {
    agentteam::cli::answer_panics();
    std::process::ExitCode::from(agentteam::cli::run(std::env::args_os()) as u8)
}
