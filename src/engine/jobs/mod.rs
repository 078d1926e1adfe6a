//! The job table as the engine uses it. Kinds, statuses and the step snapshot are the workflow
//! model's types (`crate::workflow`); a job names its snapshot, which [`snapshots`] reads.

pub mod snapshots;

use std::collections::HashSet;

use chrono::{DateTime, TimeZone, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use crate::db::schema::jobs;
use crate::workflow::{JobKind, JobStatus};

/// `run_at` of a job waiting for its predecessor: never due until the predecessor queues it.
pub fn waiting_run_at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(9999, 12, 31, 0, 0, 0).single().expect("a valid date")
}

/// A job row.
#[derive(Debug, Clone, PartialEq, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = jobs)]
pub struct Job {
    pub id: Uuid,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub notification_id: Uuid,
    pub subscriber_id: Uuid,
    pub workflow_id: Uuid,
    pub step_id: Option<Uuid>,
    #[diesel(column_name = type_)]
    pub kind: JobKind,
    pub position: i32,
    pub status: JobStatus,
    pub run_at: DateTime<Utc>,
    pub lease_owner: Option<String>,
    pub attempts: i32,
    pub max_attempts: i32,
    pub provider_id: String,
    pub digest: Option<Value>,
    pub digest_key: Option<String>,
    pub digested_into_job_id: Option<Uuid>,
    pub schedule_extensions_count: i32,
    pub transaction_id: String,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub result: Option<Value>,
    /// The triggering request's W3C `traceparent` (`None` when tracing was off), inherited by every job
    /// of the trigger.
    pub traceparent: Option<String>,
    /// The snapshot of the step the job runs (`step_snapshots`).
    pub step_snapshot_id: Uuid,
}

/// Which of `ids` are still running under `owner`'s lease, locked until the transaction ends: only
/// those may be written by that worker (a job whose lease expired belongs to whoever claimed it since).
pub async fn lock_leased(conn: &mut AsyncPgConnection, ids: &[Uuid], owner: &str) -> QueryResult<HashSet<Uuid>> {
    let leased: Vec<Uuid> = jobs::table
        .filter(jobs::id.eq_any(ids))
        .filter(jobs::lease_owner.eq(owner))
        .filter(jobs::status.eq(JobStatus::Running))
        .select(jobs::id)
        .for_update()
        .load(conn)
        .await?;
    Ok(leased.into_iter().collect())
}
