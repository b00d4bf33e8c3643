//! `agentteam`: parse, run, exit with the class of what happened.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(agentteam::cli::run(std::env::args_os()) as u8)
}
