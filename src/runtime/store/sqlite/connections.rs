//! The SQLite connections: how each is configured, the statement cache
//! they share, the read-only readers that serve snapshots beside the one
//! writer (`writer.rs`), and how a SQLite error reaches a client.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, TryLockError};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, Row, TransactionBehavior};

use crate::error::{Failure, code};

pub(super) const READERS: usize = 4;
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Prepared statements kept per connection. Every query text here is a
/// constant or one of the few shapes [`list_sql`] builds, so parsing and
/// planning it again on each request is waste.
const STATEMENT_CACHE: usize = 128;

/// `query_row` and `execute` through the connection's statement cache.
pub(super) trait Cached {
    fn row_cached<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T>;
    fn exec_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize>;
}

impl Cached for Connection {
    fn row_cached<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }

    fn exec_cached<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }
}

/// Every store error the caller cannot fix is one retryable `server_error`;
/// the detail goes to the log, never to the client.
impl From<rusqlite::Error> for Failure {
    fn from(e: rusqlite::Error) -> Failure {
        let busy = matches!(
            e.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        );
        tracing::error!(error = %e, "store error");
        Failure::new(
            code::SERVER_ERROR,
            if busy {
                "The store is busy. Retry shortly."
            } else {
                "The store failed. Retry later."
            },
        )
    }
}

pub(super) fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // Without the planner stability guarantee, a statement whose plan could
    // depend on a bound value (any `LIMIT ?`) is expired when the cache
    // clears its bindings and fully reparsed on its next run: a third of a
    // task.get. The store never runs ANALYZE, so no plan depends on values.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.pragma_update(None, "foreign_keys", true)?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(())
}

/// The read-only connections, used in turn.
pub(super) struct Readers {
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
}

impl Readers {
    pub(super) fn open(path: &Path) -> Result<Readers, Failure> {
        let mut readers = Vec::with_capacity(READERS);
        for _ in 0..READERS {
            let reader = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            configure(&reader)?;
            readers.push(Mutex::new(reader));
        }
        Ok(Readers {
            readers,
            next_reader: AtomicUsize::new(0),
        })
    }

    /// Runs `f` in one read transaction: a consistent snapshot.
    pub(super) fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        // The first idle reader from a rotating start, so a read never
        // queues behind a busy connection while another one is free; when
        // all are busy, wait for the one the rotation picked.
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        let n = self.readers.len();
        let idle = (0..n).find_map(|k| match self.readers[(start + k) % n].try_lock() {
            Ok(guard) => Some(guard),
            Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        });
        let mut conn = match idle {
            Some(guard) => guard,
            None => self.readers[start % n]
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        };
        let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }
}
