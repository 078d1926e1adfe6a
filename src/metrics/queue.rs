//! The job queue as a scrape sees it: live jobs by status, and how long the oldest due job has waited.
//! Two queries per scrape (every 15–60 s), both on `jobs_due_idx` (its predicate spelled as literals).

use diesel::sql_types::{BigInt, Double, Text};
use diesel_async::RunQueryDsl;

use diesel_async::AsyncPgConnection;

#[derive(diesel::QueryableByName)]
struct StatusCount {
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = BigInt)]
    jobs: i64,
}

#[derive(diesel::QueryableByName)]
struct OldestDue {
    #[diesel(sql_type = Double)]
    age: f64,
}

/// The statuses of a job not finished yet, as the gauge labels them.
pub(super) const LIVE_STATUSES: [&str; 4] = ["pending", "queued", "delayed", "running"];

/// Live jobs by status (every status present, 0 when none) and the oldest due job's wait in seconds.
/// A due job is one the claim would take now: queued or delayed with its time reached, or running
/// with its lease expired.
pub(super) async fn read(conn: &mut AsyncPgConnection) -> diesel::QueryResult<([i64; 4], f64)> {
    let counts: Vec<StatusCount> = diesel::sql_query(
        "SELECT status, count(*) AS jobs FROM jobs
         WHERE status IN ('pending', 'queued', 'delayed', 'running') GROUP BY status",
    )
    .load(conn)
    .await?;
    let oldest: OldestDue = diesel::sql_query(
        "SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(run_at)), 0)::float8 AS age FROM jobs
         WHERE status IN ('queued', 'delayed', 'running') AND run_at <= now()",
    )
    .get_result(conn)
    .await?;
    let by_status =
        LIVE_STATUSES.map(|status| counts.iter().find(|count| count.status == status).map_or(0, |count| count.jobs));
    Ok((by_status, oldest.age.max(0.0)))
}
