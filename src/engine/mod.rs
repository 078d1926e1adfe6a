//! The delivery engine: the trigger's fan-out into notifications and jobs, the durable job queue and
//! its workers, the steps they run and Liquid rendering (the workflow model, filters included, is
//! `crate::workflow`). `docs/engine.md` describes the
//! flow and what the job and message rows hold.

pub mod clock;
pub mod delivery_status;
pub mod details;
pub mod digest_windows;
pub mod fanouts;
pub mod jobs;
pub mod render;
pub mod retention;
pub mod runtime;
pub mod steps;
pub mod trigger;
pub mod unsnooze;
pub mod wake;
pub mod worker;

pub use clock::Clock;

use std::sync::Arc;

use crate::domain::inbox::InboxFeed;
use crate::domain::workflows::WorkflowCache;
use crate::error;
use crate::metrics::Metrics;

/// What the API and the workers share about the engine.
#[derive(Debug, Clone)]
pub struct EngineContext {
    pub clock: Clock,
    /// The `NOTIFY` channel of this database schema's workers.
    pub wake_channel: String,
    pub wakeup: wake::Wakeup,
    /// Workflow definitions for the trigger path.
    pub workflows: WorkflowCache,
    /// The group-commit queue of triggers.
    pub ingest: trigger::ingest::Ingest,
    /// The process's Prometheus metrics.
    pub metrics: Arc<Metrics>,
    /// Wakes the inbox event streams of this process and, by `NOTIFY`, of the others.
    pub inbox_feed: InboxFeed,
}

impl EngineContext {
    /// The context of a process using `pool`, with its notifier task started.
    pub async fn start(pool: &crate::db::DbPool, clock: Clock) -> error::AppResult<Self> {
        let wake_channel = wake::wake_channel(&mut *pool.get().await?).await?;
        let wakeup = wake::Wakeup::start(pool.clone(), wake_channel.clone());
        let metrics = Arc::new(Metrics::new(pool));
        let ingest = trigger::ingest::Ingest::start(pool.clone(), wakeup.clone(), metrics.clone());
        let inbox_feed = InboxFeed::start(pool.clone());
        Ok(Self { clock, wake_channel, wakeup, workflows: WorkflowCache::default(), ingest, metrics, inbox_feed })
    }
}
