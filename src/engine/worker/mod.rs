//! Workers: loops that claim due jobs in batches, run them and write their outcomes. They sleep until
//! woken by `NOTIFY` (a trigger, a finished step), until the next job falls due, or for at most the
//! poll interval, whichever comes first; the poll also recovers from a lost listener connection.

mod claim;
mod commit;
mod job_updates;
mod release;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::future::BoxFuture;
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, StreamExt};
use tokio::sync::{watch, Notify};
use tracing::Instrument;

pub use super::runtime::{WorkerSettings, WorkerShared};
use claim::BatchLease;
pub use claim::Claimed;
pub use commit::{JobsAre, Written};

use super::steps::context::{BatchContext, Known};
use super::steps::{run_job, CallStarts, Outcome, StepInput};
use super::wake::Due;
use super::{fanouts, retention, unsnooze};

use crate::db::batch::plan_generically;
use crate::engine::jobs::Job;
use crate::error::{AppError, AppResult};
use crate::telemetry;
use crate::workflow::JobStatus;

/// Runs the worker loops and the listener until `stop` turns true; in-flight batches finish first.
pub async fn run_workers(shared: Arc<WorkerShared>, stop: watch::Receiver<bool>) {
    let wake = shared.engine.wakeup.local(Due::Jobs);
    let listener = tokio::spawn(listen(shared.clone(), stop.clone()));
    let sweeper = shared
        .settings
        .retention
        .map(|retention| tokio::spawn(retention::sweep_periodically(shared.clone(), retention, stop.clone())));
    let mut loops: Vec<_> = (0..shared.settings.concurrency.max(1))
        .map(|_| tokio::spawn(batch_loop(shared.clone(), wake.clone(), stop.clone())))
        .collect();
    let fanouts_wake = shared.engine.wakeup.local(Due::Fanouts);
    loops.push(tokio::spawn(fanouts::run_fanouts(shared.clone(), fanouts_wake, stop.clone())));
    loops.push(tokio::spawn(unsnooze::unsnooze_periodically(shared.clone(), stop.clone())));
    for handle in loops {
        let _ = handle.await;
    }
    listener.abort();
    if let Some(sweeper) = sweeper {
        sweeper.abort();
    }
}

async fn batch_loop(shared: Arc<WorkerShared>, wake: Arc<Notify>, mut stop: watch::Receiver<bool>) {
    let mut failures_in_a_row = 0;
    let mut limit = shared.settings.batch_size;
    while !*stop.borrow() {
        let notified = wake.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let pause = match run_batch(&shared, limit).await {
            Ok(batch) if batch.claimed == 0 => {
                limit = shared.settings.batch_size;
                idle_pause(&shared).await
            }
            Ok(batch) => {
                failures_in_a_row = 0;
                limit = batch.next_limit(&shared.settings, limit);
                continue;
            }
            Err(failure) => {
                failures_in_a_row += 1;
                limit = shared.settings.batch_size;
                let backoff = release::backoff(failures_in_a_row);
                tracing::warn!(error = %failure.error, "worker batch failed; releasing its jobs");
                if let Some(lease) = &failure.lease {
                    release::release_jobs(&shared, lease, backoff).await;
                }
                backoff
            }
        };
        tokio::select! {
            _ = &mut notified => {}
            _ = tokio::time::sleep(pause) => {}
            _ = stop.changed() => {}
        }
    }
}

/// How long to sleep with nothing due: until the next job falls due, at most the poll interval.
async fn idle_pause(shared: &WorkerShared) -> Duration {
    let poll = shared.settings.poll_interval;
    let Ok(mut conn) = shared.pool.get().await else { return poll };
    match claim::next_due_at(&mut conn).await {
        Ok(Some(next)) => (next - shared.engine.clock.now()).to_std().unwrap_or(Duration::ZERO).min(poll),
        _ => poll,
    }
}

/// What a batch claimed, which decides how many jobs its loop claims next.
struct ClaimSize {
    claimed: usize,
    /// Whether any of them calls out of the database (a provider, a webhook, a custom step's endpoint).
    calls_out: bool,
}

impl ClaimSize {
    /// A batch that came back full of jobs run in the database means a backlog of them: the next claim
    /// takes `backlog_batch_size`, and their statements, round trips and commit are paid once for that
    /// many (a 100,000-member topic's in-app messages were delivered 1.35× as fast with batches of 400
    /// as with 100, docs/performance.md). Any other batch keeps `batch_size`, which also bounds the
    /// provider calls a batch makes at once.
    fn next_limit(&self, settings: &WorkerSettings, limit: i64) -> i64 {
        if self.claimed as i64 >= limit && !self.calls_out {
            settings.backlog_batch_size
        } else {
            settings.batch_size
        }
    }
}

/// A batch that failed, and its lease once the claim was sent: even a claim that answered an error may
/// have committed (the connection cut after its commit), so its jobs are given back too.
struct BatchFailure {
    error: AppError,
    lease: Option<BatchLease>,
}

/// Claims a batch of at most `limit` jobs, runs it and writes its outcomes.
///
/// The claiming transaction locks the batch, runs the jobs that reach nothing outside the database
/// (`JobKind::runs_in_database`: in-app and delay steps) and writes their outcomes, and leases the
/// others. A crash before it commits leaves every job of the batch due as if never claimed, so the
/// in-database ones run exactly once, with one transaction and one update per job. The leased ones
/// run after the commit, outside any transaction (provider calls may take seconds), and their
/// outcomes are committed as they finish (at most once: see `steps::delivery`). At most `batch_size` of
/// them are leased: the rest of a larger claim stays due for the next one (its locks end at the commit).
async fn run_batch(shared: &WorkerShared, limit: i64) -> Result<ClaimSize, BatchFailure> {
    // Claims wait for a turn: fewer, larger batches cost PostgreSQL less a job than many small ones
    // (docs/performance.md). The turn ends with the claiming transaction; leased jobs run without one.
    let turn = shared.claim_turns.acquire().await.expect("the claim semaphore is never closed");
    let now = shared.engine.clock.now();
    let lease = TimeDelta::from_std(shared.settings.lease).unwrap_or(TimeDelta::seconds(60));
    let lease = BatchLease::new(&shared.owner, now, lease);
    let mut conn = shared.pool.get().await.map_err(|error| BatchFailure { error: error.into(), lease: None })?;
    let failed = |error| BatchFailure { error, lease: Some(lease.clone()) };
    let (size, leased, written) = conn
        .transaction::<_, AppError, _>(async |conn| {
            let due = claim::lock_due_jobs(conn, limit, now).await?;
            let claimed = due.len();
            let (in_database, mut outside): (Vec<_>, Vec<_>) =
                due.into_iter().partition(|claimed| claimed.job.kind.runs_in_database());
            let size = ClaimSize { claimed, calls_out: !outside.is_empty() };
            // Due order: the jobs left are the latest due.
            outside.truncate(usize::try_from(shared.settings.batch_size).unwrap_or(usize::MAX));
            let leased = claim::lease_jobs(conn, outside, &lease, now).await?;
            let written = run_in_database(conn, shared, in_database, Known::default(), JobsAre::Claimed, now).await?;
            Ok((size, leased, written))
        })
        .await
        .map_err(failed)?;
    drop(conn);
    drop(turn);
    if let Some(written) = written {
        written.announce(shared);
    }
    if !leased.is_empty() {
        for claimed in &leased {
            shared.engine.metrics.job(claimed.job.kind.as_str(), "claimed");
        }
        run_claimed(shared, &lease, &leased, now).await.map_err(failed)?;
    }
    Ok(size)
}

/// Runs jobs that reach nothing outside the database and writes their outcomes, in the transaction
/// that claimed them, or that creates them (`jobs_are`: a topic page's first steps, whose notifications
/// and subscribers the page knows) (each is one more attempt, as a lease would count it).
pub async fn run_in_database(
    conn: &mut AsyncPgConnection,
    shared: &WorkerShared,
    claimed: Vec<Claimed>,
    known: Known,
    jobs_are: JobsAre,
    now: DateTime<Utc>,
) -> AppResult<Option<Written>> {
    if claimed.is_empty() {
        return Ok(None);
    }
    let (mut jobs, previous_statuses): (Vec<Job>, Vec<JobStatus>) =
        claimed.into_iter().map(|claimed| (claimed.job, claimed.previous_status)).unzip();
    for job in &mut jobs {
        job.attempts += 1;
        shared.engine.metrics.job(job.kind.as_str(), "claimed");
    }
    let batch = BatchContext::load(conn, &shared.cipher, &shared.snapshots, &jobs, known).await?;
    // These steps call nothing outside the database, so record no calls.
    let calls = CallStarts::default();
    let mut outcomes = Vec::with_capacity(jobs.len());
    for (job, previous_status) in jobs.iter().zip(previous_statuses) {
        let input = StepInput { job, batch: &batch, calls: &calls, now };
        let mut outcome = run_job(shared, input, previous_status).instrument(job_span(job)).await;
        outcome.attempts.get_or_insert(job.attempts);
        outcomes.push(outcome);
    }
    let ended: Vec<_> = outcomes.iter().map(|outcome| (outcome.job.kind.as_str(), outcome.status.as_str())).collect();
    // Only the writes: the claim and the context's reads keep custom plans. Planned generically,
    // `notifications.id = ANY($1)` kept the plan made while the table was nearly empty (a scan): 15 ms
    // a batch instead of a fraction of one in a 20,000-trigger run (pg_stat_statements).
    plan_generically(conn).await?;
    let written = commit::write_outcomes(conn, outcomes, jobs_are, now).await?;
    for (step_type, status) in ended {
        shared.engine.metrics.job(step_type, status);
    }
    Ok(Some(written))
}

/// The span of one job: every line a step logs names its job, environment and transactionId (and
/// with traces on, the trace of the request that triggered it, which the span continues).
fn job_span(job: &Job) -> tracing::Span {
    let span = tracing::info_span!(
        "job",
        job_id = %job.id,
        step_type = job.kind.as_str(),
        environment_id = %job.environment_id,
        transaction_id = %job.transaction_id,
        trace_id = tracing::field::Empty,
        span_id = tracing::field::Empty,
    );
    telemetry::continue_from(&span, job.traceparent.as_deref());
    span
}

/// Loads what the leased jobs need, runs them and writes their outcomes as they finish: whatever has
/// finished is committed together, so a slow provider call (up to its timeout) does not hold back the
/// commit of the rest of its batch.
async fn run_claimed(
    shared: &WorkerShared,
    lease: &BatchLease,
    claimed: &[Claimed],
    now: DateTime<Utc>,
) -> AppResult<()> {
    let batch = {
        let mut conn = shared.pool.get().await?;
        let jobs: Vec<_> = claimed.iter().map(|claimed| claimed.job.clone()).collect();
        BatchContext::load(&mut conn, &shared.cipher, &shared.snapshots, &jobs, Known::default()).await?
    };
    // No connection is held while steps run: provider calls may take seconds. The steps of a batch run
    // concurrently (a for loop, not a closure: spawned futures cannot hold a closure over borrowed jobs),
    // and record their calls together (`CallStarts`).
    let calls = CallStarts::default();
    let mut running = FuturesUnordered::new();
    for claimed in claimed {
        let job = &claimed.job;
        let input = StepInput { job, batch: &batch, calls: &calls, now };
        running.push(run_job(shared, input, claimed.previous_status).instrument(job_span(job)));
    }
    // The steps are polled while a commit is in flight: the write of their call records takes a pooled
    // connection, and left unpolled it keeps the connection (or its turn for one) that the commit waits
    // for. Awaiting the commit alone, when each step recorded its own call, a batch with more steps than
    // the pool's free connections waited out the pool (10 s) at every commit and failed, again and again:
    // with the default settings none of 1,000 emails finished (`scripts/bench-email.sh`), and the steps
    // cut off mid-call were left in doubt.
    let mut finished = Vec::new();
    let mut committing: Option<BoxFuture<'_, AppResult<()>>> = None;
    loop {
        if committing.is_none() && !finished.is_empty() {
            committing = Some(commit_finished(shared, lease, std::mem::take(&mut finished)).boxed());
        }
        tokio::select! {
            Some(outcome) = running.next(), if !running.is_empty() => finished.push(outcome),
            committed = async { committing.as_mut().expect("a commit is in flight").await }, if committing.is_some() => {
                committing = None;
                committed?;
            }
            else => return Ok(()),
        }
    }
}

/// Commits the outcomes of steps that finished together.
async fn commit_finished(shared: &WorkerShared, lease: &BatchLease, finished: Vec<Outcome>) -> AppResult<()> {
    let ended: Vec<_> = finished.iter().map(|outcome| (outcome.job.kind.as_str(), outcome.status.as_str())).collect();
    let mut conn = shared.pool.get().await?;
    commit::commit_outcomes(&mut conn, shared, lease, finished, shared.engine.clock.now()).await?;
    for (step_type, status) in ended {
        shared.engine.metrics.job(step_type, status);
    }
    Ok(())
}

/// Holds a connection listening on the wake channel and wakes the idle loops of the kind each
/// notification names; reconnects after a failure (the poll covers the gap).
async fn listen(shared: Arc<WorkerShared>, stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        if let Err(error) = listen_once(&shared).await {
            tracing::warn!(%error, "worker listener lost its connection; polling until it is back");
        }
        tokio::time::sleep(shared.settings.poll_interval).await;
    }
}

async fn listen_once(shared: &WorkerShared) -> AppResult<()> {
    let mut conn = shared.pool.get().await?;
    diesel::sql_query(format!("LISTEN \"{}\"", shared.engine.wake_channel)).execute(&mut conn).await?;
    let mut notifications = std::pin::pin!(conn.notifications_stream());
    while let Some(notification) = notifications.next().await {
        shared.engine.wakeup.wake_local(Due::of_payload(&notification?.payload));
    }
    Ok(())
}
