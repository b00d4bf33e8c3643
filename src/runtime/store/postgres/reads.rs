//! Batched reads on PostgreSQL. A statement costs PostgreSQL far more (the
//! protocol, the executor's start) than a row does, so for the reads every
//! request makes, a replica sends the lookups that queued while its
//! previous statements ran as one statement over a table of their
//! parameters ([`statements`]), and answers each from its own row
//! (docs/performance.md, "task.get on PostgreSQL"). This module is the
//! machinery; each kind of read ([`Batch`]) lives beside its statement:
//! the token lookup every request makes (`admin::Tokens`), and `task_get`
//! alone or with its request's token (`tasks::Gets`, `tasks::TokenGets`).
//!
//! Nothing is cached: a lookup is answered by a statement that starts after
//! the lookup was queued, so it sees every write (and every revocation)
//! committed before its request arrived, on any replica, as an unbatched
//! read does. A lone lookup runs at once, in a batch of one. A few batches
//! run at a time ([`IN_FLIGHT`]); the lookups that arrive meanwhile wait
//! for the next. The wait is bounded as a pooled connection's is: a full
//! queue is answered 503 at once, and a lookup that no batch has taken
//! within the pool's wait (`--pool-wait-ms`; the batches running are stuck)
//! is answered 503 then, and not run.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use deadpool_postgres::Object;
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio_postgres::Row;

use super::connections::{Connections, Error, answers_of, failed, settle};
use crate::error::Failure;

/// The sizes a batch statement is written for: a batch of another size is
/// padded to the next with rows that match nothing. Each size is its own
/// prepared statement, so a connection keeps six of each kind.
const SIZES: [usize; 6] = [1, 2, 4, 8, 16, 32];
/// Lookups one statement answers at most: a bound on the statement's time
/// and on how long the first of a batch waits for the last.
const MAX_BATCH: usize = SIZES[SIZES.len() - 1];
/// Batches of one kind running at once. More make smaller batches (each
/// paying a statement's fixed cost for fewer lookups); one alone would
/// make every lookup wait behind a slow one (a refusal's second trip).
/// Measured in docs/performance.md: 1, 2 and 4 at 32 connections.
const IN_FLIGHT: usize = 2;

/// A batch statement for each of [`SIZES`], in order.
pub(super) type Statements = [String; SIZES.len()];

/// The statement for a batch of `n` lookups, and how many rows it takes.
pub(super) fn statement(statements: &Statements, n: usize) -> (&str, usize) {
    let at = SIZES
        .iter()
        .position(|&size| size >= n)
        .unwrap_or(SIZES.len() - 1);
    (&statements[at], SIZES[at])
}

/// A batch statement for each of [`SIZES`]: `sql` with `{rows}` replaced by
/// a `VALUES` table of that many rows, each one parameter per column
/// (`columns`: name and type) and a last column `i`, the row's number from
/// 1; its parameters follow the statement's first `fixed`. A table of
/// parameters rather than `unnest` over arrays: PostgreSQL then knows how
/// many rows a batch has when it plans, so its one plan for the statement
/// (the generic plan it keeps after five runs) costs what a plan made for
/// each run's values would, and it stops planning every run. With `unnest`
/// it expected 100 rows, kept planning each run (a millisecond, more than
/// running a small batch), and served half as many gets a second.
pub(super) fn statements(sql: &str, columns: &[(&str, &str)], fixed: usize) -> Statements {
    SIZES.map(|size| {
        let rows: Vec<String> = (0..size)
            .map(|row| {
                let params: Vec<String> = columns
                    .iter()
                    .enumerate()
                    .map(|(column, (_, kind))| {
                        format!("${}::{kind}", fixed + row * columns.len() + column + 1)
                    })
                    .collect();
                format!("({}, {})", params.join(", "), row + 1)
            })
            .collect();
        let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
        let table = format!("(VALUES {}) AS q({}, i)", rows.join(", "), names.join(", "));
        sql.replace("{rows}", &table)
    })
}

/// The rows of a batch statement by request: `rows[k]` is the row (if
/// any) whose number `i`, in `column`, is `k + 1`.
pub(super) fn by_request(rows: Vec<Row>, requests: usize, column: usize) -> Vec<Option<Row>> {
    let mut found: Vec<Option<Row>> = (0..requests).map(|_| None).collect();
    for row in rows {
        let i: i32 = row.get(column);
        let slot = usize::try_from(i - 1).ok().and_then(|at| found.get_mut(at));
        if let Some(slot) = slot {
            *slot = Some(row);
        }
    }
    found
}

/// One kind of batched read: many inputs, one statement, one answer each.
pub(super) trait Batch: Send + Sync + 'static {
    type Input: Send + Sync + 'static;
    type Output: Send + 'static;
    /// Its statement for each batch size (`statements`).
    fn statements() -> &'static Statements;
    /// One answer per input, in order; an `Err` fails the whole batch.
    fn run(
        c: &Object,
        inputs: &[&Self::Input],
    ) -> impl Future<Output = Result<Vec<Result<Self::Output, Error>>, Error>> + Send;
}

struct Job<B: Batch> {
    input: B::Input,
    /// Set when a batch takes the job: from then on its caller waits for
    /// the answer, however long the statement takes.
    taken: Arc<AtomicBool>,
    reply: oneshot::Sender<Result<B::Output, Failure>>,
}

/// The queue of one kind of read and the task that batches it.
pub(super) struct Batches<B: Batch> {
    queue: mpsc::Sender<Job<B>>,
    /// How long a read may wait in the queue (`--pool-wait-ms`).
    wait: Duration,
}

impl<B: Batch> Batches<B> {
    /// Starts the batching task on the current tokio runtime; it ends when
    /// the `Batches` is dropped. `queue` lookups may wait at once.
    pub(super) fn start(connections: Connections, queue: usize, wait: Duration) -> Batches<B> {
        let (sender, jobs) = mpsc::channel(queue.max(1));
        tokio::spawn(dispatch::<B>(connections, jobs));
        Batches {
            queue: sender,
            wait,
        }
    }

    /// Queues one read and resolves with its answer, or with 503 if no
    /// batch took it within the wait (the batches running are stuck).
    pub(super) async fn read(&self, input: B::Input) -> Result<B::Output, Failure> {
        let (reply, mut answer) = oneshot::channel();
        let taken = Arc::new(AtomicBool::new(false));
        let job = Job {
            input,
            taken: taken.clone(),
            reply,
        };
        self.queue.try_send(job).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => saturated(),
            mpsc::error::TrySendError::Closed(_) => failed(),
        })?;
        // Every batch answers each job it takes (a panic as `failed`); the
        // reply is dropped unsent only if the batching task is gone.
        let answered = |reply: Result<_, _>| reply.unwrap_or_else(|_| Err(failed()));
        tokio::select! {
            biased;
            reply = &mut answer => answered(reply),
            () = tokio::time::sleep(self.wait) => {
                // A batch that takes the job after this finds its caller
                // gone and skips it.
                if taken.load(Ordering::Acquire) {
                    answered(answer.await)
                } else {
                    Err(saturated())
                }
            }
        }
    }
}

fn saturated() -> Failure {
    Failure::unavailable("The server is saturated. Retry shortly.")
}

/// Takes what has queued, up to [`MAX_BATCH`], whenever fewer than
/// [`IN_FLIGHT`] batches run, and runs it as one batch.
async fn dispatch<B: Batch>(connections: Connections, mut jobs: mpsc::Receiver<Job<B>>) {
    let running = Arc::new(Semaphore::new(IN_FLIGHT));
    let pace = Arc::new(Pace::default());
    loop {
        let Ok(permit) = running.clone().acquire_owned().await else {
            return;
        };
        let mut batch = Vec::with_capacity(MAX_BATCH);
        if jobs.recv_many(&mut batch, MAX_BATCH).await == 0 {
            return;
        }
        let (connections, pace) = (connections.clone(), pace.clone());
        tokio::spawn(async move {
            answer::<B>(&connections, &pace, batch).await;
            drop(permit);
        });
    }
}

async fn answer<B: Batch>(connections: &Connections, pace: &Pace, batch: Vec<Job<B>>) {
    // A caller that gave up waiting (503) is not read for.
    let batch: Vec<Job<B>> = batch
        .into_iter()
        .filter(|job| {
            job.taken.store(true, Ordering::Release);
            !job.reply.is_closed()
        })
        .collect();
    if batch.is_empty() {
        return;
    }
    let answers = answers_of(
        batch.len(),
        run::<B>(connections, pace, &batch),
        "a batch of reads panicked",
    )
    .await;
    for (job, answer) in batch.into_iter().zip(answers) {
        // A caller that went away needs no answer.
        let _ = job.reply.send(answer);
    }
}

/// One answer per job: its own, or the batch's failure. A batch that
/// stalls is sent again on another connection ([`first_answer`]); the
/// connection that lost goes back to the pool only once its backend has
/// answered what it was sent ([`catch_up`]), so that the next batch does
/// not queue behind it.
async fn run<B: Batch>(
    connections: &Connections,
    pace: &Pace,
    batch: &[Job<B>],
) -> Vec<Result<B::Output, Failure>> {
    let everyone = |failure: Failure| batch.iter().map(|_| Err(failure.clone())).collect();
    let client = match connections.get().await {
        Ok(client) => client,
        Err(failure) => return everyone(failure),
    };
    let inputs: Vec<&B::Input> = batch.iter().map(|job| &job.input).collect();
    let (answers, stalled) = first_answer::<B>(connections, pace, &client, &inputs).await;
    if stalled {
        tokio::spawn(catch_up(client));
    }
    match answers {
        Ok(answers) => answers.into_iter().map(|a| a.map_err(settle)).collect(),
        Err(e) => everyone(settle(e)),
    }
}

/// `B`'s answers to `inputs` read on `client`, or, when that has not
/// answered within its [`Pace`]'s wait, on whichever of it and a connection
/// free at that moment answers first (none free: no second statement; one
/// failing: the other's answer); with whether the second answered. Both
/// are reads, so either answer is one a statement started after every
/// input was queued gave (module doc).
/// On a saturated machine a runnable backend can wait for a CPU for
/// hundreds of milliseconds, with a replica's batch behind it, while
/// another backend, woken from sleep, runs at once (docs/performance.md,
/// "a stalled backend").
async fn first_answer<B: Batch>(
    connections: &Connections,
    pace: &Pace,
    client: &Object,
    inputs: &[&B::Input],
) -> (Answers<B>, bool) {
    let started = Instant::now();
    let first_answered = |answers| {
        pace.record(started.elapsed());
        (answers, false)
    };
    let first = B::run(client, inputs);
    tokio::pin!(first);
    // The first may answer while the wait runs out or a connection is
    // sought (or opened).
    let seek = async {
        tokio::time::sleep(pace.wait()).await;
        connections.free_now().await
    };
    let second = tokio::select! {
        biased;
        answers = &mut first => return first_answered(answers),
        second = seek => second,
    };
    let Some(second) = second else {
        return first_answered(first.await);
    };
    let again = Instant::now();
    tracing::debug!(
        waited_ms = again.duration_since(started).as_millis(),
        "a batch of reads stalled: sent again on another connection"
    );
    let (answers, second_won) = {
        let second_run = B::run(&second, inputs);
        tokio::pin!(second_run);
        let (answers, second_won) = tokio::select! {
            biased;
            answers = &mut first => (answers, false),
            answers = &mut second_run => (answers, true),
        };
        // One that failed (its connection broke, say) leaves the batch to
        // the other.
        match answers {
            Err(_) if second_won => {
                tracing::debug!("the second statement of a stalled batch failed");
                (first.as_mut().await, false)
            }
            Err(_) => (second_run.await, true),
            answers => (answers, second_won),
        }
    };
    if second_won {
        pace.record(again.elapsed());
        (answers, true)
    } else {
        tokio::spawn(catch_up(second));
        first_answered(answers)
    }
}

/// What [`Batch::run`] answers.
type Answers<B> = Result<Vec<Result<<B as Batch>::Output, Error>>, Error>;

/// Holds a connection whose statement was abandoned until its backend has
/// answered it (an empty statement queues behind it), then returns it to
/// the pool; closes it if that failed or took longer than [`CATCH_UP`].
async fn catch_up(client: Object) {
    match tokio::time::timeout(CATCH_UP, client.batch_execute("")).await {
        Ok(Ok(())) => {}
        outcome => {
            tracing::warn!(
                timed_out = outcome.is_err(),
                "a stalled store connection did not catch up: closed"
            );
            drop(Object::take(client));
        }
    }
}

/// How long a stalled connection may take to answer what it was sent:
/// twice the session's `statement_timeout`, past which its backend is not
/// just slow.
const CATCH_UP: Duration = Duration::from_secs(30);

/// A batch's usual time (a moving average of the last few batches of its
/// kind), and from it how long one may take before it is sent again:
/// [`STALLED_AFTER`] times the usual, and at least [`STALL_FLOOR`], so a
/// database that is slow for every statement (far away, or loaded) is not
/// sent each batch twice.
#[derive(Default)]
struct Pace {
    usual_us: AtomicU64,
}

/// The least wait before a batch is sent again: a tenth of a second would
/// miss the p99 target; a batch takes about a millisecond.
const STALL_FLOOR: Duration = Duration::from_millis(10);
/// A batch that takes this many times the usual has stalled.
const STALLED_AFTER: u32 = 4;

impl Pace {
    fn wait(&self) -> Duration {
        let usual = Duration::from_micros(self.usual_us.load(Ordering::Relaxed));
        STALL_FLOOR.max(usual * STALLED_AFTER)
    }

    /// Moves the average an eighth of the way to `took` (to it, the first
    /// time), taking a batch that stalled as one that took the wait: one
    /// stall moves it little (and the wait stays at its floor), while a
    /// database slow for every statement raises the usual time by three
    /// eighths a batch until the wait covers them.
    fn record(&self, took: Duration) {
        let took = u64::try_from(took.min(self.wait()).as_micros()).unwrap_or(u64::MAX);
        let usual = self.usual_us.load(Ordering::Relaxed);
        let next = if usual == 0 {
            took
        } else {
            usual - usual / 8 + took / 8
        };
        self.usual_us.store(next, Ordering::Relaxed);
    }
}

/// Prepares `B`'s statement for every batch size on a connection (at
/// start, so that no request waits for it).
pub(super) async fn prepare<B: Batch>(c: &Object) -> Result<(), Error> {
    for sql in B::statements() {
        c.prepare_cached(sql).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_size_is_a_table_of_its_own_parameters_after_the_fixed_ones() {
        let statements = statements(
            "SELECT * FROM {rows} WHERE $1",
            &[("a", "text"), ("b", "bigint")],
            1,
        );
        assert_eq!(
            statements[0],
            "SELECT * FROM (VALUES ($2::text, $3::bigint, 1)) AS q(a, b, i) WHERE $1"
        );
        assert_eq!(
            statements[1],
            "SELECT * FROM (VALUES ($2::text, $3::bigint, 1), ($4::text, $5::bigint, 2)) AS q(a, b, i) WHERE $1"
        );
        let last = &statements[SIZES.len() - 1];
        assert!(last.contains("($64::text, $65::bigint, 32))"), "{last}");
    }

    #[test]
    fn a_batch_is_sent_again_after_four_times_the_usual_and_never_sooner_than_the_floor() {
        let ms = Duration::from_millis;
        let pace = Pace::default();
        assert_eq!(pace.wait(), STALL_FLOOR, "nothing measured yet");
        pace.record(ms(1));
        assert_eq!(pace.wait(), STALL_FLOOR);
        // A stall of a second counts as the wait: the wait stays the floor.
        pace.record(ms(1000));
        assert_eq!(pace.wait(), STALL_FLOOR);
        // A database that takes 30 ms for every batch: within a few dozen
        // batches none of them is sent twice.
        for _ in 0..40 {
            pace.record(ms(30));
        }
        assert!(pace.wait() > ms(90), "{:?}", pace.wait());
        assert!(pace.wait() <= ms(120), "{:?}", pace.wait());
    }

    #[test]
    fn a_batch_takes_the_smallest_statement_it_fits() {
        let statements = statements("{rows}", &[("a", "text")], 0);
        let sizes: Vec<usize> = [0, 1, 2, 3, 5, 8, 9, 17, 32]
            .iter()
            .map(|&n| statement(&statements, n).1)
            .collect();
        assert_eq!(sizes, [1, 1, 2, 4, 8, 8, 16, 32, 32]);
        let (sql, size) = statement(&statements, 3);
        assert_eq!(sql.matches("::text").count(), size);
    }
}
