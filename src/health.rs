//! What a load balancer or an orchestrator asks a process: is it alive (`GET /healthz`), should it get
//! traffic (`GET /readyz`: the database answers, every migration this build embeds is applied, the
//! worker loops run when the process's role has them), and is it draining. The gRPC health service
//! (`grpc.health.v1.Health`, service `""`) reports the same readiness: it is refreshed by every
//! `/readyz` and every few seconds, and turns NOT_SERVING at once when the drain starts.
//!
//! Both routes are open (no API key) and answer plain JSON; neither touches a tenant's data.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use diesel::migration::MigrationSource;
use diesel::sql_types::{Array, BigInt, Text};
use http::StatusCode;
use serde::Serialize;
use tokio::sync::watch;
use tonic_health::server::HealthReporter;
use tonic_health::ServingStatus;

use crate::db::{DbPool, MIGRATIONS};
use crate::openapi::{ApiRoutes, Operation};

/// How long a readiness check waits for the database before calling it unreachable.
const DATABASE_CHECK_TIMEOUT: Duration = Duration::from_secs(2);
/// How often the gRPC health status is refreshed between `/readyz` calls.
const REFRESH_INTERVAL: Duration = Duration::from_secs(5);

/// The process's health, shared by the routes, the gRPC health service and the drain.
pub struct Health {
    pool: DbPool,
    reporter: HealthReporter,
    draining: AtomicBool,
    /// The versions of the migrations this build embeds: all must be applied.
    migrations: Vec<String>,
    /// Whether the worker loops still run; `None` in a process without workers.
    workers: Option<WorkersAlive>,
    /// Held from a check until its report: a check that read the database before a change must not
    /// report after the check that read it after (the periodic refresh and `/readyz` run concurrently).
    checking: tokio::sync::Mutex<()>,
}

/// Set while the worker task runs; cleared when it ends, however it ends (a panic included).
#[derive(Clone, Default)]
pub struct WorkersAlive(Arc<AtomicBool>);

impl WorkersAlive {
    /// Marks the workers running until the returned guard is dropped.
    pub fn running(&self) -> impl Drop {
        self.0.store(true, Ordering::SeqCst);
        AliveGuard(self.0.clone())
    }

    fn get(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

struct AliveGuard(Arc<AtomicBool>);

impl Drop for AliveGuard {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// The answer of `/readyz`.
#[derive(Debug, Serialize)]
pub struct Readiness {
    /// `ready`, `not_ready` or `draining`.
    pub status: &'static str,
    pub checks: Checks,
}

/// Each readiness condition: `ok`, or what is wrong.
#[derive(Debug, Serialize)]
pub struct Checks {
    /// `ok` or `unreachable`.
    pub database: &'static str,
    /// `ok`, `pending` (the database lacks a migration this build has) or `unknown` (unreachable).
    pub migrations: &'static str,
    /// `ok`, `stopped`, or `not_run` (the process's role has no workers).
    pub workers: &'static str,
}

impl Readiness {
    fn ready(&self) -> bool {
        self.status == "ready"
    }
}

impl Health {
    pub fn new(pool: DbPool, reporter: HealthReporter, workers: Option<WorkersAlive>) -> Self {
        let migrations = MigrationSource::<diesel::pg::Pg>::migrations(&MIGRATIONS)
            .map(|migrations| migrations.iter().map(|migration| migration.name().version().to_string()).collect())
            .unwrap_or_default();
        Self { pool, reporter, draining: AtomicBool::new(false), migrations, workers, checking: Default::default() }
    }

    /// Checks every condition now, and reports the outcome to the gRPC health service too.
    pub async fn readiness(&self) -> Readiness {
        let _checking = self.checking.lock().await;
        let (database, migrations) = match self.applied_migrations().await {
            Some(applied) if applied == self.migrations.len() as i64 => ("ok", "ok"),
            Some(_) => ("ok", "pending"),
            None => ("unreachable", "unknown"),
        };
        let workers = match &self.workers {
            None => "not_run",
            Some(alive) if alive.get() => "ok",
            Some(_) => "stopped",
        };
        let status = if self.draining.load(Ordering::SeqCst) {
            "draining"
        } else if [database, migrations, workers].iter().all(|check| matches!(*check, "ok" | "not_run")) {
            "ready"
        } else {
            "not_ready"
        };
        let readiness = Readiness { status, checks: Checks { database, migrations, workers } };
        self.report(readiness.ready()).await;
        readiness
    }

    /// Stops reporting ready, for good: the process is stopping.
    pub async fn start_draining(&self) {
        let _checking = self.checking.lock().await;
        self.draining.store(true, Ordering::SeqCst);
        self.report(false).await;
    }

    /// Refreshes the gRPC health status every few seconds until `stop` turns true, so that a gRPC
    /// probe sees a database loss without anyone calling `/readyz`.
    pub async fn refresh_periodically(self: Arc<Self>, mut stop: watch::Receiver<bool>) {
        while !*stop.borrow() {
            self.readiness().await;
            tokio::select! {
                _ = tokio::time::sleep(REFRESH_INTERVAL) => {}
                _ = stop.changed() => {}
            }
        }
    }

    /// `/healthz` and `/readyz`.
    pub fn routes(self: Arc<Self>) -> Router {
        Self::declared_routes().with_state(self)
    }

    /// `/healthz` and `/readyz` with their declarations (they are in the API's OpenAPI document).
    pub fn declared_routes() -> ApiRoutes<Arc<Health>> {
        let alive_answer = serde_json::json!({
            "type": "object",
            "required": ["status"],
            "additionalProperties": false,
            "properties": {"status": {"const": "alive"}},
        });
        fn check(values: &[&str]) -> serde_json::Value {
            serde_json::json!({"type": "string", "enum": values})
        }
        let readiness = serde_json::json!({
            "type": "object",
            "required": ["status", "checks"],
            "additionalProperties": false,
            "properties": {
                "status": check(&["ready", "not_ready", "draining"]),
                "checks": {
                    "type": "object",
                    "required": ["database", "migrations", "workers"],
                    "additionalProperties": false,
                    "properties": {
                        "database": check(&["ok", "unreachable"]),
                        "migrations": check(&["ok", "pending", "unknown"]),
                        "workers": check(&["ok", "stopped", "not_run"]),
                    },
                },
            },
        });
        let healthz = Operation::get("/healthz", "getLiveness", "Health")
            .summary("Whether the process is alive")
            .answers(200, alive_answer)
            .public();
        let readyz = Operation::get("/readyz", "getReadiness", "Health")
            .summary("Whether the process should get traffic (503 while not ready or draining)")
            .answers(200, readiness.clone())
            .answers(503, readiness)
            .public();
        ApiRoutes::new().add(healthz, alive).add(readyz, ready)
    }

    /// How many of the embedded migrations the database has applied; `None` when it does not answer.
    async fn applied_migrations(&self) -> Option<i64> {
        // Imported here: its `load` would shadow the atomics' elsewhere in this file.
        use diesel_async::RunQueryDsl;

        #[derive(diesel::QueryableByName)]
        struct Applied {
            #[diesel(sql_type = BigInt)]
            applied: i64,
        }
        let check = async {
            let mut conn = self.pool.get().await.ok()?;
            diesel::sql_query("SELECT count(*) AS applied FROM __diesel_schema_migrations WHERE version = ANY($1)")
                .bind::<Array<Text>, _>(&self.migrations)
                .get_result::<Applied>(&mut conn)
                .await
                .ok()
        };
        tokio::time::timeout(DATABASE_CHECK_TIMEOUT, check).await.ok().flatten().map(|row| row.applied)
    }

    async fn report(&self, ready: bool) {
        let status = if ready { ServingStatus::Serving } else { ServingStatus::NotServing };
        self.reporter.set_service_status("", status).await;
    }
}

async fn alive() -> Json<serde_json::Value> {
    Json(serde_json::json!({"status": "alive"}))
}

async fn ready(State(health): State<Arc<Health>>) -> Response {
    let readiness = health.readiness().await;
    let status = if readiness.ready() { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(readiness)).into_response()
}
