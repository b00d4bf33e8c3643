//! Group commit for the SQLite backend: the one writer connection lives on
//! its own thread, which runs queued mutations in groups. Each group is one
//! `BEGIN IMMEDIATE` transaction; each mutation in it runs inside its own
//! savepoint, so a mutation that fails is rolled back alone and the others
//! keep their effects; then one `COMMIT` (one WAL fsync under
//! `synchronous=FULL`) makes the whole group durable, and only then is each
//! caller answered.
//!
//! So every mutation keeps what a transaction of its own gave it (all or
//! nothing, durable before it is acknowledged, applied in one serial order,
//! seeing every mutation acknowledged before it was submitted), but N
//! concurrent callers share one fsync instead of queueing for N. A group is
//! whatever queued while the previous group was committing (at most
//! [`MAX_GROUP`]), so a lone caller is committed at once and waits for
//! nothing.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::thread::JoinHandle;

use rusqlite::Connection;
use tokio::sync::oneshot;

use crate::error::{Failure, code};

/// Mutations committed together at most, bounding how long the last of a
/// group waits for the others' work before its fsync.
const MAX_GROUP: usize = 64;

/// WAL pages after which a commit also checkpoints (copies the WAL into the
/// database file and fsyncs it), instead of SQLite's 1,000. That commit's
/// callers wait for the checkpoint, so smaller, more frequent ones keep the
/// tail short; fewer pages than this cost throughput. Checkpointing from
/// another thread instead lets the WAL grow without bound under steady
/// writes: a log restarts only when a write begins after a complete
/// checkpoint. The figures are in docs/performance.md.
const CHECKPOINT_PAGES: i64 = 250;

/// The writer thread and the queue it reads. Dropping it finishes the queued
/// mutations, closes the connection and joins the thread.
pub(super) struct Writer {
    queue: Option<mpsc::Sender<Box<dyn Job>>>,
    thread: Option<JoinHandle<()>>,
    #[cfg(test)]
    stats: std::sync::Arc<Stats>,
}

/// What the tests observe: mutations queued and groups committed.
#[cfg(test)]
#[derive(Default)]
struct Stats {
    queued: std::sync::atomic::AtomicUsize,
    groups: std::sync::atomic::AtomicUsize,
}

impl Writer {
    /// Moves `conn` (configured and migrated) onto a new writer thread.
    pub(super) fn start(conn: Connection) -> Result<Writer, Failure> {
        conn.pragma_update(None, "wal_autocheckpoint", CHECKPOINT_PAGES)?;
        let (queue, jobs) = mpsc::channel::<Box<dyn Job>>();
        #[cfg(test)]
        let stats = std::sync::Arc::new(Stats::default());
        #[cfg(test)]
        let counts = stats.clone();
        let thread = std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || {
                while let Ok(first) = jobs.recv() {
                    let mut group = vec![first];
                    while group.len() < MAX_GROUP {
                        match jobs.try_recv() {
                            Ok(job) => group.push(job),
                            Err(_) => break,
                        }
                    }
                    #[cfg(test)]
                    counts
                        .groups
                        .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    commit_group(&conn, group);
                }
                // The queue is closed: the store is being dropped. Copy the
                // WAL into the database and empty it, so closing this last
                // connection removes the `-wal` and `-shm` files.
                if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())) {
                    tracing::warn!(error = %e, "final checkpoint failed; the WAL stays beside the store");
                }
                drop(conn);
            })
            .map_err(|e| {
                Failure::new(
                    code::SERVER_ERROR,
                    format!("Cannot start the store writer: {e}."),
                )
            })?;
        Ok(Writer {
            queue: Some(queue),
            thread: Some(thread),
            #[cfg(test)]
            stats,
        })
    }

    /// Queues `work` for the next group at once, and resolves to its result
    /// once the group is committed; an error (or a failed commit) means it
    /// wrote nothing. The caller waits without holding a thread.
    pub(super) fn write<T, F>(
        &self,
        work: F,
    ) -> impl Future<Output = Result<T, Failure>> + Send + 'static
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, Failure> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job: Box<dyn Job> = Box::new(Queued { work, reply });
        let sent = self.queue.as_ref().is_some_and(|q| q.send(job).is_ok());
        #[cfg(test)]
        self.stats
            .queued
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async move {
            if !sent {
                return Err(writer_gone());
            }
            // The reply is dropped unsent only if the mutation panicked.
            answer.await.unwrap_or_else(|_| {
                Err(Failure::new(
                    code::SERVER_ERROR,
                    "The server failed on this request.",
                ))
            })
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        drop(self.queue.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn writer_gone() -> Failure {
    Failure::new(code::SERVER_ERROR, "The store failed. Retry later.")
}

/// A queued mutation, type-erased: run it, or answer it with a failure
/// without running it.
trait Job: Send {
    fn run(self: Box<Self>, conn: &Connection) -> Box<dyn Ran>;
    fn fail(self: Box<Self>, failure: Failure);
}

/// A mutation that has run and awaits its group's commit.
trait Ran: Send {
    fn succeeded(&self) -> bool;
    /// Answers the caller: its own error, else the commit's outcome.
    fn answer(self: Box<Self>, committed: Result<(), Failure>);
}

struct Queued<T, F> {
    work: F,
    reply: oneshot::Sender<Result<T, Failure>>,
}

struct Done<T> {
    result: Result<T, Failure>,
    reply: oneshot::Sender<Result<T, Failure>>,
}

impl<T, F> Job for Queued<T, F>
where
    T: Send + 'static,
    F: FnOnce(&Connection) -> Result<T, Failure> + Send + 'static,
{
    fn run(self: Box<Self>, conn: &Connection) -> Box<dyn Ran> {
        let Queued { work, reply } = *self;
        Box::new(Done {
            result: work(conn),
            reply,
        })
    }

    fn fail(self: Box<Self>, failure: Failure) {
        // A caller that went away needs no answer.
        let _ = self.reply.send(Err(failure));
    }
}

impl<T: Send + 'static> Ran for Done<T> {
    fn succeeded(&self) -> bool {
        self.result.is_ok()
    }

    fn answer(self: Box<Self>, committed: Result<(), Failure>) {
        let answer = match (self.result, committed) {
            (Err(own), _) => Err(own),
            (Ok(_), Err(commit)) => Err(commit),
            (Ok(value), Ok(())) => Ok(value),
        };
        let _ = self.reply.send(answer);
    }
}

/// Runs `group` in one transaction, one savepoint per mutation, commits once
/// and answers every caller.
fn commit_group(conn: &Connection, group: Vec<Box<dyn Job>>) {
    let mut ran: Vec<Box<dyn Ran>> = Vec::with_capacity(group.len());
    let mut open = false;
    for job in group {
        if !open {
            if let Err(e) = exec(conn, "BEGIN IMMEDIATE") {
                job.fail(e.into());
                continue;
            }
            open = true;
        }
        if let Err(e) = exec(conn, "SAVEPOINT op") {
            job.fail(e.into());
            continue;
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| job.run(conn)));
        if conn.is_autocommit() {
            // SQLite ended the whole transaction under us (a full disk, an
            // I/O error): the group's earlier mutations are gone with it.
            fail_all(&mut ran, "The store failed. Retry later.");
            if let Ok(done) = outcome {
                let committed = if done.succeeded() {
                    Err(writer_gone())
                } else {
                    Ok(())
                };
                done.answer(committed);
            }
            open = false;
            continue;
        }
        let keep = match &outcome {
            Ok(done) => done.succeeded(),
            Err(_) => {
                tracing::error!("a store mutation panicked; rolled back");
                false
            }
        };
        let closed = if keep {
            exec(conn, "RELEASE op")
        } else {
            exec(conn, "ROLLBACK TO op").and_then(|()| exec(conn, "RELEASE op"))
        };
        if let Ok(done) = outcome {
            ran.push(done);
        }
        if let Err(e) = closed {
            tracing::error!(error = %e, "cannot close a savepoint; rolling the group back");
            rollback(conn);
            fail_all(&mut ran, "The store failed. Retry later.");
            open = false;
        }
    }
    if !open {
        return;
    }
    match exec(conn, "COMMIT") {
        Ok(()) => ran.into_iter().for_each(|done| done.answer(Ok(()))),
        Err(e) => {
            tracing::error!(error = %e, "group commit failed; rolled back");
            rollback(conn);
            let failure: Failure = e.into();
            for done in ran {
                done.answer(Err(failure.clone()));
            }
        }
    }
}

fn fail_all(ran: &mut Vec<Box<dyn Ran>>, message: &str) {
    for done in ran.drain(..) {
        done.answer(Err(Failure::new(code::SERVER_ERROR, message)));
    }
}

fn rollback(conn: &Connection) {
    if !conn.is_autocommit() {
        let _ = exec(conn, "ROLLBACK");
    }
}

fn exec(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

/// Waits for a writer answer from a plain thread, as the tests submit.
#[cfg(test)]
fn block_on<T>(answer: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a test runtime")
        .block_on(answer)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering::SeqCst;
    use std::sync::{Arc, mpsc};

    use rusqlite::Connection;

    use super::{Writer, block_on};
    use crate::error::{Failure, code};

    fn writer(dir: &tempfile::TempDir) -> (Arc<Writer>, Connection) {
        let path = dir.path().join("w.db");
        let conn = Connection::open(&path).unwrap();
        conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))
            .unwrap();
        conn.execute_batch("CREATE TABLE t (v TEXT NOT NULL)")
            .unwrap();
        (
            Arc::new(Writer::start(conn).unwrap()),
            Connection::open(&path).unwrap(),
        )
    }

    fn rows(conn: &Connection) -> Vec<String> {
        let mut stmt = conn.prepare("SELECT v FROM t ORDER BY v").unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn insert(conn: &Connection, v: &str) -> Result<(), Failure> {
        conn.execute("INSERT INTO t (v) VALUES (?1)", [v])?;
        Ok(())
    }

    /// Holds the writer inside a group until the returned sender is used,
    /// so the mutations submitted meanwhile queue up into one next group.
    /// Returns once the holder's own mutation is counted as queued: `write`
    /// counts a mutation after sending it, so the writer may be running it
    /// before it is counted, and a count arriving late would be taken for
    /// the next submitter's.
    fn hold(writer: &Arc<Writer>) -> (mpsc::Sender<()>, std::thread::JoinHandle<()>) {
        let before = writer.stats.queued.load(SeqCst);
        let (release, released) = mpsc::channel::<()>();
        let (started, running) = mpsc::channel::<()>();
        let held = writer.clone();
        let thread = std::thread::spawn(move || {
            block_on(held.write(move |_| {
                started.send(()).unwrap();
                released.recv().unwrap();
                Ok(())
            }))
            .unwrap();
        });
        running.recv().unwrap();
        wait_queued(writer, before + 1);
        (release, thread)
    }

    /// Waits (bounded) until `n` mutations in all have been queued.
    fn wait_queued(writer: &Writer, n: usize) {
        for _ in 0..10_000 {
            if writer.stats.queued.load(SeqCst) >= n {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        panic!("mutations were not queued");
    }

    type Work = Box<dyn FnOnce(&Connection) -> Result<(), Failure> + Send>;

    /// Submits each work item from its own thread while the writer is held,
    /// then releases it; returns each item's answer, in order.
    fn one_group(writer: &Arc<Writer>, works: Vec<Work>) -> Vec<Result<(), Failure>> {
        let (release, holder) = hold(writer);
        let groups = writer.stats.groups.load(SeqCst);
        let mut queued = writer.stats.queued.load(SeqCst);
        let mut threads = Vec::new();
        for work in works {
            let submitter = writer.clone();
            threads.push(std::thread::spawn(move || block_on(submitter.write(work))));
            // One at a time, so the group runs them in this order.
            queued += 1;
            wait_queued(writer, queued);
        }
        release.send(()).unwrap();
        holder.join().unwrap();
        let answers = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(
            writer.stats.groups.load(SeqCst),
            groups + 1,
            "all of them in the one group after the holder's"
        );
        answers
    }

    #[test]
    fn a_failed_or_panicking_mutation_is_rolled_back_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (writer, check) = writer(&dir);
        let answers = one_group(
            &writer,
            vec![
                Box::new(|c| insert(c, "a")),
                Box::new(|c| {
                    insert(c, "failed")?;
                    Err(Failure::new(code::INVALID_INPUT, "refused"))
                }),
                Box::new(|c| insert(c, "b")),
                Box::new(|c| {
                    insert(c, "panicked")?;
                    panic!("a bug in one mutation")
                }),
                Box::new(|c| insert(c, "c")),
            ],
        );
        assert!(answers[0].is_ok() && answers[2].is_ok() && answers[4].is_ok());
        assert_eq!(
            answers[1].as_ref().unwrap_err().code,
            code::INVALID_INPUT.code
        );
        assert_eq!(
            answers[3].as_ref().unwrap_err().code,
            code::SERVER_ERROR.code
        );
        assert_eq!(rows(&check), ["a", "b", "c"]);
        // The writer carries on after the panic.
        block_on(writer.write(|c| insert(c, "d"))).unwrap();
        assert_eq!(rows(&check), ["a", "b", "c", "d"]);
    }

    #[test]
    fn a_group_whose_transaction_ends_early_acknowledges_nothing_it_lost() {
        let dir = tempfile::tempdir().unwrap();
        let (writer, check) = writer(&dir);
        // The second mutation ends the group's transaction under the writer
        // (as SQLite does on a full disk or an I/O error).
        let answers = one_group(
            &writer,
            vec![
                Box::new(|c| insert(c, "lost")),
                Box::new(|c| Ok(c.execute_batch("ROLLBACK")?)),
                Box::new(|c| insert(c, "kept")),
            ],
        );
        assert_eq!(
            answers[0].as_ref().unwrap_err().code,
            code::SERVER_ERROR.code
        );
        assert_eq!(
            answers[1].as_ref().unwrap_err().code,
            code::SERVER_ERROR.code
        );
        assert!(answers[2].is_ok());
        assert_eq!(rows(&check), ["kept"]);
    }

    #[test]
    fn every_acknowledged_mutation_is_committed_when_answered() {
        let dir = tempfile::tempdir().unwrap();
        let (writer, check) = writer(&dir);
        let threads: Vec<_> = (0..16)
            .map(|i| {
                let writer = writer.clone();
                std::thread::spawn(move || {
                    let v = format!("{i:02}");
                    block_on(writer.write(move |c| insert(c, &v))).unwrap();
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let expected: Vec<String> = (0..16).map(|i| format!("{i:02}")).collect();
        assert_eq!(rows(&check), expected);
        // Dropping the writer closes its connection: the file is complete.
        drop(Arc::into_inner(writer).unwrap());
        assert_eq!(rows(&check).len(), 16);
    }
}

#[cfg(test)]
mod checkpoint_tests {
    use rusqlite::Connection;

    use super::{CHECKPOINT_PAGES, Writer, block_on};

    /// Under a steady stream of commits the WAL stays near the checkpoint
    /// threshold: the commits themselves checkpoint, and the log restarts.
    #[test]
    fn the_wal_stays_bounded_under_steady_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let conn = Connection::open(&path).unwrap();
        conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))
            .unwrap();
        conn.execute_batch("CREATE TABLE t (v BLOB NOT NULL)")
            .unwrap();
        let writer = Writer::start(conn).unwrap();
        // 2,000 commits of ~4 KiB: about 2,000 WAL pages, eight thresholds.
        for _ in 0..2_000 {
            block_on(
                writer.write(|c| Ok(c.execute("INSERT INTO t (v) VALUES (zeroblob(4000))", [])?)),
            )
            .unwrap();
        }
        let wal = std::fs::metadata(dir.path().join("w.db-wal"))
            .unwrap()
            .len();
        let page = 4096 + 24;
        assert!(
            wal <= (CHECKPOINT_PAGES as u64 + 16) * page,
            "WAL of {wal} bytes after 2,000 commits"
        );
    }
}
