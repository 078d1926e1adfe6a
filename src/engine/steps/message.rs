//! The messages steps write: a new message row (in-app at once, the others before their provider call),
//! and its final state after the call.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde_json::Value;
use uuid::Uuid;

use crate::db::schema::messages;
use crate::engine::jobs::Job;

/// A message's status (`messages.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageStatus {
    Sent,
    Warning,
    Error,
}

impl MessageStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageStatus::Sent => "sent",
            MessageStatus::Warning => "warning",
            MessageStatus::Error => "error",
        }
    }
}

/// A message row to insert (once: `ON CONFLICT (job_id) DO NOTHING`).
#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage {
    pub id: Uuid,
    pub channel: String,
    /// The workflow's identifier (`templateIdentifier`).
    pub template_identifier: Option<String>,
    /// The trigger's actor as templates see it, if it had one.
    pub actor: Option<Value>,
    pub subject: Option<String>,
    pub content: Option<Value>,
    pub title: Option<String>,
    pub cta: Value,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub direct_webhook_url: Option<String>,
    pub device_tokens: Vec<String>,
    pub provider_id: Option<String>,
    pub status: MessageStatus,
    pub error_id: Option<String>,
    pub error_text: Option<String>,
    pub delivered: bool,
}

/// The final state of a message whose provider call was made.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageUpdate {
    pub message_id: Uuid,
    pub status: MessageStatus,
    pub error_id: Option<String>,
    pub error_text: Option<String>,
    pub delivered: bool,
    /// The provider that sent it (another than at first, after a failover); `None` keeps it.
    pub provider_id: Option<String>,
    /// The provider's id for the message, once accepted.
    pub provider_message_id: Option<String>,
}

/// A message row as first written.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = messages)]
pub struct NewMessageRow {
    id: Uuid,
    environment_id: Uuid,
    organization_id: Uuid,
    notification_id: Uuid,
    job_id: Uuid,
    subscriber_id: Uuid,
    workflow_id: Option<Uuid>,
    step_id: Option<Uuid>,
    template_identifier: Option<String>,
    channel: String,
    transaction_id: String,
    subject: Option<String>,
    content: Option<Value>,
    title: Option<String>,
    cta: Value,
    payload: Value,
    overrides: Value,
    actor: Option<Value>,
    email: Option<String>,
    phone: Option<String>,
    direct_webhook_url: Option<String>,
    device_tokens: Vec<String>,
    provider_id: Option<String>,
    status: String,
    error_id: Option<String>,
    error_text: Option<String>,
    delivered_at: Vec<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

/// The row of `message`, produced by `job`.
pub fn message_row(job: &Job, message: &NewMessage, now: DateTime<Utc>) -> NewMessageRow {
    NewMessageRow {
        id: message.id,
        environment_id: job.environment_id,
        organization_id: job.organization_id,
        notification_id: job.notification_id,
        job_id: job.id,
        subscriber_id: job.subscriber_id,
        workflow_id: Some(job.workflow_id),
        step_id: job.step_id,
        template_identifier: message.template_identifier.clone(),
        channel: message.channel.clone(),
        transaction_id: job.transaction_id.clone(),
        subject: message.subject.clone(),
        content: message.content.clone(),
        title: message.title.clone(),
        cta: message.cta.clone(),
        payload: job.payload.clone(),
        overrides: job.overrides.clone(),
        actor: message.actor.clone(),
        email: message.email.clone(),
        phone: message.phone.clone(),
        direct_webhook_url: message.direct_webhook_url.clone(),
        device_tokens: message.device_tokens.clone(),
        provider_id: message.provider_id.clone(),
        status: message.status.as_str().to_string(),
        error_id: message.error_id.clone(),
        error_text: message.error_text.clone(),
        delivered_at: if message.delivered { vec![now] } else { Vec::new() },
        created_at: now,
        updated_at: now,
    }
}
