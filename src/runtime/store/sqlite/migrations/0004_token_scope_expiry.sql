-- Tokens carry a permission class (§9.2) and an expiry. Tokens issued
-- before this migration keep the widest class and never expire, exactly
-- as they worked before: a migration revokes nothing by surprise.
ALTER TABLE tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'destructive'
    CHECK (scope IN ('read_only', 'agent_mutation', 'destructive'));
ALTER TABLE tokens ADD COLUMN expires_at INTEGER;
-- Pruning dead tokens on each issue reads only them: two index ranges.
CREATE INDEX tokens_by_expiry ON tokens(expires_at);
CREATE INDEX tokens_by_revocation ON tokens(revoked_at);
