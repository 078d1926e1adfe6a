//! Conversions between the notification protos and the domain's activity (`crate::domain::activity`).
//!
//! The JSON columns the engine writes (`step_snapshots.step`, `jobs.digest`) hold the API's own JSON
//! forms, so they are read with the protos' pbjson deserializers. A value that does not read (an engine
//! bug) is logged and shown in a reduced form rather than failing the whole listing.

use serde_json::Value;

use super::convert::{enum_name, read_json};
use super::template_convert::triggers;
use crate::domain::activity::{ActivityJob, Event, EventPage, EventQuery, EventTopic, ExecutionDetailRow};
use crate::domain::workflows::StoredWorkflow;
use crate::proto::herald::v1 as pb;
use crate::wire::{format_timestamp, json_to_struct};
use pb::severity_enum::Severity;
use pb::step_type_enum::StepType;

impl From<pb::ListNotificationsRequest> for EventQuery {
    fn from(request: pb::ListNotificationsRequest) -> Self {
        let step_type = |value: i32| enum_name(StepType::try_from(value).ok().map(|t| t.as_str_name()));
        let severity = |value: i32| enum_name(Severity::try_from(value).ok().map(|s| s.as_str_name()));
        Self {
            channels: request.channels.into_iter().map(step_type).collect(),
            templates: request.templates,
            emails: request.emails,
            search: request.search,
            subscriber_ids: request.subscriber_ids,
            severity: request.severity.into_iter().map(severity).collect(),
            page: request.page,
            limit: request.limit,
            transaction_id: request.transaction_id,
            topic_key: request.topic_key,
            after: request.after,
            before: request.before,
        }
    }
}

impl From<EventPage> for pb::ListNotificationsResponse {
    fn from(page: EventPage) -> Self {
        Self {
            has_more: page.has_more,
            data: page.events.into_iter().map(pb::NotificationEvent::from).collect(),
            page_size: page.page_size,
            page: page.page,
        }
    }
}

fn step_type_number(name: &str) -> Option<i32> {
    StepType::from_str_name(name).filter(|kind| *kind != StepType::Unspecified).map(|kind| kind as i32)
}

impl From<Event> for pb::NotificationEvent {
    fn from(event: Event) -> Self {
        let notification = event.notification;
        Self {
            id: notification.id.to_string(),
            environment_id: notification.environment_id.to_string(),
            organization_id: notification.organization_id.to_string(),
            subscriber_id: notification.subscriber_id.to_string(),
            transaction_id: notification.transaction_id,
            template_id: Some(notification.workflow_id.to_string()),
            digested_notification_id: notification.digested_notification_id.map(|id| id.to_string()),
            created_at: Some(format_timestamp(notification.created_at)),
            updated_at: Some(format_timestamp(notification.updated_at)),
            channels: notification.channels.iter().filter_map(|name| step_type_number(name)).collect(),
            subscriber: event.subscriber.map(pb::NotificationEventSubscriber::from),
            template: event.workflow.as_deref().map(event_template),
            jobs: event.jobs.into_iter().map(pb::Job::from).collect(),
            payload: json_to_struct(notification.payload),
            tags: notification.tags,
            controls: json_to_struct(notification.controls),
            to: json_to_struct(notification.to_recipient),
            topics: event.topics.into_iter().map(pb::NotificationEventTopic::from).collect(),
            severity: Severity::from_str_name(&notification.severity).map(|severity| severity as i32),
            critical: Some(notification.critical),
        }
    }
}

fn event_template(stored: &StoredWorkflow) -> pb::NotificationEventTemplate {
    pb::NotificationEventTemplate {
        id: stored.workflow.id.to_string(),
        name: stored.workflow.name.clone(),
        origin: Some(stored.workflow.origin.clone()),
        triggers: triggers(stored),
    }
}

impl From<EventTopic> for pb::NotificationEventTopic {
    /// A topic deleted since the trigger has no id left: `_topicId` is empty.
    fn from(topic: EventTopic) -> Self {
        Self { topic_id: topic.id.map(|id| id.to_string()).unwrap_or_default(), topic_key: topic.key }
    }
}

impl From<ActivityJob> for pb::Job {
    fn from(job: ActivityJob) -> Self {
        let row = job.row;
        Self {
            id: row.id.to_string(),
            r#type: step_type_number(&row.kind).unwrap_or_default(),
            digest: row.digest.and_then(|digest| read_json("jobs.digest", row.id, digest)),
            execution_details: job.details.into_iter().map(pb::ExecutionDetail::from).collect(),
            step: Some(job_step(row.id, row.step)),
            overrides: json_to_struct(row.overrides),
            payload: json_to_struct(row.payload),
            provider_id: row.provider_id,
            status: row.status,
            updated_at: Some(format_timestamp(row.updated_at)),
            schedule_extensions_count: Some(row.schedule_extensions_count),
        }
    }
}

/// The job's step snapshot; one that does not read keeps at least its ids, name and active flag.
fn job_step(job_id: uuid::Uuid, step: Value) -> pb::JobStep {
    if let Some(read) = read_json("step_snapshots.step", job_id, step.clone()) {
        return read;
    }
    let text = |key: &str| step[key].as_str().map(str::to_string);
    pb::JobStep {
        id: text("_id").unwrap_or_default(),
        template_id: text("_templateId").unwrap_or_default(),
        active: step["active"].as_bool().unwrap_or(true),
        name: text("name"),
        ..Default::default()
    }
}

impl From<ExecutionDetailRow> for pb::ExecutionDetail {
    fn from(detail: ExecutionDetailRow) -> Self {
        use pb::execution_detail_source_enum::ExecutionDetailSource;
        use pb::execution_detail_status_enum::ExecutionDetailStatus;
        Self {
            id: detail.id.to_string(),
            created_at: Some(format_timestamp(detail.created_at)),
            status: ExecutionDetailStatus::from_str_name(&detail.status).map(|s| s as i32).unwrap_or_default(),
            detail: detail.detail,
            is_retry: detail.is_retry,
            is_test: detail.is_test,
            provider_id: detail.provider_id,
            raw: detail.raw,
            source: ExecutionDetailSource::from_str_name(&detail.source).map(|s| s as i32).unwrap_or_default(),
        }
    }
}
