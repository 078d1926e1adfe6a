//! Claiming due jobs: one short statement that locks a batch (skipping rows other workers hold),
//! marks it running under this worker's lease and returns it.

use chrono::{DateTime, TimeDelta, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Int8, Nullable, Text, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};

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

/// Claims up to `limit` jobs due at `now` under `lease`.
pub async fn claim_due_jobs(
    conn: &mut AsyncPgConnection,
    lease: &BatchLease,
    limit: i64,
    now: DateTime<Utc>,
) -> AppResult<Vec<Claimed>> {
    // The status list is a literal so the planner can prove `jobs_due_idx`'s predicate. `type_` is the
    // name the row struct reads the `type` column by.
    let claimed = diesel::sql_query(
        "WITH due AS (
             SELECT id, status AS previous_status FROM jobs
             WHERE status IN ('queued', 'delayed', 'running') AND run_at <= $1
             ORDER BY run_at
             LIMIT $2
             FOR UPDATE SKIP LOCKED
         )
         UPDATE jobs AS j
         SET status = 'running', run_at = $3, lease_owner = $4, attempts = j.attempts + 1, updated_at = $1
         FROM due
         WHERE j.id = due.id
         RETURNING j.*, j.type AS type_, due.previous_status",
    )
    .bind::<Timestamptz, _>(now)
    .bind::<Int8, _>(limit)
    .bind::<Timestamptz, _>(lease.until)
    .bind::<Text, _>(&lease.holder)
    .load(conn)
    .await?;
    Ok(claimed)
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
