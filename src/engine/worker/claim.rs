//! Claiming due jobs, in the batch's transaction: one short statement locks a batch (skipping rows
//! other workers hold); the jobs that call out of the database (providers, webhooks, the custom
//! step's endpoint) are then leased, marked running under this worker's lease so that the transaction
//! can commit before their calls. The jobs that run in the database (`JobKind::runs_in_database`)
//! are run and written in that same transaction instead.

use std::collections::HashMap;

use chrono::{DateTime, TimeDelta, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Int8, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use crate::engine::jobs::Job;
use crate::error::AppResult;
use crate::workflow::JobStatus;

/// A claimed job and the status it had: `running` means its previous worker stopped mid-step.
#[derive(Debug, Clone, QueryableByName)]
pub struct Claimed {
    #[diesel(embed)]
    pub job: Job,
    #[diesel(sql_type = Text)]
    pub previous_status: JobStatus,
}

/// The lease of one batch: a holder name of its own (the process's name and a fresh id) and its end.
/// Being unique to the batch, it finds the batch's jobs again when the claim's answer was lost (the
/// connection cut after its commit), without touching the jobs of the process's other loops.
#[derive(Debug, Clone)]
pub struct BatchLease {
    pub holder: String,
    pub until: DateTime<Utc>,
}

impl BatchLease {
    pub fn new(process: &str, now: DateTime<Utc>, lease: TimeDelta) -> Self {
        Self { holder: format!("{process}/{}", uuid::Uuid::now_v7().simple()), until: now + lease }
    }
}

/// Locks up to `limit` jobs due at `now` until the transaction ends; returns them in due order.
pub async fn lock_due_jobs(conn: &mut AsyncPgConnection, limit: i64, now: DateTime<Utc>) -> AppResult<Vec<Claimed>> {
    // `claim_due_jobs` (a migration) reads the due-jobs index in due order whatever the statistics say:
    // planned here, a backlog the statistics had not seen was read and sorted whole by every claim.
    // `type_` is the name the row struct reads the `type` column by.
    let due = diesel::sql_query(
        "SELECT j.*, j.type AS type_, j.status AS previous_status FROM claim_due_jobs($1, $2) AS j ORDER BY j.run_at",
    )
    .bind::<Timestamptz, _>(now)
    .bind::<Int8, _>(limit)
    .load(conn)
    .await?;
    Ok(due)
}

/// Marks the locked `jobs` running under `lease` (one more attempt each) and returns them so.
pub async fn lease_jobs(
    conn: &mut AsyncPgConnection,
    jobs: Vec<Claimed>,
    lease: &BatchLease,
    now: DateTime<Utc>,
) -> AppResult<Vec<Claimed>> {
    if jobs.is_empty() {
        return Ok(jobs);
    }
    let ids: Vec<Uuid> = jobs.iter().map(|claimed| claimed.job.id).collect();
    let leased: Vec<Job> = diesel::sql_query(
        "UPDATE jobs AS j
         SET status = 'running', run_at = $3, lease_owner = $4, attempts = j.attempts + 1, updated_at = $2
         WHERE j.id = ANY($1)
         RETURNING j.*, j.type AS type_",
    )
    .bind::<Array<SqlUuid>, _>(&ids)
    .bind::<Timestamptz, _>(now)
    .bind::<Timestamptz, _>(lease.until)
    .bind::<Text, _>(&lease.holder)
    .load(conn)
    .await?;
    let mut leased: HashMap<Uuid, Job> = leased.into_iter().map(|job| (job.id, job)).collect();
    Ok(jobs
        .into_iter()
        .filter_map(|claimed| {
            leased.remove(&claimed.job.id).map(|job| Claimed { job, previous_status: claimed.previous_status })
        })
        .collect())
}

#[derive(QueryableByName)]
struct NextDue {
    #[diesel(sql_type = Nullable<Timestamptz>)]
    run_at: Option<DateTime<Utc>>,
}

/// When the next job becomes due (a delay ending, a lease expiring), if any is waiting.
pub async fn next_due_at(conn: &mut AsyncPgConnection) -> AppResult<Option<DateTime<Utc>>> {
    let next: NextDue =
        diesel::sql_query("SELECT min(run_at) AS run_at FROM jobs WHERE status IN ('queued', 'delayed', 'running')")
            .get_result(conn)
            .await?;
    Ok(next.run_at)
}
