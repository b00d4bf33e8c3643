//! Group commit of creates on PostgreSQL. A create holds its board's
//! counter row from taking its numbers until its commit is durable, so the
//! creates on one board commit one after another, each paying a whole WAL
//! flush. Here a replica commits the creates that queue together as one
//! transaction, a group: one flush for the group, and the counter row
//! passes from group to group instead of from create to create. A lone
//! create is committed at once and waits for nothing.
//!
//! A group first locks the counter rows of its creates' boards, in the
//! order of the boards' ids (every group of every replica takes them in
//! that one order). Only once it holds them does it take in the creates on
//! those boards that queued while it waited, and run. Two groups of a
//! replica are under way at once ([`IN_FLIGHT`]): while one waits for its
//! commit to be flushed, the next has begun and waits for the rows, and
//! takes them, with everything that queued meanwhile, the moment the first
//! commits. So on a busy board a create waits for one commit before its
//! own group runs, not for a whole group's work too; and of two replicas
//! on one board, each group carries what its replica queued while the
//! other's committed (docs/performance.md, task.create on PostgreSQL).
//! Only the group still gathering takes creates from the queue; the next
//! starts once it has done so.
//!
//! Each create keeps what a transaction of its own gave it: a create that
//! is refused has written nothing (every check comes before its first
//! write, `lock_create`), so it needs no savepoint; a database error rolls
//! the whole group back, and a deadlock or serialisation failure runs the
//! group again (a bounded number of times, the same creates); only after
//! `COMMIT` is each caller answered.
//!
//! A create makes its reads that need no lock (its board, its callback and
//! receipt, its assignees) on a connection of its own before it joins a
//! group, beside the other requests. The group's one connection then does
//! only what needs the transaction, each pass sent back to back
//! (pipelined) rather than one round trip after another: every create's
//! locks (its parent) and last checks; the receipts of those that passed
//! (a pass only when one has a key); then one insert per board for all of
//! them, so PostgreSQL runs one statement where it ran one per create. Two
//! creates with the same idempotency key never share a group: the second
//! waits for a later one, where it finds the receipt (or, if that group
//! overlaps the first, waits in PostgreSQL for the first's receipt to
//! commit, as a create on another replica would).

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::join_all;
use serde_json::Value;
use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio_postgres::error::SqlState;

use super::connections::{ATTEMPTS, Connections, Error, Fault, backoff, failed, fault, settle};
use super::tasks::{
    Insert, Prepare, Prepared, insert_creates, lock_boards, lock_create, lock_parents,
    prepare_create, reserve,
};
use crate::error::Failure;
use crate::runtime::store::{CreateInput, Principal};
use crate::wire::WorkflowContext;

/// Creates committed together at most, bounding how long the last of a
/// group waits for the others' work before its commit.
const MAX_GROUP: usize = 64;
/// Groups of one replica under way at once: one committing, and the next
/// already waiting for the counter rows the first holds until its commit
/// is durable, so that it takes them the moment they are free.
const IN_FLIGHT: usize = 2;

/// The queue of one replica's creates and the task that commits them.
pub(super) struct Creates {
    queue: mpsc::UnboundedSender<Job>,
    #[cfg(test)]
    waiting: Arc<Mutex<Queue>>,
}

struct Job {
    principal: Principal,
    input: CreateInput,
    workflow: WorkflowContext,
    prepared: Prepared,
    reply: oneshot::Sender<Result<Value, Failure>>,
}

impl Creates {
    /// Starts the committing task on the current tokio runtime; it ends
    /// when the `Creates` is dropped.
    pub(super) fn start(connections: Connections) -> Creates {
        let (queue, jobs) = mpsc::unbounded_channel();
        let waiting = Arc::new(Mutex::new(Queue {
            jobs,
            deferred: VecDeque::new(),
        }));
        tokio::spawn(run(connections, waiting.clone()));
        Creates {
            queue,
            #[cfg(test)]
            waiting,
        }
    }

    /// How many creates wait for a group, for tests; `None` while the
    /// queue is being taken from.
    #[cfg(test)]
    pub(super) fn waiting(&self) -> Option<usize> {
        let queue = self.waiting.try_lock().ok()?;
        Some(queue.jobs.len() + queue.deferred.len())
    }

    /// Makes one create's lock-free reads on a connection of its own, then
    /// queues it and resolves once its group has committed.
    pub(super) async fn create(
        &self,
        connections: &Connections,
        principal: &Principal,
        input: &CreateInput,
        workflow: &WorkflowContext,
    ) -> Result<Value, Failure> {
        let client = connections.hold().await?;
        let prepared = prepare_create(&client, principal, input, workflow).await;
        client.release();
        let prepared = match prepared? {
            Prepare::Answered(replayed) => return Ok(replayed),
            Prepare::Ready(prepared) => prepared,
        };
        let (reply, answer) = oneshot::channel();
        let job = Job {
            principal: principal.clone(),
            input: input.clone(),
            workflow: workflow.clone(),
            prepared,
            reply,
        };
        if self.queue.send(job).is_err() {
            return Err(failed());
        }
        // The reply is dropped unsent only if its group panicked.
        answer.await.unwrap_or_else(|_| Err(failed()))
    }
}

/// Starts each group once a slot is free and no other group is still
/// gathering: the group that gathers is the only one that takes creates
/// from the queue until it holds its counter rows (`Gathering`).
async fn run(connections: Connections, queue: Arc<Mutex<Queue>>) {
    let slots = Arc::new(Semaphore::new(IN_FLIGHT));
    let gathering = Arc::new(Semaphore::new(1));
    loop {
        let (Ok(slot), Ok(gather)) = (
            slots.clone().acquire_owned().await,
            gathering.clone().acquire_owned().await,
        ) else {
            return;
        };
        let Some(group) = queue.lock().await.start().await else {
            return;
        };
        let (connections, queue) = (connections.clone(), queue.clone());
        tokio::spawn(async move {
            let _slot = slot;
            let gathering = Gathering {
                queue: &queue,
                _turn: gather,
            };
            // A panic drops the group's replies unsent: each caller is
            // answered `failed` (`Creates::create`).
            let work = AssertUnwindSafe(commit(&connections, group, gathering));
            if work.catch_unwind().await.is_err() {
                tracing::error!("a group of creates panicked; rolled back");
            }
        });
    }
}

/// The creates not yet in a group.
struct Queue {
    jobs: mpsc::UnboundedReceiver<Job>,
    /// Taken from `jobs` and left to a later group: their key was already
    /// in the group, or their board was not among those it locked.
    deferred: VecDeque<Job>,
}

impl Queue {
    /// A new group: the first create to wait (or, if none waits, the next
    /// to arrive) and every other one waiting, up to [`MAX_GROUP`]. `None`
    /// once the replica is closing.
    async fn start(&mut self) -> Option<Vec<Job>> {
        if self.deferred.is_empty() {
            let first = self.jobs.recv().await?;
            self.deferred.push_back(first);
        }
        let mut group = Vec::new();
        self.fill(&mut group, |_| true);
        Some(group)
    }

    /// Takes waiting creates into `group`, oldest first, while it has room:
    /// those `fits` accepts whose key is not in it yet. The others wait on
    /// for a later group, in the order they came.
    fn fill(&mut self, group: &mut Vec<Job>, fits: impl Fn(&Job) -> bool) {
        let mut left = VecDeque::new();
        while group.len() < MAX_GROUP {
            let Some(job) = self
                .deferred
                .pop_front()
                .or_else(|| self.jobs.try_recv().ok())
            else {
                break;
            };
            let key = receipt_key(&job);
            if fits(&job) && (key.is_none() || group.iter().all(|j| receipt_key(j) != key)) {
                group.push(job);
            } else {
                left.push_back(job);
            }
        }
        left.append(&mut self.deferred);
        self.deferred = left;
    }
}

/// A group's turn to take creates from the queue; it ends, letting the
/// next group start, once the group holds its counter rows and has taken
/// in the creates on those boards that queued while it waited for them.
struct Gathering<'q> {
    queue: &'q Mutex<Queue>,
    _turn: OwnedSemaphorePermit,
}

impl Gathering<'_> {
    /// Adds to `group` the waiting creates on `boards`, whose counter rows
    /// the group holds: they join without a lock wait of their own.
    async fn gather(self, group: &mut Vec<Job>, boards: &[i64]) {
        let fits = |job: &Job| {
            job.prepared
                .board_id()
                .is_some_and(|board| boards.contains(&board))
        };
        self.queue.lock().await.fill(group, fits);
    }
}

/// The idempotency receipt a create would write, if any: its workspace,
/// agent, run, callback effect and key, as one comparable value.
fn receipt_key(job: &Job) -> Option<String> {
    let workflow = &job.workflow;
    job.input.idempotency_key.as_deref().map(|key| {
        format!(
            "{}\u{0}{}\u{0}{:?}\u{0}{:?}\u{0}{key}",
            job.principal.workspace_id,
            job.principal.agent_id,
            workflow.workflow_run_id,
            workflow.callback_effect_id
        )
    })
}

/// Commits `group` in one transaction, again after a deadlock or a
/// serialisation failure, and answers each create. The first attempt, once
/// it holds the counter rows, takes in what queued meanwhile (`gathering`);
/// the group is then fixed, retries included.
async fn commit(connections: &Connections, mut group: Vec<Job>, gathering: Gathering<'_>) {
    let mut gathering = Some(gathering);
    let mut attempt = 1;
    let answers = loop {
        match attempt_group(connections, &mut group, gathering.take()).await {
            Ok(answers) => break answers,
            Err(Error::Db(e)) if fault(&e) == Fault::Contention && attempt < ATTEMPTS => {
                tracing::debug!(attempt, error = %e, "retrying a group of creates after contention");
                attempt += 1;
                tokio::time::sleep(backoff(attempt)).await;
            }
            Err(e) => {
                let failure = settle(e);
                break group.iter().map(|_| Err(failure.clone())).collect();
            }
        }
    };
    for (job, answer) in group.into_iter().zip(answers) {
        // A caller that went away needs no answer.
        let _ = job.reply.send(answer);
    }
}

async fn attempt_group(
    connections: &Connections,
    group: &mut Vec<Job>,
    gathering: Option<Gathering<'_>>,
) -> Result<Vec<Result<Value, Failure>>, Error> {
    let mut client = connections.get().await?;
    // Each create's times come from the clock once its counter row is
    // held (`group_time!` in tasks.rs).
    let tx = client.transaction().await?;
    // The boards' counter rows first, in one order for every group.
    let mut locked: Vec<i64> = group
        .iter()
        .filter_map(|job| job.prepared.board_id())
        .collect();
    locked.sort_unstable();
    locked.dedup();
    lock_boards(&tx, &locked).await?;
    if let Some(gathering) = gathering {
        gathering.gather(group, &locked).await;
    }
    // Then the parents, in one order for every group.
    let mut parents: Vec<(i64, i64)> = group
        .iter()
        .filter_map(|job| job.prepared.parent())
        .collect();
    parents.sort_unstable();
    parents.dedup();
    lock_parents(&tx, &parents).await?;
    let group = &*group;
    let mut answers: Vec<Option<Result<Value, Failure>>> = group.iter().map(|_| None).collect();
    let checks = join_all(
        group
            .iter()
            .map(|job| lock_create(&tx, &job.principal, &job.input, &job.prepared)),
    )
    .await;
    let mut passed = Vec::with_capacity(group.len());
    for (i, (job, check)) in group.iter().zip(kept(checks)?).enumerate() {
        match check {
            Ok(checked) => passed.push((i, job, checked)),
            Err(refused) => answers[i] = Some(Err(refused)),
        }
    }
    let reserved = join_all(
        passed
            .iter()
            .map(|(_, job, checked)| reserve(&tx, &job.principal, &job.input, checked)),
    )
    .await;
    let mut inserts = Vec::with_capacity(passed.len());
    for ((i, job, checked), reservation) in passed.into_iter().zip(kept(reserved)?) {
        match reservation {
            Ok(None) => inserts.push((
                i,
                Insert {
                    principal: &job.principal,
                    input: &job.input,
                    checked,
                },
            )),
            Ok(Some(replayed)) => answers[i] = Some(Ok(replayed)),
            Err(refused) => answers[i] = Some(Err(refused)),
        }
    }
    // One insert per board, in the order of the boards' ids: a task
    // scope's board, found under lock, is taken in that order too.
    let mut boards: Vec<(i64, Vec<usize>)> = Vec::new();
    for (at, (_, insert)) in inserts.iter().enumerate() {
        match boards
            .iter_mut()
            .find(|(board, _)| *board == insert.board_id())
        {
            Some((_, members)) => members.push(at),
            None => boards.push((insert.board_id(), vec![at])),
        }
    }
    boards.sort_unstable_by_key(|(board, _)| *board);
    let written = join_all(boards.iter().map(|(_, members)| {
        let creates: Vec<&Insert> = members.iter().map(|&at| &inserts[at].1).collect();
        let tx = &tx;
        async move { insert_creates(tx, &creates).await }
    }))
    .await;
    // An insert that fails fails the group (its receipts are reserved in
    // this transaction): dropping the transaction rolls everything back.
    for ((_, members), result) in boards.iter().zip(kept(written)?) {
        for (&at, created) in members.iter().zip(result?) {
            answers[inserts[at].0] = Some(Ok(created));
        }
    }
    tx.commit().await?;
    Ok(answers
        .into_iter()
        .map(|answer| answer.unwrap_or_else(|| Err(failed())))
        .collect())
}

/// The results of statements sent together on the group's transaction,
/// with each create's refusal kept (a create refused before its first
/// write: the others of its group go on), or the database error that lost
/// the transaction for everyone (dropping it rolls back). A statement that
/// fails aborts the transaction, and every statement sent after it then
/// fails with 25P02 (`in_failed_sql_transaction`), which names no cause;
/// so the cause is handed on, a deadlock or serialisation failure first
/// (the group runs again), never the 25P02 of whichever create came first.
fn kept<T>(results: Vec<Result<T, Error>>) -> Result<Vec<Result<T, Failure>>, Error> {
    let weight = |e: &Error| match e {
        Error::Db(db) if fault(db) == Fault::Contention => 2,
        Error::Db(db) if db.code() == Some(&SqlState::IN_FAILED_SQL_TRANSACTION) => 0,
        _ => 1,
    };
    let mut lost: Option<Error> = None;
    let mut kept = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok(value) => kept.push(Ok(value)),
            Err(Error::Refused(refused)) => kept.push(Err(refused)),
            Err(e) => {
                if lost.as_ref().is_none_or(|l| weight(&e) > weight(l)) {
                    lost = Some(e);
                }
            }
        }
    }
    match lost {
        Some(e) => Err(e),
        None => Ok(kept),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code;
    use crate::runtime::store::tests::{block, cluster::Cluster};

    /// The error PostgreSQL answers the last of `statements` with, each
    /// sent in turn on one session (the others' outcomes do not matter).
    fn db_error(statements: &[&str]) -> tokio_postgres::Error {
        let uri = Cluster::shared().create_database();
        block(async {
            let (client, connection) = tokio_postgres::connect(&uri, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            let (last, before) = statements.split_last().unwrap();
            for statement in before {
                let _ = client.batch_execute(statement).await;
            }
            client.batch_execute(last).await.unwrap_err()
        })
    }

    #[test]
    fn the_cause_that_lost_a_group_is_handed_on_not_the_25p02_after_it() {
        let raise = |state: &str| {
            db_error(&[&format!(
                "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '{state}'; END $$"
            )])
        };
        let aborted = || db_error(&["BEGIN", "SELECT 1 / 0", "SELECT 1"]);
        assert_eq!(aborted().code(), Some(&SqlState::IN_FAILED_SQL_TRANSACTION));
        let refused = || Failure::new(code::TASK_NOT_FOUND, "no");
        let state = |result: Result<Vec<Result<i32, Failure>>, Error>| match result {
            Err(Error::Db(e)) => e.code().cloned(),
            _ => None,
        };
        // A deadlock sent after other statements, and 25P02 before it in
        // the group's order: the deadlock, which is retried.
        let lost = kept(vec![
            Err(Error::Db(aborted())),
            Ok(1),
            Err(Error::Refused(refused())),
            Err(Error::Db(raise("40P01"))),
        ]);
        assert_eq!(state(lost), Some(SqlState::T_R_DEADLOCK_DETECTED));
        // No contention: the error that is not 25P02.
        let lost = kept(vec![
            Err(Error::Db(aborted())),
            Err(Error::Db(raise("22012"))),
        ]);
        assert_eq!(state(lost), Some(SqlState::DIVISION_BY_ZERO));
        // Refusals alone lose nothing: each create keeps its answer.
        let kept = kept(vec![Ok(1), Err(Error::Refused(refused()))]);
        let Ok(kept) = kept else {
            panic!("refusals lost the group")
        };
        assert_eq!(kept[0].as_ref().ok(), Some(&1));
        assert_eq!(kept[1].as_ref().unwrap_err().code, "task_not_found");
    }
}
