//! The opaque ids and tokens the runtime makes, known by their prefixes:
//! declared once for the runtime that makes them and the CLI that must not
//! take an id for a secret. Depends on nothing.

/// The prefix of every token the runtime issues (`at_…`).
pub const TOKEN_PREFIX: &str = "at_";

/// The kinds of opaque id the runtime makes, each known by its prefix:
/// names, not secrets (the CLI shows them where it hides token-shaped
/// words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Workspace,
    Agent,
    WorkflowRun,
    CallbackEffect,
    TaskScope,
}

impl IdKind {
    pub const ALL: [IdKind; 5] = [
        IdKind::Workspace,
        IdKind::Agent,
        IdKind::WorkflowRun,
        IdKind::CallbackEffect,
        IdKind::TaskScope,
    ];

    /// `ws_`, `ag_`, `run_`, `cbe_`, `tsk_`.
    pub fn prefix(self) -> &'static str {
        match self {
            IdKind::Workspace => "ws_",
            IdKind::Agent => "ag_",
            IdKind::WorkflowRun => "run_",
            IdKind::CallbackEffect => "cbe_",
            IdKind::TaskScope => "tsk_",
        }
    }
}
