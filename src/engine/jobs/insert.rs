//! Inserting jobs: one `unnest` statement whatever the number of rows (see `db::unnest` for why).

use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{Int4, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use super::Job;
use crate::db::unnest::{bind_arrays, static_query_id};
use crate::workflow::{JobKind, JobStatus, StepSnapshot};

/// Inserts `jobs` in one statement.
pub async fn insert_jobs(conn: &mut AsyncPgConnection, jobs: &[Job]) -> QueryResult<()> {
    if !jobs.is_empty() {
        JobColumns::of(jobs).execute(conn).await?;
    }
    Ok(())
}

/// The jobs to insert, column by column.
struct JobColumns<'a> {
    id: Vec<Uuid>,
    environment_id: Vec<Uuid>,
    organization_id: Vec<Uuid>,
    notification_id: Vec<Uuid>,
    subscriber_id: Vec<Uuid>,
    workflow_id: Vec<Uuid>,
    step_id: Vec<Option<Uuid>>,
    kind: Vec<JobKind>,
    position: Vec<i32>,
    status: Vec<JobStatus>,
    run_at: Vec<DateTime<Utc>>,
    lease_owner: Vec<Option<&'a str>>,
    attempts: Vec<i32>,
    max_attempts: Vec<i32>,
    provider_id: Vec<&'a str>,
    payload: Vec<&'a Value>,
    overrides: Vec<&'a Value>,
    step: Vec<&'a StepSnapshot>,
    digest: Vec<Option<&'a Value>>,
    digest_key: Vec<Option<&'a str>>,
    digested_into_job_id: Vec<Option<Uuid>>,
    schedule_extensions_count: Vec<i32>,
    transaction_id: Vec<&'a str>,
    error: Vec<Option<&'a str>>,
    created_at: Vec<DateTime<Utc>>,
    updated_at: Vec<DateTime<Utc>>,
    result: Vec<Option<&'a Value>>,
    traceparent: Vec<Option<&'a str>>,
}

impl<'a> JobColumns<'a> {
    fn of(jobs: &'a [Job]) -> Self {
        Self {
            id: jobs.iter().map(|job| job.id).collect(),
            environment_id: jobs.iter().map(|job| job.environment_id).collect(),
            organization_id: jobs.iter().map(|job| job.organization_id).collect(),
            notification_id: jobs.iter().map(|job| job.notification_id).collect(),
            subscriber_id: jobs.iter().map(|job| job.subscriber_id).collect(),
            workflow_id: jobs.iter().map(|job| job.workflow_id).collect(),
            step_id: jobs.iter().map(|job| job.step_id).collect(),
            kind: jobs.iter().map(|job| job.kind).collect(),
            position: jobs.iter().map(|job| job.position).collect(),
            status: jobs.iter().map(|job| job.status).collect(),
            run_at: jobs.iter().map(|job| job.run_at).collect(),
            lease_owner: jobs.iter().map(|job| job.lease_owner.as_deref()).collect(),
            attempts: jobs.iter().map(|job| job.attempts).collect(),
            max_attempts: jobs.iter().map(|job| job.max_attempts).collect(),
            provider_id: jobs.iter().map(|job| job.provider_id.as_str()).collect(),
            payload: jobs.iter().map(|job| &job.payload).collect(),
            overrides: jobs.iter().map(|job| &job.overrides).collect(),
            step: jobs.iter().map(|job| &job.step).collect(),
            digest: jobs.iter().map(|job| job.digest.as_ref()).collect(),
            digest_key: jobs.iter().map(|job| job.digest_key.as_deref()).collect(),
            digested_into_job_id: jobs.iter().map(|job| job.digested_into_job_id).collect(),
            schedule_extensions_count: jobs.iter().map(|job| job.schedule_extensions_count).collect(),
            transaction_id: jobs.iter().map(|job| job.transaction_id.as_str()).collect(),
            error: jobs.iter().map(|job| job.error.as_deref()).collect(),
            created_at: jobs.iter().map(|job| job.created_at).collect(),
            updated_at: jobs.iter().map(|job| job.updated_at).collect(),
            result: jobs.iter().map(|job| job.result.as_ref()).collect(),
            traceparent: jobs.iter().map(|job| job.traceparent.as_deref()).collect(),
        }
    }
}

static_query_id!(JobColumns);

impl QueryFragment<Pg> for JobColumns<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "INSERT INTO jobs (id, environment_id, organization_id, notification_id, subscriber_id, workflow_id, \
             step_id, type, position, status, run_at, lease_owner, attempts, max_attempts, provider_id, payload, \
             overrides, step, digest, digest_key, digested_into_job_id, schedule_extensions_count, transaction_id, \
             error, created_at, updated_at, result, traceparent) SELECT * FROM unnest(",
        );
        bind_arrays!(out;
            SqlUuid: self.id, SqlUuid: self.environment_id, SqlUuid: self.organization_id,
            SqlUuid: self.notification_id, SqlUuid: self.subscriber_id, SqlUuid: self.workflow_id,
            Nullable<SqlUuid>: self.step_id, Text: self.kind, Int4: self.position, Text: self.status,
            Timestamptz: self.run_at, Nullable<Text>: self.lease_owner, Int4: self.attempts,
            Int4: self.max_attempts, Text: self.provider_id, Jsonb: self.payload, Jsonb: self.overrides,
            Jsonb: self.step, Nullable<Jsonb>: self.digest, Nullable<Text>: self.digest_key,
            Nullable<SqlUuid>: self.digested_into_job_id, Int4: self.schedule_extensions_count,
            Text: self.transaction_id, Nullable<Text>: self.error, Timestamptz: self.created_at,
            Timestamptz: self.updated_at, Nullable<Jsonb>: self.result, Nullable<Text>: self.traceparent,
        );
        out.push_sql(")");
        Ok(())
    }
}
