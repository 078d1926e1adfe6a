//! Group commit of triggers. Every trigger (REST, gRPC and bulk alike) that passed its checks is queued
//! here; a dispatcher hands whatever is queued to a free flusher, which stores the whole batch in one
//! transaction of set-based statements and one commit, and only then answers each caller with its own
//! outcome: processed, its own duplicate transactionId, its own missing tenant.
//!
//! Batches form by themselves ("natural batching"): a lone trigger is flushed at once, and while all
//! flushers are busy the triggers arriving meanwhile wait and leave together in the next batch. There is
//! no timer, so an idle server adds no latency.
//!
//! A batch without tenants, to subscribers this process has stored triggers for, is sent in two round
//! trips instead of five (`pipelined`): its statements travel together on the assumption that every
//! idempotency key and transactionId is free and every subscriber's id is the one last seen, and a
//! batch that is not so is rolled back and stored by the full path below.
//!
//! A keyed trigger (`keyed`) brings its `Idempotency-Key`: the batch claims the keys of its triggers
//! (advisory locks and one read), leaves out a trigger whose key is taken, and stores each stored
//! trigger's outcome in its key's row, so the key and the work commit together.
//!
//! A batch that fails as a whole on a lost connection answers every caller 503; lost at COMMIT, the 503
//! says the outcome is unknown (the commit may have happened; a retry with the same transactionId is then
//! refused as a duplicate, never delivered twice). Any other failure (a row PostgreSQL refuses, a deadlock) is
//! retried one trigger per transaction, so only the trigger at fault gets the error.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use chrono::{DateTime, TimeDelta, Utc};
use diesel_async::{AsyncConnection, AsyncPgConnection};
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};
use uuid::Uuid;

use super::fanout::{recipients_of, subscriber_upserts, templates_of};
use super::keyed::{self, KeyVerdict};
use super::pipelined::{self, KnownSubscribers, Tried};
use super::request::TenantReference;
use super::store::{self, TenantUpsert};
use super::{PreparedTrigger, TriggerOutcome, TriggerStatus};
use crate::db::batch::{begin_batch_transaction, end_batch_transaction};
use crate::db::request::{self, Connection};
use crate::db::DbPool;
use crate::domain::idempotency_keys::{self, Claim, KeyUse};
use crate::domain::subscribers::upsert_credentials;
use crate::engine::wake::{Due, Wakeup};
use crate::error::{AppError, AppResult};
use crate::metrics::Metrics;

/// Batches stored at the same time, each on its own pooled connection: while one waits for its
/// commit's disk flush, another runs its statements.
const FLUSHERS: usize = 3;
/// Most notifications (recipients) one batch stores; a batch holds at least one trigger.
const MAX_BATCH_RECIPIENTS: usize = 2_000;
/// Triggers waiting for a flusher before new ones are refused with a 503 (backpressure instead of an
/// unbounded queue).
const QUEUE_CAPACITY: usize = 10_000;

/// A queued trigger and where its answer goes.
struct Pending {
    trigger: PreparedTrigger,
    key: Option<KeyUse>,
    reply: oneshot::Sender<AppResult<BatchResult>>,
}

/// What a batch did with one trigger.
#[derive(Debug, Clone)]
enum BatchResult {
    /// Stored, or refused by the batch's own checks (a duplicate transactionId, a missing tenant).
    Outcome(TriggerOutcome),
    /// Its key held this same trigger's outcome: answered again, nothing stored.
    Reused(TriggerOutcome),
    /// Its key is taken: nothing stored.
    KeyTaken(Claim),
}

/// The queue of triggers waiting to be stored.
#[derive(Clone)]
pub struct Ingest {
    queue: mpsc::Sender<Pending>,
    flushing: Flushing,
}

impl std::fmt::Debug for Ingest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ingest").finish_non_exhaustive()
    }
}

impl Ingest {
    /// Starts the dispatcher on `pool`; it stops when the last handle is dropped.
    pub fn start(pool: DbPool, wakeup: Wakeup, metrics: Arc<Metrics>) -> Self {
        let (queue, queued) = mpsc::channel(QUEUE_CAPACITY);
        let flushing = Flushing {
            pool,
            wakeup,
            metrics,
            last_triggered: Default::default(),
            known_subscribers: KnownSubscribers::new(),
        };
        tokio::spawn(dispatch(queued, flushing.clone()));
        Self { queue, flushing }
    }

    /// Stores `trigger` with whatever else is queued and answers once it is committed; a keyed trigger
    /// (`keyed`) is stored with its key, and what the key held is reported to the key's scope. A
    /// trigger whose request runs in a transaction of its own (a keyed bulk request: its answer is
    /// stored in the same transaction) is stored in that transaction instead, and its request commits
    /// it.
    pub async fn store(&self, trigger: PreparedTrigger) -> AppResult<TriggerOutcome> {
        if request::in_request_transaction() {
            return self.store_in_request(trigger).await;
        }
        let key = keyed::current_key();
        let has_key = key.is_some();
        let (reply, answer) = oneshot::channel();
        self.queue.try_send(Pending { trigger, key, reply }).map_err(|error| match error {
            mpsc::error::TrySendError::Full(_) => {
                AppError::Unavailable("Too many triggers are waiting to be stored; retry shortly".into())
            }
            mpsc::error::TrySendError::Closed(_) => AppError::Unavailable("The server is shutting down".into()),
        })?;
        let stored = answer.await.unwrap_or_else(|_| {
            Err(AppError::internal("a trigger batch ended without an answer; its outcome is unknown"))
        })?;
        match stored {
            BatchResult::Outcome(outcome) if has_key => keyed::report(KeyVerdict::Stored, Some(outcome)),
            BatchResult::Outcome(outcome) => Ok(outcome),
            BatchResult::Reused(outcome) => keyed::report(KeyVerdict::Reused, Some(outcome)),
            BatchResult::KeyTaken(claim) => keyed::report(KeyVerdict::Taken(claim), None),
        }
    }

    /// Stores `trigger` in a savepoint of its request's transaction (a failure undoes it alone: one
    /// event of a bulk trigger fails on its own); the workers are woken once the request commits.
    async fn store_in_request(&self, trigger: PreparedTrigger) -> AppResult<TriggerOutcome> {
        let started = Instant::now();
        let mut conn = Connection::of_request_or(&self.flushing.pool).await?;
        let known = &self.flushing.known_subscribers;
        let stored =
            conn.transaction::<_, AppError, _>(async |conn| store_batch(conn, &[&trigger], &[None], known).await).await;
        drop(conn);
        self.flushing.metrics.ingest_flush(1, started.elapsed());
        let Some(BatchResult::Outcome(outcome)) = stored?.pop() else {
            return Err(AppError::internal("a trigger without a key was answered as keyed"));
        };
        if outcome.acknowledged() {
            let flushing = self.flushing.clone();
            let workflow_id = trigger.workflow.stored.workflow.id;
            request::after_commit(async move {
                wake_for(&flushing.wakeup, [&trigger]);
                record_last_triggered(&flushing, HashSet::from([workflow_id]), trigger.now).await;
            })
            .await;
        }
        Ok(outcome)
    }
}

/// What the flushers share.
#[derive(Clone)]
struct Flushing {
    pool: DbPool,
    wakeup: Wakeup,
    metrics: Arc<Metrics>,
    /// When this process last wrote each workflow's `lastTriggeredAt`.
    last_triggered: Arc<Mutex<HashMap<Uuid, DateTime<Utc>>>>,
    /// The subscribers' internal ids a pipelined batch expects (`pipelined`).
    known_subscribers: KnownSubscribers,
}

/// Takes everything queued (up to a batch) as soon as a flusher is free.
async fn dispatch(mut queued: mpsc::Receiver<Pending>, flushing: Flushing) {
    let flushers = Arc::new(Semaphore::new(FLUSHERS));
    let mut carried: Option<Pending> = None;
    loop {
        let first = match carried.take() {
            Some(pending) => pending,
            None => match queued.recv().await {
                Some(pending) => pending,
                None => return,
            },
        };
        let permit = flushers.clone().acquire_owned().await.expect("the semaphore is never closed");
        let mut recipients = first.trigger.weight();
        let mut batch = vec![first];
        while let Ok(next) = queued.try_recv() {
            recipients += next.trigger.weight();
            if recipients > MAX_BATCH_RECIPIENTS {
                carried = Some(next);
                break;
            }
            batch.push(next);
        }
        tokio::spawn(flush(flushing.clone(), batch, permit));
    }
}

/// Stores one batch and answers its callers.
async fn flush(flushing: Flushing, batch: Vec<Pending>, _flusher: OwnedSemaphorePermit) {
    let started = Instant::now();
    let stored = store_in_one_transaction(&flushing, &batch).await;
    flushing.metrics.ingest_flush(batch.len(), started.elapsed());
    match stored {
        // Not after a lost connection: at COMMIT the batch may be stored, and its triggers would be
        // answered as their own duplicates.
        Err(error) if batch.len() > 1 && !matches!(error, AppError::Unavailable(_) | AppError::OutcomeUnknown(_)) => {
            tracing::warn!(%error, triggers = batch.len(), "a trigger batch failed; storing its triggers one by one");
            for pending in batch {
                let outcome = store_in_one_transaction(&flushing, std::slice::from_ref(&pending)).await;
                answer(&flushing, vec![pending], outcome).await;
            }
        }
        outcome => answer(&flushing, batch, outcome).await,
    }
}

/// Wakes the loops that run what the `stored` triggers made due.
fn wake_for<'a>(wakeup: &Wakeup, stored: impl IntoIterator<Item = &'a PreparedTrigger>) {
    let due: HashSet<Due> = stored.into_iter().flat_map(PreparedTrigger::makes_due).collect();
    for due in due {
        wakeup.wake(due);
    }
}

/// Wakes the workers and records `lastTriggeredAt` when something was stored, then answers each caller.
async fn answer(flushing: &Flushing, batch: Vec<Pending>, stored: AppResult<Vec<BatchResult>>) {
    match stored {
        Ok(outcomes) => {
            let stored: Vec<&PreparedTrigger> = batch
                .iter()
                .zip(&outcomes)
                .filter(|(_, result)| matches!(result, BatchResult::Outcome(outcome) if outcome.acknowledged()))
                .map(|(pending, _)| &pending.trigger)
                .collect();
            if !stored.is_empty() {
                wake_for(&flushing.wakeup, stored.iter().copied());
                let processed: HashSet<Uuid> =
                    stored.iter().map(|trigger| trigger.workflow.stored.workflow.id).collect();
                let now = batch.iter().map(|pending| pending.trigger.now).max().expect("a batch is never empty");
                record_last_triggered(flushing, processed, now).await;
            }
            for (pending, outcome) in batch.into_iter().zip(outcomes) {
                let _ = pending.reply.send(Ok(outcome));
            }
        }
        Err(error) => {
            let shared = Arc::new(error);
            for pending in batch {
                let _ = pending.reply.send(Err(AppError::from_shared(shared.clone())));
            }
        }
    }
}

/// `lastTriggeredAt`, written at most once a second per workflow by this process (the statement
/// itself skips a workflow another process wrote within the second). It is informational: failing to
/// write it does not fail triggers already committed.
async fn record_last_triggered(flushing: &Flushing, workflow_ids: HashSet<Uuid>, now: DateTime<Utc>) {
    let due: Vec<Uuid> = {
        let mut written = flushing.last_triggered.lock().expect("never poisoned");
        if written.len() > 10_000 {
            written.retain(|_, at| now - *at < TimeDelta::seconds(1));
        }
        workflow_ids
            .into_iter()
            .filter(|id| match written.get(id) {
                Some(at) if now - *at < TimeDelta::seconds(1) => false,
                _ => {
                    written.insert(*id, now);
                    true
                }
            })
            .collect()
    };
    if due.is_empty() {
        return;
    }
    let recorded = match flushing.pool.get().await {
        Ok(mut conn) => store::record_last_triggered(&mut conn, &due, now).await,
        Err(error) => Err(error.into()),
    };
    if let Err(error) = recorded {
        tracing::warn!(%error, "lastTriggeredAt not recorded");
    }
}

/// Stores `batch` in one transaction: pipelined in two round trips when it can be (`pipelined`), else
/// by the full path.
async fn store_in_one_transaction(flushing: &Flushing, batch: &[Pending]) -> AppResult<Vec<BatchResult>> {
    let mut conn = flushing.pool.get().await?;
    let triggers: Vec<&PreparedTrigger> = batch.iter().map(|pending| &pending.trigger).collect();
    let keys: Vec<Option<&KeyUse>> = batch.iter().map(|pending| pending.key.as_ref()).collect();
    let known = &flushing.known_subscribers;
    match pipelined::store_pipelined(&mut conn, &triggers, &keys, known).await? {
        Tried::Stored(transaction, outcomes) => {
            transaction.commit().await.map_err(|error| outcome_unknown_if_written(error.into(), true))?;
            flushing.metrics.ingest_batch("pipelined");
            return Ok(outcomes.into_iter().map(BatchResult::Outcome).collect());
        }
        Tried::RolledBack => flushing.metrics.ingest_batch("rolled_back"),
        Tried::NotPipelined => {}
    }
    flushing.metrics.ingest_batch("full");
    let mut written = false;
    let stored = async {
        begin_batch_transaction(&mut conn).await?;
        let stored = store_batch(&mut conn, &triggers, &keys, known).await;
        written = stored.is_ok();
        end_batch_transaction(&mut conn, stored).await
    };
    stored.await.map_err(|error| outcome_unknown_if_written(error, written))
}

/// A connection lost once every statement of the batch ran was lost at COMMIT: its triggers may or may
/// not be stored, and each caller is told so. Retrying with the same transactionId is safe: a stored
/// trigger refuses it as a duplicate, so nothing is sent twice. (A loss before that point rolled back:
/// a plain 503.)
fn outcome_unknown_if_written(error: AppError, written: bool) -> AppError {
    match error {
        AppError::Unavailable(cause) if written => {
            tracing::warn!(%cause, "database connection lost while committing a trigger batch");
            AppError::OutcomeUnknown(
                "The database connection was lost while this trigger was being committed: whether it was stored \
                 is unknown. Retry with the same transactionId: if it was stored, the retry is refused as already \
                 used, so nothing is sent twice"
                    .into(),
            )
        }
        other => other,
    }
}

/// The batch's statements, in one transaction; each trigger's result in batch order. `keys` are the
/// triggers' idempotency keys, in the same order.
async fn store_batch(
    conn: &mut AsyncPgConnection,
    triggers: &[&PreparedTrigger],
    keys: &[Option<&KeyUse>],
    known: &KnownSubscribers,
) -> AppResult<Vec<BatchResult>> {
    let now = triggers.iter().map(|trigger| trigger.now).max().expect("a batch is never empty");
    // Each trigger's result once it is decided: first those whose key is taken or already answered.
    let mut outcomes = claim_keys(conn, keys).await?;
    let named_tenants: Vec<(Uuid, &str)> = triggers
        .iter()
        .filter_map(|trigger| match &trigger.tenant_reference {
            Some(TenantReference::Identifier(identifier)) => Some((trigger.tenant.environment_id, identifier.as_str())),
            _ => None,
        })
        .collect();
    let existing_tenants = store::find_tenants(conn, &named_tenants).await?;

    // Then each trigger's refusal, if it has one before its transactionId is claimed.
    let mut to_claim: Vec<(Uuid, &str)> = Vec::with_capacity(triggers.len());
    let mut seen = HashSet::with_capacity(triggers.len());
    for (index, trigger) in triggers.iter().enumerate() {
        if outcomes[index].is_some() {
            continue;
        }
        let key = (trigger.tenant.environment_id, trigger.transaction_id.as_str());
        if let Some(TenantReference::Identifier(identifier)) = &trigger.tenant_reference {
            if !existing_tenants.contains_key(&(key.0, identifier.clone())) {
                let error = format!("Tenant with identifier {identifier} was not found");
                let refused = TriggerOutcome::refused(TriggerStatus::NoTenantFound, key.1.into(), error);
                outcomes[index] = Some(BatchResult::Outcome(refused));
                continue;
            }
        }
        if seen.insert(key) {
            to_claim.push(key);
        } else {
            // The same transactionId earlier in this batch: it holds the claim whatever its own outcome.
            outcomes[index] = Some(BatchResult::Outcome(duplicate(key.1)));
        }
    }
    let claimed = store::claim_transaction_ids(conn, &to_claim, now).await?;
    let mut stored: Vec<&PreparedTrigger> = Vec::with_capacity(triggers.len());
    for (index, trigger) in triggers.iter().enumerate() {
        if outcomes[index].is_some() {
            continue;
        }
        if claimed.contains(&(trigger.tenant.environment_id, trigger.transaction_id.clone())) {
            stored.push(trigger);
            outcomes[index] = Some(BatchResult::Outcome(TriggerOutcome::processed(trigger.transaction_id.clone())));
        } else {
            outcomes[index] = Some(BatchResult::Outcome(duplicate(&trigger.transaction_id)));
        }
    }
    if !stored.is_empty() {
        store_fanout(conn, &stored, &existing_tenants, known, now).await?;
    }
    let outcomes: Vec<BatchResult> =
        outcomes.into_iter().map(|outcome| outcome.expect("every trigger has an outcome")).collect();
    // The keys that were free keep their trigger's outcome, stored or refused.
    let key_outcomes: Vec<(&KeyUse, serde_json::Value)> = keys
        .iter()
        .zip(&outcomes)
        .filter_map(|(key, result)| match (key, result) {
            (Some(key), BatchResult::Outcome(outcome)) => Some((*key, outcome.to_stored())),
            _ => None,
        })
        .collect();
    idempotency_keys::insert_outcomes(conn, &key_outcomes).await?;
    Ok(outcomes)
}

/// Claims the keys of the batch's keyed triggers: each whose key is taken gets that as its result,
/// each whose key holds its own earlier outcome gets that outcome; the others (free keys, no key) are
/// undecided.
async fn claim_keys(conn: &mut AsyncPgConnection, keys: &[Option<&KeyUse>]) -> AppResult<Vec<Option<BatchResult>>> {
    let mut results = vec![None; keys.len()];
    let (indexes, uses): (Vec<usize>, Vec<&KeyUse>) =
        keys.iter().enumerate().filter_map(|(index, key)| Some((index, (*key)?))).unzip();
    if uses.is_empty() {
        return Ok(results);
    }
    let claims = idempotency_keys::claim_all(conn, &uses).await?;
    for (index, claim) in indexes.into_iter().zip(claims) {
        results[index] = match claim {
            Claim::Fresh => None,
            Claim::Unanswered(stored) => Some(BatchResult::Reused(TriggerOutcome::from_stored(stored)?)),
            taken => Some(BatchResult::KeyTaken(taken)),
        };
    }
    Ok(results)
}

fn duplicate(transaction_id: &str) -> TriggerOutcome {
    let error = format!("transactionId {transaction_id} was already used in this environment");
    TriggerOutcome::refused(TriggerStatus::Error, transaction_id.into(), error)
}

/// Tenants, subscribers (with their channel credentials), notifications and jobs of the claimed triggers.
async fn store_fanout(
    conn: &mut AsyncPgConnection,
    stored: &[&PreparedTrigger],
    existing_tenants: &store::IdsByKey,
    known: &KnownSubscribers,
    now: DateTime<Utc>,
) -> AppResult<()> {
    let mut tenant_ids = store::upsert_tenants(conn, &tenant_upserts(stored), now).await?;
    tenant_ids.extend(existing_tenants.iter().map(|(key, id)| (key.clone(), *id)));
    let subscribers = subscriber_upserts(stored);
    let subscriber_ids = store::upsert_subscribers(conn, &subscribers, now).await?;
    // Before the commit: an id this transaction created and then rolled back becomes the id of the row
    // the next batch creates (`pipelined` creates a subscriber with the id it expects).
    known.learn(&subscriber_ids).await;
    // Rare (a recipient object carrying `channels`), and each merges into stored credentials.
    for (tenant, input) in &subscribers {
        for update in &input.channels {
            upsert_credentials(conn, *tenant, &input.subscriber_id, update.clone()).await?;
        }
    }
    let templates = templates_of(stored, &tenant_ids, &subscriber_ids);
    let recipients = recipients_of(stored, &templates, &subscriber_ids);
    recipients.insert(conn).await?;
    store::insert_topic_fanouts(conn, &store::topic_fanouts_of(stored, &templates, &subscriber_ids)?).await
}

/// The tenant objects of the batch, one per (environment, identifier), later fields over earlier ones.
fn tenant_upserts<'a>(stored: &[&'a PreparedTrigger]) -> Vec<TenantUpsert<'a>> {
    let mut upserts: Vec<TenantUpsert<'a>> = Vec::new();
    let mut index_of: HashMap<(Uuid, &str), usize> = HashMap::new();
    for trigger in stored {
        let Some(TenantReference::Upsert { identifier, name, data }) = &trigger.tenant_reference else { continue };
        let upsert = TenantUpsert { tenant: trigger.tenant, identifier, name: name.as_deref(), data: data.as_ref() };
        match index_of.get(&(trigger.tenant.environment_id, identifier.as_str())) {
            Some(&index) => {
                let earlier = &mut upserts[index];
                earlier.name = upsert.name.or(earlier.name);
                earlier.data = upsert.data.or(earlier.data);
            }
            None => {
                index_of.insert((trigger.tenant.environment_id, identifier), upserts.len());
                upserts.push(upsert);
            }
        }
    }
    upserts
}
