//! Group commit of creates on PostgreSQL. A create holds its board's
//! counter row from taking its numbers until its commit is durable, so the
//! creates on one board commit one after another, each paying a whole WAL
//! flush. Here a replica runs the creates that queued while its previous
//! group was committing as one transaction: one flush for the group, and
//! the counter row passes from group to group instead of from create to
//! create. A lone create is committed at once and waits for nothing.
//!
//! Each create keeps what a transaction of its own gave it: a create that
//! is refused has written nothing (every check comes before its first
//! write, `lock_create`), so it needs no savepoint; a database error rolls
//! the whole group back, and a deadlock or serialisation failure runs the
//! group again (a bounded number of times); only after `COMMIT` is each
//! caller answered. Creates are taken in one order of board within a group,
//! so two replicas' groups take their boards' counter rows in the same
//! order.
//!
//! A create makes its reads that need no lock (its board, its callback and
//! receipt, its assignees) on a connection of its own before it joins a
//! group, beside the other requests. The group's one connection then does
//! only what needs the transaction, each pass sent back to back
//! (pipelined) rather than one round trip after another: every create's
//! locks (its parent) and last checks; the receipts of those that passed
//! (a pass only when one has a key); then one insert per board for all of
//! them, in group order, so a board's counter row is taken once per group
//! and PostgreSQL runs one statement where it ran one per create. Two
//! creates with the same idempotency key never share a group: the second
//! waits for the next one, where it finds the receipt.

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use futures_util::future::join_all;

use super::connections::{
    ATTEMPTS, Connections, Error, Fault, answers_of, backoff, failed, fault, settle,
};
use super::tasks::{
    Insert, Prepare, Prepared, insert_creates, lock_create, prepare_create, reserve,
};
use crate::error::Failure;
use crate::runtime::store::{CreateInput, Principal};
use crate::wire::WorkflowContext;

/// Creates committed together at most, bounding how long the last of a
/// group waits for the others' work before its commit.
const MAX_GROUP: usize = 64;

/// The queue of one replica's creates and the task that commits them.
pub(super) struct Creates {
    queue: mpsc::UnboundedSender<Job>,
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
        tokio::spawn(run(connections, jobs));
        Creates { queue }
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
        let client = connections.get().await?;
        let prepared = match prepare_create(&client, principal, input, workflow).await? {
            Prepare::Answered(replayed) => return Ok(replayed),
            Prepare::Ready(prepared) => prepared,
        };
        drop(client);
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
        // The reply is dropped unsent only if the group's task panicked.
        answer.await.unwrap_or_else(|_| Err(failed()))
    }
}

async fn run(connections: Connections, mut jobs: mpsc::UnboundedReceiver<Job>) {
    // Creates whose key was already in the group before: first in the next.
    let mut deferred: Vec<Job> = Vec::new();
    loop {
        let mut group = Vec::new();
        let mut keys = Vec::new();
        let mut carried = std::mem::take(&mut deferred);
        if carried.is_empty() {
            match jobs.recv().await {
                Some(first) => carried.push(first),
                None => return,
            }
        }
        let mut take = |job: Job, group: &mut Vec<Job>, deferred: &mut Vec<Job>| {
            let key = receipt_key(&job);
            if key.is_some() && keys.contains(&key) {
                deferred.push(job);
            } else {
                keys.push(key);
                group.push(job);
            }
        };
        for job in carried {
            take(job, &mut group, &mut deferred);
        }
        while group.len() < MAX_GROUP {
            match jobs.try_recv() {
                Ok(job) => take(job, &mut group, &mut deferred),
                Err(_) => break,
            }
        }
        group.sort_by(|a, b| lock_order(a).cmp(&lock_order(b)));
        let answers = answers_of(
            group.len(),
            commit(&connections, &group),
            "a group of creates panicked; rolled back",
        )
        .await;
        for (job, answer) in group.into_iter().zip(answers) {
            // A caller that went away needs no answer.
            let _ = job.reply.send(answer);
        }
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

/// Where a create takes its first lock: its board (or task scope).
fn lock_order(job: &Job) -> (&str, &str, &str) {
    let input = &job.input;
    (
        &job.principal.workspace_id,
        input.channel.as_deref().unwrap_or_default(),
        input
            .parent_task_scope
            .as_ref()
            .map_or("", |scope| scope.scope_id.as_str()),
    )
}

/// Commits `group` in one transaction, again after a deadlock or a
/// serialisation failure; one answer per create, in order.
async fn commit(connections: &Connections, group: &[Job]) -> Vec<Result<Value, Failure>> {
    let mut attempt = 1;
    loop {
        match attempt_group(connections, group).await {
            Ok(answers) => return answers,
            Err(Error::Db(e)) if fault(&e) == Fault::Contention && attempt < ATTEMPTS => {
                tracing::debug!(attempt, error = %e, "retrying a group of creates after contention");
                attempt += 1;
                tokio::time::sleep(backoff(attempt)).await;
            }
            Err(e) => {
                let failure = settle(e);
                return group.iter().map(|_| Err(failure.clone())).collect();
            }
        }
    }
}

async fn attempt_group(
    connections: &Connections,
    group: &[Job],
) -> Result<Vec<Result<Value, Failure>>, Error> {
    let mut client = connections.get().await?;
    // One clock reading for the group, its transaction's start: each
    // create's times come from it (`group_time!` in tasks.rs).
    let tx = client.transaction().await?;
    let mut answers: Vec<Option<Result<Value, Failure>>> = group.iter().map(|_| None).collect();
    let checks = join_all(
        group
            .iter()
            .map(|job| lock_create(&tx, &job.principal, &job.input, &job.prepared)),
    )
    .await;
    let mut passed = Vec::with_capacity(group.len());
    for (i, (job, check)) in group.iter().zip(checks).enumerate() {
        match check {
            Ok(checked) => passed.push((i, job, checked)),
            Err(e) => answers[i] = Some(Err(refusal(e)?)),
        }
    }
    let reserved = join_all(
        passed
            .iter()
            .map(|(_, job, checked)| reserve(&tx, &job.principal, &job.input, checked)),
    )
    .await;
    let mut inserts = Vec::with_capacity(passed.len());
    for ((i, job, checked), reservation) in passed.into_iter().zip(reserved) {
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
            Err(e) => answers[i] = Some(Err(refusal(e)?)),
        }
    }
    // One insert per board, the boards in group order (the lock order).
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
    let written = join_all(boards.iter().map(|(_, members)| {
        let creates: Vec<&Insert> = members.iter().map(|&at| &inserts[at].1).collect();
        let tx = &tx;
        async move { insert_creates(tx, &creates).await }
    }))
    .await;
    // An insert that fails fails the group (its receipts are reserved in
    // this transaction): dropping the transaction rolls everything back.
    for ((_, members), result) in boards.iter().zip(written) {
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

/// A create refused before its first write: the others of its group go on.
/// Any other error loses the transaction for everyone (dropping it rolls
/// back), so it is handed on.
fn refusal(e: Error) -> Result<Failure, Error> {
    match e {
        Error::Refused(refused) => Ok(refused),
        e => Err(e),
    }
}
