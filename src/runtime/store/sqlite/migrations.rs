//! The SQLite schema's versioned migrations (the SQL is in `migrations/`),
//! recorded in `PRAGMA user_version`.

use rusqlite::Connection;

use super::super::schema::{self, Migration};
use super::tasks;
use crate::error::Failure;

/// The schema's versioned migrations, in order; each moves the schema from
/// the version before it to its own, and `PRAGMA user_version` records the
/// last one applied.
pub(super) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "schema",
        sql: include_str!("migrations/0001_schema.sql"),
        reindex_search: false,
    },
    Migration {
        version: 2,
        name: "browse_indexes",
        sql: include_str!("migrations/0002_browse_indexes.sql"),
        reindex_search: false,
    },
    Migration {
        version: 3,
        name: "search_word_forms",
        sql: include_str!("migrations/0003_search_word_forms.sql"),
        reindex_search: true,
    },
    Migration {
        version: 4,
        name: "token_scope_expiry",
        sql: include_str!("migrations/0004_token_scope_expiry.sql"),
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
        name: "search_relevance",
        sql: include_str!("migrations/0006_search_relevance.sql"),
        reindex_search: true,
    },
    Migration {
        version: 7,
        name: "checkpoint_numbers",
        sql: include_str!("migrations/0007_checkpoint_numbers.sql"),
        reindex_search: false,
    },
];

/// A migration SQLite refused: a database that already holds tables of the
/// runtime's names (another application's file, named by mistake) is a
/// usage error, as on PostgreSQL, and its SQL stays out of the log.
fn schema_failure(conn: &Connection, e: rusqlite::Error) -> Failure {
    // SQLite's own words, without the statement rusqlite quotes with them.
    let said = match &e {
        rusqlite::Error::SqlInputError { msg, .. }
        | rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
        e => e.to_string(),
    };
    if !said.contains("already exists") {
        return e.into();
    }
    let path = conn.path().unwrap_or_default().to_string();
    tracing::error!(error = said, "schema refused");
    Failure::new(
        crate::error::code::USAGE_ERROR,
        format!("SQLite refused the runtime's schema in {path}: {said}."),
    )
    .field(
        "db",
        "The file must be an agentteam store, or a path that does not exist yet: it holds other tables of the runtime's names.",
    )
}

/// Applies the migrations after the store's `user_version` inside the
/// caller's transaction; returns the versions applied.
pub(super) fn apply_pending(conn: &Connection) -> Result<Vec<u32>, Failure> {
    let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let mut applied = Vec::new();
    for migration in schema::pending(MIGRATIONS, version)? {
        conn.execute_batch(migration.sql)
            .map_err(|e| schema_failure(conn, e))?;
        if migration.reindex_search {
            tasks::reindex_search(conn)?;
        }
        conn.pragma_update(None, "user_version", migration.version)?;
        applied.push(migration.version);
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_migration_file_is_registered_once_in_order() {
        schema::assert_registers_every_file("src/runtime/store/sqlite/migrations", MIGRATIONS);
    }
}
