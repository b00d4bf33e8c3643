-- Search matches word forms: the index holds the words the runtime cuts
-- and their English stems (src/runtime/store/search.rs), the same terms
-- PostgreSQL indexes, instead of FTS5's own unicode61 words fed by
-- triggers. The `ascii` tokenizer keeps the runtime's words whole (they
-- are lowercase runs of letters and digits joined by spaces). The table
-- keeps no copy of the text (contentless); the runtime writes a task's
-- row whenever its title or description is written, and fills the table
-- for the tasks already stored right after this migration.
DROP TRIGGER tasks_fts_insert;
DROP TRIGGER tasks_fts_update;
DROP TABLE task_fts;
CREATE VIRTUAL TABLE task_fts USING fts5(
    title, description, content='', contentless_delete=1, tokenize='ascii'
);
