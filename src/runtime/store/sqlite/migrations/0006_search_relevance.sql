-- Search relevance is the same on both engines (src/runtime/store/search.rs,
-- TITLE_WEIGHT): for each query word, 2 when it matches a title term and 1
-- when it matches a description term. The score reads each hit's terms, so
-- the index now keeps them (it was contentless, which only FTS5's own bm25
-- could rank). The runtime fills the table for the stored tasks right after
-- this migration, as it does whenever a title or description is written.
DROP TABLE task_fts;
CREATE VIRTUAL TABLE task_fts USING fts5(title, description, tokenize='ascii');
