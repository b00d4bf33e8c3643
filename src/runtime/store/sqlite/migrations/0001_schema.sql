-- The schema: workspaces, agents, tokens, boards, tasks, checkpoints,
-- activity, workflow callbacks, idempotency receipts and the search index.
CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX workspaces_by_name ON workspaces(name, created_at);
CREATE TABLE agents (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    handle TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (workspace_id, handle)
);
CREATE TABLE tokens (
    hash BLOB PRIMARY KEY,
    agent_id TEXT NOT NULL REFERENCES agents(id),
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
) WITHOUT ROWID;
CREATE INDEX tokens_by_agent ON tokens(agent_id);
CREATE TABLE channels (
    id INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    name TEXT NOT NULL,
    private INTEGER NOT NULL,
    -- Board-local numbers come from here, inside the create transaction, and never go back.
    next_number INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL,
    UNIQUE (workspace_id, name)
);
CREATE TABLE channel_members (
    channel_id INTEGER NOT NULL REFERENCES channels(id),
    agent_id TEXT NOT NULL REFERENCES agents(id),
    PRIMARY KEY (channel_id, agent_id)
) WITHOUT ROWID;
CREATE TABLE tasks (
    id INTEGER PRIMARY KEY,
    channel_id INTEGER NOT NULL REFERENCES channels(id),
    number INTEGER NOT NULL,
    scope_id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    description TEXT,
    status TEXT NOT NULL,
    priority TEXT NOT NULL,
    assignee_id TEXT REFERENCES agents(id),
    parent_id INTEGER REFERENCES tasks(id),
    labels TEXT NOT NULL,
    checklist TEXT NOT NULL,
    urls TEXT NOT NULL,
    attachments TEXT NOT NULL,
    blocker TEXT,
    source_target TEXT,
    created_by TEXT NOT NULL REFERENCES agents(id),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    -- Deleted tasks stay as tombstones: their numbers and scope ids are never reused.
    deleted_at INTEGER,
    UNIQUE (channel_id, number)
);
CREATE INDEX tasks_by_parent ON tasks(parent_id);
CREATE INDEX tasks_by_board_updated ON tasks(channel_id, updated_at);
CREATE TABLE checkpoints (
    id INTEGER PRIMARY KEY,
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    summary TEXT NOT NULL,
    created_by TEXT NOT NULL REFERENCES agents(id),
    created_at INTEGER NOT NULL
);
CREATE INDEX checkpoints_by_task ON checkpoints(task_id, id);
-- Task activity: one row per created, updated, claimed, released,
-- checkpointed, promoted or deleted task; the source of live task events.
CREATE TABLE task_events (
    id INTEGER PRIMARY KEY,
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    kind TEXT NOT NULL,
    actor_id TEXT NOT NULL REFERENCES agents(id),
    at INTEGER NOT NULL,
    detail TEXT NOT NULL
);
CREATE INDEX task_events_by_task ON task_events(task_id, id);
CREATE TABLE callbacks (
    effect_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    agent_id TEXT NOT NULL REFERENCES agents(id),
    opened_at INTEGER NOT NULL,
    completed_at INTEGER
);
CREATE TABLE idempotency_receipts (
    workspace_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    effect_id TEXT NOT NULL REFERENCES callbacks(effect_id),
    key TEXT NOT NULL,
    digest TEXT NOT NULL,
    task_ids TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, agent_id, run_id, effect_id, key)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE task_fts USING fts5(
    title, description, content='tasks', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO task_fts(rowid, title, description)
    VALUES (new.id, new.title, coalesce(new.description, ''));
END;
CREATE TRIGGER tasks_fts_update AFTER UPDATE OF title, description ON tasks BEGIN
    INSERT INTO task_fts(task_fts, rowid, title, description)
    VALUES ('delete', old.id, old.title, coalesce(old.description, ''));
    INSERT INTO task_fts(rowid, title, description)
    VALUES (new.id, new.title, coalesce(new.description, ''));
END;
