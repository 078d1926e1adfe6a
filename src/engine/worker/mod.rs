//! Workers: loops that claim due jobs in batches, run them and write their outcomes. They sleep until
//! woken by `NOTIFY` (a trigger, a finished step), until the next job falls due, or for at most the
//! poll interval, whichever comes first; the poll also recovers from a lost listener connection.

mod claim;
mod commit;
pub mod context;
pub mod digest;

use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use diesel_async::RunQueryDsl;
use futures_util::StreamExt;
use tokio::sync::{watch, Notify};

use super::steps::{run_job, StepInput};
use super::EngineContext;
use crate::crypto::CredentialCipher;
use crate::db::DbPool;
use crate::error::AppResult;
use crate::providers::Providers;
pub use commit::{message_row, MessageRow};
use context::BatchContext;

/// How workers run.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// Batch loops per process.
    pub concurrency: usize,
    /// Jobs claimed at once by one loop.
    pub batch_size: i64,
    /// How long a claimed job is held before another worker may take it over.
    pub lease: Duration,
    /// Longest sleep without a wake-up.
    pub poll_interval: Duration,
}

impl From<&crate::config::EngineSettings> for WorkerSettings {
    fn from(settings: &crate::config::EngineSettings) -> Self {
        Self {
            concurrency: settings.worker_concurrency,
            batch_size: settings.worker_batch_size,
            lease: Duration::from_secs(settings.job_lease_secs),
            poll_interval: Duration::from_millis(settings.worker_poll_ms),
        }
    }
}

impl Default for WorkerSettings {
    fn default() -> Self {
        Self { concurrency: 4, batch_size: 100, lease: Duration::from_secs(60), poll_interval: Duration::from_secs(1) }
    }
}

/// What every loop of a worker process shares.
pub struct WorkerShared {
    pub pool: DbPool,
    pub cipher: CredentialCipher,
    pub engine: EngineContext,
    pub providers: Providers,
    /// HTTP client of custom steps.
    pub http: reqwest::Client,
    /// This process's lease owner name (unique per start).
    pub owner: String,
    pub settings: WorkerSettings,
}

impl WorkerShared {
    pub fn new(pool: DbPool, cipher: CredentialCipher, engine: EngineContext, settings: WorkerSettings) -> Self {
        Self {
            pool,
            cipher,
            engine,
            providers: Providers::new(),
            http: reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(5))
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("the HTTP client builds"),
            owner: format!("{}-{}", std::process::id(), uuid::Uuid::now_v7().simple()),
            settings,
        }
    }
}

/// Runs the worker loops and the listener until `stop` turns true; in-flight batches finish first.
pub async fn run_workers(shared: Arc<WorkerShared>, stop: watch::Receiver<bool>) {
    let wake = shared.engine.wakeup.local.clone();
    let listener = tokio::spawn(listen(shared.clone(), wake.clone(), stop.clone()));
    let loops: Vec<_> = (0..shared.settings.concurrency.max(1))
        .map(|_| tokio::spawn(batch_loop(shared.clone(), wake.clone(), stop.clone())))
        .collect();
    for handle in loops {
        let _ = handle.await;
    }
    listener.abort();
}

async fn batch_loop(shared: Arc<WorkerShared>, wake: Arc<Notify>, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        let notified = wake.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let pause = match run_batch(&shared).await {
            Ok(0) => idle_pause(&shared).await,
            Ok(_) => continue,
            Err(error) => {
                tracing::warn!(%error, "worker batch failed; its jobs run again when their lease expires");
                shared.settings.poll_interval
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

/// Claims one batch, runs it and writes its outcomes; returns how many jobs it claimed.
async fn run_batch(shared: &WorkerShared) -> AppResult<usize> {
    let now = shared.engine.clock.now();
    let lease = TimeDelta::from_std(shared.settings.lease).unwrap_or(TimeDelta::seconds(60));
    let (claimed, batch) = {
        let mut conn = shared.pool.get().await?;
        let claimed = claim::claim_due_jobs(&mut conn, &shared.owner, shared.settings.batch_size, now, lease).await?;
        if claimed.is_empty() {
            return Ok(0);
        }
        let jobs: Vec<_> = claimed.iter().map(|claimed| claimed.job.clone()).collect();
        let batch = BatchContext::load(&mut conn, &shared.cipher, &jobs).await?;
        (claimed, batch)
    };
    // No connection is held while steps run: provider calls may take seconds. The steps of a batch run
    // concurrently (a for loop, not a closure: spawned futures cannot hold a closure over borrowed jobs).
    let mut running = Vec::with_capacity(claimed.len());
    for claimed in &claimed {
        let input = StepInput { job: &claimed.job, batch: &batch, now };
        running.push(run_job(shared, input, &claimed.previous_status));
    }
    let outcomes = futures_util::future::join_all(running).await;
    let mut conn = shared.pool.get().await?;
    commit::commit_outcomes(&mut conn, shared, outcomes, shared.engine.clock.now()).await?;
    Ok(claimed.len())
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
