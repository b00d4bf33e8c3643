-- A checkpoint's id is its number within its task (1, 2, 3, ...), as a
-- task's number is within its board. It was the table's rowid, one counter
-- for every workspace, so a caller could count the checkpoints every other
-- workspace appended between two of its own (docs/security.md). Stored
-- checkpoints are numbered in the order they were appended; the unique
-- index is the section's order and an append's guard.
ALTER TABLE checkpoints ADD COLUMN number INTEGER NOT NULL DEFAULT 0;
UPDATE checkpoints SET number = (
    SELECT count(*) FROM checkpoints k
    WHERE k.task_id = checkpoints.task_id AND k.id <= checkpoints.id
);
DROP INDEX checkpoints_by_task;
CREATE UNIQUE INDEX checkpoints_by_task ON checkpoints(task_id, number);
