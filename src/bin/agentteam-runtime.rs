//! The reference Agent Runtime API server (`agentteam-runtime`); see `agentteam::runtime`.

// A binary sees every dependency of the package; the library uses them.
#![allow(unused_crate_dependencies)]

#[global_allocator]
static ALLOCATOR: agentteam::runtime::Allocator = agentteam::runtime::Allocator;

fn main() -> std::process::ExitCode {
    agentteam::runtime::main_entry()
}
