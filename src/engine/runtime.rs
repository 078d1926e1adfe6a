//! What every worker loop and every step it runs share: the pool, the engine's clock, the providers,
//! the HTTP client of custom steps and this process's lease owner name. It sits beside `worker` and
//! `steps` so that neither imports the other for it.

use std::time::Duration;

use tokio::sync::Semaphore;

use super::jobs::snapshots::SnapshotCache;
use super::EngineContext;
use crate::crypto::CredentialCipher;
use crate::db::DbPool;
use crate::providers::{ProviderSettings, Providers};

/// How workers run.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// Batch loops per process.
    pub concurrency: usize,
    /// Claiming transactions in flight at once, whatever the number of loops.
    pub claims: usize,
    /// Jobs claimed at once by one loop; also the most jobs of a batch that call out of the database.
    pub batch_size: i64,
    /// Jobs claimed at once by a loop draining a backlog of jobs that run in the database (see
    /// `worker::ClaimSize`).
    pub backlog_batch_size: i64,
    /// How long a claimed job is held before another worker may take it over.
    pub lease: Duration,
    /// Longest sleep without a wake-up.
    pub poll_interval: Duration,
    /// What provider adapters may do.
    pub providers: ProviderSettings,
    /// `HERALD_PUBLIC_URL`: where providers reach Herald's status webhooks (per-message callbacks).
    pub public_url: Option<url::Url>,
    /// How long notifications are kept (`None`: forever); see `engine::retention`.
    pub retention: Option<chrono::TimeDelta>,
}

impl From<&crate::config::EngineSettings> for WorkerSettings {
    fn from(settings: &crate::config::EngineSettings) -> Self {
        Self {
            concurrency: settings.worker_concurrency,
            claims: settings.worker_claims,
            batch_size: settings.worker_batch_size,
            backlog_batch_size: settings.worker_backlog_batch_size.max(settings.worker_batch_size),
            lease: Duration::from_secs(settings.job_lease_secs),
            poll_interval: Duration::from_millis(settings.worker_poll_ms),
            // `startup::start` sets the process's own (`StartOptions::provider_settings`).
            providers: ProviderSettings::default(),
            public_url: None,
            retention: (settings.retention_days > 0).then(|| chrono::TimeDelta::days(settings.retention_days.into())),
        }
    }
}

impl Default for WorkerSettings {
    fn default() -> Self {
        Self {
            concurrency: 4,
            claims: 2,
            batch_size: 100,
            backlog_batch_size: 400,
            lease: Duration::from_secs(60),
            poll_interval: Duration::from_secs(1),
            providers: ProviderSettings::default(),
            public_url: None,
            retention: Some(chrono::TimeDelta::days(30)),
        }
    }
}

/// What every loop of a worker process shares.
pub struct WorkerShared {
    pub pool: DbPool,
    pub cipher: CredentialCipher,
    pub engine: EngineContext,
    pub providers: Providers,
    /// HTTP client of custom steps (under the providers' outbound policy: a step's url is the API client's
    /// too).
    pub http: reqwest::Client,
    /// This process's name (unique per start), the prefix of its batches' lease holders.
    pub owner: String,
    pub settings: WorkerSettings,
    /// The step snapshots this process has read.
    pub snapshots: SnapshotCache,
    /// Turns to claim: one permit per claiming transaction in flight (`WorkerSettings::claims`).
    pub claim_turns: Semaphore,
}

impl WorkerShared {
    pub fn new(pool: DbPool, cipher: CredentialCipher, engine: EngineContext, settings: WorkerSettings) -> Self {
        Self {
            pool,
            cipher,
            engine,
            providers: Providers::new(settings.providers.clone()),
            http: settings
                .providers
                .outbound
                .http_client()
                .connect_timeout(Duration::from_secs(5))
                .build()
                .expect("the HTTP client builds"),
            owner: format!("{}-{}", std::process::id(), uuid::Uuid::now_v7().simple()),
            claim_turns: Semaphore::new(settings.claims.max(1)),
            settings,
            snapshots: SnapshotCache::default(),
        }
    }
}
