//! The writes that leave a batch's jobs as their outcomes say, each one statement whose columns travel
//! as typed arrays (`db::unnest`): the update of the jobs a batch claimed, and the insert of the jobs a
//! topic page ran before storing them.

use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{Int4, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use crate::db::unnest::{bind_arrays, static_query_id};
use crate::engine::jobs::Job;
use crate::engine::steps::Outcome;

/// Writes each outcome's status, attempts and what else it changed onto its job, and ends its lease.
pub async fn write_jobs(conn: &mut AsyncPgConnection, outcomes: &[Outcome], now: DateTime<Utc>) -> QueryResult<()> {
    if outcomes.is_empty() {
        return Ok(());
    }
    JobUpdates::of(outcomes, now).execute(conn).await?;
    Ok(())
}

/// The outcomes column by column. They travelled as one JSON document of records, built as a map a
/// job by Herald and read by `jsonb_to_recordset`: parsing it was 3.7% of PostgreSQL's samples while a
/// worker delivered in-app messages from a backlog, and without it the worker and PostgreSQL took 16%
/// and 14% less CPU a message (docs/performance.md). A column left `NULL` keeps the job's value.
struct JobUpdates<'a> {
    now: DateTime<Utc>,
    id: Vec<Uuid>,
    status: Vec<&'static str>,
    run_at: Vec<Option<DateTime<Utc>>>,
    provider_id: Vec<Option<&'a str>>,
    error: Vec<Option<&'a str>>,
    result: Vec<Option<&'a Value>>,
    digest: Vec<Option<&'a Value>>,
    digest_key: Vec<Option<&'a str>>,
    digested_into: Vec<Option<Uuid>>,
    schedule_extensions: Vec<Option<i32>>,
    attempts: Vec<Option<i32>>,
}

impl<'a> JobUpdates<'a> {
    fn of(outcomes: &'a [Outcome], now: DateTime<Utc>) -> Self {
        Self {
            now,
            id: outcomes.iter().map(|outcome| outcome.job.id).collect(),
            status: outcomes.iter().map(|outcome| outcome.status.as_str()).collect(),
            run_at: outcomes.iter().map(|outcome| outcome.run_at).collect(),
            provider_id: outcomes.iter().map(|outcome| outcome.provider_id.as_deref()).collect(),
            error: outcomes.iter().map(|outcome| outcome.error.as_deref()).collect(),
            result: outcomes.iter().map(|outcome| present(&outcome.result)).collect(),
            digest: outcomes.iter().map(|outcome| present(&outcome.digest)).collect(),
            digest_key: outcomes.iter().map(|outcome| outcome.digest_key.as_deref()).collect(),
            digested_into: outcomes.iter().map(|outcome| outcome.digested_into).collect(),
            schedule_extensions: outcomes.iter().map(|outcome| outcome.schedule_extensions).collect(),
            attempts: outcomes.iter().map(|outcome| outcome.attempts).collect(),
        }
    }
}

/// A document to write, `None` for a JSON `null` as for none: the records these columns replace turned a
/// `null` into SQL `NULL`, which keeps the job's value, and so does this.
fn present(document: &Option<Value>) -> Option<&Value> {
    document.as_ref().filter(|document| !document.is_null())
}

static_query_id!(JobUpdates);

impl QueryFragment<Pg> for JobUpdates<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "UPDATE jobs AS j \
             SET status = u.status, run_at = COALESCE(u.run_at, j.run_at), \
                 provider_id = COALESCE(u.provider_id, j.provider_id), error = u.error, \
                 result = COALESCE(u.result, j.result), digest = COALESCE(u.digest, j.digest), \
                 digest_key = COALESCE(u.digest_key, j.digest_key), digested_into_job_id = u.digested_into, \
                 schedule_extensions_count = COALESCE(u.schedule_extensions, j.schedule_extensions_count), \
                 attempts = COALESCE(u.attempts, j.attempts), lease_owner = NULL, updated_at = ",
        );
        out.push_bind_param::<Timestamptz, _>(&self.now)?;
        out.push_sql(" FROM unnest(");
        bind_arrays!(out;
            SqlUuid: self.id, Text: self.status, Nullable<Timestamptz>: self.run_at,
            Nullable<Text>: self.provider_id, Nullable<Text>: self.error, Nullable<Jsonb>: self.result,
            Nullable<Jsonb>: self.digest, Nullable<Text>: self.digest_key, Nullable<SqlUuid>: self.digested_into,
            Nullable<Int4>: self.schedule_extensions, Nullable<Int4>: self.attempts,
        );
        out.push_sql(
            ") AS u(id, status, run_at, provider_id, error, result, digest, digest_key, digested_into, \
             schedule_extensions, attempts) \
             WHERE j.id = u.id",
        );
        Ok(())
    }
}

/// Inserts the jobs a transaction ran before storing them (a topic page's first steps), as their
/// outcomes leave them: one statement whose columns travel as typed arrays, as [`write_jobs`]'s do.
pub async fn insert_finished_jobs(
    conn: &mut AsyncPgConnection,
    outcomes: &[Outcome],
    now: DateTime<Utc>,
) -> QueryResult<()> {
    if outcomes.is_empty() {
        return Ok(());
    }
    let rows: Vec<Job> = outcomes.iter().map(|outcome| outcome.finished_job(now)).collect();
    FinishedJobs::of(&rows, now).execute(conn).await?;
    Ok(())
}

/// Finished jobs column by column (`lease_owner` is left `NULL`: a finished job has no lease). They
/// travelled as one JSON text of rows, read by `json_populate_recordset`.
struct FinishedJobs<'a> {
    now: DateTime<Utc>,
    id: Vec<Uuid>,
    environment_id: Vec<Uuid>,
    organization_id: Vec<Uuid>,
    notification_id: Vec<Uuid>,
    subscriber_id: Vec<Uuid>,
    workflow_id: Vec<Uuid>,
    step_id: Vec<Option<Uuid>>,
    kind: Vec<&'static str>,
    position: Vec<i32>,
    status: Vec<&'static str>,
    run_at: Vec<DateTime<Utc>>,
    attempts: Vec<i32>,
    max_attempts: Vec<i32>,
    provider_id: Vec<&'a str>,
    digest: Vec<Option<&'a Value>>,
    digest_key: Vec<Option<&'a str>>,
    digested_into: Vec<Option<Uuid>>,
    schedule_extensions: Vec<i32>,
    transaction_id: Vec<&'a str>,
    error: Vec<Option<&'a str>>,
    created_at: Vec<DateTime<Utc>>,
    result: Vec<Option<&'a Value>>,
    traceparent: Vec<Option<&'a str>>,
    step_snapshot_id: Vec<Uuid>,
}

impl<'a> FinishedJobs<'a> {
    fn of(rows: &'a [Job], now: DateTime<Utc>) -> Self {
        Self {
            now,
            id: rows.iter().map(|job| job.id).collect(),
            environment_id: rows.iter().map(|job| job.environment_id).collect(),
            organization_id: rows.iter().map(|job| job.organization_id).collect(),
            notification_id: rows.iter().map(|job| job.notification_id).collect(),
            subscriber_id: rows.iter().map(|job| job.subscriber_id).collect(),
            workflow_id: rows.iter().map(|job| job.workflow_id).collect(),
            step_id: rows.iter().map(|job| job.step_id).collect(),
            kind: rows.iter().map(|job| job.kind.as_str()).collect(),
            position: rows.iter().map(|job| job.position).collect(),
            status: rows.iter().map(|job| job.status.as_str()).collect(),
            run_at: rows.iter().map(|job| job.run_at).collect(),
            attempts: rows.iter().map(|job| job.attempts).collect(),
            max_attempts: rows.iter().map(|job| job.max_attempts).collect(),
            provider_id: rows.iter().map(|job| job.provider_id.as_str()).collect(),
            digest: rows.iter().map(|job| present(&job.digest)).collect(),
            digest_key: rows.iter().map(|job| job.digest_key.as_deref()).collect(),
            digested_into: rows.iter().map(|job| job.digested_into_job_id).collect(),
            schedule_extensions: rows.iter().map(|job| job.schedule_extensions_count).collect(),
            transaction_id: rows.iter().map(|job| job.transaction_id.as_str()).collect(),
            error: rows.iter().map(|job| job.error.as_deref()).collect(),
            created_at: rows.iter().map(|job| job.created_at).collect(),
            result: rows.iter().map(|job| present(&job.result)).collect(),
            traceparent: rows.iter().map(|job| job.traceparent.as_deref()).collect(),
            step_snapshot_id: rows.iter().map(|job| job.step_snapshot_id).collect(),
        }
    }
}

static_query_id!(FinishedJobs);

impl QueryFragment<Pg> for FinishedJobs<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "INSERT INTO jobs (id, environment_id, organization_id, notification_id, subscriber_id, workflow_id, \
             step_id, type, position, status, run_at, attempts, max_attempts, provider_id, digest, digest_key, \
             digested_into_job_id, schedule_extensions_count, transaction_id, error, created_at, result, \
             traceparent, step_snapshot_id, updated_at) \
             SELECT *, ",
        );
        out.push_bind_param::<Timestamptz, _>(&self.now)?;
        out.push_sql(" FROM unnest(");
        bind_arrays!(out;
            SqlUuid: self.id, SqlUuid: self.environment_id, SqlUuid: self.organization_id,
            SqlUuid: self.notification_id, SqlUuid: self.subscriber_id, SqlUuid: self.workflow_id,
            Nullable<SqlUuid>: self.step_id, Text: self.kind, Int4: self.position, Text: self.status,
            Timestamptz: self.run_at, Int4: self.attempts, Int4: self.max_attempts, Text: self.provider_id,
            Nullable<Jsonb>: self.digest, Nullable<Text>: self.digest_key, Nullable<SqlUuid>: self.digested_into,
            Int4: self.schedule_extensions, Text: self.transaction_id, Nullable<Text>: self.error,
            Timestamptz: self.created_at, Nullable<Jsonb>: self.result, Nullable<Text>: self.traceparent,
            SqlUuid: self.step_snapshot_id,
        );
        out.push_sql(")");
        Ok(())
    }
}
