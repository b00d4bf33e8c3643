//! The integration tests: the real `agentteam` and `agentteam-runtime`
//! binaries, driven from one test binary so the suite links once (as
//! cargo's own `tests/testsuite/` does). `cargo test` runs it with the rest;
//! `cargo test --test testsuite <module>::` runs one area, e.g.
//! `cargo test --test testsuite cli_faults::`.
//!
//! Layout:
//!
//! - one module per area below, one file each (`cli_exec.rs`, …); a new test
//!   goes into the module of its area, a new area into a new file declared
//!   here;
//! - `support/`: what tests share, and nothing else: the hermetic CLI
//!   ([`support::cli`]), the recording HTTP server ([`support::recorder`]),
//!   the real runtime on either engine ([`support::runtime`], with
//!   `on_every_engine!`) and throwaway PostgreSQL servers
//!   ([`support::postgres`]); a helper used by one module stays in it;
//! - `snapshots/`: insta's files for every module, named
//!   `testsuite__<module>__<name>.snap`.
//!
//! Everything runs in one process, so a test never changes process-wide
//! state (environment, current directory, umask, signal handlers): children
//! get their environment on their `Command`. PostgreSQL tests share one
//! server, `support::postgres::Cluster::shared()`, each on a database of its
//! own; a test that stops or restarts a server starts a private one.

// An integration-test crate sees every dependency of the package, and uses
// only some.
#![allow(unused_crate_dependencies)]

#[macro_use]
mod support;

mod agent_journey;
mod cli_completions;
mod cli_exec;
mod cli_faults;
mod cli_modes;
mod cli_recovery;
mod cli_surface;
mod cli_terminal;
mod e2e;
mod generated;
mod openapi;
mod postgres_faults;
mod postgres_harness;
mod postgres_tls;
mod reliability_concurrency;
mod reliability_crash;
mod reliability_fuzz;
mod reliability_limits;
mod reliability_security;
mod runtime_db;
mod runtime_http;
mod security_tokens;
mod snapshots;
