//! The connection pool, timing every checkout: how long requests and workers wait for a connection is
//! the first sign that `HERALD_DB_POOL_SIZE` (or PostgreSQL's `max_connections`) is too small for the
//! load, before any request fails.

use std::time::Instant;

use diesel_async::pooled_connection::deadpool::{Object, Pool, PoolError};
use diesel_async::AsyncPgConnection;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};

/// One connection checked out of the pool.
pub type DbConn = Object<AsyncPgConnection>;

/// The shared pool of async PostgreSQL connections; cheap to clone (clones share the pool and its
/// wait histogram).
#[derive(Clone)]
pub struct DbPool {
    inner: Pool<AsyncPgConnection>,
    wait: Histogram,
}

impl DbPool {
    pub(super) fn new(inner: Pool<AsyncPgConnection>) -> Self {
        // 50 µs (an idle connection is at hand) … 6.5 s (the pool is exhausted).
        Self { inner, wait: Histogram::new(exponential_buckets(0.000_05, 2.0, 18)) }
    }

    /// A connection, once one is free; the wait is observed whether or not one comes.
    pub async fn get(&self) -> Result<DbConn, PoolError> {
        let started = Instant::now();
        let connection = self.inner.get().await;
        self.wait.observe(started.elapsed().as_secs_f64());
        connection
    }

    /// Connections open, idle and waited for.
    pub fn status(&self) -> deadpool::Status {
        self.inner.status()
    }

    /// Seconds each checkout waited, for the process's metrics registry.
    pub fn wait_seconds(&self) -> Histogram {
        self.wait.clone()
    }
}
