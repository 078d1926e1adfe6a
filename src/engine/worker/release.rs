//! Giving back the jobs of a batch that failed (the database went away under it, a connection was
//! terminated): they become due again after a short backoff instead of waiting out their lease, which
//! is sized for a step's slowest provider call (60 s by default). The failed run does not count as an
//! attempt: the fault was Herald's, not the job's.
//!
//! At most once still holds: a job whose provider call went out before the failure finds its delivery
//! record on the next run (see `steps::delivery`) and does not call again.

use std::time::Duration;

use super::claim::BatchLease;
use super::WorkerShared;
use chrono::TimeDelta;
use diesel::sql_types::{Text, Timestamptz};
use diesel_async::RunQueryDsl;

/// The first backoff after a failed batch; it doubles with each failure in a row.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The longest backoff: a database that stays away is retried every 5 s per loop, a trivial load.
/// It is also how long a released job may wait once the database is back, so it stays short: faults
/// come in bursts (a restart or an administrator ends every connection of the pool, one after the
/// other, each failing a batch), and a 30 s cap reached after eight quick failures in a row left jobs
/// waiting 16–30 s for a database that had been back for as long (seen in `engine::faults`).
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// How long to wait after the `failures_in_a_row`-th failed batch (1 for the first).
pub(super) fn backoff(failures_in_a_row: u32) -> Duration {
    FIRST_BACKOFF.saturating_mul(1 << failures_in_a_row.saturating_sub(1).min(16)).min(MAX_BACKOFF)
}

/// Makes the jobs `lease` still holds due again `after` from now. The database may still be away: it
/// tries until it answers, or until the jobs' lease would have expired anyway.
pub(super) async fn release_jobs(shared: &WorkerShared, lease: &BatchLease, after: Duration) {
    let give_up_at = tokio::time::Instant::now() + shared.settings.lease;
    let mut pause = FIRST_BACKOFF;
    loop {
        match try_release(shared, lease, after).await {
            Ok(released) => {
                tracing::info!(released, "jobs of the failed batch released");
                return;
            }
            Err(error) if tokio::time::Instant::now() + pause < give_up_at => {
                tracing::debug!(%error, "releasing jobs: the database is still away");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(MAX_BACKOFF);
            }
            Err(error) => {
                tracing::warn!(%error, "could not release the failed batch's jobs; their lease frees them");
                return;
            }
        }
    }
}

/// Written jobs no longer have the holder; `run_at` is the lease's end on every job the batch still holds,
/// and lets the statement use the due-jobs index.
async fn try_release(shared: &WorkerShared, lease: &BatchLease, after: Duration) -> anyhow::Result<usize> {
    let mut conn = shared.pool.get().await?;
    let now = shared.engine.clock.now();
    let released = diesel::sql_query(
        "UPDATE jobs SET run_at = $2, attempts = GREATEST(attempts - 1, 0), lease_owner = NULL, updated_at = $1
         WHERE status = 'running' AND run_at = $3 AND lease_owner = $4",
    )
    .bind::<Timestamptz, _>(now)
    .bind::<Timestamptz, _>(now + TimeDelta::from_std(after).unwrap_or_default())
    .bind::<Timestamptz, _>(lease.until)
    .bind::<Text, _>(&lease.holder)
    .execute(&mut conn)
    .await?;
    Ok(released)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_from_a_quarter_second_to_five_seconds() {
        let waits: Vec<u128> = (1..=7).map(|failures| backoff(failures).as_millis()).collect();
        assert_eq!(waits, [250, 500, 1000, 2000, 4000, 5000, 5000]);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }
}
