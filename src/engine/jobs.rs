//! The job table as the engine uses it: rows, statuses and the step snapshot a job carries.

use chrono::{DateTime, TimeZone, Utc};
use diesel::prelude::*;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::db::schema::jobs;
use crate::domain::workflows::StepRow;

/// Job statuses (the contract's list).
pub mod status {
    /// Waiting for the job before it.
    pub const PENDING: &str = "pending";
    /// Due: a worker may claim it.
    pub const QUEUED: &str = "queued";
    /// Claimed; `run_at` is the lease expiry.
    pub const RUNNING: &str = "running";
    pub const COMPLETED: &str = "completed";
    pub const FAILED: &str = "failed";
    /// Waiting for a delay or a digest window; `run_at` is when it ends.
    pub const DELAYED: &str = "delayed";
    pub const CANCELED: &str = "canceled";
    /// Merged into another job's digest.
    pub const MERGED: &str = "merged";
    /// Did not run: a filter excluded it.
    pub const SKIPPED: &str = "skipped";
}

/// `run_at` of a job waiting for its predecessor: never due until the predecessor queues it.
pub fn waiting_run_at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(9999, 12, 31, 0, 0, 0).single().expect("a valid date")
}

/// The provider of internal steps (trigger, delay, digest, custom).
pub const INTERNAL_PROVIDER: &str = "svc";

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
    pub kind: String,
    pub position: i32,
    pub status: String,
    pub run_at: DateTime<Utc>,
    pub lease_owner: Option<String>,
    pub attempts: i32,
    pub max_attempts: i32,
    pub provider_id: String,
    pub payload: Value,
    pub overrides: Value,
    pub step: Value,
    pub digest: Option<Value>,
    pub digest_key: Option<String>,
    pub digested_into_job_id: Option<Uuid>,
    pub schedule_extensions_count: i32,
    pub transaction_id: String,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub result: Option<Value>,
}

/// The snapshot of a workflow step a job runs (the activity API's `step`, plus `type`, `stepId` and
/// `shouldStopOnFail` for the engine). Later edits of the workflow do not change running jobs.
pub fn step_snapshot(step: &StepRow) -> Value {
    json!({
        "_id": step.id,
        "_templateId": step.id,
        "_parentId": null,
        "active": step.active,
        "name": step.name,
        "stepId": step.step_id,
        "type": step.kind,
        "filters": step.filters,
        "controlVariables": step.control_values,
        "issues": step.issues,
        "shouldStopOnFail": step.should_stop_on_fail,
    })
}

/// The trigger job's step: the workflow itself.
pub fn trigger_snapshot(workflow_id: Uuid) -> Value {
    json!({
        "_id": workflow_id,
        "_templateId": workflow_id,
        "active": true,
        "name": "trigger",
        "type": "trigger",
        "filters": [],
    })
}

/// What the engine reads back from a snapshot.
pub struct StepView<'a>(pub &'a Value);

impl<'a> StepView<'a> {
    pub fn controls(&self) -> &'a Value {
        &self.0["controlVariables"]
    }

    pub fn filters(&self) -> &'a Value {
        &self.0["filters"]
    }

    pub fn step_id(&self) -> &'a str {
        self.0["stepId"].as_str().unwrap_or_default()
    }

    pub fn should_stop_on_fail(&self) -> bool {
        self.0["shouldStopOnFail"].as_bool().unwrap_or(false)
    }
}
