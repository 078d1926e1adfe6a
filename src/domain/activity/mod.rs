//! Notification events, the activity of triggers: one event per (trigger, subscriber), read back
//! with its subscriber, its workflow, and its jobs in step order, each with its execution details.
//!
//! The engine writes these rows; this module only reads them. Reads never run a query per row: a
//! page is one query, then one batched query each for the subscribers, the workflows (and their
//! steps), the jobs and the execution details of everything on the page.

mod in_app_details;
mod list;
mod load;
mod trigger_job;

pub use list::{list_notifications, EventPage, EventQuery, DEFAULT_LIMIT, JOB_TYPES, MAX_LIMIT, RETENTION_DAYS};
pub use trigger_job::triggered_text;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use crate::db::schema::{execution_details, jobs, notifications, step_snapshots};
use crate::domain::subscribers::Subscriber;
use crate::domain::tenancy::Tenant;
use crate::domain::workflows::StoredWorkflow;
use crate::error::{AppError, AppResult};

/// A notification event row, as the activity API reads it.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = notifications)]
pub struct NotificationRow {
    pub id: Uuid,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub workflow_id: Uuid,
    pub subscriber_id: Uuid,
    pub transaction_id: String,
    pub payload: Value,
    /// The trigger's overrides (shown by its trigger job).
    pub overrides: Value,
    pub tags: Vec<String>,
    pub controls: Value,
    pub to_recipient: Value,
    /// Job types of the event (`trigger` plus each active step's type).
    pub channels: Vec<String>,
    pub severity: String,
    pub critical: bool,
    pub digested_notification_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A job row, as the activity API reads it (the engine's queue columns are left out).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = jobs)]
pub struct ActivityJobRow {
    pub id: Uuid,
    pub notification_id: Uuid,
    #[diesel(column_name = type_)]
    pub kind: String,
    pub position: i32,
    pub status: String,
    pub provider_id: String,
    /// The trigger's, from the job's notification.
    #[diesel(select_expression = notifications::payload)]
    pub payload: Value,
    #[diesel(select_expression = notifications::overrides)]
    pub overrides: Value,
    /// The API's `JobStep` JSON plus engine keys (see docs/engine.md), from the job's snapshot row.
    #[diesel(select_expression = step_snapshots::step)]
    pub step: Value,
    /// The API's `DigestMetadata` JSON (digest jobs).
    pub digest: Option<Value>,
    pub schedule_extensions_count: i32,
    pub updated_at: DateTime<Utc>,
}

/// One recorded stage of a job.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = execution_details)]
pub struct ExecutionDetailRow {
    pub id: Uuid,
    pub job_id: Uuid,
    /// `Success`, `Warning`, `Failed`, `Pending`, `Queued` or `ReadConfirmation`.
    pub status: String,
    pub detail: String,
    /// `Credentials`, `Internal`, `Payload` or `Webhook`.
    pub source: String,
    pub is_retry: bool,
    pub is_test: bool,
    pub provider_id: Option<String>,
    pub raw: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl ExecutionDetailRow {
    /// A stage the activity API renders instead of reading it (a trigger job's, a delivered in-app
    /// message's): the engine's internal success, by `provider_id`, at `created_at`.
    fn rendered(id: Uuid, job_id: Uuid, detail: String, provider_id: &str, created_at: DateTime<Utc>) -> Self {
        Self {
            id,
            job_id,
            // The spellings of the engine's `DetailStatus::Success` and `DetailSource::Internal`.
            status: "Success".to_string(),
            detail,
            source: "Internal".to_string(),
            is_retry: false,
            is_test: false,
            provider_id: Some(provider_id.to_string()),
            raw: None,
            created_at,
        }
    }
}

/// A job with its execution details, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct ActivityJob {
    pub row: ActivityJobRow,
    pub details: Vec<ExecutionDetailRow>,
}

/// A notification event with everything the API shows of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub notification: NotificationRow,
    /// The subscriber (deleted ones too); `None` only if the row vanished, which foreign keys prevent.
    pub subscriber: Option<Subscriber>,
    /// The workflow with its steps (deleted ones too), shared by the events of a page.
    pub workflow: Option<Arc<StoredWorkflow>>,
    /// The jobs in position order, the trigger job first (see [`trigger_job`]).
    pub jobs: Vec<ActivityJob>,
    /// The topics its trigger was sent to (none for a trigger that named only subscribers).
    pub topics: Vec<EventTopic>,
}

/// A topic an event's trigger was sent to: its key as the trigger named it, and its id while the
/// topic exists (a topic deleted since keeps only its key).
#[derive(Debug, Clone, PartialEq)]
pub struct EventTopic {
    pub id: Option<Uuid>,
    pub key: String,
}

fn not_found(notification_id: &str) -> AppError {
    AppError::NotFound(format!("Notification with id {notification_id} not found"))
}

/// The event `notification_id` of the tenant's environment with its jobs and execution details.
/// An id that is not a UUID, or the id of another environment's event, is a 404 like any unknown id.
pub async fn get_notification(conn: &mut AsyncPgConnection, tenant: Tenant, notification_id: &str) -> AppResult<Event> {
    let id = Uuid::parse_str(notification_id).map_err(|_| not_found(notification_id))?;
    let row = notifications::table
        .filter(notifications::environment_id.eq(tenant.environment_id))
        .filter(notifications::id.eq(id))
        .select(NotificationRow::as_select())
        .first(conn)
        .await
        .optional()?
        .ok_or_else(|| not_found(notification_id))?;
    let mut events = load::assemble(conn, tenant, vec![row]).await?;
    events.pop().ok_or_else(|| not_found(notification_id))
}
