//! The PostgreSQL schema's versioned migrations (the SQL is in
//! `migrations/`), recorded in the `agentteam_schema` table and applied
//! under an advisory lock, so replicas that start together migrate once.

use deadpool_postgres::{GenericClient, Object};

use super::super::schema::{self, Migration};
use super::connections::{Result, one};
use super::tasks;

/// The schema's versioned migrations, in order; the `agentteam_schema`
/// table records the ones applied.
pub(super) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "schema",
        sql: include_str!("migrations/0001_schema.sql"),
        reindex_search: false,
    },
    Migration {
        version: 2,
        name: "search_word_forms",
        sql: include_str!("migrations/0002_search_word_forms.sql"),
        reindex_search: true,
    },
    Migration {
        version: 3,
        name: "token_scope_expiry",
        sql: include_str!("migrations/0003_token_scope_expiry.sql"),
        reindex_search: false,
    },
    Migration {
        version: 4,
        name: "search_index_without_pending_list",
        sql: include_str!("migrations/0004_search_index_without_pending_list.sql"),
        reindex_search: false,
    },
    Migration {
        version: 5,
        name: "checkpoint_keys",
        sql: include_str!("migrations/0005_checkpoint_keys.sql"),
        reindex_search: false,
    },
    Migration {
        version: 6,
        name: "checkpoint_numbers",
        sql: include_str!("migrations/0006_checkpoint_numbers.sql"),
        reindex_search: false,
    },
];

/// Where applied migrations are recorded; created by the first migration run.
const SCHEMA_TABLE: &str = "CREATE TABLE IF NOT EXISTS agentteam_schema (\
    version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)";
/// The advisory lock replicas take to migrate one at a time ("agentteam").
const MIGRATION_LOCK: i64 = 0x6167_656e_7474_6561;

/// The version recorded in the database; 0 before the first migration.
pub(super) async fn schema_version<C: GenericClient>(c: &C) -> Result<u32> {
    // Read from pg_class with the statement's own snapshot, not with
    // `to_regclass`: that looks the name up in the backend's catalog cache,
    // which an advisory lock does not refresh, so a runner that waited for
    // another's migration still saw no table and ran migration 1 again.
    const EXISTS: &str = "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c \
         JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
         WHERE c.relname = 'agentteam_schema' AND n.nspname = current_schema())";
    const VERSION: &str = "SELECT coalesce(max(version), 0) FROM agentteam_schema";
    if !one(c, EXISTS, &[]).await?.get::<_, bool>(0) {
        return Ok(0);
    }
    let version: i32 = one(c, VERSION, &[]).await?.get(0);
    Ok(u32::try_from(version).unwrap_or(0))
}

/// Applies the pending migrations in one transaction, under an advisory
/// lock so replicas starting together migrate one after the other (DDL is
/// transactional in PostgreSQL: a failed migration leaves nothing behind).
pub(super) async fn apply_pending(client: &mut Object) -> Result<Vec<u32>> {
    const LOCK: &str = "SELECT pg_advisory_xact_lock($1)";
    const RECORD: &str = "INSERT INTO agentteam_schema (version, name, applied_at) \
         VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)";
    let tx = client.transaction().await?;
    one(&tx, LOCK, &[&MIGRATION_LOCK]).await?;
    let version = schema_version(&tx).await?;
    let pending = schema::pending(MIGRATIONS, version)?;
    if pending.is_empty() {
        tx.commit().await?;
        return Ok(Vec::new());
    }
    tx.batch_execute(SCHEMA_TABLE).await?;
    let mut applied = Vec::new();
    for migration in pending {
        tx.batch_execute(migration.sql).await?;
        if migration.reindex_search {
            tasks::reindex_search(&tx).await?;
        }
        let version = i32::try_from(migration.version).unwrap_or(i32::MAX);
        tx.execute(RECORD, &[&version, &migration.name]).await?;
        applied.push(migration.version);
    }
    tx.commit().await?;
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_migration_file_is_registered_once_in_order() {
        schema::assert_registers_every_file("src/runtime/store/postgres/migrations", MIGRATIONS);
    }
}
