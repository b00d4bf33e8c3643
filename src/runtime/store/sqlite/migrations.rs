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
/// usage error, as on PostgreSQL, and its SQL stays out of the log. Any
/// other refusal names the migration and SQLite's words: migrations run
/// only for the operator (`serve`'s start and the admin commands, never
/// in an HTTP answer), whose stderr, like a test's panic, then says why
/// rather than only that the store failed.
fn schema_failure(conn: &Connection, migration: &Migration, e: rusqlite::Error) -> Failure {
    // SQLite's own words, without the statement rusqlite quotes with them.
    let said = match &e {
        rusqlite::Error::SqlInputError { msg, .. }
        | rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
        e => e.to_string(),
    };
    if !said.contains("already exists") {
        let message = format!(
            "SQLite refused migration {} ({}): {said}. The store is unchanged.",
            migration.version, migration.name
        );
        return Failure {
            message,
            ..Failure::from(e)
        };
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
            .map_err(|e| schema_failure(conn, migration, e))?;
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

    /// A migration SQLite refuses says which one and why, where the operator
    /// (or a test's panic) reads it, and leaves the store as it was.
    #[test]
    fn a_refused_migration_names_itself_and_sqlites_words() {
        use super::super::super::schema::OnOpen;
        use super::super::SqliteStore;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rt.db");
        drop(SqliteStore::open(&path, OnOpen::Migrate).unwrap());
        // The version rewound before `checkpoint_numbers`, its column kept.
        let before = 6;
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", before)
            .unwrap();
        let Err(refused) = SqliteStore::open(&path, OnOpen::Migrate) else {
            panic!("migration {} ran twice", before + 1);
        };
        let last = MIGRATIONS[before];
        assert_eq!(last.name, "checkpoint_numbers");
        assert_eq!(refused.code, "server_error");
        assert_eq!(
            refused.message,
            format!(
                "SQLite refused migration {} ({}): duplicate column name: number. The store is unchanged.",
                last.version, last.name
            )
        );
        let version: usize = Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, before);
    }
}
