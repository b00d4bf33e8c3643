-- Browse indexes that end in the tie-break number, so every sort of a
-- board page is one index range read in order and cut at the limit, never
-- a sort of the whole board.
DROP INDEX tasks_by_board_updated;
CREATE INDEX tasks_by_board_updated ON tasks(channel_id, updated_at, number);
CREATE INDEX tasks_by_board_created ON tasks(channel_id, created_at, number);
