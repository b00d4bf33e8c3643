//! Generated from the registry (do not edit; regenerate with
//! `AGENTTEAM_REGENERATE=1 cargo test --test testsuite generated::`).

use super::Compiled;

compiled! {
    TaskList = "schemas/task_list.input.json",
    TaskGet = "schemas/task_get.input.json",
    TaskCreate = "schemas/task_create.input.json",
    TaskUpdate = "schemas/task_update.input.json",
    TaskSetClaim = "schemas/task_set_claim.input.json",
    TaskCheckpoint = "schemas/task_checkpoint.input.json",
    TaskDelete = "schemas/task_delete.input.json",
}
