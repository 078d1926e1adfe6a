//! Retention: the notifications older than the retention period (`HERALD_RETENTION_DAYS`, default 30)
//! are deleted with everything hanging from them (jobs, execution details and messages, which have no
//! foreign key to them, by the same statement; provider deliveries with their jobs: `ON DELETE
//! CASCADE`), and so are the transactionId claims of that age once none of their
//! notifications is left, so a transactionId is unique per environment within the retention period. A
//! notification with a job still waiting (a delay or digest longer than the period) is kept until that
//! job finishes. A trigger's topic fan-out, once completed, goes at the same age (the activity API reads
//! an event's topics from it, so it lives as long as the notifications it made), and its transactionId
//! claim only after it.
//!
//! The inbox's event log (`inbox_events`) is swept by the same cutoff: a client resuming from an
//! event older than that gets a `reset` (see `domain::inbox::events`).
//!
//! Expired idempotency keys (past their 24 hours) and the heartbeat rows of API processes that
//! stopped are swept at the same time ([`sweep_expired`]).
//!
//! The worker processes sweep every [`SWEEP_INTERVAL`], in chunks of [`CHUNK`] notifications, each its
//! own short statement, so a sweep never holds many locks or one long transaction. Several processes may
//! sweep at once: rows another sweeper holds are skipped. Old notifications are found through the
//! existing `(environment_id, created_at)` index, one environment at a time, so the hot table carries no
//! index for the sweeper alone. `scripts/bench-retention.sh` measures what a sweep costs.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use diesel::sql_types::{BigInt, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use tokio::sync::watch;

use super::runtime::WorkerShared;
use crate::db::DbPool;
use crate::error::AppResult;

/// How often a worker process sweeps.
pub const SWEEP_INTERVAL: Duration = Duration::from_secs(600);
/// Notifications (or transactionId claims) deleted per statement.
const CHUNK: i64 = 1_000;

/// Sweeps at start and then every [`SWEEP_INTERVAL`] until `stop`.
pub async fn sweep_periodically(shared: Arc<WorkerShared>, retention: TimeDelta, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        let cutoff = shared.engine.clock.now() - retention;
        match sweep(&shared.pool, cutoff).await {
            Ok(swept) if swept != Swept::default() => {
                let Swept { notifications, topic_fanouts, transactions, inbox_events } = swept;
                tracing::info!(notifications, topic_fanouts, transactions, inbox_events, %cutoff, "retention sweep");
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "retention sweep failed; retrying at the next one"),
        }
        match sweep_expired(&shared.pool, shared.engine.clock.now()).await {
            Ok(0) => {}
            Ok(keys) => tracing::info!(idempotency_keys = keys, "expired idempotency keys swept"),
            Err(error) => tracing::warn!(%error, "idempotency key sweep failed; retrying at the next one"),
        }
        tokio::select! {
            _ = tokio::time::sleep(SWEEP_INTERVAL) => {}
            _ = stop.changed() => {}
        }
    }
}

/// What one sweep deleted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    pub notifications: u64,
    pub topic_fanouts: u64,
    pub transactions: u64,
    pub inbox_events: u64,
}

/// Deletes everything created before `cutoff`, chunk by chunk.
pub async fn sweep(pool: &DbPool, cutoff: DateTime<Utc>) -> AppResult<Swept> {
    let mut conn = pool.get().await?;
    Ok(Swept {
        notifications: delete_all(&mut conn, DELETE_NOTIFICATIONS, cutoff).await?,
        topic_fanouts: delete_all(&mut conn, DELETE_FANOUTS, cutoff).await?,
        transactions: delete_all(&mut conn, DELETE_TRANSACTIONS, cutoff).await?,
        inbox_events: delete_all(&mut conn, DELETE_INBOX_EVENTS, cutoff).await?,
    })
}

/// Runs `sql` chunk by chunk until a chunk comes back short; returns how many rows it deleted.
async fn delete_all(conn: &mut AsyncPgConnection, sql: &str, cutoff: DateTime<Utc>) -> AppResult<u64> {
    let mut swept = 0;
    loop {
        let deleted = delete_chunk(conn, sql, cutoff).await?;
        swept += deleted;
        if deleted < CHUNK as u64 {
            return Ok(swept);
        }
    }
}

/// Deletes the idempotency keys expired at `now`, chunk by chunk (returns how many), and the rows of
/// API processes silent for an hour.
pub async fn sweep_expired(pool: &DbPool, now: DateTime<Utc>) -> AppResult<u64> {
    let mut conn = pool.get().await?;
    let swept = delete_all(&mut conn, DELETE_EXPIRED_KEYS, now).await?;
    diesel::sql_query("DELETE FROM api_processes WHERE last_seen < $1 - interval '1 hour'")
        .bind::<Timestamptz, _>(now)
        .execute(&mut conn)
        .await?;
    Ok(swept)
}

async fn delete_chunk(conn: &mut AsyncPgConnection, sql: &str, cutoff: DateTime<Utc>) -> AppResult<u64> {
    let deleted = diesel::sql_query(sql).bind::<Timestamptz, _>(cutoff).bind::<BigInt, _>(CHUNK).execute(conn).await?;
    Ok(deleted as u64)
}

// The status list is a literal so the planner can use `jobs_due_idx` (see the engine migration).
// Jobs, execution details and messages have no foreign key to notifications (their migrations say
// why): they are deleted here, jobs and messages through their notification indexes, details through
// their jobs' (details are indexed only by job: migration `leaner_hot_indexes`). Every part of the
// statement sees the rows as they were before it, so the details find the jobs it deletes.
const DELETE_NOTIFICATIONS: &str = "
WITH old AS (
    SELECT old.id FROM environments e
    CROSS JOIN LATERAL (
        SELECT n.id FROM notifications n
        WHERE n.environment_id = e.id AND n.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.notification_id = n.id
                          AND j.status IN ('pending', 'queued', 'delayed', 'running'))
        ORDER BY n.created_at
        LIMIT $2
        FOR UPDATE OF n SKIP LOCKED
    ) old
    LIMIT $2
), details AS (
    DELETE FROM execution_details d USING old, jobs j WHERE j.notification_id = old.id AND d.job_id = j.id
), messages AS (
    DELETE FROM messages m USING old WHERE m.notification_id = old.id
), jobs AS (
    DELETE FROM jobs j USING old WHERE j.notification_id = old.id
)
DELETE FROM notifications WHERE id IN (SELECT id FROM old)";

const DELETE_EXPIRED_KEYS: &str = "
DELETE FROM idempotency_keys WHERE (environment_id, key) IN (
    SELECT environment_id, key FROM idempotency_keys
    WHERE expires_at <= $1
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)";

// A fan-out still queued or running is kept whatever its age: its members are still to be reached.
// Completed ones are found by `topic_fanouts_completed_idx`, an entry written once per fan-out, when it
// completes.
const DELETE_FANOUTS: &str = "
DELETE FROM topic_fanouts WHERE id IN (
    SELECT id FROM topic_fanouts
    WHERE status = 'completed' AND accepted_at < $1
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)";

const DELETE_TRANSACTIONS: &str = "
DELETE FROM trigger_transactions WHERE (environment_id, transaction_id) IN (
    SELECT t.environment_id, t.transaction_id FROM trigger_transactions t
    WHERE t.created_at < $1
      AND NOT EXISTS (SELECT 1 FROM notifications n
                      WHERE n.environment_id = t.environment_id AND n.transaction_id = t.transaction_id)
      AND NOT EXISTS (SELECT 1 FROM topic_fanouts f
                      WHERE f.environment_id = t.environment_id AND f.transaction_id = t.transaction_id)
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)";

// Events are numbered in commit order and stamped after their sequence lock, so an age cutoff deletes
// a prefix of each subscriber's log.
const DELETE_INBOX_EVENTS: &str = "
DELETE FROM inbox_events WHERE (environment_id, subscriber_id, seq) IN (
    SELECT environment_id, subscriber_id, seq FROM inbox_events
    WHERE created_at < $1
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)";
