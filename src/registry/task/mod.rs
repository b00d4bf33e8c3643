//! The task domain (§13): seven actions over one team board, and the field
//! shapes they share.

pub mod checkpoint;
pub mod create;
pub mod delete;
pub mod fields;
pub mod get;
pub mod list;
pub mod set_claim;
pub mod text;
pub mod update;

use super::HiddenContext;

/// Every task request is workspace-scoped and made with the agent's bearer token (§13.1).
pub const AGENT_CONTEXT: &[HiddenContext] = &[
    HiddenContext::WorkspaceId,
    HiddenContext::AgentId,
    HiddenContext::AgentToken,
];
