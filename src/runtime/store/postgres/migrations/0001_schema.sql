-- The schema: workspaces, agents, tokens, boards, tasks, checkpoints,
-- activity, workflow callbacks, idempotency receipts and the search index.
-- Times are integer microseconds since the Unix epoch, as on SQLite, so
-- `expected_updated_at` round-trips exactly on either engine.
CREATE TABLE workspaces (
    id text PRIMARY KEY,
    name text NOT NULL,
    created_at bigint NOT NULL
);
CREATE INDEX workspaces_by_name ON workspaces (name, created_at);

CREATE TABLE agents (
    id text PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id),
    handle text NOT NULL,
    created_at bigint NOT NULL,
    UNIQUE (workspace_id, handle)
);

CREATE TABLE tokens (
    hash bytea PRIMARY KEY,
    agent_id text NOT NULL REFERENCES agents (id),
    created_at bigint NOT NULL,
    revoked_at bigint
);
CREATE INDEX tokens_by_agent ON tokens (agent_id);

CREATE TABLE channels (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id),
    name text NOT NULL,
    private boolean NOT NULL,
    -- Board-local numbers come from this counter row, updated inside the
    -- create transaction: a rolled-back or retried create gives its numbers
    -- back (a SEQUENCE would burn them), and the row lock orders creators.
    next_number bigint NOT NULL DEFAULT 1,
    created_at bigint NOT NULL,
    UNIQUE (workspace_id, name)
);

CREATE TABLE channel_members (
    channel_id bigint NOT NULL REFERENCES channels (id),
    agent_id text NOT NULL REFERENCES agents (id),
    PRIMARY KEY (channel_id, agent_id)
);

CREATE TABLE tasks (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel_id bigint NOT NULL REFERENCES channels (id),
    number bigint NOT NULL,
    scope_id text NOT NULL UNIQUE,
    title text NOT NULL,
    description text,
    status text NOT NULL,
    priority text NOT NULL,
    assignee_id text REFERENCES agents (id),
    parent_id bigint REFERENCES tasks (id),
    labels jsonb NOT NULL,
    checklist jsonb NOT NULL,
    urls jsonb NOT NULL,
    attachments jsonb NOT NULL,
    blocker text,
    source_target text,
    created_by text NOT NULL REFERENCES agents (id),
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    -- Deleted tasks stay as tombstones: their numbers and scope ids are never reused.
    deleted_at bigint,
    -- The words of the title (weight A) and description (weight B), cut and
    -- folded by the runtime exactly as SQLite's unicode61 tokenizer does, so
    -- both engines match the same words.
    search tsvector NOT NULL,
    UNIQUE (channel_id, number)
);
CREATE INDEX tasks_by_parent ON tasks (parent_id);
-- Browse indexes that end in the tie-break number: every sort of a board
-- page is one index range read in order and cut at the limit.
CREATE INDEX tasks_by_board_updated ON tasks (channel_id, updated_at, number);
CREATE INDEX tasks_by_board_created ON tasks (channel_id, created_at, number);
CREATE INDEX tasks_search ON tasks USING gin (search);

CREATE TABLE checkpoints (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id bigint NOT NULL REFERENCES tasks (id),
    summary text NOT NULL,
    created_by text NOT NULL REFERENCES agents (id),
    created_at bigint NOT NULL
);
CREATE INDEX checkpoints_by_task ON checkpoints (task_id, id);

-- Task activity: one row per created, updated, claimed, released,
-- checkpointed, promoted or deleted task; the source of live task events.
CREATE TABLE task_events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id bigint NOT NULL REFERENCES tasks (id),
    kind text NOT NULL,
    actor_id text NOT NULL REFERENCES agents (id),
    at bigint NOT NULL,
    detail jsonb NOT NULL
);
CREATE INDEX task_events_by_task ON task_events (task_id, id);

CREATE TABLE callbacks (
    effect_id text PRIMARY KEY,
    run_id text NOT NULL,
    workspace_id text NOT NULL REFERENCES workspaces (id),
    agent_id text NOT NULL REFERENCES agents (id),
    opened_at bigint NOT NULL,
    completed_at bigint
);

-- The receipt is reserved first in the create transaction: a concurrent
-- first use of the same key waits on this primary key and then replays.
CREATE TABLE idempotency_receipts (
    workspace_id text NOT NULL,
    agent_id text NOT NULL,
    run_id text NOT NULL,
    effect_id text NOT NULL REFERENCES callbacks (effect_id),
    key text NOT NULL,
    digest text NOT NULL,
    task_ids jsonb NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, agent_id, run_id, effect_id, key)
);
