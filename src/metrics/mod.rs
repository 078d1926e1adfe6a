//! Prometheus metrics of one process: what an operator graphs and alerts on. Each process (and each
//! test server) owns its own registry, so a scrape shows exactly that process's traffic.
//!
//! Labels are closed sets — protocol, HTTP method, route template, status class or gRPC code, trigger
//! status, step type, provider id (from the fixed list the API accepts), outcome — never an id or any
//! value a client chooses, so the number of series is bounded.
//!
//! The names, all prefixed `herald_` except the process's standard two:
//! - `herald_request_duration_seconds{protocol, method, route, status}`: every request (a histogram,
//!   so `_count` is the request count);
//! - `herald_triggers_total{status}`: triggers answered, by their status (`processed`, a refusal
//!   such as `trigger_not_active`, `rejected` for a 4xx, `failed` for a 5xx);
//! - `herald_ingest_batch_triggers`, `herald_ingest_flush_seconds`: the group commit's batches;
//! - `herald_ingest_batches_total{path}`: how they were stored: `pipelined` (two round trips), `full`,
//!   or `rolled_back` (a pipelined attempt not as expected, then stored by the full path and counted
//!   there too);
//! - `herald_jobs_total{step_type, event}`: jobs claimed, and finished as completed, failed, retried
//!   (a retry scheduled), delayed, canceled, skipped or merged;
//! - `herald_jobs{status}` and `herald_oldest_due_job_age_seconds`: the queue, read at each scrape
//!   (the age is the one number to alert on: work is due and nobody runs it);
//! - `herald_delivery_attempt_duration_seconds{provider, outcome}`: provider calls;
//! - `herald_db_pool_connections{state}`, `herald_db_pool_waiting`, `herald_db_pool_wait_seconds`: the
//!   connection pool (the histogram: how long each checkout waited for a connection);
//! - `process_resident_memory_bytes`, `process_cpu_seconds_total`.

mod process;
mod queue;
pub mod requests;
pub mod scrape;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use crate::db::DbPool;

/// A histogram family with its buckets.
type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// `rest` or `grpc`.
    pub protocol: &'static str,
    pub method: &'static str,
    /// The route template (`/v1/subscribers/{subscriber_id}`) or gRPC method path; `unmatched` for
    /// a path Herald does not serve.
    pub route: String,
    /// REST: `2xx`…`5xx`; gRPC: the status code's name (`ok`, `not_found`…).
    pub status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TriggerLabels {
    status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PathLabels {
    path: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct JobLabels {
    step_type: &'static str,
    event: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DeliveryLabels {
    provider: String,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StatusLabels {
    status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    state: &'static str,
}

/// The metrics of one process; cheap to share (`Arc`), cheap to record (atomics).
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Histograms<RequestLabels>,
    triggers: Family<TriggerLabels, Counter>,
    ingest_batch_triggers: Histogram,
    ingest_flush_seconds: Histogram,
    ingest_batches: Family<PathLabels, Counter>,
    jobs: Family<JobLabels, Counter>,
    deliveries: Histograms<DeliveryLabels>,
    queue: Family<StatusLabels, Gauge>,
    oldest_due_job_age: Gauge<f64, AtomicU64>,
    pool_connections: Family<StateLabels, Gauge>,
    pool_waiting: Gauge,
}

fn request_buckets() -> Histogram {
    // 0.5 ms … 16 s
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

fn delivery_buckets() -> Histogram {
    // 5 ms … 41 s: a provider's slowest answer is its timeout
    Histogram::new(exponential_buckets(0.005, 2.0, 14))
}

impl Metrics {
    /// The metrics of a process whose connections come from `pool`.
    pub fn new(pool: &DbPool) -> Self {
        let mut registry = Registry::default();
        let requests: Histograms<RequestLabels> = Family::new_with_constructor(request_buckets);
        registry.register("herald_request_duration_seconds", "Requests, REST and gRPC", requests.clone());
        let triggers = Family::default();
        registry.register("herald_triggers", "Triggers answered, by status", triggers.clone());
        let ingest_batch_triggers = Histogram::new(exponential_buckets(1.0, 2.0, 12));
        registry.register(
            "herald_ingest_batch_triggers",
            "Triggers stored per group-commit transaction",
            ingest_batch_triggers.clone(),
        );
        let ingest_flush_seconds = Histogram::new(exponential_buckets(0.0005, 2.0, 14));
        registry.register(
            "herald_ingest_flush_seconds",
            "Time to store one group-commit batch",
            ingest_flush_seconds.clone(),
        );
        let ingest_batches = Family::default();
        registry.register(
            "herald_ingest_batches",
            "Group-commit batches, by how they were stored",
            ingest_batches.clone(),
        );
        let jobs = Family::default();
        registry.register("herald_jobs", "Jobs claimed and finished, by step type", jobs.clone());
        let deliveries: Histograms<DeliveryLabels> = Family::new_with_constructor(delivery_buckets);
        registry.register(
            "herald_delivery_attempt_duration_seconds",
            "Provider calls, by provider and outcome",
            deliveries.clone(),
        );
        let queue = Family::default();
        registry.register("herald_queued_jobs", "Jobs not finished yet, by status (read at scrape)", queue.clone());
        let oldest_due_job_age = Gauge::<f64, AtomicU64>::default();
        registry.register(
            "herald_oldest_due_job_age_seconds",
            "How long the oldest due job has waited to be claimed (0 when none waits)",
            oldest_due_job_age.clone(),
        );
        let pool_connections = Family::default();
        registry.register(
            "herald_db_pool_connections",
            "Database pool connections: open, idle, and the pool's maximum",
            pool_connections.clone(),
        );
        let pool_waiting = Gauge::default();
        registry.register("herald_db_pool_waiting", "Tasks waiting for a pooled connection", pool_waiting.clone());
        registry.register(
            "herald_db_pool_wait_seconds",
            "How long each checkout waited for a pooled connection",
            pool.wait_seconds(),
        );
        registry.register_collector(Box::new(process::ProcessCollector));
        Self {
            registry,
            requests,
            triggers,
            ingest_batch_triggers,
            ingest_flush_seconds,
            ingest_batches,
            jobs,
            deliveries,
            queue,
            oldest_due_job_age,
            pool_connections,
            pool_waiting,
        }
    }

    pub fn request(&self, labels: RequestLabels, elapsed: Duration) {
        self.requests.get_or_create(&labels).observe(elapsed.as_secs_f64());
    }

    /// A trigger's answer: its status name, or `rejected` / `failed` for a 4xx / 5xx.
    pub fn trigger(&self, status: &'static str) {
        self.triggers.get_or_create(&TriggerLabels { status }).inc();
    }

    pub fn ingest_flush(&self, triggers: usize, elapsed: Duration) {
        self.ingest_batch_triggers.observe(triggers as f64);
        self.ingest_flush_seconds.observe(elapsed.as_secs_f64());
    }

    /// `path`: `pipelined`, `full` or `rolled_back` (see the module's list).
    pub fn ingest_batch(&self, path: &'static str) {
        self.ingest_batches.get_or_create(&PathLabels { path }).inc();
    }

    /// `event`: `claimed`, or the status a job finished with (`queued` counts as `retried`).
    pub fn job(&self, step_type: &'static str, event: &'static str) {
        let event = if event == "queued" { "retried" } else { event };
        self.jobs.get_or_create(&JobLabels { step_type, event }).inc();
    }

    pub fn delivery_attempt(&self, provider: &str, outcome: &'static str, elapsed: Duration) {
        let labels = DeliveryLabels { provider: provider.to_owned(), outcome };
        self.deliveries.get_or_create(&labels).observe(elapsed.as_secs_f64());
    }

    /// The text exposition (Prometheus 0.0.4 format).
    pub fn encode(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry)
            .expect("writing to a String cannot fail");
        text
    }
}
