-- Search matches word forms: tasks.search now holds the words the runtime
-- cuts and their English stems at the same positions
-- (src/runtime/store/search.rs), the same terms SQLite's index holds. The
-- column keeps its type and index; the runtime recomputes it for the tasks
-- already stored right after this migration, in the same transaction.
COMMENT ON COLUMN tasks.search IS
    'Title (weight A) and description (weight B) words and their English stems, cut by the runtime (search.rs)';
