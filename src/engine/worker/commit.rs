//! Writing a batch's outcomes: a statement per kind of write for the whole batch. The jobs run in the
//! database are written in the transaction that claimed them ([`write_outcomes`]); the leased ones
//! in a transaction of their own as they finish ([`commit_outcomes`]), and only those this worker
//! still holds: a job whose lease expired belongs to whoever claimed it since (provider delivery
//! records are facts and are written regardless).

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Int4, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::{json, Value};
use uuid::Uuid;

use super::claim::BatchLease;
use super::job_updates::{insert_finished_jobs, write_jobs};
use super::WorkerShared;
use crate::db::batch::{begin_batch_transaction, end_batch_transaction, update_by_pairs, update_from_records};
use crate::db::schema::jobs;
use crate::domain::inbox::{arrival_bumps, InboxBump, InboxMessage};
use crate::domain::subscribers::{remove_dead_destinations, DeadDestination};
use crate::engine::details::{insert_details, Detail, DetailStatus};
use crate::engine::digest_windows::{self, Merge};
use crate::engine::jobs::{lock_leased, Job};
use crate::engine::steps::message::{insert_messages, message_row, NewMessageRow};
use crate::engine::steps::Outcome;
use crate::engine::wake::Due;
use crate::error::AppResult;
use crate::workflow::JobStatus;

/// Writes `outcomes` of jobs leased by `lease`, in one transaction, and moves each finished
/// notification on to its next job.
pub async fn commit_outcomes(
    conn: &mut AsyncPgConnection,
    shared: &WorkerShared,
    lease: &BatchLease,
    outcomes: Vec<Outcome>,
    now: DateTime<Utc>,
) -> AppResult<()> {
    begin_batch_transaction(conn).await?;
    let written = async {
        write_delivery_updates(conn, &outcomes, now).await?;
        let ids: Vec<Uuid> = outcomes.iter().map(|outcome| outcome.job.id).collect();
        let owned: HashSet<Uuid> = lock_leased(conn, &ids, &lease.holder).await?;
        let outcomes: Vec<Outcome> = outcomes.into_iter().filter(|outcome| owned.contains(&outcome.job.id)).collect();
        if outcomes.len() < ids.len() {
            tracing::warn!(lost = ids.len() - outcomes.len(), "jobs taken over by another worker were not written");
        }
        write_outcomes(conn, outcomes, JobsAre::Claimed, now).await
    }
    .await;
    let written = end_batch_transaction(conn, written).await?;
    written.announce(shared);
    Ok(())
}

/// What a committed batch tells the rest of the process: jobs it made due, inbox events it wrote.
#[must_use = "announce it once the transaction has committed"]
pub struct Written {
    queued: usize,
    inbox_bumps: Vec<InboxBump>,
}

impl Written {
    /// Wakes the workers for the queued jobs and the inbox streams for the events; call after the commit.
    pub fn announce(self, shared: &WorkerShared) {
        shared.engine.inbox_feed.announce(self.inbox_bumps);
        if self.queued > 0 {
            shared.engine.wakeup.wake(Due::Jobs);
        }
    }
}

/// Where the jobs of a batch's outcomes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobsAre {
    /// Rows this transaction holds (claimed and locked, or leased): their outcomes update them.
    Claimed,
    /// Not stored yet: run in the transaction that creates them (the first steps of a topic page,
    /// `engine::fanouts`), they are inserted as their outcomes leave them, one row version each
    /// instead of a queued one and its update.
    New,
}

/// Writes `outcomes` (their jobs are `jobs_are`), and moves each finished notification on to its next job.
pub async fn write_outcomes(
    conn: &mut AsyncPgConnection,
    mut outcomes: Vec<Outcome>,
    jobs_are: JobsAre,
    now: DateTime<Utc>,
) -> AppResult<Written> {
    let new_messages: Vec<NewMessageRow> = outcomes
        .iter()
        .filter_map(|outcome| outcome.new_message.as_ref().map(|message| message_row(&outcome.job, message, now)))
        .collect();
    let mut inbox_bumps = Vec::new();
    if !new_messages.is_empty() {
        let inserted: HashSet<Uuid> = insert_messages(conn, &new_messages).await?.into_iter().collect();
        // The in-app ones reach their subscribers' inboxes: the insert logged a `received` event each
        // (a message already stored by an earlier run is not inserted, nor announced twice), which is
        // announced after the commit.
        let received: Vec<InboxMessage> = new_messages
            .iter()
            .filter_map(NewMessageRow::in_app)
            .filter(|message| inserted.contains(&message.id))
            .collect();
        inbox_bumps = arrival_bumps(conn, &received).await?;
    }
    write_message_updates(conn, &outcomes, now).await?;
    let dead: Vec<DeadDestination> =
        outcomes.iter().flat_map(|outcome| outcome.dead_destinations.iter().cloned()).collect();
    remove_dead_destinations(conn, &dead, now).await?;
    let merges = digest_windows::resolve_arrivals(conn, &mut outcomes).await?;
    match jobs_are {
        JobsAre::Claimed => write_jobs(conn, &outcomes, now).await?,
        JobsAre::New => insert_finished_jobs(conn, &outcomes, now).await?,
    }

    let mut details: Vec<Detail> = outcomes.iter().flat_map(|outcome| outcome.details.iter().cloned()).collect();
    let advancing: Vec<&Outcome> = outcomes.iter().filter(|outcome| outcome.advances()).collect();
    let queued = queue_next_jobs(conn, &advancing, now).await?;
    let stopping: Vec<Uuid> =
        outcomes.iter().filter(|outcome| outcome.stop_following).map(|outcome| outcome.job.notification_id).collect();
    details.extend(
        close_following_jobs(conn, &stopping, JobStatus::Canceled, now, |_| {
            "Canceled: an earlier step failed and stops the workflow on failure".to_string()
        })
        .await?,
    );
    details.extend(record_merges(conn, &merges, now).await?);
    insert_details(conn, &details, now).await?;
    Ok(Written { queued, inbox_bumps })
}

async fn write_message_updates(
    conn: &mut AsyncPgConnection,
    outcomes: &[Outcome],
    now: DateTime<Utc>,
) -> AppResult<()> {
    let updates: Vec<Value> = outcomes
        .iter()
        .filter_map(|outcome| outcome.message_update.as_ref())
        .map(|update| {
            json!({
                "message_id": update.message_id, "status": update.status, "error_id": update.error_id,
                "error_text": update.error_text, "delivered": update.delivered, "provider_id": update.provider_id,
                "provider_message_id": update.provider_message_id,
            })
        })
        .collect();
    update_from_records(
        conn,
        "UPDATE messages AS m
         SET status = u.status, error_id = u.error_id, error_text = u.error_text, updated_at = $2,
             delivered_at = CASE WHEN u.delivered THEN m.delivered_at || $2 ELSE m.delivered_at END,
             provider_id = COALESCE(u.provider_id, m.provider_id),
             provider_message_id = COALESCE(u.provider_message_id, m.provider_message_id)
         FROM jsonb_to_recordset($1) AS u(message_id uuid, status text, error_id text, error_text text, delivered boolean,
                                          provider_id text, provider_message_id text)
         WHERE m.id = u.message_id",
        updates,
        now,
    )
    .await?;
    Ok(())
}

async fn write_delivery_updates(
    conn: &mut AsyncPgConnection,
    outcomes: &[Outcome],
    now: DateTime<Utc>,
) -> AppResult<()> {
    let updates: Vec<Value> = outcomes
        .iter()
        .filter_map(|outcome| outcome.delivery_update.as_ref())
        .map(|update| {
            json!({
                "delivery_id": update.delivery_id, "status": update.status,
                "provider_message_id": update.provider_message_id, "error": update.error, "raw": update.raw,
            })
        })
        .collect();
    update_from_records(
        conn,
        "UPDATE provider_deliveries AS d
         SET status = u.status, provider_message_id = u.provider_message_id, error = u.error, raw = u.raw,
             finished_at = $2
         FROM jsonb_to_recordset($1)
              AS u(delivery_id uuid, status text, provider_message_id text, error text, raw text)
         WHERE d.id = u.delivery_id",
        updates,
        now,
    )
    .await?;
    Ok(())
}

/// Makes the job after each finished one due; returns how many were queued.
async fn queue_next_jobs(conn: &mut AsyncPgConnection, finished: &[&Outcome], now: DateTime<Utc>) -> AppResult<usize> {
    if finished.is_empty() {
        return Ok(0);
    }
    let notification_ids: Vec<Uuid> = finished.iter().map(|outcome| outcome.job.notification_id).collect();
    let positions: Vec<i32> = finished.iter().map(|outcome| outcome.job.position).collect();
    let queued = diesel::sql_query(
        "UPDATE jobs AS j SET status = 'queued', run_at = $3, updated_at = $3
         FROM unnest($1, $2) AS finished(notification_id, position)
         WHERE j.notification_id = finished.notification_id AND j.position = finished.position + 1
           AND j.status = 'pending'",
    )
    .bind::<Array<SqlUuid>, _>(notification_ids)
    .bind::<Array<Int4>, _>(positions)
    .bind::<Timestamptz, _>(now)
    .execute(conn)
    .await?;
    Ok(queued)
}

/// Points each merged notification at the digest that carries its event, and marks the jobs it still
/// had waiting as merged: they never run.
async fn record_merges(conn: &mut AsyncPgConnection, merges: &[Merge], now: DateTime<Utc>) -> AppResult<Vec<Detail>> {
    if merges.is_empty() {
        return Ok(Vec::new());
    }
    let merged: Vec<Uuid> = merges.iter().map(|merge| merge.notification_id).collect();
    let windows: Vec<Uuid> = merges.iter().map(|merge| merge.window_notification_id).collect();
    update_by_pairs(
        conn,
        "UPDATE notifications AS n SET digested_notification_id = m.window_id, updated_at = $3
         FROM unnest($1, $2) AS m(notification_id, window_id)
         WHERE n.id = m.notification_id",
        (&merged, &windows),
        now,
    )
    .await?;
    let window_of: HashMap<Uuid, Uuid> = merged.iter().copied().zip(windows.iter().copied()).collect();
    close_following_jobs(conn, &merged, JobStatus::Merged, now, |job| {
        format!("Not run: the event was merged into the digest of notification {}", window_of[&job.notification_id])
    })
    .await
}

/// Moves the jobs still waiting in the given notifications to `new_status` (canceled after a failure
/// with `shouldStopOnFail`, merged after a digest merge), each with the detail `reason` gives it.
async fn close_following_jobs(
    conn: &mut AsyncPgConnection,
    notification_ids: &[Uuid],
    new_status: JobStatus,
    now: DateTime<Utc>,
    reason: impl Fn(&Job) -> String,
) -> AppResult<Vec<Detail>> {
    if notification_ids.is_empty() {
        return Ok(Vec::new());
    }
    let closed: Vec<Job> = diesel::update(jobs::table)
        .filter(jobs::notification_id.eq_any(notification_ids))
        .filter(jobs::status.eq(JobStatus::Pending))
        .set((jobs::status.eq(new_status), jobs::updated_at.eq(now)))
        .returning(Job::as_returning())
        .get_results(conn)
        .await?;
    Ok(closed.iter().map(|job| Detail::internal(job, DetailStatus::Warning, reason(job))).collect())
}
