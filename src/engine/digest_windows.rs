//! Digest windows in the job table, shared by the worker and the trigger's cancel. While a batch's
//! outcomes are written, windows are decided: Each digest job of the batch that asks
//! for its key's window (a [`DigestArrival`]) merges into the key's open window, opens one, or (a
//! backoff digest with no recent event) goes on at once.
//!
//! No race: the decisions for one key are serialised by a transaction-level advisory lock on the key,
//! taken in sorted order so two batches cannot deadlock. The open window's row is locked as well, so the
//! worker closing it (claims skip locked rows) cannot take it while an event is merged in, and a window
//! already claimed is no longer `delayed`, hence no longer open: the next event opens a new one. The
//! `jobs_open_digest_key` unique index backs this up.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::json;
use uuid::Uuid;

use crate::db::batch::update_by_pairs;
use crate::db::schema::jobs;
use crate::engine::details::{Detail, DetailStatus};
use crate::engine::jobs::Job;
use crate::engine::steps::Outcome;
use crate::error::AppResult;
use crate::workflow::{JobKind, JobStatus, StepKind};

/// One digest window: (environment, workflow, step, subscriber, key value).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct WindowKey {
    environment_id: Uuid,
    workflow_id: Uuid,
    step_id: Uuid,
    subscriber_id: Uuid,
    key: String,
}

impl WindowKey {
    fn of(outcome: &Outcome) -> Option<Self> {
        let arrival = outcome.digest_arrival.as_ref()?;
        let job = &outcome.job;
        Some(Self {
            environment_id: job.environment_id,
            workflow_id: job.workflow_id,
            step_id: job.step_id?,
            subscriber_id: job.subscriber_id,
            key: arrival.key.clone(),
        })
    }

    fn lock_name(&self) -> String {
        format!(
            "digest/{}/{}/{}/{}/{}",
            self.environment_id, self.workflow_id, self.step_id, self.subscriber_id, self.key
        )
    }
}

/// An open window: its digest job and that job's notification.
#[derive(Debug, Clone, Copy, QueryableByName)]
struct OpenWindow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    notification_id: Uuid,
}

/// A notification whose event went into another notification's digest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Merge {
    pub notification_id: Uuid,
    pub window_notification_id: Uuid,
}

/// Decides the window of every arriving digest job in `outcomes` (rewriting merged and backoff-skipped
/// ones) and returns the notifications merged into other digests. Runs in the batch's transaction.
pub async fn resolve_arrivals(conn: &mut AsyncPgConnection, outcomes: &mut [Outcome]) -> AppResult<Vec<Merge>> {
    let mut arriving: Vec<(usize, WindowKey)> =
        outcomes.iter().enumerate().filter_map(|(index, outcome)| Some((index, WindowKey::of(outcome)?))).collect();
    if arriving.is_empty() {
        return Ok(Vec::new());
    }
    let mut keys: Vec<WindowKey> = arriving.iter().map(|(_, key)| key.clone()).collect();
    keys.sort();
    keys.dedup();
    lock_keys(conn, &keys).await?;
    let mut open = open_windows(conn, &keys).await?;
    let recent = recent_elsewhere(conn, outcomes, &arriving).await?;

    // In arrival order: the earliest event of a key opens its window and the later ones join it.
    arriving.sort_by_key(|(index, _)| (outcomes[*index].job.created_at, outcomes[*index].job.id));
    let mut merges = Vec::new();
    for (index, key) in arriving {
        let outcome = &mut outcomes[index];
        if let Some(window) = open.get(&key) {
            merges.push(Merge {
                notification_id: outcome.job.notification_id,
                window_notification_id: window.notification_id,
            });
            merge_into(outcome, window);
            continue;
        }
        let backoff = outcome.digest_arrival.as_ref().is_some_and(|arrival| arrival.recent_since.is_some());
        if backoff && !recent.contains(&outcome.job.id) {
            go_on_at_once(outcome);
            continue;
        }
        open.insert(key, OpenWindow { id: outcome.job.id, notification_id: outcome.job.notification_id });
    }
    Ok(merges)
}

async fn lock_keys(conn: &mut AsyncPgConnection, keys: &[WindowKey]) -> AppResult<()> {
    let names: Vec<String> = keys.iter().map(WindowKey::lock_name).collect();
    diesel::sql_query(
        "SELECT pg_advisory_xact_lock(hash)
         FROM (SELECT DISTINCT hashtextextended(name, 0) AS hash FROM unnest($1::text[]) AS name ORDER BY hash) AS keys",
    )
    .bind::<Array<Text>, _>(names)
    .execute(conn)
    .await?;
    Ok(())
}

/// The keys' open windows, locked (through `jobs_open_digest_key`).
async fn open_windows(conn: &mut AsyncPgConnection, keys: &[WindowKey]) -> AppResult<HashMap<WindowKey, OpenWindow>> {
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(embed)]
        window: OpenWindow,
        #[diesel(sql_type = Text)]
        digest_key: String,
        #[diesel(sql_type = SqlUuid)]
        environment_id: Uuid,
        #[diesel(sql_type = SqlUuid)]
        workflow_id: Uuid,
        #[diesel(sql_type = SqlUuid)]
        step_id: Uuid,
        #[diesel(sql_type = SqlUuid)]
        subscriber_id: Uuid,
    }
    let rows: Vec<Row> = diesel::sql_query(
        "SELECT j.id, j.notification_id, j.digest_key, j.environment_id, j.workflow_id, j.step_id, j.subscriber_id
         FROM jobs AS j, unnest($1, $2, $3, $4, $5) AS k(environment_id, workflow_id, step_id, subscriber_id, digest_key)
         WHERE j.type = 'digest' AND j.status = 'delayed'
           AND j.environment_id = k.environment_id AND j.workflow_id = k.workflow_id AND j.step_id = k.step_id
           AND j.subscriber_id = k.subscriber_id AND j.digest_key = k.digest_key
         FOR UPDATE OF j",
    )
    .bind::<Array<SqlUuid>, _>(keys.iter().map(|key| key.environment_id).collect::<Vec<_>>())
    .bind::<Array<SqlUuid>, _>(keys.iter().map(|key| key.workflow_id).collect::<Vec<_>>())
    .bind::<Array<SqlUuid>, _>(keys.iter().map(|key| key.step_id).collect::<Vec<_>>())
    .bind::<Array<SqlUuid>, _>(keys.iter().map(|key| key.subscriber_id).collect::<Vec<_>>())
    .bind::<Array<Text>, _>(keys.iter().map(|key| key.key.clone()).collect::<Vec<_>>())
    .load(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let key = WindowKey {
                environment_id: row.environment_id,
                workflow_id: row.workflow_id,
                step_id: row.step_id,
                subscriber_id: row.subscriber_id,
                key: row.digest_key,
            };
            (key, row.window)
        })
        .collect())
}

/// The backoff arrivals (by job id) with a recent event of their key: a digest job of the key created in
/// the look-back window before them. Digest jobs get their key when the trigger stores them, so this sees
/// every earlier event, whether its digest step has run yet or not.
async fn recent_elsewhere(
    conn: &mut AsyncPgConnection,
    outcomes: &[Outcome],
    arriving: &[(usize, WindowKey)],
) -> AppResult<HashSet<Uuid>> {
    let backoff: Vec<(&Outcome, &WindowKey, DateTime<Utc>)> = arriving
        .iter()
        .filter_map(|(index, key)| {
            let outcome = &outcomes[*index];
            Some((outcome, key, outcome.digest_arrival.as_ref()?.recent_since?))
        })
        .collect();
    if backoff.is_empty() {
        return Ok(HashSet::new());
    }
    #[derive(QueryableByName)]
    struct Recent {
        #[diesel(sql_type = SqlUuid)]
        job_id: Uuid,
    }
    let recent: Vec<Recent> = diesel::sql_query(
        "SELECT k.job_id
         FROM unnest($1, $2, $3, $4, $5, $6, $7, $8)
              AS k(environment_id, workflow_id, step_id, subscriber_id, digest_key, job_id, created_at, since)
         WHERE EXISTS (
             SELECT 1 FROM jobs AS j
             WHERE j.type = 'digest' AND j.environment_id = k.environment_id AND j.workflow_id = k.workflow_id
               AND j.step_id = k.step_id AND j.subscriber_id = k.subscriber_id AND j.digest_key = k.digest_key
               AND j.created_at >= k.since AND (j.created_at, j.id) < (k.created_at, k.job_id))",
    )
    .bind::<Array<SqlUuid>, _>(backoff.iter().map(|(_, key, _)| key.environment_id).collect::<Vec<_>>())
    .bind::<Array<SqlUuid>, _>(backoff.iter().map(|(_, key, _)| key.workflow_id).collect::<Vec<_>>())
    .bind::<Array<SqlUuid>, _>(backoff.iter().map(|(_, key, _)| key.step_id).collect::<Vec<_>>())
    .bind::<Array<SqlUuid>, _>(backoff.iter().map(|(_, key, _)| key.subscriber_id).collect::<Vec<_>>())
    .bind::<Array<Text>, _>(backoff.iter().map(|(_, key, _)| key.key.clone()).collect::<Vec<_>>())
    .bind::<Array<SqlUuid>, _>(backoff.iter().map(|(outcome, _, _)| outcome.job.id).collect::<Vec<_>>())
    .bind::<Array<Timestamptz>, _>(backoff.iter().map(|(outcome, _, _)| outcome.job.created_at).collect::<Vec<_>>())
    .bind::<Array<Timestamptz>, _>(backoff.iter().map(|(_, _, since)| *since).collect::<Vec<_>>())
    .load(conn)
    .await?;
    Ok(recent.into_iter().map(|recent| recent.job_id).collect())
}

/// The job joins `window`: it is done, and its notification stops here (the window's carries the event).
fn merge_into(outcome: &mut Outcome, window: &OpenWindow) {
    outcome.status = JobStatus::Merged;
    outcome.run_at = None;
    outcome.result = None;
    outcome.schedule_extensions = None;
    outcome.digested_into = Some(window.id);
    let detail = format!("Merged into the open digest window of notification {}", window.notification_id);
    outcome.details = vec![Detail::internal(&outcome.job, DetailStatus::Success, detail)];
}

/// A backoff digest with no recent event: the step is skipped and the event goes on at once, alone.
fn go_on_at_once(outcome: &mut Outcome) {
    outcome.status = JobStatus::Skipped;
    outcome.run_at = None;
    outcome.result = Some(json!({ "total_count": 1 }));
    outcome.schedule_extensions = None;
    let detail = "No event in the backoff look-back window: the digest is skipped and the event goes on at once";
    outcome.details = vec![Detail::internal(&outcome.job, DetailStatus::Success, detail)];
}

/// Takes the window locks of `jobs` (a canceled trigger's digest jobs) before they are canceled, so no
/// event merges into a window while it changes hands. The order (key locks, then rows) is the commit's.
pub async fn lock_windows_of(conn: &mut AsyncPgConnection, jobs: &[Job]) -> AppResult<()> {
    let mut keys: Vec<WindowKey> = jobs
        .iter()
        .filter(|job| job.kind == JobKind::Step(StepKind::Digest))
        .filter_map(|job| {
            Some(WindowKey {
                environment_id: job.environment_id,
                workflow_id: job.workflow_id,
                step_id: job.step_id?,
                subscriber_id: job.subscriber_id,
                key: job.digest_key.clone()?,
            })
        })
        .collect();
    keys.sort();
    keys.dedup();
    if keys.is_empty() {
        return Ok(());
    }
    lock_keys(conn, &keys).await
}

/// After open windows were canceled (their trigger was): each window with events merged into it passes to
/// the earliest of them, which takes the window's end and goes on as its owner, so those events are
/// still delivered. Returns the new owners' details.
pub async fn hand_over_windows(
    conn: &mut AsyncPgConnection,
    windows: &[Job],
    now: DateTime<Utc>,
) -> AppResult<Vec<Detail>> {
    let window_ids: Vec<Uuid> =
        windows.iter().filter(|job| job.kind == JobKind::Step(StepKind::Digest)).map(|job| job.id).collect();
    if window_ids.is_empty() {
        return Ok(Vec::new());
    }
    // The earliest merged job of each window inherits it: `delayed` until the window's end.
    #[derive(QueryableByName)]
    struct Heir {
        #[diesel(embed)]
        job: Job,
        #[diesel(sql_type = SqlUuid)]
        window_id: Uuid,
    }
    let heirs: Vec<Heir> = diesel::sql_query(
        "WITH heir AS (
             SELECT DISTINCT ON (m.digested_into_job_id) m.id, m.digested_into_job_id AS window_id
             FROM jobs AS m WHERE m.digested_into_job_id = ANY($1)
             ORDER BY m.digested_into_job_id, m.created_at, m.id
         )
         UPDATE jobs AS j
         SET status = 'delayed', digested_into_job_id = NULL, run_at = w.run_at, result = w.result,
             schedule_extensions_count = w.schedule_extensions_count, updated_at = $2
         FROM heir, jobs AS w
         WHERE j.id = heir.id AND w.id = heir.window_id
         RETURNING j.*, j.type AS type_, heir.window_id",
    )
    .bind::<Array<SqlUuid>, _>(&window_ids)
    .bind::<Timestamptz, _>(now)
    .load(conn)
    .await?;
    if heirs.is_empty() {
        return Ok(Vec::new());
    }
    let windows_by_id: HashMap<Uuid, &Job> = windows.iter().map(|window| (window.id, window)).collect();
    let window_of_heir: HashMap<Uuid, &Job> =
        heirs.iter().map(|heir| (heir.job.id, windows_by_id[&heir.window_id])).collect();
    let heirs: Vec<Job> = heirs.into_iter().map(|heir| heir.job).collect();
    let heir_ids: Vec<Uuid> = heirs.iter().map(|heir| heir.id).collect();
    let old_windows: Vec<Uuid> = heirs.iter().map(|heir| window_of_heir[&heir.id].id).collect();
    let heir_notifications: Vec<Uuid> = heirs.iter().map(|heir| heir.notification_id).collect();
    let old_notifications: Vec<Uuid> = heirs.iter().map(|heir| window_of_heir[&heir.id].notification_id).collect();
    // The window's other events now belong to the heir, and so do their notifications.
    update_by_pairs(
        conn,
        "UPDATE jobs AS m SET digested_into_job_id = h.heir_id, updated_at = $3
         FROM unnest($1, $2) AS h(window_id, heir_id)
         WHERE m.digested_into_job_id = h.window_id",
        (&old_windows, &heir_ids),
        now,
    )
    .await?;
    update_by_pairs(
        conn,
        "UPDATE notifications AS n
         SET digested_notification_id = CASE WHEN n.id = h.heir_notification THEN NULL ELSE h.heir_notification END,
             updated_at = $3
         FROM unnest($1, $2) AS h(window_notification, heir_notification)
         WHERE n.digested_notification_id = h.window_notification",
        (&old_notifications, &heir_notifications),
        now,
    )
    .await?;
    // The heir's own later steps, merged away when it joined the window, wait again for it.
    diesel::update(jobs::table)
        .filter(jobs::notification_id.eq_any(&heir_notifications))
        .filter(jobs::status.eq(JobStatus::Merged))
        .filter(jobs::digested_into_job_id.is_null())
        .set((jobs::status.eq(JobStatus::Pending), jobs::updated_at.eq(now)))
        .execute(conn)
        .await?;
    Ok(heirs
        .iter()
        .map(|heir| {
            let detail = format!(
                "The digest window now belongs to this event: the trigger that opened it (notification {}) was \
                 canceled",
                window_of_heir[&heir.id].notification_id
            );
            Detail::internal(heir, DetailStatus::Pending, detail)
        })
        .collect())
}
