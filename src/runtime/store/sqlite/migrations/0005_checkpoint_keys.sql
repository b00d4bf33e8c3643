-- A checkpoint may carry the idempotency_key it was appended with: a retry
-- with the same key, by the same agent, on the same task replays it instead
-- of appending again (docs/contract.md §7.2). Keys are scoped to the agent
-- and the task, so the unique index is the replay's lookup and its guard.
ALTER TABLE checkpoints ADD COLUMN idempotency_key TEXT;
CREATE UNIQUE INDEX checkpoints_by_key ON checkpoints(task_id, created_by, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
