-- The search index takes each new task's words at once instead of through
-- GIN's pending list. With the list (the default), inserts are cheaper until
-- it reaches gin_pending_list_limit, and then the insert that finds it full
-- merges the whole list into the index: tens of milliseconds, paid by one
-- group of creates while it holds its board's counter row. Measured with
-- scripts/bench-postgres.sh (docs/performance.md): task.create p99 14–54 ms
-- with the list, 9–16 ms without, at the same throughput within 3 %.
ALTER INDEX tasks_search SET (fastupdate = off);
-- Turning the list off does not empty it: merge what is there now.
SELECT gin_clean_pending_list('tasks_search'::regclass);
