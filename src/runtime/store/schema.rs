//! Versioned schema migrations, the part both engines share: what a
//! migration is, whether a store is opened to be migrated or only looked
//! at, and the report `agentteam-runtime migrate --status` prints. Each
//! engine keeps its own SQL in `migrations/NNNN_name.sql` files beside its
//! module and records the version it reached in the database itself, so
//! every process that opens the same database agrees on it.

use serde::Serialize;

use crate::error::{Failure, code};

/// One step of an engine's schema: from `version - 1` to `version`.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: u32,
    pub name: &'static str,
    pub sql: &'static str,
    /// After the SQL, the engine recomputes every task's search terms in
    /// Rust (`search.rs`), in the same transaction: for migrations that
    /// change what the search index holds.
    pub reindex_search: bool,
}

/// What opening a store does to its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnOpen {
    /// Applies the pending migrations (`serve` and every admin command).
    Migrate,
    /// Leaves the schema as it is (`migrate --status`, and `migrate`, which
    /// then applies them itself and reports what it did).
    Inspect,
}

/// One migration as `migrate --status` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MigrationState {
    pub version: u32,
    pub name: &'static str,
    pub applied: bool,
}

/// The schema of one store against the migrations this binary knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaStatus {
    pub engine: &'static str,
    /// The version the database records (0: nothing applied yet).
    pub version: u32,
    /// The newest version this binary knows.
    pub latest: u32,
    pub migrations: Vec<MigrationState>,
    /// Said only of a store whose schema is newer than this binary knows,
    /// which every other command refuses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl SchemaStatus {
    pub fn new(engine: &'static str, version: u32, migrations: &[Migration]) -> SchemaStatus {
        SchemaStatus {
            engine,
            version,
            latest: latest(migrations),
            migrations: migrations
                .iter()
                .map(|m| MigrationState {
                    version: m.version,
                    name: m.name,
                    applied: m.version <= version,
                })
                .collect(),
            note: (version > latest(migrations))
                .then(|| newer_schema(version, latest(migrations)).message),
        }
    }
}

pub fn latest(migrations: &[Migration]) -> u32 {
    migrations.last().map_or(0, |m| m.version)
}

/// The migrations still to apply to a store at `version`, or the refusal
/// to touch a store written by a newer binary.
pub fn pending(migrations: &[Migration], version: u32) -> Result<&[Migration], Failure> {
    let latest = latest(migrations);
    if version > latest {
        return Err(newer_schema(version, latest));
    }
    let done = migrations.partition_point(|m| m.version <= version);
    Ok(&migrations[done..])
}

/// A store whose schema this binary does not know: an older binary must
/// not write to it, so nothing is done.
pub fn newer_schema(version: u32, latest: u32) -> Failure {
    Failure::new(
        code::USAGE_ERROR,
        format!(
            "The store's schema is version {version}, newer than this agentteam-runtime knows ({latest}); run a newer agentteam-runtime."
        ),
    )
    .field("db", "Written by a newer agentteam-runtime.")
}

/// Panics unless `migrations` registers every SQL file of the engine's
/// migrations directory `dir` (relative to the crate) exactly once: in
/// file-name order, each with the version and name its file name gives
/// (`NNNN_name.sql`) and that file's SQL, the versions 1, 2, 3, … without
/// a gap. The list is written by hand beside the files; this keeps the two
/// from drifting apart.
#[cfg(test)]
pub fn assert_registers_every_file(dir: &str, migrations: &[Migration]) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<(String, String)> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let sql = std::fs::read_to_string(entry.path()).unwrap();
            (name, sql)
        })
        .collect();
    files.sort();
    let registered: Vec<String> = migrations
        .iter()
        .map(|m| format!("{:04}_{}.sql", m.version, m.name))
        .collect();
    let on_disk: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        registered, on_disk,
        "{dir}: the registered migrations (version and name) are not its files"
    );
    for (at, (m, (name, sql))) in migrations.iter().zip(&files).enumerate() {
        assert_eq!(m.version as usize, at + 1, "{dir}: a gap before {name}");
        assert!(
            m.sql == sql,
            "{dir}: migration {name} includes another file's SQL"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STEPS: &[Migration] = &[
        Migration {
            version: 1,
            name: "one",
            sql: "",
            reindex_search: false,
        },
        Migration {
            version: 2,
            name: "two",
            sql: "",
            reindex_search: false,
        },
    ];

    #[test]
    fn pending_is_what_follows_the_version_and_a_newer_store_is_refused() {
        assert_eq!(pending(STEPS, 0).unwrap().len(), 2);
        assert_eq!(pending(STEPS, 1).unwrap()[0].name, "two");
        assert!(pending(STEPS, 2).unwrap().is_empty());
        let refused = pending(STEPS, 3).unwrap_err();
        assert_eq!(refused.code, "usage_error");
        assert!(refused.message.contains("version 3"), "{}", refused.message);
        let status = SchemaStatus::new("sqlite", 1, STEPS);
        assert_eq!((status.version, status.latest), (1, 2));
        assert_eq!(
            status
                .migrations
                .iter()
                .map(|m| m.applied)
                .collect::<Vec<_>>(),
            [true, false]
        );
    }
}
