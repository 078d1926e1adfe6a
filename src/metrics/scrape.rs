//! `GET /metrics`: the gauges read at scrape time (the queue, the pool), then the whole registry in
//! the Prometheus text format. Served on `HERALD_METRICS_ADDR` only, never on the API's port: it
//! needs no key, and what it tells (traffic, queue depth) is for the operator.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

use super::queue::{self, LIVE_STATUSES};
use super::{Metrics, StateLabels, StatusLabels};
use crate::db::DbPool;
use crate::error::AppError;

#[derive(Clone)]
struct Scrape {
    metrics: Arc<Metrics>,
    pool: DbPool,
}

/// The `/metrics` route of `metrics`, reading the queue through `pool`.
pub fn routes(metrics: Arc<Metrics>, pool: DbPool) -> Router {
    Router::new().route("/metrics", get(scrape)).with_state(Scrape { metrics, pool })
}

async fn scrape(State(Scrape { metrics, pool }): State<Scrape>) -> Response {
    let status = pool.status();
    for (state, connections) in [("open", status.size), ("idle", status.available), ("max", status.max_size)] {
        metrics.pool_connections.get_or_create(&StateLabels { state }).set(connections as i64);
    }
    metrics.pool_waiting.set(status.waiting as i64);
    // The queue gauges keep their last values when the database does not answer: the scrape still
    // shows the rest (and the request and delivery series show the outage).
    let read = async {
        let mut conn = pool.get().await?;
        Ok::<_, AppError>(queue::read(&mut conn).await?)
    };
    match read.await {
        Ok((by_status, oldest_due_age)) => {
            for (status, jobs) in LIVE_STATUSES.into_iter().zip(by_status) {
                metrics.queue.get_or_create(&StatusLabels { status }).set(jobs);
            }
            metrics.oldest_due_job_age.set(oldest_due_age);
        }
        Err(error) => tracing::warn!(%error, "metrics: cannot read the job queue"),
    }
    ([(http::header::CONTENT_TYPE, CONTENT_TYPE)], metrics.encode()).into_response()
}
