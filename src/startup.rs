//! Starting a Herald process, shared by `src/main.rs` and the test harness: the engine context, the
//! worker loops, the router and the server, each optional as the process's role decides.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::app::{AppState, SharedState};
use crate::config::RateLimitSettings;
use crate::crypto::CredentialCipher;
use crate::db::DbPool;
use crate::domain::inbox::SessionTokens;
use crate::engine::delivery_status::SnsCertificates;
use crate::engine::worker::{run_workers, WorkerSettings, WorkerShared};
use crate::engine::{Clock, EngineContext};
use crate::health::{Health, WorkersAlive};
use crate::metrics;
use crate::providers::ProviderSettings;
use crate::rate_limit::{processes, RateLimits};
use crate::server;

/// How long a stopping server waits for its open requests before closing them.
const REQUEST_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// What a process runs.
pub struct StartOptions {
    pub pool: DbPool,
    pub cipher: CredentialCipher,
    /// The engine's clock: the system's, or one a test moves forward.
    pub clock: Clock,
    /// Serves REST and gRPC on this listener; `None` for a worker-only process.
    pub listener: Option<TcpListener>,
    /// Serves `/metrics`, `/healthz` and `/readyz` on this listener (`HERALD_METRICS_ADDR`), whatever
    /// the role: the operator's port, kept apart from the API's.
    pub metrics_listener: Option<TcpListener>,
    /// Runs worker loops with these settings; `None` for an API-only process.
    pub workers: Option<WorkerSettings>,
    /// Served like Herald's own REST routes (same authentication, error rendering and panic
    /// handling); tests use them to provoke failures.
    pub extra_rest_routes: Router,
    /// `HERALD_PUBLIC_URL`, for verifying delivery-status webhooks signed over their URL.
    pub public_url: Option<url::Url>,
    /// What the operator allows of provider endpoints and outbound connections, for the workers (they
    /// replace [`WorkerSettings::providers`]) and the API process alike (SNS certificate hosts are checked
    /// by the same rule as the workers' adapters).
    pub provider_settings: ProviderSettings,
    /// Requests per second per environment (`HERALD_RATE_LIMIT_*`).
    pub rate_limits: RateLimitSettings,
    /// The application identifier the inbox demo page names by default (`domain::seed::prepare_inbox_demo`).
    pub inbox_demo_application: Option<String>,
}

/// A started process; [`shutdown`](Self::shutdown) stops it in order.
pub struct Running {
    /// What `/readyz` and the gRPC health service report; drained first on shutdown.
    pub health: Arc<Health>,
    server: Option<JoinHandle<std::io::Result<()>>>,
    workers: Option<JoinHandle<()>>,
    operations: Option<JoinHandle<std::io::Result<()>>>,
    stop_server: watch::Sender<bool>,
    stop_workers: watch::Sender<bool>,
}

/// Starts the engine context, then the workers and the server that `options` ask for.
pub async fn start(options: StartOptions) -> anyhow::Result<Running> {
    let StartOptions {
        pool,
        cipher,
        clock,
        listener,
        metrics_listener,
        workers,
        extra_rest_routes,
        public_url,
        provider_settings,
        rate_limits,
        inbox_demo_application,
    } = options;
    let engine = EngineContext::start(&pool, clock).await?;
    let (stop_workers, stop) = watch::channel(false);
    let (stop_server, mut stopped) = watch::channel(false);
    let workers_alive = workers.as_ref().map(|_| WorkersAlive::default());
    let (health_reporter, grpc_health) = tonic_health::server::health_reporter();
    let health = Arc::new(Health::new(pool.clone(), health_reporter, workers_alive.clone()));
    let workers = workers.zip(workers_alive).map(|(mut settings, alive)| {
        // One setting for both ends of a status webhook: the URL providers are told, and checked against.
        settings.public_url = public_url.clone();
        // One set of provider settings (and one outbound policy) for the process: the workers' clients and
        // the API's SNS certificate fetch.
        settings.providers = provider_settings.clone();
        let shared = WorkerShared::new(pool.clone(), cipher.clone(), engine.clone(), settings);
        tracing::info!(owner = %shared.owner, "workers started");
        let running = alive.running();
        tokio::spawn(async move {
            let _running = running;
            run_workers(Arc::new(shared), stop).await;
        })
    });
    // The operations port stays up until the workers stop, so that `/readyz` shows the drain.
    let operations = match metrics_listener {
        Some(listener) => {
            tracing::info!(addr = %listener.local_addr()?, "Herald is serving /metrics, /healthz and /readyz");
            let router = metrics::scrape::routes(engine.metrics.clone(), pool.clone()).merge(health.clone().routes());
            let mut workers_stopped = stop_workers.subscribe();
            let shutdown = async move {
                let _ = workers_stopped.wait_for(|stop| *stop).await;
            };
            let service = router.into_make_service();
            Some(tokio::spawn(async move { axum::serve(listener, service).with_graceful_shutdown(shutdown).await }))
        }
        None => None,
    };

    let server = match listener {
        Some(listener) => {
            tracing::info!(addr = %listener.local_addr()?, "Herald is serving REST and gRPC");
            let sns_certificates = Arc::new(SnsCertificates::new(provider_settings.clone()));
            let rate_limits = RateLimits::new(rate_limits);
            tokio::spawn(processes::heartbeat(pool.clone(), rate_limits.processes(), stop_server.subscribe()));
            let streams = engine.inbox_feed.clone();
            streams.listen(pool.clone());
            let state = AppState::new(SharedState {
                pool,
                inbox_tokens: SessionTokens::new(&cipher),
                cipher,
                engine,
                public_url,
                sns_certificates,
                api_keys: Default::default(),
                environments: Default::default(),
                rate_limits,
                inbox_demo_application,
                draining: stopped.clone(),
            });
            // A make-service shares one router across connections. Served as a plain `Router`, axum
            // clones the whole route table for every connection (`Router::with_state` on a shared
            // router): measured with heaptrack, 162 MB of a 232 MB heap at 512 keep-alive connections.
            let router = server::router(state, extra_rest_routes, health.clone(), grpc_health);
            let listener = server::ApiListener::new(listener, router.clone());
            let service = router.into_make_service();
            tokio::spawn(health.clone().refresh_periodically(stopped.clone()));
            let shutdown = async move {
                let _ = stopped.wait_for(|stop| *stop).await;
                // Event streams never end by themselves: their clients reconnect (and resume) elsewhere.
                streams.close();
            };
            Some(tokio::spawn(async move { axum::serve(listener, service).with_graceful_shutdown(shutdown).await }))
        }
        None => None,
    };
    Ok(Running { health, server, workers, operations, stop_server, stop_workers })
}

impl Running {
    /// Asks the server and the workers to stop, without waiting for them.
    pub fn stop(&self) {
        let _ = self.stop_server.send(true);
        let _ = self.stop_workers.send(true);
    }

    /// The drain: reports not ready (gRPC health NOT_SERVING, `/readyz` 503), stops accepting
    /// connections and lets in-flight requests finish, then lets the workers finish their batches.
    /// A worker runs every job it claims at once, and a batch always ends by committing its outcomes
    /// or releasing its jobs, so no job is left to wait out its lease.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        self.health.start_draining().await;
        let _ = self.stop_server.send(true);
        if let Some(mut server) = self.server {
            tokio::select! {
                served = &mut server => served??,
                _ = tokio::time::sleep(REQUEST_DRAIN_TIMEOUT) => {
                    // A request that never ends (a gRPC health watch, a stream) must not hold the stop.
                    tracing::warn!("requests still open after the drain timeout; closing them");
                    server.abort();
                }
            }
        }
        let _ = self.stop_workers.send(true);
        if let Some(workers) = self.workers {
            workers.await?;
        }
        if let Some(operations) = self.operations {
            operations.await??;
        }
        Ok(())
    }
}
