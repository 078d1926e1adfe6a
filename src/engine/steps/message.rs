//! The messages steps write: a new message row (in-app at once, the others before their provider call),
//! and its final state after the call.

use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{Bool, Int4, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use crate::db::unnest::{bind_arrays, static_query_id, TextLists};
use crate::domain::inbox::{InboxMessage, INBOX_CHANNEL};
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
    /// The trigger's payload and overrides, kept with the message (the messages API shows them).
    pub payload: Value,
    pub overrides: Value,
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
#[derive(Debug, Clone)]
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
    status: &'static str,
    error_id: Option<String>,
    error_text: Option<String>,
    /// Delivered as it was written (in-app): `delivered_at` holds its creation time.
    delivered: bool,
    created_at: DateTime<Utc>,
}

/// Inserts `rows` in one statement, except those whose job already wrote its message (a step run
/// again after a crash); returns the ids of those inserted.
pub async fn insert_messages(conn: &mut AsyncPgConnection, rows: &[NewMessageRow]) -> QueryResult<Vec<Uuid>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    MessageColumns::of(rows).load(conn).await
}

impl NewMessageRow {
    /// The inbox message this row is, if it is an in-app one.
    pub fn in_app(&self) -> Option<InboxMessage> {
        (self.channel == INBOX_CHANNEL).then_some(InboxMessage {
            environment_id: self.environment_id,
            subscriber_id: self.subscriber_id,
            id: self.id,
        })
    }
}

/// The messages to insert, column by column (`db::unnest`): a batch's multi-row `VALUES` insert was a
/// statement of 29 parameters a row, parsed and planned anew for every batch size.
struct MessageColumns<'a> {
    id: Vec<Uuid>,
    environment_id: Vec<Uuid>,
    organization_id: Vec<Uuid>,
    notification_id: Vec<Uuid>,
    job_id: Vec<Uuid>,
    subscriber_id: Vec<Uuid>,
    workflow_id: Vec<Option<Uuid>>,
    step_id: Vec<Option<Uuid>>,
    template_identifier: Vec<Option<&'a str>>,
    channel: Vec<&'a str>,
    transaction_id: Vec<&'a str>,
    subject: Vec<Option<&'a str>>,
    content: Vec<Option<&'a Value>>,
    title: Vec<Option<&'a str>>,
    cta: Vec<&'a Value>,
    payload: Vec<&'a Value>,
    overrides: Vec<&'a Value>,
    actor: Vec<Option<&'a Value>>,
    email: Vec<Option<&'a str>>,
    phone: Vec<Option<&'a str>>,
    direct_webhook_url: Vec<Option<&'a str>>,
    device_tokens: TextLists<'a>,
    provider_id: Vec<Option<&'a str>>,
    status: Vec<&'a str>,
    error_id: Vec<Option<&'a str>>,
    error_text: Vec<Option<&'a str>>,
    delivered: Vec<bool>,
    created_at: Vec<DateTime<Utc>>,
}

impl<'a> MessageColumns<'a> {
    fn of(rows: &'a [NewMessageRow]) -> Self {
        Self {
            id: rows.iter().map(|row| row.id).collect(),
            environment_id: rows.iter().map(|row| row.environment_id).collect(),
            organization_id: rows.iter().map(|row| row.organization_id).collect(),
            notification_id: rows.iter().map(|row| row.notification_id).collect(),
            job_id: rows.iter().map(|row| row.job_id).collect(),
            subscriber_id: rows.iter().map(|row| row.subscriber_id).collect(),
            workflow_id: rows.iter().map(|row| row.workflow_id).collect(),
            step_id: rows.iter().map(|row| row.step_id).collect(),
            template_identifier: rows.iter().map(|row| row.template_identifier.as_deref()).collect(),
            channel: rows.iter().map(|row| row.channel.as_str()).collect(),
            transaction_id: rows.iter().map(|row| row.transaction_id.as_str()).collect(),
            subject: rows.iter().map(|row| row.subject.as_deref()).collect(),
            content: rows.iter().map(|row| row.content.as_ref()).collect(),
            title: rows.iter().map(|row| row.title.as_deref()).collect(),
            cta: rows.iter().map(|row| &row.cta).collect(),
            payload: rows.iter().map(|row| &row.payload).collect(),
            overrides: rows.iter().map(|row| &row.overrides).collect(),
            actor: rows.iter().map(|row| row.actor.as_ref()).collect(),
            email: rows.iter().map(|row| row.email.as_deref()).collect(),
            phone: rows.iter().map(|row| row.phone.as_deref()).collect(),
            direct_webhook_url: rows.iter().map(|row| row.direct_webhook_url.as_deref()).collect(),
            device_tokens: TextLists::of(rows.iter().map(|row| row.device_tokens.as_slice())),
            provider_id: rows.iter().map(|row| row.provider_id.as_deref()).collect(),
            status: rows.iter().map(|row| row.status).collect(),
            error_id: rows.iter().map(|row| row.error_id.as_deref()).collect(),
            error_text: rows.iter().map(|row| row.error_text.as_deref()).collect(),
            delivered: rows.iter().map(|row| row.delivered).collect(),
            created_at: rows.iter().map(|row| row.created_at).collect(),
        }
    }
}

static_query_id!(MessageColumns, SqlUuid);

impl QueryFragment<Pg> for MessageColumns<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "INSERT INTO messages (id, environment_id, organization_id, notification_id, job_id, subscriber_id, \
             workflow_id, step_id, template_identifier, channel, transaction_id, subject, content, title, cta, \
             payload, overrides, actor, email, phone, direct_webhook_url, device_tokens, provider_id, status, \
             error_id, error_text, delivered_at, created_at, updated_at) \
             SELECT id, environment_id, organization_id, notification_id, job_id, subscriber_id, workflow_id, \
             step_id, template_identifier, channel, transaction_id, subject, content, title, cta, payload, \
             overrides, actor, email, phone, direct_webhook_url, ",
        );
        self.device_tokens.push_slice(&mut out, "tokens_from", "tokens_to")?;
        out.push_sql(
            ", provider_id, status, error_id, error_text, \
             CASE WHEN delivered THEN ARRAY[created_at] ELSE '{}' END, created_at, created_at \
             FROM unnest(",
        );
        bind_arrays!(out;
            SqlUuid: self.id, SqlUuid: self.environment_id, SqlUuid: self.organization_id,
            SqlUuid: self.notification_id, SqlUuid: self.job_id, SqlUuid: self.subscriber_id,
            Nullable<SqlUuid>: self.workflow_id, Nullable<SqlUuid>: self.step_id,
            Nullable<Text>: self.template_identifier, Text: self.channel, Text: self.transaction_id,
            Nullable<Text>: self.subject, Nullable<Jsonb>: self.content, Nullable<Text>: self.title,
            Jsonb: self.cta, Jsonb: self.payload, Jsonb: self.overrides, Nullable<Jsonb>: self.actor,
            Nullable<Text>: self.email, Nullable<Text>: self.phone, Nullable<Text>: self.direct_webhook_url,
            Int4: self.device_tokens.from, Int4: self.device_tokens.to, Nullable<Text>: self.provider_id,
            Text: self.status, Nullable<Text>: self.error_id, Nullable<Text>: self.error_text, Bool: self.delivered,
            Timestamptz: self.created_at,
        );
        out.push_sql(
            ") AS m(id, environment_id, organization_id, notification_id, job_id, subscriber_id, workflow_id, \
             step_id, template_identifier, channel, transaction_id, subject, content, title, cta, payload, \
             overrides, actor, email, phone, direct_webhook_url, tokens_from, tokens_to, provider_id, status, \
             error_id, error_text, delivered, created_at) \
             ON CONFLICT (job_id) DO NOTHING RETURNING id",
        );
        Ok(())
    }
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
        payload: message.payload.clone(),
        overrides: message.overrides.clone(),
        actor: message.actor.clone(),
        email: message.email.clone(),
        phone: message.phone.clone(),
        direct_webhook_url: message.direct_webhook_url.clone(),
        device_tokens: message.device_tokens.clone(),
        provider_id: message.provider_id.clone(),
        status: message.status.as_str(),
        error_id: message.error_id.clone(),
        error_text: message.error_text.clone(),
        delivered: message.delivered,
        created_at: now,
    }
}
