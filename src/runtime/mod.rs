//! The reference Agent Runtime API server (`agentteam-runtime`).
