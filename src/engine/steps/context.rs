//! Everything a claimed batch needs to run, loaded in one query per table for the whole batch.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::crypto::CredentialCipher;
use crate::db::schema::{jobs, notifications, subscribers, tenants, workflows};
use crate::domain::integrations::{active_integrations_in, Integration};
use crate::domain::preferences::{delivery_preferences, DeliveryPreferences};
use crate::domain::subscribers::Subscriber;
use crate::domain::workflows::WorkflowRow;
use crate::engine::jobs::snapshots::SnapshotCache;
use crate::engine::jobs::Job;
use crate::error::AppResult;
use crate::workflow::{JobKind, JobStatus, StepKind, StepSnapshot};

use super::digest::window_opened;

/// The parts of a notification its jobs read.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = notifications)]
pub struct NotificationFacts {
    pub id: Uuid,
    pub actor_subscriber_id: Option<Uuid>,
    pub tenant_id: Option<Uuid>,
    pub critical: bool,
    /// The job types the notification has: whether it has a digest step.
    pub channels: Vec<String>,
    /// The trigger's payload and overrides, which its jobs run with.
    pub payload: Value,
    pub overrides: Value,
}

/// A finished step of the same notification, as later steps (a custom step) see it.
#[derive(Debug, Clone, PartialEq)]
pub struct StepResult {
    pub position: i32,
    pub step_id: String,
    pub kind: JobKind,
    pub status: JobStatus,
    pub result: Value,
}

/// The context of one batch.
#[derive(Debug, Default)]
pub struct BatchContext {
    /// The step snapshots of the batch's jobs, by id.
    pub steps: HashMap<Uuid, Arc<StepSnapshot>>,
    pub notifications: HashMap<Uuid, NotificationFacts>,
    pub subscribers: HashMap<Uuid, Subscriber>,
    pub tenants: HashMap<Uuid, Value>,
    pub workflows: HashMap<Uuid, WorkflowRow>,
    pub preferences: HashMap<(Uuid, Uuid), DeliveryPreferences>,
    /// Active integrations of the batch's environments, oldest first.
    pub integrations: Vec<Integration>,
    /// Finished steps by notification, in order (loaded only when a custom step is in the batch).
    pub previous_results: HashMap<Uuid, Vec<StepResult>>,
    /// Finished digest jobs by notification: (position, digest metadata), for `step.events`.
    pub digests: HashMap<Uuid, Vec<(i32, Value)>>,
    /// The events of each digest window closing in this batch (by digest job), in arrival order.
    pub digest_events: HashMap<Uuid, Vec<Value>>,
}

/// Rows the caller of [`BatchContext::load`] already holds, which it does not read again: a topic
/// page's new notifications (from their template) and its members (read with the page).
#[derive(Debug, Default)]
pub struct Known {
    pub notifications: Vec<NotificationFacts>,
    pub subscribers: Vec<Subscriber>,
}

impl BatchContext {
    pub async fn load(
        conn: &mut AsyncPgConnection,
        cipher: &CredentialCipher,
        snapshots: &SnapshotCache,
        batch: &[Job],
        known: Known,
    ) -> AppResult<Self> {
        let steps = snapshots.get_all(conn, batch.iter().map(|job| job.step_snapshot_id)).await?;
        let mut notifications = known.notifications;
        let notification_ids = unknown(batch.iter().map(|job| job.notification_id), &notifications, |n| n.id);
        if !notification_ids.is_empty() {
            notifications.extend(
                notifications::table
                    .filter(notifications::id.eq_any(&notification_ids))
                    .select(NotificationFacts::as_select())
                    .load::<NotificationFacts>(conn)
                    .await?,
            );
        }
        let mut subscribers = known.subscribers;
        let subscriber_ids = unknown(
            batch.iter().map(|job| job.subscriber_id).chain(notifications.iter().filter_map(|n| n.actor_subscriber_id)),
            &subscribers,
            |subscriber| subscriber.id,
        );
        if !subscriber_ids.is_empty() {
            subscribers.extend(
                subscribers::table
                    .filter(subscribers::id.eq_any(&subscriber_ids))
                    .select(Subscriber::as_select())
                    .load::<Subscriber>(conn)
                    .await?,
            );
        }
        let tenant_ids: Vec<Uuid> = notifications.iter().filter_map(|n| n.tenant_id).collect();
        let tenants: Vec<(Uuid, String, Option<String>, Option<Value>)> = if tenant_ids.is_empty() {
            Vec::new()
        } else {
            tenants::table
                .filter(tenants::id.eq_any(&tenant_ids))
                .select((tenants::id, tenants::identifier, tenants::name, tenants::data))
                .load(conn)
                .await?
        };
        let workflow_ids: Vec<Uuid> = batch.iter().map(|job| job.workflow_id).collect();
        let workflows: Vec<WorkflowRow> = workflows::table
            .filter(workflows::id.eq_any(&workflow_ids))
            .select(WorkflowRow::as_select())
            .load(conn)
            .await?;
        let is_channel = |job: &Job| job.kind.step().is_some_and(StepKind::is_channel);
        let channel_jobs: Vec<&Job> = batch.iter().filter(|job| is_channel(job)).collect();
        // Delays and digests that extend to the subscriber's schedule read it too.
        let pairs: Vec<(Uuid, Uuid)> = batch
            .iter()
            .filter(|job| {
                is_channel(job) || steps.get(&job.step_snapshot_id).is_some_and(|step| step.extends_to_schedule())
            })
            .map(|job| (job.subscriber_id, job.workflow_id))
            .collect();
        let preferences = if pairs.is_empty() { HashMap::new() } else { delivery_preferences(conn, &pairs).await? };
        let needs_providers = channel_jobs.iter().any(|job| job.kind != JobKind::Step(StepKind::InApp));
        let integrations = if channel_jobs.is_empty() {
            Vec::new()
        } else {
            let mut environment_ids: Vec<Uuid> = channel_jobs.iter().map(|job| job.environment_id).collect();
            environment_ids.dedup();
            let all = active_integrations_in(conn, cipher, &environment_ids).await?;
            if needs_providers {
                all
            } else {
                all.into_iter().filter(|integration| integration.row.channel == StepKind::InApp.as_str()).collect()
            }
        };
        let custom: Vec<Uuid> = batch
            .iter()
            .filter(|job| job.kind == JobKind::Step(StepKind::Custom))
            .map(|job| job.notification_id)
            .collect();
        let previous_results =
            if custom.is_empty() { HashMap::new() } else { load_results(conn, snapshots, &custom).await? };
        let after_digest: Vec<Uuid> = notifications
            .iter()
            .filter(|n| n.channels.iter().any(|channel| channel == StepKind::Digest.as_str()))
            .map(|n| n.id)
            .collect();
        let digests = if after_digest.is_empty() { HashMap::new() } else { load_digests(conn, &after_digest).await? };
        let closing: Vec<Uuid> = batch
            .iter()
            .filter(|job| job.kind == JobKind::Step(StepKind::Digest) && window_opened(job.result.as_ref()))
            .map(|job| job.id)
            .collect();
        let digest_events =
            if closing.is_empty() { HashMap::new() } else { load_digest_events(conn, &closing).await? };
        Ok(Self {
            steps,
            notifications: notifications.into_iter().map(|n| (n.id, n)).collect(),
            subscribers: subscribers.into_iter().map(|s| (s.id, s)).collect(),
            tenants: tenants
                .into_iter()
                .map(|(id, identifier, name, data)| (id, json!({"identifier": identifier, "name": name, "data": data})))
                .collect(),
            workflows: workflows.into_iter().map(|w| (w.id, w)).collect(),
            preferences,
            integrations,
            previous_results,
            digests,
            digest_events,
        })
    }
}

/// The ids of `wanted` that no row of `known` has.
fn unknown<T>(wanted: impl Iterator<Item = Uuid>, known: &[T], id: impl Fn(&T) -> Uuid) -> Vec<Uuid> {
    let known: HashSet<Uuid> = known.iter().map(id).collect();
    wanted.filter(|wanted| !known.contains(wanted)).collect()
}

async fn load_results(
    conn: &mut AsyncPgConnection,
    snapshots: &SnapshotCache,
    notification_ids: &[Uuid],
) -> AppResult<HashMap<Uuid, Vec<StepResult>>> {
    let rows: Vec<(Uuid, i32, JobKind, JobStatus, Uuid, Option<Value>)> = jobs::table
        .filter(jobs::notification_id.eq_any(notification_ids))
        .filter(jobs::position.gt(0))
        .filter(jobs::result.is_not_null())
        .order((jobs::notification_id, jobs::position))
        .select((
            jobs::notification_id,
            jobs::position,
            jobs::type_,
            jobs::status,
            jobs::step_snapshot_id,
            jobs::result,
        ))
        .load(conn)
        .await?;
    let steps = snapshots.get_all(conn, rows.iter().map(|row| row.4)).await?;
    let mut results: HashMap<Uuid, Vec<StepResult>> = HashMap::new();
    for (notification_id, position, kind, status, step_snapshot_id, result) in rows {
        if let Some(result) = result {
            let step_id = steps.get(&step_snapshot_id).map(|step| step.step_id().to_string()).unwrap_or_default();
            results.entry(notification_id).or_default().push(StepResult { position, step_id, kind, status, result });
        }
    }
    Ok(results)
}

async fn load_digests(
    conn: &mut AsyncPgConnection,
    notification_ids: &[Uuid],
) -> AppResult<HashMap<Uuid, Vec<(i32, Value)>>> {
    let rows: Vec<(Uuid, i32, Option<Value>)> = jobs::table
        .filter(jobs::notification_id.eq_any(notification_ids))
        .filter(jobs::type_.eq(JobKind::Step(StepKind::Digest)))
        .filter(jobs::status.eq_any([JobStatus::Completed, JobStatus::Skipped]))
        .select((jobs::notification_id, jobs::position, jobs::digest))
        .load(conn)
        .await?;
    let mut digests: HashMap<Uuid, Vec<(i32, Value)>> = HashMap::new();
    for (notification_id, position, digest) in rows {
        digests.entry(notification_id).or_default().push((position, digest.unwrap_or(Value::Null)));
    }
    Ok(digests)
}

/// The payloads of each window: the digest job's own and those merged into it, in arrival order (the
/// order the triggers were accepted in).
async fn load_digest_events(
    conn: &mut AsyncPgConnection,
    window_job_ids: &[Uuid],
) -> AppResult<HashMap<Uuid, Vec<Value>>> {
    let rows: Vec<(Uuid, Option<Uuid>, Value)> = jobs::table
        .inner_join(notifications::table.on(notifications::id.eq(jobs::notification_id)))
        .filter(jobs::id.eq_any(window_job_ids).or(jobs::digested_into_job_id.eq_any(window_job_ids)))
        .order((jobs::created_at, jobs::id))
        .select((jobs::id, jobs::digested_into_job_id, notifications::payload))
        .load(conn)
        .await?;
    let mut events: HashMap<Uuid, Vec<Value>> = HashMap::new();
    for (id, window, payload) in rows {
        events.entry(window.unwrap_or(id)).or_default().push(payload);
    }
    Ok(events)
}

/// A subscriber as templates, filters and the custom step see it: the API's field names.
pub fn subscriber_view(subscriber: &Subscriber) -> Value {
    json!({
        "_id": subscriber.id,
        "subscriberId": subscriber.subscriber_id,
        "firstName": subscriber.first_name,
        "lastName": subscriber.last_name,
        "email": subscriber.email,
        "phone": subscriber.phone,
        "avatar": subscriber.avatar,
        "locale": subscriber.locale,
        "timezone": subscriber.timezone,
        "data": subscriber.data.clone().unwrap_or_else(|| json!({})),
    })
}
