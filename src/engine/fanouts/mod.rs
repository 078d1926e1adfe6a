//! The fan-out of triggers to topics. A trigger naming topics stores only a `topic_fanouts` row (with
//! the event's [`EventTemplate`]) in the transaction that stores the trigger, so its latency does not
//! depend on topic size. A trigger naming more subscribers directly than its batch stores
//! ([`MOST_RECIPIENTS_STORED_AT_INGEST`](crate::engine::trigger::MOST_RECIPIENTS_STORED_AT_INGEST))
//! stores one too, with its recipients in place of topics, read in pages of 250. Every worker process
//! claims due fan-outs like jobs (`FOR UPDATE SKIP LOCKED`, a lease in `run_at`, taken over when it
//! expires) and expands up to four at once, one page of members per transaction ([`page`]) and up to
//! four pages at a time: a page's notifications, its jobs, its first steps that run in the database
//! (in-app, delay: run there, as a worker would, and stored finished) and the lease's extension commit
//! together.
//!
//! Exactly once per subscriber: the unique index on notifications (environment, transactionId,
//! subscriber) turns a member reached through two topics, one also named directly, or one re-expanded
//! after a crash between a page's commit and the next into an `ON CONFLICT DO NOTHING`.
//!
//! The members reached are the memberships created at or before the trigger's acceptance and still
//! present when their page is read (a member removed during the fan-out may be missed; one added after
//! the trigger is not reached); the actor and the trigger's `exclude` never are, nor deleted subscribers.

mod page;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::stream::FuturesOrdered;
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{watch, Notify, Semaphore};
use tokio::task::{self, JoinSet};
use tokio::time::Instant;
use uuid::Uuid;

use super::runtime::WorkerShared;
use super::trigger::fanout::EventTemplate;
use super::wake::Due;
use crate::db::schema::{subscribers, topic_fanouts, topics};
use crate::domain::subscribers::Subscriber;
use crate::error::{AppError, AppResult};

/// A claimed fan-out.
#[derive(Debug, QueryableByName)]
struct Claimed {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    environment_id: Uuid,
    #[diesel(sql_type = Array<Text>)]
    topic_keys: Vec<String>,
    #[diesel(sql_type = Array<Text>)]
    exclude: Vec<String>,
    #[diesel(sql_type = Jsonb)]
    template: serde_json::Value,
    #[diesel(sql_type = Timestamptz)]
    accepted_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    after_subscriber_id: Option<Uuid>,
    #[diesel(sql_type = Nullable<Jsonb>)]
    recipients: Option<Value>,
}

/// A direct recipient of a fanned-out trigger, as its fan-out row keeps it.
#[derive(Debug, Deserialize)]
struct FannedOutRecipient {
    id: Uuid,
    /// The recipient's `to` entry as sent (its notification's `to`).
    to: Value,
}

/// What every page of one fan-out needs.
struct Expansion {
    id: Uuid,
    template: EventTemplate,
    topic_ids: Vec<Uuid>,
    /// The trigger's direct recipients by internal id, in place of topics.
    recipients: Option<Vec<FannedOutRecipient>>,
    /// Internal ids of the actor and the excluded subscribers (of topics: a direct recipient is reached
    /// even as the actor, as when its trigger's batch stores it).
    excluded: Vec<Uuid>,
    accepted_at: DateTime<Utc>,
}

impl Expansion {
    /// Whether the page just read, `read` members up to `last`, was the last one. A direct recipient
    /// is always read (the trigger's batch stored its subscriber; a deletion only marks the row), so
    /// the recipients are read when the last of them was.
    fn read_all(&self, read: usize, last: Option<Uuid>) -> bool {
        match (&self.recipients, last) {
            (Some(recipients), Some(last)) => recipients.last().is_none_or(|final_one| final_one.id <= last),
            (Some(_), None) => true,
            (None, _) => (read as i64) < page::PAGE_SIZE,
        }
    }

    /// `member`'s notification's `to`: its entry as sent, or its subscriberId for a topic's member.
    fn to_recipient(&self, member: &Subscriber) -> Value {
        let sent = self.recipients.as_deref().and_then(|recipients| {
            let at = recipients.binary_search_by_key(&member.id, |recipient| recipient.id).ok()?;
            Some(recipients[at].to.clone())
        });
        sent.unwrap_or_else(|| json!({ "subscriberId": member.subscriber_id }))
    }
}

/// Fan-outs one process expands at once, each in a task of its own. A fan-out to direct recipients is
/// a few small pages: expanded one at a time, 1,000-recipient triggers sent back to back were delivered
/// at 6,713 messages a second against 8,604 when their jobs were stored by their batches and claimed by
/// the four worker loops; four at a time, as fast as those (docs/performance.md).
const FANOUTS_AT_ONCE: usize = 4;

/// Claims due fan-outs and hands each to a task of its own until `stop` turns true: at most
/// [`FANOUTS_AT_ONCE`] expanded at once and [`PAGES_IN_FLIGHT`] pages in flight among them. One claimer
/// per process, so an idle process runs one claim a poll, and every fan-out it holds is leased under the
/// process's name. On `stop` it waits for its expansions, which hand their fan-outs back.
pub async fn run_fanouts(shared: Arc<WorkerShared>, wake: Arc<Notify>, mut stop: watch::Receiver<bool>) {
    let pages = Arc::new(Semaphore::new(PAGES_IN_FLIGHT));
    // The fan-out each running task expands.
    let mut expanding: HashMap<task::Id, Uuid> = HashMap::with_capacity(FANOUTS_AT_ONCE);
    let mut tasks = JoinSet::new();
    let mut failures_in_a_row = 0u32;
    let mut claim_at = Instant::now();
    while !*stop.borrow() {
        let notified = wake.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let room = tasks.len() < FANOUTS_AT_ONCE;
        if room && Instant::now() >= claim_at {
            let claimed = match shared.pool.get().await {
                Ok(mut conn) => {
                    let held: Vec<Uuid> = expanding.values().copied().collect();
                    claim(&mut conn, &shared.owner, shared.engine.clock.now(), lease(&shared), &held).await
                }
                Err(error) => Err(error.into()),
            };
            match claimed {
                Ok(Some(claimed)) => {
                    let id = claimed.id;
                    let task = tasks.spawn(expand(shared.clone(), pages.clone(), claimed, stop.clone()));
                    expanding.insert(task.id(), id);
                    continue;
                }
                Ok(None) => claim_at = Instant::now() + shared.settings.poll_interval,
                Err(error) => {
                    failures_in_a_row += 1;
                    tracing::warn!(%error, "claiming a fan-out failed");
                    claim_at = after_failure(&shared, &expanding, failures_in_a_row).await;
                }
            }
        }
        tokio::select! {
            _ = &mut notified, if room => claim_at = Instant::now(),
            _ = tokio::time::sleep_until(claim_at), if room => {}
            Some(finished) = tasks.join_next_with_id() => {
                let (task, expanded) = match finished {
                    Ok((task, expanded)) => (task, expanded),
                    Err(panicked) => (panicked.id(), Err(AppError::internal(panicked))),
                };
                let id = expanding.remove(&task);
                match expanded {
                    Ok(()) => failures_in_a_row = 0,
                    Err(error) => {
                        failures_in_a_row += 1;
                        tracing::warn!(%error, fanout = ?id, "fan-out failed; it resumes from its last page");
                        claim_at = after_failure(&shared, &expanding, failures_in_a_row).await;
                    }
                }
            }
            _ = stop.changed() => {}
        }
    }
    while tasks.join_next().await.is_some() {}
}

/// After a failed claim or expansion: makes every fan-out this process holds and is not expanding due
/// again at once, for any worker, and answers when this one may claim again. Even a claim that answered
/// an error may have committed (the connection cut after its commit). The database may still be away:
/// then the lease brings the fan-out back once it expires.
async fn after_failure(shared: &WorkerShared, expanding: &HashMap<task::Id, Uuid>, failures_in_a_row: u32) -> Instant {
    let expanding: Vec<Uuid> = expanding.values().copied().collect();
    let given_back = match shared.pool.get().await {
        Ok(mut conn) => diesel::update(topic_fanouts::table)
            .filter(topic_fanouts::status.eq("running"))
            .filter(topic_fanouts::lease_owner.eq(&shared.owner))
            .filter(topic_fanouts::id.ne_all(&expanding))
            .set((topic_fanouts::run_at.eq(shared.engine.clock.now()), topic_fanouts::lease_owner.eq(None::<String>)))
            .execute(&mut conn)
            .await
            .map_err(AppError::from),
        Err(error) => Err(error.into()),
    };
    if let Err(error) = given_back {
        tracing::warn!(%error, "the failed fan-out waits for its lease");
    }
    let pause = shared.settings.poll_interval * failures_in_a_row.min(10);
    Instant::now() + pause.min(Duration::from_secs(30))
}

/// Pages expanded at once by a process, each in a transaction of its own: the database writes some while
/// Herald runs the others' steps, so a single large fan-out keeps the cores busy. A 100,000-member topic
/// fanned out to in-app messages on 2 cores took 5.96 s with 2 pages in flight, 5.71 s with 3 and 5.48 s
/// with 4 (peak RSS 101 MB with 2, 120 MB with 4: memory is the pages in flight, whatever the topic's
/// size). An expansion waiting for a page's permit holds its connection, so the pool must hold more than
/// [`FANOUTS_AT_ONCE`] connections for the pages to get theirs (the default holds 16).
const PAGES_IN_FLIGHT: usize = 4;

/// Expands a claimed fan-out to the end, or until `stop` (then hands it back for another worker at once).
///
/// Pages are read in order and expanded [`PAGES_IN_FLIGHT`] at a time; they may commit out of order, so
/// each moves the stored cursor only to the start of the oldest page in flight when it began, before
/// which every page has committed. A crash re-expands at most the pages in flight, and a page expanded
/// again inserts nothing: its notifications exist (the unique index), and with them their jobs.
async fn expand(
    shared: Arc<WorkerShared>,
    pages: Arc<Semaphore>,
    claimed: Claimed,
    stop: watch::Receiver<bool>,
) -> AppResult<()> {
    let shared = &*shared;
    let mut conn = shared.pool.get().await?;
    let mut read_after = claimed.after_subscriber_id;
    let expansion = resolve(&mut conn, claimed).await?;
    let mut read_all = false;
    // Where each page in flight starts, oldest first.
    let mut starts = VecDeque::with_capacity(PAGES_IN_FLIGHT);
    let mut in_flight = FuturesOrdered::new();
    let mut failure = None;
    loop {
        // A page's permit: waited for when none of this fan-out's is in flight, taken if free otherwise.
        let permit = if failure.is_some() || read_all || *stop.borrow() {
            None
        } else if in_flight.is_empty() {
            pages.clone().acquire_owned().await.ok()
        } else {
            pages.clone().try_acquire_owned().ok()
        };
        if let Some(permit) = permit {
            match page::next_members(&mut conn, &expansion, read_after).await {
                Ok(members) => {
                    let last = members.last().map(|member| member.id);
                    read_all = expansion.read_all(members.len(), last);
                    if let Some(last) = last {
                        let committed = starts.front().copied().unwrap_or(read_after);
                        starts.push_back(read_after);
                        read_after = Some(last);
                        let page = page::expand_page(shared, &expansion, members, committed);
                        in_flight.push_back(async move {
                            let expanded = page.await;
                            drop(permit);
                            expanded
                        });
                    }
                }
                Err(error) => failure = Some(error),
            }
            continue;
        }
        // In flight pages are awaited even after a failure: each ends its own transaction.
        let Some(expanded) = in_flight.next().await else { break };
        starts.pop_front();
        match expanded {
            Ok(expanded) => {
                if expanded.inserted > expanded.ran {
                    shared.engine.wakeup.wake(Due::Jobs);
                }
                if let Some(written) = expanded.written {
                    written.announce(shared);
                }
            }
            Err(error) => failure = failure.or(Some(error)),
        }
    }
    if let Some(error) = failure {
        return Err(error);
    }
    let_go(&mut conn, expansion.id, &shared.owner, read_after, read_all, shared.engine.clock.now()).await
}

/// Lets go of a fan-out this worker holds once its pages in flight have committed: completed when every
/// page is expanded, otherwise due again at once, to resume after `cursor` (a graceful stop).
async fn let_go(
    conn: &mut AsyncPgConnection,
    id: Uuid,
    owner: &str,
    cursor: Option<Uuid>,
    completed: bool,
    now: DateTime<Utc>,
) -> AppResult<()> {
    diesel::update(topic_fanouts::table)
        .filter(topic_fanouts::id.eq(id))
        .filter(topic_fanouts::lease_owner.eq(owner))
        .set((
            topic_fanouts::status.eq(if completed { "completed" } else { "running" }),
            topic_fanouts::run_at.eq(now),
            topic_fanouts::lease_owner.eq(None::<String>),
            topic_fanouts::after_subscriber_id.eq(cursor),
            topic_fanouts::updated_at.eq(now),
        ))
        .execute(conn)
        .await?;
    Ok(())
}

fn lease(shared: &WorkerShared) -> TimeDelta {
    TimeDelta::from_std(shared.settings.lease).unwrap_or(TimeDelta::seconds(60))
}

/// Claims the fan-out due first (a new one, or one whose worker's lease expired), other than those
/// this process is expanding (`expanding`). A page slower than the lease lets the lease lapse before the
/// page extends it; this process's next claim would then take the fan-out it is expanding a second
/// time, under the same name, and expand it twice at once (seen in CI: a 2-second lease, a loaded
/// machine).
async fn claim(
    conn: &mut AsyncPgConnection,
    owner: &str,
    now: DateTime<Utc>,
    lease: TimeDelta,
    expanding: &[Uuid],
) -> AppResult<Option<Claimed>> {
    Ok(diesel::sql_query(
        "WITH due AS (
             SELECT id FROM topic_fanouts
             WHERE status IN ('queued', 'running') AND run_at <= $1 AND id <> ALL($4)
             ORDER BY run_at
             LIMIT 1
             FOR UPDATE SKIP LOCKED
         )
         UPDATE topic_fanouts AS f
         SET status = 'running', run_at = $2, lease_owner = $3, attempts = f.attempts + 1, updated_at = $1
         FROM due
         WHERE f.id = due.id
         RETURNING f.id, f.environment_id, f.topic_keys, f.exclude, f.template, f.accepted_at, f.after_subscriber_id,
                   f.recipients",
    )
    .bind::<Timestamptz, _>(now)
    .bind::<Timestamptz, _>(now + lease)
    .bind::<Text, _>(owner)
    .bind::<Array<SqlUuid>, _>(expanding)
    .get_result(conn)
    .await
    .optional()?)
}

/// The topics (by key, as they exist now: a topic created after the trigger has no member old enough)
/// and the excluded subscribers of a claimed fan-out, or its direct recipients.
async fn resolve(conn: &mut AsyncPgConnection, claimed: Claimed) -> AppResult<Expansion> {
    let template: EventTemplate = serde_json::from_value(claimed.template).map_err(AppError::internal)?;
    if let Some(recipients) = claimed.recipients {
        let mut recipients: Vec<FannedOutRecipient> = serde_json::from_value(recipients).map_err(AppError::internal)?;
        // Read in id order, like a topic's members: the page's cursor is the last id expanded.
        recipients.sort_by_key(|recipient| recipient.id);
        return Ok(Expansion {
            id: claimed.id,
            template,
            topic_ids: Vec::new(),
            recipients: Some(recipients),
            excluded: Vec::new(),
            accepted_at: claimed.accepted_at,
        });
    }
    let topic_ids: Vec<Uuid> = topics::table
        .filter(topics::environment_id.eq(claimed.environment_id))
        .filter(topics::key.eq_any(&claimed.topic_keys))
        .select(topics::id)
        .load(conn)
        .await?;
    let mut excluded: Vec<Uuid> = if claimed.exclude.is_empty() {
        Vec::new()
    } else {
        subscribers::table
            .filter(subscribers::environment_id.eq(claimed.environment_id))
            .filter(subscribers::subscriber_id.eq_any(&claimed.exclude))
            .select(subscribers::id)
            .load(conn)
            .await?
    };
    excluded.extend(template.actor_subscriber_id);
    Ok(Expansion { id: claimed.id, template, topic_ids, recipients: None, excluded, accepted_at: claimed.accepted_at })
}
