//! Workers: loops that claim due jobs in batches, run them and write their outcomes. They sleep until
//! woken by `NOTIFY` (a trigger, a finished step), until the next job falls due, or for at most the
//! poll interval, whichever comes first; the poll also recovers from a lost listener connection.

mod claim;
mod commit;
mod release;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use diesel_async::RunQueryDsl;
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, StreamExt};
use tokio::sync::{watch, Notify};
use tracing::Instrument;

pub use super::runtime::{WorkerSettings, WorkerShared};
use claim::BatchLease;

use super::steps::context::BatchContext;
use super::steps::{run_job, StepInput};
use super::{retention, topic_fanout, unsnooze};

use crate::error::{AppError, AppResult};
use crate::telemetry;

/// Runs the worker loops and the listener until `stop` turns true; in-flight batches finish first.
pub async fn run_workers(shared: Arc<WorkerShared>, stop: watch::Receiver<bool>) {
    let wake = shared.engine.wakeup.local.clone();
    let listener = tokio::spawn(listen(shared.clone(), wake.clone(), stop.clone()));
    let sweeper = shared
        .settings
        .retention
        .map(|retention| tokio::spawn(retention::sweep_periodically(shared.clone(), retention, stop.clone())));
    let mut loops: Vec<_> = (0..shared.settings.concurrency.max(1))
        .map(|_| tokio::spawn(batch_loop(shared.clone(), wake.clone(), stop.clone())))
        .collect();
    loops.push(tokio::spawn(topic_fanout::run_fanouts(shared.clone(), wake.clone(), stop.clone())));
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
    while !*stop.borrow() {
        let notified = wake.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let pause = match run_batch(&shared).await {
            Ok(0) => idle_pause(&shared).await,
            Ok(_) => {
                failures_in_a_row = 0;
                continue;
            }
            Err(failure) => {
                failures_in_a_row += 1;
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

/// A batch that failed, and its lease once the claim was sent: even a claim that answered an error may
/// have committed (the connection cut after its commit), so its jobs are given back too.
struct BatchFailure {
    error: AppError,
    lease: Option<BatchLease>,
}

/// Claims one batch, runs it and writes its outcomes; returns how many jobs it claimed.
async fn run_batch(shared: &WorkerShared) -> Result<usize, BatchFailure> {
    let now = shared.engine.clock.now();
    let lease = TimeDelta::from_std(shared.settings.lease).unwrap_or(TimeDelta::seconds(60));
    let lease = BatchLease::new(&shared.owner, now, lease);
    let mut conn = shared.pool.get().await.map_err(|error| BatchFailure { error: error.into(), lease: None })?;
    let failed = |error| BatchFailure { error, lease: Some(lease.clone()) };
    let claimed = claim::claim_due_jobs(&mut conn, &lease, shared.settings.batch_size, now).await.map_err(failed)?;
    drop(conn);
    if claimed.is_empty() {
        return Ok(0);
    }
    for claimed in &claimed {
        shared.engine.metrics.job(claimed.job.kind.as_str(), "claimed");
    }
    run_claimed(shared, &lease, &claimed, now).await.map_err(failed)?;
    Ok(claimed.len())
}

/// Loads what the claimed jobs need, runs them and writes their outcomes as they finish: whatever has
/// finished is committed together, so a slow provider call (up to its timeout) does not hold back the
/// commit of the rest of its batch, and a batch of in-app steps, which all finish at once, is one commit.
async fn run_claimed(
    shared: &WorkerShared,
    lease: &BatchLease,
    claimed: &[claim::Claimed],
    now: DateTime<Utc>,
) -> AppResult<()> {
    let batch = {
        let mut conn = shared.pool.get().await?;
        let jobs: Vec<_> = claimed.iter().map(|claimed| claimed.job.clone()).collect();
        BatchContext::load(&mut conn, &shared.cipher, &jobs).await?
    };
    // No connection is held while steps run: provider calls may take seconds. The steps of a batch run
    // concurrently (a for loop, not a closure: spawned futures cannot hold a closure over borrowed jobs).
    let mut running = FuturesUnordered::new();
    for claimed in claimed {
        let job = &claimed.job;
        let input = StepInput { job, batch: &batch, now };
        // Every line a step logs names its job, environment and transactionId (and with traces on, the
        // trace of the request that triggered it, which the span continues).
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
        running.push(run_job(shared, input, claimed.previous_status).instrument(span));
    }
    while let Some(first) = running.next().await {
        let mut finished = vec![first];
        while let Some(Some(outcome)) = running.next().now_or_never() {
            finished.push(outcome);
        }
        let ended: Vec<_> =
            finished.iter().map(|outcome| (outcome.job.kind.as_str(), outcome.status.as_str())).collect();
        let mut conn = shared.pool.get().await?;
        commit::commit_outcomes(&mut conn, shared, lease, finished, shared.engine.clock.now()).await?;
        for (step_type, status) in ended {
            shared.engine.metrics.job(step_type, status);
        }
    }
    Ok(())
}

/// Holds a connection listening on the wake channel and wakes one idle loop per notification;
/// reconnects after a failure (the poll covers the gap).
async fn listen(shared: Arc<WorkerShared>, wake: Arc<Notify>, stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        if let Err(error) = listen_once(&shared, &wake).await {
            tracing::warn!(%error, "worker listener lost its connection; polling until it is back");
        }
        tokio::time::sleep(shared.settings.poll_interval).await;
    }
}

async fn listen_once(shared: &WorkerShared, wake: &Notify) -> AppResult<()> {
    let mut conn = shared.pool.get().await?;
    diesel::sql_query(format!("LISTEN \"{}\"", shared.engine.wake_channel)).execute(&mut conn).await?;
    let mut notifications = std::pin::pin!(conn.notifications_stream());
    while let Some(notification) = notifications.next().await {
        notification?;
        wake.notify_waiters();
    }
    Ok(())
}
