//! The reference Agent Runtime API server, `agentteam-runtime`: the seven
//! task operations of §13.3 over HTTP with the semantics of §13.2, on an
//! embedded SQLite store or a PostgreSQL database (any number of replicas
//! on one), plus the small admin surface a local user needs.
//!
//! A request, top to bottom: [`ingress`] holds it to the HTTP/1.1 wire's
//! own rules, [`server`] routes it by the registry, checks the
//! bearer token ([`auth`]), decodes and validates the input with the same
//! code as the CLI (`wire`, `validate`), and hands it to the [`store`],
//! which applies it atomically and durably before it is answered. [`cli`] is
//! the command line: it has [`server`] bind, announces the address, then
//! has it serve; the server never writes to stdout.

pub mod auth;
pub mod cli;
pub mod clock;
pub mod ingress;
pub mod log;
pub mod server;
pub mod shed;
pub mod store;

/// The allocator the `agentteam-runtime` binary declares as its global
/// one (docs/performance.md, "The runtime's allocator"). Named here, not in
/// the binary, so the library is where the dependency is used; the CLI does
/// not take it.
pub use mimalloc::MiMalloc as Allocator;

/// The whole `agentteam-runtime` binary.
pub fn main_entry() -> std::process::ExitCode {
    cli::run()
}
