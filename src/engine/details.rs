//! Execution details: the log of every stage of a job, shown with the event's jobs.

use chrono::{DateTime, TimeDelta, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{Bool, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::jobs::Job;
use crate::db::unnest::{bind_arrays, static_query_id};
use crate::error::AppResult;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailStatus {
    Success,
    Warning,
    Failed,
    Pending,
    Queued,
}

/// An instant as execution details write it: UTC to the second (`2026-11-30T09:00:00Z`).
pub fn instant_text(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl DetailStatus {
    fn as_str(self) -> &'static str {
        match self {
            DetailStatus::Success => "Success",
            DetailStatus::Warning => "Warning",
            DetailStatus::Failed => "Failed",
            DetailStatus::Pending => "Pending",
            DetailStatus::Queued => "Queued",
        }
    }
}

/// Where what a detail reports comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailSource {
    /// The provider's credentials or answer.
    Credentials,
    /// The engine itself.
    Internal,
    /// The trigger's payload or the subscriber's data.
    Payload,
    /// An outbound webhook (custom step).
    Webhook,
}

impl DetailSource {
    fn as_str(self) -> &'static str {
        match self {
            DetailSource::Credentials => "Credentials",
            DetailSource::Internal => "Internal",
            DetailSource::Payload => "Payload",
            DetailSource::Webhook => "Webhook",
        }
    }
}

/// One detail to record.
#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    pub job_id: Uuid,
    pub environment_id: Uuid,
    pub notification_id: Uuid,
    pub subscriber_id: Uuid,
    pub status: DetailStatus,
    pub source: DetailSource,
    pub detail: String,
    pub is_retry: bool,
    pub provider_id: Option<String>,
    pub raw: Option<String>,
}

impl Detail {
    pub fn new(job: &Job, status: DetailStatus, source: DetailSource, detail: impl Into<String>) -> Self {
        Self {
            job_id: job.id,
            environment_id: job.environment_id,
            notification_id: job.notification_id,
            subscriber_id: job.subscriber_id,
            status,
            source,
            detail: detail.into(),
            is_retry: job.attempts > 1,
            provider_id: Some(job.provider_id.clone()),
            raw: None,
        }
    }

    /// A detail from the engine itself.
    pub fn internal(job: &Job, status: DetailStatus, detail: impl Into<String>) -> Self {
        Self::new(job, status, DetailSource::Internal, detail)
    }

    pub fn with_provider(mut self, provider_id: &str) -> Self {
        self.provider_id = Some(provider_id.to_string());
        self
    }

    pub fn with_raw(mut self, raw: Option<String>) -> Self {
        self.raw = raw;
        self
    }
}

/// Inserts `details` in one statement. They get consecutive microsecond timestamps from `now`, so
/// their order reads back as it was written.
pub async fn insert_details(conn: &mut AsyncPgConnection, details: &[Detail], now: DateTime<Utc>) -> AppResult<()> {
    if !details.is_empty() {
        DetailColumns::of(details, now).execute(conn).await?;
    }
    Ok(())
}

/// The details to insert, column by column (one `unnest` statement: see `db::unnest`).
struct DetailColumns<'a> {
    id: Vec<Uuid>,
    environment_id: Vec<Uuid>,
    job_id: Vec<Uuid>,
    notification_id: Vec<Uuid>,
    subscriber_id: Vec<Uuid>,
    status: Vec<&'static str>,
    detail: Vec<&'a str>,
    source: Vec<&'static str>,
    is_retry: Vec<bool>,
    provider_id: Vec<Option<&'a str>>,
    raw: Vec<Option<&'a str>>,
    created_at: Vec<DateTime<Utc>>,
}

impl<'a> DetailColumns<'a> {
    fn of(details: &'a [Detail], now: DateTime<Utc>) -> Self {
        Self {
            id: details.iter().map(|_| Uuid::now_v7()).collect(),
            environment_id: details.iter().map(|detail| detail.environment_id).collect(),
            job_id: details.iter().map(|detail| detail.job_id).collect(),
            notification_id: details.iter().map(|detail| detail.notification_id).collect(),
            subscriber_id: details.iter().map(|detail| detail.subscriber_id).collect(),
            status: details.iter().map(|detail| detail.status.as_str()).collect(),
            detail: details.iter().map(|detail| detail.detail.as_str()).collect(),
            source: details.iter().map(|detail| detail.source.as_str()).collect(),
            is_retry: details.iter().map(|detail| detail.is_retry).collect(),
            provider_id: details.iter().map(|detail| detail.provider_id.as_deref()).collect(),
            raw: details.iter().map(|detail| detail.raw.as_deref()).collect(),
            created_at: (0..details.len()).map(|index| now + TimeDelta::microseconds(index as i64)).collect(),
        }
    }
}

static_query_id!(DetailColumns);

impl QueryFragment<Pg> for DetailColumns<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "INSERT INTO execution_details (id, environment_id, job_id, notification_id, subscriber_id, status, \
             detail, source, is_retry, provider_id, raw, created_at) SELECT * FROM unnest(",
        );
        bind_arrays!(out;
            SqlUuid: self.id, SqlUuid: self.environment_id, SqlUuid: self.job_id, SqlUuid: self.notification_id,
            SqlUuid: self.subscriber_id, Text: self.status, Text: self.detail, Text: self.source, Bool: self.is_retry,
            Nullable<Text>: self.provider_id, Nullable<Text>: self.raw, Timestamptz: self.created_at,
        );
        out.push_sql(")");
        Ok(())
    }
}
