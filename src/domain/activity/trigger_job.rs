//! A notification's trigger job, as the activity API shows it: its first job, completed when the
//! notification was stored, with one "Triggered" execution detail.
//!
//! It is not stored. Everything it shows is the notification's own (payload, overrides, workflow,
//! creation time), and the row and its detail were two of the five rows a one-recipient trigger
//! wrote, on the two costliest inserts of the trigger path (docs/performance.md). Notifications stored
//! before then keep their stored trigger job, which is shown instead of this one.

use uuid::Uuid;

use super::{ActivityJob, ActivityJobRow, ExecutionDetailRow, NotificationRow};
use crate::workflow::{JobKind, JobStatus, StepSnapshot, INTERNAL_PROVIDER};

/// The text of a trigger job's execution detail.
pub fn triggered_text(workflow_identifier: Option<&str>, subscriber_key: Option<&str>) -> String {
    let workflow =
        workflow_identifier.map_or("the workflow".to_string(), |identifier| format!("workflow {identifier}"));
    let subscriber = subscriber_key.map_or(String::new(), |key| format!(" for subscriber {key}"));
    format!("Triggered {workflow}{subscriber}")
}

/// The trigger job of `notification`. Its id and its detail's are derived from the notification's
/// (name-based UUIDs), so they are the same on every read.
pub(super) fn trigger_job(
    notification: &NotificationRow,
    workflow_identifier: Option<&str>,
    subscriber_key: Option<&str>,
) -> ActivityJob {
    let job_id = Uuid::new_v5(&notification.id, b"trigger job");
    let step = StepSnapshot::trigger(notification.workflow_id);
    let row = ActivityJobRow {
        id: job_id,
        notification_id: notification.id,
        kind: JobKind::Trigger.as_str().to_string(),
        position: 0,
        status: JobStatus::Completed.as_str().to_string(),
        provider_id: INTERNAL_PROVIDER.to_string(),
        payload: notification.payload.clone(),
        overrides: notification.overrides.clone(),
        step: serde_json::to_value(step).expect("a step snapshot serializes"),
        digest: None,
        schedule_extensions_count: 0,
        updated_at: notification.created_at,
    };
    let detail = ExecutionDetailRow::rendered(
        Uuid::new_v5(&notification.id, b"trigger job detail"),
        job_id,
        triggered_text(workflow_identifier, subscriber_key),
        INTERNAL_PROVIDER,
        notification.created_at,
    );
    ActivityJob { row, details: vec![detail] }
}
