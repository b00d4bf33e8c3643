//! The task domain (§13): seven actions over one team board, and the field
//! shapes they share.

pub mod checkpoint;
pub mod create;
pub mod delete;
pub mod fields;
pub mod fit;
pub mod get;
pub mod list;
pub mod set_claim;
pub mod text;
pub mod update;

use super::HiddenContext;

/// The task domain's operations, one per action. The runtime's dispatch
/// matches them exhaustively, so an action without a handler is a compile
/// error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    List,
    Get,
    Create,
    Update,
    SetClaim,
    Checkpoint,
    Delete,
}

/// Every task request is workspace-scoped and made with the agent's bearer token (§13.1).
pub const AGENT_CONTEXT: &[HiddenContext] = &[
    HiddenContext::WorkspaceId,
    HiddenContext::AgentId,
    HiddenContext::AgentToken,
];
