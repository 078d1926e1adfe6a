//! The update that leaves each claimed job of a batch as its outcome says, in one statement whose
//! columns travel as typed arrays (`db::unnest`).

use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{Int4, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use crate::db::unnest::{bind_arrays, static_query_id};
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
