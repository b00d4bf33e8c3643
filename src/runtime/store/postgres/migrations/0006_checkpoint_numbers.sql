-- A checkpoint's id is its number within its task (1, 2, 3, ...), as a
-- task's number is within its board. It was the table's identity, one
-- counter for every workspace, so a caller could count the checkpoints
-- every other workspace appended between two of its own
-- (docs/security.md). Stored checkpoints are numbered in the order they
-- were appended; the unique index is the section's order and an append's
-- guard (appends to one task hold its row lock, so they never race for a
-- number).
ALTER TABLE checkpoints ADD COLUMN number bigint;
UPDATE checkpoints k SET number = n.number
    FROM (SELECT id, row_number() OVER (PARTITION BY task_id ORDER BY id) AS number
          FROM checkpoints) n
    WHERE n.id = k.id;
ALTER TABLE checkpoints ALTER COLUMN number SET NOT NULL;
DROP INDEX checkpoints_by_task;
CREATE UNIQUE INDEX checkpoints_by_task ON checkpoints (task_id, number);
-- During a rolling upgrade a replica of the previous version appends
-- without a number; this numbers its checkpoints as the runtime does (it
-- holds the task's row lock too). The runtime always gives the number.
CREATE FUNCTION checkpoints_number() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.number IS NULL THEN
        NEW.number := (SELECT coalesce(max(k.number), 0) + 1 FROM checkpoints k
                       WHERE k.task_id = NEW.task_id);
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER checkpoints_number BEFORE INSERT ON checkpoints
    FOR EACH ROW EXECUTE FUNCTION checkpoints_number();
