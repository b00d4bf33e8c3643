//! agentteam: the AgentTeam Exec CLI and a reference Agent Runtime API server.
//!
//! One request, top to bottom: stdin → [`registry`] entry → [`validate`] →
//! hidden context from [`credentials`] → [`client`] (HTTP, snake_case ↔
//! camelCase via [`case`]) → [`output`] on stdout. The server side,
//! [`runtime`], routes and validates with the same registry.

// The unit tests also link the dev-dependencies, which only the integration
// tests use; the library itself is held to the lint.
#![cfg_attr(test, allow(unused_crate_dependencies))]

pub mod budget;
pub mod case;
pub mod cli;
pub mod client;
pub mod credentials;
pub mod env_vars;
pub mod error;
pub mod exec;
pub mod generate;
pub mod ids;
pub mod json;
pub mod nearest;
pub mod openapi;
pub mod output;
pub mod redact;
pub mod registry;
pub mod runtime;
pub mod schemas;
pub mod text;
pub mod validate;
pub mod wire;
