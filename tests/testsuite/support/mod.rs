//! What the test modules share. Each submodule owns one kind of fixture.

pub mod cli;
pub mod closed_port;
pub mod openapi;
pub mod postgres;
pub mod recorder;
#[macro_use]
pub mod runtime;
pub mod tls;
