//! Execution details: the log of every stage of a job, shown with the event's jobs.

use chrono::{DateTime, TimeDelta, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::jobs::Job;
use crate::db::schema::execution_details;
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
    if details.is_empty() {
        return Ok(());
    }
    let rows: Vec<_> = details
        .iter()
        .enumerate()
        .map(|(index, detail)| {
            (
                execution_details::id.eq(Uuid::now_v7()),
                execution_details::environment_id.eq(detail.environment_id),
                execution_details::job_id.eq(detail.job_id),
                execution_details::notification_id.eq(detail.notification_id),
                execution_details::subscriber_id.eq(detail.subscriber_id),
                execution_details::status.eq(detail.status.as_str()),
                execution_details::detail.eq(&detail.detail),
                execution_details::source.eq(detail.source.as_str()),
                execution_details::is_retry.eq(detail.is_retry),
                execution_details::provider_id.eq(&detail.provider_id),
                execution_details::raw.eq(&detail.raw),
                execution_details::created_at.eq(now + TimeDelta::microseconds(index as i64)),
            )
        })
        .collect();
    for chunk in rows.chunks(4_000) {
        diesel::insert_into(execution_details::table).values(chunk).execute(conn).await?;
    }
    Ok(())
}
