//! The rows one stored trigger becomes: a notification per recipient, each with its trigger job (due
//! now) and a job per active step (waiting for the one before).

use std::collections::HashMap;

use serde_json::{json, Value};
use uuid::Uuid;

use super::request::Recipient;
use super::store::NewNotification;
use super::PreparedTrigger;
use crate::engine::jobs::{self, Job};
use crate::engine::steps::digest_key_value;
use crate::workflow::controls::{read, DigestControls};
use crate::workflow::{JobKind, JobStatus, StepKind, StepSnapshot};

/// Internal subscriber ids by (environment, subscriberId), as the batch's upsert returned them.
pub type SubscriberIds = HashMap<(Uuid, String), Uuid>;

/// The notifications and jobs of `trigger`, appended to `notifications` and `jobs`.
pub fn fanout_rows(
    trigger: &PreparedTrigger,
    subscriber_ids: &SubscriberIds,
    tenant_id: Option<Uuid>,
    notifications: &mut Vec<NewNotification>,
    jobs: &mut Vec<Job>,
) {
    let environment_id = trigger.tenant.environment_id;
    let id_of = |subscriber_id: &str| subscriber_ids[&(environment_id, subscriber_id.to_string())];
    let workflow = &trigger.workflow.workflow;
    let steps: Vec<_> = trigger.workflow.steps.iter().filter(|step| step.active).collect();
    let mut channels = vec![JobKind::Trigger.as_str().to_string()];
    for step in &steps {
        if !channels.iter().any(|channel| channel == step.kind.as_str()) {
            channels.push(step.kind.as_str().to_string());
        }
    }
    let actor_id = trigger.actor.as_ref().map(|actor| id_of(&actor.subscriber_id));
    for recipient in &trigger.recipients {
        let notification_id = Uuid::now_v7();
        let subscriber_id = id_of(&recipient.subscriber_id);
        notifications.push(NewNotification {
            id: notification_id,
            environment_id,
            organization_id: trigger.tenant.organization_id,
            workflow_id: workflow.id,
            subscriber_id,
            transaction_id: trigger.transaction_id.clone(),
            payload: trigger.payload.clone(),
            overrides: trigger.overrides.clone(),
            actor_subscriber_id: actor_id,
            tenant_id,
            tags: workflow.tags.clone(),
            to_recipient: recipient_as_sent(&trigger.to, &recipient.subscriber_id),
            channels: channels.clone(),
            severity: workflow.severity.clone(),
            critical: workflow.critical,
            created_at: trigger.now,
            updated_at: trigger.now,
        });
        let job = |position: usize, kind: JobKind, step_id: Option<Uuid>, step: StepSnapshot| Job {
            id: Uuid::now_v7(),
            environment_id,
            organization_id: trigger.tenant.organization_id,
            notification_id,
            subscriber_id,
            workflow_id: workflow.id,
            step_id,
            kind,
            position: position as i32,
            status: if position == 0 { JobStatus::Queued } else { JobStatus::Pending },
            run_at: if position == 0 { trigger.now } else { jobs::waiting_run_at() },
            lease_owner: None,
            attempts: 0,
            max_attempts: crate::providers::DEFAULT_MAX_ATTEMPTS as i32,
            provider_id: jobs::INTERNAL_PROVIDER.to_string(),
            payload: trigger.payload.clone(),
            overrides: trigger.overrides.clone(),
            step,
            digest: None,
            digest_key: None,
            digested_into_job_id: None,
            schedule_extensions_count: 0,
            transaction_id: trigger.transaction_id.clone(),
            error: None,
            created_at: trigger.now,
            updated_at: trigger.now,
            result: None,
        };
        jobs.push(job(0, JobKind::Trigger, None, StepSnapshot::trigger(workflow.id)));
        for (index, step) in steps.iter().enumerate() {
            let mut step_job = job(index + 1, JobKind::Step(step.kind), Some(step.id), StepSnapshot::from(*step));
            // Known now, so a backoff digest sees every event of its key triggered before it.
            if step.kind == StepKind::Digest {
                let controls: DigestControls = read(&step.control_values);
                step_job.digest_key = Some(digest_key_value(&controls, &trigger.payload));
            }
            jobs.push(step_job);
        }
    }
}

/// The `to` entry of a recipient as the client sent it (the activity API's `to`).
fn recipient_as_sent(to: &[Recipient], subscriber_id: &str) -> Value {
    let sent = to.iter().rev().find_map(|recipient| match recipient {
        Recipient::Subscriber(input) if input.subscriber_id == subscriber_id => Some(json!(input)),
        _ => None,
    });
    sent.unwrap_or_else(|| json!({ "subscriberId": subscriber_id }))
}
