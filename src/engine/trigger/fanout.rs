//! The rows one stored trigger becomes: a notification per recipient, each with a job per active step.
//! The first step is due at once; the later steps wait for the one before. The trigger job, which only
//! records the trigger, is not stored: the activity API renders it, completed with its "Triggered"
//! detail, from the notification (`domain::activity`). What every recipient's rows share is an [`EventTemplate`]: built once
//! per trigger, used at once for the direct recipients, and stored with a topic fan-out so that the
//! members reached later get the event as it was triggered. The database builds the rows from it
//! ([`super::expand`]).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use uuid::Uuid;

use super::expand::Recipients;
use super::request::{Recipient, SubscriberInput};
use super::PreparedTrigger;
use crate::domain::tenancy::Tenant;
use crate::engine::steps::context::NotificationFacts;
use crate::engine::steps::digest_key_value;
use crate::workflow::controls::{read, DigestControls};
use crate::workflow::{JobKind, SharedSnapshot, StepKind};

/// Internal subscriber ids by (environment, subscriberId), as the batch's upsert returned them.
pub type SubscriberIds = HashMap<(Uuid, String), Uuid>;

/// What the notification and jobs of every recipient of one trigger share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventTemplate {
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub transaction_id: String,
    pub workflow_id: Uuid,
    /// The workflow's identifier, for the trigger job's detail (empty in templates stored before it was kept).
    #[serde(default)]
    pub workflow_identifier: String,
    pub payload: Value,
    pub overrides: Value,
    pub actor_subscriber_id: Option<Uuid>,
    pub tenant_id: Option<Uuid>,
    pub tags: Vec<String>,
    pub channels: Vec<String>,
    pub severity: String,
    pub critical: bool,
    /// When the trigger was accepted: the time of every notification and first job.
    pub accepted_at: DateTime<Utc>,
    /// One per active step, in position order (a template stored with a topic fan-out by an earlier
    /// build also held the trigger job, first: it is left out when read).
    #[serde(deserialize_with = "steps_only")]
    pub jobs: Vec<JobTemplate>,
    /// The triggering request's W3C `traceparent`, given to every job (absent from fan-outs stored
    /// before traces existed).
    #[serde(default)]
    pub traceparent: Option<String>,
}

/// One job of every recipient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobTemplate {
    /// `JobKind` by its stored spelling.
    pub kind: String,
    pub step_id: Option<Uuid>,
    pub step: SharedSnapshot,
    pub digest_key: Option<String>,
}

impl EventTemplate {
    /// The template of `trigger`, whose actor (if any) and tenant have these internal ids.
    pub fn of(trigger: &PreparedTrigger, actor_subscriber_id: Option<Uuid>, tenant_id: Option<Uuid>) -> Self {
        let workflow = &trigger.workflow.stored.workflow;
        let steps: Vec<_> = (trigger.workflow.stored.steps.iter().zip(&trigger.workflow.snapshots))
            .filter(|(step, _)| step.active)
            .collect();
        let mut channels = vec![JobKind::Trigger.as_str().to_string()];
        for (step, _) in &steps {
            if !channels.iter().any(|channel| channel == step.kind.as_str()) {
                channels.push(step.kind.as_str().to_string());
            }
        }
        let jobs = steps
            .iter()
            .map(|(step, snapshot)| JobTemplate {
                kind: JobKind::Step(step.kind).as_str().to_string(),
                step_id: Some(step.id),
                step: (*snapshot).clone(),
                // Known now, so a backoff digest sees every event of its key triggered before it.
                digest_key: (step.kind == StepKind::Digest)
                    .then(|| digest_key_value(&read::<DigestControls>(&step.control_values), &trigger.payload)),
            })
            .collect();
        Self {
            environment_id: trigger.tenant.environment_id,
            organization_id: trigger.tenant.organization_id,
            transaction_id: trigger.transaction_id.clone(),
            workflow_id: workflow.id,
            workflow_identifier: workflow.identifier.clone(),
            payload: trigger.payload.clone(),
            overrides: trigger.overrides.clone(),
            actor_subscriber_id,
            tenant_id,
            tags: workflow.tags.clone(),
            channels,
            severity: workflow.severity.clone(),
            critical: workflow.critical,
            accepted_at: trigger.now,
            jobs,
            traceparent: trigger.traceparent.clone(),
        }
    }

    /// What the jobs of notification `id`, stored from this template, read of it.
    pub fn notification_facts(&self, id: Uuid) -> NotificationFacts {
        NotificationFacts {
            id,
            actor_subscriber_id: self.actor_subscriber_id,
            tenant_id: self.tenant_id,
            critical: self.critical,
            channels: self.channels.clone(),
            payload: self.payload.clone(),
            overrides: self.overrides.clone(),
        }
    }
}

/// Reads a template's jobs without the trigger job an earlier build stored first.
fn steps_only<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<JobTemplate>, D::Error> {
    let mut jobs = Vec::<JobTemplate>::deserialize(deserializer)?;
    jobs.retain(|job| job.kind != JobKind::Trigger.as_str());
    Ok(jobs)
}

/// The recipients and actors of stored triggers, one per (environment, subscriberId), later fields over
/// earlier ones (as if the triggers had run one after the other): what their batch upserts.
pub fn subscriber_upserts(stored: &[&PreparedTrigger]) -> Vec<(Tenant, SubscriberInput)> {
    let mut upserts: Vec<(Tenant, SubscriberInput)> = Vec::new();
    let mut index_of: HashMap<(Uuid, String), usize> = HashMap::new();
    for trigger in stored {
        for input in trigger.recipients.iter().chain(&trigger.actor) {
            let key = (trigger.tenant.environment_id, input.subscriber_id.clone());
            match index_of.get(&key) {
                Some(&index) => upserts[index].1.merge(input.clone()),
                None => {
                    index_of.insert(key, upserts.len());
                    upserts.push((trigger.tenant, input.clone()));
                }
            }
        }
    }
    upserts
}

/// The template of each stored trigger, with the internal ids of its tenant (from `tenant_ids`, by
/// (environment, identifier)) and of its actor.
pub fn templates_of(
    stored: &[&PreparedTrigger],
    tenant_ids: &HashMap<(Uuid, String), Uuid>,
    subscriber_ids: &SubscriberIds,
) -> Vec<EventTemplate> {
    stored
        .iter()
        .map(|trigger| {
            let environment_id = trigger.tenant.environment_id;
            let tenant_id = trigger
                .tenant_reference
                .as_ref()
                .map(|reference| tenant_ids[&(environment_id, reference.identifier().to_string())]);
            let actor_id =
                trigger.actor.as_ref().map(|actor| subscriber_ids[&(environment_id, actor.subscriber_id.clone())]);
            EventTemplate::of(trigger, actor_id, tenant_id)
        })
        .collect()
}

/// The direct recipients of stored triggers that their batch stores (not those fanned out), each after
/// its trigger's template (`templates`, in the triggers' order).
pub fn recipients_of<'a>(
    stored: &[&'a PreparedTrigger],
    templates: &'a [EventTemplate],
    subscriber_ids: &SubscriberIds,
) -> Recipients<'a> {
    let stored_here = || stored.iter().zip(templates).filter(|(trigger, _)| !trigger.fans_out_recipients());
    let mut recipients = Recipients::with_capacity(stored_here().map(|(trigger, _)| trigger.recipients.len()).sum());
    for (trigger, template) in stored_here() {
        recipients.start(template);
        for (subscriber_id, to_recipient) in recipient_entries(trigger, subscriber_ids) {
            recipients.push(subscriber_id, to_recipient);
        }
    }
    recipients
}

/// The recipients of a trigger fanned out (see [`super::MOST_RECIPIENTS_STORED_AT_INGEST`]), as its
/// fan-out row keeps them: `[{"id": internal subscriber id, "to": the entry as sent}]`.
pub fn fanned_out_recipients(trigger: &PreparedTrigger, subscriber_ids: &SubscriberIds) -> Value {
    recipient_entries(trigger, subscriber_ids).map(|(id, to)| json!({ "id": id, "to": to })).collect()
}

/// Each direct recipient of `trigger`: its subscriber's internal id and its `to` entry as sent.
fn recipient_entries<'a>(
    trigger: &'a PreparedTrigger,
    subscriber_ids: &'a SubscriberIds,
) -> impl Iterator<Item = (Uuid, Value)> + 'a {
    let environment_id = trigger.tenant.environment_id;
    let sent = entries_as_sent(&trigger.to);
    trigger.recipients.iter().map(move |recipient| {
        let subscriber_id = subscriber_ids[&(environment_id, recipient.subscriber_id.clone())];
        let to_recipient = match sent.get(recipient.subscriber_id.as_str()) {
            Some(input) => json!(input),
            None => json!({ "subscriberId": recipient.subscriber_id }),
        };
        (subscriber_id, to_recipient)
    })
}

/// The `to` entry of each subscriber as the client sent it (the activity API's `to`), by
/// subscriberId; of a subscriber sent twice, the last entry. Looked up once per recipient: a search
/// of `to` for each was quadratic, 11% of the server's CPU for 1,000-recipient triggers (`perf`).
fn entries_as_sent(to: &[Recipient]) -> HashMap<&str, &SubscriberInput> {
    to.iter()
        .filter_map(|recipient| match recipient {
            Recipient::Subscriber(input) => Some((input.subscriber_id.as_str(), &**input)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workflow::StepSnapshot;

    #[test]
    fn a_template_stored_with_its_trigger_job_is_read_with_its_steps_only() {
        let workflow_id = Uuid::now_v7();
        let step = |kind: JobKind| {
            json!({"kind": kind.as_str(), "step_id": null, "digest_key": null,
                                          "step": StepSnapshot::trigger(workflow_id)})
        };
        let stored = json!({
            "environment_id": Uuid::nil(), "organization_id": Uuid::nil(), "transaction_id": "t",
            "workflow_id": workflow_id, "payload": {}, "overrides": {}, "actor_subscriber_id": null,
            "tenant_id": null, "tags": [], "channels": ["trigger", "in_app"], "severity": "none",
            "critical": false, "accepted_at": "2026-11-25T10:00:00Z",
            "jobs": [step(JobKind::Trigger), step(JobKind::Step(StepKind::InApp)), step(JobKind::Step(StepKind::Delay))],
        });
        let template: EventTemplate = serde_json::from_value(stored).unwrap();
        let kinds: Vec<&str> = template.jobs.iter().map(|job| job.kind.as_str()).collect();
        assert_eq!(kinds, ["in_app", "delay"]);
    }
}
