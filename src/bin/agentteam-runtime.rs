//! The reference Agent Runtime API server (`agentteam-runtime`); see `agentteam::runtime`.

fn main() -> std::process::ExitCode {
    agentteam::runtime::main_entry()
}
